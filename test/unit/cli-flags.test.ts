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

test('--offset skips that many results, numbered from there, and is bounded as the agents’ offset is', () => {
  assert.deepEqual(run('search', 'x', '--offset=-1'), { status: 2, stderr: 'fused-search: --offset must be a whole number from 0 to 1000\n' });
  const folder = tempDir('fused-cli-');
  for (let i = 0; i < 3; i++) fs.writeFileSync(path.join(folder, `n${i}.md`), `# Note ${i}\n\nThe zebrafinch song, take ${i}.\n`);
  const db = path.join(tempDir(), 'index.db');
  const indexed = spawnSync(process.execPath, [CLI, 'index', folder, '--db', db], { encoding: 'utf8' });
  assert.equal(indexed.status, 0, indexed.stderr);
  const search = (...args: string[]) => spawnSync(process.execPath, [CLI, 'search', 'zebrafinch', '--db', db, ...args], { encoding: 'utf8' }).stdout;
  const all = search()
    .split('\n')
    .filter((line) => /^ ?\d+ {2}/.test(line));
  assert.equal(all.length, 3);
  const third = search('--offset', '2')
    .split('\n')
    .filter((line) => /^ ?\d+ {2}/.test(line));
  assert.deepEqual(third, [all[2]], 'the third result, numbered 3');
  assert.match(search('--agent', '--limit', '1', '--offset', '1'), /^Result 2 in 1 file \(3 candidates matched\); offset 2 for the next\.\n/);
});

test("--path '!GLOB' leaves out the results under it, and keeps the others", () => {
  const folder = tempDir('fused-cli-');
  fs.mkdirSync(path.join(folder, 'src'));
  fs.mkdirSync(path.join(folder, 'test'));
  fs.writeFileSync(path.join(folder, 'src', 'song.ts'), 'export const zebrafinchSong = 1; // zebrafinch\n');
  fs.writeFileSync(path.join(folder, 'test', 'song.test.ts'), 'test("zebrafinch", () => {}); // zebrafinch zebrafinch\n');
  fs.writeFileSync(path.join(folder, 'notes.md'), '# Zebrafinch\n\nThe zebrafinch sings.\n');
  const db = path.join(tempDir(), 'index.db');
  assert.equal(spawnSync(process.execPath, [CLI, 'index', folder, '--db', db], { encoding: 'utf8' }).status, 0);
  const paths = (...args: string[]) => {
    const child = spawnSync(process.execPath, [CLI, 'search', 'zebrafinch', '--db', db, '--json', ...args], { encoding: 'utf8' });
    return (JSON.parse(child.stdout) as Array<{ path: string }>).map((r) => r.path).sort();
  };
  assert.deepEqual(paths(), ['notes.md', 'src/song.ts', 'test/song.test.ts']);
  assert.deepEqual(paths('--path', '!test/**'), ['notes.md', 'src/song.ts']);
  assert.deepEqual(paths('--path', '*.ts', '--path', '!test/**'), ['src/song.ts']);
});
