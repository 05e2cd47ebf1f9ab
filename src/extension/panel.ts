// The sidebar's webview view: hosts media/dist/panel.js, answers its searches through the worker,
// and keeps it told about the index. Only files under media/ are loadable; scripts need the nonce.

import { randomBytes } from 'node:crypto';
import * as vscode from 'vscode';
import { partialNote } from '../core/describe.ts';
import { filtersFor, globsOf, resolveSearchOptions } from '../core/options.ts';
import type { EngineClient } from '../worker/client.ts';
import type { IndexController } from './indexing.ts';
import { isViewCommand, type HostNotification, type PanelFilters, type PanelState } from '../protocol/panel.ts';
import { clueSummary } from '../core/locate-output.ts';
import type { FolderLocateAnswer, SearchAnswer } from '../protocol/worker.ts';
import { openLines, type ResultsModel } from './results.ts';
import type { Settings } from './settings.ts';

export const PANEL_VIEW_ID = 'fusedSearch.panel';

/**
 * The view's newest search: the results the view lists (every page shown; the next page starts
 * after them), whether they came from a first index still running, and whether its next page is on
 * its way (a second click waits).
 */
interface ViewSearch {
  kind: 'search';
  query: string;
  filters: PanelFilters;
  listed?: SearchAnswer;
  partial: boolean;
  paging: boolean;
}

/**
 * What the view lists that it did not search for: the located files (which `openLocated` indexes
 * into) and where their text came from, or the chunks like one (Find Similar Chunks).
 */
type Pinned = { kind: 'located'; answer: FolderLocateAnswer; source: string | undefined } | { kind: 'similar'; answer: SearchAnswer };

export class PanelProvider implements vscode.WebviewViewProvider, vscode.Disposable {
  private view: vscode.WebviewView | undefined;
  private readonly disposables: vscode.Disposable[] = [];
  private readonly media: vscode.Uri;
  /** A query for the view's search box, filled in when its page loads if it was not loaded yet. */
  private pendingQuery: string | undefined;
  /**
   * What the view lists: its search, a pinned list, or nothing since Clear Results (a page loaded
   * again stays empty, though its saved state still holds the old query); none before any.
   */
  private shown: ViewSearch | Pinned | { kind: 'cleared' } | undefined;
  private readonly deps: { client: EngineClient; index: IndexController; model: ResultsModel; settings: () => Settings; log: vscode.LogOutputChannel };

  constructor(extensionUri: vscode.Uri, deps: PanelProvider['deps']) {
    this.media = vscode.Uri.joinPath(extensionUri, 'media');
    this.deps = deps;
    this.disposables.push(
      deps.index.onDidChange(() => this.postState()),
      deps.index.onDidChangeIndex(() => {
        // More of a first index is in: the view's results are asked for again.
        if (this.shown?.kind === 'search' && this.shown.partial) void this.search(this.shown.query, this.shown.filters, this.shown);
      }),
    );
  }

