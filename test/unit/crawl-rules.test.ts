// Which files the crawl keeps: ignore files with git's semantics, the caller's globs, and the
// path filter that must agree with the walk for single-file updates.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { crawlUnprivileged } from './helpers/child-script.ts';
import { treeMaker } from './helpers/temp-tree.ts';
import { crawl, createPathFilter, type CrawlOptions } from '../../src/core/crawl/index.ts';

const OPTIONS: CrawlOptions = { include: [], exclude: [], maxFileBytes: 1024 * 1024 };

const makeTree = treeMaker('crawl-rules-');

async function crawledFiles(root: string, options: Partial<CrawlOptions> = {}): Promise<string[]> {
  const files: string[] = [];
  for await (const entry of crawl(root, { ...OPTIONS, ...options })) {
    assert.equal(entry.type, 'file', `unexpected skip: ${JSON.stringify(entry)}`);
    if (entry.type === 'file') files.push(entry.file.relPath);
  }
  return files;
}

/** Every file on disk, outside .git, ignored or not. */
function allFiles(root: string): string[] {
  return fs
    .readdirSync(root, { recursive: true, withFileTypes: true })
    .filter((d) => d.isFile())
    .map((d) => path.relative(root, path.join(d.parentPath, d.name)).split(path.sep).join('/'))
    .filter((relPath) => !relPath.startsWith('.git/'))
    .sort();
}

/** A tree that exercises every part of gitignore(5) the crawl claims to follow. */
const GITIGNORE_FIXTURE: Record<string, string> = {
  '.gitignore': [
    '# a comment, and a blank line below',
    '',
    '*.log',
    '!keep.log',
    '/build',
    'out/',
    '**/gen/**',
    'docs/**/*.tmp',
    '\\#literal-hash.txt',
    'trailing.txt   ',
    'a?c.txt',
    '[xy].dat',
    'node_modules/',
    'cache/',
    '/*.orig',
  ].join('\n'),
  'app.log': '',
  'keep.log': '',
  'src/deep/keep.log': '',
  'src/deep/other.log': '',
  'UPPER.LOG': '',
  'build/x.js': '',
  'src/build/x.js': '',
  'out/o.js': '',
  'src/out/o.js': '',
  'src/out.txt': '',
  'out.txt/inner.md': '',
  'gen/a.ts': '',
  'src/gen/b/c.ts': '',
  'src/gen.ts': '',
  'docs/a.tmp': '',
  'docs/x/y/b.tmp': '',
  'other/c.tmp': '',
  '#literal-hash.txt': '',
  'trailing.txt': '',
  'abc.txt': '',
  'abbc.txt': '',
  'x.dat': '',
  'z.dat': '',
  'node_modules/pkg/index.js': '',
  'a/node_modules/pkg/index.js': '',
  'top.orig': '',
  'src/nested.orig': '',
  // A nested file re-includes a folder the root excluded, and adds its own anchored rule.
  'pkg/.gitignore': '!cache/\n/local.txt\nsub/deep.txt\n*.md\n!important.md\n\\#p-hash.txt\n\\!p-bang.txt\n**/tmp/\nlogs/**\nspace\\ \n',
  'pkg/cache/kept.txt': '',
  'cache/dropped.txt': '',
  'pkg/local.txt': '',
  'pkg/x/local.txt': '',
  'pkg/sub/deep.txt': '',
  'pkg/x/sub/deep.txt': '',
  'pkg/readme.md': '',
  'pkg/important.md': '',
  'readme.md': '',
  'pkg/#p-hash.txt': '',
  'pkg/!p-bang.txt': '',
  'pkg/a/tmp/t.txt': '',
  'pkg/tmp/t.txt': '',
  'tmp/t.txt': '',
  'pkg/logs/l.txt': '',
  'pkg/x/logs/l.txt': '',
  'pkg/space ': '',
  'pkg/space': '',
  // A folder whose name is a glob: its rules must not leak onto `g`, which `[gen]` would match.
  '[gen]/.gitignore': '*.txt\n',
  '[gen]/x.txt': '',
  'g/x.txt': '',
  // A file can re-include what a shallower file ignored, but not below an ignored folder.
  'lib/.gitignore': '!*.log\n',
  'lib/debug.log': '',
  'node_modules/.gitignore': '!*\n',
  'plain.txt': '',
};

const gitTest = { skip: !hasGit() && 'git is not installed' };
test('the crawl keeps exactly the files git would list as untracked and not ignored', gitTest, async () => {
  const root = makeTree(GITIGNORE_FIXTURE);
  git(root, 'init', '-q');
  fs.writeFileSync(path.join(root, '.git/info/exclude'), '*.secret\n');
  fs.writeFileSync(path.join(root, 'token.secret'), '');

  const expected = git(root, 'ls-files', '--others', '--exclude-standard', '-z').split('\0').filter(Boolean).sort();
  const crawled = await crawledFiles(root);
  assert.deepEqual([...crawled].sort(), expected);
  // Spot checks, so a broken fixture cannot make both sides agree on nothing.
  for (const kept of [
    'keep.log',
    'src/deep/keep.log',
    'UPPER.LOG',
    'src/build/x.js',
    'src/out.txt',
    'pkg/cache/kept.txt',
    'pkg/x/local.txt',
    'pkg/important.md',
    'readme.md',
    'g/x.txt',
    'lib/debug.log',
    'other/c.tmp',
    'src/nested.orig',
  ]) {
    assert.ok(crawled.includes(kept), `${kept} should be kept`);
  }
  for (const dropped of [
    'app.log',
    'build/x.js',
    'src/out/o.js',
    'gen/a.ts',
    'docs/x/y/b.tmp',
    'abc.txt',
    'x.dat',
    'a/node_modules/pkg/index.js',
    'node_modules/pkg/index.js',
    'pkg/local.txt',
    'pkg/sub/deep.txt',
    'pkg/readme.md',
    '[gen]/x.txt',
    'cache/dropped.txt',
    'token.secret',
    'top.orig',
    'trailing.txt',
    '#literal-hash.txt',
  ]) {
    assert.ok(!crawled.includes(dropped), `${dropped} should be ignored`);
  }
});

