// The sidebar panel's script, bundled by esbuild into media/dist/panel.js. It renders what the host
// sends (protocol: src/protocol/panel.ts) and sends back searches and clicks. Text that
// comes from files (titles, paths, snippets) goes in with textContent, never as HTML.

import { copiesCount, copiesNote, describe, unmatchedNote } from '../../src/core/describe.ts';
import '@vscode-elements/elements/dist/vscode-textfield/index.js';
import '@vscode-elements/elements/dist/vscode-single-select/index.js';
import '@vscode-elements/elements/dist/vscode-option/index.js';
import '@vscode-elements/elements/dist/vscode-checkbox/index.js';
import '@vscode-elements/elements/dist/vscode-badge/index.js';
import '@vscode-elements/elements/dist/vscode-progress-bar/index.js';
import '@vscode-elements/elements/dist/vscode-button/index.js';
import type { ChunkKind } from '../../src/core/types.ts';
import type { FolderResult } from '../../src/protocol/worker.ts';
import { correctedQuery } from '../../src/protocol/corrections.ts';
import type { HostNotification, PanelFilters, PanelState, ViewCommand } from '../../src/protocol/panel.ts';

declare function acquireVsCodeApi(): { postMessage(message: ViewCommand): void; getState(): unknown; setState(state: unknown): void };

const vscode = acquireVsCodeApi();
const STAGE_LABEL: Record<FolderResult['stage'], string> = { rrf: 'RRF', proximity: 'Proximity', fuzzy: 'Fuzzy', semantic: 'Semantic' };

type Field = HTMLElement & { value: string };
type Check = HTMLElement & { checked: boolean };

function el<K extends keyof HTMLElementTagNameMap>(tag: K, className?: string, text?: string): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

function custom<T extends HTMLElement>(tag: string, attrs: Record<string, string> = {}): T {
  const node = document.createElement(tag) as T;
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  return node;
}

function icon(name: string): HTMLElement {
  return el('span', `codicon codicon-${name}`);
}

/** A chunk's icon, the same in search results and located files: a symbol for code, a book for prose. */
function chunkIcon(kind: ChunkKind): HTMLElement {
  return icon(kind === 'code' ? 'symbol-method' : 'book');
}

/** A file's icon, from the kinds of its chunks shown: a code file when one is code, else a document. */
function fileIcon(chunks: ReadonlyArray<{ kind: ChunkKind }>): HTMLElement {
  return icon(chunks.some((chunk) => chunk.kind === 'code') ? 'file-code' : 'file');
}

const app = document.getElementById('app')!;
const query = custom<Field>('vscode-textfield', { placeholder: 'Search the workspace', id: 'query', 'aria-label': 'Search' });
query.append(Object.assign(icon('search'), { slot: 'content-before' }));
const pathFilter = custom<Field>('vscode-textfield', {
  placeholder: 'files to include, e.g. src/**/*.ts, !**/*.test.ts',
  id: 'path-filter',
  'aria-label': 'Path globs',
});
const kindFilter = custom<Field>('vscode-single-select', { id: 'kind-filter', 'aria-label': 'Kind' });
for (const [value, label] of [
  ['', 'Code and prose'],
  ['code', 'Code'],
  ['prose', 'Prose'],
] as const) {
  const option = custom<HTMLElement>('vscode-option', { value });
  option.textContent = label;
  kindFilter.append(option);
}
const folderFilter = custom<Field>('vscode-single-select', { id: 'folder-filter', 'aria-label': 'Workspace folder' });
const grouped = custom<Check>('vscode-checkbox', { id: 'group-by-file', label: 'Group by file' });

