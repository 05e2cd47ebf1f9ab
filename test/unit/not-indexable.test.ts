// Files a folder holds and the index does not: source maps, a build's and not the workspace's,
// counted apart and gone from an index built before they were told apart; and a text file
// overwritten with binary, whose old chunks a full sync drops as the file's own update does.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { CHUNKING_REVISIONS } from '../../src/core/chunk/index.ts';
import { isSourceMap } from '../../src/core/crawl/source-map.ts';
import { Engine } from '../../src/core/engine.ts';
import { tempDir } from './helpers/store.ts';
import { treeMaker } from './helpers/temp-tree.ts';

const makeTree = treeMaker('fused-source-map-');

const source = 'export function retryDelay(attempt) {\n  return 2 ** attempt * 100;\n}\n';
const bundle = `function retryDelay(attempt) {\n  return 2 ** attempt * 100;\n}\n//# sourceMappingURL=app.js.map\n`;
const map = JSON.stringify({ version: 3, file: 'app.js', sources: ['../src/retry.js'], sourcesContent: [source], names: [], mappings: 'AAAA,SAASA' });

test('a source map is told by its name and its first key, whatever the key; other .map and JSON files are not maps', () => {
  assert.ok(isSourceMap('dist/app.js.map', map));
  assert.ok(isSourceMap('dist/app.css.map', `)]}'\n{"sources":["a.css"],"mappings":";AAAA"}`), 'the prefix that defeats script inclusion');
  assert.ok(isSourceMap('dist/index.map', '{\n  "version": 3,\n  "sections": [{ "offset": { "line": 0, "column": 0 }, "map": {} }]\n}'), 'an index map');
  assert.ok(
    !isSourceMap('build/firmware.map', 'Memory Configuration\n\nName             Origin             Length\nFLASH            0x08000000         0x00100000\n'),
    "a linker's map",
  );
  assert.ok(!isSourceMap('dist/app.json', map), 'not named .map');
  assert.ok(!isSourceMap('data/world.map', '{"version": 3, "tiles": []}'), 'a map of something else');
});

test('a source map is skipped and counted as one, its sources and bundle are found, and an older index lets go of it', async () => {
  const root = makeTree({ 'src/retry.js': source, 'dist/app.js': bundle, 'dist/app.js.map': map });
  const dbFile = path.join(tempDir(), 'index.db');
  let engine = await Engine.open({ root, dbFile });
  const summary = await engine.sync();
  assert.equal(summary.skipped['source-map'], 1);
  assert.deepEqual(summary.skippedFiles, [{ path: 'dist/app.js.map', reason: 'source-map' }]);
  const found = async () => (await engine.search('retryDelay attempt')).results.map((r) => r.path);
  assert.deepEqual((await found()).sort(), ['dist/app.js', 'src/retry.js']);

  // An index built before maps were told apart holds the map as plain text, as the file is on disk.
  const stat = fs.statSync(path.join(root, 'dist/app.js.map'));
  const record = { path: 'dist/app.js.map', size: stat.size, mtimeMs: stat.mtimeMs, hash: 'chunked by an older build', language: 'plaintext' };
  engine.store.replaceFile(record, [{ title: 'app.js.map', kind: 'prose', startLine: 1, endLine: 1, text: map }]);
  engine.store.transaction(() => engine.store.setMeta('chunkingRevisions', JSON.stringify({ ...CHUNKING_REVISIONS, plaintext: 1 })));
  assert.ok((await found()).includes('dist/app.js.map'));
  engine.close();

  engine = await Engine.open({ root, dbFile });
  const again = await engine.sync();
  assert.deepEqual(again.skippedFiles, [{ path: 'dist/app.js.map', reason: 'source-map' }], 'the map was read again');
  assert.equal(again.unchanged, 2, 'and only the map: the other files’ chunking did not change');
  assert.equal(again.removed, 1);
  assert.equal(engine.store.file('dist/app.js.map'), undefined, 'the next sync removed it');
  assert.ok(!(await found()).includes('dist/app.js.map'));
  engine.close();
});

test('a text file overwritten with binary loses its chunks at the next full sync, as at its own update', async () => {
  const root = makeTree({ 'notes/plan.txt': 'the rollout plan: canary first, then everyone\n', 'notes/keep.txt': 'kept as written\n' });
  const engine = await Engine.open({ root, dbFile: path.join(tempDir(), 'index.db') });
  await engine.sync();
  assert.ok(engine.store.file('notes/plan.txt'));
  fs.writeFileSync(path.join(root, 'notes/plan.txt'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x00, 0x1a, 0x0a, 0x00]));
  const summary = await engine.sync();
  assert.deepEqual(summary.skippedFiles, [{ path: 'notes/plan.txt', reason: 'binary' }]);
  assert.equal(summary.removed, 1);
  assert.equal(engine.store.file('notes/plan.txt'), undefined);
  assert.deepEqual(engine.searchIndexed('rollout canary', { fuzzy: 'off' }).results, []);
  assert.ok(engine.store.file('notes/keep.txt'), 'the other file stays');
  engine.close();
});
