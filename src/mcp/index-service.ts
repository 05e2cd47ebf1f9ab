// The index as the MCP server keeps it: one engine on one database, and a role in the lease
// (src/core/index-lease.ts). As the holder ("owner") it indexes the folder on start and keeps it
// fresh with a file watcher; when another process (the VS Code extension, another server) holds
// the lease, it only reads ("reader") and checks every heartbeat whether the holder has gone, then
// takes over. Either way searches, status and single-file reindexing work at once.
//
// SQLITE_BUSY never reaches an agent: a read in WAL mode does not wait for the writer, and the few
// writes a reader makes (a stale result's file, an explicit reindex) wait out busy_timeout, retry,
// and then fail with a sentence that says who is writing.

import fs from 'node:fs';
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { Engine } from '../core/engine.ts';
import { HEARTBEAT_MS, IndexLease, type LeaseHolder } from '../core/index-lease.ts';
import { INDEX_DIR, type IndexProgress, type IndexSummary, type UpdateOutcome } from '../core/indexer.ts';
import type { SearchOptionsInput } from '../core/options.ts';
import type { SearchResponse } from '../core/types.ts';
import { FolderWatcher, type WatchBatch } from './watch.ts';

export interface IndexServiceOptions {
  /** The folder to index; without it, the one `dbFile` was built from. */
  root?: string;
  /** The database; default `<root>/.fused-search/index.db`. */
  dbFile?: string;
  /** Watch the folder while holding the lease (default true). */
  watch?: boolean;
  /** Quiet time before a batch of file changes is indexed, in milliseconds (default 200). */
  debounceMs?: number;
  /** Lease heartbeat in milliseconds (default HEARTBEAT_MS); tests shorten it. */
  heartbeatMs?: number;
  /** Diagnostics, one line each (the MCP server sends them to stderr; stdout is the protocol). */
  log?: (line: string) => void;
}

export interface IndexStatus {
  root: string;
  dbFile: string;
  /** `owner`: this server indexes and watches; `reader`: another process does (see `heldBy`). */
  role: 'owner' | 'reader';
  heldBy: { kind: string; pid: number; since: string } | null;
  files: number;
  chunks: number;
  /** ISO time of the last completed full sync and of the newest file update, or null. */
  lastSync: string | null;
  lastUpdate: string | null;
  /** Indexed files that changed or vanished on disk since (new files are not counted: finding them takes a crawl). */
  staleFiles: { count: number; examples: string[] };
  /** File changes the watcher has seen but not yet indexed. */
  pendingChanges: number;
  watching: boolean;
  /** Indexing in progress (here or, as published in the lease, by the holder); null when idle. */
  indexing: { by: 'this server' | string; phase: string; filesDone: number; filesFound: number } | null;
  notices: string[];
}

export class BusyError extends Error {}

/** A full sync in progress; later callers join it instead of starting another. */
interface SyncRun {
  promise: Promise<IndexSummary>;
  abort: AbortController;
  progress: IndexProgress | undefined;
  listeners: Set<(progress: IndexProgress) => void>;
}

const STALE_EXAMPLES = 10;
/** Stat this many catalog entries at most for the status; beyond it the count is a lower bound. */
const STALE_CHECK_LIMIT = 50_000;
const BUSY_ATTEMPTS = 3;

export class IndexService {
  readonly engine: Engine;
  private readonly lease: IndexLease;
  private readonly options: IndexServiceOptions;
  private readonly log: (line: string) => void;
  private role: 'owner' | 'reader' = 'reader';
  private watcher: FolderWatcher | undefined;
  private heartbeat: NodeJS.Timeout | undefined;
  private syncRun: SyncRun | undefined;
  private readonly notices: string[] = [];

  private constructor(engine: Engine, options: IndexServiceOptions) {
    this.engine = engine;
    this.options = options;
    this.log = options.log ?? (() => {});
    this.lease = new IndexLease(engine.store, { kind: 'mcp' });
    this.notices.push(...engine.notices);
  }

  static async open(options: IndexServiceOptions): Promise<IndexService> {
    const engine = options.root !== undefined
      ? await Engine.open({ root: options.root, ...(options.dbFile ? { dbFile: options.dbFile } : {}) })
      : await Engine.open({ dbFile: options.dbFile! });
    const service = new IndexService(engine, options);
    service.start();
    return service;
  }

  get currentRole(): 'owner' | 'reader' {
    return this.role;
  }

  private start(): void {
    this.tick();
    this.heartbeat = setInterval(() => this.tick(), this.options.heartbeatMs ?? HEARTBEAT_MS);
    this.heartbeat.unref();
  }

