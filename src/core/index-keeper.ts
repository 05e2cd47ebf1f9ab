// One index as a long-lived process keeps it: an Engine, the process's role in the lease
// (index-lease.ts) and everything that role decides. The VS Code worker, the MCP server and the
// CLI all keep an index through this class, so the rules live once:
//
// - The owner (lease holder) syncs, applies file changes and refreshes stale result files; a
//   reader only reads, watches the holder's heartbeat, and becomes the owner when the holder lets
//   go. A role change is an event: each host decides what to start (the MCP server syncs and
//   watches the folder, the extension syncs on its own schedule).
// - One full sync at a time; later callers join it. File changes are applied in order, and a
//   search waits for the changes queued before it (a save followed by a search sees the save); a
//   full sync runs beside them and holds no search back.
// - A changed ignore file (any of them, .git/info/exclude included) reloads the rules and rescans.
// - SQLITE_BUSY (another process writing past busy_timeout) is retried, then reported in a
//   sentence that says who is writing.

import { rmSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { isIgnoreFile } from './crawl/ignore-rules.ts';
import { Engine, type EngineConfig } from './engine.ts';
import { HEARTBEAT_MS, IndexLease, describeHolder, type LeaseHolder } from './index-lease.ts';
import { type IndexProgress, type IndexSummary, type UpdateOutcome } from './indexer.ts';
import { resolveSearchOptions, type SearchOptionsInput } from './options.ts';
import { isBusy } from './store/database.ts';
import { quote, type IndexStats, type StoredChunk } from './store/store.ts';
import type { IndexingSoFar, SearchResponse, SearchResult } from './types.ts';
import type { EmbedOutcome, EmbedProgress, SemanticList } from './semantic/lane.ts';
import { errorMessage } from './error-message.ts';
import type { UserActivity } from './user-activity.ts';

export type KeeperRole = 'owner' | 'reader';

export type KeeperEvent =
  | { type: 'progress'; progress: IndexProgress }
  /** The semantic lane's embedding pass, which runs after indexing. */
  | { type: 'embedding'; progress: EmbedProgress }
  /** The index's content changed: files this keeper indexed (`paths`, when known), or a sync, or the holder's work seen by a reader. */
  | { type: 'changed'; paths?: string[] }
  /** This keeper took the lease (`owner`) or lost it to `holder` (`reader`). The role after `open` is in `role`. */
  | { type: 'role'; role: KeeperRole; holder?: LeaseHolder }
  /** Diagnostics, one line each. */
  | { type: 'log'; message: string };

export type KeeperConfig = EngineConfig & {
  /** What kind of process keeps the index, as other processes see it (`vscode`, `mcp`, `cli`). */
  kind: string;
  /** At most one keeper of this kind per process for this database (see LeaseOptions). */
  onePerProcess?: boolean;
  /** Lease heartbeat in milliseconds (HEARTBEAT_MS); tests shorten it. */
  heartbeatMs?: number;
  /** Wait before retrying a failed embedding pass, in milliseconds (EMBED_RETRY_FIRST_MS); doubles each time. Tests shorten it. */
  embedRetryMs?: number;
  /** The user's typing, shared by every keeper in the process: syncs and embedding passes rest between their batches while they type. */
  activity?: UserActivity;
};

export interface KeeperStats extends IndexStats {
  /** Set while another process keeps the index and this one only reads it: who, for people. */
  indexedBy?: string;
  /** The semantic lane, when a model is configured: which, how many chunks have its vector, and what went wrong lately. */
  semantic?: { model: string; embedded: number; problem?: string };
}

export interface KeeperStatus {
  root: string;
  dbFile: string;
  role: KeeperRole;
  heldBy: { kind: string; pid: number; since: string } | null;
  files: number;
  chunks: number;
  /** ISO time of the last completed full sync and of the newest file update, or null. */
  lastSync: string | null;
  lastUpdate: string | null;
  /** Indexed files that changed or vanished on disk since (new files are not counted: finding them takes a crawl). */
  staleFiles: { count: number; examples: string[] };
  /** Files kept out because they hold credentials (`indexSecretFiles` lets them in). */
  secretFiles: { count: number; examples: string[] };
  /** Indexing in progress, here or (published in the lease) by the holder; null when idle. */
  indexing: { by: string; phase: string; filesDone: number; filesFound: number } | null;
  notices: string[];
}

export interface SimilarAnswer {
  response: SearchResponse;
  /** The chunk the search started from, for a heading such as "similar to src/a.ts:12". */
  chunk: StoredChunk;
  /** The words searched for. */
  searched: string;
}

/** The index is being written by another process past every retry; the message names it. */
export class IndexBusyError extends Error {}

/** Asked of a keeper that only reads (rebuild); the message names who keeps the index. */
export class NotKeeperError extends Error {}

/** An embedding pass in progress; later callers join it. */
interface EmbedRun {
  promise: Promise<EmbedOutcome | undefined>;
  abort: AbortController;
  listeners: Set<(progress: EmbedProgress) => void>;
}

/** A sync as a host asks for it: a signal that stops it, its progress, the files to bring up to date before the crawl. */
interface SyncRequest {
  signal?: AbortSignal;
  onProgress?: (progress: IndexProgress) => void;
  firstPaths?: readonly string[];
}

/** A full sync in progress; later callers join it instead of starting another. */
interface SyncRun {
  promise: Promise<IndexSummary>;
  abort: AbortController;
  progress: IndexProgress | undefined;
  listeners: Set<(progress: IndexProgress) => void>;
  /** Set for a mass change's sync: only these files, no crawl. */
  paths?: readonly string[];
}

const BUSY_ATTEMPTS = 3;
const STALE_EXAMPLES = 10;
/** Stat this many catalog entries at most for the status; beyond it the count is a lower bound. */
const STALE_CHECK_LIMIT = 50_000;
/** Up to this many of a chunk's rarest words make the "find similar" query. */
const SIMILAR_TERMS = 8;
/** A word in this many chunks or more is not distinctive; counting stops there. */
const SIMILAR_MAX_CHUNKS = 1_000;
/**
 * A failed embedding pass (the model down, a refused key) is tried again after this long, then
 * after twice as long each time up to EMBED_RETRY_MAX_MS: a model started after the window opened
 * is found, one that stays broken is not asked every few seconds.
 */
const EMBED_RETRY_FIRST_MS = 30_000;
const EMBED_RETRY_MAX_MS = 15 * 60_000;
/**
 * A batch of file changes this big (a checkout, a rebase, a code generator) is applied as one sync
 * with the bulk writer rather than file by file, and searches do not wait for it: results from
 * files it has not reached yet are refreshed before they are shown.
 */
export const MASS_CHANGE_FILES = 200;
/** While a first index runs, hosts hear that the index grew at most this often, to show more results. */
const FIRST_INDEX_CHANGED_MS = 2_000;
/** How long the idle work (`workWhenIdle`) waits for searches in flight to finish, per look. */
const IDLE_POLL_MS = 50;
/**
 * The idle work also waits this long after the last search: the quick pick searches at every
 * keystroke, 60 ms after it, and a burst of them should not queue behind its slices one by one.
 */
const SEARCH_QUIET_MS = 250;
/**
 * But not for longer than this: searches that never pause that long (an agent's loop, steady
 * typing) would otherwise hold the merge and the vocabulary back for good. Past it, one slice
 * runs between two searches and the wait begins again.
 */
const MAX_QUIET_WAIT_MS = 10_000;
/** The longest the idle work tidies the index (forgets unused words, merges segments) before it lets searches and saves in. */
const TIDY_SLICE_MS = 40;

export class IndexKeeper {
  private engine: Engine;
  private lease: IndexLease;
  private readonly config: KeeperConfig;
  private currentRole: KeeperRole = 'reader';
  /** The other process last seen holding the lease. */
  private holderSeen: LeaseHolder | undefined;
  /** As a reader: the index's catalog version at the last heartbeat, to notice the holder's work. */
  private versionSeen: string | undefined;
  private readonly listeners = new Set<(event: KeeperEvent) => void>();
  private readonly heartbeat: NodeJS.Timeout;
  private syncRun: SyncRun | undefined;
  /** A sync to run after the one in progress: changes seen now may lie behind its crawl. */
  private nextSync: Promise<IndexSummary | null> | undefined;
  /** The files of mass changes that arrived while a sync ran, for the sync of them that follows it. */
  private readonly massPaths = new Set<string>();
  private massSync: Promise<IndexSummary | null> | undefined;
  private embedRun: EmbedRun | undefined;
  /** Chunks changed while a pass ran, maybe behind its cursor: run another after it. */
  private embedAgain = false;
  private embedRetry: { timer: NodeJS.Timeout; delayMs: number } | undefined;
  /** The tail of the queue of file changes. */
  private writes: Promise<unknown> = Promise.resolve();
  /** A rebuild deleting the database and opening a new one: what would use it meanwhile waits (`replaced`). */
  private replacing: Promise<void> | undefined;
  /** A host paused the work (`pause`): no sync or embedding starts by itself until a host asks for a sync. */
  private paused = false;
  /** The searches under way: the idle work waits for none to run, a rebuild for these to end. */
  private readonly searches = new Set<Promise<unknown>>();
  private lastSearchEnded = Number.NEGATIVE_INFINITY;
  /** Since when the idle work has waited for a quiet moment, to bound that wait. */
  private quietWaitSince: number | undefined;
  private idleTimer: NodeJS.Timeout | undefined;
  /** When the tidying in progress began taking idle time, for the log. */
  private tidyingSince: number | undefined;
  /** When the idle work began reading a new fuzzy vocabulary, which it does a slice at a time. */
  private vocabularySince: number | undefined;
  private closed = false;
  /** Things the user should hear about once, such as an index that was rebuilt. */
  readonly notices: string[] = [];

  private constructor(engine: Engine, config: KeeperConfig) {
    this.engine = engine;
    this.config = config;
    this.lease = this.newLease();
    this.notices.push(...engine.notices.splice(0));
    this.tick();
    this.heartbeat = setInterval(() => this.tick(), config.heartbeatMs ?? HEARTBEAT_MS);
    this.heartbeat.unref();
    // The first query with an unknown word would otherwise read the vocabulary (the stored word
    // lengths it reaches: up to 60 ms on the Linux tree); a host that stays open reads it all before anyone types.
    this.workWhenIdle();
  }

  /** Opens the index and claims the lease if it is free; `role` says which it got. */
  static async open(config: KeeperConfig): Promise<IndexKeeper> {
    return new IndexKeeper(await Engine.open(config), config);
  }

  get role(): KeeperRole {
    return this.currentRole;
  }

  get root(): string {
    return this.engine.root;
  }

  get dbFile(): string {
    return this.engine.dbFile;
  }

  /** The process that keeps the index while this one only reads it, for people; undefined as owner. */
  get keptBy(): string | undefined {
    return this.currentRole === 'reader' && this.holderSeen ? describeHolder(this.holderSeen) : undefined;
  }

  onEvent(listener: (event: KeeperEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Brings the whole index up to date (a crawl; only changed files are read), or joins the run in
   * progress, and lifts a pause. Aborting `signal` stops it; what was indexed so far stays. A reader
   * does nothing and resolves with null: the holder keeps the index.
   */
  async sync(options: SyncRequest = {}): Promise<IndexSummary | null> {
    // Asked for by a host: the work a pause held back starts again.
    this.paused = false;
    return this.syncOrJoin(options);
  }

  /**
   * Stops the sync and the embedding in progress, and starts neither by itself until a host asks
   * for a sync: file changes are still applied one by one, but a mass change, a changed ignore file
   * or a new folder waits for that sync, whose crawl finds them.
   */
  async pause(): Promise<void> {
    this.paused = true;
    await this.cancelSync();
    await this.cancelEmbedding();
  }

  /** `sync` as the keeper asks it of itself: a pause stays. */
  private async syncOrJoin(options: SyncRequest): Promise<IndexSummary | null> {
    // A mass change's sync looks at its own files only: a sync of the whole folder follows it. And
    // a rebuild replacing the database (it stops that sync) starts one on the new database.
    for (;;) {
      if (this.replacing) await this.replaced();
      else if (this.syncRun?.paths) await this.syncRun.promise.catch(() => undefined);
      else break;
    }
    if (this.currentRole !== 'owner' || this.closed) return null;
    const run = (this.syncRun ??= this.startSync(options.firstPaths));
    return joinRun(run, options);
  }

  /** A sync that sees the folder as it is now: the one in progress may have crawled past a change. */
  private async resync(): Promise<IndexSummary | null> {
    const running = this.syncRun;
    if (!running) return this.paused ? null : this.syncOrJoin({});
    return (this.nextSync ??= running.promise
      .catch(() => undefined)
      .then(() => {
        this.nextSync = undefined;
        // A sync stopped on purpose (pause, close) is not started again behind the user's back.
        return running.abort.signal.aborted || this.paused ? null : this.syncOrJoin({});
      }));
  }

  /**
   * A mass change: its files synced with the bulk writer but without a crawl of the folder, after
   * the sync in progress (which may have read some of them before they changed). Mass changes that
   * arrive meanwhile join the one waiting. A sync stopped on purpose (pause, close) is not followed
   * by one behind the user's back: the next sync of the folder finds the changes.
   */
  private syncPaths(paths: readonly string[]): Promise<IndexSummary | null> {
    for (const relPath of paths) this.massPaths.add(relPath);
    return (this.massSync ??= this.afterSyncsInProgress().then(async (stopped) => {
      await this.replaced();
      this.massSync = undefined;
      const wanted = [...this.massPaths];
      this.massPaths.clear();
      if (stopped || this.paused || this.currentRole !== 'owner' || this.closed) return null;
      this.syncRun = this.startSync([], wanted);
      return this.syncRun.promise;
    }));
  }

  /** Resolves once no sync runs; true if one of them was stopped on purpose. */
  private async afterSyncsInProgress(): Promise<boolean> {
    let stopped = false;
    for (let run = this.syncRun; run; run = this.syncRun) {
      await run.promise.catch(() => undefined);
      stopped ||= run.abort.signal.aborted;
    }
    return stopped;
  }

  /**
   * Embeds the chunks that have no vector of the configured model yet, or joins the pass in
   * progress (the keeper starts one after every sync and batch of changes). Aborting `signal`
   * stops it after the batch in flight. Undefined for a reader, or with no model configured.
   */
  async embed(options: { signal?: AbortSignal; onProgress?: (progress: EmbedProgress) => void } = {}): Promise<EmbedOutcome | undefined> {
    await this.replaced();
    if (this.currentRole !== 'owner' || this.closed) return undefined;
    const run = this.embedRun ?? this.startEmbedding();
    if (!run) return undefined;
    return joinRun(run, options);
  }

  /** Stops the sync in progress, if any, and waits for it to wind down. True if there was one. */
  async cancelSync(): Promise<boolean> {
    const run = this.syncRun;
    if (!run) return false;
    run.abort.abort();
    await run.promise.catch(() => undefined);
    return true;
  }

  /**
   * Applies file changes a watcher or a save reported (paths relative to the root, `/`-separated),
   * in order after those queued before. A changed ignore file reloads the rules; it, a new folder or
   * `rescan` (the watcher lost events) then runs a sync. A vanished folder drops what was under it.
   * One file that fails is reported and skipped. Resolves with the paths whose index entry changed;
   * a reader changes nothing (the holder watches the folder). A mass change (MASS_CHANGE_FILES or
   * more) is one sync instead, which searches do not wait for, and resolves with no paths.
   */
  async applyChanges(paths: readonly string[], options: { rescan?: boolean } = {}): Promise<string[]> {
    if (this.currentRole !== 'owner') return [];
    if (paths.length >= MASS_CHANGE_FILES) {
      await this.replaced();
      // New ignore rules may change what the whole folder holds, and a first index not finished
      // needs the crawl anyway.
      const rulesChanged = paths.some(isIgnoreFile);
      if (rulesChanged) this.engine.reloadRules();
      if (this.paused) {
        this.emit({ type: 'log', message: `${paths.length} files changed at once: left for the next sync, as indexing is paused` });
        return [];
      }
      this.emit({ type: 'log', message: `${paths.length} files changed at once: syncing them as one batch` });
      await (rulesChanged || this.engine.lastSync() === undefined ? this.resync() : this.syncPaths(paths));
      return [];
    }
    let rescan = options.rescan ?? false;
    const changed = await this.enqueue(async () => {
      const changedPaths: string[] = [];
      for (const relPath of paths) {
        if (isIgnoreFile(relPath)) {
          this.engine.reloadRules();
          rescan = true;
        }
        try {
          const info = await stat(path.join(this.engine.root, relPath)).catch(() => undefined);
          if (info?.isDirectory()) {
            // A folder appeared (moved in, checked out): its files need a crawl.
            rescan = true;
          } else if (!info && !this.engine.indexes(relPath)) {
            const removed = await this.withBusyRetry(() => this.engine.removeFolder(relPath));
            changedPaths.push(...removed);
          } else {
            const outcome = await this.withBusyRetry(() => this.engine.updateFile(relPath));
            if (changesIndex(outcome)) changedPaths.push(relPath);
          }
        } catch (error) {
          this.emit({ type: 'log', message: `could not index ${relPath}: ${errorMessage(error)}` });
        }
      }
      return changedPaths;
    });
    if (changed.length > 0) {
      this.emit({ type: 'changed', paths: changed });
      this.embedInBackground();
      this.workWhenIdle();
    }
    if (rescan) await this.resync();
    return changed;
  }

  /** Re-reads one file (relative to the root), after the changes queued before it; owner only. */
  async reindexFile(relPath: string): Promise<UpdateOutcome> {
    if (this.currentRole !== 'owner')
      throw new NotKeeperError(`The index is kept by ${this.keptBy ?? 'another process'}, which re-indexes changed files itself.`);
    const outcome = await this.enqueue(() => this.withBusyRetry(() => this.engine.updateFile(relPath)));
    if (changesIndex(outcome)) {
      this.emit({ type: 'changed', paths: [relPath] });
      this.embedInBackground();
      this.workWhenIdle();
    }
    return outcome;
  }

  /**
   * Searches after the file changes queued so far. The owner also checks the files behind the
   * results and refreshes stale ones first (Engine.search); a reader answers from the index as the
   * holder keeps it, since writing would race the holder.
   */
  async search(query: string, options?: SearchOptionsInput, semantic?: SemanticList): Promise<SearchResponse> {
    await this.writes.catch(() => undefined);
    await this.replaced();
    // Engine.search answers without the files it could not refresh when the disk is full or
    // another process holds the write lock.
    const answering = this.engine.search(query, options, { refreshStale: this.currentRole === 'owner', ...(semantic ? { semantic } : {}) });
    this.searches.add(answering);
    try {
      const response = await answering;
      const partial = this.firstIndexSoFar();
      return partial ? { ...response, partial } : response;
    } finally {
      this.searches.delete(answering);
      this.lastSearchEnded = performance.now();
    }
  }

  /**
   * Reads the index's vectors into memory, when the semantic lane is on: a host starts it at open
   * so that no search waits for it (searches meanwhile say the lane is loading), a one-shot search
   * waits for it.
   */
  prepareVectors(): Promise<void> {
    return this.engine.prepareVectors();
  }

  /**
   * What a long-running host starts at open without waiting for it, a turn later so the open
   * itself returns first: the pages, vocabulary and code a first search needs (Engine.warmUpSteps,
   * one per turn, so a search asked meanwhile waits for one step at most), then the vectors.
   */
  async prepareForSearches(): Promise<void> {
    const engine = this.engine;
    for (const step of engine.warmUpSteps()) {
      await new Promise((resolve) => setImmediate(resolve));
      if (this.closed || this.engine !== engine) return;
      step();
    }
    await engine.prepareVectors();
  }

  /** Set while the index has never been complete: how far its first index has got, here or at the holder. */
  private firstIndexSoFar(): IndexingSoFar | undefined {
    if (this.engine.lastSync() !== undefined) return undefined;
    const progress = this.currentRole === 'owner' ? this.syncRun?.progress : this.lease.holder()?.progress;
    return progress?.phase === 'indexing' ? { filesDone: progress.filesDone, filesFound: progress.filesFound } : {};
  }

  /**
   * Searches with one chunk's most distinctive words, and, when it has a vector, with the chunks
   * nearest it by meaning as the semantic list; the chunk itself is left out. Undefined if it is gone.
   */
  async similar(chunkId: number, options: SearchOptionsInput = {}): Promise<SimilarAnswer | undefined> {
    const chunk = this.engine.chunk(chunkId);
    if (!chunk) return undefined;
    const words = new Set((chunk.title + ' ' + chunk.text).toLowerCase().match(/[a-z][a-z0-9_]{2,}/g) ?? []);
    // Distinctive: held by few chunks besides this one, but by more than this one alone.
    const scored = [...words]
      .map((word) => ({ word, chunks: this.engine.chunksMatching(quote(word), SIMILAR_MAX_CHUNKS) }))
      .filter(({ chunks }) => chunks > 1 && chunks < SIMILAR_MAX_CHUNKS)
      .sort((a, b) => a.chunks - b.chunks || a.word.localeCompare(b.word))
      .slice(0, SIMILAR_TERMS);
    const searched = scored.map(({ word }) => word).join(' ') || chunk.title;
    const widened = { ...options, ...(options.limit !== undefined ? { limit: options.limit + 1 } : {}) };
    // The chunks nearest this one are what was asked for, whether or not one stands out.
    const byMeaning = this.engine.similarByMeaning(chunkId, widened);
    const response = await this.search(searched, { ...widened, semanticStandout: 0 }, byMeaning);
    const results = response.results.filter((result) => result.chunkId !== chunkId);
    return { response: { ...response, results: options.limit !== undefined ? results.slice(0, options.limit) : results }, chunk, searched };
  }

  chunk(id: number): StoredChunk | undefined {
    return this.engine.chunk(id);
  }

  /** The query's words this index holds as typed (Engine.piecesHeld). */
  piecesHeld(query: string): string[] {
    return this.engine.piecesHeld(query);
  }

  chunksOfFile(relPath: string): StoredChunk[] {
    return this.engine.chunksOfFile(relPath);
  }

  /** Indexed paths by file name, for the names given (Engine.filesNamed). */
  filesNamed(names: ReadonlySet<string>): Map<string, string[]> {
    return this.engine.filesNamed(names);
  }

  /** The best chunks for a Porter MATCH expression built from quoted phrases (Engine.matchChunks). */
  matchChunks(expression: string, limit: number): StoredChunk[] {
    return this.engine.matchChunks(expression, limit);
  }

  /** How many chunks the index holds (cheap; no table scan). */
  get chunkCount(): number {
    return this.engine.chunkCount;
  }

  /** How many chunks the Porter index finds for an FTS5 expression, counting up to `cap`. */
  chunksMatching(expression: string, cap: number): number {
    return this.engine.chunksMatching(expression, cap);
  }

  /** Whether the index's rules let it hold this file (relative to the root). */
  isIndexable(relPath: string): Promise<boolean> {
    return this.engine.isIndexable(relPath);
  }

  stats(): KeeperStats {
    const keptBy = this.keptBy;
    const semantic = this.engine.semanticStatus();
    return { ...this.engine.stats(), ...(keptBy ? { indexedBy: keptBy } : {}), ...(semantic ? { semantic } : {}) };
  }

  /** What an agent or a person asks when wondering how current the index is. */
  async status(): Promise<KeeperStatus> {
    const stats = this.engine.stats();
    const holder = this.lease.holder();
    const lastSync = this.engine.lastSync();
    const local = this.syncRun?.progress;
    const remote = this.currentRole === 'reader' ? holder?.progress : undefined;
    return {
      root: this.engine.root,
      dbFile: this.engine.dbFile,
      role: this.currentRole,
      heldBy: holder
        ? { kind: holder.id === this.lease.id ? 'this process' : holder.kind, pid: holder.pid, since: new Date(holder.since).toISOString() }
        : null,
      files: stats.files,
      chunks: stats.chunks,
      lastSync: lastSync ? new Date(lastSync).toISOString() : null,
      lastUpdate: stats.lastIndexedAt ? new Date(stats.lastIndexedAt).toISOString() : null,
      staleFiles: await this.staleFiles(),
      secretFiles: stats.secretFiles,
      indexing: local
        ? { by: 'this process', phase: local.phase, filesDone: local.filesDone, filesFound: local.filesFound }
        : remote && holder
          ? { by: describeHolder(holder), ...remote }
          : null,
      notices: [...this.notices],
    };
  }

  /**
   * Builds the fuzzy vocabulary now if the next correction would have to (see
   * Engine.prepareVocabulary). A sync schedules this for when no search runs; the CLI calls it
   * after indexing so the index stores it for the next process.
   */
  prepareVocabulary(): boolean {
    return this.engine.prepareVocabulary();
  }

  /**
   * Whether what a big sync or many saves left to tidy — unused words to forget, segments to
   * merge — is still being done while idle (see `workWhenIdle`).
   */
  get tidying(): boolean {
    return this.engine.forgetting || this.engine.merging;
  }

  /**
   * Tidies now, in one go, what the last sync left: for the CLI, whose `index` command ends with
   * the index as a long-running host leaves it.
   */
  tidyNow(): void {
    while (this.tidyStep());
  }

  /**
   * One step of the tidying a sync or the saves left: forgetting unused words first, then the
   * merge, which compacts their deletion too.
   */
  private tidyStep(): boolean {
    if (this.engine.forgetUnusedWords()) return true;
    this.engine.beginMergeIfFragmented();
    return this.engine.mergeSegments();
  }

  /** Deletes the database and indexes the folder from scratch. Only the owner may: the holder would go on writing to a file no one reads. */
  async rebuild(): Promise<IndexSummary | null> {
    if (this.currentRole !== 'owner') throw new NotKeeperError(`The index is kept by ${this.keptBy ?? 'another process'}; rebuild it there.`);
    // Asked for, a rebuild lifts a pause, as a sync does.
    this.paused = false;
    this.replacing ??= this.replaceDatabase().finally(() => (this.replacing = undefined));
    await this.replacing;
    // Paused while the database was replaced: the rebuild stops as a sync would, before it starts.
    return this.paused ? this.syncOrJoin({ signal: AbortSignal.abort() }) : this.sync();
  }

  /**
   * Stops the work on the database, deletes it and opens a new one. Syncs, file changes and searches
   * asked for meanwhile wait for the new one; those already under way are stopped or finish first.
   */
  private async replaceDatabase(): Promise<void> {
    // Writes queued from now on wait for the new database (`enqueue`): only these go to the old one.
    const writes = this.writes;
    const searches = [...this.searches];
    await this.cancelSync();
    await this.cancelEmbedding();
    await writes.catch(() => undefined);
    // Searches asked for from now on wait for the new database (`search`): these read the old one.
    await Promise.allSettled(searches);
    this.releaseLease();
    const { root, dbFile } = this.engine;
    this.engine.close();
    for (const suffix of ['', '-wal', '-shm']) rmSync(dbFile + suffix, { force: true });
    // By root as well: the new database does not know yet which folder it indexes.
    this.engine = await Engine.open({ ...this.config, root, dbFile });
    this.notices.push(...this.engine.notices.splice(0));
    this.lease = this.newLease();
    this.currentRole = 'reader';
    this.tick();
  }

  /** Resolves once no rebuild is replacing the database: at once, unless one is. */
  private async replaced(): Promise<void> {
    while (this.replacing) await this.replacing.catch(() => undefined);
  }

  /** Stops syncing, waits for queued changes, gives the lease up and closes the database. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.heartbeat);
    clearTimeout(this.idleTimer);
    this.stopRetryingEmbedding();
    // A rebuild under way opens a new database: that is the one to close.
    await this.replaced();
    await this.cancelSync();
    await this.cancelEmbedding();
    await this.writes.catch(() => undefined);
    this.releaseLease();
    this.engine.close();
  }

  private newLease(): IndexLease {
    return this.engine.lease({ kind: this.config.kind, ...(this.config.onePerProcess ? { onePerProcess: true } : {}) });
  }

  private releaseLease(): void {
    try {
      this.lease.release();
    } catch (error) {
      this.emit({ type: 'log', message: `could not release the index lease: ${errorMessage(error)}` });
    }
  }

  /** One heartbeat: renew the lease as owner, or try to take it over as reader. */
  private tick(): void {
    if (this.closed) return;
    if (this.currentRole === 'owner') {
      // A rebuild takes the lease again on the new database: the old one is closed.
      if (this.replacing) return;
      // In its write turn: renewing is a write, and a sync's batch may be being written on another thread.
      this.engine.inWriteTurn(() => this.renewLease()).catch((error: unknown) => this.heartbeatFailed(error));
      return;
    }
    try {
      const claim = this.lease.tryAcquire();
      if (claim.acquired) {
        this.currentRole = 'owner';
        this.holderSeen = undefined;
        this.versionSeen = undefined;
        this.emit({ type: 'log', message: 'holding the index lease' });
        this.emit({ type: 'role', role: 'owner' });
        return;
      }
      if (this.holderSeen?.id !== claim.holder.id) this.becomeReader(claim.holder);
      // What the holder indexes reaches this process within a heartbeat.
      const version = this.engine.catalogVersion();
      if (this.versionSeen !== undefined && version !== this.versionSeen) this.emit({ type: 'changed' });
      this.versionSeen = version;
    } catch (error) {
      this.heartbeatFailed(error);
    }
  }

  /** A busy database (another writer) at heartbeat time is retried at the next one. */
  private heartbeatFailed(error: unknown): void {
    this.emit({ type: 'log', message: `lease heartbeat failed: ${errorMessage(error)}` });
  }

  private renewLease(): void {
    if (this.closed || this.currentRole !== 'owner') return;
    const p = this.syncRun?.progress;
    if (this.lease.renew(p ? { phase: p.phase, filesFound: p.filesFound, filesDone: p.filesDone } : undefined)) return;
    // Our heartbeat was late enough for another process to take over: it indexes from now on.
    this.syncRun?.abort.abort();
    this.embedRun?.abort.abort();
    this.becomeReader(this.lease.holder());
  }

  private becomeReader(holder: LeaseHolder | undefined): void {
    const wasOwner = this.currentRole === 'owner';
    this.currentRole = 'reader';
    this.holderSeen = holder;
    const who = holder ? describeHolder(holder) : 'another process';
    this.emit({
      type: 'log',
      message: wasOwner
        ? `${who} took over the index lease; reading the index it keeps`
        : `the index lease is held by ${who}; reading the index it keeps, taking the lease over when it is free`,
    });
    this.emit({ type: 'role', role: 'reader', ...(holder ? { holder } : {}) });
  }

  private startSync(firstPaths: readonly string[] = [], paths?: readonly string[]): SyncRun {
    const run: SyncRun = {
      abort: new AbortController(),
      progress: undefined,
      listeners: new Set(),
      promise: Promise.resolve(undefined as never),
      ...(paths ? { paths } : {}),
    };
    // A first index answers with what it has so far: hosts hear every little while that there is more.
    const first = this.engine.lastSync() === undefined;
    let lastChanged = performance.now();
    run.promise = this.withBusyRetry(() =>
      this.engine.sync({
        signal: run.abort.signal,
        firstPaths,
        ...(paths ? { paths } : {}),
        ...(this.config.activity ? { activity: this.config.activity } : {}),
        onProgress: (progress) => {
          run.progress = progress;
          this.emit({ type: 'progress', progress });
          for (const listener of run.listeners) listener(progress);
          if (first && progress.phase === 'indexing' && performance.now() - lastChanged >= FIRST_INDEX_CHANGED_MS) {
            lastChanged = performance.now();
            this.emit({ type: 'changed' });
          }
        },
      }),
    ).finally(() => {
      if (this.syncRun === run) this.syncRun = undefined;
      if (this.closed) return;
      this.emit({ type: 'changed' });
      this.workWhenIdle();
      this.embedInBackground();
    });
    return run;
  }

  private startEmbedding(): EmbedRun | undefined {
    const run: EmbedRun = { abort: new AbortController(), listeners: new Set(), promise: Promise.resolve(undefined) };
    const pass = this.engine.embedPending({
      signal: run.abort.signal,
      ...(this.config.activity ? { activity: this.config.activity } : {}),
      onProgress: (progress) => {
        this.emit({ type: 'embedding', progress });
        for (const listener of run.listeners) listener(progress);
      },
    });
    if (!pass) return undefined;
    run.promise = pass
      .then(
        (outcome) => {
          if (outcome.failed) this.retryEmbeddingLater(outcome.failed);
          else if (!run.abort.signal.aborted) this.stopRetryingEmbedding();
          if (outcome.embedded > 0) this.emit({ type: 'changed' });
          return outcome;
        },
        (error: unknown) => {
          this.emit({ type: 'log', message: `embedding failed: ${errorMessage(error)}` });
          return undefined;
        },
      )
      .finally(() => {
        if (this.embedRun === run) this.embedRun = undefined;
      });
    this.embedRun = run;
    void run.promise.then((outcome) => {
      // A failing model is not asked again at once: its retry is scheduled.
      if (this.embedAgain && outcome && !outcome.failed) {
        this.embedAgain = false;
        this.embedInBackground();
      }
    });
    return run;
  }

  private retryEmbeddingLater(failure: string): void {
    const delayMs = this.embedRetry ? Math.min(EMBED_RETRY_MAX_MS, this.embedRetry.delayMs * 2) : (this.config.embedRetryMs ?? EMBED_RETRY_FIRST_MS);
    this.stopRetryingEmbedding();
    this.emit({ type: 'log', message: `embedding stopped (${failure}); trying again in ${Math.round(delayMs / 1000)} s` });
    const timer = setTimeout(() => this.embedInBackground(), delayMs);
    timer.unref();
    this.embedRetry = { timer, delayMs };
  }

  private stopRetryingEmbedding(): void {
    clearTimeout(this.embedRetry?.timer);
    this.embedRetry = undefined;
  }

  /** Starts an embedding pass after indexing, or asks the running one to be followed by another. */
  private embedInBackground(): void {
    if (this.paused) return;
    if (this.embedRun) {
      this.embedAgain = true;
      return;
    }
    void this.embed();
  }

  /** Stops the embedding pass in progress, if any; the next sync or change starts another where it stopped. */
  async cancelEmbedding(): Promise<void> {
    const run = this.embedRun;
    if (!run) return;
    run.abort.abort();
    await run.promise.catch(() => undefined);
  }

  /**
   * At open and after a sync, does while no search runs, nor ran in the last SEARCH_QUIET_MS (or
   * between two searches, once it has waited MAX_QUIET_WAIT_MS for that), what would otherwise
   * slow the next ones: builds the fuzzy vocabulary, which the first query with an unknown word (a
   * typo, or a word just saved) would pay for — 190 ms of a 220 ms save → searchable on npm's
   * tree, seconds on the Linux tree; then, as owner, tidies what a big sync or many saves left
   * (`tidyStep`: forgets the words no chunk holds any more, merges segments). Both in slices of at
   * most TIDY_SLICE_MS (a step may run past it) so that a search or a save waits for little.
   */
  private workWhenIdle(delayMs = IDLE_POLL_MS): void {
    clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => {
      if (this.closed || this.syncRun || this.replacing) {
        this.quietWaitSince = undefined;
        return;
      }
      const started = performance.now();
      const waited = started - (this.quietWaitSince ??= started);
      if (this.searches.size > 0) return this.workWhenIdle();
      if (started - this.lastSearchEnded < SEARCH_QUIET_MS && waited < MAX_QUIET_WAIT_MS) return this.workWhenIdle();
      this.quietWaitSince = undefined;
      try {
        let vocabulary = this.engine.prepareVocabularyStep();
        while (vocabulary === 'reading' && performance.now() - started < TIDY_SLICE_MS) vocabulary = this.engine.prepareVocabularyStep();
        if (vocabulary === 'reading') {
          this.vocabularySince ??= started;
          return this.workWhenIdle(0);
        }
        if (vocabulary === 'built') {
          this.emit({ type: 'log', message: `fuzzy vocabulary ready in ${(performance.now() - (this.vocabularySince ?? started)).toFixed(0)} ms` });
        }
        this.vocabularySince = undefined;
        if (this.currentRole !== 'owner') return;
        let more = true;
        while (more && performance.now() - started < TIDY_SLICE_MS) more = this.tidyStep();
        if (more) {
          this.tidyingSince ??= started;
          return this.workWhenIdle(0);
        }
        if (this.tidyingSince !== undefined) {
          this.emit({
            type: 'log',
            message: `index tidied (unused words forgotten, segments merged) in ${((performance.now() - this.tidyingSince) / 1000).toFixed(1)} s`,
          });
          this.tidyingSince = undefined;
        }
      } catch (error) {
        // Another process writing (busy) ends this turn; the pass goes on after the next sync.
        this.emit({ type: 'log', message: `could not finish the idle work on the index: ${errorMessage(error)}` });
      }
    }, delayMs);
    this.idleTimer.unref();
  }

  private enqueue<T>(work: () => Promise<T>): Promise<T> {
    // Queued while a rebuild replaces the database, a write goes to the new one.
    const next = Promise.all([this.writes.catch(() => undefined), this.replacing?.catch(() => undefined)]).then(work);
    this.writes = next;
    return next;
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
          throw new IndexBusyError(`The index is busy: ${holder ? describeHolder(holder) : 'another process'} is writing to it. Try again in a few seconds.`);
        }
      }
    }
  }

  private async staleFiles(): Promise<KeeperStatus['staleFiles']> {
    const catalog = this.engine.catalog().slice(0, STALE_CHECK_LIMIT);
    const stale: string[] = [];
    const BATCH = 256;
    for (let i = 0; i < catalog.length; i += BATCH) {
      const slice = catalog.slice(i, i + BATCH);
      const checks = await Promise.all(slice.map((entry) => this.engine.changedOnDisk(entry)));
      slice.forEach((entry, j) => {
        if (checks[j]) stale.push(entry.path);
      });
    }
    return { count: stale.length, examples: stale.slice(0, STALE_EXAMPLES) };
  }

  private emit(event: KeeperEvent): void {
    for (const listener of this.listeners) listener(event);
  }
}

