// The published launcher run by a Node too old for better-sqlite3: it must refuse with a line that
// says what to do, not crash inside the native module. Uses a real old Node from PATH (the system's
// Node 20 on these machines), since the one running the tests is the project's Node 24.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const LAUNCHER = fileURLToPath(new URL('../../bin/fused-search.cjs', import.meta.url));

function oldNode(): { file: string; version: string } | undefined {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    const file = path.join(dir, 'node');
    if (!fs.existsSync(file)) continue;
    const version = spawnSync(file, ['-p', 'process.versions.node'], { encoding: 'utf8' }).stdout.trim();
    if (Number(version.split('.')[0]) < 22) return { file, version };
  }
  return undefined;
}

const old = oldNode();

test('the CLI on a Node older than 22 says which Node it needs and exits with an error', { skip: old ? false : 'no Node older than 22 on PATH' }, (t) => {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'fused-test-'));
  t.after(() => fs.rmSync(folder, { recursive: true, force: true }));
  const run = spawnSync(old!.file, [LAUNCHER, 'index', '.'], { encoding: 'utf8', cwd: folder, timeout: 20_000 });
  assert.equal(run.signal, null, 'the launcher crashed instead of refusing');
  assert.equal(run.status, 1);
  const lines = run.stderr.trim().split('\n');
  assert.equal(lines.length, 1, run.stderr);
  assert.match(lines[0]!, /needs Node >=22/);
  assert.ok(lines[0]!.includes(`Node ${old!.version}`), lines[0]);
  assert.match(lines[0]!, /npx fused-search/);
  assert.equal(run.stdout, '');
});
