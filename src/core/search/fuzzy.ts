// Typo correction against the index vocabulary. A query word the index has never seen is replaced by
// the closest word it has, so the search can run again. "Closest" is the OSA edit distance, within a
// budget that grows with the word's length; ties go to the word in more documents, then to the
// alphabetically first, so a correction never flickers. Whether a word is new to the index is the
// index's question (IndexStore.hasWord, a lookup): a word it knows is left alone, however rare.
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
// Memory is flat typed arrays, not strings (a Set of the kernel's 5 million words alone took 160 MB
// and ~10 s to build here): targets are stored as character ids, two bytes each. A big index keeps
// its vocabulary stored by length bucket (`toStored`), and a process reads a bucket only when a typo
// first needs it: SQLite reads a stored blob at about 8 ms a megabyte here, and a correction of a
// 7-letter word visits lengths 6 to 8 once it has found a word one edit away (4.6 MB of the Linux
// tree's 11 MB of targets), 5 to 9 otherwise (6.5 MB).
// bench/fuzzy-speed.ts measures the scan on the kernel's vocabulary.

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
   * Words in fewer documents than this are never offered as corrections. Default: 2 for
   * vocabularies of at least LARGE_VOCABULARY_WORDS words, 1 below. In a big code base a word in a
   * single document is mostly a constant or an identifier nobody types, and there are so many of
   * them that almost any typo is within distance 2 of one. In a small index a single-document word
   * is as likely as any to be the word a user meant, and scanning all of them costs nothing.
   */
  minDocFreq?: number;
}

/** A vocabulary as `toStored` lays it out: a small header, and each length's targets apart. */
export interface StoredVocabulary {
  header: Uint8Array;
  /** The targets of each length that has any, by length. */
  buckets: Map<number, Uint8Array>;
}

/**
 * The stored targets of one length, or undefined if they are gone: another process stored a newer
 * vocabulary since the header was read. Bytes of the wrong size count as gone.
 */
export type BucketReader = (length: number) => Uint8Array | undefined;

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

/** Bump when the layout `toStored` writes changes: a vocabulary stored in another format is rebuilt. */
const STORED_FORMAT = 0x766f6302;

/** The correction targets of one length L: target t's character ids are `codes[t * L … t * L + L)`. */
interface Bucket {
  masks: Int32Array;
  docFreq: Uint32Array;
  codes: Uint16Array;
}

export class Vocabulary {
  /** Number of distinct words, correction targets or not. */
  readonly size: number;
  /** Code point of each character id; ids follow code point order, so comparing ids is alphabetical. */
  private readonly alphabet: Int32Array;
  private readonly bmpIds: Uint16Array;
  private readonly astralIds: Map<number, number>;
  /** How many targets each length has. */
  private readonly targetCounts: Int32Array;
  /** The targets of each length, once built or read. */
  private readonly buckets: Array<Bucket | undefined>;
  private readonly readBucket: BucketReader | undefined;
  private bucketGone = false;

