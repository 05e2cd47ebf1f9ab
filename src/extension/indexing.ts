// Keeps one index per workspace folder in step with the files: the first full sync in the
// background (status bar, and a cancellable notification the first time), pause/resume/rebuild,
// and freshness from saves and a batched, debounced file watcher.

import { createHash } from 'node:crypto';
import path from 'node:path';
import * as vscode from 'vscode';
import { isGitInternal } from '../core/crawl/ignore-rules.ts';
import { secretFilesNote } from '../core/describe.ts';
import type { IndexProgress } from '../core/indexer.ts';
import type { ChunkOutline, FolderId, FolderSpec, FolderStats } from '../protocol/worker.ts';
import type { EngineClient } from '../worker/client.ts';
import type { EmbedProgress } from '../core/semantic/lane.ts';
import { apiKeyFor } from './embedding-setup.ts';
import { editorExcludes, readSettings, type Settings } from './settings.ts';
import { allTabs, textTabUri } from './tabs.ts';

export type IndexPhase = 'starting' | 'indexing' | 'ready' | 'paused' | 'error';

export interface IndexState {
  phase: IndexPhase;
  /** 0–100 while indexing. */
  percent: number;
  progress?: IndexProgress;
  stats: FolderStats[];
  /** The last error, shown in the status bar tooltip and in the panel. */
  error?: string;
  lastUpdate?: number;
  /** How many times the engine worker died and was restarted in this session. */
  restarts: number;
  /** Embedding passes in progress, by folder (the semantic lane fills in after indexing). */
  embedding: Map<string, EmbedProgress>;
}

/** Watcher events are gathered this long before the worker hears of them (a checkout touches many files). */
const WATCH_DEBOUNCE_MS = 250;
/** The worker hears that the user is typing at most this often: it counts them typing for a second after. */
const TYPING_REPORT_MS = 250;

export class IndexController implements vscode.Disposable {
  private readonly disposables: vscode.Disposable[] = [];
  private readonly changed = new vscode.EventEmitter<IndexState>();
  /** The state changed: a phase, progress, stats. Fires often while indexing. */
  readonly onDidChange = this.changed.event;
  private readonly grown = new vscode.EventEmitter<void>();
  /** What an index holds changed (a sync's batch, a file update): results shown may be out of date. */
  readonly onDidChangeIndex = this.grown.event;
  readonly state: IndexState = { phase: 'starting', percent: 0, stats: [], restarts: 0, embedding: new Map() };
  /** A dead worker waits for its replacement (client.ts restarts it with a backoff). */
  private restartPending = false;
  private specs: FolderSpec[] = [];
  private readonly statusItem: vscode.StatusBarItem;
  private pendingPaths = new Map<string, Set<string>>();
  private watchTimer: NodeJS.Timeout | undefined;
  private syncing: Promise<void> | undefined;
  /** The last re-open for changed settings or folders (`restart`): `idle` waits for it too. */
  private reopening: Promise<void> = Promise.resolve();
  private paused = false;
  /** Folders Rebuild Index has not reached yet: a pause stops it between folders, and Resume goes on. */
  private rebuildPending = new Set<FolderId>();
  private progressReporter: ((progress: IndexProgress) => void) | undefined;
  private typingReported = Number.NEGATIVE_INFINITY;
  private readonly client: EngineClient;
  private readonly log: vscode.LogOutputChannel;
  private readonly storage: vscode.Uri;
  private readonly secrets: vscode.SecretStorage;

