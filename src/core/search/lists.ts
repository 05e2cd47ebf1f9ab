// The two lexical lists: which chunks the Porter index and the trigram index rank highest.
//
// FTS5 computes BM25 for every row an expression matches before it sorts, so an OR of common
// words over a big tree scores hundreds of thousands of rows. On a big index each list therefore
// counts (up to a budget) the chunks each phrase matches and, when the OR would be over budget,
// narrows the work: the conjunction of all words first, then the disjunction of the rarest
// phrases, then a sample of the most selective conjunction, and only then a sample of everything.

import { quote, type FtsTable, type IndexStore, type ListRow } from '../store/store.ts';
import { MAX_WORDS_ON_BIG_INDEX, scoreSubstringSample, scoreSubstrings, substringOf, type Substring } from './substrings.ts';
import type { QueryTerms, QueryWord } from './terms.ts';

/** An index of at most this many chunks is always scored whole: its posting lists are short. */
const SMALL_INDEX_CHUNKS = 20_000;
/** Matches an expression may have before we stop scoring every one (BM25 costs ~2 µs a row). */
export const SCORE_BUDGET = 4_000;
/** How many matches, in id order, a sampled expression scores. */
const SAMPLE_SIZE = 2_000;
/**
 * On a big index, a word the Porter list finds in this many chunks gets no substring search: two
 * pages of results are there already, and finding the words that hold a substring is the
 * costliest step of a keystroke. Not the list's depth: at 100 it made a first keystroke's p95
 * 5–10 ms slower on the Linux tree, and the held-out kernel questions of bench/agent-bytes.ts
 * found and printed the same answers either way.
 */
const ANSWERED_BY_PORTER = 20;
/**
 * A word the last vocabulary build found in at least this share of a big index's chunks is common:
 * its IDF is under 3 (a word in a thousandth of the chunks has 6.9), and counting its chunks for
 * that IDF is most of a sample's cost. On the Linux tree the vocabulary counts `is` in 7% of the
 * chunks (its Porter list holds 18%). A conjunction's sample, every chunk of which holds the word,
 * is ranked without it (`IndexStore.matchSampleRankedBy`), the commonest first, as long as
 * MIN_RANKING_GROUPS of the query's words remain to rank it: with fewer the order changes too much
 * (`device is removed`, ranked by `removed` alone, kept 2 of its 10 best chunks). The last sample,
 * of any word, leaves it out.
 */
const COMMON_SHARE = 0.05;
const MIN_RANKING_GROUPS = 3;

interface Token {
  /** The term: an FTS5 phrase, already quoted, or what `expressionOf` turns into an expression. */
  phrase: string;
  /** Chunks it matches, counted up to SCORE_BUDGET + 1. */
  docFreq: number;
}

/** BM25's inverse document frequency of a term in `count` of `total` chunks. */
export function inverseDocumentFrequency(total: number, count: number): number {
  return Math.log(1 + (total - count + 0.5) / (count + 0.5));
}

/** Words longer than this are matched by their beginning: nobody types more of one. */
const MAX_TRIGRAM_CHARS = 48;

/**
 * A whole word of more tokens than this is searched by its pieces only: as a phrase it would make
 * FTS5 line up that many posting lists (a pasted `a_a_a_…` took seconds on the Linux tree).
 */
const MAX_PHRASE_TOKENS = 8;

/** The tokens SQLite's unicode61 tokenizer makes of a word's whole (`ipv6_addr`: `ipv6`, `addr`). */
function porterTokens(word: QueryWord): string[] {
  return word.whole.split(/[^\p{L}\p{M}\p{N}]+/u).filter(Boolean);
}

/** Whether a word's whole is short enough to search as one Porter phrase. */
function wholeIsPhrase(word: QueryWord): boolean {
  return porterTokens(word).length <= MAX_PHRASE_TOKENS;
}

/**
 * A query's last piece that the Porter index has never seen is most likely a word still being
 * typed (`spin_lock_irqsa`), so the Porter list matches it as a prefix. Shorter pieces are left
 * alone: `con*` alone expands to thousands of indexed terms on a big tree.
 */
const MIN_PREFIX_CHARS = 4;

