// The engine's home: a worker_thread that owns every database, so that a long sync or a slow query
// never blocks the extension host. One Engine per workspace folder. Speaks only protocol.ts.
//
// Ordering: per folder, file updates run one after another, and a search waits for the updates
// already queued for its folders (a save followed by a search sees the saved text). A full sync runs
// beside them and does not hold searches back.

import { rmSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { parentPort } from 'node:worker_threads';
import { Engine } from '../core/engine.ts';
import type { IndexSummary } from '../core/indexer.ts';
import type { SearchOptionsInput } from '../core/options.ts';
import {
  isToWorker, type FolderId, type FolderResult, type FolderSpec, type FromWorker, type Request, type ResponseValues,
  type SearchAnswer, type WorkerEvent,
} from './protocol.ts';

const port = parentPort;
if (!port) throw new Error('worker.ts runs inside a worker_thread');

interface Folder {
  spec: FolderSpec;
  engine: Engine;
  sync?: { controller: AbortController; done: Promise<IndexSummary> };
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
  entry.engine.close();
}

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
    folders.set(spec.id, { spec, engine, writes: Promise.resolve() });
  }
  return { notices, empty };
}

function sync(entry: Folder): Promise<IndexSummary> {
  if (entry.sync) return entry.sync.done;
  const controller = new AbortController();
  const done = entry.engine
    .sync({
      signal: controller.signal,
      onProgress: (progress) => emit({ type: 'progress', folder: entry.spec.id, progress }),
    })
    .finally(() => {
      entry.sync = undefined;
      emit({ type: 'indexChanged', folder: entry.spec.id });
    });
  entry.sync = { controller, done };
  return done;
}

async function rebuild(entry: Folder): Promise<IndexSummary> {
  const spec = entry.spec;
  await closeFolder(entry);
  for (const suffix of ['', '-wal', '-shm']) rmSync(spec.dbFile + suffix, { force: true });
  await open([...[...folders.values()].map((f) => f.spec), spec]);
  return sync(folder(spec.id));
}

function update(entry: Folder, paths: string[]): Promise<void> {
  const run = async () => {
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

/** Up to this many of a chunk's rarest words make the "find similar" query. */
const SIMILAR_TERMS = 8;

async function similar(id: number, entry: Folder, chunkId: number, options: SearchOptionsInput): Promise<SearchAnswer> {
  const chunk = entry.engine.chunk(chunkId);
  if (!chunk) throw new RequestError('bad-request', `no chunk ${chunkId}`);
  const words = new Set((chunk.title + ' ' + chunk.text).toLowerCase().match(/[a-z][a-z0-9_]{2,}/g) ?? []);
  // Distinctive: held by few chunks besides this one, but by more than this one alone.
  const scored = [...words]
    .map((word) => ({ word, df: entry.engine.store.wordDocFreq(word) }))
    .filter(({ df }) => df > 1)
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
    case 'similar':
      return similar(request.id, folder(request.folder), request.chunkId, request.options);
    case 'chunks':
      return folder(request.folder)
        .engine.store.chunksOfFile(request.path)
        .map((c) => ({ chunkId: c.id, title: c.title, startLine: c.startLine, endLine: c.endLine }));
    case 'stats':
      return [...folders.values()].map((entry) => ({ ...entry.engine.stats(), folder: entry.spec.id, name: entry.spec.name }));
    case 'close':
      for (const entry of [...folders.values()]) await closeFolder(entry);
      return null;
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
  handle(message).then(
    (value) => post({ type: 'response', id, ok: true, value }),
    (error: unknown) => {
      const code = error instanceof RequestError ? error.code : 'failed';
      const text = error instanceof Error ? error.message : String(error);
      post({ type: 'response', id, ok: false, error: { code, message: text } });
    },
  ).finally(() => cancelled.delete(id));
});
