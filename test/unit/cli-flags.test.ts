// The CLI's flags are checked against the same option schemas as the settings and the agents'
// tools, before any index is opened, so a bad flag is reported as itself.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { tempDir } from './helpers/store.ts';

const CLI = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));

function run(...args: string[]): { status: number | null; stderr: string } {
  const child = spawnSync(process.execPath, [CLI, ...args], { cwd: tempDir('fused-cli-'), encoding: 'utf8' });
  return { status: child.status, stderr: child.stderr };
}

test('--limit has the bound the fusedSearch.limit setting has', () => {
  assert.deepEqual(run('search', 'x', '--limit', '999'), { status: 2, stderr: 'fused-search: --limit must be a whole number from 1 to 500\n' });
});

test("--budget has the bounds the agents' budget_bytes has", () => {
  assert.deepEqual(run('mcp', '--budget', '100'), { status: 2, stderr: 'fused-search: --budget must be a whole number from 512 to 262144\n' });
});

test('an unknown --fuzzy mode names the modes there are', () => {
  assert.deepEqual(run('search', 'x', '--fuzzy', 'sometimes'), { status: 2, stderr: 'fused-search: --fuzzy must be "unknown-words", "empty" or "off"\n' });
});

test('--threads takes a whole number of preparing threads, 0 to 16, and indexes with it', () => {
  assert.deepEqual(run('index', '.', '--threads', 'many'), { status: 2, stderr: 'fused-search: --threads must be a whole number from 0 to 16\n' });
  assert.deepEqual(run('index', '.', '--threads', '17'), { status: 2, stderr: 'fused-search: --threads must be a whole number from 0 to 16\n' });
  const folder = tempDir('fused-cli-');
  fs.writeFileSync(path.join(folder, 'a.md'), '# Heading\n\nSome text about threads.\n');
  for (const threads of ['0', '1']) {
    const child = spawnSync(process.execPath, [CLI, 'index', folder, '--db', path.join(tempDir(), 'index.db'), '--threads', threads, '--json'], {
      encoding: 'utf8',
    });
    assert.equal(child.status, 0, child.stderr);
    assert.equal((JSON.parse(child.stdout) as { files: number }).files, 1, `--threads ${threads}`);
  }
});
