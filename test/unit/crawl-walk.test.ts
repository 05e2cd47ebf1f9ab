// The walk on real folders: order, odd names, sizes, symlinks, files and folders that change or
// vanish under it, unreadable folders, cancellation.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { crawlUnprivileged } from './helpers/child-script.ts';
import { treeMaker } from './helpers/temp-tree.ts';
import { crawl, readTextFile, type CrawlEntry, type CrawlOptions } from '../../src/core/crawl/index.ts';

const OPTIONS: CrawlOptions = { include: [], exclude: [], maxFileBytes: 1024 * 1024 };

const makeTree = treeMaker('crawl-walk-');

async function collect(root: string, options: Partial<CrawlOptions> = {}): Promise<CrawlEntry[]> {
  const entries: CrawlEntry[] = [];
  for await (const entry of crawl(root, { ...OPTIONS, ...options })) entries.push(entry);
  return entries;
}

/** `relPath` for a file, `relPath: reason` for a skip: short enough to compare whole walks. */
function summary(entries: CrawlEntry[]): string[] {
  return entries.map((e) => (e.type === 'file' ? e.file.relPath : `${e.relPath}: ${e.reason}`));
}

test('files come out depth-first, each folder in code-unit order, with / separators relative to the root', async () => {
  const root = makeTree({ 'b/d/e.txt': '', 'b/c.txt': '', 'a.txt': '', 'B.txt': '', 'c.txt': '', 'b.txt': '', 'b-c/x.txt': '' });
  assert.deepEqual(summary(await collect(root)), ['B.txt', 'a.txt', 'b/c.txt', 'b/d/e.txt', 'b-c/x.txt', 'b.txt', 'c.txt']);
});

test('a file stat carries its path relative to the root, size and mtime', async () => {
  const root = makeTree({ 'dir/f.txt': 'hello' });
  const [entry] = await collect(root);
  assert.ok(entry?.type === 'file');
  const stats = fs.statSync(path.join(root, 'dir/f.txt'));
  assert.deepEqual(entry.file, { relPath: 'dir/f.txt', size: 5, mtimeMs: stats.mtimeMs });
});

test('names with spaces, unicode, quotes, leading dashes and glob characters are walked and read like any other', async () => {
  const names = [
    'with space.txt',
    'ünïcødé.md',
    '日本語.txt',
    `quo"te's.txt`,
    '-dash.txt',
    '--help',
    '[a].ts',
    '*.md',
    '?.txt',
    'back\\slash.txt',
    '#hash.txt',
    '!bang.txt',
    'emoji 🎉.txt',
  ];
  const root = makeTree(Object.fromEntries(names.map((name) => [`dir [x] {y}/${name}`, name])));
  const entries = await collect(root);
  assert.deepEqual(summary(entries).sort(), names.map((name) => `dir [x] {y}/${name}`).sort());
  for (const entry of entries) {
    assert.ok(entry.type === 'file');
    const read = await readTextFile(path.join(root, entry.file.relPath), OPTIONS.maxFileBytes);
    assert.ok(read.ok);
    assert.equal(read.text, path.posix.basename(entry.file.relPath));
  }
});

test('a file above maxFileBytes is reported too-large from its size; one at the limit is kept', async () => {
  const root = makeTree({ 'big.txt': 'x'.repeat(101), 'edge.txt': 'x'.repeat(100) });
  assert.deepEqual(summary(await collect(root, { maxFileBytes: 100 })), ['big.txt: too-large', 'edge.txt']);
});

test('a FIFO is passed over without blocking the walk', { skip: process.platform === 'win32' && 'no mkfifo' }, async () => {
  const root = makeTree({ 'a.txt': '' });
  assert.equal(spawnSync('mkfifo', [path.join(root, 'pipe')]).status, 0);
  assert.deepEqual(summary(await collect(root)), ['a.txt']);
});

test('a missing root is one vanished skip, not an exception', async () => {
  const root = path.join(os.tmpdir(), 'crawl-walk-missing-' + process.pid);
  assert.deepEqual(summary(await collect(root)), [': vanished']);
});

test('a folder deleted mid-walk is reported as vanished and the walk goes on', async () => {
  const root = makeTree({ '0.txt': '', 'dir/a.txt': '', 'dir/b/c.txt': '', 'z.txt': '' });
  const seen: string[] = [];
  for await (const entry of crawl(root, OPTIONS)) {
    seen.push(...summary([entry]));
    // Moved out in one step, then removed: a recursive delete empties the folder before removing
    // it, and the walk lists folders ahead on other threads, so it could list `dir` empty halfway.
    if (seen.length === 1) {
      fs.renameSync(path.join(root, 'dir'), `${root}-dir-gone`);
      fs.rmSync(`${root}-dir-gone`, { recursive: true });
    }
  }
  // The folder may have been listed before the deletion (then its files vanish) or not (then it does).
  assert.equal(seen[0], '0.txt');
  assert.equal(seen.at(-1), 'z.txt');
  assert.ok(seen.includes('dir: vanished') || seen.includes('dir/a.txt: vanished'), seen.join(', '));
  assert.ok(!seen.includes('dir/a.txt') && !seen.includes('dir/b/c.txt'), seen.join(', '));
});

