// Typo correction against the index vocabulary. A query word the index has never seen is replaced by
// the closest word it has, so the search can run again; a word the index knows is left alone, however
// rare. "Closest" is the OSA edit distance, within a budget that grows with the word's length; ties go
// to the word in more documents, then to the alphabetically first, so a correction never flickers.
//
// Code vocabularies are big and mostly noise. The Linux kernel's .c/.h files hold 5.0 million distinct
// words (with `_` as a word character); cut into ~4 KB chunks, 2.2 million of them occur in a single
// chunk and 2.8 million in two or more, 26 characters long on average. A SymSpell delete index would
// answer in microseconds but needs every 1-, 2- and 3-deletion of every word (billions of keys here);
// a BK-tree was not tried, as at distance 2-3 it is reported to visit a large share of its nodes.
// What is left is a scan, made cheap:
//   - only words in at least `minDocFreq` documents are correction targets, which drops most noise;
//   - targets are bucketed by length, and only buckets within the budget are visited, nearest first;
//   - each target carries a 32-bit character-set mask; an edit flips at most two of its bits, so a
//     popcount rules out nearly every candidate before any DP runs;
//   - the DP is banded and gives up as soon as the budget is exceeded, and the budget shrinks to the
//     best distance found so far.
// Sorting each bucket by document frequency, to stop a scan early once a distance-1 match is found,
// was tried and dropped: it saved under 1% of the DP calls and cost 0.7 s of build on the kernel.
// Memory is flat typed arrays, not strings: a Set of the kernel's 5 million words alone took 160 MB
// and ~10 s to build here, so "known" is a sorted array of 53-bit hashes, and targets are stored as
// character ids, two bytes each. bench/fuzzy-speed.ts measures all of this on the kernel's vocabulary.

import { boundedOsa, editDistance } from './edit-distance.ts';

export { editDistance };

export interface Correction {
  /** The word as it was passed to `correct`. */
  from: string;
  /** The vocabulary word it is corrected to. */
  to: string;
  /** OSA distance between the two, in code points; at least 1. */
  distance: number;
}

export interface VocabularyOptions {
  /**
   * Words in fewer documents than this are known (never corrected) but never offered as corrections.
   * Default: 2 for vocabularies of at least LARGE_VOCABULARY_WORDS words, 1 below. In a big code base
   * a word in a single document is mostly a constant or an identifier nobody types, and there are so
   * many of them that almost any typo is within distance 2 of one. In a small index a single-document
   * word is as likely as any to be the word a user meant, and scanning all of them costs nothing.
   */
  minDocFreq?: number;
}

/** Words shorter than this (in code points) are never corrected, nor offered as corrections. */
export const MIN_CORRECTABLE_LENGTH = 3;

/** Vocabulary size (distinct words) from which single-document words stop being correction targets. */
export const LARGE_VOCABULARY_WORDS = 100_000;

/**
 * Largest edit distance a correction of a word this long (in code points) may have: 0 below
 * MIN_CORRECTABLE_LENGTH (not corrected), 1 up to 4, 2 up to 12, 3 beyond.
 */
export function maxEditDistance(wordLength: number): number {
  if (wordLength < MIN_CORRECTABLE_LENGTH) return 0;
  if (wordLength <= 4) return 1;
  if (wordLength <= 12) return 2;
  return 3;
}

/** Length buckets a lookup visits, nearest first; substitutions and swaps, the commonest typos, keep the length. */
const LENGTH_OFFSETS = [0, -1, 1, -2, 2, -3, 3];

// Character ids are Uint16. A vocabulary gets at most MAX_IDS of them; a target using a character past
// that is filled with DEAD, which no query character matches, so it stays out of every budget (a
// budget is always smaller than the query). A query character the vocabulary lacks becomes NO_ID.
const MAX_IDS = 0xfffe;
const DEAD = 0xfffe;
const NO_ID = 0xffff;

const SURROGATE = /[\ud800-\udfff]/;

/** Bump when the layout `toBytes` writes changes: a snapshot of another format is rebuilt. */
const SNAPSHOT_FORMAT = 0x766f6301;

export class Vocabulary {
  /** Number of distinct words, correction targets or not. */
  readonly size: number;
  /** hash53 of every word, sorted. */
  private readonly known: Float64Array;
  /** Code point of each character id; ids follow code point order, so comparing ids is alphabetical. */
  private readonly alphabet: Int32Array;
  private readonly bmpIds: Uint16Array;
  private readonly astralIds: Map<number, number>;
  // Targets grouped by length. Target t of length L has its character ids at
  // `codes[bucketCodeStart[L] + (t - bucketStart[L]) * L]`, L of them.
  private readonly codes: Uint16Array;
  private readonly masks: Int32Array;
  private readonly targetDf: Float64Array;
  private readonly bucketStart: Int32Array;
  private readonly bucketEnd: Int32Array;
  private readonly bucketCodeStart: Int32Array;