const filters = el('div', 'filters');
filters.append(pathFilter, kindFilter, folderFilter, grouped);
const status = el('div', 'status');
status.id = 'index-state';
const note = el('div', 'note');
note.id = 'note';
const list = el('div', 'results');
list.id = 'results';
list.setAttribute('role', 'list');
const more = custom<HTMLElement & { disabled: boolean }>('vscode-button', { id: 'more', secondary: '' });
more.textContent = 'Show more results';
more.hidden = true;
more.addEventListener('click', () => {
  // Disabled, the button loses the focus: say now whether the next page should take it.
  focusNextPage = document.activeElement === more;
  more.disabled = true;
  status.classList.add('busy');
  vscode.postMessage({ type: 'more' });
});
app.append(query, filters, status, note, list, more);

let timer: ReturnType<typeof setTimeout> | undefined;
// The host's first state, which answers 'ready', brings the setting; nothing is typed before that,
// and a query restored from the view's state goes with 'ready'.
let debounceMs = 0;
let last: Extract<HostNotification, { type: 'results' }> | undefined;
/** "Show more results" had the focus when pressed: the page's first result takes it. */
let focusNextPage = false;
/** The workspace folder a restored view had chosen, until the host's first state lists the folders. */
let restoredFolder: string | undefined;

function currentFilters(): PanelFilters {
  const kind = kindFilter.value;
  return { path: pathFilter.value.trim(), kind: kind === 'code' || kind === 'prose' ? kind : '', folder: folderFilter.value ?? '' };
}

/**
 * What the view keeps in its state. VS Code loads a view's page again after a window reload, or
 * after dropping a hidden view (the panel does not ask to be retained), and the search box, the
 * filters and the grouping should be as the person left them.
 */
interface SavedView {
  query: string;
  filters: PanelFilters;
  grouped: boolean;
}

function save(): void {
  vscode.setState({ query: query.value, filters: currentFilters(), grouped: grouped.checked } satisfies SavedView);
}

function schedule(): void {
  clearTimeout(timer);
  timer = setTimeout(() => {
    const text = query.value;
    save();
    // An empty query is sent too: the host stops refreshing the one before it.
    vscode.postMessage({ type: 'search', query: text, filters: currentFilters() });
    if (text.trim() === '') {
      list.replaceChildren();
      more.hidden = true;
      note.textContent = '';
      return;
    }
    status.classList.add('busy');
  }, debounceMs);
}

query.addEventListener('input', schedule);
pathFilter.addEventListener('input', schedule);
kindFilter.addEventListener('change', schedule);
folderFilter.addEventListener('change', schedule);
// The keyboard moves through the results as through VS Code's own lists: Down from the search box
// to the first result, Up and Down between results, Home and End, Right and Left to show and hide a
// result's explanation, Enter to open one (Ctrl+Enter to the side). Tab reaches the list once, not
// twice for every result.
query.addEventListener('keydown', (event) => {
  if (event.key !== 'ArrowDown') return;
  const first = listStops()[0];
  if (!first) return;
  event.preventDefault();
  focusStop(first);
});
list.addEventListener('keydown', (event) => {
  const stops = listStops();
  const at = stops.indexOf(event.target as HTMLButtonElement);
  if (at < 0) return;
  const toggle = stops[at]!.closest('.result')?.querySelector<HTMLButtonElement>('button.toggle');
  const expanded = toggle?.getAttribute('aria-expanded') === 'true';
  switch (event.key) {
    case 'ArrowDown':
      focusStop(stops[Math.min(at + 1, stops.length - 1)]!);
      break;
    case 'ArrowUp':
      if (at === 0) query.focus();
      else focusStop(stops[at - 1]!);
      break;
    case 'Home':
      focusStop(stops[0]!);
      break;
    case 'End':
      focusStop(stops.at(-1)!);
      break;
    case 'ArrowRight':
    case 'ArrowLeft':
      if (toggle && expanded === (event.key === 'ArrowLeft')) toggle.click();
      break;
    case 'Enter':
      // Enter clicks a button, Ctrl+Enter does not: clicked here with the key held, it opens to the side.
      if (!event.ctrlKey && !event.metaKey) return;
      stops[at]!.dispatchEvent(new MouseEvent('click', { ctrlKey: event.ctrlKey, metaKey: event.metaKey }));
      break;
    default:
      return;
  }
  event.preventDefault();
});

