// describe(): one result's explanation in words, and the hosts that print it — the CLI's
// --explain and the agent text — saying it in exactly those words. (The panel's wording is
// checked by test/e2e/search-ui.test.ts.)

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { formatResults } from '../../src/cli/format.ts';
import { formatForAgent } from '../../src/core/agent-output.ts';
import { copiesCount, copiesNote, describe, describeAsText } from '../../src/core/describe.ts';
import type { SearchResponse, SearchResult } from '../../src/core/types.ts';
import { tempDir } from './helpers/store.ts';

const CLI = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));

/** A result every stage touched: two lists and feedback, the rerank lifted it, a word was corrected. */
const promoted: SearchResult = {
  chunkId: 7,
  path: 'src/retry.ts',
  startLine: 3,
  endLine: 9,
  title: 'retryPolicy',
  kind: 'code',
  language: 'typescript',
  stage: 'proximity',
  score: 0.0345,
  snippet: 'export function retryPolicy() {}',
  matches: [],
  explain: {
    stage: 'proximity',
    porter: { rank: 3, bm25: -15.518 },
    trigram: { rank: 5, bm25: -11.84 },
    feedback: { rank: 7, bm25: -17.671 },
    rrf: { score: 0.031, k: 60, contributions: { porter: 1 / 63, trigram: 0.5 / 65, feedback: 0.5 / 67 } },
    proximity: { titleBoost: 0.15, span: 24, phrasePairs: 1, boost: 0.234, lexical: 0.81, fusedRank: 4, finalRank: 1 },
    fuzzy: { corrections: [['retyr', 'retry']] },
  },
};

/** A result only the Porter list found, with the rerank off. */
const fusedOnly: SearchResult = {
  ...promoted,
  stage: 'rrf',
  score: 1 / 61,
  explain: { stage: 'rrf', porter: { rank: 1, bm25: -3 }, rrf: { score: 1 / 61, k: 60, contributions: { porter: 1 / 61 } } },
};

const response = (results: SearchResult[]): SearchResponse => ({
  results,
  offset: 0,
  corrections: [],
  unmatched: [],
  feedbackWords: [],
  candidates: results.length,
  elapsedMs: 1,
});

test('describe() puts every stage that touched a result into one line each, the proximity boost as the factor it multiplies by', () => {
  assert.deepEqual(describeAsText(promoted), [
    'Stage: proximity · score 0.0345',
    'Porter: #3 · bm25 -15.52 · rrf +0.0159',
    'Trigram: #5 · bm25 -11.84 · rrf +0.0077',
    'Feedback: #7 · bm25 -17.67 · rrf +0.0075',
    'RRF: 0.0310 (k = 60)',
    'Proximity: ×1.23 (title 0.15, span 24 chars, in-order pairs 1) · lexical match 81% (×0.90) · rank 4 → 1',
    'Fuzzy: retyr → retry',
  ]);
});

test('describe() says a query list missed the chunk, and leaves out feedback, proximity and fuzzy when they did not touch it', () => {
  assert.deepEqual(describeAsText(fusedOnly), [
    'Stage: rrf · score 0.0164',
    'Porter: #1 · bm25 -3.00 · rrf +0.0164',
    'Trigram: not in this list',
    'RRF: 0.0164 (k = 60)',
  ]);
});

test('describe() gives each list line its RRF contribution, so the panel can draw the lists to one scale', () => {
  const lists = describe(fusedOnly).filter((line) => line.contribution !== undefined);
  assert.deepEqual(
    lists.map(({ topic, contribution }) => [topic, contribution]),
    [
      ['porter', 1 / 61],
      ['trigram', 0],
    ],
  );
});

test('a rerank that found no span says so rather than printing a length', () => {
  const noSpan = { ...promoted, explain: { ...promoted.explain, proximity: { ...promoted.explain.proximity!, span: null } } };
  assert.match(
    describeAsText(noSpan).find((line) => line.startsWith('Proximity:'))!,
    /span —,/,
  );
});

