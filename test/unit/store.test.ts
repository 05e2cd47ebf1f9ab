import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { Engine } from '../../src/core/engine.ts';
import { IndexStore } from '../../src/core/store/store.ts';
import { SCHEMA_VERSION } from '../../src/core/store/database.ts';
import { addFiles, porterPostings, storeWith, tempDir } from './helpers/store.ts';

function integrityOk(store: IndexStore): void {
  assert.equal(store.db.pragma('integrity_check', { simple: true }), 'ok');
  const ids = (table: string) => store.db.prepare(`SELECT id FROM ${table} ORDER BY id`).pluck().all();
  assert.deepEqual(ids('chunk_lengths'), ids('chunks'), 'every chunk has its length, and no other does');
  for (const table of ['fts_porter', 'fts_chunk_words', 'word_trigrams', 'fts_words']) {
    store.db.prepare(`INSERT INTO ${table} (${table}) VALUES ('integrity-check')`).run();
  }
}

test('re-indexing one file replaces only that file’s chunks and keeps every FTS index consistent', () => {
  const store = storeWith({
    'a.ts': [{ text: 'function alpha() { return kiwiFruit; }' }, { text: 'const beta = 2;' }],
    'b.ts': [{ text: 'function gamma() { return mangoFruit; }' }],
  });
  const before = store.chunksOfFile('b.ts');
  store.replaceFile({ path: 'a.ts', size: 2, mtimeMs: 2, hash: 'new', language: 'typescript' }, [
    { title: 'alpha', kind: 'code', startLine: 1, endLine: 3, text: 'function alpha() { return papayaFruit; }' },
  ]);
  assert.deepEqual(store.chunksOfFile('b.ts'), before, 'b.ts is untouched');
  assert.equal(store.chunksOfFile('a.ts').length, 1);
  assert.equal(store.match('porter', '"kiwifruit"', 10, 1).length, 0, 'old text is gone from the Porter index');
  assert.equal(store.match('trigram', '"kiwifruit"', 10, 1).length, 0, 'old words are gone from the trigram list');
  assert.equal(store.match('trigram', '"papayafruit"', 10, 1).length, 1);
  assert.deepEqual(store.wordsContaining('papaya', 10), ['papayafruit'], 'the new word is found by its substrings');
  assert.equal(store.hasWord('kiwifruit'), false, 'old words leave the vocabulary');
  assert.equal(store.hasWord('papayafruit'), true);
  integrityOk(store);
  store.close();
});

test("a code chunk is indexed under its file's name, and replacing the file leaves nothing of the old chunks under it", () => {
  const store = storeWith({
    'src/retry-policy.ts': [
      { title: 'retry-policy.ts (top level)', text: 'import { clock } from "./clock";' },
      { title: 'RetryPolicy > delay', text: 'delay(attempt) { return 2 ** attempt * 100; }' },
    ],
    'docs/retry-policy.md': [{ title: 'Backoff', kind: 'prose', text: 'Delays double after each attempt.' }],
  });
  // `retry-policy.ts` holds the tokens `retry`, `policy` and `ts`: the phrase is in both chunks' titles, in no text.
  assert.equal(store.countMatches('porter', '"retry policy ts"', 10), 2, 'both chunks of the code file');
  assert.equal(store.countMatches('porter', '"retry policy md"', 10), 0, 'a prose chunk keeps its own title');
  store.replaceFile({ path: 'src/retry-policy.ts', size: 2, mtimeMs: 2, hash: 'new', language: 'typescript' }, [
    { title: 'RetryPolicy', kind: 'code', startLine: 1, endLine: 9, text: 'class RetryPolicy { delay(attempt) { return 50; } }' },
  ]);
  assert.equal(store.countMatches('porter', '"retry policy ts"', 10), 1, 'the old chunks were deleted under the title they were indexed under');
  integrityOk(store);
  store.close();
});

