// What holds for every file, whatever its language: chunks in order, within the file, under the
// cap, never blank, covering every non-blank line, with text that is the file's own; the same
// chunks whatever the line endings; no exception and no runaway time on hostile input.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createChunker, type Chunker } from '../../src/core/chunk/index.ts';
import type { ChunkDraft } from '../../src/core/types.ts';

const CAPS = [64, 300, 4096];
const chunkers = new Map<number, Chunker>();
for (const cap of CAPS) chunkers.set(cap, await createChunker({ chunkMaxBytes: cap }));
const chunker = chunkers.get(4096) as Chunker;

const method = (name: string): string => `  ${name}(value: number): number {\n    const doubled = value * 2;\n\n    return doubled + ${name.length};\n  }\n`;

/** One file per splitter and per grammar, with the constructs each one treats specially. */
const SAMPLES: Record<string, string> = {
  'README.md': '# Title\n\nIntro.\n\n## Setup\n\n```sh\n# not a heading\nnpm i\n```\n\nText after ünïcödé 😀.\n',
  'notes.txt': 'Para one\nline two\n\n\nPara two 漢字\n',
  'store.ts': `import x from 'y';\n\n/** Doc. */\nexport class Store {\n  rows = 1;\n\n${method('first')}\n${method('second')}}\n\nexport const f = () => {\n  return 1;\n};\n`,
  'app.js': `'use strict';\nfunction a() {\n  return 1;\n}\nmodule.exports = { a };\n`,
  'view.tsx': `export function View() {\n  return <div>hi</div>;\n}\n`,
  'store.py': `import os\n\n\nclass Store:\n    rows = 1\n\n    @staticmethod\n    def first(value):\n        return value * 2\n\n\ndef main():\n    pass\n`,
  'store.go': `package store\n\ntype Store struct{ rows int }\n\nfunc (s *Store) First() int {\n\treturn 1\n}\n`,
  'lib.rs': `use std::fmt;\n\nstruct S;\n\nimpl S {\n    fn new() -> Self {\n        S\n    }\n}\n`,
  'A.java': `package a;\n\npublic class A {\n  private int rows;\n\n  public int first() {\n    return 1;\n  }\n}\n`,
  'worker.c': `#include <x.h>\n\n/* Doc. */\nstatic int f(void)\n{\n\treturn 1;\n}\nEXPORT_SYMBOL(f);\n\nstruct s {\n\tint a;\n};\n`,
  'index.cpp': `namespace n {\nclass C {\n public:\n  int f() const { return 1; }\n};\n}  // namespace n\n`,
  'A.cs': `namespace N {\n  class A {\n    int F() { return 1; }\n  }\n}\n`,
  'a.rb': `class A\n  def f\n    1\n  end\nend\n`,
  'a.php': `<?php\nfunction f() {\n  return 1;\n}\n`,
  'run.sh': `#!/bin/sh\nf() {\n  echo hi\n}\nf\n`,
  'site.css': `.a { color: red; }\n\n@media (max-width: 1px) {\n  .b { color: blue; }\n}\n`,
  'package.json': `{\n  "name": "x",\n  "scripts": {\n    "build": "esbuild",\n    "test": "node --test"\n  }\n}\n`,
  'ci.yml': `name: ci\njobs:\n  build:\n    steps:\n      - run: |\n          npm test\n      - uses: x\n`,
};

/** Splitters whose chunks never overlap; text windows overlap on purpose. */
const NO_OVERLAP = (language: string): boolean => !['plaintext', 'log'].includes(language);

function checkInvariants(file: string, text: string, language: string, chunks: ChunkDraft[], cap: number): void {
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  const covered = new Array<boolean>(lines.length).fill(false);
  let previous: ChunkDraft | undefined;
  for (const chunk of chunks) {
    const where = `${file} @${cap}: ${chunk.title} ${chunk.startLine}-${chunk.endLine}`;
    assert.ok(Buffer.byteLength(chunk.text, 'utf8') <= cap, `${where} is over the cap`);
    assert.match(chunk.text, /\S/, `${where} is blank`);
    assert.ok(chunk.title.length > 0, `${where} has no title`);
    assert.ok(chunk.startLine >= 1 && chunk.startLine <= chunk.endLine && chunk.endLine <= lines.length, `${where} is outside the file`);
    if (previous) {
      assert.ok(chunk.startLine >= previous.startLine, `${where} is out of order`);
      const samePiecedLine = chunk.startLine === chunk.endLine && previous.startLine === chunk.startLine && previous.endLine === chunk.endLine;
      if (NO_OVERLAP(language) && !samePiecedLine) assert.ok(chunk.startLine > previous.endLine, `${where} overlaps the chunk before`);
    }
    const original = lines.slice(chunk.startLine - 1, chunk.endLine).join('\n');
    if (chunk.startLine === chunk.endLine) assert.ok(original.includes(chunk.text), `${where} is not the file's text`);
    else assert.equal(chunk.text, original, `${where} is not the file's text`);
    for (let i = chunk.startLine - 1; i < chunk.endLine; i++) covered[i] = true;
    previous = chunk;
  }
  lines.forEach((line, i) => assert.ok(covered[i] || !/\S/.test(line), `${file} @${cap}: line ${i + 1} was dropped`));
}

