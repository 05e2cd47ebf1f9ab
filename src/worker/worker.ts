// The engine's home in VS Code: a process of its own, started by src/worker/client.ts, so that a
// long sync or a slow query never blocks the extension host, and indexing runs under the V8 flags
// the client gives it. It adapts the worker protocol (src/protocol/worker.ts) to one IndexKeeper
// per workspace folder (src/core/index-keeper.ts), which holds the rules: the lease (kind
// `vscode`), reading only while another window or an MCP server keeps a folder's index, the order
// of file updates and searches, ignore-file reloads. What is left here is the protocol's own:
// which folders are open, searches superseding each other, cancellation, and events.

import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { formatForAgent } from '../core/agent-output.ts';
import { agentText, redactedText, redactResults } from '../core/redact.ts';
import { IndexKeeper, NotKeeperError, searchFolders, type KeptFolder } from '../core/index-keeper.ts';
import { DEFAULT_LOCATE_LIMIT, locate } from '../core/locate.ts';
import { UserActivity } from '../core/user-activity.ts';
import type { SearchResult } from '../core/types.ts';
import {
  parseToWorker,
  type FolderId,
  type FolderLocateAnswer,
  type FolderLocatedFile,
  type FolderResult,
  type FolderSpec,
  type FromWorker,
  type Request,
  type RequestHandlers,
  type SearchAnswer,
  type WorkerEvent,
} from '../protocol/worker.ts';
import { errorMessage } from '../core/error-message.ts';

if (!process.send) throw new Error('worker.ts runs as a child process with an IPC channel, as src/worker/client.ts starts it');

interface Folder {
  spec: FolderSpec;
  keeper: IndexKeeper;
}

/** How long the indexes may take to close once the host has gone; then the worker exits anyway, and a lease whose process is gone is free to take. */
const CLOSE_GRACE_MS = 5_000;

const folders = new Map<FolderId, Folder>();
/** One user for every folder: their typing makes each folder's sync rest, since all share the cores. */
const activity = new UserActivity();
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
  // A host that has gone away cannot be told anything; the worker is on its way out (below).
  if (process.connected) process.send!(message);
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

async function openFolder(spec: FolderSpec): Promise<Folder> {
  await mkdir(path.dirname(spec.dbFile), { recursive: true });
  const keeper = await IndexKeeper.open({
    root: spec.root,
    dbFile: spec.dbFile,
    index: spec.index,
    ...(spec.embedding ? { embedding: spec.embedding } : {}),
    kind: 'vscode',
    onePerProcess: true,
    activity,
  });
  keeper.onEvent((event) => {
    const name = spec.name;
    switch (event.type) {
      case 'progress':
        return emit({ type: 'progress', folder: spec.id, progress: event.progress });
      case 'embedding':
        return emit({ type: 'embedding', folder: spec.id, progress: event.progress });
      case 'changed':
        return emit({ type: 'indexChanged', folder: spec.id, ...(event.paths ? { paths: event.paths } : {}) });
      case 'role':
        // Taking the lease over: the extension syncs to catch up. Losing it: the stats now name the holder.
        return emit(event.role === 'owner' ? { type: 'leaseTaken', folder: spec.id } : { type: 'indexChanged', folder: spec.id });
      case 'log':
        return emit({ type: 'log', message: `${name}: ${event.message}` });
    }
  });
  keeper
    .prepareForSearches()
    .catch((error: unknown) => emit({ type: 'log', message: `${spec.name}: preparing the index for searches failed: ${errorMessage(error)}` }));
  if (keeper.role === 'owner') emit({ type: 'log', message: `${spec.name}: holding the index lease` });
  else
    emit({
      type: 'log',
      message: `${spec.name}: the index lease is held by ${keeper.keptBy ?? 'another process'}; reading the index it keeps, taking the lease over when it is free`,
    });
  return { spec, keeper };
}

async function closeFolder(entry: Folder): Promise<void> {
  folders.delete(entry.spec.id);
  await entry.keeper.close();
}

