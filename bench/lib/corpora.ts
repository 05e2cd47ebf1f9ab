// The trees the benchmarks index, prepared once under .cache/ (ignored by git), and the helpers
// every bench child shares: the text file list, index size on disk, the cost-as-it-grows curve.

import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { crawl, readTextFile } from '../../src/core/crawl/index.ts';
import { resolveIndexOptions } from '../../src/core/options.ts';
import { linuxTree as extractLinux } from './linux-tree.ts';

/** The medium corpus: a real package from the npm registry, pinned so every run indexes the same bytes. */
export const MEDIUM_PACKAGE = 'rxjs@7.8.2';

const CACHE = path.resolve('.cache');

/** The npm CLI package that ships with the system's Node, copied so re-index runs may edit a file. */
export function npmTree(): string {
  const target = path.join(CACHE, 'corpus-npm');
  if (!fs.existsSync(path.join(target, 'package.json'))) {
    const source = path.join(execFileSync('npm', ['root', '-g'], { encoding: 'utf8' }).trim(), 'npm');
    fs.cpSync(source, target, { recursive: true });
  }
  return target;
}

/** MEDIUM_PACKAGE as published (`npm pack`, no dependencies), unpacked into .cache. */
export function mediumTree(): string {
  const name = MEDIUM_PACKAGE.replace(/@.*$/, '');
  const target = path.join(CACHE, `corpus-${name}`);
  if (fs.existsSync(path.join(target, 'package.json'))) return target;
  fs.mkdirSync(target, { recursive: true });
  const tarball = execFileSync('npm', ['pack', MEDIUM_PACKAGE, '--silent', '--pack-destination', CACHE], { encoding: 'utf8' }).trim().split('\n').at(-1)!;
  execFileSync('tar', ['-xzf', path.join(CACHE, tarball), '-C', target, '--strip-components=1']);
  return target;
}

/**
 * The Linux tree as ./linux-tree.ts extracts it. A tree extracted some other way (hard-linked from
 * another copy, say) may still carry Debian's `/*` + `!/debian/` stanza, which makes every
 * gitignore-honouring tool — our crawler, ripgrep — see no file at all; it is cut here too, the
 * original kept as `.gitignore.debian`, writing a new inode so a linked copy is left alone.
 */
export function linuxTree(): string {
  const target = extractLinux();
  const gitignore = path.join(target, '.gitignore');
  const text = fs.readFileSync(gitignore, 'utf8');
  if (/^\/\*$/m.test(text)) {
    fs.copyFileSync(gitignore, path.join(target, '.gitignore.debian'));
    const kept = text
      .split('\n')
      .filter((line) => line !== '/*' && line !== '!/debian/')
      .join('\n');
    fs.rmSync(gitignore);
    fs.writeFileSync(gitignore, kept);
  }
  return target;
}

export interface CorpusFile {
  relPath: string;
  absPath: string;
  bytes: number;
}

/**
 * The files every engine indexes: what our crawler keeps (gitignore, size cap) and can read as
 * text, in crawl order. Reading them all here also leaves every engine the same warm OS cache.
 */
export async function textFiles(dir: string): Promise<CorpusFile[]> {
  const { maxFileBytes } = resolveIndexOptions();
  const files: CorpusFile[] = [];
  for await (const entry of crawl(dir, { include: [], exclude: ['.fused-search/'], maxFileBytes })) {
    if (entry.type !== 'file') continue;
    const absPath = path.join(dir, entry.file.relPath);
    const read = await readTextFile(absPath, maxFileBytes);
    if (read.ok) files.push({ relPath: entry.file.relPath, absPath, bytes: Buffer.byteLength(read.text) });
  }
  return files;
}

/** Bytes of a SQLite database with its write-ahead log. */
export function dbSize(dbFile: string): number {
  return ['', '-wal'].reduce((sum, suffix) => sum + (fs.statSync(dbFile + suffix, { throwIfNoEntry: false })?.size ?? 0), 0);
}

export function peakRssMb(): number {
  return Math.round(process.resourceUsage().maxRSS / 1024);
}

/** A point of the indexing clock: `done` files indexed `ms` after the start. */
export interface Mark {
  done: number;
  ms: number;
}

/** Time at which `done` files were finished, interpolated linearly between marks. */
function timeAt(marks: readonly Mark[], done: number): number {
  let previous: Mark = { done: 0, ms: 0 };
  for (const mark of marks) {
    if (mark.done >= done) {
      const span = mark.done - previous.done;
      return span === 0 ? mark.ms : previous.ms + ((done - previous.done) / span) * (mark.ms - previous.ms);
    }
    previous = mark;
  }
  return previous.ms;
}

/**
 * Milliseconds per file in `windows` equal slices of `total` files. Slices the run did not reach
 * (a capped run) are left out, so the curve stops where the engine stopped.
 */
export function perFileCurve(marks: readonly Mark[], total: number, windows: number): Array<{ upTo: number; msPerFile: number }> {
  const reached = marks.at(-1)?.done ?? 0;
  const curve: Array<{ upTo: number; msPerFile: number }> = [];
  for (let w = 1; w <= windows; w++) {
    const from = ((w - 1) * total) / windows;
    const to = (w * total) / windows;
    if (to > reached + 1e-9) break;
    curve.push({ upTo: Math.round(to), msPerFile: (timeAt(marks, to) - timeAt(marks, from)) / (to - from) });
  }
  return curve;
}

/** `percentile` of values in any order. */
export function percentileOf(values: readonly number[], p: number): number {
  return percentile(
    [...values].sort((a, b) => a - b),
    p,
  );
}

export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank]!;
}
