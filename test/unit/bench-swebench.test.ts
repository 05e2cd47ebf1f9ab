// bench/locate.ts scores against the gold files and reports tune and test apart: a wrong gold file
// or a repository in both splits would make its figures say nothing. These run on a real git
// repository made here, cloned bare as the search tool's snapshots are.

import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { checkout, filesAt, hasCommit, type Instance, mirrorOf, patchedPaths, repoSplits, REPO_LANGUAGE } from '../../bench/lib/swebench.ts';

const base = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-swebench-'));
after(() => fs.rmSync(base, { recursive: true, force: true }));

const run = (cwd: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=bench', '-c', 'user.email=bench@example.invalid', ...args], { cwd, encoding: 'utf8', stdio: 'pipe' }).trim();

function snapshot(): { gitDir: string; commit: string; mirrors: string } {
  const work = path.join(base, 'work');
  fs.mkdirSync(path.join(work, 'src'), { recursive: true });
  fs.writeFileSync(path.join(work, 'src/parse.c'), 'int parse(void) { return 0; }\n');
  fs.writeFileSync(path.join(work, 'README.md'), '# demo\n');
  fs.writeFileSync(path.join(work, '.gitattributes'), 'README.md export-ignore\n');
  run(base, 'init', '-q', work);
  run(work, 'add', '.');
  run(work, 'commit', '-q', '-m', 'base');
  const commit = run(work, 'rev-parse', 'HEAD');
  const mirrors = path.join(base, 'mirror');
  const gitDir = path.join(mirrors, 'JqLang+JQ', 'repo');
  run(base, 'clone', '-q', '--bare', work, gitDir);
  return { gitDir, commit, mirrors };
}

const { gitDir, commit, mirrors } = snapshot();

test('the gold files are the patched files that exist at the base commit, not the ones the patch creates', () => {
  const patch = [
    'diff --git a/src/parse.c b/src/parse.c',
    '--- a/src/parse.c',
    '+++ b/src/parse.c',
    '@@ -1 +1 @@',
    '-int parse(void) { return 0; }',
    '+int parse(void) { return 1; }',
    'diff --git a/src/lexer.c b/src/lexer.c',
    'new file mode 100644',
    '--- /dev/null',
    '+++ b/src/lexer.c',
    '@@ -0,0 +1 @@',
    '+int lex(void);',
  ].join('\n');
  const tracked = filesAt(gitDir, commit);
  assert.deepEqual(
    patchedPaths(patch).filter((p) => tracked.has(p)),
    ['src/parse.c'],
  );
});

test('a snapshot is found whatever the case of its name, and a commit it lacks is reported as such', () => {
  assert.equal(mirrorOf(mirrors, 'jqlang/jq'), gitDir);
  assert.equal(mirrorOf(mirrors, 'redis/redis'), undefined);
  assert.equal(hasCommit(gitDir, commit), true);
  assert.equal(hasCommit(gitDir, '0'.repeat(40)), false);
});

test('the tree at a commit holds every tracked file, export-ignore ones too, and leaves the snapshot without an index', () => {
  const tree = path.join(base, 'tree');
  assert.deepEqual(checkout(gitDir, commit, tree), { absent: 0 });
  assert.equal(fs.readFileSync(path.join(tree, 'src/parse.c'), 'utf8'), 'int parse(void) { return 0; }\n');
  assert.ok(fs.existsSync(path.join(tree, 'README.md')));
  assert.equal(fs.existsSync(path.join(gitDir, 'index')), false);
  assert.deepEqual(fs.readdirSync(base).sort(), ['mirror', 'tree', 'work']);
});

test('each repository is in one split, both splits of a language hold about half its instances, and the deal is the same every time', () => {
  const dataset: Instance[] = Object.keys(REPO_LANGUAGE).flatMap((repo, r) =>
    Array.from({ length: 1 + (r % 7) }, (_, i) => ({ repo, instance_id: `${repo}-${i}`, base_commit: '', problem_statement: '', patch: '' })),
  );
  const splits = repoSplits(dataset);
  assert.deepEqual([...splits.keys()].sort(), Object.keys(REPO_LANGUAGE).sort());
  assert.deepEqual(repoSplits([...dataset].reverse()), splits);
  for (const language of new Set(Object.values(REPO_LANGUAGE))) {
    const instances = dataset.filter((i) => REPO_LANGUAGE[i.repo] === language);
    const test = instances.filter((i) => splits.get(i.repo) === 'test').length;
    const largest = Math.max(...instances.map((i) => instances.filter((j) => j.repo === i.repo).length));
    assert.ok(test > 0 && test < instances.length, `${language} has both splits`);
    assert.ok(Math.abs(2 * test - instances.length) <= largest, `${language}: ${test} of ${instances.length} in test`);
  }
});
