// A package with its repository's tests beside it, where a checkout lays them out (ESLint's `lib/`
// and `tests/lib/`; npm's `lib/` and `test/lib/`, and each workspace's `test/` in the package it
// ships as): the agent questions on a package asked of a tree whose tests describe the same
// behaviour in the same words. The packages ship no tests, so only such a tree shows what they do
// to an answer. The tests come from the snapshot the search tool's `fetch` brought (a git
// directory, read with `git archive`); nothing of them is committed here.

import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { mirrorOf } from './swebench.ts';

export interface TreeWithTests {
  root: string;
  /** The version the tests were written for, from the snapshot's package.json. */
  testsVersion: string;
}

/** A folder of the snapshot and where it goes in the package's tree. */
export interface TestFolder {
  from: string;
  to: string;
}

type Git = (args: string[]) => string;

/**
 * Builds `.cache/<name>` once: a copy of `packageRoot` and the test folders `placements` picks in
 * the snapshot of `repo`. Undefined when `mirrors` holds no snapshot of it.
 */
export function packageWithTests(
  name: string,
  packageRoot: string,
  mirrors: string,
  repo: string,
  placements: (git: Git) => TestFolder[],
): TreeWithTests | undefined {
  const gitDir = mirrorOf(mirrors, repo);
  if (!gitDir) return undefined;
  const git: Git = (args) => execFileSync('git', ['--git-dir', gitDir, ...args], { encoding: 'utf8', maxBuffer: 1 << 28 });
  const versionOf = (json: string) => (JSON.parse(json) as { version: string }).version;
  const testsVersion = versionOf(git(['show', 'HEAD:package.json']));
  const root = path.resolve('.cache', name);
  // Beside the tree, not in it, where it would be indexed; rebuilt when either side changes.
  const marker = `${root}.built`;
  const built = `${versionOf(fs.readFileSync(path.join(packageRoot, 'package.json'), 'utf8'))} ${git(['rev-parse', 'HEAD']).trim()}`;
  if (fs.existsSync(marker) && fs.readFileSync(marker, 'utf8') === built) return { root, testsVersion };
  fs.rmSync(root, { recursive: true, force: true });
  fs.cpSync(packageRoot, root, { recursive: true });
  const archive = `${root}.tar`;
  for (const { from, to } of placements(git)) {
    // Snapshots lack their largest files (a few registry fixtures of npm's): left out of the tree.
    const missing = absentFiles(gitDir, from).map((file) => `:(exclude)${file}`);
    execFileSync('git', ['--git-dir', gitDir, 'archive', '--output', archive, `--prefix=${to}/`, `HEAD:${from}`, '--', '.', ...missing]);
    execFileSync('tar', ['-xf', archive, '-C', root]);
  }
  fs.rmSync(archive, { force: true });
  fs.writeFileSync(marker, built);
  return { root, testsVersion };
}

/** The files under `folder` (relative to it) whose content the snapshot does not hold. */
function absentFiles(gitDir: string, folder: string): string[] {
  const entries = execFileSync('git', ['--git-dir', gitDir, 'ls-tree', '-r', `HEAD:${folder}`], { encoding: 'utf8', maxBuffer: 1 << 28 })
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const [meta, file] = line.split('\t') as [string, string];
      return { sha: meta.split(' ')[2]!, file };
    });
  const checked = execFileSync('git', ['--git-dir', gitDir, 'cat-file', '--batch-check'], {
    encoding: 'utf8',
    maxBuffer: 1 << 28,
    input: entries.map((e) => e.sha).join('\n'),
  }).split('\n');
  return entries.filter((_, i) => checked[i]?.endsWith(' missing')).map((e) => e.file);
}

/** ESLint's `tests/`, where its repository keeps it. */
export const ESLINT_TESTS = (): TestFolder[] => [{ from: 'tests', to: 'tests' }];

/**
 * npm's `test/`, and each workspace's `test/` (`workspaces/arborist/test`) in the folder the
 * package ships that workspace as (`node_modules/@npmcli/arborist/test`).
 */
export function npmTests(git: Git): TestFolder[] {
  const workspaces = git(['ls-tree', '--name-only', 'HEAD', 'workspaces/']).split('\n').filter(Boolean);
  const folders: TestFolder[] = [{ from: 'test', to: 'test' }];
  for (const workspace of workspaces) {
    const { name } = JSON.parse(git(['show', `HEAD:${workspace}/package.json`])) as { name: string };
    if (git(['ls-tree', '--name-only', 'HEAD', `${workspace}/test`]).trim()) folders.push({ from: `${workspace}/test`, to: `node_modules/${name}/test` });
  }
  return folders;
}
