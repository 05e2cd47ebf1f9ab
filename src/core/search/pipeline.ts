// The fused search, step by step: terms → Porter and trigram lists (and the semantic list, when
// the caller brings one) → RRF → proximity rerank → fuzzy retry. Each result carries the numbers
// of every stage that touched it.

import { resolveSearchOptions, type SearchOptions, type SearchOptionsInput } from '../options.ts';
import { quote, type IndexStore, type ListRow, type StoredChunk } from '../store/store.ts';
import type { SemanticList } from '../semantic/lane.ts';
import type { NearestChunk } from '../store/vectors.ts';
import type { Explanation, LexicalList, ListName, SearchResponse, SearchResult, Stage } from '../types.ts';
import { chunkCopy, CopyFolder, type FoldedChunk } from './copies.ts';
import { isEnglishWord } from './english.ts';
import { compileFilter, isFiltered } from './filters.ts';
import { fuse, type FusedCandidate } from './fuse.ts';
import type { Correction, Vocabulary } from './fuzzy.ts';
import { FEEDBACK_CHUNKS, feedbackWords, wantsFeedback } from './feedback.ts';
import { feedbackList, inverseDocumentFrequency, porterList, trigramList } from './lists.ts';
import { prepare, findOccurrences, type Occurrence, type QueryPieces } from './occurrences.ts';
import { rerank, type Reranked } from './rerank.ts';
import { makeSnippet } from './snippet.ts';
import { parseQuery, type QueryTerms } from './terms.ts';

export interface SearchContext {
  store: IndexStore;
  /** The index vocabulary for typo correction; built lazily, because only the retry needs it. */
  vocabulary(): Vocabulary;
  /**
   * The chunks nearest the query by meaning, computed by the caller (embedding the query is
   * asynchronous; the pipeline is not), or why the semantic lane sat this search out.
   */
  semantic?: SemanticList;
}

/** One ranked chunk inside a single run of the pipeline (the typed query, or the corrected one). */
interface Ranked {
  chunk: StoredChunk;
  fused: FusedCandidate;
  score: number;
  /** Where the query's pieces occur in the text; computed only when needed (rerank or snippet). */
  occurrences?: Occurrence[];
  explain: Omit<Explanation, 'stage' | 'fuzzy'>;
  stage: Stage;
  /** The corrected query found it (possibly the typed one too). */
  corrected?: boolean;
  /** Chunks ranked below it of the same text, or in prose of much the same (`CopyFolder`). */
  copies: FoldedChunk[];
}

/** Never throws for any query text: a query with no searchable words returns no results. */
export function search(context: SearchContext, query: string, input: SearchOptionsInput = {}): SearchResponse {
  const started = performance.now();
  const options = resolveSearchOptions(input);
  const terms = parseQuery(query);
  const { rows: semantic, report: lane } = semanticToFuse(context.semantic, options);
  const typed = run(context.store, terms, semantic, options);
  let ranked = typed.ranked;
  let corrections: Array<[string, string]> = [];
  let { feedbackWords } = typed;

  const retry =
    options.fuzzy === 'unknown-words' || (options.fuzzy === 'empty' && ranked.length === 0) ? correct(context, terms, options.wordsHeldElsewhere) : undefined;
  if (retry && retry.corrections.length > 0) {
    corrections = retry.corrections;
    const corrected = run(context.store, retry.terms, semantic, options);
    // The two rankings folded their copies apart: a chunk of one can copy a chunk of the other.
    const folder = new CopyFolder<Ranked>();
    ranked = merge(ranked, corrected.ranked).filter((entry) => !options.stages.copies || folder.add(entry));
    feedbackWords = corrected.feedbackWords;
  }

  const unmatched = unmatchedPieces(context.store, terms, corrections, options.wordsHeldElsewhere);
  const pieces = prepare(terms.pieces);
  const results = ranked
    .slice(options.offset, options.offset + options.limit)
    .map((entry) => toResult(entry, entry.occurrences ?? findOccurrences(entry.chunk.text, pieces), corrections));
  return {
    results,
    offset: options.offset,
    corrections,
    unmatched,
    feedbackWords,
    ...(lane ? { semantic: lane } : {}),
    candidates: typed.candidates,
    elapsedMs: performance.now() - started,
  };
}

/** The semantic list's first rows, which its nearest is measured against: as many as a default search reads. */
const STANDOUT_SAMPLE = 100;
/** Fewer rows than this (a small workspace) cannot tell a chunk that stands out from chance: the list is fused. */
const MIN_STANDOUT_SAMPLE = 30;

