// The protocol between the extension host and the engine worker, declared once: each request with
// its name, its parameters (a zod schema, so the worker checks every field it receives) and its
// result type (so the worker's handler and the client's caller agree at compile time).
//
// Direction: a request goes extension → worker with an `id`; the worker answers each with one
// `response` of the same id. `cancel` (extension → worker) withdraws a request that has not
// started or abandons the result of one that has. Events flow worker → extension unprompted.

import { z } from 'zod/v4';
import { AGENT_LOCATE_INPUT, EMBEDDER_CONFIG, INDEX_OPTION_SCHEMAS, SEARCH_OPTION_SCHEMAS } from '../core/options.ts';
import type { IndexProgress, IndexSummary } from '../core/indexer.ts';
import type { KeeperStats } from '../core/index-keeper.ts';
import type { LocateAnswer, LocatedFile } from '../core/locate.ts';
import type { EmbedProgress } from '../core/semantic/lane.ts';
import type { ChunkCopy, IndexingSoFar, SearchResult } from '../core/types.ts';

/** Identifies one workspace folder (its URI as a string); one engine and one database each. */
export type FolderId = string;

/** A request's result type, carried in the declaration without a runtime value. */
interface Returns<T> {
  readonly result?: T;
}
function returns<T>(): Returns<T> {
  return {};
}

const folderId = z.string().min(1);

const folderSpec = z.strictObject({
  id: folderId,
  /** Display name of the workspace folder, carried into results. */
  name: z.string(),
  /** Absolute file-system path of the folder. */
  root: z.string().min(1),
  /** Where its database lives (inside the extension's global storage, one per folder). */
  dbFile: z.string().min(1),
  index: z.strictObject(INDEX_OPTION_SCHEMAS),
  /** The semantic lane's model, with its key (the extension reads that from SecretStorage); absent: off. */
  embedding: EMBEDDER_CONFIG.optional(),
});

export type FolderSpec = z.input<typeof folderSpec>;

/** Search options as the host sends them: any subset of the engine's, each checked against its schema. */
const searchOptions = z.strictObject(SEARCH_OPTION_SCHEMAS).partial();

/** A result with the workspace folder it came from. */
export interface FolderResult extends Omit<SearchResult, 'copies'> {
  folder: FolderId;
  folderName: string;
  /** Absolute path of the file. */
  absPath: string;
  copies?: FolderCopy[];
}

/** A copy of a result's text, with its file's absolute path (copies sit in the result's folder). */
export interface FolderCopy extends ChunkCopy {
  absPath: string;
}

export interface SearchAnswer {
  query: string;
  /** The query actually searched (the chunk's words for `similar`). */
  searched: string;
  results: FolderResult[];
  /** Results ranked above these and skipped: a later page's. */
  offset: number;
  /** Candidates the lists matched, over the folders searched; a later page has results while offset + results is below it. */
  candidates: number;
  corrections: Array<[string, string]>;
  /** Query words no folder holds in any form: the results match the others. */
  unmatched: string[];
  /** The semantic lane's model, and why it sat this search out, when it did. */
  semantic?: { model: string; skipped?: string };
  /** Set while a folder's first index runs (or was stopped): the results are from what is indexed so far. */
  partial?: IndexingSoFar;
  elapsedMs: number;
}

export interface ChunkOutline {
  chunkId: number;
  title: string;
  startLine: number;
  endLine: number;
}

export interface FolderStats extends KeeperStats {
  folder: FolderId;
  name: string;
}

export interface AgentAnswer {
  text: string;
  bytes: number;
  results: number;
  omitted: number;
}

/** A located file (src/core/locate.ts) with the workspace folder it is in. */
export interface FolderLocatedFile extends LocatedFile {
  folder: FolderId;
  folderName: string;
  /** Absolute path of the file. */
  absPath: string;
}

export interface FolderLocateAnswer extends Omit<LocateAnswer, 'files'> {
  files: FolderLocatedFile[];
}

export const workerRequests = {
  /** Opens (or re-opens with new options) the index of each folder; folders not listed are closed. */
  open: { params: z.object({ folders: z.array(folderSpec) }), ...returns<{ notices: string[]; empty: FolderId[] }>() },
  /**
   * A full sync of one folder; answered when it finishes or is paused, or at once with `null` when
   * another process keeps the folder's index (FolderStats.indexedBy). `firstPaths` (relative to the
   * folder: the open editors) are brought up to date before the rest.
   */
  sync: { params: z.object({ folder: folderId, firstPaths: z.array(z.string()).optional() }), ...returns<IndexSummary | null>() },
  /** The user is typing (in an editor, or a query): syncs rest between their batches until they stop (src/core/user-activity.ts). */
  typing: { params: z.object({}), ...returns<null>() },
  /**
   * Stops any running sync and embedding pass, and starts none until a later `sync`, which resumes
   * from what the index already holds (and embeds after it); meanwhile file changes apply one by
   * one, and a mass change waits for that sync (IndexKeeper.pause).
   */
  pause: { params: z.object({}), ...returns<null>() },
  /** Deletes a folder's database and indexes it from scratch; refused while another process keeps it. */
  rebuild: { params: z.object({ folder: folderId }), ...returns<IndexSummary | null>() },
  /**
   * Changed paths (relative to the folder, `/`-separated), applied in order: ignore files reload
   * the rules and rescan, folders are crawled. Does nothing while another process keeps the index
   * (it watches the folder).
   */
  update: { params: z.object({ folder: folderId, paths: z.array(z.string().min(1)) }), ...returns<null>() },
  /** A search that a newer `search` supersedes (the quick pick and the panel, as the user types). */
  search: { params: z.object({ query: z.string(), options: searchOptions, folders: z.array(folderId).optional() }), ...returns<SearchAnswer>() },
  /**
   * A search answered as text for a language model (src/core/agent-output.ts), within `budgetBytes`,
   * with a line per result saying why it ranks there if `explain`.
   * Never superseded: an agent's call and the user's typing run side by side.
   */
  agentSearch: {
    params: z.object({ query: z.string(), options: searchOptions, budgetBytes: z.number().int().positive(), explain: z.boolean().default(false) }),
    ...returns<AgentAnswer>(),
  },
  /**
   * The files an issue text, an error message or a stack trace points at (src/core/locate.ts), in
   * every open folder, merged by score and cut to `limit`. Never superseded, like `agentSearch`.
   */
  locate: { params: z.object({ text: AGENT_LOCATE_INPUT.text, limit: AGENT_LOCATE_INPUT.limit }), ...returns<FolderLocateAnswer>() },
  /** Searches with the distinctive words of one chunk. */
  similar: { params: z.object({ folder: folderId, chunkId: z.number().int(), options: searchOptions }), ...returns<SearchAnswer>() },
  /** The indexed chunks of one file, in line order (for the per-chunk CodeLens). */
  chunks: { params: z.object({ folder: folderId, path: z.string() }), ...returns<ChunkOutline[]>() },
  stats: { params: z.object({}), ...returns<FolderStats[]>() },
  close: { params: z.object({}), ...returns<null>() },
};