test('replacing several files at once stores what replacing them one by one stores', () => {
  const record = (relPath: string, hash: string) => ({ path: relPath, size: 1, mtimeMs: 1, hash, language: 'typescript' });
  const chunk = (text: string) => ({ title: text.split(' ')[0]!, kind: 'code' as const, startLine: 1, endLine: 1, text });
  const first = [
    { record: record('a.ts', '1'), chunks: [chunk('alpha kiwiFruit'), chunk('beta lemonTree')] },
    { record: record('b.ts', '1'), chunks: [chunk('gamma mangoFruit')] },
  ];
  const second = [
    { record: record('a.ts', '2'), chunks: [chunk('alpha papayaFruit')] },
    { record: record('c.ts', '1'), chunks: [chunk('delta plumTree'), chunk('epsilon kiwiFruit')] },
  ];
  const together = storeWith({});
  together.replaceFiles(first);
  together.replaceFiles(second);
  const oneByOne = storeWith({});
  for (const { record: r, chunks } of [...first, ...second]) oneByOne.replaceFile(r, chunks);
  const rows = (store: IndexStore) =>
    store.db.prepare('SELECT c.id, f.path, c.ord, c.title, c.text FROM chunks c JOIN files f ON f.id = c.file_id ORDER BY c.id').all();
  assert.deepEqual(rows(together), rows(oneByOne));
  assert.deepEqual(porterPostings(together.db), porterPostings(oneByOne.db));
  assert.equal(together.match('porter', '"fruit"', 10, 1).length, 3, "the Porter index holds each chunk's humps, and no replaced one's");
  assert.deepEqual(together.vocabulary(), oneByOne.vocabulary());
  // The vocabulary knows the humps of the chunks the index holds (the fuzzy retry never "corrects"
  // them), and forgets those of a replaced chunk: each is deleted with the list it was written with.
  const { words, docFreq } = together.vocabulary();
  const chunksHolding = (word: string) => docFreq[words.indexOf(word)] ?? 0;
  assert.deepEqual(['papaya', 'plum', 'kiwi', 'fruit', 'lemon'].map(chunksHolding), [1, 1, 1, 3, 0]);
  for (const word of ['"kiwifruit"', '"lemontree"', '"papayafruit"', '"plumtree"']) {
    assert.deepEqual(together.match('trigram', word, 10, 1), oneByOne.match('trigram', word, 10, 1), word);
  }
  assert.equal(together.size, 4);
  integrityOk(together);
  together.close();
  oneByOne.close();
});

test('removing a file removes its chunks from every index and the catalog', () => {
  const store = storeWith({ 'a.ts': [{ text: 'unique zebra words' }], 'b.ts': [{ text: 'other words' }] });
  assert.equal(store.removeFile('a.ts'), true);
  assert.equal(store.file('a.ts'), undefined);
  assert.equal(store.match('porter', '"zebra"', 10, 1).length, 0);
  assert.equal(store.size, 1);
  assert.equal(store.removeFile('a.ts'), false, 'removing twice is harmless');
  integrityOk(store);
  store.close();
});

test('chunks read together are the chunks read one by one, and an id no chunk has is left out', () => {
  const store = storeWith({
    'a.ts': [{ text: 'function alpha() {}' }, { text: 'const beta = 2;' }],
    'b.md': [{ title: 'Gamma', kind: 'prose', text: 'Gamma is a letter.' }],
  });
  const ids = (store.db.prepare('SELECT id FROM chunks ORDER BY id').pluck().all() as number[]).reverse();
  const missing = Math.max(...ids) + 1;
  const together = store.chunks([...ids, missing]);
  assert.deepEqual(
    [...together.keys()].sort((a, b) => a - b),
    [...ids].reverse(),
  );
  for (const id of ids) assert.deepEqual(together.get(id), store.chunk(id));
  assert.equal(together.get(missing), undefined);
  assert.equal(store.chunks([]).size, 0);
  store.close();
});

