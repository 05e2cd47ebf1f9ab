// Preparing files on pool threads (src/core/prepare/) must change nothing but the speed: the same
// chunks in the same order, the same skips, and cancellation still stops the run.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { createChunker } from '../../src/core/chunk/index.ts';
import { Engine } from '../../src/core/engine.ts';
import type { IndexSummary } from '../../src/core/indexer.ts';
import { LocalPreparer, PreparePool } from '../../src/core/prepare/pool.ts';
import { ThreadWriter } from '../../src/core/store/batch-writer.ts';
import { IndexStore, type WriteBatch } from '../../src/core/store/store.ts';
import { porterPostings, tempDir } from './helpers/store.ts';
import { treeMaker } from './helpers/temp-tree.ts';

const makeTree = treeMaker('fused-prepare-');

/** More files than the pool's minimum, in every splitter's languages, with files each skip reason covers. */
function mixedTree(): string {
  const files: Record<string, string> = {};
  for (let i = 0; i < 40; i++) {
    files[`src/mod${i}.ts`] =
      `export function handler${i}(input: string) {\n  return input.repeat(${i});\n}\n\nexport class Widget${i} {\n  renderPanel() { return 'panel${i}'; }\n}\n`;
    files[`docs/page${i}.md`] = `# Page ${i}\n\nSome prose about widget ${i}.\n\n## Details\n\nMore words, quokkaFactor ${i}.\n`;
    files[`conf/c${i}.json`] = JSON.stringify({ name: `c${i}`, nested: { depth: i, list: [1, 2, 3] } }, null, 2);
    files[`py/p${i}.py`] = `def compute_${i}(x):\n    return x * ${i}\n\nclass Thing${i}:\n    pass\n`;
  }
  files['conf/settings.yaml'] = 'server:\n  port: 8080\n  host: localhost\n';
  files['notes.txt'] = 'plain text paragraph one\n\nparagraph two\n';
  files['empty.ts'] = '';
  const root = makeTree(files);
  fs.writeFileSync(path.join(root, 'image.bin'), Buffer.from([0x89, 0x50, 0x00, 0x01, 0x02]));
  fs.writeFileSync(path.join(root, 'big.txt'), 'x'.repeat(3000));
  return root;
}

async function indexWith(root: string, prepareThreads: number, dbFile = path.join(tempDir(), 'index.db')) {
  const engine = await Engine.open({ root, dbFile, index: { prepareThreads, maxFileBytes: 2048 } });
  return { engine, summary: await engine.sync() };
}

/** Everything a sync decides, without the timings. */
function outcome(engine: Engine, summary: IndexSummary) {
  const db = engine.store.db;
  return {
    summary: { ...summary, seconds: 0, skippedFiles: [...summary.skippedFiles].sort((a, b) => a.path.localeCompare(b.path)) },
    chunks: db
      .prepare(
        `SELECT c.id, f.path, f.language, c.ord, c.title, c.kind, c.start_line, c.end_line, c.text
      FROM chunks c JOIN files f ON f.id = c.file_id ORDER BY c.id`,
      )
      .all(),
    porter: porterPostings(db),
    vocabulary: engine.store.vocabulary(),
    trigram: ['widg', 'quokka', 'handler1', 'comput'].map((substring) =>
      engine.store.wordsContaining(substring, 100).map((word) => engine.store.match('trigram', `"${word}"`, 100, 1)),
    ),
  };
}

test('a sync prepared on pool threads stores exactly what one prepared on the indexing thread stores', async () => {
  const root = mixedTree();
  const sequential = await indexWith(root, 0);
  const expected = outcome(sequential.engine, sequential.summary);
  assert.equal(expected.summary.skipped.binary, 1);
  assert.equal(expected.summary.skipped['too-large'], 1);
  for (const threads of [1, 2]) {
    const pooled = await indexWith(root, threads);
    assert.deepEqual(outcome(pooled.engine, pooled.summary), expected, `${threads} thread(s)`);
    pooled.engine.close();
  }

  // Changed, unchanged-but-touched and removed files converge the same way.
  const pooled = await indexWith(root, 1);
  for (let i = 0; i < 70; i++) fs.appendFileSync(path.join(root, `src/mod${i % 40}.ts`), `// edit ${i}\n`);
  fs.utimesSync(path.join(root, 'docs/page3.md'), new Date(), new Date(2001, 1, 1));
  fs.rmSync(path.join(root, 'py/p7.py'));
  const again = outcome(sequential.engine, await sequential.engine.sync());
  assert.deepEqual(outcome(pooled.engine, await pooled.engine.sync()), again);
  assert.equal(again.summary.updated, 40);
  assert.equal(again.summary.removed, 1);
  sequential.engine.close();
  pooled.engine.close();
});

