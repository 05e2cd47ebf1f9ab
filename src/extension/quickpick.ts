// "Fused Search: Search Workspace": a quick pick whose items are search results, re-queried as the
// user types (debounced; the client cancels the query in flight). Moving through items previews the
// chunk with its range highlighted; Enter opens it; Escape puts the editor back where it was.

import * as vscode from 'vscode';
import { copiesCount, partialNote, unmatchedNote } from '../core/describe.ts';
import type { FolderResult, SearchAnswer } from '../protocol/worker.ts';
import type { EngineClient } from '../worker/client.ts';
import { openResult, resultRange, resultUri, sameChunk, showLines, type OpenOptions, type ResultsModel } from './results.ts';
import type { Settings } from './settings.ts';
import { allTabs, textTabUri } from './tabs.ts';
import { correctedQuery } from '../protocol/corrections.ts';

interface ResultItem extends vscode.QuickPickItem {
  result?: FolderResult;
}

export function oneLine(text: string, max = 140): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

const OPEN_TO_SIDE: vscode.QuickInputButton = { iconPath: new vscode.ThemeIcon('split-horizontal'), tooltip: 'Open to the Side' };

export function itemFor(result: FolderResult, multiRoot: boolean): ResultItem {
  const icon = result.kind === 'code' ? '$(symbol-method)' : '$(book)';
  const where = `${multiRoot ? `${result.folderName} › ` : ''}${result.path}:${result.startLine}`;
  const meaning = result.explain.semantic;
  return {
    label: `${icon} ${result.title || result.path}`,
    description: `${where} · ${result.stage}${meaning ? ` · semantic #${meaning.rank}, cosine ${meaning.cosine.toFixed(2)}` : ''}${result.copies ? ` · ${copiesCount(result.copies)}` : ''}`,
    detail: oneLine(result.snippet),
    alwaysShow: true,
    buttons: [OPEN_TO_SIDE],
    result,
  };
}

/** What the quick pick's title says about the answer: the corrected query, words no file holds, and a semantic lane that sat it out. */
export function answerNote(answer: SearchAnswer): string | undefined {
  const notes = [
    answer.corrections.length > 0 ? `showing results for ${correctedQuery(answer.query, answer.corrections)}` : '',
    answer.unmatched.length > 0 ? unmatchedNote(answer.unmatched) : '',
    answer.semantic?.skipped ? `semantic list skipped: ${oneLine(answer.semantic.skipped, 80)}` : '',
    answer.partial ? partialNote(answer.partial) : '',
  ].filter(Boolean);
  return notes.length > 0 ? notes.join(' · ') : undefined;
}

export interface QuickPickDeps {
  client: EngineClient;
  model: ResultsModel;
  settings: () => Settings;
  multiRoot: () => boolean;
  /** Fires when an index's content changed: results from a first index still running are asked for again. */
  indexChanged: vscode.Event<void>;
  log: vscode.LogOutputChannel;
}

/**
 * What the last pick still does to the editors once hidden: putting back the editor it started from,
 * or opening the choice. Either takes the focus, which closes a pick shown before it is done.
 */
let settling: Promise<unknown> = Promise.resolve();

function settle<T>(task: Promise<T>): Promise<T> {
  settling = task.catch(() => undefined);
  return task;
}

/** The pick on screen: the command run again while it shows keeps it, as Quick Open does. */
let shown: { pick: vscode.QuickPick<ResultItem>; search: (query: string) => void; next: () => void } | undefined;

/**
 * Shows the quick pick, or with one on screen, moves it to its next result (given words to search,
 * searches them in it instead): pressing the shortcut again does not throw away what was typed.
 */