  resolveWebviewView(view: vscode.WebviewView): void {
    this.view = view;
    view.webview.options = { enableScripts: true, localResourceRoots: [this.media] };
    view.webview.html = this.html(view.webview);
    this.disposables.push(
      view.webview.onDidReceiveMessage((message: unknown) => {
        if (!isViewCommand(message)) {
          this.deps.log.warn(`the panel sent a malformed message: ${JSON.stringify(message)}`);
          return;
        }
        switch (message.type) {
          case 'ready':
            // A page loaded again shows what it showed before VS Code dropped it: the located files
            // or similar chunks if they were shown last, else its search.
            this.postState();
            if (this.pendingQuery !== undefined) this.post({ type: 'setQuery', query: this.pendingQuery });
            else if (this.shown?.kind === 'located' || this.shown?.kind === 'similar') this.postPinned(this.shown);
            else if (this.shown?.kind === 'cleared') this.post({ type: 'clear' });
            else if (message.restore) void this.search(message.restore.query, message.restore.filters);
            this.pendingQuery = undefined;
            return;
          case 'search':
            // The view's list now answers the search (it replaces what was shown), and a query the
            // host was to fill in was filled in or typed over (else a later page load would fill it
            // in again).
            this.pendingQuery = undefined;
            void this.search(message.query, message.filters);
            return;
          case 'more':
            void this.more();
            return;
          case 'open': {
            // The list clicked is the view's, whatever the quick pick searched since: the results
            // CodeLens marks and next/previous move through become the view's again.
            const listed = this.shown?.kind === 'similar' ? this.shown.answer : this.shown?.kind === 'search' ? this.shown.listed : undefined;
            if (!listed) return;
            if (this.deps.model.answer !== listed) this.deps.model.set(listed);
            void this.deps.model.openAt(message.index, { toSide: message.toSide });
            return;
          }
          case 'openLocated': {
            const file = this.shown?.kind === 'located' ? this.shown.answer.files[message.index] : undefined;
            if (!file) return;
            // The file itself opens where its stack frame says the program was, else at its best chunk.
            const frameLine = message.chunk === undefined && file.line !== undefined ? { startLine: file.line, endLine: file.line } : undefined;
            void openLines(file.absPath, frameLine ?? file.chunks[message.chunk ?? 0] ?? { startLine: 1, endLine: 1 });
            return;
          }
          case 'index':
            void vscode.commands.executeCommand(
              message.action === 'rebuild'
                ? 'fusedSearch.rebuildIndex'
                : message.action === 'pause'
                  ? 'fusedSearch.pauseIndexing'
                  : 'fusedSearch.resumeIndexing',
            );
            return;
        }
      }),
      view.onDidDispose(() => (this.view = undefined)),
    );
  }

  /** Shows the panel with `query` in its search box. */
  async reveal(query?: string): Promise<void> {
    if (query !== undefined) this.pendingQuery = query;
    await vscode.commands.executeCommand(`${PANEL_VIEW_ID}.focus`);
    if (this.view && query !== undefined) {
      this.post({ type: 'setQuery', query });
    }
  }

  /** Empties the view: its search box, and the results, located files or similar chunks it lists. */
  clear(): void {
    this.shown = { kind: 'cleared' };
    this.pendingQuery = undefined;
    this.post({ type: 'clear' });
  }

  /** Shows the panel with the files a `locate` answer ranks. */
  async showLocated(answer: FolderLocateAnswer, source?: string): Promise<void> {
    await this.showPinned({ kind: 'located', answer, source });
  }

  /** Shows the panel with the chunks like one (Find Similar Chunks). */
  async showSimilar(answer: SearchAnswer): Promise<void> {
    await this.showPinned({ kind: 'similar', answer });
  }

  private async showPinned(pinned: Pinned): Promise<void> {
    // The view's search no longer shows: a first index's progress must not ask it again over these.
    this.shown = pinned;
    this.pendingQuery = undefined;
    await vscode.commands.executeCommand(`${PANEL_VIEW_ID}.focus`);
    // A view resolved by the focus above asks with 'ready', which sends them too.
    this.postPinned(pinned);
  }

  private postPinned(pinned: Pinned): void {
    const multiRoot = this.deps.index.folders.length > 1;
    if (pinned.kind === 'located') {
      const { answer, source } = pinned;
      this.post({ type: 'located', ...answer, summary: clueSummary(answer), ...(source ? { source } : {}), multiRoot });
      return;
    }
    const { query, results, elapsedMs } = pinned.answer;
    this.post({ type: 'results', query, results, offset: 0, more: false, corrections: [], unmatched: [], elapsedMs, multiRoot, similar: true });
  }

  /** Asks the view's search; `again`, the search it shows, asked again as a first index brings more files. */
  private async search(query: string, filters: PanelFilters, again?: ViewSearch): Promise<void> {
    const search: ViewSearch | undefined = query.trim() === '' ? undefined : { kind: 'search', query, filters, partial: false, paging: false };
    this.shown = search;
    if (!search) return;
    const page = await this.nextPage(search);
    if (!page) return;
    search.listed = page.answer;
    // Asked again, next/previous go on from the result they were at, unless the quick pick has searched since.
    if (!again) this.deps.model.set(search.listed);
    else if (this.deps.model.answer === again.listed) this.deps.model.refresh(search.listed);
    search.partial = page.answer.partial !== undefined;
    this.postPage(search, page);
  }