test("the CLI's --explain and the agent text describe a result in the same words", () => {
  const cli = formatResults(response([promoted, fusedOnly]), { explain: true, color: false })
    .split('\n')
    .map((line) => line.trim());
  const agent = formatForAgent('retry policy', response([promoted, fusedOnly]), { explain: true }).text;
  for (const result of [promoted, fusedOnly]) {
    const described = describeAsText(result);
    for (const line of described) assert.ok(cli.includes(line), `the CLI prints "${line}"`);
    assert.ok(agent.includes(`\nwhy: ${described.join('; ')}\n`), 'the agent text prints the same lines on its why line');
  }
  assert.ok(agent.includes('Proximity: ×1.23 (title 0.15, span 24 chars, in-order pairs 1)'), 'one wording for the proximity boost');
});

test("the CLI's --json keeps the explanation's fields, the title's part of the rerank boost as titleBoost, the chunk's id and its copies", () => {
  const root = tempDir('fused-describe-');
  const code = 'export function retryPolicy(attempts: number): number {\n  return 2 ** attempts;\n}\n';
  fs.writeFileSync(path.join(root, 'retry.ts'), code);
  fs.mkdirSync(path.join(root, 'vendor'));
  fs.writeFileSync(path.join(root, 'vendor/retry.ts'), code);
  const db = path.join(root, 'index.db');
  try {
    execFileSync(process.execPath, [CLI, 'index', root, '--db', db, '--json']);
    const results = JSON.parse(execFileSync(process.execPath, [CLI, 'search', 'retry policy', '--db', db, '--json'], { encoding: 'utf8' })) as SearchResult[];
    assert.equal(results.length, 1, 'the two files hold one text: one result');
    assert.ok(Number.isInteger(results[0]!.chunkId), 'the id a read_chunk call takes');
    assert.equal(results[0]!.language, 'typescript');
    assert.deepEqual(
      results[0]!.copies?.map((copy) => copy.path),
      [results[0]!.path === 'retry.ts' ? 'vendor/retry.ts' : 'retry.ts'],
      'the copy folded into it is named, as the README says',
    );
    // What the answer says of the query goes to stderr, beside a list that stays a list.
    const missing = spawnSync(process.execPath, [CLI, 'search', 'retry policy downtime', '--db', db, '--json'], { encoding: 'utf8' });
    assert.ok(Array.isArray(JSON.parse(missing.stdout)));
    assert.match(missing.stderr, /fused-search: Note: no file holds “downtime”; the results are ranked without it\./);
    const { explain } = results[0]!;
    assert.deepEqual(Object.keys(explain.proximity!).sort(), ['boost', 'finalRank', 'fusedRank', 'lexical', 'phrasePairs', 'span', 'titleBoost']);
    assert.ok(explain.proximity!.titleBoost > 0, 'the title retryPolicy names the query');
    assert.ok(explain.porter && explain.rrf.contributions.porter! > 0);
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
});

test('copies are named as exact copies first, then places of much the same text, each counted past what a host lists', () => {
  const at = (path: string, alike?: true) => ({ chunkId: path.length, path, startLine: 1, endLine: 9, ...(alike ? { alike } : {}) });
  const same = [at('a.md'), at('b.md'), at('c.md')];
  const alike = [at('a.html', true), at('a.1', true)];
  assert.equal(copiesNote(same, 2), 'same text also at a.md:1-9, b.md:1-9 and 1 more');
  assert.equal(copiesNote([...same, ...alike], 2), 'same text also at a.md:1-9, b.md:1-9 and 1 more; much the same at a.html:1-9, a.1:1-9');
  assert.equal(copiesNote([...same, ...alike], 2, 0), 'same text also at a.md:1-9, b.md:1-9 and 1 more; much the same in 2 more places');
  assert.equal(copiesNote(alike, 1), 'much the same text also at a.html:1-9 and 1 more');
  assert.equal(copiesNote(alike, 2, 0), 'much the same text in 2 more places');
  assert.equal(copiesCount(same), 'same text in 3 more places');
  assert.equal(copiesCount(alike.slice(0, 1)), 'much the same text in 1 more place');
  assert.equal(copiesCount([...same, ...alike]), 'same or much the same text in 5 more places');
});
