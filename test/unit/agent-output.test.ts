import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { formatForAgent } from '../../src/core/agent-output.ts';
import { signatureLines } from '../../src/core/excerpt.ts';
import { formatLocateForAgent } from '../../src/core/locate-output.ts';
import { DEFAULT_AGENT_BUDGET_BYTES, MIN_AGENT_BUDGET_BYTES } from '../../src/core/options.ts';
import type { SearchResponse, SearchResult } from '../../src/core/types.ts';
import { tempDir } from './helpers/store.ts';

const CLI = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));

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

function printedLines(out: { shown: Array<{ printed: Array<[number, number]> }> }): number {
  return out.shown.reduce((n, r) => n + r.printed.reduce((m, [a, b]) => m + b - a + 1, 0), 0);
}

function response(results: SearchResult[], extra: Partial<SearchResponse> = {}): SearchResponse {
  return { results, offset: 0, corrections: [], unmatched: [], feedbackWords: [], candidates: results.length, elapsedMs: 1, ...extra };
}

/** A new folder, and a writer of files at paths inside it, their folders made as needed. */
function folderToWrite(prefix: string): { root: string; write: (rel: string, text: string) => void } {
  const root = tempDir(prefix);
  const write = (rel: string, text: string) => {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    fs.writeFileSync(path.join(root, rel), text);
  };
  return { root, write };
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
  assert.match(out.text, /^20 results in 20 files \(45 candidates matched\); offset (\d+) for the next\./);
  assert.equal(Number(/offset (\d+) for the next/.exec(out.text)![1]), 20 - out.omitted, 'the next page starts at the first result left out');
});

test('a later page numbers its results from the offset, gives them a best line as at those ranks, and names the next offset', () => {
  const page = Array.from({ length: 10 }, (_, i) => result(10 + i, 30));
  const text = (id: number) => chunkText(id - 100, 30);
  const out = formatForAgent('retry', response(page, { offset: 10, candidates: 45 }), { chunkText: text });
  assert.match(out.text, /^Results 11–20 in 10 files \(45 candidates matched\); offset 20 for the next\.\n/);
  assert.match(out.text, /\n\[11\] 10-39 handler10 · chunk 110\n15: {3}const x = retry\(10\);.*\n\n/);
  assert.equal(printedLines({ shown: out.shown.slice(0, 1) }), 1, 'result 11 prints its best line');
  assert.doesNotMatch(out.text, /\[1\] /);
  const first = formatForAgent('retry', response(page, { candidates: 45 }), { chunkText: text });
  assert.match(first.text, /^\[1\] 10-39 handler10 · chunk 110\n/m);
  assert.ok(printedLines({ shown: first.shown.slice(0, 1) }) > 1, 'the same result first on the first page gets its lines');
  const last = formatForAgent('retry', response(page.slice(0, 5), { offset: 40, candidates: 45 }), { chunkText: text });
  assert.match(last.text, /^Results 41–45 in 5 files\.\n/, 'no next offset when nothing is left');
  const past = formatForAgent('retry', response([], { offset: 50, candidates: 45 }));
  assert.equal(past.text, 'No results after the first 50.\n');
});

test('an answer that fits says nothing about truncation', () => {
  const out = formatForAgent('retry', response([result(0, 5), result(1, 5)]), { chunkText: (id) => chunkText(id - 100, 5) });
  assert.equal(out.omitted, 0);
  assert.doesNotMatch(out.text, /Truncated/);
  assert.match(out.text, /^2 results in 2 files\.\n/);
});

test('a fuzzy correction is named in the answer', () => {
  const out = formatForAgent('rety', response([result(0)], { corrections: [['rety', 'retry']] }), { chunkText: () => chunkText(0) });
  assert.match(out.text, /Corrected: "rety" → "retry"/);
});

test('query words no file holds are named, and the results said to be ranked without them', () => {
  const out = formatForAgent('retry downtime', response([result(0)], { unmatched: ['downtime'] }), { chunkText: () => chunkText(0) });
  assert.match(out.text, /\nNote: no file holds “downtime”; the results are ranked without it\.\n/);
  const none = formatForAgent('zebracorn', response([], { unmatched: ['zebracorn'] }));
  assert.match(none.text, /\nNote: no file holds “zebracorn”\.\n/);
  const many = 'abcdefghij'.split('').map((letter) => `${letter}word`);
  assert.match(
    formatForAgent(many.join(' '), response([result(0)], { unmatched: many })).text,
    /“hword” or 2 more; the results are ranked without them\./,
    'a long paste names eight and counts the rest',
  );
});

test('each result gives its line range, title and chunk id under its file, then the matched line; the trailer counts the lines left out', () => {
  const out = formatForAgent('retry', response([result(0)]), { chunkText: () => chunkText(0) });
  assert.match(out.text, /\nsrc\/module-0\.ts\n\[1\] 10-39 handler0 · chunk 100\n/);
  assert.match(out.text, /^15: {3}const x = retry\(0\);/m, 'the matching line (chunk line 6 = file line 15) is printed with its file line number');
  assert.ok(out.shown[0]!.printed.some(([a, b]) => a <= 15 && b >= 15));
  const printed = printedLines(out);
  assert.equal(printed, out.text.split('\n').filter((l) => /^\d+:/.test(l)).length, 'what `shown` says was printed is what the text holds');
  assert.ok(printed < 30);
  assert.match(out.text, new RegExp(`\\[${30 - printed} lines of these chunks not printed`), 'the trailer says exactly how many lines were left out');
});

