// Keeps an index in step with a folder: a full sync that reads only what changed, and single-file
// updates for saves and file-watcher events. One bad file is skipped and counted, never fatal.

import { realpath, stat as statFile } from 'node:fs/promises';
import path from 'node:path';
import { CHUNKING_REVISIONS, createChunker, type Chunker } from './chunk/index.ts';
import { crawl, createPathFilter, isSecretFile, type CrawlOptions, type PathFilter } from './crawl/index.ts';
import { recentFirst } from './crawl/recent.ts';
import type { IndexOptions } from './options.ts';
import { prepareFile, type PreparedFile } from './prepare/index.ts';
import { LocalPreparer, PreparePool, type Preparer } from './prepare/pool.ts';
import { LocalWriter, ThreadWriter, type BatchWriter } from './store/batch-writer.ts';
import { isDiskFull } from './store/database.ts';
import type { FileChunks, IndexStore, TouchedFile } from './store/store.ts';
import type { FileStat, SkipReason } from './types.ts';
import type { UserActivity } from './user-activity.ts';

/** Where the CLI keeps an index inside the folder it indexes; never indexed itself. */
export const INDEX_DIR = '.fused-search';

export interface IndexSummary {
  /** Files the index holds after the run. */
  files: number;
  chunks: number;
  /** Bytes of text read and chunked during this run. */
  bytes: number;
  seconds: number;
  added: number;
  updated: number;
  unchanged: number;
  removed: number;
  skipped: Partial<Record<SkipReason, number>>;
  /** The first skipped files with their reasons, for people who ask why a file is missing. */
  skippedFiles: Array<{ path: string; reason: SkipReason }>;
  /** False when the run was cancelled or stopped before it finished. */
  complete: boolean;
  /** Set when the run could not write and stopped early; `message` is meant for the user. */
  stopped?: IndexStop;
}

/**
 * Why indexing stopped short. `disk-full`: SQLite reported SQLITE_FULL (the disk, or the
 * database's page limit). What was committed before stays and keeps answering searches; the
 * batch being written is rolled back whole, and the next sync picks up from there.
 */
export interface IndexStop {
  code: 'disk-full';
  message: string;
}

/** Thrown by `updateFile` and `removeFile` when the index cannot be written; `message` is meant for the user. */
export class IndexFullError extends Error {
  readonly code = 'disk-full';
}

export interface IndexProgress {
  phase: 'scanning' | 'indexing' | 'finishing';
  /** Files found so far (scanning) or in total (indexing). */
  filesFound: number;
  filesDone: number;
  bytesDone: number;
  currentPath?: string;
  /** Set while the sync rests between batches because the user is typing (`SyncOptions.activity`). */
  resting?: boolean;
}

export interface SyncOptions {
  signal?: AbortSignal;
  onProgress?: (progress: IndexProgress) => void;
  /**
   * Files (relative to the root) the user has in front of them, such as the open editors: brought
   * up to date before the crawl, so that a first index answers for them within seconds.
   */
  firstPaths?: readonly string[];
  /**
   * Only these files (relative to the root), as a watcher reported them: a mass change (a branch
   * switch) synced with the bulk writer but without a crawl of the whole folder. A folder among
   * them makes it a full sync, since only a crawl finds what a new folder holds.
   */
  paths?: readonly string[];
  /** While it reports the user active, the sync rests between batches (src/core/user-activity.ts). */
  activity?: UserActivity;
}

/** What one path is to the index now, judged as the crawl judges what it finds. */
type PathVerdict = { kind: 'file'; file: FileStat } | { kind: 'folder' } | { kind: 'absent' } | { kind: 'kept-out'; reason: 'secret' | 'too-large' };

export type UpdateOutcome = 'indexed' | 'unchanged' | 'removed' | 'ignored' | { skipped: SkipReason };

/**
 * Files written per transaction (touched ones included): big enough to amortise commits, small
 * enough to keep memory flat, since a sync holds several batches at once (see POOL_AHEAD). The
 * Linux tree's first index peaked at 368 / 371 MB with 128 files against 413–416 MB with 256, for
 * the same CPU time; with 64, at 351 MB for 8–10% more CPU time and 11–15% more wall time.
 */