/**
 * The semantic list to fuse, and what the answer says of the lane. The list is fused only when its
 * nearest chunk stands out from the rest (`semanticStandout`): a model that sees nothing particular
 * in a query orders the chunks nearest it by noise, and fused, that noise reorders what the words
 * ranked (docs/benchmarks.md, the semantic lane). Too few rows to tell are fused.
 */
function semanticToFuse(list: SemanticList | undefined, options: SearchOptions): { rows?: readonly NearestChunk[]; report?: SearchResponse['semantic'] } {
  if (!list) return {};
  if ('skipped' in list) return { report: { model: list.model, skipped: list.skipped } };
  if (!options.stages.semantic) return { report: { model: list.model } };
  const sample = list.rows.slice(0, STANDOUT_SAMPLE).map((row) => row.cosine);
  const standout = standoutOf(sample);
  if (sample.length >= MIN_STANDOUT_SAMPLE && standout < options.semanticStandout) {
    const skipped = `no chunk stood out by meaning (the nearest is ${standout.toFixed(1)} standard deviations above the mean of the ${sample.length} nearest, under ${options.semanticStandout})`;
    return { report: { model: list.model, skipped } };
  }
  return { rows: list.rows, report: { model: list.model } };
}

/** How many standard deviations of the cosines the first (the largest) stands above their mean; 0 when they are all alike. */
function standoutOf(cosines: readonly number[]): number {
  if (cosines.length === 0) return 0;
  const mean = cosines.reduce((sum, c) => sum + c, 0) / cosines.length;
  const deviation = Math.sqrt(cosines.reduce((sum, c) => sum + (c - mean) ** 2, 0) / cosines.length);
  return deviation > 0 ? (cosines[0]! - mean) / deviation : 0;
}

interface Run {
  ranked: Ranked[];
  candidates: number;
  feedbackWords: string[];
}

/**
 * One query through the lists, fusion and rerank; then, when feedback is on, once more with a
 * third list: the feedback words of the first ranking's best chunks.
 */
function run(store: IndexStore, terms: QueryTerms, semanticRows: readonly NearestChunk[] | undefined, options: SearchOptions): Run {
  if (terms.words.length === 0) return { ranked: [], candidates: 0, feedbackWords: [] };
  const filtered = isFiltered(options.filters);
  const depth = filtered ? filteredDepth(options) : options.candidateDepth;
  const semantic = semanticRows?.slice(0, depth);
  const lists: Partial<Record<LexicalList, ListRow[]>> = {};
  if (options.stages.porter) lists.porter = porterList(store, terms, depth, options.titleColumnWeight);
  if (options.stages.trigram) lists.trigram = trigramList(store, terms, depth, options.titleColumnWeight);
  const pieces = prepare(terms.pieces);
  const proximity = options.stages.proximity ? { pieces, pieceIdf: pieceIdf(store, pieces) } : undefined;
  const first = rank(store, lists, semantic, options, proximity);
  if (!options.stages.feedback || !wantsFeedback(terms) || first.ranked.length === 0) return { ...first, feedbackWords: [] };
  const words = feedbackWords(
    store,
    first.ranked.slice(0, FEEDBACK_CHUNKS).map((entry) => entry.chunk),
    terms.pieces,
  );
  if (words.length === 0) return { ...first, feedbackWords: [] };
  lists.feedback = feedbackList(store, words, depth, options.titleColumnWeight);
  // The second ranking mostly holds the same chunks; where the query's pieces occur in them is already known.
  const measured = new Map(first.ranked.flatMap((entry) => (entry.occurrences ? [[entry.chunk.id, entry.occurrences] as const] : [])));
  return { ...rank(store, lists, semantic, options, proximity && { ...proximity, measured }), feedbackWords: words };
}

/**
 * How deep each list is read for a filtered search, so that the filter still leaves a full page;
 * the semantic list is always read this deep, since it is fetched before the filters are known to
 * leave enough.
 */
export function filteredDepth(options: SearchOptions): number {
  return Math.max(options.candidateDepth, 8 * options.limit, 40);
}

/** What the proximity rerank needs of the query, computed once per run. */
interface ProximityTerms {
  pieces: QueryPieces;
  /** IDF of each piece, the rerank's measure of how much finding it says. */
  pieceIdf: number[];
  /** Occurrences already found in some chunks, by chunk id. */
  measured?: ReadonlyMap<number, Occurrence[]>;
}

/**
 * Fusion of the lists, the filters, and the proximity rerank of the best fused candidates. A
 * chunk only the feedback list found is left out: every result holds some of the query's words,
 * or is among the chunks nearest its meaning.
 */
