// The engine as its hosts use it (worker, CLI, MCP server, tests): one folder, one database,
// indexing and search behind a small surface.

import { statSync } from 'node:fs';
import path from 'node:path';
import { stat } from 'node:fs/promises';
import { INDEX_DIR, IndexFullError, Indexer, type IndexSummary, type SyncOptions, type UpdateOutcome } from './indexer.ts';
import { resolveIndexOptions, resolveSearchOptions, type IndexOptions, type SearchOptionsInput } from './options.ts';
import { isEnglishWord } from './search/english.ts';
import { Vocabulary } from './search/fuzzy.ts';
import { SCORE_BUDGET } from './search/lists.ts';
import { filteredDepth, piecesHeld, search } from './search/pipeline.ts';
import { IndexLease, type LeaseOptions } from './index-lease.ts';
import { isBusy } from './store/database.ts';
import { IndexStore, VOCABULARY_PAGE_WORDS, type CatalogEntry, type IndexStats, type StoredChunk } from './store/store.ts';
import type { SearchResponse, SearchResult } from './types.ts';
import type { EmbedderConfig } from './semantic/embedder.ts';
import { SemanticLane, type EmbedOutcome, type EmbedPassOptions, type SemanticList } from './semantic/lane.ts';
import { createEmbedder } from './semantic/providers.ts';
import { errorMessage } from './error-message.ts';
import { VectorStore } from './store/vectors.ts';

export type EngineConfig = {
  index?: Partial<IndexOptions>;
  /**
   * An embedding model for the semantic lane, or the one whose vectors the index holds (as the last
   * complete embedding pass recorded it; the key is never recorded, so pass it again). None: off.
   */
  embedding?: EmbedderConfig | AsIndexed;
  /**
   * Whether this process answers searches while it syncs (a window's worker, an MCP server), as by
   * default. Its big syncs then write on a thread of their own, so that no search waits for a
   * batch. A process that only indexes (`fused-search index`) says false: the second heap and page
   * cache of that thread would buy it nothing.
   */
  searchesDuringSyncs?: boolean;
} &
  /** The folder to index, and optionally where its database lives (default `<root>/.fused-search/index.db`). */
  (
    | { root: string; dbFile?: string }
    /** An existing database; the folder is the one it was built from. */
    | { root?: undefined; dbFile: string }
  );

/**
 * How often a vocabulary in use is checked against the index (a count over the file catalog):
 * changes within this window, by this process or another one, reuse it as it is.
 */
const VOCABULARY_CHECK_MS = 30_000;
/** Rounds of refreshing a search's stale result files before the ones still stale are left out. */
const STALE_REFRESH_PASSES = 3;

/**
 * From this many distinct words on, a built vocabulary is stored in the index for the next process
 * (a CLI search, a new window), which would otherwise spend seconds building it again. Below it, a
 * build takes milliseconds and a snapshot would only lag behind the files.
 */
const SNAPSHOT_MIN_WORDS = 100_000;
/**
 * A big vocabulary (stored, or in memory) is current while fewer files than this, and than this
 * share of the index, have changed since it was built: a word the newest edits brought in is not
 * offered as a correction until then. Past that drift a host rebuilds it while idle
 * (`prepareVocabulary`).
 */
const DRIFT_FILES = 50;
const DRIFT_SHARE = 0.01;
/**
 * A search corrects against a drifted big vocabulary rather than rebuild it first, which takes
 * seconds on a big tree (a typo during a branch switch waited that long), until this share of the
 * index has changed since it was built.
 */
const SEARCH_DRIFT_SHARE = 0.25;

/**
 * How many of the commonest words a host reads the postings of at open (`warmUpSteps`). On the
 * Linux tree that fills the 32 MB page cache in about 0.4 s, and a host's first query after
 * opening took p50 / p95 27 / 82 ms instead of 37 / 96 (bench:first-query); 60 or 150 words into a
 * bigger cache did no better.
 */
const COMMON_WORDS = 24;

/** How many times a host runs its warm-up queries (warmUpQueries). */
const WARM_UP_ROUNDS = 8;

/**
 * What a vocabulary build stores of the words' chunk counts (IndexStore.saveCommonWordCounts): the
 * words in more chunks than a list scores whole, whose counts a search then need not take, and at
 * least the COMMON_WORDS commonest, which a host warms; commonest first.
 */