const BATCH_FILES = 128;
const BATCH_BYTES = 8 * 1024 * 1024;
/**
 * Files prepared ahead of the one being written. On this thread, a few: their reads overlap the
 * chunking. On pool threads, a batch's worth: the threads prepare the next batch while one is
 * written. The indexing thread then holds up to three: the batch being written (kept until it is
 * committed, in case the writer's thread fails), the next one, and the files prepared ahead.
 */
const LOCAL_AHEAD = { files: 16, bytes: Infinity };
const POOL_AHEAD = { files: BATCH_FILES, bytes: BATCH_BYTES };
/** Fewer changed files than this are prepared on the indexing thread: starting pool threads costs more. */
const POOL_MIN_FILES = 64;
const SKIPPED_FILES_KEPT = 200;
/** At most this many `firstPaths` are read before the crawl; more would delay the rest for little. */
const FIRST_PATHS_MAX = 32;
const PROGRESS_INTERVAL_MS = 100;
/** Paths of a mass change judged at once (a stat and a few more file-system calls each). */
const JUDGED_TOGETHER = 256;

export class Indexer {
  readonly store: IndexStore;
  readonly root: string;
  private readonly options: IndexOptions;
  private pathFilter: Promise<PathFilter> | undefined;
  /** Loading the grammars takes a moment; a process that only searches never pays for it. */
  private chunker: Promise<Chunker> | undefined;
  private syncsRunning = 0;
  private readonly writerThread: boolean;
  /**
   * The last write handed a turn (`inWriteTurn`). A sync's batch may be written on the bulk
   * writer's thread while this thread goes on; a write here meanwhile would wait for that batch's
   * transaction with the thread blocked in SQLite's busy handler, so it waits for its turn instead.
   */
  private lastWrite: Promise<unknown> = Promise.resolve();
  /** Writes handed a turn and not yet done. */
  private writesInTurn = 0;

  /** `writerThread`: a sync with preparing threads writes its batches on a thread of its own too (see `preparer`). */
  constructor(store: IndexStore, root: string, options: IndexOptions, { writerThread = true }: { writerThread?: boolean } = {}) {
    this.store = store;
    this.root = root;
    this.options = options;
    this.writerThread = writerThread && store.dbFile !== ':memory:';
  }

  /** True while a sync runs on this indexer. */
  get syncing(): boolean {
    return this.syncsRunning > 0;
  }

  /**
   * Runs `write` once the writes handed a turn before it are done, the batch a sync is writing on
   * the bulk writer's thread included; at once when there are none. Every write to this index from
   * this process goes through here (the lease's heartbeat too); a search only reads, and waits for
   * nothing.
   */
  inWriteTurn<T>(write: () => T | Promise<T>): Promise<T> {
    this.writesInTurn++;
    // The executor runs at once, and what `write` throws rejects the promise.
    const turn = this.writesInTurn === 1 ? new Promise<T>((resolve) => resolve(write())) : this.lastWrite.then(write);
    this.lastWrite = turn.catch(() => undefined).finally(() => this.writesInTurn--);
    return turn;
  }

  async sync(options: SyncOptions = {}): Promise<IndexSummary> {
    this.syncsRunning++;
    try {
      return await this.syncUnguarded(options);
    } finally {
      this.syncsRunning--;
    }
  }

