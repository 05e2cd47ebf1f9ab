// The two lexical lists: which chunks the Porter index and the trigram index rank highest.
//
// FTS5 computes BM25 for every row an expression matches before it sorts, so an OR of common
// words over a big tree scores hundreds of thousands of rows. Each list therefore estimates the
// postings an expression would touch (document frequencies from fts5vocab) and, when that is
// over budget, narrows the work: the conjunction of all words first (rare terms bound it), then
// the disjunction of the rarest terms, and only then a bounded sample of everything.

import type { FtsTable, IndexStore, ListRow } from '../store/store.ts';
import { quote, stem, type QueryTerms } from './terms.ts';

/** Postings an expression may touch before we stop scoring every match. */
const SCORE_BUDGET = 20_000;
/** How many matches, in id order, a sampled expression scores. */
const SAMPLE_SIZE = 4_000;

interface Token {
  /** FTS5 phrase, already quoted. */
  phrase: string;
  /** Upper bound of the chunks it matches. */
  docFreq: number;
}

/** The alternatives that satisfy one query word. */
type Group = Token[];

export function porterList(store: IndexStore, terms: QueryTerms, depth: number, titleWeight: number): ListRow[] {
  const groups = terms.words.map((word): Group => {
    const parts = word.parts.map((part) => ({ phrase: quote(part), docFreq: store.stemDocFreq(stem(part)) }));
    if (parts.length === 1) return parts;
    // The whole (`os.path.join` as a phrase) is rarer than any of the tokens the index made of it.
    // Those are its runs of letters and digits, not its pieces: `version0875` is one token whose
    // piece `0875` alone was never indexed, so bounding by the pieces would drop the exact word.
    const tokens = word.whole.split(/[^\p{L}\p{M}\p{N}]+/u).filter(Boolean);
    const whole = { phrase: quote(word.whole), docFreq: tokens.length === 0 ? 0 : Math.min(...tokens.map((token) => store.stemDocFreq(stem(token)))) };
    return [whole, ...parts];
  });
  return rankedList(store, 'porter', groups, depth, titleWeight);
}

export function trigramList(store: IndexStore, terms: QueryTerms, depth: number, titleWeight: number): ListRow[] {
  const groups = terms.words
    .map((word): Group => {
      // The trigram table indexes words, not text: a dotted path can only match piece by piece.
      const candidates = /^[\p{L}\p{M}\p{N}_]+$/u.test(word.whole) ? [word.whole, ...word.parts] : word.parts;
      return [...new Set(candidates)].filter((s) => [...s].length >= 3).map((s) => ({ phrase: quote(s), docFreq: trigramDocFreq(store, s) }));
    })
    .filter((group) => group.length > 0);
  return rankedList(store, 'trigram', groups, depth, titleWeight);
}

function trigramDocFreq(store: IndexStore, text: string): number {
  const chars = [...text];
  let least = Number.POSITIVE_INFINITY;
  for (let i = 0; i + 3 <= chars.length; i++) {
    least = Math.min(least, store.trigramDocFreq(chars.slice(i, i + 3).join('')));
    if (least === 0) break;
  }
  return least;
}

function rankedList(store: IndexStore, table: FtsTable, groups: Group[], depth: number, titleWeight: number): ListRow[] {
  const tokens = dedupe(groups.flat()).filter((token) => token.docFreq > 0);
  if (tokens.length === 0) return [];
  const anyOf = (list: Token[]) => list.map((token) => token.phrase).join(' OR ');
  // An OR never matches more chunks than the index holds.
  const matches = Math.min(store.size, tokens.reduce((sum, token) => sum + token.docFreq, 0));
  if (matches <= SCORE_BUDGET) return store.match(table, anyOf(tokens), depth, titleWeight);

  const found = new Map<number, ListRow>();
  const take = (rows: ListRow[]) => {
    for (const row of rows) if (found.size < depth && !found.has(row.id)) found.set(row.id, row);
  };
  const live = groups.map((group) => group.filter((token) => token.docFreq > 0)).filter((group) => group.length > 0);
  if (live.length > 1) {
    const allOf = live.map((group) => `(${anyOf(group)})`).join(' AND ');
    take(store.matchSample(table, allOf, depth, titleWeight, SAMPLE_SIZE));
  }
  if (found.size < depth) {
    const rare: Token[] = [];
    let budget = SCORE_BUDGET;
    for (const token of [...tokens].sort((a, b) => a.docFreq - b.docFreq)) {
      if (token.docFreq > budget) break;
      rare.push(token);
      budget -= token.docFreq;
    }
    if (rare.length > 0) take(store.match(table, anyOf(rare), depth, titleWeight));
  }
  if (found.size < depth) take(store.matchSample(table, anyOf(tokens), depth, titleWeight, SAMPLE_SIZE));
  return [...found.values()];
}

function dedupe(tokens: Token[]): Token[] {
  const byPhrase = new Map<string, Token>();
  for (const token of tokens) byPhrase.set(token.phrase, token);
  return [...byPhrase.values()];
}