test('a sample ranked by fewer of its words holds exactly the sample’s chunks, scored as those words score them', () => {
  const files: Record<string, Array<{ text: string }>> = {};
  for (let i = 0; i < 60; i++) files[`f${i}.md`] = [{ text: `common ${i % 2 === 0 ? 'rare '.repeat((i % 7) + 1) : ''}${'pad '.repeat(i)}` }];
  const store = storeWith(files);
  const sample = store.db
    .prepare(`SELECT rowid FROM fts_porter WHERE fts_porter MATCH '"common" AND "rare"' ORDER BY rowid LIMIT 10`)
    .pluck()
    .all() as number[];
  const byRare = new Map(store.match('porter', '"rare"', 1000, 1).map((row) => [row.id, row.bm25]));
  const ranked = store.matchSampleRankedBy('porter', '"common" AND "rare"', '"rare"', 100, 1, 10);
  assert.deepEqual(
    ranked.map((row) => row.id).sort((a, b) => a - b),
    sample,
    'the first ten chunks holding both words, no other',
  );
  for (const row of ranked) assert.equal(row.bm25, byRare.get(row.id));
  assert.deepEqual(
    ranked.map((row) => row.bm25),
    ranked.map((row) => row.bm25).sort((a, b) => a - b),
    'best first',
  );
  assert.deepEqual(store.matchSampleRankedBy('porter', '"common" AND "rare"', '"rare"', 3, 1, 10), ranked.slice(0, 3));
  assert.deepEqual(store.matchSampleRankedBy('porter', '"common" AND "absent"', '"absent"', 100, 1, 10), []);
  store.close();
});

test('chunk text is stored once, in chunks: the full-text tables keep no copy, and the humps are not stored', () => {
  const store = storeWith({});
  const tables = store.db.prepare("SELECT name FROM sqlite_schema WHERE type = 'table'").pluck().all() as string[];
  assert.ok(!tables.includes('fts_porter_content'), 'Porter is contentless');
  assert.ok(!tables.includes('fts_chunk_words_content'), "the chunks' word lists are contentless");
  assert.ok(!tables.includes('word_trigrams_content'), 'word trigrams read the words from seen_words');
  assert.ok(!tables.includes('fts_words_content'), 'the vocabulary table is contentless');
  const columns = store.db.prepare("SELECT name FROM pragma_table_info('chunks')").pluck().all();
  assert.deepEqual(columns, ['id', 'file_id', 'ord', 'title', 'kind', 'start_line', 'end_line', 'text']);
  store.close();
});

test('a file that is not a database is moved aside and rebuilt, and the store says so', () => {
  const dir = tempDir();
  const file = path.join(dir, 'index.db');
  fs.writeFileSync(file, 'this is not a database '.repeat(200));
  const store = new IndexStore(file);
  assert.match(store.rebuiltBecause ?? '', /moved to .*broken.*rebuilt/);
  assert.equal(store.stats().files, 0);
  assert.ok(
    fs.readdirSync(dir).some((name) => name.includes('.broken-')),
    'the broken file is kept aside, not deleted',
  );
  store.close();
});

test('a database from another schema version is moved aside and rebuilt', () => {
  const dir = tempDir();
  const file = path.join(dir, 'index.db');
  const foreign = new Database(file);
  foreign.exec('CREATE TABLE something (x)');
  foreign.pragma(`user_version = ${SCHEMA_VERSION + 1}`);
  foreign.close();
  const store = new IndexStore(file);
  assert.match(store.rebuiltBecause ?? '', /schema version is \d+/);
  store.replaceFile({ path: 'x.md', size: 1, mtimeMs: 1, hash: 'h', language: 'markdown' }, [
    { title: 'x', kind: 'prose', startLine: 1, endLine: 1, text: 'fresh index works' },
  ]);
  assert.equal(store.match('porter', '"fresh"', 5, 1).length, 1);
  store.close();
});