  private async syncUnguarded({ signal, onProgress, firstPaths = [], paths, activity }: SyncOptions): Promise<IndexSummary> {
    const started = performance.now();
    // This thread's parser runtime starts while the folder is scanned (each grammar loads with the
    // first file of its language); a missing grammar file surfaces below.
    const chunkerLoaded = this.loadChunker();
    chunkerLoaded.catch(() => undefined);
    const summary: IndexSummary = {
      files: 0,
      chunks: 0,
      bytes: 0,
      seconds: 0,
      added: 0,
      updated: 0,
      unchanged: 0,
      removed: 0,
      skipped: {},
      skippedFiles: [],
      complete: false,
    };
    const secretFiles: string[] = [];
    const skip = (relPath: string, reason: SkipReason) => {
      if (reason === 'secret') secretFiles.push(relPath);
      summary.skipped[reason] = (summary.skipped[reason] ?? 0) + 1;
      if (summary.skippedFiles.length < SKIPPED_FILES_KEPT) summary.skippedFiles.push({ path: relPath, reason });
    };
    let lastReport = 0;
    const report = (progress: IndexProgress, force = false) => {
      const now = performance.now();
      if (onProgress && (force || now - lastReport >= PROGRESS_INTERVAL_MS)) {
        lastReport = now;
        onProgress(progress);
      }
    };

    // Files an older chunker chunked are changed files to this sync (and to every later one until
    // done). On a full disk they wait for a later sync: the marks are one transaction with the
    // revisions they record.
    await this.inWriteTurn(() => this.store.markChunkedBefore(CHUNKING_REVISIONS)).catch((error: unknown) => {
      if (!isDiskFull(error)) throw error;
    });

    for (const relPath of firstPaths.slice(0, FIRST_PATHS_MAX)) {
      if (signal?.aborted) break;
      try {
        const known = this.store.file(relPath);
        if ((await this.updateFile(relPath)) === 'indexed') summary[known ? 'updated' : 'added']++;
      } catch (error) {
        // A full disk stops the sync below, at its first write; any other failure is one file's.
        if (error instanceof IndexFullError) break;
      }
    }

    // Scan first, so progress can say how far along we are.
    const listed = paths && (await this.judgePaths(paths, skip));
    const found: FileStat[] = listed?.found ?? [];
    if (!listed) {
      for await (const entry of crawl(this.root, this.crawlOptions(signal))) {
        if (entry.type === 'skip') skip(entry.relPath, entry.reason);
        else found.push(entry.file);
        report({ phase: 'scanning', filesFound: found.length, filesDone: 0, bytesDone: 0 });
        if (signal?.aborted) break;
      }
    }

    await chunkerLoaded;
    const catalog = new Map(this.store.catalog().map((entry) => [entry.path, entry]));
    const outdated = found.filter((file) => {
      const known = catalog.get(file.relPath);
      if (known && known.size === file.size && known.mtimeMs === file.mtimeMs) {
        summary.unchanged++;
        return false;
      }
      return true;
    });
    // A few files are done in moments in any order; a first index of many takes minutes, and what
    // the user changed lately is what they will search for while it runs.
    const changed = !listed && outdated.length >= POOL_MIN_FILES && !signal?.aborted ? await recentFirst(this.root, outdated) : outdated;

    // Every write goes through `write`, in its turn: a full disk stops the run with a message
    // instead of an exception, and the counters only count what was committed.
    const write = async (fn: () => unknown): Promise<boolean> => {
      if (summary.stopped) return false;
      try {
        await this.inWriteTurn(fn);
        return true;
      } catch (error) {
        if (!isDiskFull(error)) throw error;
        summary.stopped ??= { code: 'disk-full', message: this.fullMessage(`after ${summary.added + summary.updated} new or changed files`) };
        return false;
      }
    };
    const { preparer, writer, ahead } = this.preparer(changed.length);
    let batch: FileChunks[] = [];
    let touched: TouchedFile[] = [];
    let batchCounts = { added: 0, updated: 0, bytes: 0 };
    // One batch is written while the next is prepared; the one after waits for it (memory stays flat).
    let writing: Promise<unknown> = Promise.resolve();
    const pace = activity?.pace();
    const flush = async () => {
      if (batch.length + touched.length === 0) return;
      const written = { files: batch, touched };
      const counts = { ...batchCounts, unchanged: touched.length };
      batch = [];
      touched = [];
      batchCounts = { added: 0, updated: 0, bytes: 0 };
      await writing;
      await pace?.between(
        (resting) => report({ phase: 'indexing', filesFound: found.length, filesDone: done, bytesDone: summary.bytes, ...(resting ? { resting } : {}) }, true),
        signal,
      );
      writing = write(() => writer.write(written)).then((ok) => {
        if (!ok) return;
        summary.added += counts.added;
        summary.updated += counts.updated;
        summary.unchanged += counts.unchanged;
        summary.bytes += counts.bytes;
      });
      // A failure is thrown where `writing` is awaited: the next flush, or the end of the run.
      writing.catch(() => undefined);
    };

    let done = found.length - changed.length;
    /** Files found but read as something the index does not hold (binary now, or a source map): removed at the end, as gone. */
    const notIndexable = new Set<string>();
    const queued = new Map<number, Promise<PreparedFile>>();
    let next = 0;
    let queuedBytes = 0;
    const fill = (current: number) => {
      while (next < changed.length && next - current < ahead.files && (next === current || queuedBytes < ahead.bytes)) {
        const file = changed[next]!;
        const knownHash = catalog.get(file.relPath)?.hash;
        queued.set(
          next++,
          preparer.prepare({
            absPath: path.join(this.root, file.relPath),
            relPath: file.relPath,
            maxFileBytes: this.options.maxFileBytes,
            ...(knownHash ? { knownHash } : {}),
          }),
        );
        queuedBytes += file.size;
      }
    };
    try {
      for (let i = 0; i < changed.length && !signal?.aborted && !summary.stopped; i++) {
        const file = changed[i]!;
        fill(i);
        const prepared = await queued.get(i)!;
        queued.delete(i);
        queuedBytes -= file.size;
        done++;
        report({ phase: 'indexing', filesFound: found.length, filesDone: done, bytesDone: summary.bytes, currentPath: file.relPath });
        if (prepared.status === 'skipped') {
          skip(file.relPath, prepared.reason);
          // As in `updateFile`: a file the chunker failed on keeps its chunks, one no longer indexable loses them.
          if (prepared.reason !== 'chunk-failed') notIndexable.add(file.relPath);
          continue;
        }
        if (prepared.status === 'unchanged') {
          touched.push({ path: file.relPath, size: file.size, mtimeMs: file.mtimeMs });
        } else {
          batch.push({
            record: { path: file.relPath, size: file.size, mtimeMs: file.mtimeMs, hash: prepared.hash, language: prepared.language },
            chunks: prepared.chunks,
            words: prepared.words,
          });
          batchCounts[catalog.has(file.relPath) ? 'updated' : 'added']++;
          batchCounts.bytes += prepared.bytes;
        }
        if (batch.length + touched.length >= BATCH_FILES || batchCounts.bytes >= BATCH_BYTES) await flush();
      }
      await flush();
      await writing;
    } finally {
      // Jobs still queued (a cancelled or stopped run) are dropped: closing settles them unprepared.
      const dropped = Promise.allSettled(queued.values());
      await Promise.all([preparer.close(), writing.catch(() => undefined).then(() => writer.close())]);
      await dropped;
    }

    if (!signal?.aborted && !summary.stopped) {
      report({ phase: 'finishing', filesFound: found.length, filesDone: done, bytesDone: summary.bytes }, true);
      const present = new Set(found.map((file) => file.relPath).filter((relPath) => !notIndexable.has(relPath)));
      const gone = [...(listed?.paths ?? catalog.keys())].filter((relPath) => catalog.has(relPath) && !present.has(relPath));
      let removed = 0;
      const ok = await write(() =>
        this.store.transaction(() => {
          removed = 0;
          for (const relPath of gone) if (this.store.removeFile(relPath)) removed++;
          if (listed) {
            // The files kept out as secrets elsewhere in the folder stay on the list.
            const secrets = new Set(this.store.secretFiles());
            for (const relPath of listed.paths) secrets.delete(relPath);
            this.store.setSecretFiles([...secrets, ...secretFiles]);
          } else {
            this.store.setSecretFiles(secretFiles);
            this.store.setMeta('lastSync', String(Date.now()));
          }
        }),
      );
      if (ok) summary.removed = removed;
      summary.complete = ok;
      if (ok && summary.added + summary.updated + summary.removed > 0) await write(() => this.store.tidyAfterSync());
    }
    const stats = this.store.stats();
    summary.files = stats.files;
    summary.chunks = stats.chunks;
    summary.seconds = (performance.now() - started) / 1000;
    return summary;
  }

