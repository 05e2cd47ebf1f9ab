import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import fs from 'node:fs';
import path from 'node:path';
import { Engine } from '../../src/core/engine.ts';
import { IndexStore } from '../../src/core/store/store.ts';
import type { SearchResponse } from '../../src/core/types.ts';
import { addFiles, storeWith, tempDir, type FileSpec } from './helpers/store.ts';

/** `count` distinct made-up words: enough of them makes the vocabulary big enough to be kept. */
function filler(count: number, from = 0): string[] {
  return Array.from({ length: count }, (_, i) => `zq${(from + i).toString(36)}v`);
}

/** Writes files `<prefix><from>.md`… holding the new word `zookeeper`, and indexes each through `engine`. */
async function writeNewWord(engine: Engine, root: string, prefix: string, from: number, count: number): Promise<void> {
  for (let f = from; f < from + count; f++) {
    fs.writeFileSync(path.join(root, `${prefix}${f}.md`), 'zookeeper ensemble leader\n');
    await engine.updateFile(`${prefix}${f}.md`);
  }
}

/**
 * From now on, how many times the engine begins reading its vocabulary from the words table (a
 * rebuild), and how many pages of it it reads.
 */
function countVocabularyReads(engine: Engine): { reads: () => number; pages: () => number } {
  let reads = 0;
  let pages = 0;
  const readPage = engine.store.vocabularyPage.bind(engine.store);
  engine.store.vocabularyPage = (after, limit) => {
    if (after === '') reads++;
    pages++;
    return readPage(after, limit);
  };
  return { reads: () => reads, pages: () => pages };
}

/** The word lengths whose stored vocabulary buckets the engine reads from now on. */
function countBucketReads(engine: Engine): number[] {
  const lengths: number[] = [];
  const readBucket = engine.store.vocabularyBucket.bind(engine.store);
  engine.store.vocabularyBucket = (builtAt, length) => {
    lengths.push(length);
    return readBucket(builtAt, length);
  };
  return lengths;
}

/** An index with over 100,000 distinct words in ten files, plus `smallFiles` files of two words. */
function bigIndex(smallFiles = 0, extra: FileSpec = {}): string {
  const dir = tempDir();
  const files: FileSpec = { ...extra };
  for (let f = 0; f < smallFiles; f++) files[`small/${f}.md`] = [{ text: 'small file' }];
  const words = filler(120_000);
  for (let f = 0; f < 10; f++) {
    files[`part${f}.txt`] = Array.from({ length: 20 }, (_, c) => ({ text: words.slice((f * 20 + c) * 600, (f * 20 + c + 1) * 600).join(' ') }));
  }
  files['k8s.md'] = [{ text: 'kubernetes pods' }, { text: 'a kubernetes cluster' }];
  const store = storeWith(files, path.join(dir, 'index.db'));
  store.setMeta('root', dir);
  store.close();
  return path.join(dir, 'index.db');
}

/**
 * An engine on `dbFile` that has built its vocabulary (a typo corrected), with the clock in the
 * test's hands from then on, and a count of the rebuilds after that.
 */
async function engineWithItsVocabulary(t: TestContext, dbFile: string): Promise<{ engine: Engine; root: string; reads: () => number; pages: () => number }> {
  const engine = await Engine.open({ dbFile });
  engine.searchIndexed('kuberntes');
  const counts = countVocabularyReads(engine);
  t.mock.timers.enable({ apis: ['Date'], now: Date.now() });
  return { engine, root: path.dirname(dbFile), ...counts };
}

test('the vocabulary of a big index is kept in it, so the next process corrects typos without rebuilding it', async () => {
  const dbFile = bigIndex();
  const first = await Engine.open({ dbFile });
  assert.deepEqual(first.searchIndexed('kuberntes').corrections, [['kuberntes', 'kubernetes']]);
  assert.ok(first.store.vocabularySnapshot(), 'the built vocabulary was stored');
  first.close();

  const second = await Engine.open({ dbFile });
  second.store.vocabulary = () => assert.fail('the words table was read again');
  assert.deepEqual(second.searchIndexed('kuberntes').corrections, [['kuberntes', 'kubernetes']]);
  second.close();
});