test('a folder replaced by a file mid-walk does not stop the walk', async () => {
  const root = makeTree({ '0.txt': '', 'dir/a.txt': '', 'z.txt': '' });
  const moved = `${root}-dir-moved`;
  const seen: string[] = [];
  for await (const entry of crawl(root, OPTIONS)) {
    seen.push(...summary([entry]));
    if (seen.length === 1) {
      // Moved away in one step: the walk lists folders ahead on the thread pool, and a listing
      // taken while `rm -r` had emptied the folder but not yet removed it would be neither.
      fs.renameSync(path.join(root, 'dir'), moved);
      fs.writeFileSync(path.join(root, 'dir'), 'now a file');
    }
  }
  fs.rmSync(moved, { recursive: true });
  assert.equal(seen.at(-1), 'z.txt');
  assert.ok(seen.includes('dir: vanished') || seen.includes('dir/a.txt: vanished'), seen.join(', '));
});

test('files deleted after their folder was listed are reported as vanished', async () => {
  const names = Array.from({ length: 300 }, (_, i) => `f${String(i).padStart(3, '0')}.txt`);
  const root = makeTree(Object.fromEntries(names.map((name) => [name, name])));
  const seen: string[] = [];
  for await (const entry of crawl(root, OPTIONS)) {
    seen.push(...summary([entry]));
    if (seen.length === 1) for (const name of names.slice(1)) fs.rmSync(path.join(root, name));
  }
  assert.equal(seen.length, names.length, 'every listed file is accounted for');
  for (const [i, name] of names.entries()) assert.ok(seen[i] === name || seen[i] === `${name}: vanished`, seen[i]);
  assert.ok(seen.at(-1)?.endsWith('vanished'));
});

test('an unreadable folder is reported and its siblings are still walked', async (t) => {
  const root = makeTree({ 'a.txt': '', 'locked/secret.txt': '', 'z/b.txt': '' });
  fs.chmodSync(root, 0o755);
  fs.chmodSync(path.join(root, 'locked'), 0o000);
  t.after(() => fs.chmodSync(path.join(root, 'locked'), 0o755));
  const result = crawlUnprivileged(root);
  if (result === undefined) return t.skip('cannot switch to an unprivileged user');
  assert.deepEqual(
    result.map((e) => (e.type === 'file' ? e.relPath : `${e.relPath}: ${e.reason}`)),
    ['a.txt', 'locked: unreadable', 'z/b.txt'],
  );
});

test('a symlink to a file inside the root is reported under the link path', async () => {
  const root = makeTree({ 'real/f.txt': 'content' });
  fs.symlinkSync('real/f.txt', path.join(root, 'link.txt'));
  const entries = await collect(root);
  assert.deepEqual(summary(entries), ['link.txt', 'real/f.txt']);
  const link = entries[0];
  assert.ok(link?.type === 'file');
  assert.equal(link.file.size, 7);
  assert.equal(link.file.relPath, 'link.txt');
});

test('a symlink whose target resolves outside the root is not followed', async () => {
  const outside = makeTree({ 'f.txt': 'secret', 'dir/g.txt': 'secret' });
  const root = makeTree({ 'a.txt': '' });
  fs.symlinkSync(path.join(outside, 'dir'), path.join(root, 'out-dir'));
  fs.symlinkSync(path.join(outside, 'f.txt'), path.join(root, 'out-file'));
  // Relative, and through a link inside the root: the resolved target is what counts.
  fs.symlinkSync('../' + path.basename(outside), path.join(root, 'sneaky'));
  assert.deepEqual(summary(await collect(root)), ['a.txt', 'out-dir: symlink-outside-root', 'out-file: symlink-outside-root', 'sneaky: symlink-outside-root']);
});

test('symlink loops and links to folders already walked are reported, not followed', async () => {
  const root = makeTree({ 'real/f.txt': '', 'real/sub/g.txt': '' });
  fs.symlinkSync('.', path.join(root, 'self'));
  fs.symlinkSync('ping', path.join(root, 'pong'));
  fs.symlinkSync('pong', path.join(root, 'ping'));
  fs.symlinkSync('real', path.join(root, 'alias'));
  fs.symlinkSync('..', path.join(root, 'real/sub/up'));
  // `alias` sorts before `real`, yet the files come out once, under their real path.
  assert.deepEqual(summary(await collect(root)), [
    'ping: symlink-loop',
    'pong: symlink-loop',
    'real/f.txt',
    'real/sub/g.txt',
    'alias: symlink-loop',
    'real/sub/up: symlink-loop',
    'self: symlink-loop',
  ]);
});

test('a linked folder is followed when its target is not otherwise walked, with the rules of the link location', async () => {
  const root = makeTree({
    '.gitignore': 'vendor-src/\nlinked-ignored/\n*.tmp\n',
    'vendor-src/lib.ts': '',
    'vendor-src/x.tmp': '',
    'vendor-src/.gitignore': 'private/\n',
    'vendor-src/private/p.ts': '',
  });
  fs.symlinkSync('vendor-src', path.join(root, 'vendor'));
  fs.symlinkSync('vendor-src', path.join(root, 'linked-ignored'));
  fs.symlinkSync('nowhere', path.join(root, 'dangling'));
  assert.deepEqual(summary(await collect(root)), ['.gitignore', 'dangling: unreadable', 'vendor/.gitignore', 'vendor/lib.ts']);
});

test('aborting stops the walk at once and ends it without an error', async () => {
  const root = makeTree(Object.fromEntries(Array.from({ length: 500 }, (_, i) => [`d${i % 10}/f${i}.txt`, ''])));
  const controller = new AbortController();
  let afterAbort = 0;
  let total = 0;
  for await (const _ of crawl(root, { ...OPTIONS, signal: controller.signal })) {
    if (controller.signal.aborted) afterAbort++;
    if (++total === 3) controller.abort();
  }
  assert.equal(total, 3);
  assert.equal(afterAbort, 0);
  assert.deepEqual(await collect(root, { signal: AbortSignal.abort() }), []);
});