function commonWordCounts(words: readonly string[], docFreq: readonly number[]): Array<[string, number]> {
  const top: number[] = [];
  const common: number[] = [];
  for (let i = 0; i < words.length; i++) {
    const df = docFreq[i]!;
    if (df > SCORE_BUDGET) common.push(i);
    if (top.length === COMMON_WORDS && df <= docFreq[top.at(-1)!]!) continue;
    let at = top.length;
    while (at > 0 && docFreq[top[at - 1]!]! < df) at--;
    top.splice(at, 0, i);
    if (top.length > COMMON_WORDS) top.pop();
  }
  const chosen = [...new Set([...top, ...common])].sort((a, b) => docFreq[b]! - docFreq[a]! || a - b);
  return chosen.map((i) => [words[i]!, docFreq[i]!]);
}

/**
 * Searches a host runs once at open and throws away, so that a person's first search does not run
 * the pipeline's code for the first time (unoptimised, its statements not yet prepared): a word, a
 * question (which takes the feedback list) and a word of six letters or more with one dropped
 * (the fuzzy retry). The least common of the commonest words cost least of those whose postings
 * the cache holds. On the Linux tree a host's first query took p50 / p95 18–20 / 52–57 ms with
 * these and the stored vocabulary read at open, against 33 / 64–65 ms without (bench:first-query,
 * two runs of each, alternating). Once is not enough for V8 to optimise the pipeline's hot
 * functions, and a first query then ran its loops unoptimised: WARM_UP_ROUNDS times over, the
 * host's first query after a second took p50 / p95 16–18 / 38–45 ms against 28 / 62 ms run once
 * (16 queries × 2–3 fresh processes each, the two interleaved query by query); 24 rounds did no
 * better than 8, which take about 250 ms more of the open's idle steps.
 */
function warmUpQueries(commonest: readonly string[], holds: (word: string) => boolean): string[] {
  if (commonest.length < 3) return [];
  const [word, second, third] = commonest.slice(-3);
  const typo = misspelling(commonest, holds);
  return [word!, `${word} ${second} ${third}`, ...(typo ? [typo] : [])];
}

/**
 * A common word of six letters or more with a letter dropped, which the index does not hold and
 * which is no English word: the retry corrects neither. The Linux tree holds `stuct`, so a warm-up
 * that dropped the third letter of `struct` never ran the fuzzy retry, and a first typo ran it
 * unoptimised (`spinlok`'s corrections 16 ms, 1 ms the second time); `string` without its third
 * letter is `sting`.
 */
function misspelling(commonest: readonly string[], holds: (word: string) => boolean): string | undefined {
  for (const word of commonest.filter((candidate) => candidate.length >= 6)) {
    for (let at = 2; at < word.length - 1; at++) {
      const typo = word.slice(0, at) + word.slice(at + 1);
      if (!holds(typo) && !isEnglishWord(typo)) return typo;
    }
  }
  return undefined;
}

/** Whether a file's stat (undefined: it is gone) says it changed since the catalog entry was written. */
function differsFrom(entry: CatalogEntry, now: { size: number; mtimeMs: number } | undefined): boolean {
  return !now || now.size !== entry.size || now.mtimeMs !== entry.mtimeMs;
}

function drifted(changedFiles: number, filesAtBuild: number, share: number): boolean {
  return changedFiles > Math.max(DRIFT_FILES, filesAtBuild * share);
}

interface CachedVocabulary {
  vocabulary: Vocabulary;
  /** When it was read from the index (ms since the epoch), and how many files the index held then. */
  builtAt: number;
  files: number;
  /** When it was last found up to date. */
  checkedAt: number;
}

/** A vocabulary being read from the index a page at a time (`prepareVocabularyStep`). */
interface VocabularyRead {
  /** When the reading began, and how many files the index held then: the build's date. */
  builtAt: number;
  files: number;
  words: string[];
  docFreq: number[];
  /** Whether the last page was the last one. */
  done: boolean;
}

/** What one step of the idle vocabulary work did (`Engine.prepareVocabularyStep`). */
export type VocabularyStep = 'current' | 'reading' | 'built';

/** Use the model the index was embedded with, if any. */
export interface AsIndexed {
  asIndexed: true;
  apiKey?: string;
}

