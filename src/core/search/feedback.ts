// Pseudo-relevance feedback: the words the best chunks of a first pass share, beyond the query's
// own. A question says what it is about in its own words ("heated high speed aircraft"); the
// chunks that answer it also use the field's words ("aerodynamic", "thermal"). Those words are
// searched as a list of their own and fused beside the Porter and trigram lists at a lower
// weight: among the chunks that match the query, the ones that also speak its field's language
// move up. The query's own words stay in charge: the feedback list only reorders chunks the
// query's lists found, never adds one that holds none of the query's words.

import { quote, type IndexStore } from '../store/store.ts';
import { inverseDocumentFrequency, SCORE_BUDGET } from './lists.ts';
import { isStopword, stem, type QueryTerms } from './terms.ts';

/**
 * Feedback needs a query that describes something. One or two words are a lookup (`kmalloc`,
 * `page fault`): what else their best chunks say is no better a guide than the words themselves.
 */
const MIN_QUERY_WORDS = 3;
/** How many of the first pass's best chunks are read for feedback words. */
export const FEEDBACK_CHUNKS = 5;
/** How many feedback words are searched. */
const FEEDBACK_WORDS = 8;
/** Candidates, by weight in the feedback chunks, whose document frequency is looked up. */
const FEEDBACK_CANDIDATES = 30;
/**
 * A word in more chunks than the lists' scoring budget is too common to say what a query is
 * about, and counting further would cost milliseconds per word on a big tree. The same cap as
 * the lists', so the feedback list reuses these counts.
 */
const COUNT_CAP = SCORE_BUDGET + 1;

export function wantsFeedback(terms: QueryTerms): boolean {
  return terms.words.length >= MIN_QUERY_WORDS;
}

const WORD = /\p{L}{3,}/gu;

/**
 * The words that best characterise `chunks` (the first pass's ranking, best first) against the
 * whole index, skipping the query's own words: each word is weighted by its share of each
 * chunk's words, the better-ranked chunks counting more, times its inverse document frequency.
 * Words are compared by Porter stem and returned as they were written, so the Porter index
 * stems them exactly as it stemmed the chunks.
 */
export function feedbackWords(store: IndexStore, chunks: ReadonlyArray<{ title: string; text: string }>, queryPieces: readonly string[]): string[] {
  const queryStems = new Set(queryPieces.map(stem));
  const weight = new Map<string, { word: string; weight: number }>();
  chunks.forEach((chunk, rank) => {
    const counts = new Map<string, { word: string; count: number }>();
    let total = 0;
    for (const match of `${chunk.title} ${chunk.text}`.matchAll(WORD)) {
      total++;
      const word = match[0].toLowerCase();
      if (isStopword(word)) continue;
      const key = stem(word);
      if (queryStems.has(key)) continue;
      const entry = counts.get(key);
      if (entry) entry.count++;
      else counts.set(key, { word, count: 1 });
    }
    for (const [key, { word, count }] of counts) {
      const entry = weight.get(key) ?? { word, weight: 0 };
      entry.weight += count / total / (rank + 1);
      weight.set(key, entry);
    }
  });
  const total = Math.max(1, store.size);
  return [...weight.values()]
    .sort((a, b) => b.weight - a.weight)
    .slice(0, FEEDBACK_CANDIDATES)
    .map(({ word, weight: w }) => {
      const docs = Math.min(total, store.countMatches('porter', quote(word), COUNT_CAP));
      const useful = docs > 0 && docs < COUNT_CAP;
      return { word, score: useful ? w * inverseDocumentFrequency(total, docs) : 0 };
    })
    .filter((entry) => entry.score > 0)
    .sort((a, b) => b.score - a.score)
    .slice(0, FEEDBACK_WORDS)
    .map((entry) => entry.word);
}