  /** words[i] has document frequency docFreq[i]; words are lowercase, unique. */
  constructor(words: readonly string[], docFreq: readonly number[], options: VocabularyOptions = {}) {
    if (words.length !== docFreq.length) {
      throw new RangeError(`${words.length} words but ${docFreq.length} document frequencies`);
    }
    const n = words.length;
    this.size = n;
    this.readBucket = undefined;

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
    this.targetCounts = new Int32Array(maxLength + 1);
    for (let i = 0; i < n; i++) if (lengths[i]! > 0) this.targetCounts[lengths[i]!]!++;
    this.buckets = Array.from(this.targetCounts, (count, len): Bucket | undefined =>
      count === 0 ? undefined : { masks: new Int32Array(count), docFreq: new Uint32Array(count), codes: new Uint16Array(count * len) },
    );

    // Lay the targets out in input order, numbering characters as they come.
    const filled = new Int32Array(maxLength + 1);
    const firstIds = new Uint16Array(0x10000).fill(NO_ID);
    const firstAstralIds = new Map<number, number>();
    const codePointOf = new Int32Array(MAX_IDS);
    const bitOf = new Int32Array(MAX_IDS);
    let alphabetSize = 0;
    for (let i = 0; i < n; i++) {
      const len = lengths[i]!;
      if (len === 0) continue;
      const word = words[i]!;
      const bucket = this.buckets[len]!;
      const t = filled[len]!++;
      const offset = t * len;
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
            bucket.codes.fill(DEAD, offset, offset + len);
            break;
          }
          id = alphabetSize++;
          codePointOf[id] = cp;
          bitOf[id] = charBit(cp);
          if (cp > 0xffff) firstAstralIds.set(cp, id);
          else firstIds[cp] = id;
        }
        bucket.codes[k++] = id;
        mask |= bitOf[id]!;
      }
      bucket.masks[t] = mask;
      bucket.docFreq[t] = Math.min(docFreq[i]!, 0xffffffff);
    }

    // Renumber the ids in code point order.
    const byCodePoint = Array.from({ length: alphabetSize }, (_, id) => id).sort((x, y) => codePointOf[x]! - codePointOf[y]!);
    const renumber = new Uint16Array(0x10000);
    renumber[DEAD] = DEAD;
    const alphabet = new Int32Array(byCodePoint.length);
    byCodePoint.forEach((first, id) => {
      renumber[first] = id;
      alphabet[id] = codePointOf[first]!;
    });
    for (const bucket of this.buckets) {
      if (!bucket) continue;
      const codes = bucket.codes;
      for (let k = 0; k < codes.length; k++) codes[k] = renumber[codes[k]!]!;
    }
    this.alphabet = alphabet;
    ({ bmpIds: this.bmpIds, astralIds: this.astralIds } = idsOfAlphabet(alphabet));
  }

  /** Best correction for a word, or null (also null if the word is itself a correction target, or too short). */
  correct(word: string): Correction | null {
    return this.candidates(word, 1)[0] ?? null;
  }

  /**
   * Every vocabulary word at the smallest edit distance from `word`, most frequent first (then
   * alphabetically), at most `max` of them; empty if the word is a target itself, too short or has
   * no neighbour. Several words are often equally close (`josn`: `join`, `json`); the caller may
   * know which one the rest of the query means. Ask only for words the index does not hold: a
   * word in too few documents to be a target would be "corrected" to its neighbour.
   */
  candidates(word: string, max = 8): Correction[] {
    const lower = word.toLowerCase();
    const query = new Uint16Array(lower.length);
    const n = this.idsOf(lower, query);
    let limit = maxEditDistance(n);
    if (limit === 0) return [];
    const queryMask = charMask(lower);

    let tied: Array<{ bucket: Bucket; target: number; length: number }> = [];
    let bestDistance = limit + 1;
    for (const delta of LENGTH_OFFSETS) {
      const gap = delta < 0 ? -delta : delta;
      if (gap > limit) continue;
      const len = n + delta;
      const bucket = this.bucket(len);
      if (!bucket) continue;
      const { masks, codes } = bucket;
      for (let t = 0; t < masks.length; t++) {
        // Each indel flips at most one bit of the mask and each substitution two, and at least `gap`
        // of the edits are indels, so `limit` edits flip at most 2 × limit − gap bits.
        if (popcount(masks[t]! ^ queryMask) > 2 * limit - gap) continue;
        const d = boundedOsa(query, 0, n, codes, t * len, len, limit);
        if (d > limit) continue;
        if (d === 0) return []; // the word is a target itself
        if (d < bestDistance) {
          tied = [];
          bestDistance = d;
          limit = d;
        }
        tied.push({ bucket, target: t, length: len });
      }
    }
    tied.sort(
      (a, b) =>
        b.bucket.docFreq[b.target]! - a.bucket.docFreq[a.target]! ||
        compareIds(a.bucket.codes, a.target * a.length, a.length, b.bucket.codes, b.target * b.length, b.length),
    );
    return tied.slice(0, max).map(({ bucket, target, length }) => {
      let to = '';
      for (let k = target * length; k < (target + 1) * length; k++) to += String.fromCodePoint(this.alphabet[bucket.codes[k]!]!);
      return { from: word, to, distance: bestDistance };
    });
  }

  /**
   * Whether a lookup found one of its stored buckets gone (another process stored a newer
   * vocabulary since this one's header was read) or not the size the header gives: its holder
   * should read the newer one, or build one.
   */
  get stale(): boolean {
    return this.bucketGone;
  }

  /**
   * The vocabulary laid out for storing: building one from the index walks every posting list of
   * the words table (seconds on the Linux tree); `fromStored` reads it back a bucket at a time.
   */
  toStored(): StoredVocabulary {
    const header = new Uint32Array(4 + this.alphabet.length + this.targetCounts.length);
    header.set([STORED_FORMAT, this.size, this.alphabet.length, this.targetCounts.length]);
    header.set(this.alphabet, 4);
    header.set(this.targetCounts, 4 + this.alphabet.length);
    const buckets = new Map<number, Uint8Array>();
    this.buckets.forEach((_, len) => {
      const bucket = this.bucket(len);
      if (!bucket) return;
      const count = bucket.masks.length;
      const bytes = new Uint8Array(count * (8 + 2 * len));
      bytes.set(asBytes(bucket.masks), 0);
      bytes.set(asBytes(bucket.docFreq), 4 * count);
      bytes.set(asBytes(bucket.codes), 8 * count);
      buckets.set(len, bytes);
    });
    return { header: asBytes(header), buckets };
  }

  /**
   * The vocabulary `toStored` wrote, from its header; `readBucket` gives each length's targets when
   * a lookup first needs them. Throws on a header it did not write or of an older format.
   */
  static fromStored(headerBytes: Uint8Array, readBucket: BucketReader): Vocabulary {
    const fields = viewAs(Uint32Array, headerBytes);
    if (fields.length < 4 || fields[0] !== STORED_FORMAT) throw new Error('not a stored vocabulary of this format');
    const [, size, alphabetLength, countsLength] = fields as unknown as [number, number, number, number];
    if (fields.length !== 4 + alphabetLength + countsLength) throw new Error('truncated vocabulary header');
    const alphabet = new Int32Array(fields.buffer, fields.byteOffset + 16, alphabetLength);
    const targetCounts = new Int32Array(fields.buffer, fields.byteOffset + 16 + 4 * alphabetLength, countsLength);
    const vocabulary = Object.create(Vocabulary.prototype) as Vocabulary;
    return Object.assign(vocabulary, {
      size,
      alphabet,
      ...idsOfAlphabet(alphabet),
      targetCounts,
      buckets: new Array<Bucket | undefined>(countsLength),
      readBucket,
      bucketGone: false,
    });
  }

  /** Reads every stored bucket not read yet, so that no lookup waits for one. */
  readAll(): void {
    for (let len = 0; len < this.targetCounts.length; len++) this.bucket(len);
  }

  /** The targets of one length, read from storage the first time; undefined if it has none (or they are unreadable). */
  private bucket(len: number): Bucket | undefined {
    if (len < MIN_CORRECTABLE_LENGTH || len >= this.targetCounts.length) return undefined;
    const count = this.targetCounts[len]!;
    if (count === 0) return undefined;
    const known = this.buckets[len];
    if (known || !this.readBucket) return known;
    const bytes = this.readBucket(len);
    if (bytes?.byteLength !== count * (8 + 2 * len)) {
      this.bucketGone = true;
      return undefined;
    }
    const aligned = viewAs(Uint8Array, bytes);
    const { buffer, byteOffset } = aligned;
    const bucket = {
      masks: new Int32Array(buffer, byteOffset, count),
      docFreq: new Uint32Array(buffer, byteOffset + 4 * count, count),
      codes: new Uint16Array(buffer, byteOffset + 8 * count, count * len),
    };
    this.buckets[len] = bucket;
    return bucket;
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
}