test('a truncated database file is moved aside and rebuilt', () => {
  const dir = tempDir();
  const file = path.join(dir, 'index.db');
  const good = storeWith({ 'a.ts': [{ text: 'some text '.repeat(2000) }] }, file);
  good.close();
  const bytes = fs.readFileSync(file);
  fs.writeFileSync(file, bytes.subarray(0, Math.floor(bytes.length / 3)));
  fs.rmSync(`${file}-wal`, { force: true });
  const store = new IndexStore(file);
  assert.ok(store.rebuiltBecause, 'the damage was noticed');
  integrityOk(store);
  store.close();
});

test('an existing index opens again with its content', () => {
  const file = path.join(tempDir(), 'index.db');
  storeWith({ 'a.ts': [{ text: 'persistent walrus' }] }, file).close();
  const store = new IndexStore(file);
  assert.equal(store.rebuiltBecause, undefined);
  assert.equal(store.match('porter', '"walrus"', 5, 1).length, 1);
  store.close();
});

test('an index file holds no unused pages after a full index or after many files are deleted', async () => {
  const root = tempDir();
  for (let f = 0; f < 300; f++) {
    fs.writeFileSync(
      path.join(root, `file${f}.md`),
      `# File ${f}\n\n${Array.from({ length: 240 }, (_, i) => `word${f}x${i} common text line ${i}`).join('\n')}\n`,
    );
  }
  const engine = await Engine.open({ root, dbFile: path.join(tempDir(), 'index.db') });
  const unused = () => engine.store.db.pragma('freelist_count', { simple: true });
  await engine.sync();
  assert.equal(unused(), 0);
  const before = engine.store.stats().diskBytes;
  for (let f = 0; f < 200; f++) fs.rmSync(path.join(root, `file${f}.md`));
  await engine.sync();
  assert.equal(unused(), 0);
  // What a host does next while idle: forget the words no chunk holds, merge the segments.
  while (engine.forgetUnusedWords() || engine.mergeSegments());
  assert.equal(unused(), 0);
  const after = engine.store.stats().diskBytes;
  assert.ok(after < before * 0.8, `the deleted files' pages went back to the disk (${before} → ${after} bytes)`);
  integrityOk(engine.store);
  engine.close();
});

/** How many segments each FTS5 table of the store holds, in the order a merge pass takes them. */
function segmentsOf(store: IndexStore): number[] {
  return Object.values(store.segmentCounts());
}

test('a merge pass leaves every FTS5 table in one segment and the file without free pages, answers as before, and keeps a save made during it', () => {
  // One file per transaction: each writes a segment to every table, as saves do.
  const text = (f: number) => `function handler${f}() { return allocPage(${f}) + spinLock${f % 7} + faultCount; }`;
  const files = Object.fromEntries(Array.from({ length: 60 }, (_, f) => [`f${f}.ts`, [{ text: text(f) }]]));
  const store = storeWith(files);
  const answers = () => ({
    porter: store.match('porter', '"alloc" OR "fault" OR "spinlock3"', 100, 2),
    words: store.wordsContaining('lock', 100),
    frequencies: store.wordFrequencies(new Map(store.wordsContaining('alloc', 100).map((word) => [word, 1])), 2).sort((a, b) => a[0] - b[0]),
    vocabulary: store.vocabulary(),
  });
  assert.ok(
    segmentsOf(store).every((count) => count > 1),
    `the writes left several segments per table (${segmentsOf(store).join(', ')})`,
  );
  const before = answers();
  assert.equal(store.merging, false, 'nothing to merge before a pass begins');
  store.beginMerge();
  assert.equal(store.merging, true);
  let steps = 0;
  while (store.mergeSegments()) {
    if (steps++ === 0)
      store.replaceFile({ path: 'saved.ts', size: 1, mtimeMs: 1, hash: 'saved', language: 'typescript' }, [
        { title: 'saved', kind: 'code', startLine: 1, endLine: 1, text: 'const quokkaBell = allocPage(0);' },
      ]);
    assert.ok(steps < 1_000, 'the pass ends');
  }
  assert.equal(store.merging, false);
  assert.equal(store.db.pragma('freelist_count', { simple: true }), 0, 'the pages the merge freed went back to the disk');
  assert.ok(
    segmentsOf(store).every((count) => count <= 2),
    `one segment per table, and the save's at most (${segmentsOf(store).join(', ')})`,
  );
  store.removeFile('saved.ts');
  assert.deepEqual(answers(), before, 'every list answers as it did');
  store.beginMerge();
  while (store.mergeSegments());
  assert.deepEqual(segmentsOf(store), [1, 1, 1, 1]);
  assert.deepEqual(answers(), before);
  integrityOk(store);
  store.close();
});