type Requests = typeof workerRequests;
export type RequestType = keyof Requests;
/** The parameters as the client writes them, and as the worker's handler receives them once checked. */
export type RequestParams<K extends RequestType> = NoneIsEmpty<z.input<Requests[K]['params']>>;
export type CheckedParams<K extends RequestType> = NoneIsEmpty<z.output<Requests[K]['params']>>;
/** zod types a request without parameters as `Record<string, never>`, which no `{ type }` fits. */
type NoneIsEmpty<T> = T extends Record<string, never> ? object : T;
export type RequestResult<K extends RequestType> = Exclude<Requests[K]['result'], undefined>;
/** A request as the client writes it, without the id. */
export type RequestBody<K extends RequestType> = { type: K } & RequestParams<K>;
export type Request = { [K in RequestType]: RequestBody<K> & { id: number } }[RequestType];

export interface Cancel {
  type: 'cancel';
  id: number;
}

/**
 * Makes the worker die as a bug would (`throw`: an uncaught error; `exit`: `process.exit(0)`, which
 * ends only the thread), so that the restart path can be tested. Only a build with test hooks
 * sends or obeys it: every use sits behind `process.env.FUSED_SEARCH_TEST_HOOKS === 'on'`, which
 * the shipped bundle defines as a constant (esbuild.mjs --production), so the code is dropped from
 * it; a development build reads the environment, which only the test runner sets.
 */
export interface CrashForTest {
  type: 'crashForTest';
  how: 'throw' | 'exit';
}

export type ToWorker = Request | Cancel | CrashForTest;

export type ErrorCode = 'cancelled' | 'unknown-folder' | 'bad-request' | 'failed';

export type Response =
  { type: 'response'; id: number; ok: true; value: unknown } | { type: 'response'; id: number; ok: false; error: { code: ErrorCode; message: string } };

export type WorkerEvent =
  | { type: 'progress'; folder: FolderId; progress: IndexProgress }
  /** The semantic lane's embedding pass, after indexing. */
  | { type: 'embedding'; folder: FolderId; progress: EmbedProgress }
  /** Something in this folder's index changed: a sync finished, or files were updated. */
  | { type: 'indexChanged'; folder: FolderId; paths?: string[] }
  /** The worker took over the folder's index lease from a process that let it go: sync to catch up. */
  | { type: 'leaseTaken'; folder: FolderId }
  /** Something went wrong outside any request (or worth telling the user about). */
  | { type: 'error'; folder?: FolderId; message: string }
  | { type: 'log'; message: string };

export type FromWorker = Response | WorkerEvent;

/** What the worker does with each request: the result type is the declaration's. */
export type RequestHandlers = { [K in RequestType]: (params: CheckedParams<K>, id: number) => Promise<RequestResult<K>> };

const envelope = z.object({ type: z.string(), id: z.number().int() }).passthrough();

/**
 * Checks a message the worker received: its type is declared, and every parameter has the
 * declared shape (unknown fields refused). Returns the message, or why it was refused.
 */
export function parseToWorker(message: unknown): { ok: true; message: ToWorker } | { ok: false; error: string } {
  if (isCrashForTest(message)) return { ok: true, message };
  const head = envelope.safeParse(message);
  if (!head.success) return { ok: false, error: 'not a message: it needs a string type and a numeric id' };
  const { type, id, ...params } = head.data;
  if (type === 'cancel') return Object.keys(params).length === 0 ? { ok: true, message: { type, id } } : { ok: false, error: 'cancel carries only an id' };
  if (!Object.hasOwn(workerRequests, type)) return { ok: false, error: `unknown request type "${type}"` };
  const parsed = z.strictObject(workerRequests[type as RequestType].params.shape).safeParse(params);
  if (!parsed.success)
    return { ok: false, error: `${type}: ${parsed.error.issues.map((issue) => `${issue.path.join('.') || 'parameters'}: ${issue.message}`).join('; ')}` };
  return { ok: true, message: { type, id, ...parsed.data } as Request };
}

function isCrashForTest(message: unknown): message is CrashForTest {
  const m = message as Partial<CrashForTest> | null;
  return typeof m === 'object' && m !== null && m.type === 'crashForTest' && (m.how === 'throw' || m.how === 'exit');
}