function withFolder(spec: FolderSpec, result: SearchResult): FolderResult {
  const { copies, ...rest } = result;
  return {
    ...rest,
    folder: spec.id,
    folderName: spec.name,
    absPath: path.join(spec.root, result.path),
    ...(copies ? { copies: copies.map((copy) => ({ ...copy, absPath: path.join(spec.root, copy.path) })) } : {}),
  };
}

function kept(targets: Folder[]): KeptFolder<FolderSpec>[] {
  return targets.map(({ keeper, spec }) => ({ keeper, folder: spec }));
}

const handlers: RequestHandlers = {
  async open({ folders: specs }) {
    const wanted = new Map(specs.map((spec) => [spec.id, spec]));
    for (const entry of [...folders.values()]) {
      const spec = wanted.get(entry.spec.id);
      if (!spec || !sameSpec(spec, entry.spec)) await closeFolder(entry);
    }
    const notices: string[] = [];
    const empty: FolderId[] = [];
    for (const spec of specs) {
      if (folders.has(spec.id)) continue;
      const entry = await openFolder(spec);
      notices.push(...entry.keeper.notices.splice(0));
      if (entry.keeper.stats().files === 0) empty.push(spec.id);
      folders.set(spec.id, entry);
    }
    return { notices, empty };
  },

  async sync({ folder: id, firstPaths }) {
    return folder(id).keeper.sync(firstPaths ? { firstPaths } : {});
  },

  async typing() {
    activity.noteActive();
    return null;
  },

  async pause() {
    await Promise.all([...folders.values()].map((entry) => entry.keeper.pause()));
    return null;
  },

  async rebuild({ folder: id }) {
    const entry = folder(id);
    try {
      return await entry.keeper.rebuild();
    } catch (error) {
      if (error instanceof NotKeeperError) throw new RequestError('bad-request', `${entry.spec.name}: ${error.message}`);
      throw error;
    }
  },

  async update({ folder: id, paths }) {
    await folder(id).keeper.applyChanges(paths);
    return null;
  },

  async search({ query, options, folders: ids }, id) {
    newestSearch = Math.max(newestSearch, id);
    // Let a cancel or a newer query that is already on its way arrive first.
    await new Promise((resolve) => setImmediate(resolve));
    if (id < newestSearch) throw new RequestError('cancelled', 'superseded by a newer query');
    const targets = ids ? ids.map(folder) : [...folders.values()];
    const merged = await searchFolders(kept(targets), query, options, () => !cancelled.has(id));
    if (!merged) throw new RequestError('cancelled', 'superseded');
    return {
      query,
      searched: query,
      results: merged.results.map(({ result, folder: spec }) => withFolder(spec, result)),
      offset: merged.offset,
      candidates: merged.candidates,
      corrections: merged.corrections,
      unmatched: merged.unmatched,
      ...(merged.semantic ? { semantic: merged.semantic } : {}),
      ...(merged.partial ? { partial: merged.partial } : {}),
      elapsedMs: merged.elapsedMs,
    };
  },

  /** Every folder, merged by score; in a multi-root workspace each path starts with its folder's name. */
  async agentSearch({ query, options, budgetBytes, explain }) {
    const targets = [...folders.values()];
    const merged = (await searchFolders(kept(targets), query, options))!;
    // Chunk ids are per database: each result's text comes from the folder it was found in.
    const found: SearchResult[] = [];
    const keepers: IndexKeeper[] = [];
    for (const { result, folder: spec } of merged.results) {
      found.push(targets.length > 1 ? { ...result, path: `${spec.name}/${result.path}` } : result);
      keepers.push(folder(spec.id).keeper);
    }
    // Secrets are redacted from what the formatter is given, and once more from what it made.
    const results = redactResults(found, (result, i) => keepers[i]!.chunk(result.chunkId)?.text);
    const keeperOf = new Map(results.map((result, i) => [result, keepers[i]!]));
    let output: ReturnType<typeof formatForAgent> | undefined;
    const answer = agentText(budgetBytes, (budget) => {
      output = formatForAgent(
        query,
        {
          results,
          offset: merged.offset,
          corrections: merged.corrections,
          unmatched: merged.unmatched,
          candidates: merged.candidates,
          ...(merged.semantic ? { semantic: merged.semantic } : {}),
          ...(merged.partial ? { partial: merged.partial } : {}),
        },
        { budgetBytes: budget, explain, chunkText: (chunkId, result) => redactedText(keeperOf.get(result)?.chunk(chunkId)?.text) },
      );
      return output.text;
    });
    return { text: answer.text, bytes: Buffer.byteLength(answer.text), results: output!.shown.length, omitted: output!.omitted };
  },

  /** Scores of different folders come from the same weights over the same kinds of evidence, close enough to merge. */
  async locate({ text, limit = DEFAULT_LOCATE_LIMIT }): Promise<FolderLocateAnswer> {
    const files: FolderLocatedFile[] = [];
    const clues = new Map<string, { kind: string; text: string }>();
    let elapsedMs = 0;
    for (const { keeper, spec } of folders.values()) {
      const answer = await locate(keeper, text, { limit });
      elapsedMs += answer.elapsedMs;
      for (const file of answer.files) files.push({ ...file, folder: spec.id, folderName: spec.name, absPath: path.join(spec.root, file.path) });
      // The words chosen differ by folder (rarity is per index); the rest is read from the text alone.
      for (const clue of answer.clues) clues.set(`${clue.kind}\0${clue.text}`, clue);
    }
    files.sort((a, b) => b.score - a.score);
    return { files: files.slice(0, limit), clues: [...clues.values()], elapsedMs };
  },

  async similar({ folder: id, chunkId, options }): Promise<SearchAnswer> {
    const entry = folder(id);
    const answer = await entry.keeper.similar(chunkId, options);
    if (!answer) throw new RequestError('bad-request', `no chunk ${chunkId}`);
    const { response, chunk, searched } = answer;
    return {
      query: `similar to ${chunk.path}:${chunk.startLine}`,
      searched,
      results: response.results.map((result) => withFolder(entry.spec, result)),
      offset: response.offset,
      candidates: response.candidates,
      corrections: response.corrections,
      unmatched: response.unmatched,
      elapsedMs: response.elapsedMs,
    };
  },

  async chunks({ folder: id, path: relPath }) {
    return folder(id)
      .keeper.chunksOfFile(relPath)
      .map((c) => ({ chunkId: c.id, title: c.title, startLine: c.startLine, endLine: c.endLine }));
  },

  async stats() {
    return [...folders.values()].map((entry) => ({ ...entry.keeper.stats(), folder: entry.spec.id, name: entry.spec.name }));
  },

  async close() {
    for (const entry of [...folders.values()]) await closeFolder(entry);
    return null;
  },
};