/** One folder's part in a search over several. */
export interface KeptFolder<T> {
  keeper: IndexKeeper;
  /** Whatever the host needs back with each result (the folder's id and name). */
  folder: T;
}

export interface MergedSearch<T> {
  results: Array<{ result: SearchResult; folder: T }>;
  /** Results skipped before these, as SearchResponse's. */
  offset: number;
  /** Each typo once; folders that corrected it to different words name theirs joined by `/` (`expiry/expire`). */
  corrections: Array<[string, string]>;
  /** Query words no folder holds (SearchResponse's): a word one folder holds is not missing from the answer. */
  unmatched: string[];
  /** The semantic lane, when a folder has one: a folder's reason for skipping it wins, so it is never hidden. */
  semantic?: SearchResponse['semantic'];
  /** Set when a folder's first index is not finished: the folders' counts added up, when every such folder knows its own. */
  partial?: IndexingSoFar;
  candidates: number;
  elapsedMs: number;
}

/**
 * Searches several folders' indexes and merges the results by score, cut to the page `options`
 * asks for (`offset`, `limit`).
 * Scores of different folders come from the same formula over similar lists, close enough to
 * merge. `stillWanted` is asked between folders so that a superseded query stops early.
 */
export async function searchFolders<T>(
  folders: readonly KeptFolder<T>[],
  query: string,
  options: SearchOptionsInput,
  stillWanted: () => boolean = () => true,
): Promise<MergedSearch<T> | undefined> {
  const page = resolveSearchOptions(options);
  // Of several folders, each gives all its results down to the page's last, ranked in the window a
  // page of this size has (as one folder's later page is), and the page is cut from their merge.
  const asked =
    folders.length > 1
      ? { ...options, offset: 0, limit: page.offset + page.limit, rerankWindow: page.rerankWindow, candidateDepth: page.candidateDepth }
      : options;
  const merged: MergedSearch<T> = { results: [], offset: page.offset, corrections: [], unmatched: [], candidates: 0, elapsedMs: 0 };
  const answers: SearchResponse[] = [];
  for (const { keeper } of folders) {
    if (!stillWanted()) return undefined;
    answers.push(await keeper.search(query, asked));
  }
  // A word one folder holds is no typo in another that lacks it: corrected there (`expiry`, which
  // only the notes hold, becoming `export` in the code), it would add chunks that hold nothing
  // asked for and name a correction the answer did not make. Such a folder searches again,
  // leaving the word as typed; the question is asked only when some folder corrected a word.
  const corrected = new Set(answers.flatMap((answer) => answer.corrections.map(([typed]) => typed)));
  if (corrected.size > 0 && folders.length > 1) {
    const held = new Set(folders.flatMap(({ keeper }) => keeper.piecesHeld(query)).filter((piece) => corrected.has(piece)));
    for (const [i, { keeper }] of folders.entries()) {
      if (!answers[i]!.corrections.some(([typed]) => held.has(typed))) continue;
      if (!stillWanted()) return undefined;
      const again = await keeper.search(query, { ...asked, wordsHeldElsewhere: [...held] });
      answers[i] = { ...again, elapsedMs: answers[i]!.elapsedMs + again.elapsedMs };
    }
  }
  for (const [i, { folder }] of folders.entries()) {
    const answer = answers[i]!;
    merged.elapsedMs += answer.elapsedMs;
    merged.candidates += answer.candidates;
    for (const result of answer.results) merged.results.push({ result, folder });
    // Folders that corrected one typo to different words each searched for their own: all are named.
    for (const [typed, fixed] of answer.corrections) {
      const named = merged.corrections.find(([word]) => word === typed);
      if (!named) merged.corrections.push([typed, fixed]);
      else if (!named[1].split('/').includes(fixed)) named[1] += `/${fixed}`;
    }
    if (answer.semantic && (!merged.semantic || (answer.semantic.skipped && !merged.semantic.skipped))) merged.semantic = answer.semantic;
    if (answer.partial) merged.partial = addProgress(merged.partial, answer.partial);
  }
  merged.unmatched = answers[0]?.unmatched.filter((word) => answers.every((answer) => answer.unmatched.includes(word))) ?? [];
  if (folders.length > 1) {
    merged.results.sort((a, b) => b.result.score - a.result.score);
    merged.results = merged.results.slice(page.offset, page.offset + page.limit);
  }
  return merged;
}