test("a result's title leaves out what its file's path already says", () => {
  const titled = (title: string, kind: SearchResult['kind'], file = 'lib/rules/eqeqeq.js') => ({ ...result(0), path: file, title, kind });
  const head = (r: SearchResult) => /^\[1\] .*$/m.exec(formatForAgent('retry', response([r])).text)![0];
  assert.equal(head(titled('eqeqeq.js (top level)', 'code')), '[1] 10-39 (top level) · chunk 100');
  assert.equal(head(titled('eqeqeq.js', 'code')), '[1] 10-39 · chunk 100', 'a file chunked whole is its path');
  assert.equal(head(titled('notes.txt: Retry once a minute (part 2)', 'prose', 'docs/notes.txt')), '[1] 10-39 Retry once a minute (part 2) · chunk 100');
  assert.equal(
    head(titled('semver(1) -- The semantic versioner for npm > Functions > Ranges', 'prose', 'README.md')),
    '[1] 10-39 Functions > Ranges · chunk 100',
    "a document's own title is left to its path, the section and its parent are kept",
  );
  assert.equal(
    head(
      titled("Benchmarks: Fused Search against context-mode's ContentStore, plain FTS5 and ripgrep > Agent answers (part 2)", 'prose', 'docs/benchmarks.md'),
    ),
    '[1] 10-39 Agent answers (part 2) · chunk 100',
    'a long outer heading is left out rather than the section cut',
  );
  assert.equal(head(titled('Linter > verify > applyFixes', 'code')), '[1] 10-39 Linter > verify > applyFixes · chunk 100', 'a symbol keeps its whole path');

  const chunks = [
    { chunkId: 7, title: 'eqeqeq.js (top level)', kind: 'code' as const, startLine: 1, endLine: 12 },
    { chunkId: 8, title: 'eqeqeq.js', kind: 'code' as const, startLine: 1, endLine: 40 },
  ];
  const located = formatLocateForAgent({ files: [{ path: 'lib/rules/eqeqeq.js', score: 1, why: ['search: 2 chunks'], chunks }], clues: [], elapsedMs: 1 });
  assert.match(
    located.text,
    /^1\. lib\/rules\/eqeqeq\.js .*\n {3}1-12 \(top level\) · chunk 7\n {3}1-40 · chunk 8\n/m,
    'locate prints the titles as a search does',
  );
});

test('without chunk text the one-line snippet stands in for the excerpt', () => {
  const out = formatForAgent('retry', response([result(0)]));
  assert.match(out.text, /\nfunction handler0\(\) \{ retry … \}\n/);
  assert.deepEqual(out.shown[0]!.printed, []);
});

test('no results is said plainly', () => {
  const out = formatForAgent('nothing', response([]));
  assert.equal(out.text, 'No results.\n');
});

test('the budget is shared: a long first chunk does not crowd out every other result', () => {
  const results = Array.from({ length: 5 }, (_, i) => result(i, 200));
  const out = formatForAgent('retry', response(results), { budgetBytes: 4096, chunkText: (id) => chunkText(id - 100, 200) });
  assert.equal(out.shown.length, 5);
});

test('results are grouped by file, files in the order of their best result, results in line order inside a file', () => {
  const a = { ...result(0), path: 'src/a.ts', startLine: 50, endLine: 79, chunkId: 1 };
  const b = { ...result(1), path: 'src/b.ts', chunkId: 2 };
  const c = { ...result(2), path: 'src/a.ts', startLine: 10, endLine: 39, chunkId: 3 };
  const out = formatForAgent('retry', response([a, b, c]), { chunkText: () => chunkText(0) });
  assert.equal(out.text.match(/^src\/a\.ts$/gm)?.length, 1, 'one heading per file');
  assert.ok(out.text.indexOf('src/a.ts') < out.text.indexOf('src/b.ts'));
  assert.ok(out.text.indexOf('[3] 10-39') < out.text.indexOf('[1] 50-79'), 'line order inside the file');
  assert.ok(out.text.indexOf('[1] 50-79') < out.text.indexOf('src/b.ts'));
});

