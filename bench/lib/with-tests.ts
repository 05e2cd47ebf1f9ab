// A package with its repository's tests beside it, where a checkout lays them out (ESLint's `lib/`
// and `tests/lib/`; npm's `lib/` and `test/lib/`, and each workspace's `test/` in the package it
// ships as): the agent questions on a package asked of a tree whose tests describe the same
// behaviour in the same words. The packages ship no tests, so only such a tree shows what they do
// to an answer. The tests come from the snapshot the search tool's `fetch` brought (a git
// directory, written out as `locate`'s bench writes its trees); nothing of them is committed here.

import fs from 'node:fs';
import path from 'node:path';
import { checkout, git, mirrorOf } from './swebench.ts';

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
  const inSnapshot: Git = (args) => git(gitDir, args);
  const versionOf = (json: string) => (JSON.parse(json) as { version: string }).version;
  const testsVersion = versionOf(inSnapshot(['show', 'HEAD:package.json']));
  const root = path.resolve('.cache', name);
  // Beside the tree, not in it, where it would be indexed; rebuilt when either side changes.
  const marker = `${root}.built`;
  const built = `${versionOf(fs.readFileSync(path.join(packageRoot, 'package.json'), 'utf8'))} ${inSnapshot(['rev-parse', 'HEAD']).trim()}`;
  if (fs.existsSync(marker) && fs.readFileSync(marker, 'utf8') === built) return { root, testsVersion };
  fs.rmSync(root, { recursive: true, force: true });
  fs.cpSync(packageRoot, root, { recursive: true });
  // Files the snapshot lacks (a few of npm's registry fixtures, its largest) are left out.
  for (const { from, to } of placements(inSnapshot)) checkout(gitDir, `HEAD:${from}`, path.join(root, to));
  fs.writeFileSync(marker, built);
  return { root, testsVersion };
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
