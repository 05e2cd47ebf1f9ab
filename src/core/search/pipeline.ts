// The fused search, step by step: terms → Porter and trigram lists → RRF → proximity rerank →
// fuzzy retry. Each result carries the numbers of every stage that touched it.

import { resolveSearchOptions, type SearchOptions, type SearchOptionsInput } from '../options.ts';
import type { IndexStore, ListRow, StoredChunk } from '../store/store.ts';
import type { Explanation, ListName, SearchResponse, SearchResult, Stage } from '../types.ts';
import { compileFilter, isFiltered } from './filters.ts';
import { fuse, type FusedCandidate } from './fuse.ts';
import type { Vocabulary } from './fuzzy.ts';
import { porterList, trigramList } from './lists.ts';
import { prepare, findOccurrences, type Occurrence } from './occurrences.ts';
import { rerank } from './rerank.ts';
import { makeSnippet } from './snippet.ts';
import { parseQuery, type QueryTerms } from './terms.ts';

export interface SearchContext {
  store: IndexStore;
  /** The index vocabulary for typo correction; built lazily, because only the retry needs it. */
  vocabulary(): Vocabulary;
}

/** One ranked chunk inside a single run of the pipeline (the typed query, or the corrected one). */
interface Ranked {
  chunk: StoredChunk;
  fused: FusedCandidate;
  score: number;
  occurrences: Occurrence[];
  explain: Omit<Explanation, 'stage' | 'fuzzy'>;
  stage: Stage;
  /** The corrected query found it (possibly the typed one too). */
  corrected?: boolean;
}

/** Never throws for any query text: a query with no searchable words returns no results. */
export function search(context: SearchContext, query: string, input: SearchOptionsInput = {}): SearchResponse {
  const started = performance.now();
  const options = resolveSearchOptions(input);
  const terms = parseQuery(query);
  const typed = run(context.store, terms, options);
  let ranked = typed.ranked;
  let corrections: Array<[string, string]> = [];

  const retry =
    options.fuzzy === 'unknown-words' || (options.fuzzy === 'empty' && ranked.length === 0)
      ? correct(context, terms, options.fuzzy)
      : undefined;
  if (retry && retry.corrections.length > 0) {
    corrections = retry.corrections;
    const corrected = run(context.store, retry.terms, options);
    ranked = merge(ranked, corrected.ranked);
  }

  const results = ranked.slice(0, options.limit).map((entry) => toResult(entry, corrections));
  return { results, corrections, candidates: typed.candidates, elapsedMs: performance.now() - started };
}

function run(store: IndexStore, terms: QueryTerms, options: SearchOptions): { ranked: Ranked[]; candidates: number } {
  if (terms.words.length === 0) return { ranked: [], candidates: 0 };
  const filtered = isFiltered(options.filters);
  const depth = filtered ? Math.max(options.candidateDepth, 8 * options.limit, 40) : options.candidateDepth;
  const lists: Partial<Record<ListName, ListRow[]>> = {};
  if (options.stages.porter) lists.porter = porterList(store, terms, depth, options.titleWeight);
  if (options.stages.trigram) lists.trigram = trigramList(store, terms, depth, options.titleWeight);
  const fused = fuse(lists, options.rrfK, options.listWeights);

  const accept = compileFilter(options.filters);
  const window = Math.max(options.rerankWindow, options.limit);
  const pool: Array<{ chunk: StoredChunk; fused: FusedCandidate }> = [];
  for (const candidate of fused) {
    if (pool.length === window) break;
    const chunk = store.chunk(candidate.id);
    if (chunk && accept(chunk)) pool.push({ chunk, fused: candidate });
  }

  const pieces = prepare(terms.pieces);
  const explainRrf = (c: FusedCandidate) => ({ score: c.score, k: options.rrfK, contributions: c.contributions });
  if (!options.stages.proximity) {
    const ranked = pool.map(({ chunk, fused: c }): Ranked => ({
      chunk,
      fused: c,
      score: c.score,
      occurrences: findOccurrences(chunk.text, pieces),
      explain: { ...c.lists, rrf: explainRrf(c) },
      stage: 'rrf',
    }));
    return { ranked, candidates: fused.length };
  }
  const reranked = rerank(
    pool.map(({ chunk, fused: c }) => ({ id: c.id, score: c.score, title: chunk.title, kind: chunk.kind, text: chunk.text, chunk, fused: c })),
    pieces,
  );
  const ranked = reranked.map((entry): Ranked => ({
    chunk: entry.candidate.chunk,
    fused: entry.candidate.fused,
    score: entry.score,
    occurrences: entry.occurrences,
    explain: { ...entry.candidate.fused.lists, rrf: explainRrf(entry.candidate.fused), proximity: entry.proximity },
    stage: entry.proximity.finalRank < entry.proximity.fusedRank ? 'proximity' : 'rrf',
  }));
  return { ranked, candidates: fused.length };
}

/**
 * Words the index has never seen are replaced by their closest vocabulary word. In `unknown-words`
 * mode this happens even when other words of the query are spelled right (`kuberntes pods`); in
 * `empty` mode the caller only asks when the typed query found nothing.
 */
function correct(context: SearchContext, terms: QueryTerms, mode: 'unknown-words' | 'empty'): { terms: QueryTerms; corrections: Array<[string, string]> } | undefined {
  const unknown = terms.pieces.filter((piece) => [...piece].length >= 3 && !/^\p{N}+$/u.test(piece) && context.store.wordDocFreq(piece) === 0);
  if (unknown.length === 0 && mode === 'unknown-words') return undefined;
  if (unknown.length === 0) return undefined;
  const vocabulary = context.vocabulary();
  const replacements = new Map<string, string>();
  for (const piece of unknown) {
    const correction = vocabulary.correct(piece);
    if (correction) replacements.set(piece, correction.to);
  }
  if (replacements.size === 0) return undefined;
  const text = terms.words.map((word) => word.parts.map((part) => replacements.get(part) ?? part).join(' ')).join(' ');
  return { terms: parseQuery(text), corrections: [...replacements] };
}

/** What only the corrected query found is merged in by score and marked `fuzzy`. */
function merge(typed: Ranked[], corrected: Ranked[]): Ranked[] {
  const byId = new Map<number, Ranked>();
  for (const entry of typed) byId.set(entry.chunk.id, entry);
  for (const entry of corrected) {
    const existing = byId.get(entry.chunk.id);
    if (!existing) byId.set(entry.chunk.id, { ...entry, stage: 'fuzzy', corrected: true });
    else if (entry.score > existing.score) byId.set(entry.chunk.id, { ...entry, stage: existing.stage, corrected: true });
    else existing.corrected = true;
  }
  return [...byId.values()].sort((a, b) => b.score - a.score);
}

function toResult(entry: Ranked, corrections: Array<[string, string]>): SearchResult {
  const { chunk } = entry;
  const snippet = makeSnippet(chunk.text, entry.occurrences);
  const explain: Explanation = { ...entry.explain, stage: entry.stage };
  if (entry.corrected) explain.fuzzy = { corrections };
  return {
    chunkId: chunk.id,
    path: chunk.path,
    startLine: chunk.startLine,
    endLine: chunk.endLine,
    title: chunk.title,
    kind: chunk.kind,
    language: chunk.language,
    stage: entry.stage,
    score: entry.score,
    snippet: snippet.text,
    matches: snippet.matches,
    explain,
  };
}