function rank(
  store: IndexStore,
  lists: Partial<Record<LexicalList, ListRow[]>>,
  semantic: readonly NearestChunk[] | undefined,
  options: SearchOptions,
  proximity: ProximityTerms | undefined,
): Omit<Run, 'feedbackWords'> {
  const fused = fuse(lists, semantic, options.rrfK, options.listWeights).filter((candidate) => QUERY_LISTS.some((name) => candidate.lists[name]));
  const accept = compileFilter(options.filters);
  // The rerank reorders the fused candidates a window at a time, and a page never holds more than
  // a window: the first window is the first page's ranking whatever page is asked, and a page below
  // it is taken from the windows after it, so that pages neither repeat nor skip a result.
  const window = Math.max(options.rerankWindow, options.limit);
  const poolSize = window * Math.ceil((options.offset + options.limit) / window);
  // Copies of a chunk take no room of their own, so the window holds as many different texts.
  const pool: Array<{ chunk: StoredChunk; fused: FusedCandidate; copies: FoldedChunk[] }> = [];
  const folder = new CopyFolder<(typeof pool)[number]>();
  // Read a window's worth of candidates at a time: most searches fill the pool from the first.
  for (let from = 0; from < fused.length && pool.length < poolSize; from += window) {
    const candidates = fused.slice(from, from + window);
    const chunks = store.chunks(candidates.map((candidate) => candidate.id));
    for (const candidate of candidates) {
      const chunk = chunks.get(candidate.id);
      if (!chunk || !accept(chunk)) continue;
      const entry = { chunk, fused: candidate, copies: [] };
      if (!options.stages.copies || folder.add(entry)) pool.push(entry);
      if (pool.length === poolSize) break;
    }
  }

  const explainRrf = (c: FusedCandidate) => ({ score: c.score, k: options.rrfK, contributions: c.contributions });
  if (!proximity) {
    const ranked = pool.map(({ chunk, fused: c, copies }): Ranked => ({
      chunk,
      fused: c,
      copies,
      score: c.score,
      explain: { ...c.lists, rrf: explainRrf(c) },
      stage: onlyBySemantic(c) ? 'semantic' : 'rrf',
    }));
    return { ranked, candidates: fused.length };
  }
  const lexical = matchStrength(lists, semantic, options.listWeights);
  const candidates = pool.map(({ chunk, fused: c, copies }) => ({
    id: c.id,
    score: c.score,
    lexical: lexical(c),
    title: chunk.title,
    path: chunk.path,
    kind: chunk.kind,
    text: chunk.text,
    occurrences: proximity.measured?.get(c.id),
    chunk,
    fused: c,
    copies,
  }));
  const reranked: Array<Reranked<(typeof candidates)[number]>> = [];
  for (let from = 0; from < candidates.length; from += window)
    reranked.push(
      ...rerank(candidates.slice(from, from + window), proximity.pieces, proximity.pieceIdf, {
        ranksAbove: from,
        testWeight: options.testWeight,
        changelogWeight: options.changelogWeight,
        buildOutputWeight: options.buildOutputWeight,
        vendoredWeight: options.vendoredWeight,
      }),
    );
  const ranked = reranked.map((entry): Ranked => ({
    chunk: entry.candidate.chunk,
    fused: entry.candidate.fused,
    copies: entry.candidate.copies,
    score: entry.score,
    occurrences: entry.occurrences,
    explain: { ...entry.candidate.fused.lists, rrf: explainRrf(entry.candidate.fused), proximity: entry.proximity },
    stage: onlyBySemantic(entry.candidate.fused) ? 'semantic' : entry.proximity.finalRank < entry.proximity.fusedRank ? 'proximity' : 'rrf',
  }));
  return { ranked, candidates: fused.length };
}

/** The lists that search for the query itself: its words, and its meaning. The feedback list searches other words. */
const QUERY_LISTS = ['porter', 'trigram', 'semantic'] as const;

function onlyBySemantic(candidate: FusedCandidate): boolean {
  return candidate.lists.semantic !== undefined && !candidate.lists.porter && !candidate.lists.trigram;
}

/**
 * How strongly the query's own lists matched a candidate, 0–1: each word list's BM25 over the best
 * that list found, averaged with the list weights; a list that missed the candidate counts 0. A
 * chunk no word list found has no BM25 to measure, and would score 0 and sink whatever its
 * meaning: its cosine over the best cosine stands in. The cosine is left out for the others: a
 * weak model's opinion would otherwise reorder what the words already ranked.
 */
