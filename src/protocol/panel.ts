// Messages between the sidebar webview (media/src/panel.ts) and its provider (panel.ts). Both sides
// import these types. Commands flow view → host; notifications flow host → view.

import type { FolderLocateAnswer, FolderResult } from './worker.ts';

export interface PanelFilters {
  /** Globs, comma-separated, one of which the result's path must match and none written `!glob` (see `globsOf`); empty for any. */
  path: string;
  kind: '' | 'code' | 'prose';
  /** A workspace folder id; empty for all. */
  folder: string;
}

export type ViewCommand =
  /** The view's page loaded; `restore` is the search it showed before VS Code dropped the page. */
  | { type: 'ready'; restore?: { query: string; filters: PanelFilters } }
  | { type: 'search'; query: string; filters: PanelFilters }
  /** The next page of the last search, shown below its results. */
  | { type: 'more' }
  /** Open the result at `index`; `toSide` beside the active editor (Ctrl or Cmd held). */
  | { type: 'open'; index: number; toSide?: boolean }
  /** Open the located file at `index` at its chunk `chunk` (default its best): indexes into the answer the host holds. */
  | { type: 'openLocated'; index: number; chunk?: number }
  | { type: 'index'; action: 'rebuild' | 'pause' | 'resume' };

export interface PanelState {
  phase: 'starting' | 'indexing' | 'ready' | 'paused' | 'error';
  percent: number;
  files: number;
  chunks: number;
  lastUpdate?: number;
  error?: string;
  folders: Array<{ id: string; name: string }>;
  /** `fusedSearch.debounceMs`: how long the search box waits after the last keystroke. */
  debounceMs: number;
}

export type HostNotification =
  | { type: 'state'; state: PanelState }
  | {
      type: 'results';
      query: string;
      results: FolderResult[];
      /** 0 for a new search's results; for a later page, how many the view already shows, which these follow. */
      offset: number;
      /** Whether a later page has results. */
      more: boolean;
      corrections: Array<[string, string]>;
      /** Query words no indexed file holds. */
      unmatched: string[];
      elapsedMs: number;
      multiRoot: boolean;
      /** Why the semantic lane sat this search out, if it did. */
      semanticSkipped?: string;
      /** Set while the first index runs: what the results are from, as the hosts word it. */
      partial?: string;
      /** Find Similar Chunks' answer, whose query names the chunk ("similar to src/a.ts:12"): not the search box's. */
      similar?: true;
    }
  | { type: 'failed'; query: string; message: string }
  /** The files a pasted issue or stack trace points at (Locate from Issue or Stack Trace). */
  | ({
      type: 'located';
      multiRoot: boolean;
      /** What was read from the text, in words ("2 frames, 1 message"). */
      summary: string;
      /** Where the text was taken from, in words ("the clipboard", "the output of “npm test”"); none for a text given to the command. */
      source?: string;
    } & FolderLocateAnswer)
  /** Fill the search box (Search in Panel with a selection) and run the query. */
  | { type: 'setQuery'; query: string }
  /** Empty the search box and the list (Clear Results). */
  | { type: 'clear' };

/** The longest query the panel may send; longer text is not a query anyone typed. */
const MAX_QUERY_CHARS = 10_000;
const KINDS = new Set(['', 'code', 'prose']);

/**
 * Checks a message from the webview before the host acts on it: the webview shows file text, so it
 * is treated as untrusted. `open` and `openLocated` carry only indexes into the results the host
 * itself holds (they can never name a path), and any extra field a message carries is refused rather than ignored.
 */
export function isViewCommand(message: unknown): message is ViewCommand {
  if (typeof message !== 'object' || message === null || Array.isArray(message)) return false;
  const m = message as Record<string, unknown>;
  const only = (...keys: string[]) => Object.keys(m).every((key) => key === 'type' || keys.includes(key));
  switch (m.type) {
    case 'ready':
      return only('restore') && (m.restore === undefined || (isSearch(m.restore) && Object.keys(m.restore).length === 2));
    case 'more':
      return only();
    case 'search':
      return only('query', 'filters') && isSearch(m);
    case 'open':
      return only('index', 'toSide') && isIndex(m.index) && (m.toSide === undefined || typeof m.toSide === 'boolean');
    case 'openLocated':
      return only('index', 'chunk') && isIndex(m.index) && (m.chunk === undefined || isIndex(m.chunk));
    case 'index':
      return only('action') && (m.action === 'rebuild' || m.action === 'pause' || m.action === 'resume');
    default:
      return false;
  }
}

/** Holds a query and its filters: `search`, and the search `ready` restores (which holds only those). */
function isSearch(value: unknown): value is { query: string; filters: PanelFilters } {
  if (typeof value !== 'object' || value === null) return false;
  const s = value as Record<string, unknown>;
  return typeof s.query === 'string' && s.query.length <= MAX_QUERY_CHARS && isFilters(s.filters);
}

function isIndex(value: unknown): boolean {
  return Number.isSafeInteger(value) && (value as number) >= 0;
}

function isFilters(value: unknown): value is PanelFilters {
  if (typeof value !== 'object' || value === null) return false;
  const f = value as Record<string, unknown>;
  return (
    Object.keys(f).every((key) => key === 'path' || key === 'kind' || key === 'folder') &&
    typeof f.path === 'string' &&
    typeof f.folder === 'string' &&
    typeof f.kind === 'string' &&
    KINDS.has(f.kind)
  );
}
