// The engine's home: a worker_thread that owns every database, so that a long sync or a slow query
// never blocks the extension host. One Engine per workspace folder. Speaks only protocol.ts.
//
// Ordering: per folder, file updates run one after another, and a search waits for the updates
// already queued for its folders (a save followed by a search sees the saved text). A full sync runs
// beside them and does not hold searches back.
//
// The worker holds each folder's index lease (src/core/index-lease.ts, kind `vscode`) while the
// folder is open: an MCP server started on the same database (the extension offers one) then only
// reads. If another process holds the lease already — another window on the same folder, or an MCP
// server, both of which keep the index fresh — the worker only reads that folder's index: it does
// not sync, update or rebuild it, and its stats name the holder. It takes the lease over when the
// holder lets go (closes the folder, dies, or misses heartbeats for LEASE_TTL_MS) and tells the
// extension (`leaseTaken`), which syncs the folder to catch up.

import { rmSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { parentPort } from 'node:worker_threads';
import { formatForAgent } from '../core/agent-output.ts';
import { Engine } from '../core/engine.ts';
import { HEARTBEAT_MS, IndexLease, type LeaseHolder } from '../core/index-lease.ts';
import type { IndexProgress, IndexSummary } from '../core/indexer.ts';
import type { SearchOptionsInput } from '../core/options.ts';
import { quote } from '../core/search/terms.ts';
import type { SearchResult } from '../core/types.ts';
import {
  isToWorker, type FolderId, type FolderResult, type FolderSpec, type FromWorker, type Request, type ResponseValues,
  type SearchAnswer, type WorkerEvent,
} from './protocol.ts';

const port = parentPort;
if (!port) throw new Error('worker.ts runs inside a worker_thread');

interface Folder {
  spec: FolderSpec;
  engine: Engine;
  sync?: { controller: AbortController; done: Promise<IndexSummary>; progress?: IndexProgress };
  lease: IndexLease;
  /** Whether this worker holds the lease right now; if not, it only reads this folder's index. */
  leaseHeld: boolean;
  /** The other process last seen holding the lease. */
  heldBy?: LeaseHolder;
  /** While reading: the index's catalog version at the last heartbeat. */
  seen?: string;
  /** The tail of this folder's queue of file updates. */
  writes: Promise<void>;
}

const folders = new Map<FolderId, Folder>();
const cancelled = new Set<number>();
/** Searches supersede each other: only the newest one still in the queue is worth running. */
let newestSearch = 0;

class RequestError extends Error {
  readonly code: 'cancelled' | 'unknown-folder' | 'bad-request';
  constructor(code: RequestError['code'], message: string) {
    super(message);
    this.code = code;
  }
}

function post(message: FromWorker): void {
  port!.postMessage(message);
}

function emit(event: WorkerEvent): void {
  post(event);
}

function folder(id: FolderId): Folder {
  const found = folders.get(id);
  if (!found) throw new RequestError('unknown-folder', `no open index for ${id}`);
  return found;
}

function sameSpec(a: FolderSpec, b: FolderSpec): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

async function closeFolder(entry: Folder): Promise<void> {
  entry.sync?.controller.abort();
  await entry.sync?.done.catch(() => undefined);
  await entry.writes;
  folders.delete(entry.spec.id);
  try {
    entry.lease.release();
  } catch (error) {
    emit({ type: 'log', message: `${entry.spec.name}: could not release the index lease: ${String(error)}` });
  }
  entry.engine.close();
}

function describeHolder(holder: LeaseHolder): string {
  return `${holder.kind} (pid ${holder.pid} on ${holder.host})`;
}

/**
 * Claims (or renews) a folder's lease; says so in the log whenever who holds it changes. Returns
 * whether this call claimed a lease the worker did not hold.
 */
function heartbeat(entry: Folder): boolean {
  const name = entry.spec.name;
  try {
    if (entry.leaseHeld) {
      const p = entry.sync?.progress;
      entry.leaseHeld = entry.lease.renew(p ? { phase: p.phase, filesFound: p.filesFound, filesDone: p.filesDone } : undefined);
      if (!entry.leaseHeld) {
        // Our heartbeat was late enough for another process to take over: it indexes from now on.
        entry.sync?.controller.abort();
        entry.heldBy = entry.lease.holder();
        emit({ type: 'log', message: `${name}: ${entry.heldBy ? describeHolder(entry.heldBy) : 'another process'} took over the index lease; reading the index it keeps` });
        // The extension re-reads the stats, which now name the holder.
        emit({ type: 'indexChanged', folder: entry.spec.id });
      }
      return false;
    }
    const claim = entry.lease.tryAcquire();
    if (claim.acquired) {
      entry.leaseHeld = true;
      entry.heldBy = undefined;
      entry.seen = undefined;
      emit({ type: 'log', message: `${name}: holding the index lease` });
      return true;
    }
    if (entry.heldBy?.id !== claim.holder.id) {
      emit({ type: 'log', message: `${name}: the index lease is held by ${describeHolder(claim.holder)}; reading the index it keeps, taking the lease over when it is free` });
    }
    entry.heldBy = claim.holder;
    // What the holder indexes reaches this window's stats (its status bar) within a heartbeat.
    const seen = entry.engine.store.catalogVersion();
    if (entry.seen !== undefined && seen !== entry.seen) emit({ type: 'indexChanged', folder: entry.spec.id });
    entry.seen = seen;
  } catch (error) {
    // A busy database (another writer) or a closed one: the next heartbeat tries again.
    emit({ type: 'log', message: `${name}: lease heartbeat failed: ${String(error)}` });
  }
  return false;
}

const heartbeats = setInterval(() => {
  for (const entry of folders.values()) {
    if (heartbeat(entry)) emit({ type: 'leaseTaken', folder: entry.spec.id });
  }
}, HEARTBEAT_MS);
heartbeats.unref();

async function open(specs: FolderSpec[]): Promise<ResponseValues['open']> {
  const wanted = new Map(specs.map((spec) => [spec.id, spec]));
  for (const entry of [...folders.values()]) {
    const spec = wanted.get(entry.spec.id);
    if (!spec || !sameSpec(spec, entry.spec)) await closeFolder(entry);
  }
  const notices: string[] = [];
  const empty: FolderId[] = [];
  for (const spec of specs) {
    if (folders.has(spec.id)) continue;
    await mkdir(path.dirname(spec.dbFile), { recursive: true });
    const engine = await Engine.open({ root: spec.root, dbFile: spec.dbFile, index: spec.index });
    notices.push(...engine.notices.splice(0));
    if (engine.stats().files === 0) empty.push(spec.id);
    const entry: Folder = { spec, engine, writes: Promise.resolve(), lease: new IndexLease(engine.store, { kind: 'vscode', onePerProcess: true }), leaseHeld: false };
    heartbeat(entry);
    folders.set(spec.id, entry);
  }
  return { notices, empty };
}

/** A full sync of a folder whose lease this worker holds; `null` (nothing crawled) if another process keeps its index. */
function sync(entry: Folder): Promise<IndexSummary | null> {
  if (!entry.leaseHeld) return Promise.resolve(null);
  if (entry.sync) return entry.sync.done;
  const controller = new AbortController();
  const run: NonNullable<Folder['sync']> = { controller, done: undefined as unknown as Promise<IndexSummary> };
  run.done = entry.engine
    .sync({
      signal: controller.signal,
      onProgress: (progress) => {
        run.progress = progress;
        emit({ type: 'progress', folder: entry.spec.id, progress });
      },
    })
    .finally(() => {
      entry.sync = undefined;
      emit({ type: 'indexChanged', folder: entry.spec.id });
      prepareWhenIdle(entry);
    });
  entry.sync = run;
  return run.done;
}

/** Requests in flight; background preparation waits until there are none. */
let busy = 0;

/**
 * After a sync, builds the folder's fuzzy vocabulary while nothing else is asked of the worker: the
 * first query with an unknown word (a typo, or a word just saved) would otherwise pay for it —
 * 190 ms of a 220 ms save → searchable on npm's tree, far more on the Linux tree.
 */
function prepareWhenIdle(entry: Folder): void {
  setTimeout(() => {
    if (!folders.has(entry.spec.id) || entry.sync) return;
    if (busy > 0) return prepareWhenIdle(entry);
    const started = performance.now();
    if (entry.engine.prepareVocabulary()) emit({ type: 'log', message: `${entry.spec.name}: fuzzy vocabulary ready in ${(performance.now() - started).toFixed(0)} ms` });
  }, 50);
}

async function rebuild(entry: Folder): Promise<IndexSummary | null> {
  const spec = entry.spec;
  // Deleting the database under the process that keeps it would leave it writing to a file no one reads.
  if (!entry.leaseHeld) throw new RequestError('bad-request', `${spec.name}: the index is kept by ${entry.heldBy ? describeHolder(entry.heldBy) : 'another process'}; rebuild it there`);
  await closeFolder(entry);
  for (const suffix of ['', '-wal', '-shm']) rmSync(spec.dbFile + suffix, { force: true });
  await open([...[...folders.values()].map((f) => f.spec), spec]);
  return sync(folder(spec.id));
}

function update(entry: Folder, paths: string[]): Promise<void> {
  const run = async () => {
    // The process holding the lease watches the folder and indexes the change.
    if (!entry.leaseHeld) return;
    const changed: string[] = [];
    for (const relPath of paths) {
      try {
        const outcome = await entry.engine.updateFile(relPath);
        if (outcome !== 'unchanged' && outcome !== 'ignored') changed.push(relPath);
      } catch (error) {
        emit({ type: 'error', folder: entry.spec.id, message: `could not index ${relPath}: ${String(error)}` });
      }
    }
    if (changed.length > 0) emit({ type: 'indexChanged', folder: entry.spec.id, paths: changed });
  };
  entry.writes = entry.writes.then(run);
  return entry.writes;
}

function withFolder(entry: Folder, result: Omit<FolderResult, 'folder' | 'folderName' | 'absPath'>): FolderResult {
  return { ...result, folder: entry.spec.id, folderName: entry.spec.name, absPath: path.join(entry.spec.root, result.path) };
}

async function search(id: number, query: string, options: SearchOptionsInput, ids?: FolderId[]): Promise<SearchAnswer> {
  const targets = ids ? ids.map(folder) : [...folders.values()];
  await Promise.all(targets.map((entry) => entry.writes));
  const results: FolderResult[] = [];
  const corrections: Array<[string, string]> = [];
  let elapsedMs = 0;
  for (const entry of targets) {
    if (cancelled.has(id)) throw new RequestError('cancelled', 'superseded');
    const answer = await entry.engine.search(query, options);
    elapsedMs += answer.elapsedMs;
    for (const result of answer.results) results.push(withFolder(entry, result));
    for (const pair of answer.corrections) if (!corrections.some(([a]) => a === pair[0])) corrections.push(pair);
  }
  // Scores of different folders come from the same formula over similar lists, close enough to merge.
  if (targets.length > 1) results.sort((a, b) => b.score - a.score);
  return { query, searched: query, results: results.slice(0, options.limit ?? results.length), corrections, elapsedMs };
}

/**
 * The agent's search: every folder, merged by score, formatted as bounded text with the chunks'
 * own lines. In a multi-root workspace each path starts with its folder's name.
 */
async function agentSearch(query: string, options: SearchOptionsInput, budgetBytes: number): Promise<ResponseValues['agentSearch']> {
  const targets = [...folders.values()];
  await Promise.all(targets.map((entry) => entry.writes));
  const merged: Array<{ entry: Folder; result: SearchResult }> = [];
  const corrections: Array<[string, string]> = [];
  let candidates = 0;
  for (const entry of targets) {
    const answer = await entry.engine.search(query, options);
    candidates += answer.candidates;
    for (const result of answer.results) merged.push({ entry, result });
    for (const pair of answer.corrections) if (!corrections.some(([a]) => a === pair[0])) corrections.push(pair);
  }
  if (targets.length > 1) merged.sort((a, b) => b.result.score - a.result.score);
  const kept = merged.slice(0, options.limit ?? merged.length);
  // Chunk ids are per database: each result's text comes from the folder it was found in.
  const results: SearchResult[] = [];
  const owner = new Map<SearchResult, Folder>();
  for (const { entry, result } of kept) {
    const shown = targets.length > 1 ? { ...result, path: `${entry.spec.name}/${result.path}` } : result;
    results.push(shown);
    owner.set(shown, entry);
  }
  const output = formatForAgent(query, { results, corrections, candidates }, {
    budgetBytes,
    chunkText: (chunkId, result) => owner.get(result)?.engine.chunk(chunkId)?.text,
  });
  return { text: output.text, bytes: output.bytes, results: output.shown.length, omitted: output.omitted };
}

/** Up to this many of a chunk's rarest words make the "find similar" query. */
const SIMILAR_TERMS = 8;
/** A word in this many chunks or more is not distinctive; counting stops there. */
const SIMILAR_MAX_CHUNKS = 1_000;

async function similar(id: number, entry: Folder, chunkId: number, options: SearchOptionsInput): Promise<SearchAnswer> {
  const chunk = entry.engine.chunk(chunkId);
  if (!chunk) throw new RequestError('bad-request', `no chunk ${chunkId}`);
  const words = new Set((chunk.title + ' ' + chunk.text).toLowerCase().match(/[a-z][a-z0-9_]{2,}/g) ?? []);
  // Distinctive: held by few chunks besides this one, but by more than this one alone.
  const scored = [...words]
    .map((word) => ({ word, df: entry.engine.store.countMatches('porter', quote(word), SIMILAR_MAX_CHUNKS) }))
    .filter(({ df }) => df > 1 && df < SIMILAR_MAX_CHUNKS)
    .sort((a, b) => a.df - b.df || a.word.localeCompare(b.word))
    .slice(0, SIMILAR_TERMS);
  const query = scored.map(({ word }) => word).join(' ') || chunk.title;
  const answer = await search(id, query, { ...options, limit: (options.limit ?? 10) + 1 }, [entry.spec.id]);
  answer.results = answer.results.filter((r) => r.chunkId !== chunkId).slice(0, options.limit ?? 10);
  return { ...answer, query: `similar to ${chunk.path}:${chunk.startLine}`, searched: query };
}

async function handle(request: Request): Promise<unknown> {
  switch (request.type) {
    case 'open':
      return open(request.folders);
    case 'sync':
      return sync(folder(request.folder));
    case 'pause':
      for (const entry of folders.values()) entry.sync?.controller.abort();
      await Promise.all([...folders.values()].map((entry) => entry.sync?.done.catch(() => undefined)));
      return null;
    case 'rebuild':
      return rebuild(folder(request.folder));
    case 'update':
      await update(folder(request.folder), request.paths);
      return null;
    case 'reloadRules':
      folder(request.folder).engine.indexer.reloadRules();
      return null;
    case 'search': {
      newestSearch = Math.max(newestSearch, request.id);
      // Let a cancel or a newer query that is already on its way arrive first.
      await new Promise((resolve) => setImmediate(resolve));
      if (request.id < newestSearch) throw new RequestError('cancelled', 'superseded by a newer query');
      return search(request.id, request.query, request.options, request.folders);
    }
    case 'agentSearch':
      return agentSearch(request.query, request.options, request.budgetBytes);
    case 'similar':
      return similar(request.id, folder(request.folder), request.chunkId, request.options);
    case 'chunks':
      return folder(request.folder)
        .engine.store.chunksOfFile(request.path)
        .map((c) => ({ chunkId: c.id, title: c.title, startLine: c.startLine, endLine: c.endLine }));
    case 'stats':
      return [...folders.values()].map((entry) => ({
        ...entry.engine.stats(),
        folder: entry.spec.id,
        name: entry.spec.name,
        ...(!entry.leaseHeld && entry.heldBy ? { indexedBy: describeHolder(entry.heldBy) } : {}),
      }));
    case 'close':
      for (const entry of [...folders.values()]) await closeFolder(entry);
      return null;
    case 'crashForTest':
      // Outside the request's promise, so nothing catches it: the thread dies.
      setImmediate(() => {
        if (request.how === 'exit') process.exit(0);
        throw new Error('crashForTest: the engine worker was asked to crash');
      });
      return new Promise<never>(() => undefined);
  }
}

port.on('message', (message: unknown) => {
  if (!isToWorker(message)) {
    emit({ type: 'error', message: `the worker ignored a malformed message: ${JSON.stringify(message)}` });
    return;
  }
  if (message.type === 'cancel') {
    cancelled.add(message.id);
    return;
  }
  const { id } = message;
  if (cancelled.has(id)) {
    cancelled.delete(id);
    post({ type: 'response', id, ok: false, error: { code: 'cancelled', message: 'cancelled' } });
    return;
  }
  busy++;
  handle(message).then(
    (value) => post({ type: 'response', id, ok: true, value }),
    (error: unknown) => {
      const code = error instanceof RequestError ? error.code : 'failed';
      const text = error instanceof Error ? error.message : String(error);
      post({ type: 'response', id, ok: false, error: { code, message: text } });
    },
  ).finally(() => {
    cancelled.delete(id);
    busy--;
  });
});
