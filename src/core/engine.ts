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

export class Engine {
  /** Things the user should hear about once, such as an index that was rebuilt. */
  readonly notices: string[] = [];
  private vocabularyCache: { vocabulary: Vocabulary; generation: number; builtAt: number } | undefined;
  private generation = 0;

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
    try {
      return await this.indexer.sync(options);
    } finally {
      this.generation++;
    }
  }

  async updateFile(relPath: string): Promise<UpdateOutcome> {
    this.generation++;
    return this.indexer.updateFile(relPath);
  }

  removeFile(relPath: string): boolean {
    this.generation++;
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
    if (cached && cached.generation === this.generation) return false;
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
    const fresh = cached && (cached.generation === this.generation || Date.now() - cached.builtAt < VOCABULARY_MAX_AGE_MS);
    if (fresh) return cached.vocabulary;
    const { words, docFreq } = this.store.vocabulary();
    const vocabulary = new Vocabulary(words, docFreq);
    this.vocabularyCache = { vocabulary, generation: this.generation, builtAt: Date.now() };
    return vocabulary;
  }
}