test('cancelling a sync that prepares on pool threads stops it, and the next sync completes it', async () => {
  const root = mixedTree();
  const dbFile = path.join(tempDir(), 'index.db');
  const engine = await Engine.open({ root, dbFile, index: { prepareThreads: 1, maxFileBytes: 2048 } });
  const abort = new AbortController();
  const cancelled = await engine.sync({
    signal: abort.signal,
    onProgress: (progress) => {
      if (progress.phase === 'indexing') abort.abort();
    },
  });
  assert.equal(cancelled.complete, false);
  const finished = await engine.sync();
  assert.equal(finished.complete, true);
  engine.close();
  const reference = await indexWith(root, 0);
  assert.equal(finished.files, reference.summary.files);
  assert.equal(finished.chunks, reference.summary.chunks);
  reference.engine.close();
});

test('a pool thread that cannot start hands its files to the indexing thread', async () => {
  const root = makeTree({ 'a.ts': 'export const answer = 42;\n' });
  const local = new LocalPreparer(() => createChunker({ chunkMaxBytes: 4096 }));
  const pool = new PreparePool(1, { chunkMaxBytes: 4096, wasmDir: path.join(root, 'no-grammars-here') }, local);
  const prepared = await pool.prepare({ absPath: path.join(root, 'a.ts'), relPath: 'a.ts', maxFileBytes: 1 << 20 });
  await pool.close();
  assert.equal(prepared.status, 'chunked');
  assert.match(prepared.status === 'chunked' ? prepared.chunks[0]!.text : '', /answer = 42/);
});

/** The nice value of each of this process's threads. */
function niceOfThreads(): number[] {
  return fs.readdirSync('/proc/self/task').map((tid) => {
    // Field 19 of stat, counted after the parenthesised thread name (which may hold spaces).
    const stat = fs.readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
  });
}

test('pool threads run at a lower priority than the thread that writes and searches, on Linux', { skip: process.platform !== 'linux' }, async () => {
  const before = niceOfThreads();
  const root = mixedTree();
  const pool = new PreparePool(1, { chunkMaxBytes: 4096 }, new LocalPreparer(() => createChunker({ chunkMaxBytes: 4096 })));
  try {
    const prepared = await pool.prepare({ absPath: path.join(root, 'src/mod1.ts'), relPath: 'src/mod1.ts', maxFileBytes: 1 << 20 });
    assert.equal(prepared.status, 'chunked');
    const during = niceOfThreads();
    assert.equal(Math.max(...before), 0);
    assert.equal(during.filter((nice) => nice === 10).length, 1, `nice values: ${during.join(' ')}`);
    assert.equal(Number(fs.readFileSync('/proc/self/stat', 'utf8').split(') ')[1]!.split(' ')[16]), 0, 'the main thread keeps its priority');
  } finally {
    await pool.close();
  }
});

/** A batch of one new file of one chunk holding `text`. */
function oneFileBatch(relPath: string, text: string): WriteBatch {
  const chunk = { title: relPath, kind: 'prose' as const, startLine: 1, endLine: 1, text };
  return {
    files: [{ record: { path: relPath, size: text.length, mtimeMs: 1, hash: `hash of ${relPath}`, language: 'plaintext' }, chunks: [chunk] }],
    touched: [],
  };
}

test("the bulk writer's thread writes through a connection of its own, at a lower priority, and the store takes in what it wrote", async () => {
  const store = new IndexStore(path.join(tempDir(), 'index.db'));
  const writer = new ThreadWriter(store);
  try {
    await writer.write(oneFileBatch('a.txt', 'written beside the searches'));
    if (process.platform === 'linux') assert.ok(niceOfThreads().includes(10), `nice values: ${niceOfThreads().join(' ')}`);
    assert.equal(store.file('a.txt')?.hash, 'hash of a.txt');
    assert.equal(store.size, 1, 'the chunk count takes the batch in');
    assert.deepEqual(
      store.match('porter', '"beside"', 10, 1).map((row) => store.chunk(row.id)?.path),
      ['a.txt'],
    );
  } finally {
    await writer.close();
    store.close();
  }
});

test('a writer thread that cannot open the index hands its batches to the indexing thread, and never creates an empty index in its place', async () => {
  const dbFile = path.join(tempDir(), 'index.db');
  const store = new IndexStore(dbFile);
  // The file moves away under the open connection: the thread finds nothing at its path.
  fs.renameSync(dbFile, path.join(path.dirname(dbFile), 'moved.db'));
  const writer = new ThreadWriter(store);
  try {
    await writer.write(oneFileBatch('a.txt', 'written all the same'));
    assert.equal(store.file('a.txt')?.hash, 'hash of a.txt');
    assert.equal(store.size, 1);
    assert.equal(fs.existsSync(dbFile), false, 'no empty index at the old path');
  } finally {
    await writer.close();
    store.close();
  }
});
