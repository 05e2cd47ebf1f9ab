// The depth-first walk of a folder: which files exist, as FileStat, and which were skipped and why.
// Reading and decoding is read.ts's job; this only lists and stats.

import fs from 'node:fs';
import path from 'node:path';
import type { FileStat, SkipReason } from '../types.ts';
import { IGNORE_FILE_NAMES, type IgnoreRules, readIgnoreTexts, readRootRules } from './ignore-rules.ts';
import { createScope, type Scope } from './scope.ts';
import { isSecretFile } from './secret-files.ts';

export interface CrawlOptions {
  /** Gitignore-style globs relative to the root a file must match; empty means every file. */
  include: string[];
  /** Gitignore-style globs relative to the root that are never crawled, on top of the ignore files. */
  exclude: string[];
  /** Larger files are reported as `too-large`, decided from the stat without reading them. */
  maxFileBytes: number;
  /** False (the default): files that hold credentials are reported as `secret` (secret-files.ts). */
  indexSecretFiles?: boolean;
  /**
   * Aborting ends the walk at its next step, without an error: check `signal.aborted` before
   * taking what it yielded for the whole folder (to delete what it did not see, say).
   */
  signal?: AbortSignal;
}

export type CrawlEntry = { type: 'file'; file: FileStat } | { type: 'skip'; relPath: string; reason: SkipReason };

type SkipEntry = Extract<CrawlEntry, { type: 'skip' }>;

/**
 * How many entries of a folder ahead of the consumer are stat-ed or listed at once: enough to keep
 * the thread pool busy, few enough that an abort or an early `break` leaves little work in flight.
 */
const LOOKAHEAD = 64;

/**
 * Walks `root` depth-first, each folder in code-unit order of names, and never throws for one bad
 * file or folder: those come out as `skip` entries. Folders reached through symlinks are walked
 * after everything else, so a folder reachable both directly and through a link is reported under
 * its real path; a link to a folder already walked is reported as `symlink-loop`. A root that cannot
 * be listed is one `skip` entry with relPath `''`.
 */
export async function* crawl(root: string, options: CrawlOptions): AsyncGenerator<CrawlEntry> {
  if (options.signal?.aborted) return;
  const absRoot = path.resolve(root);
  let realRoot: string;
  try {
    realRoot = await fs.promises.realpath(absRoot);
  } catch (error) {
    yield skip('', reasonFor(error));
    return;
  }
  yield* new Walk(realRoot, options).run(absRoot);
}

/** A folder as the walk knows it: `realPath` tells loops apart, `rules` judge its entries. */
interface Folder {
  relPath: string;
  absPath: string;
  realPath: string;
}

interface Frame extends Folder {
  rules: IgnoreRules;
  items: Item[];
  next: number;
  started: number;
}

interface Item {
  name: string;
  kind: 'dir' | 'file' | 'link';
  outcome?: Promise<Outcome>;
}

/** What an item turned into; `undefined` when the rules drop it. */
type Outcome = CrawlEntry | { type: 'enter'; frame: Frame } | { type: 'follow'; link: Folder; parentRules: IgnoreRules } | undefined;

class Walk {
  readonly #scope: Scope;
  readonly #realRoot: string;
  readonly #rootPrefix: string;
  readonly #maxFileBytes: number;
  readonly #indexSecretFiles: boolean;
  readonly #signal: AbortSignal | undefined;
  /** Real paths of every folder entered or about to be, so no folder is walked twice. */
  readonly #visited = new Set<string>();
  readonly #links: Array<{ link: Folder; parentRules: IgnoreRules }> = [];

  constructor(realRoot: string, options: CrawlOptions) {
    this.#scope = createScope(options.include, options.exclude);
    this.#realRoot = realRoot;
    this.#rootPrefix = realRoot.endsWith(path.sep) ? realRoot : realRoot + path.sep;
    this.#maxFileBytes = options.maxFileBytes;
    this.#indexSecretFiles = options.indexSecretFiles ?? false;
    this.#signal = options.signal;
    this.#visited.add(realRoot);
  }

  async *run(absRoot: string): AsyncGenerator<CrawlEntry> {
    const stack: Frame[] = [];
    const root = await this.#open({ relPath: '', absPath: absRoot, realPath: this.#realRoot }, undefined);
    if (root.type === 'skip') yield root;
    else stack.push(root.frame);

    while (this.#signal?.aborted !== true) {
      const frame = stack.at(-1);
      if (frame === undefined) {
        const pending = this.#links.shift();
        if (pending === undefined) return;
        const { link, parentRules } = pending;
        if (this.#visited.has(link.realPath)) {
          yield skip(link.relPath, 'symlink-loop');
          continue;
        }
        this.#visited.add(link.realPath);
        const opened = await this.#open(link, parentRules);
        if (opened.type === 'skip') yield opened;
        else stack.push(opened.frame);
        continue;
      }
      const item = frame.items[frame.next];
      if (item === undefined) {
        stack.pop();
        continue;
      }
      this.#startAhead(frame);
      frame.next++;
      const outcome = await item.outcome;
      if (outcome === undefined || this.#signal?.aborted) continue;
      if (outcome.type === 'enter') stack.push(outcome.frame);
      else if (outcome.type === 'follow') this.#links.push(outcome);
      else yield outcome;
    }
  }

  /** Starts the work for the next LOOKAHEAD items, in order, so results are consumed in order. */
  #startAhead(frame: Frame): void {
    const end = Math.min(frame.items.length, frame.next + LOOKAHEAD);
    for (; frame.started < end; frame.started++) {
      const item = frame.items[frame.started];
      if (item !== undefined) item.outcome = this.#settle(frame, item);
    }
  }

