// The engine as its hosts use it (worker, CLI, MCP server, tests): one folder, one database,
// indexing and search behind a small surface.

import path from 'node:path';
import { stat } from 'node:fs/promises';
import { INDEX_DIR, IndexFullError, Indexer, type IndexSummary, type SyncOptions, type UpdateOutcome } from './indexer.ts';
import { resolveIndexOptions, type IndexOptions, type SearchOptionsInput } from './options.ts';
import { Vocabulary } from './search/fuzzy.ts';
import { search } from './search/pipeline.ts';
import { isBusy } from './store/database.ts';
import { IndexStore, type IndexStats, type StoredChunk } from './store/store.ts';
import type { SearchResponse } from './types.ts';

export type EngineConfig = {
  index?: Partial<IndexOptions>;
} & (
  /** The folder to index, and optionally where its database lives (default `<root>/.fused-search/index.db`). */
  | { root: string; dbFile?: string }
  /** An existing database; the folder is the one it was built from. */
  | { root?: undefined; dbFile: string }
);

/** Rebuilding the fuzzy vocabulary of a large tree takes a while; changes within this window reuse the old one. */
const VOCABULARY_MAX_AGE_MS = 30_000;

/**
 * From this many distinct words on, a built vocabulary is stored in the index for the next process
 * (a CLI search, a new window), which would otherwise spend seconds building it again. Below it, a
 * build takes milliseconds and a snapshot would only lag behind the files.
 */
const SNAPSHOT_MIN_WORDS = 100_000;
/**
 * A big vocabulary (stored, or in memory) serves while fewer files than this, and than this share
 * of the index, have changed since it was built: a word the newest edits brought in is not offered
 * as a correction until then.
 */
const DRIFT_FILES = 50;
const DRIFT_SHARE = 0.01;

function drifted(changedFiles: number, filesAtBuild: number): boolean {
  return changedFiles > Math.max(DRIFT_FILES, filesAtBuild * DRIFT_SHARE);
}

interface CachedVocabulary {
  vocabulary: Vocabulary;
  /** The engine's change count the vocabulary is up to date with. */
  changes: number;
  /** When it was built or read (ms since the epoch), and the files the index held then. */
  builtAt: number;
  files: number;
}

export class Engine {
  /** Things the user should hear about once, such as an index that was rebuilt. */
  readonly notices: string[] = [];
  private vocabularyCache: CachedVocabulary | undefined;
  /** Files this engine has indexed or removed since it opened: how far a cached vocabulary lags. */
  private changes = 0;

  readonly store: IndexStore;
  readonly indexer: Indexer;

  private constructor(store: IndexStore, indexer: Indexer) {
    this.store = store;
    this.indexer = indexer;
    if (store.rebuiltBecause) this.notices.push(store.rebuiltBecause);
  }

  static defaultDbFile(root: string): string {
    return path.join(root, INDEX_DIR, 'index.db');
  }

  static async open(config: EngineConfig): Promise<Engine> {
    const options = resolveIndexOptions(config.index);
    const store = new IndexStore(config.root === undefined ? config.dbFile : (config.dbFile ?? Engine.defaultDbFile(path.resolve(config.root))));
    const root = config.root === undefined ? store.meta('root') : path.resolve(config.root);
    if (root === undefined) {
      store.close();
      throw new Error(`${config.dbFile} does not say which folder it indexes; index the folder again`);
    }
    // Written only when it changes: a window opening the index another one is writing needs no write lock.
    if (store.meta('root') !== root) store.setMeta('root', root);
    return new Engine(store, new Indexer(store, root, options));
  }

  get root(): string {
    return this.indexer.root;
  }

  async sync(options?: SyncOptions): Promise<IndexSummary> {
    let changed = 1; // A run that threw may still have committed some batches.
    try {
      const summary = await this.indexer.sync(options);
      changed = summary.added + summary.updated + summary.removed;
      return summary;
    } finally {
      this.changes += changed;
    }
  }

  async updateFile(relPath: string): Promise<UpdateOutcome> {
    this.changes++;
    return this.indexer.updateFile(relPath);
  }

  removeFile(relPath: string): boolean {
    this.changes++;
    return this.indexer.removeFile(relPath);
  }