  /** words[i] has document frequency docFreq[i]; words are lowercase, unique. */
  constructor(words: readonly string[], docFreq: readonly number[], options: VocabularyOptions = {}) {
    if (words.length !== docFreq.length) {
      throw new RangeError(`${words.length} words but ${docFreq.length} document frequencies`);
    }
    const n = words.length;
    this.size = n;
    this.known = new Float64Array(n);
    for (let i = 0; i < n; i++) this.known[i] = hash53(words[i]!);
    this.known.sort();

    // Which words are targets, and their lengths in code points.
    const minDf = resolveMinDocFreq(options.minDocFreq, n);
    const lengths = new Int32Array(n);
    let maxLength = 0;
    for (let i = 0; i < n; i++) {
      if (!(docFreq[i]! >= minDf)) continue;
      const word = words[i]!;
      const len = SURROGATE.test(word) ? [...word].length : word.length;
      if (len < MIN_CORRECTABLE_LENGTH) continue;
      lengths[i] = len;
      if (len > maxLength) maxLength = len;
    }

    // Bucket the targets by length (a counting sort, so each bucket keeps the input order).
    const bucketCount = new Int32Array(maxLength + 1);
    for (let i = 0; i < n; i++) bucketCount[lengths[i]!]!++;
    this.bucketStart = new Int32Array(maxLength + 1);
    this.bucketEnd = new Int32Array(maxLength + 1);
    this.bucketCodeStart = new Int32Array(maxLength + 1);
    let targets = 0;
    let totalCodes = 0;
    for (let len = MIN_CORRECTABLE_LENGTH; len <= maxLength; len++) {
      this.bucketStart[len] = targets;
      this.bucketEnd[len] = targets;
      this.bucketCodeStart[len] = totalCodes;
      targets += bucketCount[len]!;
      totalCodes += bucketCount[len]! * len;
    }

    // Lay the targets out, numbering characters as they come.
    const codes = new Uint16Array(totalCodes);
    const masks = new Int32Array(targets);
    const targetDf = new Float64Array(targets);
    const bucketStart = this.bucketStart;
    const bucketEnd = this.bucketEnd;
    const bucketCodeStart = this.bucketCodeStart;
    const firstIds = new Uint16Array(0x10000).fill(NO_ID);
    const firstAstralIds = new Map<number, number>();
    const codePointOf = new Int32Array(MAX_IDS);
    const bitOf = new Int32Array(MAX_IDS);
    let alphabetSize = 0;
    for (let i = 0; i < n; i++) {
      const len = lengths[i]!;
      if (len === 0) continue;
      const word = words[i]!;
      const t = bucketEnd[len]!++;
      const offset = bucketCodeStart[len]! + (t - bucketStart[len]!) * len;
      let mask = 0;
      let k = offset;
      for (let u = 0; u < word.length; u++) {
        let cp = word.charCodeAt(u);
        if (cp >= 0xd800 && cp <= 0xdbff) cp = word.codePointAt(u)!;
        let id: number;
        if (cp > 0xffff) {
          u++;
          id = firstAstralIds.get(cp) ?? NO_ID;
        } else id = firstIds[cp]!;
        if (id === NO_ID) {
          if (alphabetSize === MAX_IDS) {
            codes.fill(DEAD, offset, offset + len);
            break;
          }
          id = alphabetSize++;
          codePointOf[id] = cp;
          bitOf[id] = charBit(cp);
          if (cp > 0xffff) firstAstralIds.set(cp, id);
          else firstIds[cp] = id;
        }
        codes[k++] = id;
        mask |= bitOf[id]!;
      }
      masks[t] = mask;
      targetDf[t] = docFreq[i]!;
    }
    this.codes = codes;
    this.masks = masks;
    this.targetDf = targetDf;

    // Renumber the ids in code point order.
    const byCodePoint = Array.from({ length: alphabetSize }, (_, id) => id).sort((x, y) => codePointOf[x]! - codePointOf[y]!);
    const renumber = new Uint16Array(0x10000);
    renumber[DEAD] = DEAD;
    this.alphabet = new Int32Array(byCodePoint.length);
    this.bmpIds = new Uint16Array(0x10000).fill(NO_ID);
    this.astralIds = new Map();
    byCodePoint.forEach((first, id) => {
      const cp = codePointOf[first]!;
      renumber[first] = id;
      this.alphabet[id] = cp;
      if (cp > 0xffff) this.astralIds.set(cp, id);
      else this.bmpIds[cp] = id;
    });
    for (let k = 0; k < codes.length; k++) codes[k] = renumber[codes[k]!]!;
  }