test('a process reads of the kept vocabulary only the word lengths its typo can reach, and knows a word in a single chunk', async () => {
  const dbFile = bigIndex();
  const first = await Engine.open({ dbFile });
  first.searchIndexed('kuberntes');
  first.close();

  const second = await Engine.open({ dbFile });
  const lengths = countBucketReads(second);
  assert.deepEqual(second.searchIndexed('kuberntes').corrections, [['kuberntes', 'kubernetes']]);
  assert.ok(lengths.includes(10) && lengths.every((length) => length >= 7 && length <= 11), `read lengths ${lengths.join(', ')}`);
  // A filler word is in one chunk: no correction target, but the index knows it.
  const single = second.searchIndexed('zq1av');
  assert.deepEqual(single.corrections, []);
  assert.equal(single.results[0]?.path, 'part0.txt');
  second.close();
});

test('a process whose kept vocabulary another one replaced corrects with the new one, and unreadable buckets are rebuilt', async (t) => {
  const dbFile = bigIndex();
  const root = path.dirname(dbFile);
  const keeper = await Engine.open({ dbFile });
  keeper.searchIndexed('kuberntes');
  const reader = await Engine.open({ dbFile });
  assert.deepEqual(reader.searchIndexed('aprt').corrections, [['aprt', 'part']], 'the reader has the stored header and a few lengths');
  t.mock.timers.enable({ apis: ['Date'], now: Date.now() });
  await writeNewWord(keeper, root, 'kept', 0, 60);
  t.mock.timers.tick(1_000);
  assert.equal(keeper.prepareVocabulary(), true, 'the keeper stored a newer vocabulary');
  await new Promise((resolve) => setTimeout(resolve, 0));
  // The reader's clock says its vocabulary was checked a moment ago; only the buckets it is missing tell.
  assert.deepEqual(reader.searchIndexed('zookeepr').corrections, [['zookeepr', 'zookeeper']]);
  keeper.close();
  reader.close();

  const broken = new Database(dbFile);
  broken.prepare('UPDATE vocabulary_buckets SET data = zeroblob(5)').run();
  broken.close();
  const next = await Engine.open({ dbFile });
  const { reads } = countVocabularyReads(next);
  assert.deepEqual(next.searchIndexed('kuberntes').corrections, [['kuberntes', 'kubernetes']]);
  assert.equal(reads(), 1, 'the unreadable snapshot was replaced by a fresh build');
  next.close();
});

test('an index made before the vocabulary was kept by word length gains the table and the catalog index at its next writable open', async () => {
  const dbFile = bigIndex();
  const old = new Database(dbFile);
  old.exec('DROP TABLE vocabulary_buckets; DROP INDEX files_by_indexed_at;');
  old.close();
  const additions = () => {
    const db = new Database(dbFile, { readonly: true });
    const names = db.prepare("SELECT name FROM sqlite_schema WHERE name IN ('vocabulary_buckets', 'files_by_indexed_at') ORDER BY name").pluck().all();
    db.close();
    return names;
  };

  const reader = new IndexStore(dbFile, { readonly: true });
  assert.equal(reader.vocabularyBucket(1, 7), undefined, 'a read-only connection does without the table');
  assert.equal(reader.filesChangedSince(0, 11), 11, 'and counts changed files by a scan');
  reader.close();
  assert.deepEqual(additions(), []);

  const engine = await Engine.open({ dbFile });
  assert.deepEqual(additions(), ['files_by_indexed_at', 'vocabulary_buckets']);
  assert.equal(engine.store.stats().files, 11, 'the files are all still there');
  assert.deepEqual(engine.searchIndexed('kuberntes').corrections, [['kuberntes', 'kubernetes']]);
  const kept = new Database(dbFile, { readonly: true });
  assert.ok((kept.prepare('SELECT count(*) FROM vocabulary_buckets').pluck().get() as number) > 0, 'the vocabulary was kept by length');
  kept.close();
  engine.close();
});

