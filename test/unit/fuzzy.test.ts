import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LARGE_VOCABULARY_WORDS, Vocabulary, editDistance, maxEditDistance } from '../../src/core/search/fuzzy.ts';
import { random } from './helpers/random.ts';

/** The textbook full-matrix OSA recurrence, over code points, with no band and no early exit. */
function naiveOsa(a: string, b: string): number {
  const x = [...a];
  const y = [...b];
  const d: number[][] = [];
  for (let i = 0; i <= x.length; i++) {
    const row: number[] = [];
    for (let j = 0; j <= y.length; j++) {
      if (i === 0 || j === 0) {
        row.push(i + j);
        continue;
      }
      const above = d[i - 1]!;
      let v = Math.min(above[j]! + 1, row[j - 1]! + 1, above[j - 1]! + (x[i - 1] === y[j - 1] ? 0 : 1));
      if (i > 1 && j > 1 && x[i - 1] === y[j - 2] && x[i - 2] === y[j - 1]) {
        v = Math.min(v, d[i - 2]![j - 2]! + 1);
      }
      row.push(v);
    }
    d.push(row);
  }
  return d[x.length]![y.length]!;
}

// A small alphabet makes repeated letters and accidental transpositions common, which is where a
// banded OSA goes wrong; the astral letter checks that distances count code points.
const ALPHABET = ['a', 'b', 'c', 'd', '_', '1', 'é', '𝔸'];

function randomWord(rand: () => number, maxLength: number): string {
  const len = Math.floor(rand() * (maxLength + 1));
  let s = '';
  for (let i = 0; i < len; i++) s += ALPHABET[Math.floor(rand() * ALPHABET.length)]!;
  return s;
}

/** `word` with a few random insertions, deletions, substitutions and adjacent swaps. */
function mutate(rand: () => number, word: string, edits: number): string {
  const chars = [...word];
  for (let e = 0; e < edits; e++) {
    const at = Math.floor(rand() * (chars.length + 1));
    const letter = ALPHABET[Math.floor(rand() * ALPHABET.length)]!;
    const kind = Math.floor(rand() * 4);
    if (kind === 0) chars.splice(at, 0, letter);
    else if (kind === 1 && at < chars.length) chars.splice(at, 1);
    else if (kind === 2 && at < chars.length) chars[at] = letter;
    else if (at + 1 < chars.length) [chars[at], chars[at + 1]] = [chars[at + 1]!, chars[at]!];
  }
  return chars.join('');
}

test('editDistance agrees with a full-matrix OSA on thousands of random pairs, capped at max + 1', () => {
  const rand = random(20240611);
  for (let k = 0; k < 4000; k++) {
    const a = randomWord(rand, 14);
    // Half the pairs are near each other, where the band edges and the early exit matter most.
    const b = k % 2 === 0 ? randomWord(rand, 14) : mutate(rand, a, 1 + Math.floor(rand() * 4));
    const max = Math.floor(rand() * 5);
    const expected = Math.min(naiveOsa(a, b), max + 1);
    assert.equal(editDistance(a, b, max), expected, `editDistance(${JSON.stringify(a)}, ${JSON.stringify(b)}, ${max})`);
  }
});

/** Code point order, the "alphabetical" of the tie-break. */
function before(a: string, b: string): boolean {
  const x = [...a].map((c) => c.codePointAt(0)!);
  const y = [...b].map((c) => c.codePointAt(0)!);
  for (let k = 0; k < Math.min(x.length, y.length); k++) if (x[k] !== y[k]) return x[k]! < y[k]!;
  return x.length < y.length;
}

test('correct agrees with a brute-force scan of the whole vocabulary', () => {
  // The length buckets, the character-set filter and the shrinking budget must only ever skip
  // words that could not have won; a scan of every word with the naive distance says which did.
  const rand = random(99);
  let corrected = 0;
  for (let round = 0; round < 20; round++) {
    const words = [...new Set(Array.from({ length: 300 }, () => randomWord(rand, 10)))];
    const docFreq = words.map(() => 1 + Math.floor(rand() * 4));
    const v = new Vocabulary(words, docFreq);
    for (let k = 0; k < 100; k++) {
      const source = words[Math.floor(rand() * words.length)]!;
      const query = k % 4 === 0 ? randomWord(rand, 16) : mutate(rand, source, 1 + Math.floor(rand() * 3));
      let best: { from: string; to: string; distance: number } | null = null;
      let bestDf = 0;
      const budget = maxEditDistance([...query].length);
      // A known query has no correction: the loop is skipped and `best` stays null.
      for (let i = words.includes(query) ? words.length : 0; i < words.length; i++) {
        const w = words[i]!;
        const d = naiveOsa(query, w);
        if ([...w].length < 3 || d > budget) continue;
        const df = docFreq[i]!;
        if (!best || d < best.distance || (d === best.distance && (df > bestDf || (df === bestDf && before(w, best.to))))) {
          best = { from: query, to: w, distance: d };
          bestDf = df;
        }
      }
      if (best) corrected++;
      assert.deepEqual(v.correct(query), best, `correct(${JSON.stringify(query)})`);
    }
  }
  // Most queries must have an answer, or the comparison above proves little.
  assert.ok(corrected > 1000, `only ${corrected} of 2000 queries had a correction`);
});