  /** One heartbeat: renew the lease as owner, or try to take it over as reader. */
  private tick(): void {
    try {
      if (this.role === 'owner') {
        const progress = this.syncRun?.progress;
        if (!this.lease.renew(progress ? { phase: progress.phase, filesFound: progress.filesFound, filesDone: progress.filesDone } : undefined)) {
          this.log('another process took over the index; reading only from now on');
          this.becomeReader();
        }
      } else {
        const claim = this.lease.tryAcquire();
        if (claim.acquired) this.becomeOwner();
        else if (this.notices.length === 0 || !this.notices.at(-1)!.startsWith('Index kept by')) {
          this.notices.push(`Index kept by ${describeHolder(claim.holder)}; this server reads it.`);
          this.log(`index kept by ${describeHolder(claim.holder)}; reading it`);
        }
      }
    } catch (error) {
      // A busy database at heartbeat time is retried at the next one.
      this.log(`lease: ${describe(error)}`);
    }
  }

  private becomeOwner(): void {
    this.role = 'owner';
    this.log(`indexing ${this.engine.root}`);
    // The vocabulary is prepared right after, so an agent's first query with a typo does not pay
    // for it (seconds on a big tree the first time; after that it is read back from the index).
    void this.reindexAll()
      .then(() => this.engine.prepareVocabulary())
      .catch((error: unknown) => this.log(`initial index failed: ${describe(error)}`));
    if (this.options.watch ?? true) this.startWatching();
  }

  private becomeReader(): void {
    this.role = 'reader';
    this.syncRun?.abort.abort();
    void this.watcher?.close();
    this.watcher = undefined;
  }

  private startWatching(): void {
    const dbDir = path.relative(this.engine.root, path.dirname(this.engine.store.dbFile)).split(path.sep).join('/');
    const ignored = [`${INDEX_DIR}/`, '.git/', ...(dbDir && !dbDir.startsWith('..') ? [`${dbDir}/`] : [])];
    this.watcher = new FolderWatcher(this.engine.root, {
      ...(this.options.debounceMs !== undefined ? { debounceMs: this.options.debounceMs } : {}),
      ignore: (relPath) => relPath === '.git' || ignored.some((prefix) => relPath.startsWith(prefix) || `${relPath}/` === prefix),
      onBatch: (batch) => this.applyBatch(batch),
      onError: (error) => {
        this.notices.push(`The file watcher stopped (${error.message}); changes are picked up by reindex or on search.`);
        this.log(`watcher: ${error.message}`);
      },
    });
    try {
      this.watcher.start();
    } catch (error) {
      this.watcher = undefined;
      this.notices.push(`No file watcher (${describe(error)}); changes are picked up by reindex or on search.`);
    }
  }

  private async applyBatch(batch: WatchBatch): Promise<void> {
    let rescan = batch.rescan;
    for (const relPath of batch.paths) {
      if (path.posix.basename(relPath) === '.gitignore' || relPath === '.git/info/exclude') {
        this.engine.indexer.reloadRules();
        rescan = true;
      }
      const info = await stat(path.join(this.engine.root, relPath)).catch(() => undefined);
      if (info?.isDirectory()) {
        // A folder appeared (moved in, checked out): its files need a crawl.
        rescan = true;
        continue;
      }
      if (!info && !this.engine.store.file(relPath)) {
        // A vanished folder: drop what was indexed under it.
        const prefix = `${relPath}/`;
        const under = this.engine.store.catalog().filter((entry) => entry.path.startsWith(prefix));
        for (const entry of under) await this.withBusyRetry(() => this.engine.removeFile(entry.path));
        continue;
      }
      await this.withBusyRetry(() => this.engine.updateFile(relPath));
    }
    if (rescan) await this.reindexAll();
  }

  /**
   * Brings the whole index up to date (a crawl; only changed files are read). Joins a run already
   * in progress. Aborting `signal` cancels the run; what was indexed so far stays.
   */
  async reindexAll(options: { signal?: AbortSignal; onProgress?: (progress: IndexProgress) => void } = {}): Promise<IndexSummary> {
    let run = this.syncRun;
    if (!run) {
      const started: SyncRun = { abort: new AbortController(), progress: undefined, listeners: new Set(), promise: Promise.resolve(undefined as never) };
      started.promise = this.withBusyRetry(() =>
        this.engine.sync({
          signal: started.abort.signal,
          onProgress: (progress) => {
            started.progress = progress;
            for (const listener of started.listeners) listener(progress);
          },
        }),
      ).finally(() => {
        if (this.syncRun === started) this.syncRun = undefined;
      });
      this.syncRun = run = started;
    }
    const onProgress = options.onProgress;
    if (onProgress) run.listeners.add(onProgress);
    const cancel = () => run.abort.abort();
    options.signal?.addEventListener('abort', cancel, { once: true });
    try {
      return await run.promise;
    } finally {
      options.signal?.removeEventListener('abort', cancel);
      if (onProgress) run.listeners.delete(onProgress);
    }
  }