  /**
   * Brings one file up to date: re-chunked if its content changed, removed if it is gone or now
   * ignored. Safe to call for any path an editor or watcher reports.
   */
  async updateFile(relPath: string): Promise<UpdateOutcome> {
    try {
      return await this.updateFileUnguarded(relPath);
    } catch (error) {
      if (isDiskFull(error)) throw new IndexFullError(this.fullMessage(`while updating ${relPath}`), { cause: error });
      throw error;
    }
  }

  private async updateFileUnguarded(relPath: string): Promise<UpdateOutcome> {
    const normalized = relPath.split(path.sep).join('/');
    const update = await this.planUpdate(normalized);
    return this.inWriteTurn(() => {
      const outcome = update();
      this.noteSecret(normalized, typeof outcome === 'object' && outcome.skipped === 'secret');
      return outcome;
    });
  }

  /** Judges and prepares one file; what it returns writes the change, in its turn, and says what it came to. */
  private async planUpdate(normalized: string): Promise<() => UpdateOutcome> {
    const verdict = await this.judgePath(normalized);
    if (verdict.kind === 'absent' || verdict.kind === 'folder') return () => (this.store.removeFile(normalized) ? 'removed' : 'ignored');
    if (verdict.kind === 'kept-out') {
      return () => {
        this.store.removeFile(normalized);
        return { skipped: verdict.reason };
      };
    }
    const { size, mtimeMs } = verdict.file;
    const known = this.store.file(normalized);
    if (known && known.size === size && known.mtimeMs === mtimeMs) return () => 'unchanged';
    const job = {
      absPath: path.join(this.root, normalized),
      relPath: normalized,
      maxFileBytes: this.options.maxFileBytes,
      ...(known ? { knownHash: known.hash } : {}),
    };
    const prepared = await prepareFile(await this.loadChunker(), job);
    if (prepared.status === 'skipped') {
      return () => {
        // A file the chunker failed on keeps its previous chunks; one that can no longer be read loses them.
        if (prepared.reason !== 'chunk-failed') this.store.removeFile(normalized);
        return { skipped: prepared.reason };
      };
    }
    if (prepared.status === 'unchanged') {
      return () => {
        this.store.touchFile(normalized, size, mtimeMs);
        return 'unchanged';
      };
    }
    const record = { path: normalized, size, mtimeMs, hash: prepared.hash, language: prepared.language };
    return () => {
      this.store.replaceFiles([{ record, chunks: prepared.chunks, words: prepared.words }]);
      return 'indexed';
    };
  }