function handle(request: Request): Promise<unknown> {
  const { type, id, ...params } = request;
  return (handlers[type] as (params: unknown, id: number) => Promise<unknown>)(params, id);
}

process.on('message', (received: unknown) => {
  const parsed = parseToWorker(received);
  if (!parsed.ok) {
    const id = (received as { id?: unknown } | null)?.id;
    if (typeof id === 'number') post({ type: 'response', id, ok: false, error: { code: 'bad-request', message: parsed.error } });
    else emit({ type: 'error', message: `the worker ignored a malformed message (${parsed.error})` });
    return;
  }
  const message = parsed.message;
  if (message.type === 'crashForTest') {
    // Outside any request's promise, so nothing catches it: the thread dies as a bug would make it.
    if (process.env.FUSED_SEARCH_TEST_HOOKS === 'on') {
      setImmediate(() => {
        if (message.how === 'exit') process.exit(0);
        throw new Error('crashForTest: the engine worker was asked to crash');
      });
    }
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
  handle(message)
    .then(
      (value) => post({ type: 'response', id, ok: true, value }),
      (error: unknown) => {
        const code = error instanceof RequestError ? error.code : 'failed';
        const text = errorMessage(error);
        post({ type: 'response', id, ok: false, error: { code, message: text } });
      },
    )
    .finally(() => cancelled.delete(id));
});

// The host closed the channel: it asked the worker to stop, or it is gone (a closed window, a crashed
// or killed extension host). Either way the indexes are closed, which gives their leases back, and
// the worker exits rather than live on as an orphan holding them.
process.on('disconnect', () => {
  setTimeout(() => process.exit(0), CLOSE_GRACE_MS).unref();
  void handlers.close({}, 0).finally(() => process.exit(0));
});