test('the path filter accepts exactly the files the crawl reports', async () => {
  const root = makeTree(GITIGNORE_FIXTURE);
  fs.mkdirSync(path.join(root, '.git/info'), { recursive: true });
  fs.writeFileSync(path.join(root, '.git/info/exclude'), '*.secret\n');
  fs.writeFileSync(path.join(root, 'token.secret'), '');
  const options = { include: ['*.txt', '*.log', '!**/deep/**'], exclude: ['pkg/x/'] };

  const crawled = new Set(await crawledFiles(root, options));
  const filter = await createPathFilter(root, { ...OPTIONS, ...options });
  for (const relPath of allFiles(root)) {
    assert.equal(filter.accepts(relPath), crawled.has(relPath), relPath);
  }
  assert.ok(crawled.size > 5);
});

test('the path filter refuses paths that leave the root or are not relative', async () => {
  const root = makeTree({ 'a.txt': '' });
  const filter = await createPathFilter(root, OPTIONS);
  assert.equal(filter.accepts('a.txt'), true);
  for (const bad of ['../a.txt', 'x/../../a.txt', '/a.txt', './a.txt', '', 'dir/']) {
    assert.equal(filter.accepts(bad), false, bad);
  }
});

test('a .fusedsearchignore at any level works like a .gitignore and can override the one beside it', async () => {
  const root = makeTree({
    '.gitignore': 'dist/\n',
    '.fusedsearchignore': '!dist/\n*.snap\n',
    'dist/bundle.js': '',
    'a.snap': '',
    'sub/.fusedsearchignore': '/fixtures/\n',
    'sub/fixtures/big.json': '',
    'fixtures/kept.json': '',
    'sub/code.ts': '',
  });
  assert.deepEqual(await crawledFiles(root), [
    '.fusedsearchignore',
    '.gitignore',
    'dist/bundle.js',
    'fixtures/kept.json',
    'sub/.fusedsearchignore',
    'sub/code.ts',
  ]);
});

test('include keeps only matching files, exclude removes files and whole folders, both gitignore-style', async () => {
  const root = makeTree({
    'src/a.ts': '',
    'src/a.test.ts': '',
    'src/b.js': '',
    'docs/guide.md': '',
    'vendor/lib.ts': '',
    'readme.md': '',
    'deep/src/c.ts': '',
  });
  assert.deepEqual(await crawledFiles(root, { include: ['*.ts', '!*.test.ts', '/docs/'] }), ['deep/src/c.ts', 'docs/guide.md', 'src/a.ts', 'vendor/lib.ts']);
  assert.deepEqual(await crawledFiles(root, { exclude: ['vendor/', '/src/*.js', '**/*.md'] }), ['deep/src/c.ts', 'src/a.test.ts', 'src/a.ts']);
  assert.deepEqual(await crawledFiles(root, { include: ['*.ts'], exclude: ['/src'] }), ['deep/src/c.ts', 'vendor/lib.ts']);
});

test('version-control folders are never entered, even when no ignore file names them', async () => {
  const root = makeTree({
    '.git/config': '',
    '.hg/store': '',
    '.svn/entries': '',
    'sub/.git': 'gitdir: ../.git/modules/sub\n',
    'sub/a.txt': '',
    '.gitkeep': '',
  });
  assert.deepEqual(await crawledFiles(root), ['.gitkeep', 'sub/a.txt']);
});

test('an ignored folder is not entered', async (t) => {
  // Entering it would report the unreadable folder inside; only an unprivileged user sees that.
  const root = makeTree({ '.gitignore': 'node_modules/\n', 'node_modules/pkg/index.js': '', 'a.txt': '' });
  fs.chmodSync(root, 0o755);
  fs.chmodSync(path.join(root, 'node_modules/pkg'), 0o000);
  t.after(() => fs.chmodSync(path.join(root, 'node_modules/pkg'), 0o755));
  const result = crawlUnprivileged(root);
  if (result === undefined) return t.skip('cannot switch to an unprivileged user');
  assert.deepEqual(result, [
    { type: 'file', relPath: '.gitignore' },
    { type: 'file', relPath: 'a.txt' },
  ]);
});

function hasGit(): boolean {
  return spawnSync('git', ['--version']).status === 0;
}

function git(cwd: string, ...args: string[]): string {
  // No global or system config: a developer's core.excludesFile must not change the expectation.
  const result = spawnSync('git', ['-c', 'core.excludesFile=/dev/null', ...args], {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' },
  });
  assert.equal(result.status, 0, result.stderr);
  return result.stdout;
}