/** A save of one small file: its own transaction, so a segment in every table. */
function save(store: IndexStore, f: number): void {
  addFiles(store, { [`saved${f}.ts`]: [{ text: `const savedValue${f} = compute(${f});` }] });
}

test('a small index that saves left in many segments begins a merge pass; one with a few does not', () => {
  const store = storeWith({ 'a.ts': [{ text: 'const first = compute(0);' }] });
  store.beginMerge();
  while (store.mergeSegments());
  assert.deepEqual(segmentsOf(store), [1, 1, 1, 1]);
  for (let f = 0; f < 3; f++) save(store, f);
  assert.ok(Math.max(...segmentsOf(store)) <= 4, `three saves: ${segmentsOf(store).join(', ')} segments`);
  assert.equal(store.beginMergeIfFragmented(), false, 'a few segments cost less than merging them');
  assert.equal(store.merging, false);
  for (let f = 3; f < 7; f++) save(store, f);
  assert.ok(Math.max(...segmentsOf(store)) > 4, `seven saves: ${segmentsOf(store).join(', ')} segments`);
  assert.equal(store.beginMergeIfFragmented(), true);
  while (store.mergeSegments());
  assert.deepEqual(segmentsOf(store), [1, 1, 1, 1]);
  assert.equal(store.match('porter', '"savedvalue6"', 10, 2).length, 1, 'the last save is searchable after the merge');
  integrityOk(store);
  store.close();
});

test('a merge pass that a process left unfinished is taken up by the next process to open the index', () => {
  const store = storeWith({});
  for (let f = 0; f < 20; f++) save(store, f);
  assert.ok(segmentsOf(store).every((count) => count > 1));
  store.beginMerge();
  assert.equal(store.mergeSegments(), true, 'one step, with tables left');
  store.close();
  const reopened = new IndexStore(store.dbFile);
  assert.equal(reopened.merging, true, 'the pass is still due');
  while (reopened.mergeSegments());
  assert.deepEqual(segmentsOf(reopened), [1, 1, 1, 1]);
  reopened.close();
  const again = new IndexStore(store.dbFile);
  assert.equal(again.merging, false, 'a finished pass is not taken up again');
  again.close();
});

