// `npm run bench:side-by-side -- --base REV [--db FILE --root DIR --rounds N]`: this tree's search
// beside another commit's, on the Linux index bench:first-minute left: each query asked of both
// codes in turn, in one process, warm. Prints each code's latency and how many of the same top 10
// results they return, query by query where they differ. A shared machine's speed swings by half
// within minutes; asked in turn, both codes meet the same swings, which separate runs do not.

import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { Engine } from '../src/core/engine.ts';
import { linuxTree } from './lib/linux-tree.ts';
import { LINUX_QUERIES, LINUX_QUESTIONS } from './lib/queries.ts';

const { values } = parseArgs({
  options: {
    base: { type: 'string' },
    db: { type: 'string', default: path.resolve('bench/out/first-minute/index.db') },
    root: { type: 'string' },
    rounds: { type: 'string', default: '5' },
  },
});
if (!values.base) throw new Error('--base REV: the commit to compare this tree with');
const root = values.root ? path.resolve(values.root) : linuxTree();
if (!fs.existsSync(values.db)) throw new Error(`${values.db} does not exist: run npm run bench:first-minute first, or pass --db`);

type SearchEngine = Pick<Engine, 'searchIndexed' | 'close'>;

/** The base commit's `src/` under .cache/side-by-side, beside this project's node_modules. */
async function baseEngine(rev: string): Promise<SearchEngine> {
  const commit = execFileSync('git', ['rev-parse', '--verify', `${rev}^{commit}`], { encoding: 'utf8' }).trim();
  const dir = path.resolve('.cache/side-by-side', commit);
  if (!fs.existsSync(dir)) {
    // Extracted beside it and renamed, so that an interrupted extraction is never taken for the commit.
    const partial = `${dir}.partial`;
    fs.rmSync(partial, { recursive: true, force: true });
    fs.mkdirSync(partial, { recursive: true });
    execFileSync('sh', ['-c', `git archive --format=tar ${commit} src package.json | tar -x -C "${partial}"`]);
    fs.symlinkSync(path.resolve('node_modules'), path.join(partial, 'node_modules'));
    fs.renameSync(partial, dir);
  }
  const { Engine: BaseEngine } = (await import(path.join(dir, 'src/core/engine.ts'))) as { Engine: typeof Engine };
  return BaseEngine.open({ root, dbFile: values.db });
}

const engines: Array<[name: string, engine: SearchEngine]> = [
  [`base ${values.base}`, await baseEngine(values.base)],
  ['this tree', await Engine.open({ root, dbFile: values.db })],
];
const rounds = Number(values.rounds);

for (const [set, queries] of [
  ['the 16 queries', LINUX_QUERIES.map((query) => query.text)],
  ['32 questions', LINUX_QUESTIONS],
] as const) {
  const times = engines.map(() => new Map<string, number[]>());
  const tops = engines.map(() => new Map<string, string[]>());
  // The first round warms both; each later round starts with the other code.
  for (let round = 0; round <= rounds; round++) {
    for (const query of queries) {
      const order = round % 2 === 0 ? [0, 1] : [1, 0];
      for (const i of order) {
        const started = performance.now();
        const { results } = engines[i]![1].searchIndexed(query);
        const ms = performance.now() - started;
        if (round === 0)
          tops[i]!.set(
            query,
            results.slice(0, 10).map((r) => `${r.path}:${r.startLine}`),
          );
        else times[i]!.set(query, [...(times[i]!.get(query) ?? []), ms]);
      }
    }
  }
  console.log(`\n${set}, ${rounds} warm rounds, median per query, ms`);
  let same = 0;
  let sameFirst = 0;
  for (const query of queries) {
    const [a, b] = [tops[0]!.get(query)!, tops[1]!.get(query)!];
    const shared = a.filter((id) => b.includes(id)).length;
    same += shared;
    if (a[0] === b[0]) sameFirst++;
    if (shared < 10 || a[0] !== b[0]) {
      const [ma, mb] = times.map((t) => median(t.get(query)!));
      console.log(`  ${ma!.toFixed(1)} → ${mb!.toFixed(1)} ms, ${shared} of the same top 10${a[0] === b[0] ? '' : ', first result moved'}: ${query}`);
    }
  }
  for (const [i, [name]] of engines.entries()) {
    const medians = queries.map((query) => median(times[i]!.get(query)!));
    const sum = medians.reduce((s, ms) => s + ms, 0);
    console.log(`  ${name.padEnd(20)} p50 ${percentile(medians, 50).toFixed(1)}  p95 ${percentile(medians, 95).toFixed(1)}  all ${sum.toFixed(0)}`);
  }
  console.log(`  the same top 10: ${(same / queries.length).toFixed(2)} of 10 on average; the same first result: ${sameFirst} of ${queries.length}`);
}
for (const [, engine] of engines) engine.close();

function median(values: number[]): number {
  return percentile(values, 50);
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}