function matchStrength(
  lists: Partial<Record<LexicalList, ListRow[]>>,
  semantic: readonly NearestChunk[] | undefined,
  listWeights: Record<ListName, number>,
): (candidate: FusedCandidate) => number {
  const ran = (['porter', 'trigram'] as const).filter((name) => lists[name] && listWeights[name] > 0);
  const best = new Map(ran.map((name) => [name, Math.max(0, ...lists[name]!.map((row) => -row.bm25))]));
  const totalWeight = ran.reduce((sum, name) => sum + listWeights[name], 0);
  const bestCosine = Math.max(0, ...(semantic ?? []).map((row) => row.cosine));
  return (candidate) => {
    if (onlyBySemantic(candidate)) return bestCosine > 0 ? Math.max(0, candidate.lists.semantic!.cosine / bestCosine) : 0;
    if (totalWeight === 0) return 1;
    let sum = 0;
    for (const name of ran) {
      const hit = candidate.lists[name];
      const top = best.get(name)!;
      if (hit && top > 0) sum += listWeights[name] * (-hit.bm25 / top);
    }
    return sum / totalWeight;
  };
}

/** Counting a piece's chunks stops here: past it, a piece is simply common. */
const IDF_COUNT_CAP = 20_000;

/**
 * IDF of each query piece, from the Porter index's (capped) document counts, as BM25 defines it:
 * a piece in nearly every chunk (`and` in prose, `def` in Python) weighs nearly nothing, where
 * log(1 + N / n) still gave it log 2, enough to count in the proximity components.
 */
function pieceIdf(store: IndexStore, pieces: QueryPieces): number[] {
  const total = Math.max(1, store.size);
  return pieces.pieces.map((piece) => {
    const count = Math.min(total, store.countMatches('porter', quote(piece), IDF_COUNT_CAP));
    return inverseDocumentFrequency(total, count);
  });
}

/**
 * Words the index has never seen are replaced by their closest vocabulary word. The last word is
 * spared when it occurs inside indexed words: that is someone still typing (`kube`), and the
 * trigram list already finds it. In `unknown-words` mode this happens even when other
 * words of the query are spelled right (`kuberntes pods`); in `empty` mode the caller only asks
 * when the typed query found nothing. Words `heldElsewhere` (another folder's index holds them)
 * are spared too, and English words spelled right (`downtime`): the index lacking a word is no
 * sign that it was mistyped.
 */
function correct(
  context: SearchContext,
  terms: QueryTerms,
  heldElsewhere: readonly string[],
  retried = false,
): { terms: QueryTerms; corrections: Array<[string, string]> } | undefined {
  const { store } = context;
  const last = terms.pieces.at(-1);
  const unknown = terms.pieces.filter(
    (piece) =>
      [...piece].length >= 3 &&
      [...piece].length <= MAX_TYPED_CHARS &&
      !/^\p{N}+$/u.test(piece) &&
      !heldAsTyped(store, piece, last) &&
      !heldElsewhere.includes(piece) &&
      !isEnglishWord(piece),
  );
  if (unknown.length === 0) return undefined;
  const vocabulary = context.vocabulary();
  const known = terms.pieces.filter((piece) => !unknown.includes(piece));
  const replacements = new Map<string, string>();
  for (const piece of unknown) {
    const best = bestInContext(store, vocabulary.candidates(piece), known);
    if (best) replacements.set(piece, best);
  }
  // Another process replaced the stored vocabulary as this one was read: ask the one it stored.
  if (vocabulary.stale && !retried) return correct(context, terms, heldElsewhere, true);
  if (replacements.size === 0) return undefined;
  return { terms: replacePieces(terms, replacements), corrections: [...replacements] };
}

/**
 * The query's pieces, as typed (MAX_TYPED_CHARS), that no chunk holds in any form and that no
 * correction replaced: not as a word, not by its stem (`guides` where the text says `guide`), not
 * inside a longer word (`alloc` in `kmalloc`, which the trigram list finds). The results match the
 * other words; an answer that names what is missing, as a web search's "Missing:" does, lets a
 * person or an agent say it another way rather than read results for a question they did not ask.
 */
function unmatchedPieces(store: IndexStore, terms: QueryTerms, corrections: Array<[string, string]>, heldElsewhere: readonly string[]): string[] {
  const corrected = new Set(corrections.map(([typed]) => typed));
  return terms.pieces.filter(
    (piece) =>
      [...piece].length <= MAX_TYPED_CHARS &&
      !corrected.has(piece) &&
      !heldElsewhere.includes(piece) &&
      !store.hasWord(piece) &&
      !store.holdsSubstring(piece) &&
      store.countMatches('porter', quote(piece), 1) === 0,
  );
}

