// Every tunable of the engine, its unit, its default and why, in one place. Callers pass partial
// options; `resolve*Options` merges them over the defaults once, at the boundary.

import { availableParallelism } from 'node:os';
import type { FuzzyMode, ListName } from './types.ts';

export interface IndexOptions {
  /** Files larger than this many bytes are skipped (`too-large`). Minified bundles and data dumps live up there. */
  maxFileBytes: number;
  /** Upper bound of one chunk's text in UTF-8 bytes; small enough for a snippet, big enough for a function. */
  chunkMaxBytes: number;
  /** Globs (gitignore-style, relative to the root) a file must match to be indexed; empty means everything. */
  include: string[];
  /** Globs (gitignore-style, relative to the root) that are never indexed, on top of ignore files. */
  exclude: string[];
  /**
   * Threads that read and chunk files during a sync while the indexing thread writes them; 0 does
   * it all on the indexing thread. Unset: one fewer than the CPUs, at most 2 — each thread loads
   * its own grammars (tens of MB), and the writes, which one thread does, are the bottleneck after that.
   */
  prepareThreads?: number;
}

export const DEFAULT_INDEX_OPTIONS: IndexOptions = {
  maxFileBytes: 1024 * 1024,
  chunkMaxBytes: 4096,
  include: [],
  exclude: [],
};

export interface SearchFilters {
  /** Globs a result's path must match (any of them). */
  include?: string[];
  /** Globs a result's path must not match. */
  exclude?: string[];
  kind?: 'code' | 'prose';
  /** Language ids as the chunker names them (`typescript`, `markdown`, ...). */
  language?: string[];
}

export interface SearchOptions {
  /** Results returned. */
  limit: number;
  /** Candidates taken from each lexical list; 0 means max(10, 2 × limit). */
  candidateDepth: number;
  /** RRF's k: larger values flatten the difference between neighbouring ranks. */
  rrfK: number;
  /**
   * Weight of each list in the fused score. The trigram list indexes each chunk's distinct words
   * and matches inside them: it finds what stemming cannot (`alloc` in `kmalloc`, a half-typed
   * word) but ranks less precisely, so by default it counts half as much as the Porter list.
   * The feedback list searches words the query did not say, so it counts half as much too.
   */
  listWeights: Record<ListName, number>;
  /** How many fused candidates the proximity rerank looks at; 0 means max(30, 3 × limit). */
  rerankWindow: number;
  /** BM25 weight of a chunk's title relative to its text (1). */
  titleWeight: number;
  fuzzy: FuzzyMode;
  /** Turn single stages off, for ablations and for the UI's "why" views. */
  stages: { porter: boolean; trigram: boolean; proximity: boolean; feedback: boolean };
  filters: SearchFilters;
}

export const DEFAULT_SEARCH_OPTIONS: SearchOptions = {
  limit: 10,
  candidateDepth: 0,
  rrfK: 60,
  listWeights: { porter: 1, trigram: 0.5, feedback: 0.5 },
  rerankWindow: 0,
  titleWeight: 5,
  fuzzy: 'unknown-words',
  stages: { porter: true, trigram: true, proximity: true, feedback: true },
  filters: {},
};

export type SearchOptionsInput = Partial<Omit<SearchOptions, 'stages' | 'listWeights'>> & {
  stages?: Partial<SearchOptions['stages']>;
  listWeights?: Partial<SearchOptions['listWeights']>;
};

export function resolveIndexOptions(input: Partial<IndexOptions> = {}): IndexOptions {
  return {
    maxFileBytes: positiveInt(input.maxFileBytes, DEFAULT_INDEX_OPTIONS.maxFileBytes),
    chunkMaxBytes: positiveInt(input.chunkMaxBytes, DEFAULT_INDEX_OPTIONS.chunkMaxBytes),
    include: input.include ?? DEFAULT_INDEX_OPTIONS.include,
    exclude: input.exclude ?? DEFAULT_INDEX_OPTIONS.exclude,
    prepareThreads: input.prepareThreads !== undefined && Number.isInteger(input.prepareThreads) && input.prepareThreads >= 0
      ? input.prepareThreads
      : Math.min(2, availableParallelism() - 1),
  };
}

export function resolveSearchOptions(input: SearchOptionsInput = {}): SearchOptions {
  const d = DEFAULT_SEARCH_OPTIONS;
  const limit = positiveInt(input.limit, d.limit);
  return {
    limit,
    candidateDepth: positiveInt(input.candidateDepth, 0) || Math.max(10, 2 * limit),
    rrfK: nonNegative(input.rrfK, d.rrfK),
    listWeights: {
      porter: nonNegative(input.listWeights?.porter, d.listWeights.porter),
      trigram: nonNegative(input.listWeights?.trigram, d.listWeights.trigram),
      feedback: nonNegative(input.listWeights?.feedback, d.listWeights.feedback),
    },
    rerankWindow: positiveInt(input.rerankWindow, 0) || Math.max(30, 3 * limit),
    titleWeight: nonNegative(input.titleWeight, d.titleWeight),
    fuzzy: input.fuzzy === 'empty' || input.fuzzy === 'off' ? input.fuzzy : d.fuzzy,
    stages: { ...d.stages, ...input.stages },
    filters: input.filters ?? d.filters,
  };
}

function positiveInt(value: number | undefined, fallback: number): number {
  return value !== undefined && Number.isInteger(value) && value > 0 ? value : fallback;
}

function nonNegative(value: number | undefined, fallback: number): number {
  return value !== undefined && Number.isFinite(value) && value >= 0 ? value : fallback;
}