  #settle(frame: Frame, item: Item): Promise<Outcome> {
    const relPath = frame.relPath === '' ? item.name : `${frame.relPath}/${item.name}`;
    const absPath = path.join(frame.absPath, item.name);
    if (item.kind === 'file') return this.#statFile(relPath, absPath);
    if (item.kind === 'link') return this.#resolveLink(frame, relPath, absPath);
    const realPath = path.join(frame.realPath, item.name);
    if (this.#visited.has(realPath)) return Promise.resolve(skip(relPath, 'symlink-loop'));
    this.#visited.add(realPath);
    return this.#open({ relPath, absPath, realPath }, frame.rules);
  }

  /** Lists a folder and keeps the entries its rules accept; never rejects. */
  async #open(folder: Folder, parentRules: IgnoreRules | undefined): Promise<SkipEntry | { type: 'enter'; frame: Frame }> {
    let dirents: fs.Dirent[];
    try {
      dirents = await fs.promises.readdir(folder.absPath, { withFileTypes: true });
    } catch (error) {
      return skip(folder.relPath, reasonFor(error));
    }
    dirents.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));

    const ignoreFiles = new Set(dirents.map((d) => d.name).filter((name) => IGNORE_FILE_NAMES.includes(name)));
    const texts = ignoreFiles.size === 0 ? [] : await readIgnoreTexts(folder.absPath, ignoreFiles);
    const rules = parentRules === undefined ? await readRootRules(folder.absPath, texts) : parentRules.extend(folder.relPath, texts);

    const items: Item[] = [];
    for (const dirent of dirents) {
      const { name } = dirent;
      const relPath = folder.relPath === '' ? name : `${folder.relPath}/${name}`;
      if (dirent.isDirectory()) {
        if (this.#accepts(rules, relPath, true)) items.push({ name, kind: 'dir' });
      } else if (dirent.isFile()) {
        if (this.#accepts(rules, relPath, false)) items.push({ name, kind: 'file' });
      } else if (dirent.isSymbolicLink()) {
        // Judged once the target's type is known, since `out/` matches a link to a folder.
        items.push({ name, kind: 'link' });
      }
      // Sockets, FIFOs and devices hold no text, and opening a FIFO would block.
    }
    return { type: 'enter', frame: { ...folder, rules, items, next: 0, started: 0 } };
  }

  #accepts(rules: IgnoreRules, relPath: string, isDir: boolean): boolean {
    const inScope = isDir ? this.#scope.entersDir(relPath) : this.#scope.acceptsFile(relPath);
    return inScope && !rules.ignores(relPath, isDir);
  }

  async #statFile(relPath: string, absPath: string): Promise<Outcome> {
    try {
      const stats = await fs.promises.stat(absPath);
      // A file replaced by a folder since the listing is gone as a file; the folder is the next walk's.
      return stats.isFile() ? this.#fileEntry(relPath, absPath, stats) : skip(relPath, 'vanished');
    } catch (error) {
      return skip(relPath, reasonFor(error));
    }
  }

  async #resolveLink(frame: Frame, relPath: string, absPath: string): Promise<Outcome> {
    let realPath: string;
    let stats: fs.Stats;
    try {
      realPath = await fs.promises.realpath(absPath);
      stats = await fs.promises.stat(absPath);
    } catch (error) {
      if (!this.#accepts(frame.rules, relPath, false)) return undefined;
      return skip(relPath, await brokenLinkReason(absPath, error));
    }
    const isDir = stats.isDirectory();
    if (!isDir && !stats.isFile()) return undefined;
    if (!this.#accepts(frame.rules, relPath, isDir)) return undefined;
    if (realPath !== this.#realRoot && !realPath.startsWith(this.#rootPrefix)) {
      return skip(relPath, 'symlink-outside-root');
    }
    if (isDir) return { type: 'follow', link: { relPath, absPath, realPath }, parentRules: frame.rules };
    // A link named `config` to `.env` is the `.env`: judged under both names.
    const targetRelPath = realPath.slice(this.#rootPrefix.length).split(path.sep).join('/');
    return this.#fileEntry(relPath, absPath, stats, targetRelPath);
  }

  async #fileEntry(relPath: string, absPath: string, stats: fs.Stats, targetRelPath?: string): Promise<CrawlEntry> {
    if (!this.#indexSecretFiles && (await isSecretFile(relPath, absPath, targetRelPath))) return skip(relPath, 'secret');
    if (stats.size > this.#maxFileBytes) return skip(relPath, 'too-large');
    return { type: 'file', file: { relPath, size: stats.size, mtimeMs: stats.mtimeMs } };
  }
}

function skip(relPath: string, reason: SkipReason): SkipEntry {
  return { type: 'skip', relPath, reason };
}

/** `ENOTDIR` covers a folder replaced by a file after its parent was listed. */
function reasonFor(error: unknown): SkipReason {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOENT' || code === 'ENOTDIR') return 'vanished';
  if (code === 'ELOOP') return 'symlink-loop';
  return 'unreadable';
}

/** A link whose target is missing is unreadable; a link that is itself gone has vanished. */
async function brokenLinkReason(absPath: string, error: unknown): Promise<SkipReason> {
  const reason = reasonFor(error);
  if (reason !== 'vanished') return reason;
  try {
    await fs.promises.lstat(absPath);
    return 'unreadable';
  } catch {
    return 'vanished';
  }
}
