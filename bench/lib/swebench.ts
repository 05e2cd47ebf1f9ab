// SWE-bench Multilingual as bench/locate.ts reads it: the instances, each repository's language,
// the tune / test split by repository, the gold files, and a repository's tree at a base commit,
// all derived at run time from snapshots fetched into a mirror folder (never committed here).

import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

/** Where the instances live: a repository snapshot and the file in it. */
export const DATA_REPO = 'joyon1104/coding-agent-eval';
export const DATA_FILE = 'data/swebench_multi_origin.jsonl';

export interface Instance {
  repo: string;
  instance_id: string;
  base_commit: string;
  problem_statement: string;
  /** The gold patch, a unified diff. */
  patch: string;
}

/**
 * The instances name no language; SWE-bench Multilingual groups its repositories by the language
 * of their sources, and this is that grouping. JavaScript and TypeScript are one group, as in the
 * benchmark. A repository missing here is a new dataset version: the bench refuses it rather
 * than guessing.
 */
export const REPO_LANGUAGE: Readonly<Record<string, string>> = {
  'jqlang/jq': 'C',
  'micropython/micropython': 'C',
  'redis/redis': 'C',
  'valkey-io/valkey': 'C',
  'fmtlib/fmt': 'C++',
  'nlohmann/json': 'C++',
  'caddyserver/caddy': 'Go',
  'gin-gonic/gin': 'Go',
  'gohugoio/hugo': 'Go',
  'hashicorp/terraform': 'Go',
  'prometheus/prometheus': 'Go',
  'apache/druid': 'Java',
  'apache/lucene': 'Java',
  'google/gson': 'Java',
  'javaparser/javaparser': 'Java',
  'projectlombok/lombok': 'Java',
  'reactivex/rxjava': 'Java',
  'axios/axios': 'JS/TS',
  'babel/babel': 'JS/TS',
  'facebook/docusaurus': 'JS/TS',
  'immutable-js/immutable-js': 'JS/TS',
  'mrdoob/three.js': 'JS/TS',
  'preactjs/preact': 'JS/TS',
  'vuejs/core': 'JS/TS',
  'briannesbitt/carbon': 'PHP',
  'laravel/framework': 'PHP',
  'php-cs-fixer/php-cs-fixer': 'PHP',
  'phpoffice/phpspreadsheet': 'PHP',
  'faker-ruby/faker': 'Ruby',
  'fastlane/fastlane': 'Ruby',
  'fluent/fluentd': 'Ruby',
  'jekyll/jekyll': 'Ruby',
  'jordansissel/fpm': 'Ruby',
  'rubocop/rubocop': 'Ruby',
  'astral-sh/ruff': 'Rust',
  'burntsushi/ripgrep': 'Rust',
  'nushell/nushell': 'Rust',
  'sharkdp/bat': 'Rust',
  'tokio-rs/axum': 'Rust',
  'tokio-rs/tokio': 'Rust',
  'uutils/coreutils': 'Rust',
};

/** Repositories that moved since the dataset was made: the snapshot is stored under the new name. */
export const REPO_MOVED: Readonly<Record<string, string>> = { 'briannesbitt/carbon': 'CarbonPHP/carbon' };

export function languageOf(repo: string): string {
  const language = REPO_LANGUAGE[repo.toLowerCase()];
  if (!language) throw new Error(`${repo} is not in the language table of bench/lib/swebench.ts: add it with its language`);
  return language;
}

export type Split = 'tune' | 'test';

const sha = (text: string) => createHash('sha256').update(text).digest('hex');

/**
 * Tune or test, by repository, so weights tuned on some repositories are reported on others.
 * Within each language the repositories are taken in the order of the SHA-256 of their name, each
 * to the split holding fewer of that language's instances so far (test on a tie): the splits get
 * about half of every language's instances, every language with two repositories or more has
 * both, and the deal depends only on the whole dataset (not on the subset run, nor on which
 * snapshots could be fetched).
 */
export function repoSplits(dataset: readonly Instance[]): Map<string, Split> {
  const count = new Map<string, number>();
  for (const instance of dataset) count.set(instance.repo.toLowerCase(), (count.get(instance.repo.toLowerCase()) ?? 0) + 1);
  const splits = new Map<string, Split>();
  for (const language of new Set([...count.keys()].map(languageOf))) {
    const held = { test: 0, tune: 0 };
    for (const repo of hashOrder(
      [...count.keys()].filter((r) => languageOf(r) === language),
      (r) => r,
    )) {
      const split: Split = held.test <= held.tune ? 'test' : 'tune';
      held[split] += count.get(repo)!;
      splits.set(repo, split);
    }
  }
  return splits;
}