  /** Cancels the indexing run in progress, if any. True if there was one. */
  cancelIndexing(): boolean {
    if (!this.syncRun) return false;
    this.syncRun.abort.abort();
    return true;
  }

  /** Re-reads one file (relative to the root). */
  async reindexFile(relPath: string): Promise<UpdateOutcome> {
    return this.withBusyRetry(() => this.engine.updateFile(relPath));
  }

  async search(query: string, options: SearchOptionsInput): Promise<SearchResponse> {
    // Search brings stale result files up to date, which writes; if the writer is busy, answer
    // from what the index holds rather than wait or fail.
    try {
      return await this.engine.search(query, options);
    } catch (error) {
      if (!isBusy(error)) throw error;
      return this.engine.searchIndexed(query, options);
    }
  }

  /** Waits for the watcher's pending changes to be indexed (tests, and a reindex that must see the latest). */
  async settle(): Promise<void> {
    await this.watcher?.flush();
  }

  async status(): Promise<IndexStatus> {
    const stats = this.engine.stats();
    const holder = this.lease.holder();
    const lastSync = Number(this.engine.store.meta('lastSync'));
    const stale = await this.staleFiles();
    const local = this.syncRun?.progress;
    const remote = this.role === 'reader' ? holder?.progress : undefined;
    return {
      root: this.engine.root,
      dbFile: this.engine.store.dbFile,
      role: this.role,
      heldBy: holder ? { kind: holder.id === this.lease.id ? 'this server' : holder.kind, pid: holder.pid, since: new Date(holder.since).toISOString() } : null,
      files: stats.files,
      chunks: stats.chunks,
      lastSync: lastSync ? new Date(lastSync).toISOString() : null,
      lastUpdate: stats.lastIndexedAt ? new Date(stats.lastIndexedAt).toISOString() : null,
      staleFiles: stale,
      pendingChanges: this.watcher?.pendingCount ?? 0,
      watching: this.watcher !== undefined,
      indexing: local
        ? { by: 'this server', phase: local.phase, filesDone: local.filesDone, filesFound: local.filesFound }
        : remote
          ? { by: holder!.kind, ...remote }
          : null,
      notices: [...this.notices],
    };
  }

  private async staleFiles(): Promise<IndexStatus['staleFiles']> {
    const catalog = this.engine.store.catalog().slice(0, STALE_CHECK_LIMIT);
    const stale: string[] = [];
    const BATCH = 256;
    for (let i = 0; i < catalog.length; i += BATCH) {
      const slice = catalog.slice(i, i + BATCH);
      const checks = await Promise.all(
        slice.map(async (entry) => {
          const now = await stat(path.join(this.engine.root, entry.path)).catch(() => undefined);
          return !now || now.size !== entry.size || now.mtimeMs !== entry.mtimeMs;
        }),
      );
      slice.forEach((entry, j) => {
        if (checks[j]) stale.push(entry.path);
      });
    }
    return { count: stale.length, examples: stale.slice(0, STALE_EXAMPLES) };
  }

  /** Runs a write, retrying when another process holds the write lock past busy_timeout. */
  private async withBusyRetry<T>(write: () => T | Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await write();
      } catch (error) {
        if (!isBusy(error)) throw error;
        if (attempt >= BUSY_ATTEMPTS) {
          const holder = this.lease.holder();
          throw new BusyError(`The index is busy: ${holder ? describeHolder(holder) : 'another process'} is writing to it. Try again in a few seconds.`);
        }
      }
    }
  }

  async close(): Promise<void> {
    clearInterval(this.heartbeat);
    this.syncRun?.abort.abort();
    await this.syncRun?.promise.catch(() => undefined);
    await this.watcher?.close();
    try {
      this.lease.release();
    } catch (error) {
      this.log(`lease: ${describe(error)}`);
    }
    this.engine.close();
  }
}

/** Resolves a path an agent gave (absolute, or relative to the root) to one relative to the root, or undefined if outside it. */
export function relativeToRoot(root: string, given: string): string | undefined {
  const absolute = path.resolve(root, given);
  const relative = path.relative(root, absolute);
  if (relative.startsWith('..') || path.isAbsolute(relative)) return undefined;
  return relative.split(path.sep).join('/');
}

export function isDirectory(file: string): boolean {
  return fs.statSync(file, { throwIfNoEntry: false })?.isDirectory() ?? false;
}

function isBusy(error: unknown): boolean {
  const code = (error as { code?: unknown } | undefined)?.code;
  return code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED' || (typeof code === 'string' && code.startsWith('SQLITE_BUSY'));
}

function describeHolder(holder: LeaseHolder): string {
  const kind = holder.kind === 'vscode' ? 'the VS Code extension' : holder.kind === 'mcp' ? 'another fused-search MCP server' : holder.kind;
  return `${kind} (pid ${holder.pid})`;
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
