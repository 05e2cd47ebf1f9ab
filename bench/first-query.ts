// `npm run bench:first-query [-- --db FILE --root DIR --rounds N]`: what the first query after opening
// an index costs, against a warm one, on the Linux tree's index (by default the one
// bench:first-minute left).
//
// Each of the 16 queries of the speed benchmarks' Linux set (lib/queries.ts) runs first in a fresh
// process, twice: as the CLI does (open, then search at once) and as a long-running host does
// (open, let the keeper prepare what it prepares at open, then search: a person types a second
// after the window opens), round after round (3 by default), so that the p95 is not the one
// slowest of 16 processes on a shared machine. Warm: the same queries in one process, each first
// as the process's first question of its kind (the store keeps the document counts a query asked
// for, and later queries of the same words skip them), then five more rounds. Prints p50/p95 of each.

import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { IndexKeeper } from '../src/core/index-keeper.ts';
import { linuxTree, percentileOf as pct } from './lib/corpora.ts';
import { LINUX_QUERIES } from './lib/queries.ts';

const QUERIES = LINUX_QUERIES.map((query) => query.text);
const WARM_ROUNDS = 5;
const HOST_SETTLE_MS = 1_000;

const { values } = parseArgs({
  options: {
    db: { type: 'string', default: path.resolve('bench/out/first-minute/index.db') },
    root: { type: 'string' },
    child: { type: 'string' },
    host: { type: 'boolean', default: false },
    rounds: { type: 'string', default: '3' },
  },
});
const root = values.root ?? linuxTree();
const rounds = Number(values.rounds);
if (!Number.isInteger(rounds) || rounds < 1) throw new Error(`--rounds takes a whole number of rounds, at least 1, not ${values.rounds}`);

async function child(query: string): Promise<void> {
  const opened = performance.now();
  const keeper = await IndexKeeper.open({ root, dbFile: values.db, kind: 'bench' });
  const openMs = performance.now() - opened;
  if (values.host) {
    void keeper.prepareForSearches();
    await new Promise((resolve) => setTimeout(resolve, HOST_SETTLE_MS));
  }
  const started = performance.now();
  await keeper.search(query);
  const queryMs = performance.now() - started;
  await keeper.close();
  process.stdout.write(JSON.stringify({ openMs, queryMs }));
}

/** Each query's first run in a fresh process, query after query, round after round. */
function firstRuns(host: boolean): Array<{ query: string; openMs: number; queryMs: number }> {
  return Array.from({ length: rounds }, () => QUERIES)
    .flat()
    .map((query) => {
      const run = spawnSync(process.execPath, [process.argv[1]!, '--child', query, '--db', values.db, '--root', root, ...(host ? ['--host'] : [])], {
        encoding: 'utf8',
      });
      if (run.status !== 0) throw new Error(`the child for "${query}" failed: ${run.stderr}`);
      return { query, ...(JSON.parse(run.stdout) as { openMs: number; queryMs: number }) };
    });
}

/** Warm runs: each query asked the first time in a process that has answered the ones before it (`fresh`), then asked again (`repeated`). */
async function warm(): Promise<{ fresh: number[]; repeated: number[] }> {
  const keeper = await IndexKeeper.open({ root, dbFile: values.db, kind: 'bench' });
  const fresh: number[] = [];
  for (const query of QUERIES) {
    const started = performance.now();
    await keeper.search(query);
    fresh.push(performance.now() - started);
  }
  const times: number[] = [];
  for (let round = 0; round < WARM_ROUNDS; round++) {
    for (const query of QUERIES) {
      const started = performance.now();
      await keeper.search(query);
      times.push(performance.now() - started);
    }
  }
  await keeper.close();
  // The process's very first query is the CLI's case, measured above.
  return { fresh: fresh.slice(1), repeated: times };
}

if (values.child !== undefined) {
  await child(values.child);
} else {
  const cli = firstRuns(false);
  const host = firstRuns(true);
  const warmTimes = await warm();
  const row = (name: string, times: number[]) => `| ${name} | ${pct(times, 50).toFixed(1)} | ${pct(times, 95).toFixed(1)} | ${Math.max(...times).toFixed(1)} |`;
  console.log(`first query after opening ${values.db}, ${QUERIES.length} queries × ${rounds} rounds, each in a fresh process\n`);
  console.log('| run | p50 ms | p95 ms | max ms |\n| --- | --- | --- | --- |');
  console.log(
    row(
      'open (CLI)',
      cli.map((r) => r.openMs),
    ),
  );
  console.log(
    row(
      'first query, CLI (at once)',
      cli.map((r) => r.queryMs),
    ),
  );
  console.log(
    row(
      `first query, host (after ${HOST_SETTLE_MS} ms)`,
      host.map((r) => r.queryMs),
    ),
  );
  console.log(row(`warm, asked again (${WARM_ROUNDS} rounds)`, warmTimes.repeated));
  console.log(row(`warm, asked the first time (the ${QUERIES.length - 1} after the process's first)`, warmTimes.fresh));
  const slowest = cli
    .map(({ query, queryMs }, i) => ({ query, cli: queryMs, host: host[i]!.queryMs }))
    .sort((a, b) => b.cli - a.cli)
    .slice(0, 3);
  console.log(`\nslowest first queries (CLI, then host): ${slowest.map((q) => `"${q.query}" ${q.cli.toFixed(1)} / ${q.host.toFixed(1)} ms`).join('; ')}`);
}
