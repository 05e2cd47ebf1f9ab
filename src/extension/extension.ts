// The VS Code side of Fused Search. `activate` only wires things up and pushes every disposable
// into context.subscriptions; the engine starts in a worker a moment later, off the activation path.
import path from 'node:path';
import * as vscode from 'vscode';
import type { SearchOptionsInput } from '../core/options.ts';
import type { SearchAnswer } from '../protocol/worker.ts';
import { mcpServerSpecs, registerAgentSupport } from './agent.ts';
import { EngineClient } from '../worker/client.ts';
import { IndexController, secretFilesLine, type IndexState } from './indexing.ts';
import { locateInPanel, locateLastCommand, textToLocate } from './locate.ts';
import { PANEL_VIEW_ID, PanelProvider } from './panel.ts';
import { showSearchQuickPick } from './quickpick.ts';
import { ResultLensProvider, ResultsModel } from './results.ts';
import { readSettings, SECTION, type Settings } from './settings.ts';
import { TerminalOutputs } from './terminal-output.ts';
import { chooseEmbeddingModel } from './embedding-setup.ts';

/** Settings whose change means re-reading files, not just searching differently. */
const INDEX_SETTINGS = [
  'include',
  'exclude',
  'maxFileBytes',
  'chunkMaxBytes',
  'indexSecretFiles',
  'semantic.provider',
  'semantic.model',
  'semantic.endpoint',
  'semantic.dimensions',
  'semantic.batchSize',
]
  .map((k) => `${SECTION}.${k}`)
  .concat(['files.exclude', 'search.exclude']);

let stopClient: (() => Promise<void>) | undefined;