test('an adjacent swap costs 1, but OSA never edits a swapped pair again', () => {
  assert.equal(editDistance('teh', 'the', 3), 1);
  assert.equal(editDistance('ab', 'ba', 3), 1);
  // True Damerau-Levenshtein says 2 (swap, then insert between); OSA forbids that and says 3.
  assert.equal(editDistance('ca', 'abc', 5), 3);
  assert.equal(editDistance('', 'abc', 5), 3);
  assert.equal(editDistance('same', 'same', 0), 0);
  assert.equal(editDistance('kitten', 'sitting', 1), 2);
  assert.equal(editDistance('kitten', 'sitting', Number.POSITIVE_INFINITY), 3);
});

test('a distance counts letters, not UTF-16 code units', () => {
  assert.equal(editDistance('𝔸bc', 'abc', 2), 1);
  assert.equal(editDistance('café', 'cafe', 2), 1);
});

test('the edit budget is 1 up to 4 letters, 2 up to 12, 3 beyond, and nothing below 3', () => {
  assert.deepEqual([0, 1, 2, 3, 4, 5, 12, 13, 40].map(maxEditDistance), [0, 0, 0, 1, 1, 2, 2, 3, 3]);
});

const common = new Vocabulary(['kubernetes', 'database', 'authentication', 'the', 'then', 'configuration', 'function'], [40, 120, 30, 900, 300, 75, 500]);

test('common typos are corrected to the word that was meant', () => {
  // One missing letter, not a swap: "kubern_tes" lacks the "e".
  assert.deepEqual(common.correct('kuberntes'), { from: 'kuberntes', to: 'kubernetes', distance: 1 });
  assert.deepEqual(common.correct('databse'), { from: 'databse', to: 'database', distance: 1 });
  assert.deepEqual(common.correct('autentication'), { from: 'autentication', to: 'authentication', distance: 1 });
  assert.deepEqual(common.correct('teh'), { from: 'teh', to: 'the', distance: 1 });
  assert.deepEqual(common.correct('fucntoin'), { from: 'fucntoin', to: 'function', distance: 2 });
});

test('a typo in capitals is corrected and reported as typed', () => {
  assert.deepEqual(common.correct('Databse'), { from: 'Databse', to: 'database', distance: 1 });
});

test('a correction target is never corrected to another word', () => {
  const v = new Vocabulary(['database', 'databases'], [500, 1]);
  assert.equal(v.correct('databases'), null);
  assert.equal(v.correct('database'), null);
});

test('one- and two-letter words are never corrected', () => {
  const v = new Vocabulary(['if', 'of', 'ab', 'abc'], [9, 9, 9, 9]);
  assert.equal(v.correct('ix'), null);
  assert.equal(v.correct('x'), null);
  assert.equal(v.correct(''), null);
});

test('a two-letter word is never offered as a correction', () => {
  const v = new Vocabulary(['if'], [1000]);
  assert.equal(v.correct('iff'), null);
});

test('an empty vocabulary corrects nothing', () => {
  const v = new Vocabulary([], []);
  assert.equal(v.size, 0);
  assert.equal(v.correct('anything'), null);
});

test('a four-letter word is corrected at distance 1 but not 2; a five-letter word at 2', () => {
  const v = new Vocabulary(['abcd', 'abcde'], [5, 5]);
  assert.deepEqual(v.correct('abxd'), { from: 'abxd', to: 'abcd', distance: 1 });
  assert.equal(v.correct('axyd'), null);
  assert.deepEqual(v.correct('abxye'), { from: 'abxye', to: 'abcde', distance: 2 });
  assert.equal(v.correct('axyze'), null);
});

test('a twelve-letter word is corrected at distance 2 but not 3; a thirteen-letter word at 3', () => {
  const twelve = 'abcdefghijkl';
  const thirteen = 'abcdefghijklm';
  const v = new Vocabulary([twelve, thirteen], [5, 5]);
  assert.deepEqual(v.correct('abXdefgYijkl'.toLowerCase()), { from: 'abxdefgyijkl', to: twelve, distance: 2 });
  assert.equal(v.correct('axxdefgxijkl'), null);
  assert.deepEqual(v.correct('axxdefgxijklm'), { from: 'axxdefgxijklm', to: thirteen, distance: 3 });
  assert.equal(v.correct('axxdexgxijklm'), null);
});

