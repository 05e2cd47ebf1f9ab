// `npm run bench:first-query [-- --db FILE --root DIR --rounds N]`: what the first query after opening
// an index costs, against a warm one, on the Linux tree's index (by default the one
// bench:first-minute left).
//
// Each of the 16 queries of the speed benchmarks' Linux set (lib/queries.ts) runs first in a fresh
// process, twice: as the CLI does (open, then search at once) and as a long-running host does
// (open, let the keeper prepare what it prepares at open, then search: a person types a second
// after the window opens), round after round (3 by default), so that the p95 is not the one
// slowest of 16 processes on a shared machine. Warm: one more process, opened first, is asked each
// query once as its first question of its kind (the store keeps the document counts a query asked
// for, and later queries of the same words skip them), then again right after each of the query's
// fresh processes, so that warm and first queries are timed in the same moments: on this shared
// machine a run's load swings by half, and timed one phase after the other, that moved the
// comparison more than the code did. Prints p50/p95 of each.

import { spawn, spawnSync } from 'node:child_process';
import path from 'node:path';
import readline from 'node:readline';
import { parseArgs } from 'node:util';
import { IndexKeeper } from '../src/core/index-keeper.ts';
import { linuxTree, percentileOf as pct } from './lib/corpora.ts';
import { LINUX_QUERIES } from './lib/queries.ts';

const QUERIES = LINUX_QUERIES.map((query) => query.text);
const HOST_SETTLE_MS = 1_000;

const { values } = parseArgs({
  options: {
    db: { type: 'string', default: path.resolve('bench/out/first-minute/index.db') },
    root: { type: 'string' },
    child: { type: 'string' },
    host: { type: 'boolean', default: false },
    warm: { type: 'boolean', default: false },
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

/** A query's first run in a fresh process. */
function firstRun(query: string, host: boolean): { openMs: number; queryMs: number } {
  const run = spawnSync(process.execPath, [process.argv[1]!, '--child', query, '--db', values.db, '--root', root, ...(host ? ['--host'] : [])], {
    encoding: 'utf8',
  });
  if (run.status !== 0) throw new Error(`the child for "${query}" failed: ${run.stderr}`);
  return JSON.parse(run.stdout) as { openMs: number; queryMs: number };
}

/** The warm process's side: answers each query read from stdin with the milliseconds it took. */
async function warmServer(): Promise<void> {
  const keeper = await IndexKeeper.open({ root, dbFile: values.db, kind: 'bench' });
  process.stdout.write('ready\n');
  for await (const query of readline.createInterface({ input: process.stdin })) {
    const started = performance.now();
    await keeper.search(query);
    process.stdout.write(`${performance.now() - started}\n`);
  }
  await keeper.close();
}

/** The bench's side of the warm process. */
async function startWarm(): Promise<{ ask: (query: string) => Promise<number>; close: () => Promise<void> }> {
  const warmProcess = spawn(process.execPath, [process.argv[1]!, '--warm', '--db', values.db, '--root', root], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = readline.createInterface({ input: warmProcess.stdout })[Symbol.asyncIterator]();
  const next = async () => {
    const line = await lines.next();
    if (line.done) throw new Error('the warm process ended early');
    return line.value;
  };
  await next();
  return {
    ask: async (query) => {
      warmProcess.stdin.write(`${query}\n`);
      return Number(await next());
    },
    close: () =>
      new Promise((resolve) => {
        warmProcess.once('exit', () => resolve());
        warmProcess.stdin.end();
      }),
  };
}

if (values.child !== undefined) {
  await child(values.child);
} else if (values.warm) {
  await warmServer();
} else {
  const warm = await startWarm();
  // The process's very first query is the CLI's case, measured in the fresh processes.
  const asked: number[] = [];
  for (const query of QUERIES) asked.push(await warm.ask(query));
  const askedFirst = asked.slice(1);
  const cli: Array<{ query: string; openMs: number; queryMs: number }> = [];
  const host: number[] = [];
  const repeated: number[] = [];
  for (let round = 0; round < rounds; round++) {
    for (const query of QUERIES) {
      cli.push({ query, ...firstRun(query, false) });
      host.push(firstRun(query, true).queryMs);
      repeated.push(await warm.ask(query));
    }
  }
  await warm.close();
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
  console.log(row(`first query, host (after ${HOST_SETTLE_MS} ms)`, host));
  console.log(row("warm, asked again (after each query's fresh processes)", repeated));
  console.log(row(`warm, asked the first time (the ${QUERIES.length - 1} after the process's first)`, askedFirst));
  const slowest = cli
    .map(({ query, queryMs }, i) => ({ query, cli: queryMs, host: host[i]! }))
    .sort((a, b) => b.cli - a.cli)
    .slice(0, 3);
  console.log(`\nslowest first queries (CLI, then host): ${slowest.map((q) => `"${q.query}" ${q.cli.toFixed(1)} / ${q.host.toFixed(1)} ms`).join('; ')}`);
}