/** The id of each character of an alphabet, the BMP's in a table and the rest in a map. */
function idsOfAlphabet(alphabet: Int32Array): { bmpIds: Uint16Array; astralIds: Map<number, number> } {
  const bmpIds = new Uint16Array(0x10000).fill(NO_ID);
  const astralIds = new Map<number, number>();
  alphabet.forEach((cp, id) => {
    if (cp > 0xffff) astralIds.set(cp, id);
    else bmpIds[cp] = id;
  });
  return { bmpIds, astralIds };
}

/** Orders two targets' character ids alphabetically (ids follow code point order). */
function compareIds(a: Uint16Array, aStart: number, aLen: number, b: Uint16Array, bStart: number, bLen: number): number {
  const common = Math.min(aLen, bLen);
  for (let k = 0; k < common; k++) {
    const x = a[aStart + k]!;
    const y = b[bStart + k]!;
    if (x !== y) return x - y;
  }
  return aLen - bLen;
}

function asBytes(array: Int32Array | Uint32Array | Uint16Array): Uint8Array {
  return new Uint8Array(array.buffer, array.byteOffset, array.byteLength);
}

/**
 * Stored bytes seen as a typed array, in place when they are aligned for it (SQLite's buffers
 * usually are: a copy of the Linux tree's 20 MB took 95 ms here, most of it the first touch of
 * fresh memory), else copied first.
 */
function viewAs<T extends Uint8Array | Uint32Array>(
  Type: { new (buffer: ArrayBuffer, byteOffset: number, length: number): T; BYTES_PER_ELEMENT: number },
  bytes: Uint8Array,
): T {
  const size = Type.BYTES_PER_ELEMENT;
  const aligned = bytes.byteOffset % 4 === 0 && bytes.buffer instanceof ArrayBuffer ? bytes : new Uint8Array(bytes);
  return new Type(aligned.buffer as ArrayBuffer, aligned.byteOffset, Math.floor(aligned.byteLength / size));
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