test('a long word is found with three letters missing or three extra', () => {
  const v = new Vocabulary(['configuration_manager'], [5]);
  assert.deepEqual(v.correct('confguraton_manger'), { from: 'confguraton_manger', to: 'configuration_manager', distance: 3 });
  assert.deepEqual(v.correct('configuuration_maanagerr'), {
    from: 'configuuration_maanagerr',
    to: 'configuration_manager',
    distance: 3,
  });
});

test('the budget follows the typed word, so a short typo cannot reach a much longer word', () => {
  // "abcd" is 4 letters (budget 1); "abcdef" is two insertions away.
  const v = new Vocabulary(['abcdef'], [5]);
  assert.equal(v.correct('abcd'), null);
  assert.deepEqual(v.correct('abcde'), { from: 'abcde', to: 'abcdef', distance: 1 });
});

test('a closer word wins over a more frequent one', () => {
  const v = new Vocabulary(['parser', 'parsers'], [1000, 2]);
  assert.equal(v.correct('parsrs')?.to, 'parsers');
});

test('at equal distance the word in more documents wins, then the alphabetically first', () => {
  const v = new Vocabulary(['cat', 'cot', 'cut'], [3, 7, 3]);
  assert.equal(v.correct('cxt')?.to, 'cot');
  const even = new Vocabulary(['cut', 'cat', 'cot'], [4, 4, 4]);
  assert.equal(even.correct('cxt')?.to, 'cat');
  // Across lengths too: "cast" is one swap from "cats" and one deletion from "cat".
  const lengths = new Vocabulary(['cats', 'cat'], [6, 6]);
  assert.equal(lengths.correct('cast')?.to, 'cat');
});

test('a small vocabulary offers single-document words as corrections; a large one does not by default', () => {
  const small = new Vocabulary(['tokenizer', 'other'], [1, 1]);
  assert.equal(small.correct('tokeniser')?.to, 'tokenizer');

  const words: string[] = [];
  const docFreq: number[] = [];
  for (let i = 0; i < LARGE_VOCABULARY_WORDS; i++) {
    words.push(`w${i.toString(36)}`);
    docFreq.push(1);
  }
  words.push('tokenizer', 'tokenizers');
  docFreq.push(1, 3);
  const large = new Vocabulary(words, docFreq);
  // `tokenizer` is one edit closer, but in a single document.
  assert.equal(large.correct('tokeniser')?.to, 'tokenizers');
});

test('an explicit minimum document frequency is applied whatever the vocabulary size', () => {
  const strict = new Vocabulary(['tokenizer', 'tokenizers'], [2, 5], { minDocFreq: 6 });
  assert.equal(strict.correct('tokeniser'), null);
  const loose = new Vocabulary(['tokenizer', 'tokenizers'], [2, 5], { minDocFreq: 1 });
  assert.equal(loose.correct('tokeniser')?.to, 'tokenizer');
});

test('a nonsensical minimum document frequency falls back to the default', () => {
  const v = new Vocabulary(['tokenizer'], [1], { minDocFreq: Number.NaN });
  assert.equal(v.correct('tokeniser')?.to, 'tokenizer');
});

test('words with digits, underscores and non-ASCII letters are corrected like any other', () => {
  const v = new Vocabulary(['spin_lock_irqsave', 'kmalloc_array', 'größe', 'i2c_transfer'], [50, 40, 3, 20]);
  assert.equal(v.correct('spin_lock_irqsvae')?.to, 'spin_lock_irqsave');
  assert.equal(v.correct('kmallocarray')?.to, 'kmalloc_array');
  assert.equal(v.correct('grösse')?.to, 'größe');
  assert.equal(v.correct('i2ctransfer')?.to, 'i2c_transfer');
});

test('a typo with a character no vocabulary word uses still finds its word', () => {
  const v = new Vocabulary(['hello', 'help'], [5, 5]);
  assert.deepEqual(v.correct('hellø'), { from: 'hellø', to: 'hello', distance: 1 });
  assert.deepEqual(v.correct('hëllø'), { from: 'hëllø', to: 'hello', distance: 2 });
});

test('mismatched word and frequency arrays are a programming error', () => {
  assert.throws(() => new Vocabulary(['a', 'b'], [1]), RangeError);
});

