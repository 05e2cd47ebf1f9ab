// The word lists the trigram and vocabulary tables index instead of a chunk's full text.

const WORD = /[\p{L}\p{M}\p{N}_]{3,}/gu;
const HUMP = /\p{Lu}+(?=\p{Lu}\p{Ll})|\p{Lu}?[\p{Ll}\p{M}]+|\p{Lu}+|\p{N}+/gu;

export interface ChunkWords {
  /**
   * Each distinct word of three characters or more, once, lowercased. Trigram matching needs
   * nothing shorter, and indexing each word once instead of every occurrence keeps the trigram
   * index a fraction of the size of one built over the text.
   */
  trigram: string;
  /**
   * The same words plus their camelCase humps, so the vocabulary knows `pod` from
   * `horizontalPodAutoscaler` and the fuzzy retry never "corrects" a word the code does use.
   */
  vocabulary: string;
  /** The camelCase humps alone, space-separated: what the Porter index adds to the text. */
  humps: string;
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
  const trigram = [...whole].join('\n');
  const extra = [...humps].filter((hump) => !whole.has(hump));
  return { trigram, vocabulary: extra.length === 0 ? trigram : `${trigram}\n${extra.join('\n')}`, humps: [...humps].join(' ') };
}