export function porterList(store: IndexStore, terms: QueryTerms, depth: number, titleColumnWeight: number): ListRow[] {
  const typing = unfinishedPiece(store, terms);
  // The whole (`os.path.join`, a phrase to FTS5) and each of its pieces; one group per query word.
  const groups = terms.words.map((word) => {
    const withWhole = word.parts.length > 1 && wholeIsPhrase(word);
    // A number glued to letters (`234` of `buck234`, `6` of `ipv6_addr`) is no token of the
    // identifier: searched alone it matches every chunk that counts to it, and outranks the
    // identifier. One that stands apart (`6` of `IL-6`) is a token like any other.
    const tokens = new Set(porterTokens(word));
    const parts = withWhole ? word.parts.filter((part) => !/^\p{N}+$/u.test(part) || tokens.has(part)) : word.parts;
    const phrases = [...new Set(withWhole ? [word.whole, ...parts] : parts)].map(quote);
    if (word !== terms.words.at(-1) || typing === undefined) return phrases;
    return phrases.map((phrase) => (phrase.endsWith(`${typing}"`) ? `${phrase}*` : phrase));
  });
  return rankedList(store, 'porter', groups, depth, titleColumnWeight);
}

function unfinishedPiece(store: IndexStore, terms: QueryTerms): string | undefined {
  const piece = terms.words.at(-1)?.parts.at(-1);
  if (piece === undefined || [...piece].length < MIN_PREFIX_CHARS || /^\p{N}+$/u.test(piece)) return undefined;
  return store.countMatches('porter', quote(piece), 1) === 0 ? piece : undefined;
}

/**
 * Substring matching is the trigram list's gift: half-typed words, `alloc` inside `kmalloc` (see
 * substrings.ts). On a big index it is also its cost — a substring can stand for thousands of
 * words — so there it only searches what the Porter index cannot already answer with two pages of
 * candidates (ANSWERED_BY_PORTER): of `fts_porter`, the whole and `fts` when `porter` alone is common.
 */
export function trigramList(store: IndexStore, terms: QueryTerms, depth: number, titleColumnWeight: number): ListRow[] {
  const small = store.size <= SMALL_INDEX_CHUNKS;
  const answered = (phrase: string) => !small && store.countMatches('porter', phrase, ANSWERED_BY_PORTER) >= ANSWERED_BY_PORTER;
  const substrings = new Map<string, Substring>();
  const groups = terms.words
    .filter((word) => !answered(wholeIsPhrase(word) ? quote(word.whole) : word.parts.map(quote).join(' AND ')))
    .map((word) => {
      // The index's words end at anything but letters, digits and `_`: a dotted path can only match piece by piece.
      const whole = /^[\p{L}\p{M}\p{N}_]+$/u.test(word.whole) ? [word.whole] : [];
      const parts = word.parts.length > 1 ? word.parts.filter((part) => !answered(quote(part))) : word.parts;
      const texts = [...whole, ...parts].map((s) => [...s].slice(0, MAX_TRIGRAM_CHARS).join('')).filter((s) => [...s].length >= 3);
      return [...new Set(texts)].filter((text) => {
        const substring = substrings.get(text) ?? substringOf(store, text, small ? undefined : MAX_WORDS_ON_BIG_INDEX);
        if (substring) substrings.set(text, substring);
        return substring !== undefined;
      });
    })
    .filter((group) => group.length > 0);
  // Two substrings can stand for the same words (`hmgb1` and `hmgb`): each stays a term of its own.
  const substringOfText = (text: string) => substrings.get(text)!;
  return rankedList(store, 'trigram', groups, depth, titleColumnWeight, {
    expressionOf: (text) => substringOfText(text).expression,
    scoreAll: (texts) => scoreSubstrings(store, texts.map(substringOfText), depth, titleColumnWeight),
    scoreSample: (expression) => scoreSubstringSample(store, expression, depth, titleColumnWeight, SAMPLE_SIZE),
  });
}

interface ListTerms {
  /** The FTS5 expression of a term; by default the term is one. */
  expressionOf?: (phrase: string) => string;
  /** Ranks every chunk that matches any of these terms; by default FTS5's bm25() over their OR. */
  scoreAll?: (phrases: string[]) => ListRow[];
  /**
   * Ranks the first SAMPLE_SIZE chunks, in id order, that an expression matches; by default by
   * FTS5's bm25() of the expression, or of `rankedBy` when given.
   */
  scoreSample?: (expression: string, rankedBy?: string) => ListRow[];
}