test('unused words are forgotten in steps a search can come between, and a word written between two steps is kept', () => {
  // 12,000 words, so the pass takes several steps of its 5,000.
  const words = Array.from({ length: 12_000 }, (_, i) => `w${i.toString(36).padStart(4, '0')}x`);
  const store = storeWith({});
  for (let f = 0; f < 40; f++) {
    const text = words.slice(f * 300, (f + 1) * 300).join(' ');
    store.replaceFile({ path: `f${f}.txt`, size: 1, mtimeMs: 1, hash: text, language: 'text' }, [
      { title: `f${f}`, kind: 'prose', startLine: 1, endLine: 1, text },
    ]);
  }
  for (let f = 0; f < 40; f += 2) store.removeFile(`f${f}.txt`);
  store.tidyAfterSync();
  let steps = 0;
  for (let more = true; more;) {
    more = store.forgetUnusedWords();
    steps++;
    // A save between two steps: its new words, some sorting before and some after the pass's place, stay.
    if (steps === 1)
      store.replaceFile({ path: 'late.txt', size: 1, mtimeMs: 1, hash: 'late', language: 'text' }, [
        { title: 'late', kind: 'prose', startLine: 1, endLine: 1, text: 'aaalate zzzlate' },
      ]);
  }
  assert.ok(steps >= 2, `${steps} steps`);
  assert.equal(store.forgetting, false);
  const remembered = new Set(store.db.prepare('SELECT word FROM seen_words').pluck().all() as string[]);
  const held = new Set(['aaalate', 'zzzlate', 'late']);
  for (let f = 1; f < 40; f += 2) {
    if (f >= 10) held.add(`f${f}`); // a title is a word too, from three characters on
    for (const word of words.slice(f * 300, (f + 1) * 300)) held.add(word);
  }
  assert.deepEqual(
    [...remembered].filter((w) => !held.has(w)),
    [],
    'every word no chunk holds is forgotten',
  );
  assert.deepEqual(
    [...held].filter((w) => !remembered.has(w)),
    [],
    'and every word a chunk holds is remembered',
  );
  assert.deepEqual(store.wordsContaining('zzzlat', 10), ['zzzlate']);
  integrityOk(store);
  store.close();
});

test('a substring finds exactly the chunks whose words hold it, after files are replaced and removed, and words no chunk holds are forgotten', () => {
  // Words built from a few stems, so substrings are shared by many words and many chunks.
  const stems = ['alloc', 'page', 'fault', 'lock', 'irq'];
  const word = (i: number) => `${['k', 'v', '', 'spin_', 'x'][i % 5]}${stems[i % stems.length]}${['', 's', '_node', 'er', 'ed'][(i * 7) % 5]}`;
  const fileText = (f: number, round: number) => Array.from({ length: 6 }, (_, i) => word(f * 3 + i * (round + 1))).join(' ');
  const store = storeWith({});
  const files = new Map<string, string>();
  const write = (f: number, round: number) => {
    const text = fileText(f, round);
    files.set(`f${f}.ts`, text);
    store.replaceFile({ path: `f${f}.ts`, size: 1, mtimeMs: round, hash: text, language: 'typescript' }, [
      { title: `f${f}`, kind: 'code', startLine: 1, endLine: 1, text },
    ]);
  };
  for (let f = 0; f < 60; f++) write(f, 0);
  for (let f = 0; f < 60; f += 3) write(f, 1);
  for (let f = 1; f < 60; f += 4) {
    store.removeFile(`f${f}.ts`);
    files.delete(`f${f}.ts`);
  }
  const expected = (substring: string) =>
    [...files]
      .filter(([, text]) => text.split(' ').some((w) => w.includes(substring)))
      .map(([p]) => p)
      .sort();
  const found = (substring: string) => {
    const words = store.wordsContaining(substring, 1_000);
    if (words.length === 0) return [];
    const rows = store.match('trigram', words.map((w) => `"${w}"`).join(' OR '), 1_000, 1);
    return rows.map((row) => store.chunk(row.id)!.path).sort();
  };
  for (const substring of ['all', 'alloc', 'kalloc', 'page_no', 'spin_lo', 'irqer', 'fau', 'ult_', 'pages']) {
    assert.deepEqual(found(substring), expected(substring), substring);
  }

  // Removing most files leaves words no chunk holds; the next release of space forgets them.
  for (const path of [...files.keys()].slice(3)) {
    store.removeFile(path);
    files.delete(path);
  }
  store.tidyAfterSync();
  assert.equal(store.forgetting, true, 'the sync deleted enough chunks to begin forgetting');
  while (store.forgetUnusedWords());
  const held = new Set([...files.values()].flatMap((text) => text.split(' ')).concat([...files.keys()].map((p) => p.slice(0, -3))));
  const remembered = store.db.prepare('SELECT word FROM seen_words').pluck().all() as string[];
  assert.deepEqual(
    remembered.filter((w) => !held.has(w)),
    [],
    'only words a chunk holds are remembered',
  );
  for (const substring of ['alloc', 'page', 'lock']) assert.deepEqual(found(substring), expected(substring), substring);
  integrityOk(store);
  store.close();
});