  /** What `normalized` (relative to the root, `/`-separated) is to the index: the crawl's rules for one path. */
  private async judgePath(normalized: string): Promise<PathVerdict> {
    const filter = await (this.pathFilter ??= createPathFilter(this.root, this.crawlOptions()));
    if (!filter.accepts(normalized)) return { kind: 'absent' };
    const absPath = path.join(this.root, normalized);
    let stat;
    try {
      stat = await statFile(absPath);
    } catch {
      return { kind: 'absent' };
    }
    if (stat.isDirectory()) return { kind: 'folder' };
    if (!stat.isFile()) return { kind: 'absent' };
    if (!this.options.indexSecretFiles && (await isSecretFile(normalized, absPath, await this.targetRelPath(absPath)))) {
      return { kind: 'kept-out', reason: 'secret' };
    }
    if (stat.size > this.options.maxFileBytes) return { kind: 'kept-out', reason: 'too-large' };
    return { kind: 'file', file: { relPath: normalized, size: stat.size, mtimeMs: stat.mtimeMs } };
  }

  /**
   * The files a mass change reported, judged one by one instead of crawled: those to index, and
   * every path looked at (the ones not found are removed). Undefined when a folder is among them.
   */
  private async judgePaths(
    paths: readonly string[],
    skip: (relPath: string, reason: SkipReason) => void,
  ): Promise<{ found: FileStat[]; paths: Set<string> } | undefined> {
    const normalized = new Set(paths.map((relPath) => relPath.split(path.sep).join('/')));
    const found: FileStat[] = [];
    const keptOut: Array<[string, SkipReason]> = [];
    const all = [...normalized];
    // Side by side: one at a time, a search between each file's few awaits would stretch the batch.
    for (let start = 0; start < all.length; start += JUDGED_TOGETHER) {
      const slice = all.slice(start, start + JUDGED_TOGETHER);
      const verdicts = await Promise.all(slice.map((relPath) => this.judgePath(relPath)));
      for (const [i, verdict] of verdicts.entries()) {
        if (verdict.kind === 'folder') return undefined;
        if (verdict.kind === 'kept-out') keptOut.push([slice[i]!, verdict.reason]);
        else if (verdict.kind === 'file') found.push(verdict.file);
      }
    }
    for (const [relPath, reason] of keptOut) skip(relPath, reason);
    return { found, paths: normalized };
  }

