// Copies among the ranked candidates: one result per text, naming the places that repeat it.

import { baseName } from '../chunk/lines.ts';
import type { StoredChunk } from '../store/store.ts';
import type { ChunkCopy } from '../types.ts';

/** A chunk folded into a better-ranked one, and whether its text is that one's exactly. */
export interface FoldedChunk {
  chunk: StoredChunk;
  /** Much the same text in other markup or lightly edited, rather than the same characters. */
  alike: boolean;
}

/**
 * Prose chunks whose word triples are, for this share of the smaller chunk's triples, the other's
 * too, say much the same. npm ships each page of its docs three times, as Markdown, as HTML and as
 * a man page: asked where `npx` asks before installing, eight of ten results were two pages in
 * three formats. A rendering's chunks start and end elsewhere than its source's, which a share of
 * the smaller chunk allows for: among the results of npm's questions most such pairs shared 0.6–1.0
 * of the smaller chunk's triples, and chunks about other things under 0.15. Four functions of npm's
 * dependencies built as CommonJS and as ESM shared 0.59–0.95 with their other build.
 */
const ALIKE_SHARE = 0.5;
/**
 * Fewer triples than this (a heading, a note of a sentence or two) say too little to tell a copy
 * from two texts that share a phrase, unless the two are one section in two formats: HTML split at
 * its headings chunks a short section as its Markdown source does (npm's `npm ci` list of
 * lifecycle scripts, 12 lines, in `scripts.md` and `scripts.html`).
 */
const MIN_TRIPLES = 30;
/**
 * One triple in this many is compared, the same ones in every text (those whose hash is a multiple
 * of it), which estimates the share as well at a quarter of the cost: 1 ms a search of ten results
 * when all 30 candidates are prose.
 */
const SAMPLE_EVERY = 4;

/**
 * Keeps one entry per text, in the order given: a later entry whose chunk's text is an earlier
 * one's is folded into that entry's copies, and so is a prose chunk with much the same words in the
 * same order (`ALIKE_SHARE`). npm's docs repeat each config option's section in every command's
 * page: asked about `workspaces`, nine of ten results were the same section in nine pages, and the
 * option's definition was not among them. The exact text is compared as stored: collapsing its
 * whitespace first cost 2 ms a search for 60 chunks of 3.5 KB, keying by it 0.01.
 *
 * Code folds by its words only as one module built twice: the same symbol in files of the same name
 * (`fastest-levenshtein/mod.js` and `esm/mod.js`, `dist/commonjs/index.js` and `dist/esm/index.js`),
 * whose builds differ in their syntax (`var f = function` against `const f = () =>`) and share half
 * their triples or more. Functions of one shape in different modules (ESLint's rules' `meta` blocks)
 * share most of their triples and are still different answers.
 */
export class CopyFolder<T extends { chunk: StoredChunk; copies: FoldedChunk[] }> {
  private readonly byText = new Map<string, T>();
  /** The prose entries kept, in order. */
  private readonly prose: Array<{ entry: T } & Fingerprint> = [];
  /** For each sampled triple, the kept prose entries (their places in `prose`) that hold it. */
  private readonly heldBy = new Map<number, number[]>();
  /** The code entries kept, by module and symbol (`moduleSymbol`), fingerprinted once a second one comes. */
  private readonly code = new Map<string, Array<{ entry: T; fingerprint?: Fingerprint }>>();

  /** Adds the entry and returns true, or folds it into the entry holding its text and returns false. */
  add(entry: T): boolean {
    const same = this.byText.get(entry.chunk.text);
    if (same) return this.fold(entry, same, false);
    if (entry.chunk.kind === 'code') return this.addCode(entry);
    const fingerprint = fingerprintOf(entry.chunk);
    const alike = this.muchTheSame(fingerprint);
    if (alike) return this.fold(entry, alike, true);
    this.byText.set(entry.chunk.text, entry);
    for (const triple of fingerprint.sample) {
      const holders = this.heldBy.get(triple);
      if (holders) holders.push(this.prose.length);
      else this.heldBy.set(triple, [this.prose.length]);
    }
    this.prose.push({ entry, ...fingerprint });
    return true;
  }

  /**
   * The first kept prose entry that shares `ALIKE_SHARE` of the smaller one's sampled triples with
   * this fingerprint, both long enough to compare or one section in two formats. Counted through
   * `heldBy`: one pass over the sample, not a comparison per entry.
   */
  private muchTheSame({ sample, long, section, language }: Fingerprint): T | undefined {
    const shared = new Uint32Array(this.prose.length);
    for (const triple of sample) for (const kept of this.heldBy.get(triple) ?? []) shared[kept]!++;
    for (let i = 0; i < shared.length; i++) {
      const kept = this.prose[i]!;
      if (!((long && kept.long) || (section === kept.section && language !== kept.language))) continue;
      if (alikeShare(sample, kept.sample, shared[i]!)) return kept.entry;
    }
    return undefined;
  }

