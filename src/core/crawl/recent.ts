// Which files a person is likely to look for first: those they changed lately. A first index of a
// big folder takes minutes, and reading these before the rest makes its early results the useful ones.

import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { FileStat } from '../types.ts';

/** Commits whose files count as recent work. */
const RECENT_COMMITS = 20;
/** Without git, files modified this recently count as recent work... */
const RECENT_MTIME_MS = 14 * 24 * 60 * 60 * 1000;
/** ...unless most of the folder is that new (a fresh clone or extraction): then mtimes say nothing. */
const RECENT_MTIME_MAX_SHARE = 0.5;
const RECENT_MTIME_MAX_FILES = 2_000;
/** A git that takes longer than this (a huge repository, a slow disk) is not worth waiting for. */
const GIT_TIMEOUT_MS = 3_000;

/**
 * `files` reordered so that recent work comes first, each group in its given (folder) order: in a
 * git repository, files with uncommitted changes or untracked, then files of the last commits; in
 * any folder, files modified in the last two weeks, newest first. The rest keep their order.
 */
export async function recentFirst<T extends FileStat>(root: string, files: readonly T[], now = Date.now()): Promise<T[]> {
  const byPath = new Map(files.map((file) => [file.relPath, file]));
  const ordered = new Set<T>();
  for (const relPath of await gitRecentPaths(root)) {
    const file = byPath.get(relPath);
    if (file) ordered.add(file);
  }
  const fresh = files.filter((file) => now - file.mtimeMs <= RECENT_MTIME_MS);
  if (fresh.length <= files.length * RECENT_MTIME_MAX_SHARE) {
    for (const file of fresh.sort((a, b) => b.mtimeMs - a.mtimeMs).slice(0, RECENT_MTIME_MAX_FILES)) ordered.add(file);
  }
  if (ordered.size === 0) return [...files];
  for (const file of files) ordered.add(file);
  return [...ordered];
}

/** Paths relative to `root`: uncommitted changes, untracked files, then the last commits' files. Empty outside git. */
async function gitRecentPaths(root: string): Promise<string[]> {
  if (!isInsideGit(root)) return [];
  const lists = await Promise.all([
    git(root, ['diff', '--name-only', '--relative', '-z', 'HEAD']),
    git(root, ['ls-files', '--others', '--exclude-standard', '-z']),
    git(root, ['log', `-n${RECENT_COMMITS}`, '--name-only', '--relative', '--format=', '-z']),
  ]);
  return lists.flat();
}

function isInsideGit(root: string): boolean {
  for (let dir = path.resolve(root); ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, '.git'))) return true;
    if (path.dirname(dir) === dir) return false;
  }
}

/** A git command's NUL-separated output as paths; empty if git is missing, slow or fails. */
function git(cwd: string, args: string[]): Promise<string[]> {
  return new Promise((resolve) => {
    execFile('git', ['-c', 'core.quotepath=off', ...args], { cwd, timeout: GIT_TIMEOUT_MS, maxBuffer: 64 * 1024 * 1024 }, (error, stdout) => {
      resolve(error ? [] : stdout.split('\0').filter((line) => line.trim() !== ''));
    });
  });
}
