// `npm run bench:first-minute [-- --open virt/kvm/kvm_main.c] [-- --changed 5000]`
//
// A big repository from the first minute, on the Linux tree (78k files), through the IndexKeeper
// every host uses:
//
// 1. First index. A fresh index starts with one file "open in the editor" (`--open`, near the end
//    of the crawl order) as the extension passes it. Measured: seconds from opening the folder to
//    the first search whose results hold that file; search latency while the first index runs
//    (every answer labelled partial); seconds and peak memory of the whole first index. Then the
//    merge of the segments it left, which the keeper does while idle: its seconds, the latency of
//    searches meanwhile (rounds of the queries, each followed by a second of reading), and the
//    index's size after it.
// 2. Mass change. `--changed` files get a line appended (what a checkout between releases does
//    to them, in size), reported to the keeper in watcher-sized batches (500 paths every 250 ms).
//    The files are written on a thread of their own, as git writes them in a process of its own:
//    written on the keeper's thread, 500 files took it 0.2–0.3 s, which searches waited for.
//    Measured: seconds until every changed file is searchable by its new line, and the latency of
//    searches run back to back throughout. The files are then restored the same way.
//
// Every search's latency runs from when the person asked (the end of their pause), not from when
// the thread got round to it: a search that waits for a batch being written counts the wait.
//
// It runs under the V8 flags and environment the extension's engine worker and the CLI run under
// (src/core/engine-process.ts says why each one), so its peak memory is what a user's indexing costs.
//
// Writes bench/out/first-minute/ and docs/benchmarks/first-minute.json.

import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { Worker } from 'node:worker_threads';
import { IndexKeeper } from '../src/core/index-keeper.ts';
import { IndexStore } from '../src/core/store/store.ts';
import { runAsEngine } from './lib/engine-run.ts';
import { linuxTree, peakRssMb, percentileOf as pct } from './lib/corpora.ts';