  /**
   * Searches, then checks the files behind the results (a stat each, not a crawl): if one has
   * changed or vanished since it was indexed, it is brought up to date and the search runs again,
   * so a result never points at a deleted file or at lines the file no longer has.
   */
  async search(query: string, options?: SearchOptionsInput): Promise<SearchResponse> {
    const first = this.searchIndexed(query, options);
    const stale = await this.staleFiles(first.results.map((result) => result.path));
    if (stale.length === 0) return first;
    try {
      for (const relPath of stale) await this.updateFile(relPath);
    } catch (error) {
      // A full disk must not stop searches, nor another process (a window keeping this index) that
      // holds the write lock past the busy timeout: answer from the index, without the files it
      // could not refresh.
      if (!(error instanceof IndexFullError) && !isBusy(error)) throw error;
      const skip = new Set(stale);
      return { ...first, results: first.results.filter((result) => !skip.has(result.path)) };
    }
    return this.searchIndexed(query, options);
  }

  /** Searches what the index holds, without looking at the files. */
  searchIndexed(query: string, options?: SearchOptionsInput): SearchResponse {
    return search({ store: this.store, vocabulary: () => this.vocabulary() }, query, options);
  }

  /**
   * Builds the fuzzy vocabulary now if the next correction would have to (hundreds of milliseconds
   * on a large tree), so that a host can pay for it while idle — right after a sync — instead of
   * in the first query with a word the index does not know. Returns whether it built one.
   */
  prepareVocabulary(): boolean {
    const cached = this.vocabularyCache;
    if (cached && (cached.changes === this.changes || this.bigAndClose(cached))) return false;
    this.vocabularyCache = undefined;
    this.vocabulary();
    return true;
  }

  chunk(id: number): StoredChunk | undefined {
    return this.store.chunk(id);
  }

  stats(): IndexStats {
    return this.store.stats();
  }

  close(): void {
    this.store.close();
  }

  private async staleFiles(paths: string[]): Promise<string[]> {
    const unique = [...new Set(paths)];
    const checks = await Promise.all(
      unique.map(async (relPath) => {
        const known = this.store.file(relPath);
        if (!known) return false;
        try {
          const now = await stat(path.join(this.root, relPath));
          return now.size !== known.size || now.mtimeMs !== known.mtimeMs;
        } catch {
          return true;
        }
      }),
    );
    return unique.filter((_, i) => checks[i]);
  }

  private vocabulary(): Vocabulary {
    const cached = this.vocabularyCache;
    if (cached && this.stillCurrent(cached)) return cached.vocabulary;
    const stored = this.snapshotVocabulary();
    if (stored) {
      // The snapshot's own lag counts against it, as if this engine had made those changes.
      this.vocabularyCache = { vocabulary: stored.vocabulary, changes: this.changes - stored.drift, builtAt: Date.now(), files: stored.files };
      return stored.vocabulary;
    }
    const files = this.store.stats().files;
    const vocabulary = this.buildVocabulary(files);
    this.vocabularyCache = { vocabulary, changes: this.changes, builtAt: Date.now(), files };
    return vocabulary;
  }

  /**
   * A small vocabulary is rebuilt after any change once it is half a minute old: that takes
   * milliseconds. A big one takes seconds and barely moves with a few edits, so it serves until the
   * changes since it was built pass the same drift that retires a stored snapshot.
   */
  private stillCurrent(cached: CachedVocabulary): boolean {
    return cached.changes === this.changes || Date.now() - cached.builtAt < VOCABULARY_MAX_AGE_MS || this.bigAndClose(cached);
  }

  private bigAndClose(cached: CachedVocabulary): boolean {
    return cached.vocabulary.size >= SNAPSHOT_MIN_WORDS && !drifted(this.changes - cached.changes, cached.files);
  }

  /** The stored snapshot, unless too much of the index has changed since it was taken. */
  private snapshotVocabulary(): { vocabulary: Vocabulary; drift: number; files: number } | undefined {
    const snapshot = this.store.vocabularySnapshot();
    if (!snapshot) return undefined;
    const drift = this.store.filesChangedSince(snapshot.builtAt, snapshot.files);
    if (drifted(drift, snapshot.files)) return undefined;
    try {
      return { vocabulary: Vocabulary.fromBytes(snapshot.data), drift, files: snapshot.files };
    } catch {
      return undefined; // Written by another build: rebuilt and replaced below.
    }
  }

  private buildVocabulary(files: number): Vocabulary {
    const builtAt = Date.now();
    const { words, docFreq } = this.store.vocabulary();
    const vocabulary = new Vocabulary(words, docFreq);
    if (vocabulary.size >= SNAPSHOT_MIN_WORDS) {
      try {
        this.store.saveVocabularySnapshot({ builtAt, files, data: vocabulary.toBytes() });
      } catch {
        // A full disk or a read-only file: the next process builds its own, nothing is lost.
      }
    }
    return vocabulary;
  }
}