test("the symbol's signature is printed with the matched lines, after its doc comment", () => {
  const lines = ['/**', ' * Retries a request.', ' */', 'export async function fetchWith(', '  url: string,', '  attempts: number,', '): Promise<Response> {'];
  for (let i = 0; i < 40; i++) lines.push(`  step${i}(url); // ordinary work ${i}`);
  lines.push('  return retry(url, attempts);', '}');
  const r = { ...result(0, lines.length), title: 'fetchWith' };
  const out = formatForAgent('retry', response([r]), { chunkText: () => lines.join('\n') });
  assert.match(out.text, /^13: export async function fetchWith\(\n14: {3}url: string,\n15: {3}attempts: number,\n16: \): Promise<Response> \{\n/m);
  assert.match(out.text, /^57: {3}return retry\(url, attempts\);/m);
  assert.doesNotMatch(out.text, /Retries a request/, 'the comment above the signature is left out');
  assert.match(out.text, /\n…\n/, 'the skipped lines between signature and match are marked');
  assert.equal(signatureLines(lines).join(','), '3,4,5,6');
});

test('matched lines close together are printed once, in one run', () => {
  const lines = Array.from({ length: 60 }, (_, i) => `  work(${i}); // ordinary`);
  lines[20] = '  retry(1);';
  lines[22] = '  retry(2);';
  const out = formatForAgent('retry', response([result(0, 60)]), { chunkText: () => lines.join('\n') });
  const numbers = out.text.split('\n').flatMap((l) => (/^(\d+):/.exec(l) ? [Number(/^(\d+):/.exec(l)![1])] : []));
  assert.equal(new Set(numbers).size, numbers.length, 'no line twice');
  const run = out.shown[0]!.printed.find(([a, b]) => a <= 30 && b >= 32);
  assert.ok(run, `one run holds both matches (file lines 30 and 32): ${JSON.stringify(out.shown[0]!.printed)}`);
});

test('a small chunk is printed whole when that costs little more than its excerpt', () => {
  const lines = ['function tiny() {', '  const a = 1;', '  return retry(a);', '}'];
  const out = formatForAgent('retry', response([result(0, 4)]), { chunkText: () => lines.join('\n') });
  assert.match(out.text, / · chunk \d+\n10: function tiny\(\) \{\n11: {3}const a = 1;\n12: {3}return retry\(a\);\n13: \}\n/);
  assert.doesNotMatch(out.text, /not printed/);
});

test('a chunk whose excerpt already holds two thirds of its lines is printed whole, within the rank’s lines', () => {
  // A matched line brings the lines of its block below it: ten retried lines print 29 of 36.
  const drain = (retried: number) =>
    [
      'function drain(queue, started) {',
      ...Array.from({ length: 34 }, (_, n) =>
        n < retried ? `  retry(queue[${n}]); // attempt ${n}` : `  settle(queue[${n}], Date.now() - started, 'a longer line of ordinary code');`,
      ),
      '}',
    ].join('\n');
  const mostly = formatForAgent('retry', response([result(0, 36)]), { chunkText: () => drain(10) });
  assert.deepEqual(mostly.shown[0]!.printed, [[10, 45]], 'the last settle() lines too, rather than a gap to read');
  assert.doesNotMatch(mostly.text, /not printed/);
  const partly = formatForAgent('retry', response([result(0, 36)]), { chunkText: () => drain(3) });
  assert.deepEqual(partly.shown[0]!.printed, [[10, 31]], 'an excerpt of 22 lines of 36 stays an excerpt');
});

test('the first result prints up to 48 lines and the second up to 12, however close their scores', () => {
  // Sixty lines that each hold the query's word: as many lines print as the result may print.
  const retries = Array.from({ length: 60 }, (_, n) => `  retry(queue[${n}]); // attempt ${n} of the drain loop`).join('\n');
  const printed = (secondScore: number) => {
    const second = { ...result(1, 60), score: secondScore };
    const out = formatForAgent('retry', response([{ ...result(0, 60), score: 1 }, second]), { chunkText: () => retries });
    return out.shown.map((shown) => shown.printed.reduce((sum, [a, b]) => sum + b - a + 1, 0));
  };
  assert.deepEqual(printed(0.99), [48, 12], 'a second result within 1% of the first');
  assert.deepEqual(printed(0.5), [48, 12], 'a second result at half the first');
});

test('a small chunk none of whose lines holds a query word (found by its path) is not printed whole', () => {
  const header = [
    '/**',
    ' * @fileoverview Rule to flag statements that use != and ==',
    ' */',
    '"use strict";',
    '',
    'const astUtils = require("./utils/ast-utils");',
  ];
  const found = {
    ...result(0, header.length),
    path: 'lib/rules/eqeqeq.js',
    title: 'eqeqeq.js (top level)',
    snippet: '/** * @fileoverview Rule to flag statements that use != and ==',
  };
  const out = formatForAgent('eqeqeq smart', response([found]), { chunkText: () => header.join('\n') });
  assert.deepEqual(out.shown[0]!.printed, [], 'no line of it printed');
  assert.match(out.text, / · chunk \d+\n\/\*\* \* @fileoverview Rule to flag/, 'its one-line snippet says what it is');
  assert.doesNotMatch(out.text, /astUtils/);
});

test('a short statement around a matched line is printed whole: its comment, its head broken over lines, its block and its closer', () => {
  const lines = ['function verifyAndFix(text) {', '  do {', '    pass++;'];
  for (let i = 0; i < 30; i++) lines.push(`    work${i}(text); // ordinary work ${i}`);
  lines.push(
    '    // Stop when the text repeats itself',
    '    if (',
    '      pass > 1 &&',
    '      current === previous',
    '    ) {',
    '      debug(',
    '        "Circular fixes detected after pass %d.",',
    '        pass,',
    '      );',
    '      warnings.emit(',
    '        filename,',
    '      );',
    '      break;',
    '    }',
  );
  for (let i = 0; i < 30; i++) lines.push(`    more${i}(text); // ordinary work ${i}`);
  lines.push('  } while (fixed);', '}');
  const out = formatForAgent('circular fixes detected', response([result(0, lines.length)]), { chunkText: () => lines.join('\n') });
  // The chunk starts at file line 10: its line i is file line 10 + i.
  const comment = lines.indexOf('    // Stop when the text repeats itself') + 10;
  const closer = comment + 13;
  const run = out.shown[0]!.printed.find(([a, b]) => a <= comment && b >= closer);
  assert.ok(run, `lines ${comment}-${closer} are printed in one run: ${JSON.stringify(out.shown[0]!.printed)}`);
  assert.match(out.text, new RegExp(`\n${closer}: {5}\\}\n`), 'the if closes');
  assert.doesNotMatch(out.text, /work15|more15/, 'the ordinary lines around it are not');
});

test('a match that is a statement of its own in a long block is printed with the lines around it, not alone', () => {
  const lines = ['function drain(queue) {', '  while (queue.length > 0) {', '    const item = queue.shift();', '    retry(item);'];
  for (let i = 0; i < 30; i++) lines.push(`    step${i}(item);`);
  lines.push('  }', '}');
  const out = formatForAgent('retry', response([result(0, lines.length)]), { chunkText: () => lines.join('\n') });
  // The chunk starts at file line 10: the match is line 13.
  assert.match(out.text, /^12: {5}const item = queue\.shift\(\);\n13: {5}retry\(item\);\n14: {5}step0\(item\);\n15: {5}step1\(item\);\n/m);
  assert.ok(printedLines(out) < lines.length, 'not the whole chunk');
});

test('a small chunk far down the results is printed whole when it costs little more than its best line', () => {
  const results = Array.from({ length: 6 }, (_, i) => result(i, i === 5 ? 3 : 60));
  const texts = results.map((_, i) => (i === 5 ? ['## Cache', 'The cache lives in ~/.npm/_cacache;', 'retry reads it first.'].join('\n') : chunkText(i, 60)));
  const out = formatForAgent('retry', response(results), { chunkText: (id) => texts[id - 100] });
  assert.deepEqual(out.shown[5]!.printed, [[10, 12]], 'the three-line chunk at rank 6 is printed whole');
  assert.equal(
    out.shown[4]!.printed.reduce((n, [a, b]) => n + b - a + 1, 0),
    1,
    'a long chunk at rank 5 prints its best line',
  );
});

test('a best line that leaves its expression open is printed with the lines that finish it, even on a one-line allowance', () => {
  const body = (lines: string[]) => ['function check(options, counts) {', ...lines, ...Array.from({ length: 20 }, (_, n) => `  step${n}(options);`), '}'];
  const texts = [
    body(['  const tooManyWarnings =', '    options.maxWarnings >= 0 &&', '    counts.warningCount > options.maxWarnings;']),
    body(['  reportTooManyWarnings(', '    options.maxWarnings,', '    counts,', '  );']),
    body(['  const limit = options.maxWarnings ?? "(none"; // too many warnings (']),
    body(['  const tooManyWarnings =', '    a &&', '    b &&', '    c &&', '    options.maxWarnings;']),
    body(['  // too many warnings: (', '  const x = 1;']),
    body(['  tooManyWarnings++', '  next(options)']),
  ].map((lines) => lines.join('\n'));
  const results = texts.map((text, i) => ({ ...result(i, text.split('\n').length), score: 1 }));
  const out = formatForAgent('too many warnings', response(results, { offset: 10 }), { chunkText: (id) => texts[id - 100] });
  const printed = (i: number) => out.shown[i]!.printed;
  // Each chunk starts at file line 10; its first body line is line 11.
  assert.deepEqual(printed(0), [[11, 13]], 'a declaration ending in `=` is printed down to its end');
  assert.deepEqual(printed(1), [[11, 14]], 'a call opened on its line is printed through its closing bracket');
  assert.match(out.text, /^11: {3}const tooManyWarnings =\n12: {5}options\.maxWarnings >= 0 &&\n13: {5}counts\.warningCount > options\.maxWarnings;\n/m);
  assert.deepEqual(printed(2), [[11, 11]], 'brackets in a string or a comment leave nothing open');
  assert.deepEqual(printed(3), [[11, 11]], 'an expression that takes more than three more lines is left at its line');
  assert.deepEqual(printed(4), [[11, 11]], 'a comment is not continued');
  assert.deepEqual(printed(5), [[11, 11]], 'nor is a statement ending in `++` without a semicolon');
});

test('a search whose best line holds a string left open, escapes in it, is answered at once', () => {
  // The expression that blanked strings took minutes on such a line (twice as long with every two
  // escapes): search over npm's JSON test fixtures did not answer. A child process, so that a hang
  // fails the test instead of stalling the suite.
  const root = tempDir('fused-open-string-');
  const db = path.join(root, 'index.db');
  const filler = Array.from({ length: 24 }, (_, n) => `  step${n}(fixture)`).join('\n');
  fs.writeFileSync(path.join(root, 'fixtures.js'), `function loadFixture(fixture) {\n  const tooManyWarnings = parse("${'\\n'.repeat(48)}\n${filler}\n}\n`);
  execFileSync(process.execPath, [CLI, 'index', root, '--db', db, '--json']);
  const answer = spawnSync(process.execPath, [CLI, 'search', 'too many warnings', '--db', db, '--agent'], { encoding: 'utf8', timeout: 30_000 });
  assert.equal(answer.error, undefined, 'answered within 30 s');
  assert.match(answer.stdout, /^2: {3}const tooManyWarnings = parse\("(\\n)+$/m);
});

test('a best line longer than is printed is not continued: it is cut with `…`', () => {
  const body = [
    'function load(fixture) {',
    `  const tooManyWarnings = [${'"warning", '.repeat(20)}`,
    '    "last"];',
    ...Array.from({ length: 20 }, (_, n) => `  step${n}(fixture);`),
    '}',
  ];
  const text = body.join('\n');
  const out = formatForAgent('too many warnings', response([{ ...result(0, body.length), score: 1 }], { offset: 10 }), { chunkText: () => text });
  assert.deepEqual(out.shown[0]!.printed, [[11, 11]]);
  assert.match(out.text, /^11: {3}const tooManyWarnings = \["warning", .*…$/m);
});

test('below the third result a first page prints a best line only when it holds much of the query, and a later page prints each', () => {
  // retry, backoff and jitter weigh about 1.7, 2.3 and 2: `retry` alone is 28% of the query, `retryWithBackoff` 67%.
  const words = ['retry', 'retry', 'retry', 'retry', 'retryWithBackoff', 'retry'];
  const results = words.map((word, i) => result(i, 60, word));
  const texts = (id: number) => chunkText(id - 100, 60, words[id - 100]);
  const printedAt = (out: ReturnType<typeof formatForAgent>, rank: number) => out.shown[rank - 1]!.printed.reduce((n, [a, b]) => n + b - a + 1, 0);

  const first = formatForAgent('retry backoff jitter', response(results), { chunkText: texts });
  assert.equal(printedAt(first, 3), 1, 'the third prints its best line, however weak');
  assert.equal(printedAt(first, 4), 0, 'the fourth, whose best line holds one word of three, prints none');
  assert.match(first.text, /^\[4\] 10-69 handler3 · chunk 103\n\n/m, 'but says where it is, and not even its snippet');
  assert.equal(printedAt(first, 5), 1, 'the fifth prints its line, which holds two of the three');
  assert.match(first.text, /^15: {3}const x = retryWithBackoff\(4\);/m);
  assert.equal(printedAt(first, 6), 0);

  const later = formatForAgent('retry backoff jitter', response(results, { offset: 10, candidates: 16 }), { chunkText: texts });
  for (const rank of [1, 2, 3, 4, 5, 6]) assert.equal(printedAt(later, rank), 1, `result ${10 + rank} of a later page prints its best line`);
});

test('every budget from the minimum up is respected, and the counts of printed and left-out lines are exact', () => {
  const results = Array.from({ length: 12 }, (_, i) => ({ ...result(i, 50), path: `src/f${i % 4}.ts`, startLine: 10 + 60 * i, endLine: 59 + 60 * i }));
  for (let budget = MIN_AGENT_BUDGET_BYTES; budget <= 12000; budget += 97) {
    const out = formatForAgent('retry ordinary', response(results, { candidates: 30 }), { budgetBytes: budget, chunkText: (id) => chunkText(id - 100, 50) });
    assert.ok(out.bytes <= budget, `budget ${budget}: ${out.bytes}`);
    assert.equal(out.shown.length + out.omitted, 12);
    for (const shown of out.shown) assert.ok(out.text.includes(`· chunk ${shown.chunkId}\n`), `budget ${budget}: chunk ${shown.chunkId} is named`);
    const printed = printedLines(out);
    assert.equal(out.text.split('\n').filter((l) => /^\d+:/.test(l)).length, printed, `budget ${budget}: the lines printed are the lines counted`);
    const unprinted = 50 * out.shown.length - printed;
    if (unprinted > 0) assert.ok(out.text.includes(`[${unprinted} lines of these chunks not printed`), `budget ${budget}`);
    if (out.omitted > 0) assert.ok(out.text.includes(`Truncated: ${out.omitted} more of 12 results left out`), `budget ${budget}`);
  }
});

test('the CLI prints with --agent what the MCP search tool answers, within --budget', () => {
  const root = tempDir('fused-agent-cli-');
  fs.writeFileSync(path.join(root, 'retry.ts'), 'export function retryPolicy(attempts: number): number {\n  return 2 ** attempts;\n}\n');
  const db = path.join(root, 'index.db');
  execFileSync(process.execPath, [CLI, 'index', root, '--db', db, '--json']);
  const text = execFileSync(process.execPath, [CLI, 'search', 'retry policy', '--db', db, '--agent', '--budget', '600'], { encoding: 'utf8' });
  assert.match(text, /^1 result in 1 file\.\n\nretry\.ts\n\[1\] 1-3 retryPolicy · chunk \d+\n1: export function retryPolicy/);
  assert.ok(Buffer.byteLength(text) <= 600, 'the budget holds');
  const bad = spawnSync(process.execPath, [CLI, 'search', 'retry', '--db', db, '--agent', '--budget', '10'], { encoding: 'utf8' });
  assert.equal(bad.status, 2);
  assert.equal(bad.stderr, 'fused-search: --budget must be a whole number from 512 to 262144\n');
});

test('a result that stands for copies of its text says where they are, at a terminal and for agents', () => {
  const root = tempDir('fused-copies-cli-');
  const section = '## Workspaces\n\nSet to true to run the command in the context of all configured workspaces.\n';
  for (const command of ['audit', 'bugs', 'ci', 'dedupe', 'diff']) {
    fs.mkdirSync(path.join(root, 'docs'), { recursive: true });
    fs.writeFileSync(path.join(root, 'docs', `npm-${command}.md`), section);
  }
  fs.writeFileSync(path.join(root, 'workspaces.md'), '# Workspaces\n\nWorkspaces group the packages of one repository; a command can run in each.\n');
  const db = path.join(root, 'index.db');
  execFileSync(process.execPath, [CLI, 'index', root, '--db', db, '--json']);
  const human = execFileSync(process.execPath, [CLI, 'search', 'configured workspaces', '--db', db], { encoding: 'utf8' });
  assert.equal(human.match(/^ *\d+ {2}docs\/npm-/gm)?.length, 1, `one result for the five pages:\n${human}`);
  assert.match(human, /^ {4}same text also at docs\/npm-\w+\.md:1-3, docs\/npm-\w+\.md:1-3, docs\/npm-\w+\.md:1-3 and 1 more$/m);
  assert.match(human, /^ *2 {2}workspaces\.md/m, 'the other answer takes the next place');
  const agent = execFileSync(process.execPath, [CLI, 'search', 'configured workspaces', '--db', db, '--agent'], { encoding: 'utf8' });
  assert.match(agent, /^\[1\] 1-3 Workspaces · chunk \d+\n\(same text also at docs\/npm-\w+\.md:1-3, docs\/npm-\w+\.md:1-3 and 2 more\)\n/m);
  assert.match(agent, /^2 results in 2 files/);
});

test('a page published as Markdown, HTML and a man page is one result that accounts for its renderings, and the other answers take the places', () => {
  const { root, write } = folderToWrite('fused-renderings-');
  const prose = [
    'If any requested packages are not present in the local project dependencies, a prompt is printed',
    'asking whether to install them into a folder of the cache before the command is run. Answer yes',
    'to proceed, or pass the yes flag to suppress the prompt when the terminal is not interactive.',
  ];
  const markdown = `# npx\n\n## Description\n\n${prose.join('\n')}\n`;
  write('docs/content/npx.md', markdown);
  write('docs/content/npm-exec.md', markdown);
  write(
    'docs/output/npx.html',
    `<!DOCTYPE html>\n<html><body>\n<h2 id="description">Description</h2>\n<p>${prose.join('\n').replace('yes flag', '<code>--yes</code> flag')}</p>\n</body></html>\n`,
  );
  write('man/man1/npx.1', `.TH "NPX" "1"\n.SH "DESCRIPTION"\n.P\n${prose.join('\n').replace('yes flag', '\\fB--yes\\fR flag')}\n`);
  // Two handlers of one shape are two answers, however alike their words.
  const handler = (name: string) =>
    `export function ${name}(answer) {\n  if (answer === 'yes') return proceed('install the requested packages into the cache folder');\n  return abort('install the requested packages into the cache folder');\n}\n`;
  write('lib/prompt.js', handler('askToInstall'));
  write('lib/prompt-ci.js', handler('askToInstallInCi'));
  const db = path.join(root, 'index.db');
  execFileSync(process.execPath, [CLI, 'index', root, '--db', db, '--json']);

  const agent = execFileSync(process.execPath, [CLI, 'search', 'prompt install requested packages cache', '--db', db, '--agent'], { encoding: 'utf8' });
  const files = agent.match(/^(?:docs|man|lib)\/\S+$/gm) ?? [];
  assert.equal(files.filter((file) => !file.startsWith('lib/')).length, 1, `one result for the page and its copies:\n${agent}`);
  assert.match(
    agent,
    /^\(same text also at docs\/content\/(?:npx|npm-exec)\.md:\d+-\d+; much the same in 2 more places\)$/m,
    'the exact copy by place, then how many renderings',
  );
  assert.deepEqual(files.filter((file) => file.startsWith('lib/')).sort(), ['lib/prompt-ci.js', 'lib/prompt.js'], 'both handlers are results of their own');
  const human = execFileSync(process.execPath, [CLI, 'search', 'prompt install requested packages cache', '--db', db], { encoding: 'utf8' });
  assert.match(
    human,
    /^ {4}same text also at docs\/content\/(?:npx|npm-exec)\.md:\d+-\d+; much the same at (?:docs\/output\/npx\.html|man\/man1\/npx\.1):\d+-\d+, (?:docs\/output\/npx\.html|man\/man1\/npx\.1):\d+-\d+$/m,
    human,
  );
});

test('a short section and its HTML rendering are one result; a short section of another name is not folded into them', () => {
  const { root, write } = folderToWrite('fused-short-renderings-');
  // Fewer words than the long texts any two chunks are compared by.
  const scripts = ['preinstall', 'install', 'postinstall', 'prepare'];
  write(
    'docs/content/scripts.md',
    `# Lifecycle order\n\n#### npm ci\n\n${scripts.map((s) => `* ${s}`).join('\n')}\n\nThese run after the modules are installed.\n`,
  );
  write(
    'docs/output/scripts.html',
    `<html><body>\n<h1>scripts</h1>\n<h2>Lifecycle order</h2>\n<h4 id="npm-ci"><a href="/commands/npm-ci">npm ci</a></h4>\n<ul>\n${scripts.map((s) => `<li><code>${s}</code></li>`).join('\n')}\n</ul>\n<p>These run after the modules are installed.</p>\n</body></html>\n`,
  );
  write('docs/content/rebuild.md', `#### npm rebuild\n\n${scripts.map((s) => `* ${s}`).join('\n')}\n\nThese run after the modules are installed.\n`);
  const db = path.join(root, 'index.db');
  execFileSync(process.execPath, [CLI, 'index', root, '--db', db, '--json']);

  const agent = execFileSync(process.execPath, [CLI, 'search', 'npm ci preinstall postinstall', '--db', db, '--agent'], { encoding: 'utf8' });
  const files = agent.match(/^docs\/\S+$/gm) ?? [];
  assert.deepEqual(files.sort(), ['docs/content/rebuild.md', 'docs/content/scripts.md'], agent);
  assert.match(agent, /^\[\d+\] \d+-\d+ Lifecycle order > npm ci · chunk \d+\n\(much the same text in 1 more place\)$/m, agent);
});

test('one module built twice (CommonJS and ESM) is one result; the same function in a module of another name is not folded', () => {
  const { root, write } = folderToWrite('fused-builds-');
  const body = [
    '  if (a.length < b.length) {',
    '    const swapped = b;',
    '    b = a;',
    '    a = swapped;',
    '  }',
    '  if (b.length === 0) return a.length;',
    '  // Myers bit-parallel edit distance for strings up to one machine word long.',
    '  if (a.length <= 32) return myersWord(a, b);',
    '  return myersBlocks(a, b);',
  ].join('\n');
  write('dist/commonjs/mod.js', `var levenshteinDistance = function (a, b) {\n${body}\n};\nexports.levenshteinDistance = levenshteinDistance;\n`);
  write('dist/esm/mod.js', `const levenshteinDistance = (a, b) => {\n${body}\n};\nexport { levenshteinDistance };\n`);
  write('src/spelling.js', `export function levenshteinDistance(a, b) {\n${body}\n}\n`);
  const db = path.join(root, 'index.db');
  execFileSync(process.execPath, [CLI, 'index', root, '--db', db, '--json']);

  const agent = execFileSync(process.execPath, [CLI, 'search', 'levenshtein distance myers machine word', '--db', db, '--agent'], { encoding: 'utf8' });
  const files: string[] = agent.match(/^(?:dist|src)\/\S+$/gm) ?? [];
  assert.equal(files.filter((file) => file.startsWith('dist/')).length, 1, `one result for the two builds:\n${agent}`);
  assert.ok(files.includes('src/spelling.js'), `the module of another name is a result of its own:\n${agent}`);
  assert.match(agent, /^\[\d+\] \d+-\d+ levenshteinDistance · chunk \d+\n\(much the same text in 1 more place\)$/m, agent);
});

test('the copies line counts against the budget like any header', () => {
  const copies = Array.from({ length: 40 }, (_, i) => ({ chunkId: 500 + i, path: `docs/commands/npm-command-${i}.md`, startLine: 300, endLine: 320 }));
  const results = Array.from({ length: 12 }, (_, i) => ({ ...result(i, 40), copies }));
  for (const budget of [MIN_AGENT_BUDGET_BYTES, 1000, 2048]) {
    const out = formatForAgent('retry', response(results), { budgetBytes: budget, chunkText: (id) => chunkText(id - 100, 40) });
    assert.ok(out.bytes <= budget, `budget ${budget}: ${out.bytes} bytes`);
    assert.ok(out.text.includes('(same text also at docs/commands/npm-command-0.md:300-320, docs/commands/npm-command-1.md:300-320 and 38 more)'));
  }
});

test('a statement whose lines together hold more of the query than any one line is printed whole, past a second result’s lines, never a third’s', () => {
  // The stylish formatter's summary: each of its lines holds one query word, the line that holds two sits elsewhere.
  const lines = ['function format(results) {', '  let output = "";'];
  for (let i = 0; i < 20; i++) lines.push(`  step${i}(results); // ordinary work ${i}`);
  lines.push(
    '  if (total > 0) {',
    '    output += styleText(',
    '      summaryColor,',
    '      [',
    '        total,',
    '        pluralize(" problem", total),',
    '        " (",',
    '        errorCount,',
    '        pluralize(" error", errorCount),',
    '        ", ",',
    '        warningCount,',
    '        pluralize(" warning", warningCount),',
    '        ")",',
    '      ].join(""),',
    '    );',
    '  }',
  );
  for (let i = 0; i < 20; i++) lines.push(`  more${i}(results); // ordinary work ${i}`);
  lines.push('  if (fixableErrorCount > 0 || fixableWarningCount > 0) flagFixable(output);', '  return output;', '}');
  // The chunk starts at file line 10: its line i is file line 10 + i.
  const head = lines.indexOf('  if (total > 0) {') + 10;
  const closer = lines.indexOf('  }') + 10;
  const passagePrinted = (rank: number) => {
    const results = Array.from({ length: rank }, (_, i) => ({ ...result(i, lines.length), score: 1 / (2 * i + 1) }));
    const out = formatForAgent('formatter problems errors warnings summary', response(results), { chunkText: () => lines.join('\n') });
    return out.shown[rank - 1]!.printed.some(([a, b]) => a <= head && b >= closer);
  };
  assert.ok(closer - head + 1 > 12, 'longer than a second result’s twelve lines');
  assert.ok(passagePrinted(1), 'the first result prints it');
  assert.ok(passagePrinted(2), 'so does the second, past its twelve lines');
  assert.ok(!passagePrinted(3), 'the third prints its best line only');
});

test('a passage comes with the one-line assignments right above it of the names its head tests, and no further', () => {
  // ssri's checkData: `if (match || …)` means nothing without `const match = …` above it.
  const lines = ['function checkData(data, sri, opts) {', '  sri = parse(sri, opts)'];
  for (let i = 0; i < 20; i++) lines.push(`  step${i}(data); // ordinary work ${i}`);
  lines.push(
    '  const digest = hash(data)',
    '  const match = parse(digest).match(sri, opts)',
    '  opts = opts || {}',
    '  if (match || !opts.error) {',
    '    return match',
    '  } else {',
    '    const err = new Error(`Integrity checksum failed: wanted ${sri}`)',
    "    err.code = 'EINTEGRITY'",
    '    throw err',
    '  }',
    '}',
  );
  const out = formatForAgent('integrity checksum failed EINTEGRITY', response([result(0, lines.length)]), { chunkText: () => lines.join('\n') });
  // The chunk starts at file line 10: its line i is file line 10 + i.
  const at = (text: string) => lines.indexOf(text) + 10;
  const run = out.shown[0]!.printed.find(([a, b]) => a <= at('  const match = parse(digest).match(sri, opts)') && b >= at('  }'));
  assert.ok(run, `the assignments of match and opts open the passage's run: ${JSON.stringify(out.shown[0]!.printed)}`);
  assert.ok(run[0] > at('  const digest = hash(data)'), 'digest is not what the head tests');
});

test('a switch case whose label names the query is printed whole, past a second result’s lines; stacked labels, a braced case and the switch’s end bound it', () => {
  // ESLint's applyInlineConfig: the body of `case "globals": case "global":` is 29 lines, few of which say `global`.
  const lines = ['applyInlineConfig() {', '  const inlineGlobals = {};', '  for (const comment of comments) {', '    switch (label) {'];
  lines.push('      case "exported":', '        exportAll(value);', '        break;', '');
  lines.push('      case "globals":', '      case "global":');
  for (let i = 0; i < 16; i++) lines.push(`        step${i}(value); // ordinary work ${i}`);
  lines.push('        inlineGlobals[id] = value;', '        break;', '');
  // Longer than a passage, so only the case's own bounds print its brace.
  lines.push('      case "eslint": {', '        configs.push(parseJSON(value));');
  for (let i = 0; i < 24; i++) lines.push(`        parsed${i}(value); // ordinary work ${i}`);
  lines.push('        break;', '      }');
  lines.push('    }', '  }');
  // Too long to be printed whole even by the first result.
  for (let i = 0; i < 40; i++) lines.push(`  finish${i}(configs); // ordinary work ${i}`);
  lines.push('  return inlineGlobals;', '}');
  // The chunk starts at file line 10: its line i is file line 10 + i.
  const at = (text: string, from = 0) => lines.indexOf(text, from) + 10;
  const printed = (query: string, rank: number) => {
    const results = Array.from({ length: rank }, (_, i) => ({ ...result(i, lines.length), score: 1 / (2 * i + 1) }));
    return formatForAgent(query, response(results), { chunkText: () => lines.join('\n') }).shown[rank - 1]!.printed;
  };
  const covers = (runs: Array<[number, number]>, from: number, to: number) => runs.some(([a, b]) => a <= from && b >= to);
  const globals = [at('      case "globals":'), at('        break;', lines.indexOf('      case "globals":'))] as const;
  assert.ok(globals[1] - globals[0] + 1 > 12, 'longer than a second result’s twelve lines');
  assert.ok(covers(printed('inline global comments', 1), ...globals), 'the first result prints it');
  const second = printed('inline global comments', 2);
  assert.ok(covers(second, ...globals), `so does the second, past its twelve lines: ${JSON.stringify(second)}`);
  for (const other of ['      case "exported":', '      case "eslint": {']) assert.ok(!covers(second, at(other), at(other)), `and not ${other.trim()}`);
  assert.ok(!covers(printed('inline global comments', 3), ...globals), 'the third result prints its best line only');
  const braced = printed('eslint config', 2);
  assert.ok(covers(braced, at('      case "eslint": {'), at('      }')), `a braced case ends with its own brace: ${JSON.stringify(braced)}`);
  assert.ok(!covers(braced, at('    }'), at('    }')), 'not with the switch’s');
});

test('below the second result a message’s best line comes with the call that says it; a string in a list does not', () => {
  const filler = Array.from({ length: 20 }, (_, n) => `  step${n}(item);`);
  const assertion = [
    'function testValidTemplate(item) {',
    '  const result = runRuleForItem(item);',
    '  const messages = result.messages;',
    '',
    '  assert.strictEqual(',
    '    messages.length,',
    '    0,',
    '    util.format(',
    '      "Should have no errors but had %d: %s",',
    '      messages.length,',
    '      util.inspect(messages),',
    '    ),',
    '  );',
    ...filler,
    '}',
  ];
  const list = ['const usage = [', '  "lint files",', '  "should have no errors when fixed",', '  "print the config",', '];', ...filler];
  const printedAtThird = (lines: string[]) => {
    const results = Array.from({ length: 3 }, (_, i) => ({ ...result(i, lines.length), score: 1 / (2 * i + 1) }));
    return formatForAgent('should have no errors', response(results), { chunkText: (id) => (id === 102 ? lines.join('\n') : chunkText(id - 100, 60)) })
      .shown[2]!.printed;
  };
  // Each chunk starts at file line 10: the assertion is file lines 14–22.
  assert.deepEqual(printedAtThird(assertion), [[14, 22]], 'the assertion around the message, from its call to its closer');
  assert.deepEqual(printedAtThird(list), [[12, 12]], 'an item of a list is printed alone');
});

test('a file’s top level printed whole as the first result leaves its spare lines to the file’s best other result on the page', () => {
  const topLevel = [
    "const { distance } = require('fastest-levenshtein')",
    "const { commands } = require('./cmd-list.js')",
    '',
    'const isClose = (scmd, cmd) => distance(scmd, cmd) < scmd.length * 0.4',
  ];
  const didYouMean = [
    'const didYouMean = (pkg, scmd) => {',
    '  const best = commands.filter(cmd => isClose(scmd, cmd) && scmd !== cmd)',
    ...Array.from({ length: 20 }, (_, n) => `  step${n}(best)`),
    '  return `Did you mean ${best[0]}?`',
    '}',
  ];
  const page = (leadTitle: string) => {
    const results: SearchResult[] = Array.from({ length: 8 }, (_, i) => ({ ...result(i, 60), score: 1 / (i + 1) }));
    results[0] = { ...results[0]!, path: 'lib/did-you-mean.js', startLine: 1, endLine: 4, title: leadTitle };
    results[7] = { ...results[7]!, path: 'lib/did-you-mean.js', startLine: 6, endLine: 6 + didYouMean.length - 1, title: 'didYouMean' };
    const texts = new Map([
      [100, topLevel.join('\n')],
      [107, didYouMean.join('\n')],
    ]);
    return formatForAgent('mistyped command levenshtein distance', response(results), { chunkText: (id) => texts.get(id) ?? chunkText(id - 100, 60) }).shown;
  };
  const inherits = page('did-you-mean.js (top level)');
  assert.deepEqual(inherits[0]!.printed, [[1, 4]], 'the top level is printed whole');
  assert.deepEqual(inherits[7]!.printed, [[6, 6 + didYouMean.length - 1]], 'and the eighth result, of its file, whole after it');
  assert.deepEqual(inherits[6]!.printed, [], 'the seventh, of another file, is its location');
  const function_ = page('isClose');
  assert.deepEqual(function_[7]!.printed, [], 'a function first leaves the eighth result its location');
});
