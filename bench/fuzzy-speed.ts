// Typo-correction speed on a code-sized vocabulary: how long a Vocabulary takes to build, what it
// holds in memory, and how long one correction takes at p50/p95/p99. The target is p95 ≤ 20 ms on the
// Linux kernel's vocabulary.
//
//   npx node --expose-gc bench/fuzzy-speed.ts [source-dir | vocabulary.tsv] [--split-underscore]
//
// The vocabulary comes from the .c/.h files under source-dir (default /tmp/linux-6.1), words as
// [\p{L}\p{N}_]+ lowercased, one document per chunk (pieces of about 4 KB cut at line ends, an
// approximation of the symbol chunker's output), or from a `word<TAB>docFreq` file. Without either a
// kernel-like vocabulary is synthesised (same order of size, same share of single-document noise), so
// the bench always runs; its figures are then only indicative. `--split-underscore` tokenizes as
// FTS5's unicode61 does by default (`_` separates words), which gives a much smaller vocabulary.

import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Vocabulary, maxEditDistance } from '../src/core/search/fuzzy.ts';
import { random } from '../test/unit/helpers/random.ts';

const QUERIES = 1000;
const MISSES = 200;
const WARMUP = 100;
/** Documents are pieces of about this many characters, cut at line ends, like the index's chunks (4 KB). */
const CHUNK_CHARS = 4096;

const args = process.argv.slice(2);
const WORD = args.includes('--split-underscore') ? /[\p{L}\p{N}]+/gu : /[\p{L}\p{N}_]+/gu;

interface Source {
  label: string;
  words: string[];
  docFreq: number[];
}

// SQLite hands the engine a fresh flat string per word; a regex match or a slice is a view into the
// whole file, and a concatenation is a rope that the build would flatten (and be charged for). Copy,
// so the build is timed and weighed on what it really gets.
function fresh(s: string): string {
  return Buffer.from(s).toString();
}

function fromSourceTree(root: string): Source {
  const df = new Map<string, number>();
  let files = 0;
  let chunks = 0;
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.isFile() && /\.[ch]$/.test(entry.name)) {
        files++;
        const text = readFileSync(path, 'utf8').toLowerCase();
        for (let start = 0; start < text.length;) {
          const cut = text.indexOf('\n', start + CHUNK_CHARS);
          const end = cut < 0 ? text.length : cut + 1;
          chunks++;
          for (const w of new Set(text.slice(start, end).match(WORD))) {
            const f = df.get(w);
            if (f === undefined) df.set(fresh(w), 1);
            else df.set(w, f + 1);
          }
          start = end;
        }
      }
    }
  };
  walk(root);
  return { label: `${root} (${files} .c/.h files, ${chunks} chunks)`, words: [...df.keys()], docFreq: [...df.values()] };
}

/** `word<TAB>docFreq` lines, e.g. exported from an index's fts5vocab table. */
function fromTsv(path: string): Source {
  const words: string[] = [];
  const docFreq: number[] = [];
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    const tab = line.indexOf('\t');
    if (tab <= 0) continue;
    words.push(fresh(line.slice(0, tab)));
    docFreq.push(Number(line.slice(tab + 1)));
  }
  return { label: path, words, docFreq };
}

// Kernel-like: a few thousand common words and their underscore compounds with Zipf-ish frequencies,
// drowned in hex constants and one-off identifiers that each occur in one or two documents.
function synthesised(): Source {
  const rand = random(7);
  const letters = 'abcdefghijklmnopqrstuvwxyz';
  const syllables: string[] = [];
  for (const c of 'bcdfghklmnprstvz') for (const v of 'aeiou') syllables.push(c + v);
  const word = (): string => {
    let s = '';
    const n = 1 + Math.floor(rand() * 4);
    for (let i = 0; i < n; i++) s += syllables[Math.floor(rand() * syllables.length)]!;
    return rand() < 0.3 ? s + letters[Math.floor(rand() * 26)]! : s;
  };
  const base: string[] = [];
  for (let i = 0; i < 5000; i++) base.push(word());
  const df = new Map<string, number>();
  const add = (w: string, f: number): void => {
    df.set(w, Math.max(df.get(w) ?? 0, f));
  };
  base.forEach((w, rank) => add(w, Math.max(2, Math.floor(60000 / (rank + 1)))));
  for (let i = 0; i < 250_000; i++) {
    const parts = 2 + Math.floor(rand() * 3);
    const picks: string[] = [];
    for (let p = 0; p < parts; p++) picks.push(base[Math.floor(Math.pow(rand(), 2) * base.length)]!);
    add(picks.join('_'), rand() < 0.5 ? 1 : 2 + Math.floor(Math.pow(rand(), 6) * 400));
  }
  for (let i = 0; i < 1_100_000; i++) {
    const r = rand();
    const w = r < 0.5 ? `0x${Math.floor(rand() * 2 ** 32).toString(16)}` : `${word()}${Math.floor(rand() * 1000)}_${word()}`;
    add(w, rand() < 0.9 ? 1 : 2);
  }
  return { label: 'synthesised kernel-like vocabulary', words: [...df.keys()].map(fresh), docFreq: [...df.values()] };
}