test('a vocabulary with more distinct characters than ids still corrects the words it could number', () => {
  // 75,000 distinct ideographs and syllables in three-character words; the first 65,534 characters
  // met get ids, words using later ones are never offered, and nothing else is disturbed.
  const ranges: Array<[number, number]> = [
    [0x4e00, 0x9fff],
    [0xac00, 0xd7a3],
    [0x20000, 0x2a6df],
  ];
  const chars: string[] = [];
  for (const [from, to] of ranges) for (let cp = from; cp <= to; cp++) chars.push(String.fromCodePoint(cp));
  const words = ['interrupt'];
  for (let i = 0; i + 3 <= chars.length; i += 3) words.push(chars[i]! + chars[i + 1]! + chars[i + 2]!);
  const v = new Vocabulary(
    words,
    words.map(() => 5),
  );
  const first = words[1]!;
  const last = words[words.length - 1]!;
  assert.equal(v.correct('interupt')?.to, 'interrupt');
  assert.deepEqual(v.correct(first.slice(0, 2) + 'x'), { from: first.slice(0, 2) + 'x', to: first, distance: 1 });
  const lastTypo = [...last].slice(0, 2).join('') + 'x';
  assert.equal(v.correct(lastTypo), null);
});

/** A vocabulary as stored and read back, each bucket given as `give` returns it, with the lengths asked for. */
function storedAndRead(built: Vocabulary, give: (bytes: Uint8Array) => Uint8Array | undefined = (bytes) => bytes) {
  const { header, buckets } = built.toStored();
  const asked: number[] = [];
  const read = Vocabulary.fromStored(header.slice(), (length) => {
    asked.push(length);
    const bytes = buckets.get(length);
    return bytes && give(bytes);
  });
  return { read, asked, buckets };
}

test('a vocabulary read back from storage corrects exactly like the one that stored it, its bytes aligned or not', () => {
  const rand = random(7);
  const words = [...new Set([...Array.from({ length: 2000 }, () => randomWord(rand, 12)), 'naïve', '日本語の', 'emoji😀x', 'kubernetes'])];
  const docFreq = words.map(() => 1 + Math.floor(rand() * 5));
  const built = new Vocabulary(words, docFreq);
  // At an offset into a larger buffer: aligned (viewed in place) or not (copied).
  const at = (offset: number) => (bytes: Uint8Array) => {
    const larger = new Uint8Array(offset + bytes.length);
    larger.set(bytes, offset);
    return larger.subarray(offset);
  };
  const queries = [...words.slice(0, 300).map((w) => mutate(rand, w, 1 + Math.floor(rand() * 2))), 'naive', 'kuberntes', 'emoji😀', '日本語'];
  for (const give of [(bytes: Uint8Array) => bytes.slice(), at(8), at(3)]) {
    const { read } = storedAndRead(built, give);
    assert.equal(read.size, built.size);
    for (const query of queries) assert.deepEqual(read.candidates(query), built.candidates(query), query);
    assert.equal(read.stale, false);
  }
});

test('a stored vocabulary reads only the lengths a typo can reach', () => {
  const words = ['cat', 'kubernetes', 'kubernetesctl', 'interrupt', 'interrupts', 'a'.repeat(30)];
  const { read, asked, buckets } = storedAndRead(new Vocabulary(words, [3, 4, 2, 5, 1, 2]));
  assert.deepEqual(
    [...buckets.keys()].sort((a, b) => a - b),
    [3, 9, 10, 13, 30],
  );
  assert.equal(read.correct('kuberntes')?.to, 'kubernetes');
  // Nine letters may reach 7 to 11; of those, only 9 and 10 hold words. Each is read once.
  assert.deepEqual(
    asked.sort((a, b) => a - b),
    [9, 10],
  );
  assert.equal(read.correct('interupt')?.to, 'interrupt');
  assert.deepEqual(
    asked.sort((a, b) => a - b),
    [9, 10],
  );
});

test('a stored bucket gone or cut short under a vocabulary leaves it stale, not misread', () => {
  const built = new Vocabulary(['kubernetes', 'interrupt'], [4, 5]);
  for (const give of [() => undefined, (bytes: Uint8Array) => bytes.subarray(0, bytes.length - 2)]) {
    const { read } = storedAndRead(built, give);
    assert.equal(read.stale, false);
    assert.equal(read.correct('kuberntes'), null);
    assert.equal(read.stale, true);
  }
});

test('a header that is not a stored vocabulary, or is cut short, is refused rather than misread', () => {
  const { header } = new Vocabulary(['alpha', 'beta', 'gamma'], [1, 2, 3]).toStored();
  const none = () => undefined;
  assert.throws(() => Vocabulary.fromStored(new Uint8Array(64), none), /not a stored vocabulary/);
  assert.throws(() => Vocabulary.fromStored(header.slice(0, header.length - 8), none), /truncated/);
  assert.throws(() => Vocabulary.fromStored(new Uint8Array(3), none), /not a stored vocabulary/);
});
