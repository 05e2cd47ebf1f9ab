// A chunker change must reach indexes built before it: the files of a language whose chunking
// changed are chunked again at the next sync, and no other file is read.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { CHUNKING_REVISIONS } from '../../src/core/chunk/index.ts';
import { Engine } from '../../src/core/engine.ts';
import { tempDir } from './helpers/store.ts';
import { treeMaker } from './helpers/temp-tree.ts';

const makeTree = treeMaker('fused-rechunk-');

test('an index chunked before a language’s chunking changed chunks that language’s files again at its next sync, and only those', async () => {
  assert.ok((CHUNKING_REVISIONS.javascript ?? 0) > 0, 'this test needs JavaScript to have a chunking revision');
  const root = makeTree({
    'lib/retry.js': 'function retryDelay(attempt) {\n  return 2 ** attempt * 100;\n}\n',
    'data/retries.csv': 'attempt,delay\n1,200\n2,400\n',
  });
  const dbFile = path.join(tempDir(), 'index.db');
  let engine = await Engine.open({ root, dbFile });
  await engine.sync();
  // What an older chunker left, as the catalog still describes the files on disk: other chunks
  // under the same size, mtime and hash, and no chunking revisions recorded.
  for (const file of ['lib/retry.js', 'data/retries.csv']) {
    const record = engine.store.file(file)!;
    engine.store.replaceFile(record, [{ title: 'chunked by an older build', kind: 'code', startLine: 1, endLine: 3, text: 'old chunking' }]);
  }
  engine.store.transaction(() => engine.store.setMeta('chunkingRevisions', '{}'));
  engine.close();

  engine = await Engine.open({ root, dbFile });
  const summary = await engine.sync();
  assert.equal(summary.updated, 1, 'the JavaScript file, and it alone, was read again');
  assert.deepEqual(
    engine.store.chunksOfFile('lib/retry.js').map((c) => c.title),
    ['retryDelay'],
  );
  assert.deepEqual(
    engine.store.chunksOfFile('data/retries.csv').map((c) => c.title),
    ['chunked by an older build'],
    'CSV chunking did not change: the file is not read',
  );
  assert.equal((await engine.sync()).updated, 0, 'the revisions are recorded: the next sync reads nothing');
  engine.close();
});