test('every splitter keeps chunks in order, under the cap, non-blank, and drops no line', async () => {
  for (const [file, text] of Object.entries(SAMPLES)) {
    for (const cap of CAPS) {
      const { language, chunks } = await (chunkers.get(cap) as Chunker).chunk(file, text);
      checkInvariants(file, text, language, chunks, cap);
    }
  }
});

test('CRLF and lone-CR files report the same chunks and line ranges as LF files', async () => {
  for (const [file, text] of Object.entries(SAMPLES)) {
    const lf = await chunker.chunk(file, text);
    assert.ok(lf.chunks.length > 0, file);
    assert.deepEqual(await chunker.chunk(file, text.replace(/\n/g, '\r\n')), lf, `${file} with CRLF`);
    assert.deepEqual(await chunker.chunk(file, text.replace(/\n/g, '\r')), lf, `${file} with CR`);
  }
});

test('mixed line endings count one line per break', async () => {
  const { chunks } = await chunker.chunk('x.md', '# A\r\ntext\r# B\n\r\nmore\r\n');
  assert.deepEqual(
    chunks.map((c) => [c.title, c.startLine, c.endLine]),
    [
      ['A', 1, 2],
      ['B', 3, 5],
    ],
  );
});

// A hang shows as the test's timeout; how fast it goes is bench/chunk-speed.ts's business.
test('a 50 MB single-line minified file is chunked without hanging, under the cap', { timeout: 180_000 }, async () => {
  const unit = 'function a(b){return b+1}var c=a(2);';
  const text = unit.repeat(Math.ceil(50_000_000 / unit.length));
  const { chunks } = await chunker.chunk('dist/bundle.min.js', text);
  assert.ok(chunks.length >= 50_000_000 / 4096);
  assert.ok(chunks.every((c) => c.startLine === 1 && c.endLine === 1 && c.text.length <= 4096));
});

test('10,000 levels of nesting in code neither hang nor blow the stack', { timeout: 180_000 }, async () => {
  const depth = 10_000;
  const cases: Array<[string, string]> = [
    ['deep.ts', `function f() {\n${'{\n'.repeat(depth)}${'}\n'.repeat(depth)}}\n`],
    ['deep.js', `const x = ${'['.repeat(depth)}1${']'.repeat(depth)};\n`],
    ['deep.c', `int f(void) { return ${'('.repeat(depth)}1${')'.repeat(depth)}; }\n`],
    ['deep.cpp', `${'namespace a {\n'.repeat(depth)}int f() { return 1; }\n${'}\n'.repeat(depth)}`],
    ['deep.py', `x = ${'['.repeat(depth)}1${']'.repeat(depth)}\n`],
    ['deep.rb', `${'class A\n'.repeat(1000)}def f; end\n${'end\n'.repeat(1000)}`],
    ['deep.md', `${'> '.repeat(depth)}quote\n${Array.from({ length: 100 }, (_, i) => `${'#'.repeat((i % 6) + 1)} h${i}`).join('\n')}\n`],
    ['deep.css', `${'.a { '.repeat(depth)}${'} '.repeat(depth)}\n`],
  ];
  for (const [file, text] of cases) {
    const { language, chunks } = await chunker.chunk(file, text);
    assert.ok(chunks.length > 0, file);
    checkInvariants(file, text, language, chunks, 4096);
  }
});

test('hostile bytes never make chunk throw, in any language', async () => {
  let seed = 7;
  const random = (): number => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const alphabet = '{}[]()<>"\'`#/*\\\n\r\t :;,.=-_abcXYZ019😀é\u0000\uD800';
  for (const file of [...Object.keys(SAMPLES), 'x.unknown', 'Makefile']) {
    for (let round = 0; round < 2; round++) {
      const text = Array.from({ length: 2000 }, () => alphabet[Math.floor(random() * alphabet.length)]).join('');
      for (const cap of CAPS) {
        const { chunks } = await (chunkers.get(cap) as Chunker).chunk(file, text);
        for (const chunk of chunks) {
          assert.ok(Buffer.byteLength(chunk.text) <= cap && /\S/.test(chunk.text), file);
          assert.ok(chunk.startLine >= 1 && chunk.startLine <= chunk.endLine, file);
        }
      }
    }
  }
});

test('chunking file after file does not leak parser memory', async () => {
  // Syntax trees live in wasm memory, which grows and never shrinks: a tree not freed costs its
  // size for good (about 8 MB per round here), while freed ones are reused.
  const c = Array.from({ length: 2000 }, (_, i) => `static int f${i}(int a)\n{\n\tif (a) {\n\t\treturn a + ${i};\n\t}\n\treturn 0;\n}\n`).join('\n');
  const py = Array.from({ length: 2000 }, (_, i) => `def f${i}(a):\n    if a:\n        return a + ${i}\n    return 0\n`).join('\n');
  const round = async (): Promise<void> => {
    await chunker.chunk('a.c', c);
    await chunker.chunk('a.py', py);
  };
  for (let i = 0; i < 5; i++) await round();
  const before = process.memoryUsage().rss;
  for (let i = 0; i < 40; i++) await round();
  const grown = (process.memoryUsage().rss - before) / 1e6;
  assert.ok(grown < 200, `resident memory grew by ${grown.toFixed(0)} MB`);
});
