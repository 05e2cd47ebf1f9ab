// The trigram list keeps the ranking a trigram index over each chunk's title and distinct words
// gave, without storing that index: these tests hold it to FTS5's own bm25() over such an index.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { trigramList } from '../../src/core/search/lists.ts';
import { parseQuery } from '../../src/core/search/terms.ts';
import { chunkWords } from '../../src/core/store/words.ts';
import { storeWith, type FileSpec } from './helpers/store.ts';

const TITLE_WEIGHT = 5;

/** Every chunk's title and distinct words in an FTS5 trigram table, as the index kept them before. */
function trigramIndex(files: FileSpec, store: ReturnType<typeof storeWith>): void {
  store.db.exec("CREATE VIRTUAL TABLE old_trigram USING fts5 (title, words, content = '', tokenize = 'trigram')");
  const insert = store.db.prepare('INSERT INTO old_trigram (rowid, title, words) VALUES (?, ?, ?)');
  for (const path of Object.keys(files)) {
    for (const chunk of store.chunksOfFile(path)) insert.run(chunk.id, chunk.title, chunkWords(chunk.title, chunk.text).distinct);
  }
}

test('a substring is scored as one BM25 term, exactly as FTS5 scored it over a trigram index of the same words', () => {
  const stems = ['alloc', 'page', 'fault', 'lock', 'queue', 'irq'];
  const files: FileSpec = {};
  for (let f = 0; f < 40; f++) {
    files[`src/f${f}.c`] = Array.from({ length: 3 }, (_, c) => ({
      title: `f${f}.c > ${['k', 'v', 'spin_', ''][(f + c) % 4]}${stems[(f * 3 + c) % stems.length]}_${c}`,
      text:
        Array.from(
          { length: 4 + ((f * c) % 9) },
          (_, i) => `${['k', 'v', '', 'do_', 'x'][(f + i) % 5]}${stems[(f + c + i) % stems.length]}${['', 's', '_node', 'er'][(i * c + f) % 4]}`,
        ).join(' ') + ` word${f} aaaa${f % 7 === 0 ? ' hmgb1' : ''}`,
    }));
  }
  const store = storeWith(files);
  trigramIndex(files, store);
  const fts = store.db.prepare(
    'SELECT rowid AS id, bm25(old_trigram, ?, 1.0) AS bm25 FROM old_trigram WHERE old_trigram MATCH ? ORDER BY bm25, rowid LIMIT 50',
  );
  for (const query of ['alloc', 'kallo', 'page fault', 'lock_', 'spin_lock', 'irq queue fau', 'aaa', 'word1', 'f12', 'hmgb1 protein']) {
    const expected = fts.all(
      TITLE_WEIGHT,
      parseQuery(query)
        .words.map((w) => w.parts.concat(w.whole))
        .flat()
        .filter((s, i, all) => s.length >= 3 && all.indexOf(s) === i)
        .map((s) => `"${s}"`)
        .join(' OR '),
    ) as Array<{ id: number; bm25: number }>;
    const actual = trigramList(store, parseQuery(query), 50, TITLE_WEIGHT);
    assert.ok(expected.length > 0, query);
    assert.deepEqual(
      actual.map((row) => row.id),
      expected.map((row) => row.id),
      query,
    );
    actual.forEach((row, i) => assert.ok(Math.abs(row.bm25 - expected[i]!.bm25) < 1e-9, `${query}: ${row.bm25} against ${expected[i]!.bm25}`));
  }
  store.close();
});

test('a chunk holding the word itself outranks one holding only a rarer word built on it', () => {
  const files: FileSpec = {
    'a.md': [{ title: 'Assay', text: 'protein stability assay' }],
    'b.md': [{ title: 'Assay', text: 'glycoproteins stability assay' }],
  };
  for (let f = 0; f < 12; f++) files[`other${f}.md`] = [{ title: `Note ${f}`, text: `the protein in sample ${f} and some more words to read` }];
  const store = storeWith(files);
  const [first] = trigramList(store, parseQuery('protein'), 10, TITLE_WEIGHT);
  assert.equal(store.chunk(first!.id)?.path, 'a.md');
  store.close();
});

test('on an index too big to score whole, a substring held everywhere is ranked from a sample: a title holding it first, then the shortest chunks', () => {
  // 21,000 chunks hold one of 1,000 words ending in `galloc`: past the scoring budget, so the
  // trigram list scores a sample: the first chunks in id order that hold one of the substring's
  // 128 shortest words (pg0galloc to pg127galloc), wherever they are in the index. Its table keeps
  // no positions and FTS5 ranks every row of it 0, which would leave the sample in id order.
  const files: FileSpec = {};
  for (let f = 0; f < 700; f++) {
    files[`mm/f${String(f).padStart(3, '0')}.c`] = Array.from({ length: 30 }, (_, c) => {
      const word = `pg${(f * 30 + c) % 1000}galloc`;
      if (f === 400 && c === 7) return { title: word, text: `return ${word}(order);` };
      if (f === 434 && c === 3) return { title: 'short', text: `${word}();` };
      return { title: `block ${c}`, text: `static void *${word}(gfp_t gfp, unsigned int order, struct zone *zone) { return NULL; } /* ${f} */` };
    });
  }
  const store = storeWith(files);
  assert.ok(store.size > 20_000);
  const list = trigramList(store, parseQuery('galloc'), 10, TITLE_WEIGHT);
  const path = (id: number) => store.chunk(id)!.path;
  assert.equal(list.length, 10);
  assert.equal(path(list[0]!.id), 'mm/f400.c', 'the chunk whose title holds the substring, past the first 2,000 chunks that hold it');
  assert.equal(path(list[1]!.id), 'mm/f434.c', 'the shortest chunk holding it');
  assert.ok(list[0]!.bm25 < list[1]!.bm25 && list[1]!.bm25 < list[2]!.bm25, 'the list carries scores, best first');
  store.close();
});
