// Fault suite, hostile queries on a small index: every FTS5 operator and syntax character and each
// shape of hostile input answers with a list, possibly empty, never an exception. Their speed on a
// big tree is measured by bench/hostile-queries.ts, not timed here, except for gross blow-ups.

import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Engine } from '../../src/core/engine.ts';
import { writeCorpus } from './helpers/fault.ts';

const base = fs.mkdtempSync(path.join(os.tmpdir(), 'fault-query-'));
after(() => fs.rmSync(base, { recursive: true, force: true }));

const HOSTILE = [
  'AND',
  'OR NOT',
  'parse AND',
  'NEAR(parse config, 2)',
  'NEAR/3 parse config',
  'NEAR/',
  'NEAR(parse',
  '"parse config',
  '"',
  '"""',
  '(((parse',
  'parse)))',
  '()',
  'title:parse',
  '{title text}: parse',
  '-title: parse',
  'nosuch:col',
  '^parse',
  '^',
  'par*',
  '*',
  '* * a*',
  '+parse -config',
  ':::',
  "'); DROP TABLE chunks; --",
  'x'.repeat(100 * 1024),
  'retry '.repeat(10_000),
  'the of to and a an',
  '!@#$%^&*()_+-=[]{}|;\':",./<>?`~\\',
  '😀🔥 parse 👍🏽',
  'e\u0301'.repeat(500),
  'مرحبا بالعالم',
  'שלום parse',
  '\u202eparse\u202c',
  'a',
  '7',
  '中',
  'par\u0000se\u001b[31m',
  '\ud800parse',
  'a_'.repeat(5000),
];

test('hostile queries answer with a list, never an exception', async () => {
  const root = path.join(base, 'work');
  writeCorpus(root, 80, 3);
  const engine = await Engine.open({ root, dbFile: path.join(base, 'index.db') });
  await engine.sync();
  for (const query of HOSTILE) {
    const response = await engine.search(query);
    assert.ok(Array.isArray(response.results), JSON.stringify(query.slice(0, 40)));
  }
  assert.ok(engine.searchIndexed('parse config').results.length > 0);
  engine.close();
});

test('a pasted dotted path of 2,000 pieces is searched by its first pieces, not all of them', async () => {
  const root = path.join(base, 'dotted');
  fs.mkdirSync(root, { recursive: true });
  fs.writeFileSync(path.join(root, 'a.ts'), 'const segment = part.module;\n');
  const engine = await Engine.open({ root, dbFile: path.join(base, 'dotted.db') });
  await engine.sync();
  const query = Array.from({ length: 2000 }, (_, i) => `segment${i}`).join('.');
  const started = performance.now();
  const response = engine.searchIndexed(query);
  assert.ok(performance.now() - started < 2000);
  assert.equal(response.results[0]?.path, 'a.ts');
  engine.close();
});