/** Whether the index holds a query piece as typed: as a word, or the last piece inside one (a word being typed). */
function heldAsTyped(store: IndexStore, piece: string, last: string | undefined): boolean {
  return store.hasWord(piece) || (piece === last && store.holdsSubstring(piece));
}

/**
 * The query's pieces the index holds as typed, which the typo retry leaves alone: another index
 * searched beside this one (a multi-root workspace's folders) must leave them alone too.
 */
export function piecesHeld(store: IndexStore, query: string): string[] {
  const { pieces } = parseQuery(query);
  return pieces.filter((piece) => heldAsTyped(store, piece, pieces.at(-1)));
}

/**
 * The query with some pieces replaced, each word keeping its shape: `Golli-deficeint` becomes
 * `golli-deficient`, still one word whose whole is searched as a phrase, and `NR5A2` beside it
 * stays whole rather than falling apart into `nr`, `5`, `a` and `2`.
 */
function replacePieces(terms: QueryTerms, replacements: ReadonlyMap<string, string>): QueryTerms {
  const words = terms.words.map((word) => {
    if (!word.parts.some((part) => replacements.has(part))) return word;
    let whole = word.whole;
    for (const part of word.parts) {
      const replacement = replacements.get(part);
      if (replacement) whole = whole.replaceAll(part, replacement);
    }
    return { whole, parts: [...new Set(word.parts.map((part) => replacements.get(part) ?? part))] };
  });
  return { words, pieces: [...new Set(words.flatMap((word) => word.parts))] };
}

/**
 * Longer pieces are pasted, not typed: correcting them is pointless, and on a big tree the first
 * correction in a process pays for reading the vocabulary (the lengths it reaches: up to 60 ms on
 * Linux; seconds when it has to be rebuilt). Nor are they said to be missing: asking the trigram
 * index whether it holds a pasted run of 2,000 `x` took 1.3 s (bench/hostile-queries.ts).
 */
const MAX_TYPED_CHARS = 64;

/** Chunks counted per candidate when choosing between equally close corrections. */
const CONTEXT_SAMPLE = 200;

/**
 * Among equally close corrections, the one that shares the most chunks with the query's other
 * words: in "parse josn file", `json` beats the more frequent `join`. Without other words, or on
 * a tie, the most frequent candidate wins (candidates come sorted that way). With other words, a
 * candidate that shares no chunk with any of them is no correction: the typed word is most likely
 * one the index never uses, not a typo (`mistyped` beside `levenshtein distance` is not `isType`),
 * and the corrected query would add chunks that hold nothing else the query asked for.
 */
function bestInContext(store: IndexStore, candidates: Correction[], otherPieces: string[]): string | undefined {
  if (otherPieces.length === 0) return candidates[0]?.to;
  const others = otherPieces.map(quote).join(' OR ');
  let best: string | undefined;
  let bestCount = 0;
  for (const candidate of candidates) {
    const count = store.countMatches('porter', `${quote(candidate.to)} AND (${others})`, CONTEXT_SAMPLE);
    if (count > bestCount) {
      best = candidate.to;
      bestCount = count;
    }
  }
  return best;
}

/**
 * The corrected ranking leads, and what only the typed query found follows. A corrected word
 * replaces one the index does not hold, which matched nothing, so the corrected query has every
 * clue the typed one had and one more; ranking the two by score would interleave chunks that
 * match the correction with chunks that ignore it. What only the corrected query found is
 * marked `fuzzy`. A later page keeps the first page's order: the corrected ranking fills whole
 * rerank windows before it runs out, so only a page below its first window sees more of it.
 */
function merge(typed: Ranked[], corrected: Ranked[]): Ranked[] {
  const typedIds = new Set(typed.map((entry) => entry.chunk.id));
  const correctedIds = new Set(corrected.map((entry) => entry.chunk.id));
  return [
    ...corrected.map((entry): Ranked => ({ ...entry, stage: typedIds.has(entry.chunk.id) ? entry.stage : 'fuzzy', corrected: true })),
    ...typed.filter((entry) => !correctedIds.has(entry.chunk.id)),
  ];
}

function toResult(entry: Ranked, occurrences: Occurrence[], corrections: Array<[string, string]>): SearchResult {
  const { chunk } = entry;
  const snippet = makeSnippet(chunk.text, occurrences);
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
    ...(entry.copies.length > 0 ? { copies: entry.copies.map(chunkCopy) } : {}),
  };
}
