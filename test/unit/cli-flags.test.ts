// The CLI's flags are checked against the same option schemas as the settings and the agents'
// tools, before any index is opened, so a bad flag is reported as itself.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
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
