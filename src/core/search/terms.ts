// Turns what a person typed into search terms. User input is never handed to FTS5 as syntax:
// only words survive, and the MATCH expressions are assembled from them in lists.ts.

import { stemmer } from 'stemmer';

/** One word of the query as typed, with the pieces an identifier is made of. */
export interface QueryWord {
  /** Lowercased, as typed (`horizontalpod`, `parse_config`, `os.path.join`). */
  whole: string;
  /** Lowercased pieces split at `_`, `.`, `-`, `::`, `/` and camelCase humps; one piece for a plain word. */
  parts: string[];
}

export interface QueryTerms {
  words: QueryWord[];
  /** Every distinct piece, in query order: what the proximity rerank looks for. */
  pieces: string[];
}

/**
 * Queries longer than this are cut: nobody types more, and a pasted page must not turn into a
 * slow query. Past this many words the rest add noise, not precision.
 */
const MAX_QUERY_CHARS = 2000;
const MAX_WORDS = 32;
/**
 * Pieces kept of one word. Real identifiers have a handful; a pasted 2,000-character dotted path
 * has hundreds, and each piece costs a lookup, a term in the MATCH and a pass of the rerank.
 */
const MAX_PARTS = 16;

// A word of code or prose, joined across the separators identifiers use.
const COMPOUND = /[\p{L}\p{M}\p{N}_]+(?:(?:\.|::|->|-|\/)[\p{L}\p{M}\p{N}_]+)*/gu;
const PIECE = /\p{Lu}+(?=\p{Lu}\p{Ll})|\p{Lu}?[\p{Ll}\p{M}]+|\p{Lu}+|\p{N}+|[\p{L}\p{M}]+/gu;

/**
 * English words that carry no meaning in a search of code or docs. Deliberately short: words
 * that are also keywords or common identifiers (`and`, `or`, `not`, `in`, `is`, `for`, `this`,
 * `new`, `return`, `test`, `run`, `update`, `using`) stay searchable.
 */
const STOPWORDS = new Set([
  'a',
  'about',
  'after',
  'all',
  'also',
  'am',
  'an',
  'any',
  'are',
  'at',
  'be',
  'been',
  'being',
  'both',
  'but',
  'by',
  'can',
  'could',
  'did',
  'does',
  'doing',
  'each',
  'had',
  'has',
  'have',
  'having',
  'he',
  'her',
  'here',
  'him',
  'his',
  'how',
  'i',
  'into',
  'it',
  'its',
  'me',
  'more',
  'most',
  'my',
  'of',
  'on',
  'our',
  'she',
  'should',
  'so',
  'some',
  'such',
  'than',
  'that',
  'the',
  'their',
  'them',
  'then',
  'there',
  'these',
  'they',
  'those',
  'to',
  'too',
  'very',
  'was',
  'we',
  'were',
  'what',
  'when',
  'where',
  'which',
  'who',
  'whom',
  'why',
  'would',
  'you',
  'your',
]);

export function parseQuery(input: string): QueryTerms {
  const text = input.length > MAX_QUERY_CHARS ? input.slice(0, MAX_QUERY_CHARS) : input;
  const all: QueryWord[] = [];
  const seen = new Set<string>();
  for (const match of text.normalize('NFC').matchAll(COMPOUND)) {
    const raw = match[0];
    const whole = raw.toLowerCase();
    if (seen.has(whole)) continue;
    seen.add(whole);
    const parts = [...new Set([...raw.matchAll(PIECE)].map((m) => m[0].toLowerCase()))].slice(0, MAX_PARTS);
    if (parts.length === 0) continue;
    all.push({ whole, parts });
    if (all.length === MAX_WORDS) break;
  }
  const meaningful = all.filter((word) => !(word.parts.length === 1 && isStopword(word.whole)));
  const words = meaningful.length > 0 ? meaningful : all;
  const pieces = [...new Set(words.flatMap((word) => word.parts))];
  return { words, pieces };
}

export function isStopword(lowercaseWord: string): boolean {
  return STOPWORDS.has(lowercaseWord);
}

// Stemming is the hot spot of the rerank and of feedback; text repeats its words, so a bounded
// cache pays.
const STEM_CACHE_LIMIT = 100_000;
const stemCache = new Map<string, string>();

/** Porter stem of a lowercase piece, as SQLite's porter tokenizer would index it. */
export function stem(piece: string): string {
  let stemmed = stemCache.get(piece);
  if (stemmed === undefined) {
    if (stemCache.size >= STEM_CACHE_LIMIT) stemCache.clear();
    stemmed = stemmer(piece);
    stemCache.set(piece, stemmed);
  }
  return stemmed;
}