/** The list's rows for the keyboard, in order: each result, and a located file's frame line and chunks. */
function listStops(): HTMLButtonElement[] {
  return [...list.querySelectorAll<HTMLButtonElement>('button:not(.toggle)')];
}

/** Makes `stop` the list's one Tab stop, and focuses it. */
function focusStop(stop: HTMLButtonElement): void {
  rove(stop);
  stop.focus();
}

/** Leaves `stop` (by default the first row) the only button of the list that Tab reaches. */
function rove(stop = listStops()[0]): void {
  for (const button of list.querySelectorAll('button')) button.tabIndex = button === stop ? 0 : -1;
}

grouped.addEventListener('change', () => {
  save();
  if (last) renderResults(last);
});

function renderState(state: PanelState): void {
  status.replaceChildren();
  status.dataset.phase = state.phase;
  const line = el('div', 'state-line');
  const chunks = state.chunks.toLocaleString('en-US');
  const files = state.files.toLocaleString('en-US');
  if (state.phase === 'indexing') {
    line.append(icon('sync'), el('span', '', ` Indexing… ${state.percent}% (${files} files, ${chunks} chunks so far)`));
    const bar = custom<HTMLElement & { value: number; max: number }>('vscode-progress-bar');
    status.append(line, bar);
  } else {
    const label = state.phase === 'paused' ? 'Paused' : state.phase === 'error' ? 'Error' : state.phase === 'starting' ? 'Starting' : 'Indexed';
    const when = state.lastUpdate ? ` · updated ${new Date(state.lastUpdate).toLocaleTimeString()}` : '';
    line.append(
      icon(state.phase === 'error' ? 'error' : state.phase === 'paused' ? 'debug-pause' : 'database'),
      el('span', '', ` ${label}: ${files} files, ${chunks} chunks${when}`),
    );
    status.append(line);
  }
  if (state.error) status.append(el('div', 'error', state.error));
  const actions = el('div', 'actions');
  const action = (label: string, what: 'rebuild' | 'pause' | 'resume') => {
    const button = custom<HTMLElement>('vscode-button', { secondary: '' });
    button.textContent = label;
    button.addEventListener('click', () => vscode.postMessage({ type: 'index', action: what }));
    return button;
  };
  actions.append(state.phase === 'indexing' ? action('Pause', 'pause') : state.phase === 'paused' ? action('Resume', 'resume') : action('Rebuild', 'rebuild'));
  status.append(actions);

  // The folder a restored view had chosen is an option only once the host has named its folders.
  const selected = restoredFolder ?? folderFilter.value;
  restoredFolder = undefined;
  folderFilter.replaceChildren();
  for (const [value, label] of [['', 'All folders'], ...state.folders.map((f) => [f.id, f.name])] as Array<[string, string]>) {
    const option = custom<HTMLElement>('vscode-option', { value });
    option.textContent = label;
    folderFilter.append(option);
  }
  folderFilter.value = selected ?? '';
  folderFilter.hidden = state.folders.length < 2;
}

/** Places of a result's copies its tooltip names. */
const COPIES_ON_HOVER = 10;

function snippet(result: FolderResult): HTMLElement {
  const pre = el('pre', 'snippet');
  let at = 0;
  for (const [start, end] of result.matches) {
    if (start > at) pre.append(document.createTextNode(result.snippet.slice(at, start)));
    pre.append(el('mark', '', result.snippet.slice(start, end)));
    at = end;
  }
  pre.append(document.createTextNode(result.snippet.slice(at)));
  return pre;
}

function bar(label: string, value: number, max: number, detail: string): HTMLElement {
  const row = el('div', 'bar-row');
  const track = el('div', 'bar-track');
  const fill = el('div', 'bar-fill');
  fill.style.width = `${Math.max(2, Math.min(100, (100 * value) / max))}%`;
  track.append(fill);
  row.append(el('span', 'bar-label', label), track, el('span', 'bar-value', detail));
  return row;
}

