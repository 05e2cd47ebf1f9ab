// Whether a query word is English spelled right, by Hunspell's en_US dictionary (dictionary-en,
// read with nspell, which applies its affix rules: `downtimes`, `reindexing`). The typo retry
// leaves such a word alone when the index lacks it: `downtime` in a question about a server that
// never writes it was "corrected" to `downside`, and on cranfield's clean queries 39 of 40
// corrections were of words like these (`anyone` → `alone`, `contract` → `contact`); on the typo
// sets the dictionary spares 3 of about 1,000 real misspellings (`withing`, `florescent`,
// `deffer`), docs/benchmarks.md. Proper nouns are capitalised in the dictionary and query words
// are lower-cased, so `merlin` or `linux` are corrected as before, as is every word of another
// language.

import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import nspell from 'nspell';

/** Built at the first question (about 0.25 s and 13 MB of heap here); null when the dictionary cannot be read. */
let speller: nspell | null | undefined;

export function isEnglishWord(word: string): boolean {
  speller ??= load();
  return speller?.correct(word) ?? false;
}

function load(): nspell | null {
  try {
    // The package's entry point reads these two files with a top-level await, which a CommonJS bundle cannot hold.
    const folder = path.dirname(createRequire(import.meta.url).resolve('dictionary-en'));
    return nspell({ aff: fs.readFileSync(path.join(folder, 'index.aff')), dic: fs.readFileSync(path.join(folder, 'index.dic')) });
  } catch {
    // An install without the dictionary corrects every word the index lacks, as before it had one.
    return null;
  }
}
