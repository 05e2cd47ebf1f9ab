// The one protocol between the extension host and the engine worker. Both sides import these types;
// the worker checks what it receives (`isRequest`) because a message port carries `unknown`.
//
// Direction: `Request` goes extension → worker and carries an `id`; the worker answers each with one
// `Response` of the same id. `Cancel` (extension → worker) withdraws a request that has not started
// or abandons the result of one that has. `WorkerEvent`s flow worker → extension unprompted.

import type { IndexOptions, SearchOptionsInput } from '../core/options.ts';
import type { IndexProgress, IndexSummary } from '../core/indexer.ts';
import type { IndexStats } from '../core/store/store.ts';
import type { SearchResult } from '../core/types.ts';

/** Identifies one workspace folder (its URI as a string); one engine and one database each. */
export type FolderId = string;

export interface FolderSpec {
  id: FolderId;
  /** Display name of the workspace folder, carried into results. */
  name: string;
  /** Absolute file-system path of the folder. */
  root: string;
  /** Where its database lives (inside the extension's global storage, one per folder). */
  dbFile: string;
  index: IndexOptions;
}

export type Request =
  /** Opens (or re-opens with new options) the engine of each folder; folders not listed are closed. */
  | { type: 'open'; id: number; folders: FolderSpec[] }
  /**
   * A full sync of one folder; answered when it finishes or is paused, or at once with `null` when
   * another process keeps the folder's index (FolderStats.indexedBy).
   */
  | { type: 'sync'; id: number; folder: FolderId }
  /** Stops any running sync; a later `sync` resumes from what the index already holds. */
  | { type: 'pause'; id: number }
  /** Deletes a folder's database and indexes it from scratch; refused while another process keeps it. */
  | { type: 'rebuild'; id: number; folder: FolderId }
  /**
   * Brings these paths (relative to the folder, `/`-separated) up to date, in order; does nothing
   * while another process keeps the folder's index (it watches the folder).
   */
  | { type: 'update'; id: number; folder: FolderId; paths: string[] }
  /** Re-reads the ignore rules (a .gitignore changed). */
  | { type: 'reloadRules'; id: number; folder: FolderId }
  | { type: 'search'; id: number; query: string; options: SearchOptionsInput; folders?: FolderId[] }
  /**
   * A search answered as text for a language model (src/core/agent-output.ts), within `budgetBytes`.
   * Unlike `search`, it is never superseded by a newer query: an agent's call and the user's typing
   * run side by side.
   */
  | { type: 'agentSearch'; id: number; query: string; options: SearchOptionsInput; budgetBytes: number }
  /** Searches with the distinctive terms of one chunk. */
  | { type: 'similar'; id: number; folder: FolderId; chunkId: number; options: SearchOptionsInput }
  /** The indexed chunks of one file, in line order (for the per-chunk CodeLens). */
  | { type: 'chunks'; id: number; folder: FolderId; path: string }
  | { type: 'stats'; id: number }
  | { type: 'close'; id: number }
  /**
   * For the extension's integration tests only: the worker dies as a bug would (`throw`: an
   * uncaught error; `exit`: `process.exit(0)`, which ends only the thread), so the restart path
   * can be tested. It touches no database; never answered.
   */
  | { type: 'crashForTest'; id: number; how: 'throw' | 'exit' };

export interface Cancel {
  type: 'cancel';
  id: number;
}

export type ToWorker = Request | Cancel;

/** A result with the workspace folder it came from. */
export interface FolderResult extends SearchResult {
  folder: FolderId;
  folderName: string;
  /** Absolute path of the file. */
  absPath: string;
}

export interface SearchAnswer {
  query: string;
  /** The query actually searched (the chunk's terms for `similar`). */
  searched: string;
  results: FolderResult[];
  corrections: Array<[string, string]>;
  elapsedMs: number;
}

export interface ChunkOutline {
  chunkId: number;
  title: string;
  startLine: number;
  endLine: number;
}

export interface FolderStats extends IndexStats {
  folder: FolderId;
  name: string;
  /**
   * Set while another process holds the folder's index lease and keeps the index (this worker only
   * reads it): who, e.g. `vscode (pid 4242 on devbox)`.
   */
  indexedBy?: string;
}

export interface ResponseValues {
  open: { notices: string[]; empty: FolderId[] };
  sync: IndexSummary | null;
  pause: null;
  rebuild: IndexSummary | null;
  update: null;
  reloadRules: null;
  search: SearchAnswer;
  agentSearch: { text: string; bytes: number; results: number; omitted: number };
  similar: SearchAnswer;
  chunks: ChunkOutline[];
  stats: FolderStats[];
  close: null;
  crashForTest: never;
}

export type ErrorCode = 'cancelled' | 'unknown-folder' | 'bad-request' | 'failed';

export type Response =
  | { type: 'response'; id: number; ok: true; value: unknown }
  | { type: 'response'; id: number; ok: false; error: { code: ErrorCode; message: string } };

export type WorkerEvent =
  | { type: 'progress'; folder: FolderId; progress: IndexProgress }
  /** Something in this folder's index changed: a sync finished, or files were updated. */
  | { type: 'indexChanged'; folder: FolderId; paths?: string[] }
  /** The worker took over the folder's index lease from a process that let it go: sync to catch up. */
  | { type: 'leaseTaken'; folder: FolderId }
  /** Something went wrong outside any request (or worth telling the user about). */
  | { type: 'error'; folder?: FolderId; message: string }
  | { type: 'log'; message: string };

export type FromWorker = Response | WorkerEvent;

const REQUEST_TYPES = new Set(['open', 'sync', 'pause', 'rebuild', 'update', 'reloadRules', 'search', 'agentSearch', 'similar', 'chunks', 'stats', 'close', 'crashForTest']);

export function isToWorker(message: unknown): message is ToWorker {
  if (typeof message !== 'object' || message === null) return false;
  const { type, id } = message as { type?: unknown; id?: unknown };
  return typeof id === 'number' && typeof type === 'string' && (type === 'cancel' || REQUEST_TYPES.has(type));
}