  /** The next page of the view's search, which the view adds below the results it shows. */
  private async more(): Promise<void> {
    const search = this.shown;
    if (search?.kind !== 'search' || search.paging) return;
    search.paging = true;
    const page = await this.nextPage(search).finally(() => (search.paging = false));
    // A search typed meanwhile replaced the one this page continues.
    if (!page || this.shown !== search || !search.listed) return;
    const following = this.deps.model.answer === search.listed;
    search.listed = { ...search.listed, results: [...search.listed.results, ...page.answer.results] };
    // Unless the quick pick has searched since, CodeLens and next/previous reach the new page too.
    if (following) this.deps.model.extend(search.listed);
    this.postPage(search, page);
  }

  /** The search's results after those the view lists, and whether a page after them has some. */
  private async nextPage(search: ViewSearch): Promise<{ answer: SearchAnswer; more: boolean } | undefined> {
    const { query, filters } = search;
    const offset = search.listed?.results.length ?? 0;
    const options = {
      ...this.deps.settings().search,
      offset,
      filters: filtersFor(globsOf(filters.path), filters.kind || undefined),
    };
    const answer = await this.deps.client.search({ type: 'search', query, options, ...(filters.folder ? { folders: [filters.folder] } : {}) });
    if (!answer.ok) {
      if (answer.error.code !== 'cancelled') this.post({ type: 'failed', query, message: answer.error.message });
      return undefined;
    }
    const { results, candidates } = answer.value;
    // Fewer than a page means the ranking ran out, whatever the lists matched before the filters.
    return { answer: answer.value, more: results.length === resolveSearchOptions(options).limit && candidates > offset + results.length };
  }

  private postPage(search: ViewSearch, { answer, more }: { answer: SearchAnswer; more: boolean }): void {
    const { results, corrections, unmatched, elapsedMs, semantic, partial } = answer;
    this.post({
      type: 'results',
      query: search.query,
      results,
      offset: answer.offset,
      more,
      corrections,
      unmatched,
      elapsedMs,
      multiRoot: this.deps.index.folders.length > 1,
      ...(semantic?.skipped ? { semanticSkipped: semantic.skipped } : {}),
      ...(partial ? { partial: partialNote(partial) } : {}),
    });
  }

  /** Sends the view the settings it applies itself (the debounce) after they changed. */
  refresh(): void {
    this.postState();
  }

  private postState(): void {
    const s = this.deps.index.state;
    const state: PanelState = {
      phase: s.phase,
      percent: s.percent,
      files: s.stats.reduce((n, x) => n + x.files, 0),
      chunks: s.stats.reduce((n, x) => n + x.chunks, 0),
      ...(s.lastUpdate !== undefined ? { lastUpdate: s.lastUpdate } : {}),
      ...(s.error !== undefined ? { error: s.error } : {}),
      folders: this.deps.index.folders.map((f) => ({ id: f.id, name: f.name })),
      debounceMs: this.deps.settings().debounceMs,
    };
    this.post({ type: 'state', state });
  }

  private post(message: HostNotification): void {
    void this.view?.webview.postMessage(message);
  }

  private html(webview: vscode.Webview): string {
    const nonce = randomBytes(16).toString('base64');
    const asset = (name: string) => webview.asWebviewUri(vscode.Uri.joinPath(this.media, 'dist', name)).toString();
    const csp = [
      "default-src 'none'",
      // No 'unsafe-inline': the elements' shadow styles are constructable stylesheets and the
      // script sets styles through the CSSOM, neither of which style-src governs.
      `style-src ${webview.cspSource}`,
      `font-src ${webview.cspSource}`,
      `img-src ${webview.cspSource}`,
      `script-src 'nonce-${nonce}'`,
    ].join('; ');
    return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${asset('codicon.css')}" id="vscode-codicon-stylesheet">
<link rel="stylesheet" href="${asset('panel.css')}">
<title>Fused Search</title>
</head>
<body>
<div id="app"></div>
<script nonce="${nonce}" src="${asset('panel.js')}"></script>
</body>
</html>`;
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
  }
}
