// `node bench/hostile-queries.ts [--db FILE --root DIR] [--rounds 5]`: every hostile query the
// fault suite knows, through Engine.search (the path every host uses), on a large index — by
// default the Linux 6.1 index that bench/query-speed.ts builds into .cache/bench/. Each must
// answer (a list, possibly empty; never an exception) within 100 ms, the slowest round counting.

import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { Engine } from '../src/core/engine.ts';
import { linuxTree } from './lib/linux-tree.ts';

const LIMIT_MS = 100;

function words(count: number): string {
  const pool = [
    'kmalloc',
    'spin_lock',
    'the',
    'struct',
    'device',
    'page',
    'irq',
    'mutex',
    'buffer',
    'driver',
    'memory',
    'free',
    'init',
    'list',
    'entry',
    'xyzzy',
    'schedular',
    'of',
    'to',
  ];
  return Array.from({ length: count }, (_, i) => pool[(i * 7919) % pool.length]).join(' ');
}

/** [label, query]: one per FTS5 operator and syntax character, and each shape of hostile input. */
const QUERIES: Array<[string, string]> = [
  ['AND', 'kmalloc AND kfree'],
  ['OR', 'kmalloc OR kfree'],
  ['NOT', 'kmalloc NOT kfree'],
  ['lone AND', 'AND'],
  ['lone OR NOT', 'OR NOT'],
  ['NEAR()', 'NEAR(kmalloc kfree, 5)'],
  ['NEAR/', 'NEAR/3 kmalloc kfree'],
  ['NEAR/ alone', 'NEAR/'],
  ['NEAR( unclosed', 'NEAR(kmalloc'],
  ['phrase', '"page fault handler"'],
  ['unbalanced "', '"page fault'],
  ['only "', '"'],
  ['many "', '"""""""'],
  ['unbalanced (', '(((kmalloc'],
  ['unbalanced )', 'kmalloc)))'],
  ['parens only', '()()()'],
  ['column filter', 'title:kmalloc'],
  ['column set', '{title text}: kmalloc'],
  ['minus column', '-title: kmalloc'],
  ['unknown column', 'nosuchcolumn:foo'],
  ['^ initial', '^kmalloc'],
  ['^ alone', '^'],
  ['* prefix', 'kmal*'],
  ['* alone', '*'],
  ['* storm', '* * * * a*'],
  ['+ and -', '+kmalloc -kfree'],
  [':', ':::'],
  ['rank/bm25 words', 'rank bm25 MATCH fts_porter'],
  ['SQL injection', "'); DROP TABLE chunks; --"],
  ['100 KB query', 'x'.repeat(100 * 1024)],
  ['100 KB of words', words(20_000).slice(0, 100 * 1024)],
  ['10,000 words', words(10_000)],
  ['only stopwords', 'the of to and a an in is it that'],
  ['only punctuation', '!@#$%^&*()_+-=[]{}|;\':",./<>?`~\\'],
  ['emoji', '😀🔥💥 kmalloc 👍🏽'],
  ['emoji 100', '😀'.repeat(100)],
  ['combining', 'e\u0301'.repeat(500)],
  ['zalgo', 'k\u0336\u0334m\u0337a\u0335lloc'],
  ['RTL Arabic', 'مرحبا بالعالم'],
  ['RTL Hebrew + LTR', 'שלום kmalloc עולם'],
  ['RTL override', '\u202ekmalloc\u202c'],
  ['one character', 'a'],
  ['one digit', '7'],
  ['one CJK', '中'],
  ['NUL and control', 'kmal\u0000loc\u0007\u001b[31m'],
  ['lone surrogate', '\ud800kmalloc'],
  ['long identifier', 'a_'.repeat(5000)],
  ['deep dotted path', Array.from({ length: 2000 }, (_, i) => `m${i}`).join('.')],
];

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { db: { type: 'string' }, root: { type: 'string' }, rounds: { type: 'string', default: '5' } } });
  const root = values.root ? path.resolve(values.root) : linuxTree();
  const dbFile = values.db ? path.resolve(values.db) : path.resolve('.cache/bench', `${path.basename(root)}.db`);
  if (!fs.existsSync(dbFile)) console.log(`No index at ${dbFile}: building it (the Linux tree takes 10+ minutes) …`);
  const engine = await Engine.open({ root, dbFile });
  if (engine.stats().files === 0) await engine.sync();
  const stats = engine.stats();
  console.log(`Index: ${root}, ${stats.files.toLocaleString('en-US')} files, ${stats.chunks.toLocaleString('en-US')} chunks`);
  // As the extension's worker and the MCP server do once an index is open (read back from the
  // index in a quarter of a second, or built the first time).
  engine.prepareVocabulary();

  const rounds = Number(values.rounds);
  let slow = 0;
  let failed = 0;
  console.log(`\n${'query'.padEnd(18)} ${'chars'.padStart(7)} ${'results'.padStart(7)} ${'first ms'.padStart(9)} ${'max ms'.padStart(8)}`);
  for (const [label, query] of QUERIES) {
    const times: number[] = [];
    let results = 0;
    let error: string | undefined;
    for (let r = 0; r < rounds; r++) {
      const started = performance.now();
      try {
        results = (await engine.search(query)).results.length;
      } catch (e) {
        error = (e as Error).message;
      }
      times.push(performance.now() - started);
    }
    const max = Math.max(...times);
    if (max > LIMIT_MS) slow++;
    if (error) failed++;
    const flag = error ? `  THREW: ${error}` : max > LIMIT_MS ? '  SLOW' : '';
    console.log(
      `${label.padEnd(18)} ${String(query.length).padStart(7)} ${String(results).padStart(7)} ${times[0]!.toFixed(1).padStart(9)} ${max.toFixed(1).padStart(8)}${flag}`,
    );
  }
  console.log(`\n${QUERIES.length} hostile queries × ${rounds}: ${failed} threw, ${slow} over ${LIMIT_MS} ms.`);
  engine.close();
  process.exitCode = failed + slow === 0 ? 0 : 1;
}

await main();