  /**
   * Whether the index has this word. Words are compared by a 53-bit hash, so an unknown word is taken
   * for a known one with probability size / 2^53 (about 1 in 2 billion for 5 million words), and is
   * then left uncorrected.
   */
  has(word: string): boolean {
    return this.knows(word.toLowerCase());
  }

  /** Best correction for a word not in the vocabulary, or null (also null if the word is known or too short). */
  correct(word: string): Correction | null {
    return this.candidates(word, 1)[0] ?? null;
  }

  /**
   * Every vocabulary word at the smallest edit distance from `word`, most frequent first (then
   * alphabetically), at most `max` of them; empty if the word is known, too short or has no
   * neighbour. Several words are often equally close (`josn`: `join`, `json`); the caller may
   * know which one the rest of the query means.
   */
  candidates(word: string, max = 8): Correction[] {
    const lower = word.toLowerCase();
    if (this.knows(lower)) return [];
    const query = new Uint16Array(lower.length);
    const n = this.idsOf(lower, query);
    let limit = maxEditDistance(n);
    if (limit === 0) return [];
    const queryMask = charMask(lower);

    let tied: Array<{ target: number; offset: number; length: number }> = [];
    let bestDistance = limit + 1;
    const maxLength = this.bucketStart.length - 1;
    for (const delta of LENGTH_OFFSETS) {
      const gap = delta < 0 ? -delta : delta;
      if (gap > limit) continue;
      const len = n + delta;
      if (len < MIN_CORRECTABLE_LENGTH || len > maxLength) continue;
      const end = this.bucketEnd[len]!;
      let offset = this.bucketCodeStart[len]!;
      for (let t = this.bucketStart[len]!; t < end; t++, offset += len) {
        // Each indel flips at most one bit of the mask and each substitution two, and at least `gap`
        // of the edits are indels, so `limit` edits flip at most 2 × limit − gap bits.
        if (popcount(this.masks[t]! ^ queryMask) > 2 * limit - gap) continue;
        const d = boundedOsa(query, 0, n, this.codes, offset, len, limit);
        if (d > limit) continue;
        if (d < bestDistance) {
          tied = [];
          bestDistance = d;
          limit = d;
        }
        tied.push({ target: t, offset, length: len });
      }
    }
    tied.sort(
      (a, b) =>
        this.targetDf[b.target]! - this.targetDf[a.target]! ||
        (this.idsBefore(a.offset, a.length, b.offset, b.length) ? -1 : this.idsBefore(b.offset, b.length, a.offset, a.length) ? 1 : 0),
    );
    return tied.slice(0, max).map(({ offset, length }) => {
      let to = '';
      for (let k = 0; k < length; k++) to += String.fromCodePoint(this.alphabet[this.codes[offset + k]!]!);
      return { from: word, to, distance: bestDistance };
    });
  }

  /**
   * The vocabulary as bytes, for `fromBytes`: building one from the index walks every posting list
   * of the words table (2–3 s on the Linux tree), reading these back takes milliseconds.
   */
  toBytes(): Uint8Array {
    const arrays = [this.known, this.alphabet, this.codes, this.masks, this.targetDf, this.bucketStart, this.bucketEnd, this.bucketCodeStart];
    const header = new Uint32Array(2 + arrays.length);
    header[0] = SNAPSHOT_FORMAT;
    header[1] = this.size;
    arrays.forEach((array, i) => (header[2 + i] = array.length));
    const parts = [header, ...arrays].map((array) => new Uint8Array(array.buffer, array.byteOffset, array.byteLength));
    // Each array starts on an 8-byte boundary, so `fromBytes` can view the bytes in place.
    const offsets: number[] = [];
    let total = 0;
    for (const part of parts) {
      offsets.push(total);
      total += Math.ceil(part.byteLength / 8) * 8;
    }
    const bytes = new Uint8Array(total);
    parts.forEach((part, i) => bytes.set(part, offsets[i]));
    return bytes;
  }

