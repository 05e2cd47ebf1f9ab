// Messages between the sidebar webview (media/src/panel.ts) and its provider (panel.ts). Both sides
// import these types. Commands flow view → host; notifications flow host → view.

import type { FolderResult } from '../worker/protocol.ts';

export interface PanelFilters {
  /** A glob the result's path must match; empty for any. */
  path: string;
  kind: '' | 'code' | 'prose';
  /** A workspace folder id; empty for all. */
  folder: string;
}

export type ViewCommand =
  | { type: 'ready' }
  | { type: 'search'; query: string; filters: PanelFilters }
  | { type: 'open'; index: number }
  | { type: 'index'; action: 'rebuild' | 'pause' | 'resume' };

export interface PanelState {
  phase: 'starting' | 'indexing' | 'ready' | 'paused' | 'error';
  percent: number;
  files: number;
  chunks: number;
  lastUpdate?: number;
  error?: string;
  folders: Array<{ id: string; name: string }>;
}

export type HostNotification =
  | { type: 'state'; state: PanelState }
  | { type: 'results'; query: string; results: FolderResult[]; corrections: Array<[string, string]>; elapsedMs: number; multiRoot: boolean }
  | { type: 'failed'; query: string; message: string }
  /** Fill the search box (Search Selection, tests) and run the query. */
  | { type: 'setQuery'; query: string };

export function isViewCommand(message: unknown): message is ViewCommand {
  if (typeof message !== 'object' || message === null) return false;
  const m = message as Record<string, unknown>;
  switch (m.type) {
    case 'ready':
      return true;
    case 'search':
      return typeof m.query === 'string' && typeof m.filters === 'object' && m.filters !== null;
    case 'open':
      return typeof m.index === 'number';
    case 'index':
      return m.action === 'rebuild' || m.action === 'pause' || m.action === 'resume';
    default:
      return false;
  }
}