/** The meta key recording the embedding model of the last complete pass (no key). */
const EMBEDDING_META = 'embedding';

export class Engine {
  /** Things the user should hear about once, such as an index that was rebuilt. */
  readonly notices: string[] = [];
  private vocabularyCache: CachedVocabulary | undefined;
  private vocabularyRead: VocabularyRead | undefined;
  private lane: SemanticLane | undefined;
  private embeddingConfig: EmbedderConfig | undefined;
  /** A configured model that could not be loaded: every search says so, and answers lexically. */
  private laneProblem: { model: string; reason: string } | undefined;

  /** The store and the indexer are the engine's own; hosts go through the methods below (tests may look inside). */
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
    const engine = new Engine(store, new Indexer(store, root, options, { writerThread: config.searchesDuringSyncs ?? true }));
    if (store.previousVersion) engine.carryOverEmbeddings(store.previousVersion);
    await engine.useEmbedding(config.embedding);
    return engine;
  }

  /**
   * Keeps what the index an upgrade moved aside had embedded, and which model it was, so the
   * rebuilt index re-embeds nothing that is unchanged. Best effort: without them the vectors are
   * simply made again.
   */
  private carryOverEmbeddings(previous: string): void {
    try {
      const kept = new VectorStore(this.store).carryOverFrom(previous, [EMBEDDING_META]);
      if (kept > 0) this.notices.push(`Kept ${kept.toLocaleString('en-US')} vectors of the previous index: unchanged chunks are not embedded again.`);
    } catch (error) {
      this.notices.push(`The previous index's vectors could not be kept (${errorMessage(error)}); they will be embedded again.`);
    }
  }

  /**
   * Turns the semantic lane on with this model, or off (undefined). A model that cannot be loaded
   * leaves the lane off and says why in every search; nothing stored is touched.
   */
  async useEmbedding(wanted: EmbedderConfig | AsIndexed | undefined): Promise<void> {
    this.lane = undefined;
    this.laneProblem = undefined;
    const config = wanted && 'asIndexed' in wanted ? this.embeddedWith(wanted.apiKey) : wanted;
    this.embeddingConfig = config;
    if (!config) return;
    try {
      this.lane = new SemanticLane(await createEmbedder(config), new VectorStore(this.store));
    } catch (error) {
      this.laneProblem = { model: `${config.provider}:${config.model}`, reason: errorMessage(error) };
    }
  }

  /**
   * Embeds the chunks that have no vector of the configured model yet (see SemanticLane); run it
   * after indexing, never before. Undefined when no model is configured or it could not be loaded.
   */
  embedPending(options: Omit<EmbedPassOptions, 'inWriteTurn'> = {}): Promise<EmbedOutcome> | undefined {
    const { lane, embeddingConfig } = this;
    if (!lane || !embeddingConfig) return undefined;
    return lane.embedPending({ ...options, inWriteTurn: (write) => this.inWriteTurn(write) }).then(async (outcome) => {
      if (!outcome.failed && !options.signal?.aborted) {
        const { apiKey: _key, ...recorded } = embeddingConfig;
        await this.inWriteTurn(() => this.store.setMeta(EMBEDDING_META, JSON.stringify(recorded)));
      }
      return outcome;
    });
  }

  /** The model the last complete embedding pass used, with `apiKey` added back. */
  private embeddedWith(apiKey: string | undefined): EmbedderConfig | undefined {
    const recorded = this.store.meta(EMBEDDING_META);
    if (!recorded) return undefined;
    try {
      return { ...(JSON.parse(recorded) as EmbedderConfig), ...(apiKey ? { apiKey } : {}) };
    } catch {
      return undefined;
    }
  }

  /** The semantic lane as a status shows it; undefined when no model is configured. */
  semanticStatus(): { model: string; embedded: number; problem?: string } | undefined {
    if (this.laneProblem) return { model: this.laneProblem.model, embedded: 0, problem: this.laneProblem.reason };
    if (!this.lane) return undefined;
    const problem = this.lane.lastFailure;
    return { model: this.lane.model, ...this.lane.coverage(), ...(problem ? { problem } : {}) };
  }

  get root(): string {
    return this.indexer.root;
  }

  get dbFile(): string {
    return this.store.dbFile;
  }

  /** This index's lease (index-lease.ts): who keeps it up to date. */
  lease(options: LeaseOptions): IndexLease {
    return new IndexLease(this.store, options);
  }

  sync(options?: SyncOptions): Promise<IndexSummary> {
    return this.indexer.sync(options);
  }

  updateFile(relPath: string): Promise<UpdateOutcome> {
    return this.indexer.updateFile(relPath);
  }

  removeFile(relPath: string): Promise<boolean> {
    return this.indexer.removeFile(relPath);
  }

  /** Drops every indexed file under a folder (relative to the root); returns their paths. */
  async removeFolder(relDir: string): Promise<string[]> {
    const prefix = `${relDir}/`;
    const under = this.store
      .catalog()
      .filter((entry) => entry.path.startsWith(prefix))
      .map((entry) => entry.path);
    for (const relPath of under) await this.indexer.removeFile(relPath);
    return under;
  }

  /** Runs a write to the index once the writes before it are done (Indexer.inWriteTurn). */
  inWriteTurn<T>(write: () => T | Promise<T>): Promise<T> {
    return this.indexer.inWriteTurn(write);
  }

  /** Whether the index holds this file (relative to the root). */
  indexes(relPath: string): boolean {
    return this.store.file(relPath) !== undefined;
  }

  /** Whether the index's rules (ignore files, include and exclude globs) let it hold this file (relative to the root); says nothing of whether it does. */
  isIndexable(relPath: string): Promise<boolean> {
    return this.indexer.accepts(relPath);
  }

  /** Every indexed file with the size and mtime it had when indexed. */
  catalog(): CatalogEntry[] {
    return this.store.catalog();
  }

  /** Changes whenever any process indexes, updates or removes a file; cheap enough for a heartbeat. */
  catalogVersion(): string {
    return this.store.catalogVersion();
  }

  /** Whether an indexed file's size or mtime differs on disk now, or it is gone: a stat, no read. */
  async changedOnDisk(entry: CatalogEntry): Promise<boolean> {
    return differsFrom(entry, await stat(path.join(this.root, entry.path)).catch(() => undefined));
  }

  /** When the last complete sync finished (ms since the epoch), or undefined. */
  lastSync(): number | undefined {
    return Number(this.store.meta('lastSync')) || undefined;
  }

  /** Ignore rules may have changed (an ignore file was saved): read them again on next use. */
  reloadRules(): void {
    this.indexer.reloadRules();
  }

  /**
   * Searches, then checks the files behind the results (a stat each, not a crawl): if one has
   * changed or vanished since it was indexed, it is brought up to date and the search runs again,
   * so a result never points at a deleted file or at lines the file no longer has.
   */
  async search(
    query: string,
    options?: SearchOptionsInput,
    { refreshStale = true, semantic: given }: { refreshStale?: boolean; semantic?: SemanticList } = {},
  ): Promise<SearchResponse> {
    const semantic = given ?? (await this.semanticList(query, options));
    // A turn of the event loop first: a search whose files are all current awaits nothing else, and
    // a caller searching back to back would starve the sync it searches beside.
    await new Promise((resolve) => setImmediate(resolve));
    let answer = this.searchIndexed(query, options, semantic);
    if (!refreshStale) return answer;
    for (let pass = 1; ; pass++) {
      // Checked at once, with no turn of the event loop since the answer: a batch written meanwhile
      // could have replaced its chunks.
      // The places a result names as copies of its text are results too, folded.
      const stale = this.staleFiles(answer.results.flatMap((result) => [result.path, ...(result.copies ?? []).map((copy) => copy.path)]));
      if (stale.length === 0) return answer;
      const skip = new Set(stale);
      const withoutStale = { ...answer, results: answer.results.filter((result) => !skip.has(result.path)).map((result) => withoutCopiesIn(result, skip)) };
      // A mass change under way can keep making results stale: after a few rounds, leave them out.
      if (pass > STALE_REFRESH_PASSES) return withoutStale;
      try {
        // Together, so that they queue for the same write turn: one after another, each waited
        // for the bulk writer's batch in progress, and the next one often for the batch after it.
        await Promise.all(stale.map((relPath) => this.updateFile(relPath)));
      } catch (error) {
        // A full disk must not stop searches, nor another process (a window keeping this index) that
        // holds the write lock past the busy timeout: answer from the index, without the files it
        // could not refresh.
        if (!(error instanceof IndexFullError) && !isBusy(error)) throw error;
        return withoutStale;
      }
      answer = this.searchIndexed(query, options, semantic);
    }
  }

  /** Searches what the index holds, without looking at the files; `semantic` is the lane's list for this query, if any. */
  searchIndexed(query: string, options?: SearchOptionsInput, semantic?: SemanticList): SearchResponse {
    return search({ store: this.store, vocabulary: () => this.vocabulary(), ...(semantic ? { semantic } : {}) }, query, options);
  }

  /**
   * What a host does at open so that a person's first search costs what a later one does: reads the
   * pages a first search reads into the caches (the chunks' file index, IndexStore.warmUp, then the
   * Porter postings of the commonest words), reads the stored vocabulary, and runs a few searches of
   * its own (warmUpQueries). Each step takes milliseconds to tens of them; a host runs one per turn,
   * so a search asked meanwhile waits for one at most.
   */
  warmUpSteps(): Array<() => void> {
    const commonest = this.store
      .commonWordCounts()
      .slice(0, COMMON_WORDS)
      .map(([word]) => word);
    const queries = warmUpQueries(commonest, (word) => this.store.hasWord(word));
    return [
      () => this.store.warmUp(),
      ...commonest.map((word) => () => this.store.readPostings(word)),
      () => this.readStoredVocabulary(),
      ...Array.from({ length: WARM_UP_ROUNDS }, () => queries)
        .flat()
        .map((query) => () => void this.searchIndexed(query)),
    ];
  }

  /**
   * Reads the stored vocabulary whole, when the index keeps one that still describes it, so that a
   * first typo reads none of it (a 7-letter typo reads 4.6–6.5 MB of the Linux tree's 11 MB). Never
   * builds one: that takes seconds on a big tree, which is a sync's idle work (prepareVocabulary).
   */
  private readStoredVocabulary(): void {
    this.vocabularyCache ??= this.snapshotVocabulary(SEARCH_DRIFT_SHARE);
    this.vocabularyCache?.vocabulary.readAll();
  }

  /** Reads the index's vectors into memory if the lane is on (SemanticLane.prepare). */
  prepareVectors(): Promise<void> {
    return this.lane?.prepare() ?? Promise.resolve();
  }

  /** The chunks nearest one chunk by meaning, for "find similar"; undefined without the lane or the chunk's vector. */
  similarByMeaning(chunkId: number, input?: SearchOptionsInput): SemanticList | undefined {
    return this.lane?.nearestToChunk(chunkId, filteredDepth(resolveSearchOptions(input)));
  }

  /** The query's nearest chunks by meaning, deep enough for a filtered search; undefined when the lane is off or not asked for. */
  private async semanticList(query: string, input: SearchOptionsInput | undefined): Promise<SemanticList | undefined> {
    if (this.laneProblem) return { model: this.laneProblem.model, skipped: this.laneProblem.reason };
    const options = resolveSearchOptions(input);
    if (!this.lane || !options.stages.semantic || options.listWeights.semantic === 0 || query.trim() === '') return undefined;
    return this.lane.nearest(query, filteredDepth(options));
  }

  /**
   * Builds the fuzzy vocabulary now if there is none yet or the index has drifted from it (seconds
   * on a large tree), so that a host pays for it while idle — right after a sync or a batch of
   * changes — instead of a search with a word the index does not know. Returns whether it built one.
   */
  prepareVocabulary(): boolean {
    let step = this.prepareVocabularyStep();
    while (step === 'reading') step = this.prepareVocabularyStep();
    return step === 'built';
  }

  /**
   * One step of `prepareVocabulary`, so that a host can answer searches between them: reading a
   * big index's words takes seconds (2–4 s for the Linux tree's 0.9 M), and the first keystroke in
   * the quick pick after a first index waited that long. A step reads one page of words, or takes
   * a stored vocabulary, or builds from the pages read. `current`: nothing to do; `reading`: call
   * again; `built`: a new vocabulary is in use.
   */
  prepareVocabularyStep(): VocabularyStep {
    if (!this.vocabularyRead) {
      const cached = this.vocabularyCache;
      if (cached && this.upToDate(cached, DRIFT_SHARE)) return 'current';
      const stored = this.snapshotVocabulary(DRIFT_SHARE);
      if (stored) {
        this.vocabularyCache = stored;
        // All of it, while idle, so that a host's first typo reads nothing: on the Linux tree the
        // buckets are 11 MB, about 90 ms of reads, of which one typo reads 1–7 MB.
        stored.vocabulary.readAll();
        return 'built';
      }
      this.vocabularyRead = this.beginVocabularyRead();
    }
    if (!this.vocabularyRead.done) {
      this.readVocabularyPage(this.vocabularyRead);
      return 'reading';
    }
    this.vocabularyCache = this.buildVocabulary();
    return 'built';
  }

  private beginVocabularyRead(): VocabularyRead {
    return { builtAt: Date.now(), files: this.store.stats().files, words: [], docFreq: [], done: false };
  }

  private readVocabularyPage(read: VocabularyRead): void {
    const page = this.store.vocabularyPage(read.words.at(-1) ?? '', VOCABULARY_PAGE_WORDS);
    for (const [word, chunks] of page) {
      read.words.push(word);
      read.docFreq.push(chunks);
    }
    read.done = page.length < VOCABULARY_PAGE_WORDS;
  }

  /**
   * One step of merging the index's FTS5 segments, once a sync found enough of the index rewritten
   * to begin a pass (IndexStore.tidyAfterSync): a host takes the steps while idle, the CLI all at
   * once. Returns whether more remain.
   */
  mergeSegments(): boolean {
    return this.store.mergeSegments();
  }

  /** Begins a merge pass if a small index's saves left its tables in many segments (IndexStore.beginMergeIfFragmented). */
  beginMergeIfFragmented(): boolean {
    return this.store.beginMergeIfFragmented();
  }

  /** Whether a merge pass has steps left. */
  get merging(): boolean {
    return this.store.merging;
  }

  /**
   * One step of forgetting the words no chunk holds any more, once a sync deleted enough chunks to
   * begin a pass (IndexStore.tidyAfterSync): taken while idle, like the merge. Returns whether more remain.
   */
  forgetUnusedWords(): boolean {
    return this.store.forgetUnusedWords();
  }

  /** Whether a pass forgetting unused words has steps left. */
  get forgetting(): boolean {
    return this.store.forgetting;
  }

  chunk(id: number): StoredChunk | undefined {
    return this.store.chunk(id);
  }

  /** The query's words this index holds as typed (its typo retry would not correct them). */
  piecesHeld(query: string): string[] {
    return piecesHeld(this.store, query);
  }

  /** One file's chunks in line order. */
  chunksOfFile(relPath: string): StoredChunk[] {
    return this.store.chunksOfFile(relPath);
  }

  /**
   * The indexed paths (relative, `/`-separated) whose file name is one of `names`, by name: what
   * a stack frame's path, written from another machine or folder, may be. One pass over the paths.
   */
  filesNamed(names: ReadonlySet<string>): Map<string, string[]> {
    const found = new Map<string, string[]>();
    if (names.size === 0) return found;
    for (const relPath of this.store.paths()) {
      const name = relPath.slice(relPath.lastIndexOf('/') + 1);
      if (!names.has(name)) continue;
      const list = found.get(name);
      if (list) list.push(relPath);
      else found.set(name, [relPath]);
    }
    return found;
  }

  /** The best `limit` chunks by BM25 for a Porter MATCH expression (assembled from quoted phrases, never raw input). */
  matchChunks(expression: string, limit: number): StoredChunk[] {
    return this.store
      .match('porter', expression, limit, 1)
      .map((row) => this.store.chunk(row.id))
      .filter((chunk): chunk is StoredChunk => chunk !== undefined);
  }

  /** How many chunks the index holds (cheap; no table scan). */
  get chunkCount(): number {
    return this.store.size;
  }

  /** How many chunks the Porter index finds for an FTS5 expression, counting up to `cap`. */
  chunksMatching(expression: string, cap: number): number {
    return this.store.countMatches('porter', expression, cap);
  }

  stats(): IndexStats {
    return this.store.stats();
  }

  close(): void {
    this.store.close();
  }

  /**
   * The files behind a search's results that changed or vanished since they were indexed. Each is
   * stat'ed synchronously, a few microseconds for a page of results: an asynchronous stat queues in
   * libuv's four threads behind the file reads of a sync in progress, and during a 5,000-file
   * checkout on the Linux tree ten of them took up to 190 ms.
   */
  private staleFiles(paths: string[]): string[] {
    const known = this.store.files([...new Set(paths)]);
    return [...known.values()]
      .filter((entry) => differsFrom(entry, statSync(path.join(this.root, entry.path), { throwIfNoEntry: false })))
      .map((entry) => entry.path);
  }

  private vocabulary(): Vocabulary {
    let cached = this.vocabularyCache;
    // During a first index the vocabulary grows with every batch, and reading it costs more with
    // it (4 s for the Linux tree's 0.9 M words): searches correct against the one built first,
    // and the keeper builds the whole one when the index is complete.
    if (cached && this.indexer.syncing && this.lastSync() === undefined) return cached.vocabulary;
    if (!cached || !this.stillCurrent(cached)) cached = this.vocabularyCache = this.snapshotVocabulary(SEARCH_DRIFT_SHARE) ?? this.buildVocabulary();
    return cached.vocabulary;
  }

  private stillCurrent(cached: CachedVocabulary): boolean {
    const now = Date.now();
    if (now - cached.checkedAt < VOCABULARY_CHECK_MS && !cached.vocabulary.stale) return true;
    if (!this.upToDate(cached, SEARCH_DRIFT_SHARE)) return false;
    cached.checkedAt = now;
    return true;
  }

  /**
   * Whether a vocabulary still describes the index, whichever process changed it. One whose stored
   * buckets were replaced under it does not (Vocabulary.stale). A small one is
   * rebuilt after any change: that takes milliseconds. A big one takes seconds and barely moves
   * with a few edits, so it serves until the changed files pass the drift that retires a snapshot.
   */
  private upToDate(cached: CachedVocabulary, share: number): boolean {
    if (cached.vocabulary.stale) return false;
    const changed = this.store.filesChangedSince(cached.builtAt, cached.files);
    return cached.vocabulary.size >= SNAPSHOT_MIN_WORDS ? !drifted(changed, cached.files, share) : changed === 0;
  }

  /** The stored snapshot, unless too much of the index has changed since it was taken. */
  private snapshotVocabulary(share: number): CachedVocabulary | undefined {
    const snapshot = this.store.vocabularySnapshot();
    if (!snapshot) return undefined;
    // The snapshot whose buckets went stale is still the stored one: they are unreadable, so it is rebuilt.
    const unreadable = this.vocabularyCache;
    if (unreadable?.vocabulary.stale && unreadable.builtAt === snapshot.builtAt) return undefined;
    if (drifted(this.store.filesChangedSince(snapshot.builtAt, snapshot.files), snapshot.files, share)) return undefined;
    try {
      const vocabulary = Vocabulary.fromStored(snapshot.header, (length) => this.store.vocabularyBucket(snapshot.builtAt, length));
      return { vocabulary, builtAt: snapshot.builtAt, files: snapshot.files, checkedAt: Date.now() };
    } catch {
      return undefined; // Written by another build: rebuilt and replaced below.
    }
  }

  /** A vocabulary from the index's words: those a reading in steps has read, and the rest of them now. */
  private buildVocabulary(): CachedVocabulary {
    const read = this.vocabularyRead ?? this.beginVocabularyRead();
    this.vocabularyRead = undefined;
    while (!read.done) this.readVocabularyPage(read);
    const { builtAt, files, words, docFreq } = read;
    const vocabulary = new Vocabulary(words, docFreq);
    if (vocabulary.size >= SNAPSHOT_MIN_WORDS) {
      // In its write turn, which the search that built it does not wait for. A full disk or a
      // read-only file: the next process builds its own, nothing is lost.
      const { header, buckets } = vocabulary.toStored();
      const common = commonWordCounts(words, docFreq);
      this.inWriteTurn(() => {
        this.store.saveVocabularySnapshot({ builtAt, files, header }, buckets);
        this.store.saveCommonWordCounts(common);
      }).catch(() => undefined);
    }
    return { vocabulary, builtAt, files, checkedAt: builtAt };
  }
}

/** The result without the copies that sit in the given files. */
function withoutCopiesIn(result: SearchResult, paths: ReadonlySet<string>): SearchResult {
  if (!result.copies?.some((copy) => paths.has(copy.path))) return result;
  const { copies, ...rest } = result;
  const kept = copies.filter((copy) => !paths.has(copy.path));
  return kept.length > 0 ? { ...rest, copies: kept } : rest;
}
