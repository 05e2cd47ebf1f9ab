// The index as the MCP server keeps it: an IndexKeeper (src/core/index-keeper.ts) plus a watcher
// on the folder while this server holds the lease. As owner it indexes the folder on start and
// applies the watcher's batches; as reader it only reads, and the keeper takes over when the holder
// goes. Searches, status and single-file reindexing work at once either way.

import { EMBED_API_KEY_ENV } from '../core/semantic/embedder.ts';
import fs from 'node:fs';
import path from 'node:path';
import { IndexKeeper, type KeeperEvent, type KeeperStatus } from '../core/index-keeper.ts';
import { isGitInternal } from '../core/crawl/ignore-rules.ts';
import { INDEX_DIR } from '../core/indexer.ts';
import { FolderWatcher } from './watch.ts';
import { errorMessage } from '../core/error-message.ts';

export interface IndexServiceOptions {
  /** The folder to index; without it, the one `dbFile` was built from. */
  root?: string;
  /** The database; default `<root>/.fused-search/index.db`. */
  dbFile?: string;
  /** Watch the folder while holding the lease (default true). */
  watch?: boolean;
  /** Quiet time before a batch of file changes is indexed, in milliseconds (default 200). */
  debounceMs?: number;
  /** Lease heartbeat in milliseconds (default HEARTBEAT_MS); tests shorten it. */
  heartbeatMs?: number;
  /** Index files that hold credentials (IndexOptions.indexSecretFiles; default false). */
  indexSecretFiles?: boolean;
  /** Diagnostics, one line each (the MCP server sends them to stderr; stdout is the protocol). */
  log?: (line: string) => void;
}

export interface IndexStatus extends KeeperStatus {
  /** File changes the watcher has seen but not yet indexed. */
  pendingChanges: number;
  watching: boolean;
}

export class IndexService {
  readonly keeper: IndexKeeper;
  private readonly options: IndexServiceOptions;
  private readonly log: (line: string) => void;
  private watcher: FolderWatcher | undefined;
  private readonly watcherNotices: string[] = [];

  private constructor(keeper: IndexKeeper, options: IndexServiceOptions) {
    this.keeper = keeper;
    this.options = options;
    this.log = options.log ?? (() => {});
    keeper.onEvent((event) => this.onKeeperEvent(event));
  }

  static async open(options: IndexServiceOptions): Promise<IndexService> {
    const where = options.root !== undefined ? { root: options.root, ...(options.dbFile ? { dbFile: options.dbFile } : {}) } : { dbFile: options.dbFile! };
    const keeper = await IndexKeeper.open({
      ...where,
      kind: 'mcp',
      // The lane answers when the index was embedded (by `fused-search index --embed …`, or another keeper).
      embedding: { asIndexed: true, ...(process.env[EMBED_API_KEY_ENV] ? { apiKey: process.env[EMBED_API_KEY_ENV] } : {}) },
      ...(options.heartbeatMs !== undefined ? { heartbeatMs: options.heartbeatMs } : {}),
      ...(options.indexSecretFiles ? { index: { indexSecretFiles: true } } : {}),
    });
    const service = new IndexService(keeper, options);
    keeper.prepareForSearches().catch((error: unknown) => service.log(`preparing the index for searches failed: ${errorMessage(error)}`));
    if (keeper.role === 'owner') service.startOwning();
    else service.log(`index kept by ${keeper.keptBy ?? 'another process'}; reading it`);
    return service;
  }

  private onKeeperEvent(event: KeeperEvent): void {
    if (event.type === 'log') this.log(event.message);
    else if (event.type === 'role' && event.role === 'owner') this.startOwning();
    else if (event.type === 'role') this.stopWatching();
  }

  private startOwning(): void {
    this.log(`indexing ${this.keeper.root}`);
    void this.keeper.sync().catch((error: unknown) => this.log(`initial index failed: ${errorMessage(error)}`));
    if (this.options.watch ?? true) this.startWatching();
  }

  private stopWatching(): void {
    void this.watcher?.close();
    this.watcher = undefined;
  }

  private startWatching(): void {
    const root = this.keeper.root;
    const dbDir = path.relative(root, path.dirname(this.keeper.dbFile)).split(path.sep).join('/');
    const ownFolders = [`${INDEX_DIR}/`, ...(dbDir && !dbDir.startsWith('..') ? [`${dbDir}/`] : [])];
    this.watcher = new FolderWatcher(root, {
      ...(this.options.debounceMs !== undefined ? { debounceMs: this.options.debounceMs } : {}),
      ignore: (relPath) => isGitInternal(relPath) || ownFolders.some((prefix) => relPath.startsWith(prefix) || `${relPath}/` === prefix),
      onBatch: async (batch) => {
        await this.keeper.applyChanges(batch.paths, { rescan: batch.rescan });
      },
      onError: (error) => {
        this.watcherNotices.push(`The file watcher stopped (${error.message}); changes are picked up by reindex or on search.`);
        this.log(`watcher: ${error.message}`);
      },
    });
    try {
      this.watcher.start();
    } catch (error) {
      this.watcher = undefined;
      this.watcherNotices.push(`No file watcher (${errorMessage(error)}); changes are picked up by reindex or on search.`);
    }
  }

  /** Waits for the watcher's pending changes to be indexed (tests, and a reindex that must see the latest). */
  async settle(): Promise<void> {
    await this.watcher?.flush();
  }

  async status(): Promise<IndexStatus> {
    const status = await this.keeper.status();
    return {
      ...status,
      pendingChanges: this.watcher?.pendingCount ?? 0,
      watching: this.watcher !== undefined,
      notices: [...status.notices, ...this.watcherNotices],
    };
  }

  async close(): Promise<void> {
    await this.watcher?.close();
    this.watcher = undefined;
    await this.keeper.close();
  }
}

/** Resolves a path an agent gave (absolute, or relative to the root) to one relative to the root, or undefined if outside it. */
export function relativeToRoot(root: string, given: string): string | undefined {
  const absolute = path.resolve(root, given);
  const relative = path.relative(root, absolute);
  if (relative.startsWith('..') || path.isAbsolute(relative)) return undefined;
  return relative.split(path.sep).join('/');
}

export function isDirectory(file: string): boolean {
  return fs.statSync(file, { throwIfNoEntry: false })?.isDirectory() ?? false;
}
