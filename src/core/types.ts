// Plain data shared by every stage of the engine. Nothing here touches SQLite, the file system or
// VS Code, so the worker, the CLI and the tests can all pass these values around freely.

/** `code` for source files chunked by symbol; `prose` for everything people write in sentences. */
export type ChunkKind = 'code' | 'prose';

/** What a chunker produces for one piece of a file, before it has a database id. */
export interface ChunkDraft {
  /** Heading path (`Install > From source`), symbol path (`ContentStore > search`) or key path. */
  title: string;
  kind: ChunkKind;
  /** 1-based, inclusive. */
  startLine: number;
  /** 1-based, inclusive; equal to startLine for a one-line chunk. */
  endLine: number;
  text: string;
}

/**
 * A file as the crawler found it on disk. No absolute path: a first index holds one of these for
 * every file of the folder until it ends, and on the Linux tree those paths were 12 MB of its heap.
 */
export interface FileStat {
  /** Path relative to the indexed root, always with `/` separators. */
  relPath: string;
  size: number;
  /** Milliseconds since the epoch, as `fs.Stats.mtimeMs`. */
  mtimeMs: number;
}

/**
 * Why a file was not indexed; each reason is counted in the index summary. `secret`: a file that
 * holds credentials (src/core/crawl/secret-files.ts), kept out unless `indexSecretFiles` is on.
 * `source-map`: a build's map back to its sources (src/core/crawl/source-map.ts).
 */
export type SkipReason =
  'binary' | 'too-large' | 'invalid-utf8' | 'unreadable' | 'vanished' | 'symlink-outside-root' | 'symlink-loop' | 'chunk-failed' | 'secret' | 'source-map';

export type FuzzyMode = 'unknown-words' | 'empty' | 'off';

/** Which pipeline stage put a result where it is; `semantic`: only the embedding model's list found it. */
export type Stage = 'rrf' | 'proximity' | 'fuzzy' | 'semantic';

/**
 * The lexical lists fused by RRF: the query's words through the Porter and the trigram index,
 * and the feedback words of a first pass through the Porter index.
 */
export type LexicalList = 'porter' | 'trigram' | 'feedback';

/** Every list RRF fuses: the lexical ones and, when an embedding model is configured, the semantic list. */
export type ListName = LexicalList | 'semantic';

/** A chunk's place in the semantic list: the chunks nearest the query's vector. */
export interface SemanticHit {
  /** 1-based. */
  rank: number;
  /** Cosine similarity of the chunk's vector and the query's, -1–1. */
  cosine: number;
}

/** A chunk's place in one lexical list. */
export interface ListHit {
  /** 1-based. */
  rank: number;
  /** SQLite's bm25(): lower (more negative) is better. */
  bm25: number;
}

export interface RrfExplanation {
  score: number;
  k: number;
  /** w / (k + rank) for each list that held the chunk. */
  contributions: Partial<Record<ListName, number>>;
}

export interface ProximityExplanation {
  /**
   * The title's part of the boost: the IDF-weighted share of the query's pieces the title and the
   * path (without its extension) hold, times 0.3 for code or 0.15 for prose, before the fade for
   * long queries. Not the title column's BM25 weight, which the lists apply before fusion.
   */
  titleBoost: number;
  /** Length in characters of the tightest window that holds every query term; null if some term is missing. */
  span: number | null;
  /** In-order adjacent query-term pairs found close together (capped). */
  phrasePairs: number;
  /** The total boost: the rerank multiplies the fused score by 1 + boost (and by √lexical). */
  boost: number;
  /**
   * How strongly the query's own lists matched, 0–1: each word list's BM25 over its best in this
   * search, averaged with the list weights; for a chunk only the semantic list found, its cosine
   * over the best cosine. The rerank multiplies by its square root.
   */
  lexical: number;
  /** Set on a test whose score was multiplied by the search's `testWeight` (the query did not ask about tests): that weight. */
  testFactor?: number;
  /** Set on a changelog's entry whose score was multiplied by the search's `changelogWeight` (the query did not ask about releases or history): that weight. */
  changelogFactor?: number;
  /** Set on a build's output whose score was multiplied by the search's `buildOutputWeight` (the query did not ask about builds): that weight. */
  builtFactor?: number;
  /** Set on another project's code committed into this one whose score was multiplied by the search's `vendoredWeight` (the query did not ask about it): that weight. */
  vendoredFactor?: number;
  /** 1-based rank after fusion, before the rerank. */
  fusedRank: number;
  /** 1-based rank after the rerank. */
  finalRank: number;
}

export interface FuzzyExplanation {
  /** [as typed, as corrected] for each corrected word. */
  corrections: Array<[string, string]>;
}

export interface Explanation {
  stage: Stage;
  porter?: ListHit;
  trigram?: ListHit;
  feedback?: ListHit;
  semantic?: SemanticHit;
  rrf: RrfExplanation;
  proximity?: ProximityExplanation;
  fuzzy?: FuzzyExplanation;
}

/** A [start, end) range of UTF-16 code units inside a snippet. */
export type MatchRange = [number, number];

export interface SearchResult {
  chunkId: number;
  path: string;
  startLine: number;
  endLine: number;
  title: string;
  kind: ChunkKind;
  language: string;
  stage: Stage;
  score: number;
  snippet: string;
  matches: MatchRange[];
  explain: Explanation;
  /**
   * Other chunks whose text is this one's (a section pasted into many pages, a vendored or built
   * copy) or, in prose, much the same (the page rendered as HTML or a man page), found among the
   * ranked candidates, best first; absent when there are none. They are folded into this result
   * instead of taking results of their own.
   */
  copies?: ChunkCopy[];
}

/** Where a copy of a result's text is. */
export interface ChunkCopy {
  chunkId: number;
  path: string;
  startLine: number;
  endLine: number;
  /** Much the same text rather than the same: in other markup, or lightly edited. */
  alike?: true;
}

/** How far a first index has got: files read of files found, when a run is known. */
export interface IndexingSoFar {
  filesDone?: number;
  filesFound?: number;
}

export interface SearchResponse {
  results: SearchResult[];
  /** Results ranked above these and skipped (the search's `offset`): the first is result offset + 1. */
  offset: number;
  /** Corrections used by the fuzzy retry, if it ran and changed something. */
  corrections: Array<[string, string]>;
  /**
   * Query words no chunk holds in any form (as typed, stemmed, or inside a longer word) that were
   * not corrected: the results match the query's other words.
   */
  unmatched: string[];
  /** The words pseudo-relevance feedback searched besides the query's own; empty if it did not run. */
  feedbackWords: string[];
  /**
   * Set when an embedding model is configured: which one, and why its list sat this search out
   * (slow, missing or failing model), if it did. The search then answered from the lexical lists.
   */
  semantic?: { model: string; skipped?: string };
  /**
   * Set while the index has never been complete (its first index is running or was stopped): the
   * results come from the files indexed so far. The counts are the run's, when one is known.
   */
  partial?: IndexingSoFar;
  /** How many candidates the fused list held before slicing to the limit. */
  candidates: number;
  /** Milliseconds spent answering. */
  elapsedMs: number;
}
