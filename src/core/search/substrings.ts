// The trigram list's terms: each query substring (`alloc`) stands for the index's words that hold
// it (`alloc`, `kmalloc`, `alloc_pages`), found through the words' trigrams, and is scored as one
// BM25 term over the chunks that hold any of those words. That is the ranking FTS5's bm25() gave a
// trigram index over each chunk's title and distinct words, where a substring was one phrase of
// trigrams: one IDF for all the words that hold it, a term frequency that counts every place it
// occurs, and the chunk's trigram count as its length. An OR of the words through FTS5 would score
// each word with its own IDF, so a rare word that merely holds the substring would outrank the
// word itself; the index no longer stores the trigrams of every chunk, so the score is made here.

import { quote, type IndexStore, type ListRow } from '../store/store.ts';

/** FTS5's bm25() constants. */
const K1 = 1.2;
const B = 0.75;

/**
 * Words one substring may stand for, shortest first. A substring held by more (`con` on a big
 * tree) is common enough that the rest change little, and each word costs a posting list.
 */
const MAX_WORDS = 2_000;
/**
 * The same on an index too big to score whole, where a common substring's words are OR-ed into one
 * FTS5 expression to count and sample its chunks, and FTS5 opens each word's posting list in every
 * segment: on the Linux tree the 2,000 words of `insta` or `wor`, a quick pick's keystrokes, took
 * 0.4–1.4 s a search; their 128 shortest take 20–60 ms, and the 16 benchmark queries keep the same
 * top 10. A small index scores every chunk of every word, and there the long words count: 64 words
 * cost cosqa 0.009 nDCG@10.
 */
export const MAX_WORDS_ON_BIG_INDEX = 128;

export interface Substring {
  /** As the query has it: lowercased, three characters or more. */
  text: string;
  /** The index's words that hold it. */
  words: string[];
  /** The words as one FTS5 expression, for counting and sampling the chunks that hold them. */
  expression: string;
}

/** The substring with (up to `maxWords` of) the words that hold it, or undefined when no word of the index does. */
export function substringOf(store: IndexStore, text: string, maxWords = MAX_WORDS): Substring | undefined {
  const words = store.wordsContaining(text, maxWords);
  if (words.length === 0) return undefined;
  return { text, words, expression: words.length === 1 ? quote(words[0]!) : `(${words.map(quote).join(' OR ')})` };
}

/**
 * The `limit` chunks holding any of these substrings with the highest BM25 over them, the title
 * column weighted `titleColumnWeight` times the words. `bm25` is negative, as FTS5's.
 */
export function scoreSubstrings(store: IndexStore, substrings: readonly Substring[], limit: number, titleColumnWeight: number): ListRow[] {
  const chunks = Math.max(1, store.size);
  const frequencies = new Map<number, Float64Array>();
  const inverseFrequencies = substrings.map((substring, i) => {
    const weights = new Map(substring.words.map((word) => [word, occurrences(substring.text, word)]));
    const holding = store.wordFrequencies(weights, titleColumnWeight);
    for (const [id, f] of holding) {
      let frequency = frequencies.get(id);
      if (!frequency) frequencies.set(id, (frequency = new Float64Array(substrings.length)));
      frequency[i] = f;
    }
    return inverseFrequency(chunks, holding.length);
  });
  const lengths = store.trigramCounts([...frequencies.keys()]);
  const averageLength = store.averageTrigramCount || 1;
  const scored: ListRow[] = [];
  for (const [id, frequency] of frequencies) {
    const norm = lengthNorm(lengths.get(id) ?? 0, averageLength);
    let score = 0;
    frequency.forEach((f, i) => {
      if (f > 0) score += termScore(inverseFrequencies[i]!, f, norm);
    });
    scored.push({ id, bm25: -score });
  }
  return scored.sort((a, b) => a.bm25 - b.bm25 || a.id - b.id).slice(0, limit);
}

/** Places `text` occurs in `word`, overlapping ones too (`aaa` twice in `aaaa`), as trigram phrases matched. */
function occurrences(text: string, word: string): number {
  let count = 0;
  for (let at = word.indexOf(text); at !== -1; at = word.indexOf(text, at + 1)) count++;
  return count;
}

/**
 * The `limit` best of the first `sample` chunks (in id order) that an expression of substrings
 * matches, for a search whose substrings are too common to score every chunk that holds them.
 * Each sampled chunk holds what the expression asks for, so the expression is scored as one BM25
 * term held once in the words, and `titleColumnWeight` times more when the title holds it too;
 * the sample's size stands in for the number of chunks that hold it (there are at least that many).
 */
export function scoreSubstringSample(store: IndexStore, expression: string, limit: number, titleColumnWeight: number, sample: number): ListRow[] {
  const { ids, inTitle } = store.firstMatches('trigram', expression, sample);
  const chunks = Math.max(1, store.size);
  const idf = inverseFrequency(chunks, ids.length);
  const lengths = store.trigramCounts(ids);
  const averageLength = store.averageTrigramCount || 1;
  return ids
    .map((id) => {
      const frequency = inTitle.has(id) ? 1 + titleColumnWeight : 1;
      return { id, bm25: -termScore(idf, frequency, lengthNorm(lengths.get(id) ?? 0, averageLength)) };
    })
    .sort((a, b) => a.bm25 - b.bm25 || a.id - b.id)
    .slice(0, limit);
}

/** BM25's IDF of a term that `holding` of `chunks` chunks hold, floored as FTS5's bm25() floors it. */
function inverseFrequency(chunks: number, holding: number): number {
  const idf = Math.log((chunks - holding + 0.5) / (holding + 0.5));
  return idf > 0 ? idf : 1e-6;
}

/** BM25's length normalisation of a chunk of `length` trigrams. */
function lengthNorm(length: number, averageLength: number): number {
  return K1 * (1 - B + (B * length) / averageLength);
}

/** One term's BM25 score in one chunk. */
function termScore(idf: number, frequency: number, norm: number): number {
  return (idf * frequency * (K1 + 1)) / (frequency + norm);
}