const { values } = parseArgs({
  options: {
    open: { type: 'string', default: 'virt/kvm/kvm_main.c' },
    query: { type: 'string', default: 'kvm_vm_ioctl_check_extension_generic' },
    changed: { type: 'string', default: '5000' },
    /**
     * Skips the first index and runs the mass change on the index a previous run left. Each run
     * leaves it bigger and less merged: to compare codes, start each run from one copy of it.
     */
    'mass-change-only': { type: 'boolean', default: false },
  },
});
const OUT = path.resolve('bench/out/first-minute');
const CHANGED = Number(values.changed);
const WATCH_BATCH = 500;
const WATCH_INTERVAL_MS = 250;
const MARKER = 'fusedcheckoutmarker';
const SEARCH_PAUSE_MS = 100;
/** After a round of the queries while the index is tidied, the person reads for this long. */
const READING_PAUSE_MS = 1_000;
/** Searches run while indexing: a mix of the speed bench's Linux kinds. */
const QUERIES = ['spin_lock_irqsave', 'copy_from_user', 'where are page faults handled', 'memory barrier', 'interupt handler', 'alocate buffer'];

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function main(): Promise<void> {
  const root = linuxTree();
  const dbFile = path.join(OUT, 'index.db');
  const reportFile = path.resolve('docs/benchmarks/first-minute.json');
  if (values['mass-change-only']) {
    const keeper = await IndexKeeper.open({ root, dbFile, kind: 'bench' });
    await keeper.sync();
    const report = JSON.parse(fs.readFileSync(reportFile, 'utf8')) as Record<string, unknown>;
    fs.writeFileSync(reportFile, `${JSON.stringify({ ...report, massChange: await massChange(keeper, dbFile) }, null, 2)}\n`);
    return;
  }
  fs.rmSync(OUT, { recursive: true, force: true });
  fs.mkdirSync(OUT, { recursive: true });

  // 1. The first index, with the open file read first.
  const opened = performance.now();
  const keeper = await IndexKeeper.open({ root, dbFile, kind: 'bench' });
  const syncing = keeper.sync({ firstPaths: [values.open] });
  let openFileFoundS: number | undefined;
  const during: number[] = [];
  let unlabelled = 0;
  let done = false;
  // When the person asked: a search whose turn comes late because the thread was busy writing
  // counts the wait, as it would for someone typing in the extension.
  let issued = performance.now();
  void syncing.then(() => (done = true));
  while (!done) {
    if (openFileFoundS === undefined) {
      const answer = await keeper.search(values.query);
      if (answer.results.some((r) => r.path === values.open)) {
        openFileFoundS = (performance.now() - opened) / 1000;
        console.log(`open file ${values.open} found by "${values.query}" ${openFileFoundS.toFixed(2)} s after opening`);
      } else await sleep(50);
      continue;
    }
    for (const query of QUERIES) {
      const answer = await keeper.search(query);
      during.push(performance.now() - issued);
      if (!answer.partial && !done) unlabelled++;
      issued = performance.now();
    }
    issued += 1000;
    await sleep(1000);
  }
  const summary = (await syncing)!;
  const firstIndexS = (performance.now() - opened) / 1000;
  const indexPeakMb = peakRssMb();
  console.log(`first index: ${summary.files} files in ${firstIndexS.toFixed(1)} s, peak RSS ${indexPeakMb} MB`);
  console.log(`searches during it: ${during.length}, p50 ${pct(during, 50).toFixed(1)} ms, p95 ${pct(during, 95).toFixed(1)} ms; unlabelled: ${unlabelled}`);

  const merge = await idleMerge(keeper);
  const sizeRatio = keeper.stats().diskBytes / summary.bytes;
  console.log(
    `segments merged while idle in ${merge.seconds.toFixed(1)} s; searches meanwhile: ${merge.latencies.length}, ` +
      `p50 ${pct(merge.latencies, 50).toFixed(1)} ms, p95 ${pct(merge.latencies, 95).toFixed(1)} ms; index ${sizeRatio.toFixed(2)}× the text`,
  );

  const report = {
    date: new Date().toISOString().slice(0, 10),
    files: summary.files,
    openFile: values.open,
    openFileFoundSeconds: openFileFoundS,
    firstIndexSeconds: firstIndexS,
    firstIndexPeakRssMb: indexPeakMb,
    searchesDuringFirstIndex: { count: during.length, p50: pct(during, 50), p95: pct(during, 95), unlabelled },
    mergeSeconds: merge.seconds,
    searchesDuringMerge: { count: merge.latencies.length, p50: pct(merge.latencies, 50), p95: pct(merge.latencies, 95) },
    sizeAfterMerge: sizeRatio,
    massChange: await massChange(keeper, dbFile),
  };
  fs.writeFileSync(reportFile, `${JSON.stringify(report, null, 2)}\n`);
}

/** 1b. The merge of the segments the first index left, which the keeper runs while idle, with a person searching meanwhile. */
async function idleMerge(keeper: IndexKeeper): Promise<{ seconds: number; latencies: number[] }> {
  const started = performance.now();
  const latencies: number[] = [];
  for (let i = 0, issued = started; keeper.tidying; i++) {
    await keeper.search(QUERIES[i % QUERIES.length]!);
    latencies.push(performance.now() - issued);
    // A round of the queries, then a while reading: the keeper's idle work waits for searches
    // that come closer together than a quarter of a second, for up to 10 s.
    const pause = i % QUERIES.length === QUERIES.length - 1 ? READING_PAUSE_MS : SEARCH_PAUSE_MS;
    issued = performance.now() + pause;
    await sleep(pause);
  }
  return { seconds: (performance.now() - started) / 1000, latencies };
}

