// Watches a folder for changes and hands them over in batches. node:fs.watch with `recursive`
// (inotify on Linux since Node 20, FSEvents on macOS, ReadDirectoryChangesW on Windows): one
// watcher for the whole tree, no polling. Editors save in bursts (write, rename, chmod) and a
// `git checkout` touches hundreds of files at once, so events are collected until the folder has
// been quiet for `debounceMs` (but never held longer than `maxWaitMs`) and delivered as one set.

import fs from 'node:fs';
import path from 'node:path';

export interface WatchBatch {
  /** Changed paths relative to the root, `/`-separated, deduplicated. */
  paths: string[];
  /** The platform dropped events (overflow) or did not name the file: the caller should rescan. */
  rescan: boolean;
}

export interface FolderWatcherOptions {
  /** Quiet time (milliseconds) before a batch is delivered. */
  debounceMs?: number;
  /** Longest time (milliseconds) an event waits while changes keep coming. */
  maxWaitMs?: number;
  /** Paths (relative, `/`-separated) whose events are dropped at once, e.g. the index's own folder. */
  ignore?: (relPath: string) => boolean;
  onBatch: (batch: WatchBatch) => Promise<void>;
  onError?: (error: Error) => void;
}

const DEFAULT_DEBOUNCE_MS = 200;
const DEFAULT_MAX_WAIT_MS = 2_000;

export class FolderWatcher {
  private readonly root: string;
  private readonly options: FolderWatcherOptions;
  private watcher: fs.FSWatcher | undefined;
  private pending = new Set<string>();
  private rescan = false;
  private timer: NodeJS.Timeout | undefined;
  private firstEventAt = 0;
  /** The batch being applied; the next one waits for it, so batches never overlap. */
  private running: Promise<void> = Promise.resolve();
  private closed = false;

  constructor(root: string, options: FolderWatcherOptions) {
    this.root = root;
    this.options = options;
  }

  start(): void {
    this.watcher = fs.watch(this.root, { recursive: true, persistent: false }, (_event, filename) => this.onEvent(filename));
    this.watcher.on('error', (error) => this.options.onError?.(error));
  }

  /** Changes seen but not yet handed over. */
  get pendingCount(): number {
    return this.pending.size + (this.rescan ? 1 : 0);
  }

  /** Delivers what is pending now and resolves when every batch so far has been applied. */
  async flush(): Promise<void> {
    this.deliver();
    await this.running;
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    this.watcher?.close();
    await this.running;
  }

  private onEvent(filename: string | Buffer | null): void {
    if (this.closed) return;
    if (filename === null) {
      this.rescan = true;
    } else {
      const relPath = filename.toString().split(path.sep).join('/');
      if (this.options.ignore?.(relPath)) return;
      this.pending.add(relPath);
    }
    const now = Date.now();
    if (!this.timer) this.firstEventAt = now;
    clearTimeout(this.timer);
    const maxWait = this.options.maxWaitMs ?? DEFAULT_MAX_WAIT_MS;
    const wait = Math.min(this.options.debounceMs ?? DEFAULT_DEBOUNCE_MS, Math.max(0, this.firstEventAt + maxWait - now));
    this.timer = setTimeout(() => this.deliver(), wait);
  }

  private deliver(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.pending.size === 0 && !this.rescan) return;
    const batch: WatchBatch = { paths: [...this.pending], rescan: this.rescan };
    this.pending = new Set();
    this.rescan = false;
    this.running = this.running
      .then(() => this.options.onBatch(batch))
      .catch((error: unknown) => {
        this.options.onError?.(error instanceof Error ? error : new Error(String(error)));
      });
  }
}