function explanation(result: FolderResult, maxContribution: number): HTMLElement {
  const box = el('div', 'explain');
  for (const line of describe(result)) {
    if (line.contribution !== undefined) box.append(bar(line.label, line.contribution, maxContribution, line.text));
    else box.append(el('div', line.topic === 'stage' ? 'explain-head' : 'explain-line', `${line.label}: ${line.text}`));
  }
  return box;
}

function row(result: FolderResult, index: number, multiRoot: boolean, maxContribution: number, showPath: boolean): HTMLElement {
  const item = el('div', 'result');
  item.setAttribute('role', 'listitem');
  item.dataset.index = String(index);
  item.dataset.key = `${result.folderName}/${result.path}:${result.startLine}-${result.endLine}`;
  const head = el('div', 'result-head');
  const toggle = el('button', 'toggle');
  toggle.title = 'Why this result?';
  toggle.setAttribute('aria-label', 'Explain');
  toggle.setAttribute('aria-expanded', 'false');
  toggle.append(icon('chevron-right'));
  const open = el('button', 'open');
  open.title = `Open ${result.path}:${result.startLine}-${result.endLine}`;
  open.append(chunkIcon(result.kind), el('span', 'rank', `${index + 1}.`), el('span', 'title', result.title || result.path));
  const badge = custom<HTMLElement>('vscode-badge', { variant: 'default' });
  badge.className = `stage stage-${result.stage}`;
  badge.textContent = STAGE_LABEL[result.stage];
  head.append(toggle, open, badge);
  // Folders, file name and range apart: a long path gives way from its folders, then from its
  // file's name, and the range stays in view (the whole on hover).
  const folders = showPath ? result.path.slice(0, result.path.lastIndexOf('/') + 1) : '';
  const whereLine = el('div', 'where');
  whereLine.append(
    el('span', 'folders', `${multiRoot ? `${result.folderName} › ` : ''}${folders}`),
    el('span', 'file', showPath ? result.path.slice(folders.length) : ''),
    el('span', 'range', `:${result.startLine}–${result.endLine}`),
  );
  whereLine.title = whereLine.textContent!;
  if (result.copies) {
    // The count on the line, the places on hover: a section pasted into 35 pages would fill the panel.
    const copies = el('span', 'copies', ` · ${copiesCount(result.copies)}`);
    copies.title = copiesNote(result.copies, COPIES_ON_HOVER);
    whereLine.append(copies);
  }
  item.append(head, whereLine, snippet(result));
  let details: HTMLElement | undefined;
  toggle.addEventListener('click', () => {
    if (details) {
      details.remove();
      details = undefined;
    } else {
      details = explanation(result, maxContribution);
      item.append(details);
    }
    toggle.setAttribute('aria-expanded', String(Boolean(details)));
    toggle.replaceChildren(icon(details ? 'chevron-down' : 'chevron-right'));
  });
  // Ctrl (Cmd on a Mac) with a click or Enter opens the result beside the editor, as in VS Code's lists.
  open.addEventListener('click', (event) => vscode.postMessage({ type: 'open', index, ...(event.ctrlKey || event.metaKey ? { toSide: true } : {}) }));
  return item;
}

/**
 * What drawing the same search's results again keeps, as VS Code's lists do when their items change:
 * the explanations shown, and the focus: on the same result, or, for a page asked for from the
 * focused "Show more results" button (which hides after the last page), on the page's first result.
 */
interface KeptView {
  expanded: Set<string>;
  focus?: { key: string; toggle: boolean; at: number } | { firstNew: number };
}

