import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createChunker } from '../../src/core/chunk/index.ts';
import type { ChunkDraft } from '../../src/core/types.ts';

const CAP = 256;
const chunker = await createChunker({ chunkMaxBytes: CAP });

function assertUnderCap(chunks: ChunkDraft[], cap = CAP): void {
  for (const chunk of chunks) {
    assert.ok(Buffer.byteLength(chunk.text, 'utf8') <= cap, `${chunk.title}: ${Buffer.byteLength(chunk.text)} bytes`);
    assert.match(chunk.text, /\S/);
  }
}

/** True if the string holds a lone surrogate, i.e. a character was cut in half. */
function hasLoneSurrogate(text: string): boolean {
  return /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(text);
}

test('a single long paragraph is split under the byte cap', async () => {
  const paragraph = Array.from({ length: 30 }, (_, i) => `Sentence number ${i} goes on for a while.`).join('\n');
  for (const file of ['notes.txt', 'README.md']) {
    const { chunks } = await chunker.chunk(file, paragraph);
    assert.ok(chunks.length > 1, file);
    assertUnderCap(chunks);
  }
});

test('a single long line is split into pieces that all report that line', async () => {
  const text = `first line\n${'word '.repeat(400)}\nlast line\n`;
  const { chunks } = await chunker.chunk('notes.txt', text);
  const pieces = chunks.filter((c) => c.startLine === 2);
  assert.ok(pieces.length >= 8);
  assertUnderCap(chunks);
  for (const [i, piece] of pieces.entries()) {
    assert.equal(piece.endLine, 2);
    assert.equal(piece.title, `notes.txt: word word word word word word word word word word word word… (part ${i + 1})`);
  }
  // Nothing is lost, and cuts fall after spaces, so no word is cut in two.
  assert.equal(pieces.map((p) => p.text).join(''), 'word '.repeat(400));
  assert.ok(pieces.every((p) => p.text.startsWith('word')));
});

test('a long line of emoji and CJK is never cut inside a character', async () => {
  const line = '漢字かな😀🎉é'.repeat(200);
  const { chunks } = await chunker.chunk('emoji.txt', line);
  assertUnderCap(chunks);
  assert.ok(chunks.every((c) => !hasLoneSurrogate(c.text)));
  assert.equal(chunks.map((c) => c.text).join(''), line);
});

test('the cap holds at its smallest, 4 bytes, for 4-byte characters', async () => {
  const tiny = await createChunker({ chunkMaxBytes: 1 });
  const { chunks } = await tiny.chunk('e.txt', '😀a😀');
  assert.deepEqual(
    chunks.map((c) => c.text),
    ['😀', 'a', '😀'],
  );
  assertUnderCap(chunks, 4);
});

test('a function over the cap is split into numbered parts that keep its title and line ranges', async () => {
  const lines = Array.from({ length: 30 }, (_, i) => `  total += compute(${i});`);
  const text = `function sum() {\n  let total = 0;\n${lines.join('\n')}\n  return total;\n}\n`;
  const { chunks } = await chunker.chunk('sum.js', text);
  assert.ok(chunks.length > 1);
  assertUnderCap(chunks);
  chunks.forEach((c, i) => assert.equal(c.title, `sum (part ${i + 1})`));
  assert.equal(chunks[0]?.startLine, 1);
  assert.equal(chunks[chunks.length - 1]?.endLine, 34);
  for (let i = 1; i < chunks.length; i++) assert.equal(chunks[i]?.startLine, (chunks[i - 1]?.endLine ?? 0) + 1);
});

test('a split prefers blank lines inside the piece, so paragraphs of code stay together', async () => {
  const block = (n: number): string => Array.from({ length: 3 }, (_, i) => `  step${n}_${i}();`).join('\n');
  const text = `function f() {\n${[1, 2, 3, 4, 5, 6, 7].map(block).join('\n\n')}\n}\n`;
  const { chunks } = await chunker.chunk('f.js', text);
  assert.ok(chunks.length > 1);
  for (const chunk of chunks.slice(1)) assert.match(chunk.text, /^ {2}step\d_0\(\);/);
});

test('minified JSON on one line is split under the cap', async () => {
  const data = JSON.stringify(Array.from({ length: 200 }, (_, i) => ({ id: i, name: `item ${i}` })));
  const { chunks } = await chunker.chunk('data.json', data);
  assert.ok(chunks.length > 1);
  assertUnderCap(chunks);
  assert.ok(chunks.every((c) => c.startLine === 1 && c.endLine === 1));
});
