// `npm run bench:depth [-- --depths 20,40,100,200] [-- --db FILE --root DIR] [-- --sets scifact,cosqa,cranfield]`
//
// How deep each lexical list is read before fusion (the `candidateDepth` option), at the limit a
// person or an agent asks (10):
//
// - quality: nDCG@10 and MRR@10 of the full pipeline on the shared sets' clean test queries, per
//   depth (a search of 100 results reads its lists 200 deep: the evals scored that before they
//   took @10 from a search at the default limit);
// - cost on the Linux tree's index (by default the one bench:first-minute left): the 16 queries of
//   the speed benchmarks, warm, each depth in turn query by query in one process, so the machine's
//   noise falls on all of them alike; and every prefix of the typed queries, each asked once, in a
//   freshly opened engine per depth, the depths taking turns over two rounds.

import path from 'node:path';
import { parseArgs } from 'node:util';
import { Engine } from '../src/core/engine.ts';
import { loadBeir } from '../src/core/eval/beir.ts';
import { evaluate } from '../src/core/eval/run.ts';
import { percentileOf } from './lib/corpora.ts';
import { keystrokes, LINUX_QUERIES, LINUX_TYPED_QUERIES, TYPED_QUERIES } from './lib/queries.ts';

const { values } = parseArgs({
  options: {
    depths: { type: 'string', default: '20,40,100,200' },
    sets: { type: 'string', default: 'scifact,cosqa,cranfield' },
    'eval-dir': { type: 'string', default: process.env.FUSED_EVAL_DIR ?? '../shared/eval' },
    db: { type: 'string', default: path.resolve('bench/out/first-minute/index.db') },
    root: { type: 'string', default: path.resolve('.cache/linux-6.1') },
    rounds: { type: 'string', default: '8' },
  },
});
const depths = values.depths.split(',').map(Number);
const WARM_ROUNDS = Number(values.rounds);
const KEYSTROKE_ROUNDS = 2;

console.log('Quality at limit 10, clean test queries: nDCG@10 / MRR@10 per list depth\n');
console.log(`| set | ${depths.map((d) => `${d} deep`).join(' | ')} |`);
console.log(`| --- | ${depths.map(() => '---').join(' | ')} |`);
for (const set of values.sets.split(',')) {
  const dataset = await loadBeir(path.join(values['eval-dir'], set));
  const cells = depths.map((candidateDepth) => evaluate(dataset, 'test', ['full'], { candidateDepth }).results.full);
  const cell = (s: { ndcg10: number; mrr10: number }) => `${s.ndcg10.toFixed(4)} / ${s.mrr10.toFixed(4)}`;
  console.log(`| ${set} | ${cells.map(cell).join(' | ')} |`);
}

const engine = await Engine.open({ root: values.root, dbFile: values.db });
const warm = new Map<number, number[]>(depths.map((d) => [d, []]));
const texts = LINUX_QUERIES.map((query) => query.text);
for (const text of texts) for (const candidateDepth of depths) engine.searchIndexed(text, { candidateDepth });
for (let round = 0; round < WARM_ROUNDS; round++) {
  for (const text of texts) {
    for (const candidateDepth of depths) {
      const started = performance.now();
      engine.searchIndexed(text, { candidateDepth });
      warm.get(candidateDepth)!.push(performance.now() - started);
    }
  }
}
engine.close();

const typed = new Map<number, number[]>(depths.map((d) => [d, []]));
const prefixes = keystrokes([...TYPED_QUERIES, ...LINUX_TYPED_QUERIES]);
for (let round = 0; round < KEYSTROKE_ROUNDS; round++) {
  for (const candidateDepth of round % 2 === 0 ? depths : [...depths].reverse()) {
    const fresh = await Engine.open({ root: values.root, dbFile: values.db });
    for (const prefix of prefixes) {
      const started = performance.now();
      fresh.searchIndexed(prefix, { candidateDepth });
      typed.get(candidateDepth)!.push(performance.now() - started);
    }
    fresh.close();
  }
}

const ms = (xs: number[], p: number) => percentileOf(xs, p).toFixed(1);
console.log(
  `\nCost on ${values.db}, ms: warm (${texts.length} queries × ${WARM_ROUNDS} rounds) and first keystrokes (${prefixes.length} prefixes × ${KEYSTROKE_ROUNDS} engines)\n`,
);
console.log('| list depth | warm p50 | warm p95 | keystroke p50 | keystroke p95 |');
console.log('| --- | ---: | ---: | ---: | ---: |');
for (const d of depths) console.log(`| ${d} | ${ms(warm.get(d)!, 50)} | ${ms(warm.get(d)!, 95)} | ${ms(typed.get(d)!, 50)} | ${ms(typed.get(d)!, 95)} |`);
