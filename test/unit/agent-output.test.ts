import { test } from 'node:test';
import assert from 'node:assert/strict';
import { formatForAgent } from '../../src/core/agent-output.ts';
import { DEFAULT_AGENT_BUDGET_BYTES, MIN_AGENT_BUDGET_BYTES } from '../../src/core/options.ts';
import type { SearchResponse, SearchResult } from '../../src/core/types.ts';

function result(i: number, lines = 30, word = 'retry'): SearchResult {
  return {
    chunkId: 100 + i,
    path: `src/module-${i}.ts`,
    startLine: 10,
    endLine: 10 + lines - 1,
    title: `handler${i}`,
    kind: 'code',
    language: 'typescript',
    stage: i === 0 ? 'proximity' : 'rrf',
    score: 1 / (i + 1),
    snippet: `function handler${i}() { ${word} … }`,
    matches: [[`function handler${i}() { `.length, `function handler${i}() { `.length + word.length]],
    explain: { stage: 'rrf', porter: { rank: i + 1, bm25: -3 }, rrf: { score: 0.016, k: 60, contributions: { porter: 0.016 } } },
  };
}

function chunkText(i: number, lines = 30, word = 'retry'): string {
  return Array.from({ length: lines }, (_, n) =>
    n === 5 ? `  const x = ${word}(${i}); // ünïcödé ✓` : `  line ${n} of chunk ${i} with some ordinary code text here;`,
  ).join('\n');
}

function response(results: SearchResult[], extra: Partial<SearchResponse> = {}): SearchResponse {
  return { results, corrections: [], feedbackWords: [], candidates: results.length, elapsedMs: 1, ...extra };
}

test('the answer never exceeds its byte budget, whatever the budget and the number of results', () => {
  for (const budget of [MIN_AGENT_BUDGET_BYTES, 700, 1000, 2048, DEFAULT_AGENT_BUDGET_BYTES, 20000]) {
    for (const n of [0, 1, 3, 10, 50]) {
      const results = Array.from({ length: n }, (_, i) => result(i, 60));
      const out = formatForAgent('retry', response(results, { candidates: n * 2 }), {
        budgetBytes: budget,
        chunkText: (id) => chunkText(id - 100, 60),
        explain: true,
      });
      assert.ok(out.bytes <= budget, `budget ${budget}, ${n} results: ${out.bytes} bytes`);
      assert.equal(out.bytes, Buffer.byteLength(out.text));
      assert.equal(out.shown.length + out.omitted, n);
    }
  }
});

test('a budget below the minimum is raised to the minimum rather than answering nothing', () => {
  const out = formatForAgent('retry', response([result(0)]), { budgetBytes: 10, chunkText: () => chunkText(0) });
  assert.ok(out.bytes <= MIN_AGENT_BUDGET_BYTES);
  assert.equal(out.shown.length, 1);
});

test('a truncated answer says how many results were left out and why', () => {
  const results = Array.from({ length: 20 }, (_, i) => result(i, 60));
  const out = formatForAgent('retry', response(results, { candidates: 45 }), { budgetBytes: 1024, chunkText: (id) => chunkText(id - 100, 60) });
  assert.ok(out.omitted > 0);
  assert.match(out.text, new RegExp(`Truncated: ${out.omitted} more of 20 results left out to stay within 1024 bytes`));
  assert.match(out.text, /^20 results for "retry" \(45 candidates matched; raise limit for more\); \d+ shown\./);
});

test('an answer that fits says nothing about truncation', () => {
  const out = formatForAgent('retry', response([result(0, 5), result(1, 5)]), { chunkText: (id) => chunkText(id - 100, 5) });
  assert.equal(out.omitted, 0);
  assert.doesNotMatch(out.text, /Truncated/);
  assert.match(out.text, /^2 results for "retry"\.\n/);
});

test('a fuzzy correction is named in the answer', () => {
  const out = formatForAgent('rety', response([result(0)], { corrections: [['rety', 'retry']] }), { chunkText: () => chunkText(0) });
  assert.match(out.text, /Corrected: "rety" → "retry"/);
});

test('each result gives path:start-end, title, kind, stage and chunk id, then the lines around the best match', () => {
  const out = formatForAgent('retry', response([result(0)]), { chunkText: () => chunkText(0) });
  assert.match(out.text, /\n1\. src\/module-0\.ts:10-39 handler0 \[code, proximity, chunk 100\]\n/);
  assert.match(out.text, / {3}15: {3}const x = retry\(0\);/, 'the matching line (chunk line 6 = file line 15) is printed with its file line number');
  const run = out.shown[0]!.printed.find(([a, b]) => a <= 15 && b >= 15);
  assert.ok(run);
});

test('without chunk text the one-line snippet stands in for the excerpt', () => {
  const out = formatForAgent('retry', response([result(0)]));
  assert.match(out.text, / {3}function handler0\(\) \{ retry … \}\n/);
  assert.deepEqual(out.shown[0]!.printed, []);
});

test('no results is said plainly', () => {
  const out = formatForAgent('nothing', response([]));
  assert.equal(out.text, 'No results for "nothing".\n');
});

test('the budget is shared: a long first chunk does not crowd out every other result', () => {
  const results = Array.from({ length: 5 }, (_, i) => result(i, 200));
  const out = formatForAgent('retry', response(results), { budgetBytes: 4096, chunkText: (id) => chunkText(id - 100, 200) });
  assert.equal(out.shown.length, 5);
});