  /** Folds a code entry into a build of its module kept before, else keeps it. */
  private addCode(entry: T): boolean {
    const key = moduleSymbol(entry.chunk);
    const builds = this.code.get(key);
    if (builds) {
      const fingerprint = fingerprintOf(entry.chunk);
      for (const build of builds) {
        build.fingerprint ??= fingerprintOf(build.entry.chunk);
        if (sharesMost(fingerprint, build.fingerprint)) return this.fold(entry, build.entry, true);
      }
      builds.push({ entry, fingerprint });
    } else {
      this.code.set(key, [{ entry }]);
    }
    this.byText.set(entry.chunk.text, entry);
    return true;
  }

  private fold(entry: T, into: T, alike: boolean): false {
    // The typed and the corrected rankings can each hold a copy the other folded.
    const held = new Set([into.chunk.id, ...into.copies.map((copy) => copy.chunk.id)]);
    for (const copy of [{ chunk: entry.chunk, alike: false }, ...entry.copies]) {
      if (!held.has(copy.chunk.id) && held.add(copy.chunk.id)) into.copies.push({ chunk: copy.chunk, alike: alike || copy.alike });
    }
    return false;
  }
}

/** Whether `shared` sampled triples are `ALIKE_SHARE` of the smaller of two samples. */
function alikeShare(a: Set<number>, b: Set<number>, shared: number): boolean {
  const smaller = Math.min(a.size, b.size);
  return smaller > 0 && shared >= ALIKE_SHARE * smaller;
}

/** Whether two long texts share `ALIKE_SHARE` of the smaller one's sampled triples. */
function sharesMost(a: Fingerprint, b: Fingerprint): boolean {
  if (!a.long || !b.long) return false;
  let shared = 0;
  for (const triple of a.sample) if (b.sample.has(triple)) shared++;
  return alikeShare(a.sample, b.sample, shared);
}

/** A code chunk's symbol in its module: the file's name without its extensions (`index.js`, `index.mjs`, `index.d.ts`) and the title. */
function moduleSymbol(chunk: StoredChunk): string {
  return `${baseName(chunk.path).replace(/\..*$/, '')}\0${chunk.title}`;
}

/** Where a folded chunk is, as a result names it. */
export function chunkCopy({ chunk, alike }: FoldedChunk): ChunkCopy {
  return { chunkId: chunk.id, path: chunk.path, startLine: chunk.startLine, endLine: chunk.endLine, ...(alike ? { alike: true } : {}) };
}

/** HTML's tags and entities, roff's font escapes and requests: what a word regular expression below reads past. */
const MARKUP = String.raw`<[^>]*>|&#?\w+;|\\f(?:\(..|\[[^\]]*\]|.)|^\.[A-Za-z]+`;
/** Markup, or a word (group 1). */
const MARKUP_OR_WORD = new RegExp(String.raw`${MARKUP}|([A-Za-z0-9]+)`, 'gm');
/**
 * The same for a text with letters beyond ASCII: a word is letters and digits of any script, and a
 * Han, Hiragana or Katakana character is a word of its own, as those scripts put no spaces between
 * words. Kept apart because it reads English three times slower, and most texts are ASCII.
 */
const MARKUP_OR_WORD_ANY_SCRIPT = new RegExp(
  String.raw`${MARKUP}|((?:(?![\p{sc=Han}\p{sc=Hira}\p{sc=Kana}])[\p{L}\p{N}])+|[\p{sc=Han}\p{sc=Hira}\p{sc=Kana}])`,
  'gmu',
);
/** A letter beyond ASCII: typographic quotes and dashes in an English text are none. */
const LETTER_BEYOND_ASCII = /[^\p{ASCII}\P{L}]/u;

interface Fingerprint {
  /** The sample (`SAMPLE_EVERY`) of the text's runs of three words, hashed. */
  sample: Set<number>;
  /** Whether the text has `MIN_TRIPLES` triples, enough to compare with any other. */
  long: boolean;
  /** The chunk's own heading, the last of its title's. */
  section: string;
  /** The chunk's file's language: a short section folds only into its rendering in another. */
  language: string;
}

/** A chunk's triples, case aside, with markup left out so that a page and its renderings read alike. */
function fingerprintOf(chunk: StoredChunk): Fingerprint {
  const sample = new Set<number>();
  let [first, second, words] = [0, 0, 0];
  const anyScript = LETTER_BEYOND_ASCII.test(chunk.text);
  for (const match of chunk.text.matchAll(anyScript ? MARKUP_OR_WORD_ANY_SCRIPT : MARKUP_OR_WORD)) {
    if (match[1] === undefined) continue;
    const third = wordHash(anyScript ? match[1].toLowerCase() : match[1]);
    if (++words >= 3) {
      const triple = Math.imul(Math.imul(first, 0x9e3779b1) ^ second, 0x85ebca6b) ^ third;
      if (triple % SAMPLE_EVERY === 0) sample.add(triple);
    }
    [first, second] = [second, third];
  }
  const heading = chunk.title.lastIndexOf(' > ');
  return { sample, long: words - 2 >= MIN_TRIPLES, section: heading < 0 ? chunk.title : chunk.title.slice(heading + 3), language: chunk.language };
}

/** FNV-1a over the word's characters, ASCII letters lower-cased. */
function wordHash(word: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < word.length; i++) hash = Math.imul(hash ^ (word.charCodeAt(i) | 0x20), 0x01000193);
  return hash;
}