test('a kept vocabulary remembers the commonest words, and a host opening the index reads their postings and the vocabulary, and runs a few searches over and over, before anyone searches', async () => {
  // `struct` is the commonest word of six letters or more, and the index also holds `stuct`, as
  // the Linux tree does: a word the index holds is not corrected, so the warm-up must misspell
  // it another way for its typo to run the fuzzy retry.
  const structs: FileSpec = Object.fromEntries(Array.from({ length: 40 }, (_, f) => [`c/${f}.c`, [{ text: 'struct' }]]));
  const dbFile = bigIndex(30, { ...structs, 'typo.c': [{ text: 'stuct' }] });
  const first = await Engine.open({ dbFile });
  first.searchIndexed('kuberntes');
  first.close();

  const second = await Engine.open({ dbFile });
  // The 200 chunks of part*.txt hold `part` and `txt` in their titles (and the other files' chunks
  // `part` too), the 40 C files `struct`, the 30 small files `small` and `file`, and every other
  // word is in one or two chunks.
  assert.deepEqual(second.store.commonWordCounts().slice(0, 5), [
    ['part', 273],
    ['txt', 200],
    ['struct', 40],
    ['file', 30],
    ['small', 30],
  ]);
  const read: string[] = [];
  second.store.readPostings = (word) => void read.push(word);
  const searched: SearchResponse[] = [];
  const searchIndexed = second.searchIndexed.bind(second);
  second.searchIndexed = (query, options) => {
    const response = searchIndexed(query, options);
    searched.push(response);
    return response;
  };
  for (const step of second.warmUpSteps()) step();
  assert.deepEqual(
    read,
    second.store.commonWordCounts().map(([word]) => word),
  );
  assert.equal(read.length, 24);
  // A word, a question and a misspelling, which the fuzzy retry corrected, each asked several
  // times over: once leaves the code they run unoptimised.
  const rounds = searched.length / 3;
  assert.ok(Number.isInteger(rounds) && rounds > 1, `${searched.length} warm-up searches`);
  assert.ok(searched.every((response) => response.results.length > 0));
  assert.equal(searched.filter((response) => response.corrections.length > 0).length, rounds);

  // The vocabulary was read whole: a first typo of any length reads none of it.
  const lengths = countBucketReads(second);
  assert.deepEqual(second.searchIndexed('smalll').corrections, [['smalll', 'small']]);
  assert.deepEqual(lengths, []);
  second.close();
});

test('a kept vocabulary is rebuilt once enough files changed after it, so new words become corrections', async () => {
  const dbFile = bigIndex();
  const first = await Engine.open({ dbFile });
  first.searchIndexed('kuberntes');
  const changed: FileSpec = {};
  for (let f = 0; f < 60; f++) changed[`new/file${f}.md`] = [{ text: `zookeeper ensemble ${filler(5, 200_000 + f * 5).join(' ')}` }];
  addFiles(first.store, changed);
  first.close();

  const second = await Engine.open({ dbFile });
  const { reads } = countVocabularyReads(second);
  assert.deepEqual(second.searchIndexed('zookeepr').corrections, [['zookeepr', 'zookeeper']]);
  assert.equal(reads(), 1, 'the stale snapshot was replaced by a fresh build');
  second.close();
});

test('a long-running engine keeps a big vocabulary through a few edits, and rebuilds it after many', async (t) => {
  const { engine, root, reads } = await engineWithItsVocabulary(t, bigIndex());
  await writeNewWord(engine, root, 'edit', 0, 5);
  t.mock.timers.tick(60_000);
  engine.searchIndexed('zookeepr');
  assert.equal(reads(), 0, 'five edits did not cost a rebuild');
  await writeNewWord(engine, root, 'edit', 5, 60);
  t.mock.timers.tick(60_000);
  assert.deepEqual(engine.searchIndexed('zookeepr').corrections, [['zookeepr', 'zookeeper']]);
  assert.equal(reads(), 1, 'sixty-five edits did');
  engine.close();
});