  /** The vocabulary `toBytes` wrote. Throws on bytes it did not write or an older format. */
  static fromBytes(bytes: Uint8Array): Vocabulary {
    // The arrays are viewed in place: a copy of the Linux tree's 20 MB took 95 ms here, most of it
    // the first touch of fresh memory. Typed arrays need alignment, which SQLite's buffers usually
    // have (their own memory); bytes that start anywhere else are copied first.
    const aligned = bytes.byteOffset % 8 === 0 && bytes.buffer instanceof ArrayBuffer ? (bytes as Uint8Array<ArrayBuffer>) : new Uint8Array(bytes);
    const { buffer, byteOffset: start, byteLength } = aligned;
    const types = [Float64Array, Int32Array, Uint16Array, Int32Array, Float64Array, Int32Array, Int32Array, Int32Array] as const;
    const header = new Uint32Array(buffer, start, Math.min(2 + types.length, byteLength >> 2));
    if (header.length < 2 + types.length || header[0] !== SNAPSHOT_FORMAT) throw new Error('not a vocabulary snapshot of this format');
    let offset = Math.ceil(header.byteLength / 8) * 8;
    const arrays = types.map((Type, i) => {
      const length = header[2 + i]!;
      if (offset + length * Type.BYTES_PER_ELEMENT > byteLength) throw new Error('truncated vocabulary snapshot');
      const array = new Type(buffer, start + offset, length);
      offset += Math.ceil(array.byteLength / 8) * 8;
      return array;
    });
    const [known, alphabet, codes, masks, targetDf, bucketStart, bucketEnd, bucketCodeStart] = arrays as [
      Float64Array,
      Int32Array,
      Uint16Array,
      Int32Array,
      Float64Array,
      Int32Array,
      Int32Array,
      Int32Array,
    ];
    const bmpIds = new Uint16Array(0x10000).fill(NO_ID);
    const astralIds = new Map<number, number>();
    alphabet.forEach((cp, id) => {
      if (cp > 0xffff) astralIds.set(cp, id);
      else bmpIds[cp] = id;
    });
    const vocabulary = Object.create(Vocabulary.prototype) as Vocabulary;
    return Object.assign(vocabulary, { size: header[1]!, known, alphabet, bmpIds, astralIds, codes, masks, targetDf, bucketStart, bucketEnd, bucketCodeStart });
  }

  private knows(lower: string): boolean {
    const h = hash53(lower);
    const known = this.known;
    let lo = 0;
    let hi = known.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (known[mid]! < h) lo = mid + 1;
      else hi = mid;
    }
    return lo < known.length && known[lo] === h;
  }

  /** Writes the character ids of `word` into `out` and returns its length in code points. */
  private idsOf(word: string, out: Uint16Array): number {
    let len = 0;
    for (let u = 0; u < word.length; u++) {
      const cp = word.codePointAt(u)!;
      if (cp > 0xffff) {
        out[len++] = this.astralIds.get(cp) ?? NO_ID;
        u++;
      } else out[len++] = this.bmpIds[cp]!;
    }
    return len;
  }

  /** Whether the target at offset `a` comes alphabetically before the one at `b` (code point order). */
  private idsBefore(a: number, aLen: number, b: number, bLen: number): boolean {
    const codes = this.codes;
    const common = Math.min(aLen, bLen);
    for (let k = 0; k < common; k++) {
      const x = codes[a + k]!;
      const y = codes[b + k]!;
      if (x !== y) return x < y;
    }
    return aLen < bLen;
  }
}

function resolveMinDocFreq(value: number | undefined, vocabularySize: number): number {
  if (value !== undefined && Number.isFinite(value) && value >= 1) return value;
  return vocabularySize >= LARGE_VOCABULARY_WORDS ? 2 : 1;
}

// Letters get a bit each, digits share five bits, `_` has its own and everything else is folded onto
// the 32. Any mapping keeps "an edit flips at most two bits"; a finer one only filters better.
function charBit(cp: number): number {
  if (cp >= 97 && cp <= 122) return 1 << (cp - 97);
  if (cp >= 48 && cp <= 57) return 1 << (26 + ((cp - 48) % 5));
  if (cp === 95) return 1 << 31;
  return 1 << (cp & 31);
}

function charMask(word: string): number {
  let mask = 0;
  for (const ch of word) mask |= charBit(ch.codePointAt(0)!);
  return mask;
}

function popcount(x: number): number {
  x = x - ((x >>> 1) & 0x55555555);
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  return Math.imul((x + (x >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24;
}

// cyrb53: two 32-bit multiply-xor lanes mixed into 53 bits, the most a double holds exactly.
function hash53(s: string): number {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 2654435761);
    h2 = Math.imul(h2 ^ c, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507);
  h1 ^= Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507);
  h2 ^= Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return 4294967296 * (2097151 & h2) + (h1 >>> 0);
}