/** 2. A mass change, reported as a watcher would, with searches throughout; then undone the same way. */
async function massChange(keeper: IndexKeeper, dbFile: string) {
  const catalog = pickFiles(dbFile, CHANGED);
  const checkout = new Checkout(keeper.root, catalog);
  const forward = await runMassChange(keeper, catalog, (batch) => checkout.write('append', batch));
  const searchable = keeper.chunksMatching(`"${MARKER}"`, CHANGED * 2);
  const back = await runMassChange(keeper, catalog, (batch) => checkout.write('restore', batch));
  const left = keeper.chunksMatching(`"${MARKER}"`, CHANGED * 2);
  await checkout.close();
  await keeper.close();
  console.log(
    `mass change of ${CHANGED} files: all searchable after ${forward.seconds.toFixed(1)} s (${searchable} chunks hold the new line); ` +
      `searches throughout: ${forward.latencies.length}, p50 ${pct(forward.latencies, 50).toFixed(1)} ms, p95 ${pct(forward.latencies, 95).toFixed(1)} ms`,
  );
  console.log(
    `restoring them: ${back.seconds.toFixed(1)} s, searches p50 ${pct(back.latencies, 50).toFixed(1)} ms, p95 ${pct(back.latencies, 95).toFixed(1)} ms; marker left in ${left} chunks`,
  );
  return {
    files: CHANGED,
    seconds: forward.seconds,
    searchable,
    searches: { count: forward.latencies.length, p50: pct(forward.latencies, 50), p95: pct(forward.latencies, 95) },
    restoreSeconds: back.seconds,
    restoreSearches: { count: back.latencies.length, p50: pct(back.latencies, 50), p95: pct(back.latencies, 95) },
    markerLeft: left,
  };
}

/**
 * Writes a mass change's files on a thread of its own, as git does in a process of its own: it
 * keeps their original bytes, appends the marker line to a batch, or puts a batch back.
 */
class Checkout {
  private readonly worker: Worker;
  private readonly waiting: Array<() => void> = [];

  constructor(root: string, files: readonly string[]) {
    const code = `
      const { parentPort, workerData: { root, files, line } } = require('node:worker_threads');
      const fs = require('node:fs');
      const path = require('node:path');
      const originals = new Map(files.map((relPath) => [relPath, fs.readFileSync(path.join(root, relPath))]));
      parentPort.on('message', ({ kind, batch }) => {
        for (const relPath of batch) {
          if (kind === 'append') fs.appendFileSync(path.join(root, relPath), line);
          else fs.writeFileSync(path.join(root, relPath), originals.get(relPath));
        }
        parentPort.postMessage('written');
      });`;
    this.worker = new Worker(code, { eval: true, workerData: { root, files, line: `\n/* ${MARKER} */\n` } });
    this.worker.on('message', () => this.waiting.shift()?.());
  }

  write(kind: 'append' | 'restore', batch: readonly string[]): Promise<void> {
    return new Promise((resolve) => {
      this.waiting.push(resolve);
      this.worker.postMessage({ kind, batch });
    });
  }

  async close(): Promise<void> {
    await this.worker.terminate();
  }
}

/** Every so-many-th indexed file, `count` of them: spread over the tree as a checkout's are. */
function pickFiles(dbFile: string, count: number): string[] {
  const store = new IndexStore(dbFile, { readonly: true });
  try {
    const sources = [...store.paths()].filter((relPath) => /\.[ch]$/.test(relPath)).sort();
    const step = Math.max(1, Math.floor(sources.length / count));
    return sources.filter((_, i) => i % step === 0).slice(0, count);
  } finally {
    store.close();
  }
}

/**
 * Writes `files` in watcher-sized batches, hands each batch to the keeper as the extension's
 * watcher would, and searches back to back until the keeper has absorbed them all.
 */
async function runMassChange(
  keeper: IndexKeeper,
  files: readonly string[],
  write: (batch: readonly string[]) => Promise<void>,
): Promise<{ seconds: number; latencies: number[] }> {
  const started = performance.now();
  const applied: Promise<unknown>[] = [];
  let writing = true;
  const writer = (async () => {
    for (let i = 0; i < files.length; i += WATCH_BATCH) {
      const batch = files.slice(i, i + WATCH_BATCH);
      await write(batch);
      applied.push(keeper.applyChanges(batch));
      await sleep(WATCH_INTERVAL_MS);
    }
    writing = false;
  })();
  const latencies: number[] = [];
  let settled = false;
  const all = writer.then(() => Promise.all(applied)).then(() => (settled = true));
  // A person searching: a query, then a pause. Back to back, searches would leave the batch's
  // crawl and reads (awaits on this same thread) no turn at all.
  for (let i = 0, issued = started; !settled || writing; i++) {
    await keeper.search(QUERIES[i % QUERIES.length]!);
    latencies.push(performance.now() - issued);
    issued = performance.now() + SEARCH_PAUSE_MS;
    await sleep(SEARCH_PAUSE_MS);
  }
  await all;
  return { seconds: (performance.now() - started) / 1000, latencies };
}

await runAsEngine(main);