  constructor(client: EngineClient, log: vscode.LogOutputChannel, storage: vscode.Uri, secrets: vscode.SecretStorage) {
    this.client = client;
    this.log = log;
    this.storage = storage;
    this.secrets = secrets;
    this.statusItem = vscode.window.createStatusBarItem('fusedSearch.status', vscode.StatusBarAlignment.Left, 10);
    this.statusItem.name = 'Fused Search';
    this.statusItem.command = 'fusedSearch.showIndexStatus';
    this.statusItem.show();
    this.render();

    this.disposables.push(
      this.statusItem,
      this.changed,
      this.grown,
      client.onEvent((event) => {
        if (event.type === 'progress') {
          this.state.progress = event.progress;
          this.state.percent =
            event.progress.phase === 'indexing' && event.progress.filesFound > 0
              ? Math.floor((100 * event.progress.filesDone) / event.progress.filesFound)
              : event.progress.phase === 'finishing'
                ? 100
                : 0;
          this.progressReporter?.(event.progress);
          this.render();
        } else if (event.type === 'embedding') {
          if (event.progress.done < event.progress.total) this.state.embedding.set(event.folder, event.progress);
          else this.state.embedding.delete(event.folder);
          this.render();
        } else if (event.type === 'indexChanged') {
          this.grown.fire();
          void this.refreshStats();
        } else if (event.type === 'leaseTaken') {
          // The window (or server) that kept this index let it go: this one keeps it from now on. A
          // sync already running may have passed over the folder: catch up after it, unless paused meanwhile.
          void Promise.resolve(this.syncing).then(() => (this.paused ? undefined : this.syncAll()));
        } else if (event.type === 'error') {
          this.log.error(event.message);
        } else {
          this.log.info(event.message);
        }
      }),
      client.onLifecycle((event) => {
        if (event.type === 'crashed') {
          this.restartPending = true;
          this.state.restarts = event.restarts;
          this.fail(`the engine stopped unexpectedly (exit code ${event.exitCode}); restarting it in ${(event.restartInMs / 1000).toFixed(1)} s`);
          return;
        }
        this.restartPending = false;
        this.state.error = undefined;
        // The dead worker's sync or updates may not have finished: a sync reads only what changed.
        void this.refreshStats().then(() => this.syncUnlessPaused());
      }),
      vscode.workspace.onDidSaveTextDocument((document) => this.readNow(document.uri)),
      // A sync rests between its batches while the user types (src/core/user-activity.ts).
      vscode.workspace.onDidChangeTextDocument((event) => {
        if (event.contentChanges.length === 0 || event.document.uri.scheme === 'output') return;
        const now = performance.now();
        if (now - this.typingReported < TYPING_REPORT_MS) return;
        this.typingReported = now;
        void this.client.request({ type: 'typing' });
      }),
      // While indexing, a file the user opens is read at once rather than when the crawl reaches it.
      vscode.window.onDidChangeActiveTextEditor((editor) => {
        if (editor && this.state.phase === 'indexing') this.readNow(editor.document.uri);
      }),
      vscode.workspace.onDidChangeWorkspaceFolders(() => void this.restart('workspace folders changed')),
    );
    const watcher = vscode.workspace.createFileSystemWatcher('**/*');
    this.disposables.push(
      watcher,
      watcher.onDidCreate((uri) => this.queue(uri)),
      watcher.onDidChange((uri) => this.queue(uri)),
      watcher.onDidDelete((uri) => this.queue(uri)),
    );
  }

  /** Opens every folder's index and syncs it. */
  async start(): Promise<void> {
    const settings = readSettings(this.log);
    const apiKey = settings.embedding && (await apiKeyFor(this.secrets, settings.embedding));
    this.specs = this.folderSpecs(settings, settings.embedding && { ...settings.embedding, ...(apiKey ? { apiKey } : {}) });
    this.state.embedding.clear();
    if (this.specs.length === 0) {
      this.setPhase('ready');
      return;
    }
    const opened = await this.client.request({ type: 'open', folders: this.specs });
    if (!opened.ok) return this.fail(`cannot open the index: ${opened.error.message}`);
    for (const notice of opened.value.notices) {
      this.log.warn(notice);
      void vscode.window.showWarningMessage(`Fused Search: ${notice}`);
    }
    await this.refreshStats();
    await this.syncUnlessPaused(opened.value.empty.length > 0);
  }

  /** Folders just opened, or opened again by a new worker: synced, or, paused, held still too until Resume. */
  private async syncUnlessPaused(notify = false): Promise<void> {
    if (!this.paused) return this.syncAll(notify);
    await this.client.request({ type: 'pause' });
    this.setPhase('paused');
  }

  /** Settings or folders changed: re-open with the new options (the worker keeps unchanged folders). */
  restart(why: string): Promise<void> {
    this.log.info(`re-opening the index: ${why}`);
    const reopening = (async () => {
      await this.client.request({ type: 'pause' });
      await this.syncing;
      await this.start();
    })();
    this.reopening = reopening.catch(() => undefined);
    return reopening;
  }

