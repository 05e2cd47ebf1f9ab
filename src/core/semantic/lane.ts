// The semantic lane: an embedding model's nearest chunks as one more list in the fusion. It never
// stands in front of lexical search:
//
// - Embedding runs after indexing, in batches, as a pass that can be stopped at any batch and
//   resumed later from what the database says is missing (a kill loses at most one batch).
// - A query is embedded within a time budget, and cached; a slow, missing or failing model makes
//   the search answer from the lexical lists alone and say why. After a failure the model is
//   left alone for a while, so each keystroke does not wait out the same timeout again.

import { errorMessage } from '../error-message.ts';
import type { NearestChunk, VectorStore } from '../store/vectors.ts';
import type { UserActivity } from '../user-activity.ts';
import { EmbedderError, type Embedder } from './embedder.ts';

/** What the pipeline receives: the nearest chunks, or why there are none this time. */
export type SemanticList = { model: string; rows: NearestChunk[] } | { model: string; skipped: string };

export interface EmbedProgress {
  /** Contents embedded so far in this pass, and how many were missing when it started. */
  done: number;
  total: number;
  /** Set while the pass rests between batches because the user is typing (`EmbedPassOptions.activity`). */
  resting?: boolean;
}

export interface EmbedOutcome {
  embedded: number;
  /** Set when the pass stopped on an error (the rest waits for the next pass); absent when it finished or was stopped. */
  failed?: string;
}

/** How long a query waits for its vector before the search goes on without the lane. */
const DEFAULT_QUERY_BUDGET_MS = 300;
/** After a failure, queries skip the model this long instead of waiting for it again. */
const FAILURE_COOLDOWN_MS = 30_000;
const QUERY_CACHE_SIZE = 128;

export interface EmbedPassOptions {
  signal?: AbortSignal;
  onProgress?: (progress: EmbedProgress) => void;
  inWriteTurn?: (write: () => void) => Promise<void>;
  /** While it reports the user active, the pass rests between batches (src/core/user-activity.ts). */
  activity?: UserActivity;
}

export class SemanticLane {
  readonly embedder: Embedder;
  private readonly vectors: VectorStore;
  private readonly queryBudgetMs: number;
  private readonly now: () => number;
  private readonly queryCache = new Map<string, Float32Array>();
  private failure: { message: string; until: number } | undefined;

  constructor(embedder: Embedder, vectors: VectorStore, options: { queryBudgetMs?: number; now?: () => number } = {}) {
    this.embedder = embedder;
    this.vectors = vectors;
    this.queryBudgetMs = options.queryBudgetMs ?? DEFAULT_QUERY_BUDGET_MS;
    this.now = options.now ?? Date.now;
  }

  get model(): string {
    return this.embedder.modelId;
  }

  /** The last failure a query or a pass met, while queries still skip the model for it. */
  get lastFailure(): string | undefined {
    return this.failure && this.failure.until > this.now() ? this.failure.message : undefined;
  }

  /**
   * Embeds every chunk whose content has no vector of this model yet, batch by batch, then drops
   * vectors nothing holds any more (and other models'). Aborting stops after the batch in flight;
   * what was stored stays. Each write runs through `inWriteTurn` when given (Indexer.inWriteTurn).
   */
  async embedPending(options: EmbedPassOptions = {}): Promise<EmbedOutcome> {
    const { signal, onProgress, activity, inWriteTurn = async (write) => write() } = options;
    const model = this.model;
    await inWriteTurn(() => {
      this.vectors.ensureSchema();
      this.vectors.hashNewChunks();
    });
    const total = this.vectors.countPending(model);
    let done = 0;
    let afterId = 0;
    onProgress?.({ done, total });
    const pace = activity?.pace();
    for (;;) {
      if (signal?.aborted) return { embedded: done };
      const batch = this.vectors.pending(model, afterId, this.embedder.batchSize);
      if (batch.length === 0) break;
      let vectors: Float32Array[];
      try {
        vectors = await this.embedder.embed(
          batch.map((chunk) => embeddingText(chunk.title, chunk.text)),
          signal,
        );
      } catch (error) {
        if (signal?.aborted || (error instanceof EmbedderError && error.kind === 'aborted')) return { embedded: done };
        const message = errorMessage(error);
        this.failure = { message, until: this.now() + FAILURE_COOLDOWN_MS };
        return { embedded: done, failed: message };
      }
      await inWriteTurn(() =>
        this.vectors.put(
          model,
          batch.map((chunk, i) => ({ hash: chunk.hash, vector: vectors[i]! })),
        ),
      );
      done += batch.length;
      afterId = batch.at(-1)!.chunkId;
      onProgress?.({ done, total: Math.max(total, done) });
      await pace?.between((resting) => onProgress?.({ done, total: Math.max(total, done), ...(resting ? { resting } : {}) }), signal);
    }
    await inWriteTurn(() => this.vectors.removeStale(model));
    this.failure = undefined;
    return { embedded: done };
  }

  /** How many chunks have this model's vector. */
  coverage(): { embedded: number } {
    return { embedded: this.vectors.countEmbedded(this.model) };
  }

  /** The `limit` chunks nearest the query, or the reason the lane sits this search out. */
  async nearest(query: string, limit: number): Promise<SemanticList> {
    const model = this.model;
    const failed = this.lastFailure;
    if (failed) return { model, skipped: `the embedding model failed recently: ${failed}` };
    const key = query.trim();
    let vector = this.queryCache.get(key);
    if (!vector) {
      const budget = AbortSignal.timeout(this.queryBudgetMs);
      try {
        [vector] = await this.embedder.embed([key], budget);
      } catch (error) {
        // A model slow to answer is not failing: the next query asks it again.
        if (error instanceof EmbedderError && error.kind === 'aborted')
          return { model, skipped: `the embedding model did not answer within ${this.queryBudgetMs} ms` };
        const message = errorMessage(error);
        this.failure = { message, until: this.now() + FAILURE_COOLDOWN_MS };
        return { model, skipped: message };
      }
      if (!vector) return { model, skipped: 'the embedding model answered no vector' };
      this.queryCache.set(key, vector);
      if (this.queryCache.size > QUERY_CACHE_SIZE) this.queryCache.delete(this.queryCache.keys().next().value!);
    }
    return this.listOf(this.vectors.nearest(model, vector, limit));
  }

  /** The `limit` chunks nearest one chunk's own vector, itself left out; undefined when it has none yet. */
  nearestToChunk(chunkId: number, limit: number): SemanticList | undefined {
    const vector = this.vectors.vectorOf(this.model, chunkId);
    if (!vector) return undefined;
    return this.listOf(
      this.vectors
        .nearest(this.model, vector, limit + 1)
        ?.filter((row) => row.id !== chunkId)
        .slice(0, limit),
    );
  }

  /**
   * Reads the index's vectors into memory if they are not there yet: a host starts it at open so
   * that its first search does not pay for it, a one-shot search waits for it.
   */
  prepare(): Promise<void> {
    return this.vectors.load(this.model);
  }

  private listOf(rows: NearestChunk[] | undefined): SemanticList {
    if (rows) return { model: this.model, rows };
    const share = this.vectors.loadingShare(this.model) ?? 0;
    return { model: this.model, skipped: `the index's vectors are being read into memory (${Math.floor(share * 100)}%)` };
  }
}

/** What a chunk is embedded as: its title (symbol or heading path) says what the text is about. */
function embeddingText(title: string, text: string): string {
  return title ? `${title}\n${text}` : text;
}