  async removeFile(relPath: string): Promise<boolean> {
    const normalized = relPath.split(path.sep).join('/');
    try {
      return await this.inWriteTurn(() => {
        this.noteSecret(normalized, false);
        return this.store.removeFile(normalized);
      });
    } catch (error) {
      if (isDiskFull(error)) throw new IndexFullError(this.fullMessage(`while removing ${relPath}`), { cause: error });
      throw error;
    }
  }

  private fullMessage(when: string): string {
    return (
      `The disk holding the index (${this.store.dbFile}) is full: indexing stopped ${when}. ` +
      'Searches still answer from what the index holds; index again once there is space.'
    );
  }

  /** Whether the crawl would index `relPath` (relative to the root): its ignore files, include and exclude globs, the credential files. */
  async accepts(relPath: string): Promise<boolean> {
    const normalized = relPath.split(path.sep).join('/');
    const filter = await (this.pathFilter ??= createPathFilter(this.root, this.crawlOptions()));
    if (!filter.accepts(normalized)) return false;
    // A credential file is as unreachable as an ignored one (read_range asks here), unless opted in.
    return this.options.indexSecretFiles || !(await isSecretFile(normalized, path.join(this.root, normalized)));
  }

  /** Keeps the list of files kept out as secrets (the status counts them) in step with one file's update. */
  private noteSecret(relPath: string, secret: boolean): void {
    const known = this.store.secretFiles();
    if (known.includes(relPath) === secret) return;
    this.store.setSecretFiles(secret ? [...known, relPath] : known.filter((p) => p !== relPath));
  }

  /** Where a file that may be a symlink points, relative to the root, if inside it: a link is judged by its target's name too. */
  private async targetRelPath(absPath: string): Promise<string | undefined> {
    try {
      const [real, realRoot] = await Promise.all([realpath(absPath), realpath(this.root)]);
      const rel = path.relative(realRoot, real);
      return rel === '' || rel.startsWith('..') || path.isAbsolute(rel) ? undefined : rel.split(path.sep).join('/');
    } catch {
      return undefined;
    }
  }

  /** Ignore rules may have changed (a .gitignore was saved): read them again on next use. */
  reloadRules(): void {
    this.pathFilter = undefined;
  }

  /**
   * Where a sync of `files` changed files prepares and writes them, and how far ahead it prepares;
   * closed by the sync. With pool threads, the batches are written on a thread of their own too
   * (unless this process only indexes), and this thread is left to the searches.
   */
  private preparer(files: number): { preparer: Preparer; writer: BatchWriter; ahead: typeof LOCAL_AHEAD } {
    const local = new LocalPreparer(() => this.loadChunker());
    const threads = this.options.prepareThreads ?? 0;
    if (threads === 0 || files < POOL_MIN_FILES) return { preparer: local, writer: new LocalWriter(this.store), ahead: LOCAL_AHEAD };
    return {
      preparer: new PreparePool(threads, { chunkMaxBytes: this.options.chunkMaxBytes }, local),
      writer: this.writerThread ? new ThreadWriter(this.store) : new LocalWriter(this.store),
      ahead: POOL_AHEAD,
    };
  }

  private loadChunker(): Promise<Chunker> {
    return (this.chunker ??= createChunker({ chunkMaxBytes: this.options.chunkMaxBytes }));
  }

  private crawlOptions(signal?: AbortSignal): CrawlOptions {
    return {
      include: this.options.include,
      exclude: [...this.options.exclude, `${INDEX_DIR}/`],
      maxFileBytes: this.options.maxFileBytes,
      indexSecretFiles: this.options.indexSecretFiles,
      ...(signal ? { signal } : {}),
    };
  }
}