export function activate(context: vscode.ExtensionContext): void {
  const started = performance.now();
  const log = vscode.window.createOutputChannel('Fused Search', { log: true });
  let settings: Settings = readSettings(log);
  const client = new EngineClient(path.join(context.extensionPath, 'dist', 'worker.cjs'), log);
  // Not the workspace storage (context.storageUri): VS Code locks it per extension host and gives a
  // second window on the same workspace a folder of its own (`<id>-1`), which would mean a second
  // database built beside the first. In the global storage, keyed by folder, all windows share one.
  const index = new IndexController(client, log, context.globalStorageUri, context.secrets);
  const model = new ResultsModel();
  const lenses = new ResultLensProvider(model, index, () => settings.codeLens);
  const panel = new PanelProvider(context.extensionUri, { client, index, model, settings: () => settings, log });
  const terminalOutputs = new TerminalOutputs(log);
  const declared = (context.extension.packageJSON as { version?: unknown }).version;
  const version = typeof declared === 'string' ? declared : '';
  stopClient = () => client.stop();

  const search = async (query: string, options: SearchOptionsInput = {}): Promise<SearchAnswer | undefined> => {
    const answer = await client.search({ type: 'search', query, options: { ...settings.search, ...options } });
    if (!answer.ok) {
      if (answer.error.code !== 'cancelled') log.error(`search "${query}" failed: ${answer.error.message}`);
      return undefined;
    }
    model.set(answer.value);
    return answer.value;
  };
  const quickPickDeps = { client, model, settings: () => settings, multiRoot: () => index.folders.length > 1, indexChanged: index.onDidChangeIndex, log };
  const selectionText = () => {
    const editor = vscode.window.activeTextEditor;
    return editor ? editor.document.getText(editor.selection).trim().slice(0, 500) : '';
  };
  /** The narrowest indexed chunk holding the active editor's cursor. */
  const chunkAtCursor = async (): Promise<{ folder: string; chunkId: number } | undefined> => {
    const editor = vscode.window.activeTextEditor;
    const indexed = editor && (await index.chunksOf(editor.document.uri));
    if (!editor || !indexed) return undefined;
    const line = editor.selection.active.line + 1;
    const holding = indexed.chunks.filter((c) => c.startLine <= line && line <= c.endLine);
    const narrowest = holding.sort((a, b) => a.endLine - a.startLine - (b.endLine - b.startLine))[0];
    return narrowest && { folder: indexed.folder, chunkId: narrowest.chunkId };
  };
  const command = (id: string, run: (...args: never[]) => unknown) => vscode.commands.registerCommand(id, run);

  // Disposed in reverse: views and providers before the index, the index before the worker.
  context.subscriptions.push(
    log,
    client,
    index,
    model,
    lenses,
    panel,
    vscode.window.registerWebviewViewProvider(PANEL_VIEW_ID, panel, { webviewOptions: { retainContextWhenHidden: true } }),
    vscode.languages.registerCodeLensProvider({ scheme: 'file' }, lenses),
    ...registerAgentSupport({ client, index, settings: () => settings, log }, context.extensionPath, version),
    command('fusedSearch.search', () => showSearchQuickPick(quickPickDeps)),
    command('fusedSearch.searchSelection', () => showSearchQuickPick(quickPickDeps, selectionText())),
    // As Find in Files does, a selection within one line fills the search box; a longer one is
    // seldom a query, and the box keeps what it held.
    command('fusedSearch.searchInPanel', () => {
      const selected = selectionText();
      return panel.reveal(selected && !selected.includes('\n') ? selected : undefined);
    }),
    command('fusedSearch.rebuildIndex', () => index.rebuild()),
    command('fusedSearch.pauseIndexing', () => index.pause()),
    command('fusedSearch.resumeIndexing', () => index.resume()),
    command('fusedSearch.showLog', () => log.show()),
    command('fusedSearch.showIndexStatus', async () => {
      const s = index.state;
      const files = s.stats.reduce((n, x) => n + x.files, 0);
      const chunks = s.stats.reduce((n, x) => n + x.chunks, 0);
      const message = s.error
        ? `Fused Search: ${s.error}`
        : `Fused Search: ${s.phase}, ${files.toLocaleString('en-US')} files, ${chunks.toLocaleString('en-US')} chunks. ${secretFilesLine(s.stats)}`.trimEnd();
      const actions = s.phase === 'indexing' ? ['Pause', 'Show Log'] : s.phase === 'paused' ? ['Resume', 'Show Log'] : ['Rebuild Index', 'Show Log'];
      const show = s.error ? vscode.window.showErrorMessage : vscode.window.showInformationMessage;
      const choice = await show(message, ...actions);
      if (choice === 'Pause') await index.pause();
      else if (choice === 'Resume') await index.resume();
      else if (choice === 'Rebuild Index') await index.rebuild();
      else if (choice === 'Show Log') log.show();
    }),
    command('fusedSearch.nextResult', () => model.go(1)),
    command('fusedSearch.previousResult', () => model.go(-1)),
    command('fusedSearch.openResult', (i: number) => model.openAt(i)),
    command('fusedSearch.clearResults', () => {
      model.clear();
      panel.clear();
    }),
    // From a chunk's CodeLens, which names the chunk; from the palette or the editor's menu, the
    // chunk under the cursor.
    command('fusedSearch.findSimilar', async (folder?: unknown, chunkId?: unknown) => {
      const chunk = typeof folder === 'string' && typeof chunkId === 'number' ? { folder, chunkId } : await chunkAtCursor();
      if (!chunk) {
        void vscode.window.showInformationMessage('Fused Search: put the cursor in an indexed file to find the chunks like the one it is in.');
        return;
      }
      const answer = await client.search({ type: 'similar', ...chunk, options: settings.search });
      if (!answer.ok) return log.error(`find similar failed: ${answer.error.message}`);
      model.set(answer.value);
      await panel.showSimilar(answer.value);
      log.info(`${answer.value.query}: searched "${answer.value.searched}"`);
    }),
    // A text argument (tests, other extensions) is located as given.
    command('fusedSearch.locate', async (text?: unknown) =>
      locateInPanel({ client, panel, log }, typeof text === 'string' ? { text } : await textToLocate('anywhere')),
    ),
    command('fusedSearch.locateTerminalSelection', async () => locateInPanel({ client, panel, log }, await textToLocate('terminal'))),
    terminalOutputs,
    command('fusedSearch.locateLastCommand', () => locateLastCommand({ client, panel, log }, terminalOutputs)),
    command('fusedSearch.chooseEmbeddingModel', () => chooseEmbeddingModel(context.secrets, log)),
    // A key saved for the endpoint in use reaches the engine at once.
    context.secrets.onDidChange((event) => {
      if (event.key.startsWith(`${SECTION}.semantic.apiKey`)) void index.restart('the embedding key changed');
    }),
    command('fusedSearch.showVersion', () => {
      void vscode.window.showInformationMessage(`Fused Search ${version}`);
      return version;
    }),
    // For tests and other extensions: plain data in, plain data out.
    command('fusedSearch.api.search', (query: string, options?: SearchOptionsInput) => search(query, options)),
    command('fusedSearch.api.waitForIndex', async (): Promise<IndexState> => {
      await index.idle();
      return index.state;
    }),
    command('fusedSearch.api.results', () => ({ results: model.results, current: model.current })),
    command('fusedSearch.api.dbFiles', () => index.folders.map((f) => f.dbFile)),
    command('fusedSearch.api.mcpServers', () => mcpServerSpecs(index, path.join(context.extensionPath, 'dist', 'cli.cjs'))),
    command('fusedSearch.api.stopEngine', () => client.stop()),
    command('fusedSearch.api.startEngine', () => index.start()),
    command('fusedSearch.api.status', () => index.status),
    // Trust lifts the restriction on the workspace's index settings (settings-parse.ts).
    vscode.workspace.onDidGrantWorkspaceTrust(() => {
      settings = readSettings(log);
      void index.restart('the workspace is now trusted');
    }),
    vscode.workspace.onDidChangeConfiguration((event) => {
      if (!event.affectsConfiguration(SECTION) && !INDEX_SETTINGS.some((key) => event.affectsConfiguration(key))) return;
      settings = readSettings(log);
      lenses.refresh();
      panel.refresh();
      if (INDEX_SETTINGS.some((key) => event.affectsConfiguration(key))) void index.restart('index settings changed');
    }),
  );

  // Only in a build with test hooks (see CrashForTest in src/protocol/worker.ts): the shipped
  // bundle defines the variable as a constant, and this block is not in it.
  if (process.env.FUSED_SEARCH_TEST_HOOKS === 'on') {
    context.subscriptions.push(
      command('fusedSearch.api.crashWorkerForTest', (how?: 'throw' | 'exit') => client.post({ type: 'crashForTest', how: how === 'exit' ? 'exit' : 'throw' })),
    );
  }

  // The first index runs after activation returns: opening databases is the worker's business.
  setImmediate(() => void index.start().catch((error: unknown) => log.error(`indexing failed to start: ${String(error)}`)));
  log.info(`activated in ${(performance.now() - started).toFixed(1)} ms`);
}

export async function deactivate(): Promise<void> {
  await stopClient?.();
}