test('the chunk count a new connection starts from is stored, and stays exact through writes from two connections', () => {
  const store = storeWith({ 'a.ts': [{ text: 'alpha one' }, { text: 'alpha two' }], 'b.ts': [{ text: 'beta' }] });
  const other = new IndexStore(store.dbFile, { existing: true });
  other.replaceFile({ path: 'c.ts', size: 1, mtimeMs: 1, hash: 'c', language: 'typescript' }, [
    { title: 'c', kind: 'code', startLine: 1, endLine: 1, text: 'gamma one' },
    { title: 'c', kind: 'code', startLine: 2, endLine: 2, text: 'gamma two' },
  ]);
  store.removeFile('a.ts');
  store.replaceFile({ path: 'b.ts', size: 1, mtimeMs: 2, hash: 'b2', language: 'typescript' }, [
    { title: 'b', kind: 'code', startLine: 1, endLine: 1, text: 'beta one' },
    { title: 'b', kind: 'code', startLine: 2, endLine: 2, text: 'beta two' },
    { title: 'b', kind: 'code', startLine: 3, endLine: 3, text: 'beta three' },
  ]);
  other.close();
  const counted = store.db.prepare('SELECT count(*) FROM chunks').pluck().get();
  assert.equal(counted, 5);
  assert.equal(store.size, 5, "the writing connection's count includes the other's write");
  assert.equal(store.meta('chunkCount'), '5');
  store.close();
  const reopened = new IndexStore(store.dbFile);
  assert.equal(reopened.size, 5);
  reopened.close();
});

test('a word the last vocabulary build found in at least as many chunks as a count asks for is not counted again', () => {
  const store = storeWith({ 'a.md': Array.from({ length: 30 }, (_, i) => ({ text: `common word ${i}` })) }, path.join(tempDir(), 'index.db'));
  assert.equal(store.countMatches('porter', '"common"', 4001), 30);
  // What the build stores is a floor: a chunk holding the word holds its stem, so the Porter count is at least that.
  store.saveCommonWordCounts([['common', 5000]]);
  assert.equal(store.countMatches('porter', '"common"', 4001), 4001, 'taken from the build');
  assert.equal(store.countMatches('porter', '"common"', 20000), 30, 'a cap above the figure is counted');
  assert.equal(store.countMatches('porter', '"common" AND "word"', 4001), 30, 'so is an expression');
  assert.equal(store.countMatches('trigram', '"common"', 4001), 30, 'and another table');
  store.close();
});

test('the vocabulary read a page at a time, after each page its last word, is the vocabulary read whole', () => {
  const words = ['zebra', 'Zürich', 'élan', 'eclair', 'naïve', 'x_1', 'x1', 'a𝔸b', '中文', 'ﬁle', 'kiwiFruit', '42', 'über', 'ue'];
  const store = storeWith(Object.fromEntries(words.map((word, i) => [`f${i}.md`, [{ text: `${word} ${words[(i + 3) % words.length]} common` }]])));
  const whole = store.vocabulary();
  for (const size of [1, 2, 3, 7, 100]) {
    const paged: Array<[string, number]> = [];
    for (let page = store.vocabularyPage('', size); page.length > 0; page = store.vocabularyPage(page.at(-1)![0], size)) paged.push(...page);
    assert.deepEqual(
      paged.map(([word]) => word),
      whole.words,
      `pages of ${size}`,
    );
    assert.deepEqual(
      paged.map(([, chunks]) => chunks),
      whole.docFreq,
    );
  }
  store.close();
});