function keptView(): KeptView {
  const rowKey = (button: Element) => button.closest<HTMLElement>('.result')?.dataset.key ?? '';
  const expanded = new Set([...list.querySelectorAll('button.toggle[aria-expanded="true"]')].map(rowKey));
  if (focusNextPage) return { expanded, focus: { firstNew: list.querySelectorAll('.result').length } };
  const active = document.activeElement;
  if (!(active instanceof HTMLButtonElement) || !list.contains(active)) return { expanded };
  const toggle = active.classList.contains('toggle');
  const stop = toggle ? active.parentElement?.querySelector('button.open') : active;
  return { expanded, focus: { key: rowKey(active), toggle, at: listStops().indexOf(stop as HTMLButtonElement) } };
}

function restoreView({ expanded, focus }: KeptView): void {
  const rows = [...list.querySelectorAll<HTMLElement>('.result')];
  for (const row of rows) if (expanded.has(row.dataset.key!)) row.querySelector<HTMLButtonElement>('button.toggle')?.click();
  if (!focus) return;
  if ('firstNew' in focus) {
    const first = rows[focus.firstNew]?.querySelector<HTMLButtonElement>('button.open');
    if (first) focusStop(first);
    return;
  }
  // The same result if it is still listed, else the one now at its place; the search box if none is.
  const row = rows.find((r) => r.dataset.key === focus.key);
  const stops = listStops();
  const stop = row?.querySelector<HTMLButtonElement>('button.open') ?? stops[Math.min(focus.at, stops.length - 1)];
  if (!stop) {
    query.focus();
    return;
  }
  focusStop(stop);
  if (focus.toggle) stop.parentElement?.querySelector<HTMLButtonElement>('button.toggle')?.focus();
}

function renderResults(message: Extract<HostNotification, { type: 'results' }>): void {
  const kept = last?.query === message.query ? keptView() : undefined;
  focusNextPage = false;
  last = message;
  status.classList.remove('busy');
  more.hidden = !message.more;
  more.disabled = false;
  const corrected = message.corrections.length > 0 ? `Showing results for ${correctedQuery(message.query, message.corrections)}` : '';
  const missing = message.unmatched.length > 0 ? ` · ${unmatchedNote(message.unmatched)}` : '';
  const lane = message.semanticSkipped ? ` · semantic list skipped: ${message.semanticSkipped}` : '';
  const partial = message.partial ? ` · ${message.partial}` : '';
  const like = message.similar ? ` ${message.query}` : '';
  note.textContent = (corrected || `${message.results.length} results${like} in ${message.elapsedMs.toFixed(0)} ms`) + missing + lane + partial;
  const max = Math.max(1e-9, ...message.results.flatMap((r) => Object.values(r.explain.rrf.contributions)));
  const children: HTMLElement[] = [];
  if (message.results.length === 0) children.push(el('div', 'empty', 'No results.'));
  if (grouped.checked) {
    const groups = new Map<string, Array<[FolderResult, number]>>();
    message.results.forEach((r, i) => {
      const key = `${r.folderName}/${r.path}`;
      groups.set(key, [...(groups.get(key) ?? []), [r, i]]);
    });
    for (const entries of groups.values()) {
      const first = entries[0]![0];
      const header = el('div', 'group');
      header.append(
        fileIcon(entries.map(([r]) => r)),
        el('span', 'path', ` ${message.multiRoot ? `${first.folderName} › ` : ''}${first.path}`),
        el('span', 'count', ` ${entries.length}`),
      );
      children.push(header, ...entries.map(([r, i]) => row(r, i, false, max, false)));
    }
  } else {
    message.results.forEach((r, i) => children.push(row(r, i, message.multiRoot, max, true)));
  }
  list.replaceChildren(...children);
  rove();
  if (kept) restoreView(kept);
}