  /** Runs a full sync of every folder; with `notify`, also as a cancellable notification. */
  syncAll(notify = false): Promise<void> {
    if (this.syncing) return this.syncing;
    this.paused = false;
    const run = async (token?: vscode.CancellationToken) => {
      token?.onCancellationRequested(() => void this.pause());
      this.setPhase('indexing');
      this.state.error = undefined;
      for (const spec of this.specs) {
        if (this.paused) break;
        const started = Date.now();
        const result = await this.syncFolder(spec);
        if (!result.ok) {
          this.fail(`${this.rebuildPending.has(spec.id) ? 'rebuilding' : 'indexing'} ${spec.name} failed: ${result.error.message}`);
          return;
        }
        this.rebuildPending.delete(spec.id);
        const s = result.value;
        // Another process keeps this folder's index; this window reads it (the worker logged who).
        if (!s) continue;
        this.log.info(
          `${spec.name}: ${s.complete ? 'synced' : 'paused'} in ${Date.now() - started} ms: ${s.files} files, ${s.chunks} chunks (+${s.added} ~${s.updated} -${s.removed}, ${Object.values(s.skipped).reduce((a, b) => a + (b ?? 0), 0)} skipped)`,
        );
      }
      await this.refreshStats();
      this.setPhase(this.paused ? 'paused' : 'ready');
    };
    const task = notify
      ? vscode.window.withProgress(
          { location: vscode.ProgressLocation.Notification, title: 'Fused Search: indexing the workspace', cancellable: true },
          async (progress, token) => {
            let last = 0;
            this.progressReporter = (p) => {
              const percent = p.phase === 'indexing' && p.filesFound > 0 ? (100 * p.filesDone) / p.filesFound : 0;
              progress.report({
                message: `${p.phase} ${p.filesDone.toLocaleString()} / ${p.filesFound.toLocaleString()} files${p.resting ? ', resting while you type' : ''}`,
                increment: Math.max(0, percent - last),
              });
              last = Math.max(last, percent);
            };
            try {
              await run(token);
            } finally {
              this.progressReporter = undefined;
            }
          },
        )
      : run();
    this.syncing = Promise.resolve(task).finally(() => (this.syncing = undefined));
    return this.syncing;
  }

  async pause(): Promise<void> {
    this.paused = true;
    await this.client.request({ type: 'pause' });
    await this.syncing;
    this.setPhase('paused');
    this.log.info('indexing paused');
  }

  async resume(): Promise<void> {
    this.log.info('indexing resumed');
    await this.syncAll();
  }

  /** Deletes every folder's index and indexes it again, folder by folder, as a sync does: Pause stops it, Resume goes on. */
  async rebuild(): Promise<void> {
    await this.pause();
    this.rebuildPending = new Set(this.specs.map((spec) => spec.id));
    await this.syncAll();
  }

  /** Syncs one folder, or rebuilds it if Rebuild Index has yet to. */
  private syncFolder(spec: FolderSpec) {
    if (this.rebuildPending.has(spec.id)) {
      const keptBy = this.state.stats.find((s) => s.folder === spec.id)?.indexedBy;
      if (!keptBy) {
        this.log.info(`rebuilding the index of ${spec.name}`);
        return this.client.request({ type: 'rebuild', folder: spec.id });
      }
      void vscode.window.showWarningMessage(`Fused Search: the index of ${spec.name} is kept by ${keptBy}; rebuild it there.`);
    }
    const firstPaths = this.openPaths(spec);
    return this.client.request({ type: 'sync', folder: spec.id, ...(firstPaths.length > 0 ? { firstPaths } : {}) });
  }