/**
 * Waits for a run that later callers join rather than start another (a sync, an embedding pass):
 * `signal` aborts the run itself, and `onProgress` hears its progress while this caller waits.
 */
async function joinRun<P, R>(
  run: { promise: Promise<R>; abort: AbortController; listeners: Set<(progress: P) => void> },
  options: { signal?: AbortSignal; onProgress?: (progress: P) => void },
): Promise<R> {
  const { onProgress, signal } = options;
  if (onProgress) run.listeners.add(onProgress);
  const cancel = () => run.abort.abort();
  if (signal?.aborted) cancel();
  signal?.addEventListener('abort', cancel, { once: true });
  try {
    return await run.promise;
  } finally {
    signal?.removeEventListener('abort', cancel);
    if (onProgress) run.listeners.delete(onProgress);
  }
}

function addProgress(sum: IndexingSoFar | undefined, more: IndexingSoFar): IndexingSoFar {
  if (!sum) return more;
  if (sum.filesDone === undefined || sum.filesFound === undefined || more.filesDone === undefined || more.filesFound === undefined) return {};
  return { filesDone: sum.filesDone + more.filesDone, filesFound: sum.filesFound + more.filesFound };
}

/** Whether re-reading a file changed what the index holds for it. */
function changesIndex(outcome: UpdateOutcome): boolean {
  return outcome !== 'unchanged' && outcome !== 'ignored';
}
