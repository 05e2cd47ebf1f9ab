// The current result list (from the quick pick, the panel or "find similar"), the cursor that
// next/previous move, and the CodeLens that marks result chunks in open files.

import * as vscode from 'vscode';
import type { FolderResult, SearchAnswer } from '../protocol/worker.ts';
import type { IndexController } from './indexing.ts';

export function resultUri(result: FolderResult): vscode.Uri {
  return vscode.Uri.file(result.absPath);
}

/** The chunk's lines, clamped to what the document has now. */
export function resultRange(result: { startLine: number; endLine: number }, document?: vscode.TextDocument): vscode.Range {
  const last = document ? document.lineCount - 1 : Number.MAX_SAFE_INTEGER;
  const start = Math.min(result.startLine - 1, last);
  const end = Math.min(result.endLine - 1, last);
  const endChar = document ? document.lineAt(end).text.length : 0;
  return new vscode.Range(start, 0, end, endChar);
}

/** How a result opens: as a preview, keeping the focus where it is, beside the active editor. */
export interface OpenOptions {
  preview?: boolean;
  preserveFocus?: boolean;
  toSide?: boolean;
}

export async function openResult(result: FolderResult, options: OpenOptions = {}): Promise<vscode.TextEditor> {
  return openLines(result.absPath, result, options);
}

/** Opens a file with its 1-based lines selected and in view. */
export async function openLines(absPath: string, lines: { startLine: number; endLine: number }, options: OpenOptions = {}): Promise<vscode.TextEditor> {
  return showLines(await vscode.workspace.openTextDocument(vscode.Uri.file(absPath)), lines, options);
}

/** Shows a document already loaded with its 1-based lines selected and in view. */
export async function showLines(
  document: vscode.TextDocument,
  lines: { startLine: number; endLine: number },
  options: OpenOptions = {},
): Promise<vscode.TextEditor> {
  const range = resultRange(lines, document);
  const editor = await vscode.window.showTextDocument(document, {
    preview: options.preview ?? false,
    preserveFocus: options.preserveFocus ?? false,
    selection: range,
    ...(options.toSide ? { viewColumn: vscode.ViewColumn.Beside } : {}),
  });
  editor.revealRange(range, vscode.TextEditorRevealType.InCenterIfOutsideViewport);
  return editor;
}

export function sameChunk(a: FolderResult, b: FolderResult): boolean {
  return a.folder === b.folder && a.path === b.path && a.startLine === b.startLine && a.endLine === b.endLine;
}

export class ResultsModel implements vscode.Disposable {
  answer: SearchAnswer | undefined;
  /** Index of the result last opened through next/previous or a click; -1 before any. */
  current = -1;
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChange = this.changed.event;
  /** What the context key `fusedSearch.hasResults` says: the palette offers Next and Previous Result once there are results to move through. */
  private hasResults = false;

  get results(): FolderResult[] {
    return this.answer?.results ?? [];
  }

  set(answer: SearchAnswer): void {
    this.answer = answer;
    this.current = -1;
    this.announce();
  }

  /** The same search answered again as a first index brings more files: the cursor stays on its result, if still listed. */
  refresh(answer: SearchAnswer): void {
    const at = this.results[this.current];
    this.answer = answer;
    this.current = at ? answer.results.findIndex((result) => sameChunk(result, at)) : -1;
    this.announce();
  }

  /** The same search's answer with a later page below its results: the cursor stays where it is. */
  extend(answer: SearchAnswer): void {
    this.answer = answer;
    this.announce();
  }

  clear(): void {
    this.answer = undefined;
    this.current = -1;
    this.announce();
  }

  async go(step: 1 | -1): Promise<FolderResult | undefined> {
    const n = this.results.length;
    if (n === 0) {
      void vscode.window.showInformationMessage('Fused Search: no results to move through; search first.');
      return undefined;
    }
    this.current = this.current < 0 ? (step === 1 ? 0 : n - 1) : (this.current + step + n) % n;
    return this.openAt(this.current);
  }

  async openAt(index: number, options: OpenOptions = {}): Promise<FolderResult | undefined> {
    const result = this.results[index];
    if (!result) return undefined;
    this.current = index;
    await openResult(result, options);
    this.announce();
    return result;
  }

  private announce(): void {
    const has = this.results.length > 0;
    if (has !== this.hasResults) {
      this.hasResults = has;
      void vscode.commands.executeCommand('setContext', 'fusedSearch.hasResults', has);
    }
    this.changed.fire();
  }

  dispose(): void {
    this.changed.dispose();
  }
}

export class ResultLensProvider implements vscode.CodeLensProvider, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeCodeLenses = this.changed.event;
  private readonly disposables: vscode.Disposable[] = [];
  private readonly model: ResultsModel;
  private readonly index: IndexController;
  private readonly options: () => { results: boolean; chunks: boolean };

  constructor(model: ResultsModel, index: IndexController, options: () => { results: boolean; chunks: boolean }) {
    this.model = model;
    this.index = index;
    this.options = options;
    this.disposables.push(
      this.changed,
      model.onDidChange(() => this.changed.fire()),
      index.onDidChange(() => this.options().chunks && this.changed.fire()),
    );
  }

  refresh(): void {
    this.changed.fire();
  }

  async provideCodeLenses(document: vscode.TextDocument): Promise<vscode.CodeLens[]> {
    const lenses: vscode.CodeLens[] = [];
    const options = this.options();
    if (options.results) {
      const results = this.model.results;
      results.forEach((result, i) => {
        if (result.absPath === document.uri.fsPath) {
          const line = resultRange(result, document).start;
          const range = new vscode.Range(line, line);
          lenses.push(
            new vscode.CodeLens(range, {
              title: `Fused #${i + 1} of ${results.length} · ${result.stage}`,
              command: 'fusedSearch.openResult',
              arguments: [i],
              tooltip: `${result.title} — score ${result.score.toFixed(4)}`,
            }),
            new vscode.CodeLens(range, { title: '◂ previous', command: 'fusedSearch.previousResult', tooltip: 'Previous Fused Search result' }),
            new vscode.CodeLens(range, { title: 'next ▸', command: 'fusedSearch.nextResult', tooltip: 'Next Fused Search result' }),
          );
        }
        // A copy folded into the result is marked too, and its lens opens the result.
        for (const copy of result.copies ?? []) {
          if (copy.absPath !== document.uri.fsPath) continue;
          const line = resultRange(copy, document).start;
          lenses.push(
            new vscode.CodeLens(new vscode.Range(line, line), {
              title: `Fused #${i + 1} of ${results.length} · ${copy.alike ? 'much the same text' : 'same text'} as ${result.path}:${result.startLine}`,
              command: 'fusedSearch.openResult',
              arguments: [i],
              tooltip: `${result.title}: this chunk's text is ${copy.alike ? 'much like ' : ''}result #${i + 1}'s, which stands for it`,
            }),
          );
        }
      });
    }
    if (options.chunks) {
      const indexed = await this.index.chunksOf(document.uri);
      indexed?.chunks.forEach((chunk, i) => {
        const line = Math.min(chunk.startLine - 1, document.lineCount - 1);
        const range = new vscode.Range(line, 0, line, 0);
        lenses.push(
          new vscode.CodeLens(range, { title: `chunk ${i + 1}/${indexed.chunks.length} · ${chunk.title}`, command: '' }),
          new vscode.CodeLens(range, { title: 'Find similar', command: 'fusedSearch.findSimilar', arguments: [indexed.folder, chunk.chunkId] }),
        );
      });
    }
    return lenses;
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
  }
}