/** The files a pasted issue or stack trace points at: each opens at its best chunk, each chunk at itself. */
function renderLocated(message: Extract<HostNotification, { type: 'located' }>): void {
  last = undefined;
  status.classList.remove('busy');
  more.hidden = true;
  const from = message.source ? ` in ${message.source}` : '';
  note.textContent = `Located ${message.files.length} file${message.files.length === 1 ? '' : 's'} from ${message.summary}${from} (${message.elapsedMs.toFixed(0)} ms)`;
  const children: HTMLElement[] = [];
  if (message.files.length === 0) children.push(el('div', 'empty', 'No indexed file matches what the text points at.'));
  message.files.forEach((file, index) => {
    const item = el('div', 'result located');
    item.setAttribute('role', 'listitem');
    item.dataset.index = String(index);
    const head = el('div', 'result-head');
    const open = el('button', 'open');
    const at = file.line !== undefined ? `:${file.line}` : '';
    open.title = `Open ${file.path}${file.line !== undefined ? ` at line ${file.line}, where its stack frame points` : ''}`;
    open.append(
      fileIcon(file.chunks),
      el('span', 'rank', `${index + 1}.`),
      el('span', 'title', `${message.multiRoot ? `${file.folderName} › ` : ''}${file.path}${at}`),
    );
    open.addEventListener('click', () => vscode.postMessage({ type: 'openLocated', index }));
    const score = custom<HTMLElement>('vscode-badge', { variant: 'counter' });
    score.textContent = file.score.toFixed(1);
    head.append(open, score);
    item.append(head);
    // The line the stack frame names, as the source reads; a click opens the file there, as the file's own button does.
    if (file.lineText !== undefined) {
      const frameLine = el('button', 'snippet frame-line', `${file.line}: ${file.lineText}`);
      frameLine.title = open.title;
      frameLine.addEventListener('click', () => vscode.postMessage({ type: 'openLocated', index }));
      item.append(frameLine);
    }
    const why = el('ul', 'why');
    for (const reason of file.why) why.append(el('li', '', reason));
    item.append(why);
    file.chunks.forEach((chunk, chunkIndex) => {
      const line = el('button', 'chunk');
      line.title = `Open ${file.path}:${chunk.startLine}-${chunk.endLine}`;
      line.append(chunkIcon(chunk.kind), el('span', 'title', chunk.title), el('span', 'where', `:${chunk.startLine}–${chunk.endLine}`));
      line.addEventListener('click', () => vscode.postMessage({ type: 'openLocated', index, chunk: chunkIndex }));
      item.append(line);
    });
    children.push(item);
  });
  list.replaceChildren(...children);
  rove();
}

window.addEventListener('message', (event: MessageEvent<HostNotification>) => {
  const message = event.data;
  switch (message.type) {
    case 'state':
      debounceMs = message.state.debounceMs;
      renderState(message.state);
      break;
    case 'results':
      if (message.similar) {
        renderResults(message);
        break;
      }
      if (message.query !== query.value) break;
      // A later page goes below the results shown, numbered on from them.
      if (message.offset > 0 && last?.query === message.query) renderResults({ ...message, offset: 0, results: [...last.results, ...message.results] });
      else if (message.offset === 0) renderResults(message);
      break;
    case 'failed':
      focusNextPage = false;
      status.classList.remove('busy');
      more.disabled = false;
      note.textContent = `Search failed: ${message.message}`;
      break;
    case 'located':
      renderLocated(message);
      break;
    case 'setQuery':
      query.value = message.query;
      schedule();
      break;
    case 'clear':
      clearTimeout(timer);
      query.value = '';
      last = undefined;
      list.replaceChildren();
      note.textContent = '';
      more.hidden = true;
      status.classList.remove('busy');
      save();
      break;
  }
});

const saved = vscode.getState() as Partial<SavedView> | undefined;
const savedFilters: PanelFilters = { path: '', kind: '', folder: '', ...saved?.filters };
query.value = saved?.query ?? '';
pathFilter.value = savedFilters.path;
kindFilter.value = savedFilters.kind;
restoredFolder = savedFilters.folder;
grouped.checked = saved?.grouped ?? false;
// The host answers with what the view showed last: the located files, or this search's results.
// Searching from here could put an older search's results over the located files.
const restore = query.value.trim() === '' ? undefined : { query: query.value, filters: savedFilters };
if (restore) status.classList.add('busy');
vscode.postMessage({ type: 'ready', ...(restore ? { restore } : {}) });