export async function showSearchQuickPick(deps: QuickPickDeps, initial = ''): Promise<vscode.QuickPick<ResultItem>> {
  if (shown) {
    if (initial) shown.search(initial);
    else shown.next();
    return shown.pick;
  }
  await settling;
  const pick = vscode.window.createQuickPick<ResultItem>();
  pick.placeholder = 'Search the workspace (Fused: Porter + trigram, RRF, proximity, typo correction)';
  pick.matchOnDescription = false;
  pick.matchOnDetail = false;
  const before = vscode.window.activeTextEditor;
  const restore = before && { document: before.document, selection: before.selection, visible: before.visibleRanges[0], column: before.viewColumn };
  const openBefore = new Set(allTabs().flatMap((tab) => textTabUri(tab)?.toString() ?? []));
  /** Files the previews showed: the preview tab they leave is closed when the pick does not open it. */
  const previewed = new Set<string>();
  let accepted = false;
  let hidden = false;
  let timer: NodeJS.Timeout | undefined;
  let generation = 0;
  let previews = 0;
  /** The newest preview's open: closing the pick waits for it, or it could open over what closing shows. */
  let previewing: Promise<unknown> = Promise.resolve();
  /** The items shown came from a first index still running: more may have been indexed since. */
  let partial = false;
  /**
   * The results the shortcut moved to since VS Code last reported the latest of them. Each move
   * comes back as a change of the active item, after any press that followed: read meanwhile,
   * `pick.activeItems` names an earlier move, and a quick press moved from there: pressed six
   * times on a busy machine, the pick moved three.
   */
  let moves: ResultItem[] = [];
  /** The result after the active one, from the last back to the first. */
  const next = () => {
    const results = pick.items.filter((item) => item.result);
    if (results.length === 0) return;
    const reported = pick.activeItems[0];
    const from = reported && moves.includes(reported) ? moves.at(-1) : reported;
    const to = results[((from ? results.indexOf(from) : -1) + 1) % results.length]!;
    moves.push(to);
    pick.activeItems = [to];
  };
  // The pick owns its preview highlight: disposing the type on hide also takes it off every editor.
  const highlight = vscode.window.createTextEditorDecorationType({
    backgroundColor: new vscode.ThemeColor('editor.rangeHighlightBackground'),
    isWholeLine: true,
  });
  const disposables: vscode.Disposable[] = [highlight];

  /** Asks `query`; `again` when it is the query shown, asked again as a first index brings more files. */
  const run = async (query: string, again = false) => {
    const mine = ++generation;
    if (query.trim() === '') {
      pick.items = [];
      pick.title = undefined;
      pick.busy = false;
      return;
    }
    pick.busy = true;
    const started = performance.now();
    const answer = await deps.client.search({ type: 'search', query, options: deps.settings().search });
    if (mine !== generation) return;
    // A keystroke still waiting out its debounce is a newer query on its way: still busy.
    pick.busy = timer !== undefined;
    if (!answer.ok) {
      if (answer.error.code !== 'cancelled') {
        pick.items = [{ label: `$(error) ${answer.error.message}`, alwaysShow: true }];
        deps.log.error(`search failed: ${answer.error.message}`);
      }
      return;
    }
    deps.log.trace(`quick pick "${query}": ${answer.value.results.length} results in ${(performance.now() - started).toFixed(1)} ms`);
    if (again) deps.model.refresh(answer.value);
    else deps.model.set(answer.value);
    partial = answer.value.partial !== undefined;
    const multiRoot = deps.multiRoot();
    const note = answerNote(answer.value);
    pick.title = note;
    const items: ResultItem[] = answer.value.results.map((r) => itemFor(r, multiRoot));
    if (note) items.unshift({ label: note, kind: vscode.QuickPickItemKind.Separator });
    // New items make the first one active: asked again, the result a person moved to stays active
    // (if still listed), as it keeps the focus in the panel, rather than the pick jumping back.
    const active = again ? pick.activeItems[0]?.result : undefined;
    pick.items = items.length > 0 ? items : [{ label: '$(info) No results', alwaysShow: true }];
    const same = active && items.find((item) => item.result && sameChunk(item.result, active));
    if (same) pick.activeItems = [same];
  };

  /** Shows the editor the pick started from again, and closes the preview tab its previews left. */
  const putBack = async () => {
    await previewing;
    if (restore) {
      const editor = await vscode.window.showTextDocument(restore.document, { viewColumn: restore.column, selection: restore.selection, preview: false });
      if (restore.visible) editor.revealRange(restore.visible, vscode.TextEditorRevealType.AtTop);
    }
    const left = allTabs().filter((tab) => {
      const uri = textTabUri(tab)?.toString();
      return tab.isPreview && uri !== undefined && previewed.has(uri) && !openBefore.has(uri);
    });
    if (left.length > 0) await vscode.window.tabGroups.close(left);
  };
  const open = async (result: FolderResult, options: OpenOptions = {}) => {
    accepted = true;
    deps.model.current = deps.model.results.indexOf(result);
    pick.hide();
    const opening = async () => {
      // Beside the editor the pick started from, not beside a preview.
      if (options.toSide) await putBack();
      else await previewing;
      await openResult(result, options);
    };
    await settle(opening());
  };

  disposables.push(
    deps.indexChanged(() => {
      // Asked again as typed now; a keystroke waiting out its debounce will ask itself.
      if (partial && !timer && !accepted) void run(pick.value, true);
    }),
    pick.onDidChangeValue((value) => {
      clearTimeout(timer);
      pick.busy = true;
      timer = setTimeout(() => {
        timer = undefined;
        void run(value);
      }, deps.settings().debounceMs);
    }),
    pick.onDidChangeActive(async ([item]) => {
      // Caught up with the last move, or moved by the person (the arrow keys, the mouse): the moves are past.
      if (!item || !moves.includes(item) || item === moves.at(-1)) moves = [];
      const result = item?.result;
      if (!result || accepted || hidden) return;
      const mine = ++previews;
      previewed.add(resultUri(result).toString());
      const stale = () => mine !== previews || accepted || hidden;
      try {
        const opening = (async () => {
          // A file not open yet takes a round trip to load, one that the next item's file, if open,
          // does not: shown once loaded, it would cover the active item's preview (or the editor
          // Escape put back). Loaded, it is shown only if it is still the item wanted.
          const document = await vscode.workspace.openTextDocument(resultUri(result));
          return stale() ? undefined : showLines(document, result, { preview: true, preserveFocus: true });
        })();
        previewing = opening.catch(() => undefined);
        const editor = await opening;
        // A preview that opens after the pick closed would set a disposed decoration type.
        if (editor && !hidden) editor.setDecorations(highlight, [resultRange(result, editor.document)]);
      } catch (error) {
        // VS Code refuses an open that a later one superseded: the next item's preview (closing the
        // pick waits for the newest). Only a preview still wanted failed for a reason.
        const message = `cannot preview ${result.path}: ${String(error)}`;
        if (stale()) deps.log.trace(message);
        else deps.log.warn(message);
      }
    }),
    pick.onDidAccept(async () => {
      // Enter can cross a newer query's results replacing the items. The selection then comes back
      // as the item at the old position in the new list — possibly the "showing results for"
      // separator, which has no result, and Enter would do nothing. Open a result in any case.
      const item = [...pick.selectedItems, ...pick.activeItems].find((i) => i.result) ?? pick.items.find((i) => i.result);
      if (item?.result) await open(item.result);
    }),
    pick.onDidTriggerItemButton(async ({ item }) => {
      if (item.result) await open(item.result, { toSide: true });
    }),
    pick.onDidHide(async () => {
      hidden = true;
      if (shown?.pick === pick) shown = undefined;
      clearTimeout(timer);
      for (const d of disposables) d.dispose();
      pick.dispose();
      if (!accepted) await settle(putBack());
    }),
  );
  const search = (query: string) => {
    clearTimeout(timer);
    timer = undefined;
    pick.value = query;
    void run(query);
  };
  pick.show();
  shown = { pick, search, next };
  if (initial) search(initial);
  return pick;
}

export { resultUri };