  /** Resolves once nothing is queued or syncing (for tests and the benchmark). */
  async idle(): Promise<void> {
    for (;;) {
      if (this.watchTimer) this.flush();
      await this.reopening;
      await this.syncing;
      await this.flushing;
      if (!this.syncing && !this.watchTimer && this.state.phase !== 'starting') return;
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  /** What the status bar shows (for tests). */
  get status(): { text: string; tooltip: string } {
    return {
      text: this.statusItem.text,
      tooltip: typeof this.statusItem.tooltip === 'string' ? this.statusItem.tooltip : (this.statusItem.tooltip?.value ?? ''),
    };
  }

  get folders(): readonly FolderSpec[] {
    return this.specs;
  }

  folderOf(uri: vscode.Uri): { spec: FolderSpec; relPath: string } | undefined {
    if (uri.scheme !== 'file') return undefined;
    const folder = vscode.workspace.getWorkspaceFolder(uri);
    const spec = folder && this.specs.find((s) => s.id === folder.uri.toString());
    if (!spec) return undefined;
    const relPath = path.relative(spec.root, uri.fsPath).split(path.sep).join('/');
    return relPath.startsWith('..') ? undefined : { spec, relPath };
  }

  /** The indexed chunks of the file at `uri`, in line order, with the folder that holds them; none for a file no folder indexes. */
  async chunksOf(uri: vscode.Uri): Promise<{ folder: string; chunks: ChunkOutline[] } | undefined> {
    const where = this.folderOf(uri);
    if (!where) return undefined;
    const chunks = await this.client.request({ type: 'chunks', folder: where.spec.id, path: where.relPath });
    return chunks.ok ? { folder: where.spec.id, chunks: chunks.value } : undefined;
  }

  private flushing: Promise<unknown> | undefined;

  /** The folder's files open in editors, the visible ones first: what a first index reads before the rest. */
  private openPaths(spec: FolderSpec): string[] {
    const visible = vscode.window.visibleTextEditors.map((editor) => editor.document.uri);
    const tabs = allTabs().flatMap((tab) => textTabUri(tab) ?? []);
    const paths = [...visible, ...tabs].flatMap((uri) => {
      const where = this.folderOf(uri);
      return where?.spec.id === spec.id ? [where.relPath] : [];
    });
    return [...new Set(paths)];
  }

  /** Brings one file up to date at once, without the watcher's debounce: the user is waiting on it (a save, a file opened while indexing). */
  private readNow(uri: vscode.Uri): void {
    const where = this.folderOf(uri);
    if (!where) return;
    void this.client.request({ type: 'update', folder: where.spec.id, paths: [where.relPath] });
  }

  private queue(uri: vscode.Uri): void {
    const where = this.folderOf(uri);
    if (!where || isGitInternal(where.relPath)) return;
    let paths = this.pendingPaths.get(where.spec.id);
    if (!paths) this.pendingPaths.set(where.spec.id, (paths = new Set()));
    paths.add(where.relPath);
    clearTimeout(this.watchTimer);
    this.watchTimer = setTimeout(() => this.flush(), WATCH_DEBOUNCE_MS);
  }

  private flush(): void {
    clearTimeout(this.watchTimer);
    this.watchTimer = undefined;
    const batches = this.pendingPaths;
    this.pendingPaths = new Map();
    const work: Promise<unknown>[] = [];
    for (const [folder, paths] of batches) {
      // The worker's keeper reloads changed ignore rules and rescans what they cover.
      this.log.debug(`updating ${paths.size} changed path(s)`);
      work.push(this.client.request({ type: 'update', folder, paths: [...paths] }));
    }
    this.flushing = Promise.all(work);
  }

  private folderSpecs(settings: Settings, embedding: FolderSpec['embedding']): FolderSpec[] {
    return (vscode.workspace.workspaceFolders ?? [])
      .filter((folder) => folder.uri.scheme === 'file')
      .map((folder) => {
        const id = folder.uri.toString();
        // Keyed by the folder alone: every window and workspace that opens it shares one index.
        const key = createHash('sha256').update(id).digest('hex').slice(0, 16);
        return {
          id,
          name: folder.name,
          root: folder.uri.fsPath,
          dbFile: path.join(vscode.Uri.joinPath(this.storage, key).fsPath, 'index.db'),
          index: {
            ...settings.index,
            exclude: [...editorExcludes(folder.uri), ...settings.index.exclude],
            // Per folder: opting one folder in to its credential files leaves the others out.
            indexSecretFiles: readSettings(this.log, folder.uri).index.indexSecretFiles,
          },
          ...(embedding ? { embedding } : {}),
        };
      });
  }

  private async refreshStats(): Promise<void> {
    const stats = await this.client.request({ type: 'stats' });
    if (stats.ok) {
      this.state.stats = stats.value;
      this.state.lastUpdate = Date.now();
    }
    this.render();
  }

  private fail(message: string): void {
    this.log.error(message);
    this.state.error = message;
    this.setPhase('error');
  }

  private setPhase(phase: IndexPhase): void {
    // The palette offers Pause Indexing or Resume Indexing, whichever applies.
    const paused = phase === 'paused';
    if (paused !== (this.state.phase === 'paused')) void vscode.commands.executeCommand('setContext', 'fusedSearch.indexingPaused', paused);
    this.state.phase = phase;
    if (phase !== 'indexing') this.state.percent = phase === 'ready' ? 100 : this.state.percent;
    this.render();
  }

  private render(): void {
    const chunks = this.state.stats.reduce((n, s) => n + s.chunks, 0);
    const files = this.state.stats.reduce((n, s) => n + s.files, 0);
    const item = this.statusItem;
    item.backgroundColor = undefined;
    switch (this.state.phase) {
      case 'starting':
        item.text = '$(search) Fused: starting';
        break;
      case 'indexing':
        item.text = `$(sync~spin) Fused: indexing ${this.state.percent}%${this.state.progress?.resting ? ' · resting while you type' : ''}`;
        break;
      case 'paused':
        item.text = `$(debug-pause) Fused: paused · ${chunks.toLocaleString('en-US')} chunks`;
        break;
      case 'error':
        item.text = this.restartPending ? '$(sync~spin) Fused: restarting' : '$(error) Fused: error';
        item.backgroundColor = new vscode.ThemeColor('statusBarItem.errorBackground');
        break;
      case 'ready':
        item.text = `$(search) Fused: ${chunks.toLocaleString('en-US')} chunks`;
        break;
    }
    const kept = this.state.stats.filter((s) => s.indexedBy);
    if (this.state.phase === 'ready' && kept.length > 0) item.text += ' · read-only';
    const embedding = [...this.state.embedding.values()].reduce((sum, p) => ({ done: sum.done + p.done, total: sum.total + p.total }), { done: 0, total: 0 });
    const embeddingRests = [...this.state.embedding.values()].some((p) => p.resting);
    if (this.state.phase === 'ready' && embedding.total > 0) {
      item.text += ` · embedding ${Math.floor((100 * embedding.done) / embedding.total)}%${embeddingRests ? ' (resting while you type)' : ''}`;
    }
    // A mass change (a checkout) rests too, with the status bar showing no indexing: the tooltip says so.
    const resting = this.state.progress?.resting || embeddingRests;
    const keptBy = kept.map((s) => `\n${s.name}: indexed by ${s.indexedBy}; this window reads that index and takes over when it closes.`).join('');
    const notes = [
      secretFilesLine(this.state.stats),
      semanticLine(this.state.stats),
      resting ? 'While you type, indexing rests between its batches: it takes at most half the CPU until a second after your last keystroke.' : '',
    ]
      .filter(Boolean)
      .join('\n');
    item.tooltip = this.state.error
      ? `Fused Search: ${this.state.error}\nClick for details.`
      : `Fused Search: ${files.toLocaleString('en-US')} files, ${chunks.toLocaleString('en-US')} chunks in ${this.specs.length} folder(s).${keptBy}${notes ? `\n${notes}` : ''}\nClick for details.`;
    this.changed.fire(this.state);
  }

  dispose(): void {
    clearTimeout(this.watchTimer);
    for (const d of this.disposables.reverse()) d.dispose();
  }
}

/** The semantic lane for the status: its model, how much of the index it covers, and what failed lately; empty when off. */
export function semanticLine(stats: readonly FolderStats[]): string {
  const lanes = stats.flatMap((s) => (s.semantic ? [{ ...s.semantic, chunks: s.chunks }] : []));
  if (lanes.length === 0) return '';
  const embedded = lanes.reduce((n, lane) => n + lane.embedded, 0);
  const chunks = lanes.reduce((n, lane) => n + lane.chunks, 0);
  const problem = lanes.find((lane) => lane.problem)?.problem;
  return `Semantic lane: ${lanes[0]!.model}, ${embedded.toLocaleString('en-US')} of ${chunks.toLocaleString('en-US')} chunks embedded${problem ? `; ${problem}` : ''}.`;
}

/** How many files were kept out for holding credentials, for the status; empty when none were. */
export function secretFilesLine(stats: readonly FolderStats[]): string {
  const count = stats.reduce((n, s) => n + s.secretFiles.count, 0);
  if (count === 0) return '';
  const examples = stats.flatMap((s) => s.secretFiles.examples).slice(0, 3);
  return `${secretFilesNote(count, examples)}; the setting fusedSearch.indexSecretFiles lets them in.`;
}
