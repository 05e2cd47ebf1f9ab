// The word lists the substring and vocabulary tables index instead of a chunk's full text, and
// the title the full-text tables index a chunk under.

import { baseName } from '../chunk/lines.ts';
import { topicFolders } from '../path-title.ts';
import type { ChunkKind } from '../types.ts';

const WORD = /[\p{L}\p{M}\p{N}_]{3,}/gu;
const HUMP = /\p{Lu}+(?=\p{Lu}\p{Ll})|\p{Lu}?[\p{Ll}\p{M}]+|\p{Lu}+|\p{N}+/gu;

export interface ChunkWords {
  /**
   * Each distinct word of three characters or more, once, lowercased: what the trigram list finds
   * by substring. A substring query has three characters or more, so nothing shorter is needed.
   */
  distinct: string;
  /**
   * The camelCase humps, space-separated: what the Porter index adds to the text, and what the
   * vocabulary adds to `distinct` (`vocabularyWords`).
   */
  humps: string;
  /**
   * How many trigrams the title and `distinct` hold together: the length the trigram list's BM25
   * normalises by, as FTS5 counted it when a trigram table indexed exactly these two strings.
   */
  trigramCount: number;
}

/**
 * The title a chunk is indexed under. A code chunk's title is its symbol (`CI > exec`), and only
 * the file's top-level chunk (`ci.js (top level)`) named the file: a query naming the file
 * (`eqeqeq smart`) lifted that chunk, a header comment and imports, over the function that answers
 * it. Every code chunk is indexed under its file's name and its topic folders too (`semver
 * functions satisfies.js satisfies`), as the rerank reads each result's path as a title. Prose
 * keeps its own title: a heading, or a document's.
 */
export function indexedTitle(path: string, chunk: { title: string; kind: ChunkKind }): string {
  if (chunk.kind !== 'code') return chunk.title;
  const fileName = baseName(path);
  const named = chunk.title.includes(fileName) ? chunk.title : `${fileName} ${chunk.title}`;
  return [...topicFolders(path), named].join(' ');
}

export function chunkWords(title: string, text: string): ChunkWords {
  const whole = new Set<string>();
  const humps = new Set<string>();
  for (const source of [title, text]) {
    for (const match of source.matchAll(WORD)) {
      const word = match[0];
      const lower = word.toLowerCase();
      if (whole.has(lower)) continue;
      whole.add(lower);
      if (lower !== word) for (const hump of word.matchAll(HUMP)) if (hump[0].length >= 3) humps.add(hump[0].toLowerCase());
    }
  }
  const distinct = [...whole].join('\n');
  return {
    distinct,
    humps: [...humps].join(' '),
    trigramCount: trigramsIn(title) + trigramsIn(distinct),
  };
}

/**
 * The distinct words plus the humps that are not words of their own, so the vocabulary knows `pod`
 * from `horizontalPodAutoscaler` and the fuzzy retry never "corrects" a word the code does use.
 * Derived where it is written rather than carried with the chunk: prepared chunks cross two
 * threads, and on the Linux tree these second copies were 11 of the 35 MB of prepared chunks the
 * indexing thread held.
 */
export function vocabularyWords({ distinct, humps }: ChunkWords): string {
  if (humps === '') return distinct;
  const whole = new Set(distinct.split('\n'));
  const extra = humps.split(' ').filter((hump) => !whole.has(hump));
  return extra.length === 0 ? distinct : `${distinct}\n${extra.join('\n')}`;
}

function trigramsIn(text: string): number {
  let characters = 0;
  for (const _ of text) characters++;
  return Math.max(0, characters - 2);
}