function rankedList(
  store: IndexStore,
  table: FtsTable,
  phraseGroups: string[][],
  depth: number,
  titleColumnWeight: number,
  {
    expressionOf = (phrase) => phrase,
    scoreAll = (phrases) => store.match(table, phrases.map(expressionOf).join(' OR '), depth, titleColumnWeight),
    scoreSample = (expression, rankedBy) =>
      rankedBy === undefined
        ? store.matchSample(table, expression, depth, titleColumnWeight, SAMPLE_SIZE)
        : store.matchSampleRankedBy(table, expression, rankedBy, depth, titleColumnWeight, SAMPLE_SIZE),
  }: ListTerms = {},
): ListRow[] {
  const phrases = [...new Set(phraseGroups.flat())];
  if (phrases.length === 0) return [];
  const anyOf = (list: Array<{ phrase: string }>) => list.map((token) => expressionOf(token.phrase)).join(' OR ');
  if (store.size <= SMALL_INDEX_CHUNKS) return scoreAll(phrases);
  const docFreq = new Map(phrases.map((phrase) => [phrase, store.countMatches(table, expressionOf(phrase), SCORE_BUDGET + 1)]));
  const groups = phraseGroups.map((group) => group.map((phrase): Token => ({ phrase, docFreq: docFreq.get(phrase)! })));
  const tokens = [...docFreq].map(([phrase, count]): Token => ({ phrase, docFreq: count })).filter((token) => token.docFreq > 0);
  if (tokens.length === 0) return [];
  const matches = tokens.reduce((sum, token) => sum + token.docFreq, 0);
  if (matches <= SCORE_BUDGET) return scoreAll(tokens.map((token) => token.phrase));

  const found = new Map<number, ListRow>();
  const take = (rows: ListRow[]) => {
    for (const row of rows) if (found.size < depth && !found.has(row.id)) found.set(row.id, row);
  };
  // The fallbacks below can come to an expression already sampled (each word one phrase: the
  // conjunction of the rarest is the conjunction of all): FTS5 would score it again, and a
  // sample's BM25 reads every posting of each common word for its IDF (9 ms for `is` on Linux).
  const sampled = new Set<string>();
  const takeSample = (expression: string, rankedBy?: string) => {
    if (sampled.has(expression)) return;
    sampled.add(expression);
    take(scoreSample(expression, rankedBy));
  };
  const groupExpression = (group: Token[]) => (group.length === 1 ? expressionOf(group[0]!.phrase) : `(${anyOf(group)})`);
  const knownChunks = (token: Token) => (table === 'porter' ? (store.chunksHoldingAtLeast(token.phrase) ?? 0) : 0);
  const common = (token: Token) => knownChunks(token) >= COMMON_SHARE * store.size;
  const takeConjunction = (conjunction: Token[][]) => {
    // The commonest words leave the ranking first, as long as enough remain to rank the sample.
    const leaving = new Set(
      conjunction
        .filter((group) => group.every(common))
        .sort((a, b) => Math.max(...b.map(knownChunks)) - Math.max(...a.map(knownChunks)))
        .slice(0, Math.max(0, conjunction.length - MIN_RANKING_GROUPS)),
    );
    const rankedBy =
      leaving.size > 0
        ? conjunction
            .filter((group) => !leaving.has(group))
            .map(groupExpression)
            .join(' AND ')
        : undefined;
    takeSample(conjunction.map(groupExpression).join(' AND '), rankedBy);
  };
  const live = groups.map((group) => group.filter((token) => token.docFreq > 0)).filter((group) => group.length > 0);
  if (live.length > 1) takeConjunction(live);
  // Phrases every chunk of which is already among the candidates: scored whole, with room to spare.
  const allTaken = new Set<string>();
  if (found.size < depth) {
    const rare: Token[] = [];
    let budget = SCORE_BUDGET;
    for (const token of [...tokens].sort((a, b) => a.docFreq - b.docFreq)) {
      if (token.docFreq > budget) break;
      rare.push(token);
      budget -= token.docFreq;
    }
    if (rare.length > 0) {
      const rows = scoreAll(rare.map((token) => token.phrase));
      take(rows);
      if (rows.length < depth) for (const token of rare) allTaken.add(token.phrase);
    }
  }
  // The most specific phrase of each word, together: what they match is sampled, unless one of
  // them was scored whole just above, and the sample could add nothing (a half-typed identifier).
  const rarest = live.map((group) => group.reduce((a, b) => (b.docFreq < a.docFreq ? b : a)));
  if (found.size < depth && !rarest.some((token) => allTaken.has(token.phrase))) {
    takeConjunction(rarest.map((token) => [token]));
  }
  // Of any of the words, but the common ones: with them, the sample would be the first chunks in
  // id order that hold `is` or `device`, and counting their IDF most of its cost.
  if (found.size < depth) {
    const telling = tokens.filter((token) => !common(token));
    takeSample(anyOf(telling.length > 0 ? telling : tokens));
  }
  return [...found.values()];
}

/** The feedback words (see feedback.ts) through the Porter index, each word a group of its own. */
export function feedbackList(store: IndexStore, words: readonly string[], depth: number, titleColumnWeight: number): ListRow[] {
  return rankedList(
    store,
    'porter',
    words.map((word) => [quote(word)]),
    depth,
    titleColumnWeight,
  );
}