/** A stable pseudo-random order (SHA-256 of the name), so a subset is the same on every run. */
export function hashOrder<T>(items: readonly T[], name: (item: T) => string): T[] {
  return [...items].sort((a, b) => sha(name(a)).localeCompare(sha(name(b))));
}

/** The snapshot's git directory under `mirrors` (`<owner>+<name>/repo`, the name as the store spells it), or undefined. */
export function mirrorOf(mirrors: string, repo: string): string | undefined {
  const wanted = (REPO_MOVED[repo.toLowerCase()] ?? repo).replace('/', '+').toLowerCase();
  const found = fs.existsSync(mirrors) ? fs.readdirSync(mirrors).find((name) => name.toLowerCase() === wanted) : undefined;
  const gitDir = found && path.join(mirrors, found, 'repo');
  return gitDir && fs.existsSync(gitDir) ? gitDir : undefined;
}

/** `git --git-dir gitDir …args`, its standard output as text. */
export const git = (gitDir: string, args: string[], options: { env?: NodeJS.ProcessEnv; input?: string } = {}) =>
  execFileSync('git', ['--git-dir', gitDir, ...args], {
    encoding: 'utf8',
    maxBuffer: 1 << 30,
    env: { ...process.env, ...options.env },
    input: options.input,
    stdio: ['pipe', 'pipe', 'pipe'],
  });

export function readInstances(mirrors: string): Instance[] {
  const gitDir = mirrorOf(mirrors, DATA_REPO);
  if (!gitDir) throw new Error(`no snapshot of ${DATA_REPO} under ${mirrors}: fetch it first (the search tool's fetch github:${DATA_REPO})`);
  return git(gitDir, ['show', `HEAD:${DATA_FILE}`])
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as Instance);
}

export function hasCommit(gitDir: string, commit: string): boolean {
  try {
    git(gitDir, ['cat-file', '-e', `${commit}^{commit}`]);
    return true;
  } catch {
    return false;
  }
}

/** Paths the patch modifies (its `a/` side), in patch order, without duplicates. */
export function patchedPaths(patch: string): string[] {
  const paths = new Set<string>();
  for (const match of patch.matchAll(/^diff --git a\/(.+?) b\/(.+)$/gm)) paths.add(match[1]!);
  return [...paths];
}

/** Files at `commit`: the gold files are the patched paths among them (a file the patch creates points nowhere yet). */
export function filesAt(gitDir: string, commit: string): Set<string> {
  return new Set(git(gitDir, ['ls-tree', '-r', '--name-only', '-z', commit]).split('\0').filter(Boolean));
}

/**
 * Writes the tree of `commit` (or any tree, `HEAD:tests`) into `dir` through a private index
 * file, so the snapshot's own index, HEAD and worktree list stay untouched. `git archive` would drop `export-ignore` files,
 * which are part of the repository a developer searches. Snapshots lack files of 4 MiB and more;
 * those are left out (no engine here indexes a file over 1 MiB) and counted in the return value.
 */
export function checkout(gitDir: string, commit: string, dir: string): { absent: number } {
  const entries = git(gitDir, ['ls-tree', '-r', '-z', commit])
    .split('\0')
    .filter(Boolean)
    .map((line) => {
      const [meta, file] = line.split('\t') as [string, string];
      const [, type, object] = meta.split(' ') as [string, string, string];
      return { type, object, file };
    })
    .filter((e) => e.type === 'blob');
  const present = git(gitDir, ['cat-file', '--batch-check=%(objectname) %(objecttype)'], { input: entries.map((e) => e.object).join('\n') + '\n' })
    .split('\n')
    .filter((line) => line.endsWith(' blob'))
    .map((line) => line.split(' ')[0]!);
  const have = new Set(present);
  const kept = entries.filter((e) => have.has(e.object));
  fs.mkdirSync(dir, { recursive: true });
  const env = { GIT_INDEX_FILE: path.join(dir, '..', `${path.basename(dir)}.index`) };
  try {
    git(gitDir, ['read-tree', commit], { env });
    git(gitDir, ['--work-tree', dir, 'checkout-index', '--force', '-z', '--stdin'], { env, input: kept.map((e) => e.file).join('\0') });
  } finally {
    fs.rmSync(env.GIT_INDEX_FILE, { force: true });
  }
  return { absent: entries.length - kept.length };
}