/** `word` with `edits` random insertions, deletions, substitutions or adjacent swaps. */
function typo(rand: () => number, word: string, edits: number): string {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz_';
  const chars = [...word];
  for (let e = 0; e < edits; e++) {
    const at = Math.floor(rand() * chars.length);
    const letter = alphabet[Math.floor(rand() * alphabet.length)]!;
    const kind = Math.floor(rand() * 4);
    if (kind === 0) chars.splice(at, 0, letter);
    else if (kind === 1 && chars.length > 3) chars.splice(at, 1);
    else if (kind === 3 && at + 1 < chars.length) [chars[at], chars[at + 1]] = [chars[at + 1]!, chars[at]!];
    else chars[at] = letter;
  }
  return chars.join('');
}

function memoryMb(): number {
  globalThis.gc?.();
  const m = process.memoryUsage();
  return (m.heapUsed + m.arrayBuffers) / 2 ** 20;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

function timeAll(v: Vocabulary, queries: string[]): { ms: number[]; results: (string | null)[] } {
  const ms: number[] = [];
  const results: (string | null)[] = [];
  for (const q of queries) {
    const t0 = performance.now();
    const c = v.correct(q);
    ms.push(performance.now() - t0);
    results.push(c ? c.to : null);
  }
  return { ms, results };
}

function summary(ms: number[]): string {
  const s = [...ms].sort((a, b) => a - b);
  const f = (x: number): string => x.toFixed(2);
  return `p50 ${f(percentile(s, 50))} ms, p95 ${f(percentile(s, 95))} ms, p99 ${f(percentile(s, 99))} ms, max ${f(s[s.length - 1]!)} ms`;
}

const root = args.find((a) => !a.startsWith('--')) ?? '/tmp/linux-6.1';
const t0 = performance.now();
const source = !existsSync(root) ? synthesised() : root.endsWith('.tsv') ? fromTsv(root) : fromSourceTree(root);
const { words, docFreq } = source;
const singles = docFreq.filter((f) => f === 1).length;
const letters = words.reduce((sum, w, i) => sum + (docFreq[i]! >= 2 ? w.length : 0), 0);
console.log(`vocabulary: ${source.label}, read in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
console.log(
  `  ${words.length} distinct words, ${singles} (${((100 * singles) / words.length).toFixed(0)}%) in one document; ` +
    `${words.length - singles} in two or more, ${(letters / (words.length - singles)).toFixed(1)} characters on average`,
);
if (!globalThis.gc) console.log('  (run with --expose-gc for a steadier memory figure)');

const before = memoryMb();
const cpuBefore = process.cpuUsage();
const tBuild = performance.now();
const vocabulary = new Vocabulary(words, docFreq);
const buildMs = performance.now() - tBuild;
const cpu = process.cpuUsage(cpuBefore);
const after = memoryMb();
// CPU time alongside wall time: on a shared machine the wall clock also counts other processes.
console.log(
  `build: ${buildMs.toFixed(0)} ms wall, ${((cpu.user + cpu.system) / 1000).toFixed(0)} ms CPU, ` +
    `+${(after - before).toFixed(0)} MB (heap + array buffers, beyond the input arrays)`,
);

// Queries are typos of words a person might search for: correction targets that start with a letter
// and hold three letters in a row (no `0x…` constants), each given between one edit and the whole
// budget for its length.
const known = new Set(words);
const rand = random(42);
const pool = words.filter((w, i) => docFreq[i]! >= 2 && w.length >= 3 && w.length <= 30 && /^[a-z][a-z_0-9]*$/.test(w) && /[a-z]{3}/.test(w));
const intended: string[] = [];
const queries: string[] = [];
while (queries.length < WARMUP + QUERIES) {
  const w = pool[Math.floor(rand() * pool.length)]!;
  const q = typo(rand, w, 1 + Math.floor(rand() * maxEditDistance(w.length)));
  if (known.has(q) || q.length < 3) continue;
  intended.push(w);
  queries.push(q);
}
timeAll(vocabulary, queries.slice(0, WARMUP));
const typos = timeAll(vocabulary, queries.slice(WARMUP));
let back = 0;
let other = 0;
typos.results.forEach((r, i) => {
  if (r === intended[WARMUP + i]) back++;
  else if (r !== null) other++;
});
console.log(`${QUERIES} typo'd words: ${summary(typos.ms)}`);
console.log(`  corrected to the word typo'd: ${back}, to another word: ${other}, not corrected: ${QUERIES - back - other}`);

// An unknown word with nothing near it: the budget never shrinks, so every bucket within it is scanned.
const misses: string[] = [];
while (misses.length < MISSES) {
  let q = '';
  const len = 5 + Math.floor(rand() * 14);
  for (let i = 0; i < len; i++) q += 'qxzjkvwy'[Math.floor(rand() * 8)]!;
  if (!known.has(q)) misses.push(q);
}
const far = timeAll(vocabulary, misses);
console.log(`${MISSES} words with no near match (${far.results.filter((r) => r === null).length} left uncorrected): ${summary(far.ms)}`);