test('a search during a branch switch corrects against the vocabulary it has and leaves the rebuild to idle time, unless a quarter of the index changed', async (t) => {
  const { engine, root, reads } = await engineWithItsVocabulary(t, bigIndex(400));
  // 60 of 411 files: past the drift that retires a vocabulary (50 files, 1%), short of a quarter.
  await writeNewWord(engine, root, 'switch', 0, 60);
  t.mock.timers.tick(60_000);
  assert.deepEqual(engine.searchIndexed('kuberntes').corrections, [['kuberntes', 'kubernetes']]);
  assert.equal(reads(), 0, 'the search did not wait for a rebuild');
  assert.equal(engine.prepareVocabulary(), true, 'the idle work rebuilds it');
  assert.equal(reads(), 1);
  assert.deepEqual(engine.searchIndexed('zookeepr').corrections, [['zookeepr', 'zookeeper']], 'and the new word is a correction from then on');
  assert.equal(engine.prepareVocabulary(), false, 'once');

  t.mock.timers.tick(1_000);
  await writeNewWord(engine, root, 'switch', 60, 130);
  t.mock.timers.tick(60_000);
  engine.searchIndexed('kuberntes');
  assert.equal(reads(), 2, 'past a quarter of the index the search rebuilds it first');
  engine.close();
});

test("a big vocabulary is read a page at a time, and a search between the idle work's steps answers at once", async (t) => {
  const { engine, root, reads, pages } = await engineWithItsVocabulary(t, bigIndex(400));
  await writeNewWord(engine, root, 'switch', 0, 60);
  t.mock.timers.tick(60_000);
  assert.equal(engine.prepareVocabularyStep(), 'reading', 'sixty files changed: the idle work begins reading the words');
  assert.equal(reads(), 1);
  const pagesBefore = pages();
  assert.equal(engine.searchIndexed('kubernetes').results.length, 2, 'a search in between answers');
  assert.equal(pages(), pagesBefore, 'and reads no page of the vocabulary');
  let steps = 1;
  while (engine.prepareVocabularyStep() === 'reading') steps++;
  assert.ok(steps >= 12, `120,000 words take a dozen pages or more (${steps} steps)`);
  assert.equal(reads(), 1, 'one reading, carried on where it stopped');
  assert.deepEqual(engine.searchIndexed('zookeepr').corrections, [['zookeepr', 'zookeeper']], 'the new word is a correction once it is built');
  assert.equal(engine.prepareVocabularyStep(), 'current');
  engine.close();
});

test('a typo during the idle reading of a vocabulary finishes that reading instead of starting another', async (t) => {
  const { engine, root, reads } = await engineWithItsVocabulary(t, bigIndex(100));
  // 60 of 111 files: past the drift that has the idle work rebuild, and a search too (a quarter).
  await writeNewWord(engine, root, 'switch', 0, 60);
  t.mock.timers.tick(60_000);
  assert.equal(engine.prepareVocabularyStep(), 'reading');
  assert.equal(engine.prepareVocabularyStep(), 'reading');
  assert.deepEqual(engine.searchIndexed('zookeepr').corrections, [['zookeepr', 'zookeeper']]);
  assert.equal(reads(), 1, 'the search read the rest of the pages the idle work had begun');
  assert.equal(engine.prepareVocabularyStep(), 'current', 'nothing is left for the idle work');
  engine.close();
});

test('a process reading an index another one keeps picks up the new words once enough files changed', async (t) => {
  const dbFile = bigIndex();
  const root = path.dirname(dbFile);
  const keeper = await Engine.open({ dbFile });
  const reader = await Engine.open({ dbFile });
  reader.searchIndexed('kuberntes');
  t.mock.timers.enable({ apis: ['Date'], now: Date.now() });
  await writeNewWord(keeper, root, 'kept', 0, 60);
  t.mock.timers.tick(60_000);
  assert.deepEqual(reader.searchIndexed('zookeepr').corrections, [['zookeepr', 'zookeeper']]);
  keeper.close();
  reader.close();
});

test('a small index keeps no vocabulary: building one costs milliseconds', async () => {
  const dir = tempDir();
  const store = storeWith({ 'k8s.md': [{ text: 'kubernetes pods' }, { text: 'kubernetes cluster' }] }, path.join(dir, 'index.db'));
  store.setMeta('root', dir);
  store.close();
  const engine = await Engine.open({ dbFile: path.join(dir, 'index.db') });
  assert.deepEqual(engine.searchIndexed('kuberntes').corrections, [['kuberntes', 'kubernetes']]);
  assert.equal(engine.store.vocabularySnapshot(), undefined);
  engine.close();
});
