// ESLint's package with its repository's tests beside it, as a checkout of ESLint lays them out
// (`lib/` and `tests/lib/`): the agent questions on ESLint asked of a tree whose tests describe the
// same behaviour in the same words. The package ships no tests, so only this tree shows what they
// do to an answer. The tests come from the snapshot of eslint/eslint the search tool's `fetch`
// brought (a git directory, read with `git archive`); nothing of them is committed here.

import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { mirrorOf } from './swebench.ts';

export interface TreeWithTests {
  root: string;
  /** The version of ESLint the tests were written for, from the snapshot's package.json. */
  testsVersion: string;
}

/**
 * Builds `.cache/eslint-with-tests` once: a copy of `packageRoot` and the snapshot's `tests/`.
 * Undefined when `mirrors` holds no snapshot of eslint/eslint.
 */
export function eslintWithTests(packageRoot: string, mirrors: string): TreeWithTests | undefined {
  const gitDir = mirrorOf(mirrors, 'eslint/eslint');
  if (!gitDir) return undefined;
  const git = (args: string[]) => execFileSync('git', ['--git-dir', gitDir, ...args], { encoding: 'utf8', maxBuffer: 1 << 28 });
  const testsVersion = (JSON.parse(git(['show', 'HEAD:package.json'])) as { version: string }).version;
  const root = path.resolve('.cache/eslint-with-tests');
  // Beside the tree, not in it, where it would be indexed.
  const marker = `${root}.built`;
  const packageVersion = (JSON.parse(fs.readFileSync(path.join(packageRoot, 'package.json'), 'utf8')) as { version: string }).version;
  // Rebuilt when either side changes: another installed ESLint, another snapshot.
  const built = `${packageVersion} ${git(['rev-parse', 'HEAD']).trim()}`;
  if (fs.existsSync(marker) && fs.readFileSync(marker, 'utf8') === built) return { root, testsVersion };
  fs.rmSync(root, { recursive: true, force: true });
  fs.cpSync(packageRoot, root, { recursive: true });
  const archive = path.join(root, '.tests.tar');
  execFileSync('git', ['--git-dir', gitDir, 'archive', '--output', archive, 'HEAD', 'tests']);
  execFileSync('tar', ['-xf', archive, '-C', root]);
  fs.rmSync(archive);
  fs.writeFileSync(marker, built);
  return { root, testsVersion };
}
