// Golden ranking on a small mixed workspace: for each natural query, the file a person would open
// first must be the top result. The corpus and the reason for each expected position live in
// test/fixtures/golden/corpus.ts, shared with `npm run bench:quality`.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { Engine } from '../../src/core/engine.ts';
import { GOLDEN_CASES, GOLDEN_FILES } from '../fixtures/golden/corpus.ts';
import { tempDir } from './helpers/store.ts';

let engine: Engine;
let root: string;

before(async () => {
  root = tempDir('fused-golden-');
  for (const [relPath, text] of Object.entries(GOLDEN_FILES)) {
    fs.mkdirSync(path.dirname(path.join(root, relPath)), { recursive: true });
    fs.writeFileSync(path.join(root, relPath), text);
  }
  engine = await Engine.open({ root, dbFile: path.join(tempDir('fused-golden-db-'), 'index.db') });
  const summary = await engine.sync();
  assert.equal(summary.files, Object.keys(GOLDEN_FILES).length, 'every golden file is indexed');
});

after(() => {
  engine.close();
  fs.rmSync(root, { recursive: true, force: true });
});

for (const golden of GOLDEN_CASES) {
  test(`"${golden.query}" puts ${golden.top} first — ${golden.why}`, async () => {
    const { results } = await engine.search(golden.query, { limit: 5 });
    assert.equal(results[0]?.path, golden.top, `top 5 were: ${results.map((r) => `${r.path} (${r.stage})`).join(', ')}`);
  });
}
