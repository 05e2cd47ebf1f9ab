// `node --expose-gc bench/soak.ts [--queries 100000] [--minutes M] [--changes-per-second 10]
//   [--window-seconds 30] [--db FILE --root DIR]`: a soak on a large index — by default the Linux
// 6.1 index that bench/query-speed.ts builds into .cache/bench/. One process, one engine, the way
// the extension's worker runs: queries from a real mix (identifiers, phrases, typos, long
// questions) back to back through Engine.search, while files change at a steady rate and each
// change is indexed with updateFile, as the file watcher would. Reports per time window the query
// latency percentiles and the process memory, and at the end whether every change became
// searchable. The changing files live in a `soak-bench/` folder the run creates under the root
// and removes (from the folder and the index) when it ends.

import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { Engine } from '../src/core/engine.ts';
import { linuxTree } from './lib/linux-tree.ts';
import { LINUX_BENCH_IDENTIFIERS, LINUX_BENCH_PHRASES, LINUX_BENCH_QUESTIONS, LINUX_BENCH_TYPOS } from './lib/queries.ts';

const MIX = {
  identifier: [...LINUX_BENCH_IDENTIFIERS, 'struct file_operations', 'platform_get_irq', 'devm_kzalloc', 'atomic_inc', 'wake_up_process'],
  phrase: [...LINUX_BENCH_PHRASES, 'reference count', 'ring buffer', 'work queue', 'device tree binding'],
  typo: [...LINUX_BENCH_TYPOS, 'alocate page', 'mutx unlock', 'regster driver', 'wirte buffer'],
  question: [...LINUX_BENCH_QUESTIONS, 'why would a spinlock be held with interrupts disabled', 'which function copies data from user space into the kernel'],
};
const KINDS = Object.keys(MIX) as Array<keyof typeof MIX>;
const SOAK_DIR = 'soak-bench';
const SOAK_FILES = 200;

interface Window {
  endSeconds: number;
  queries: number;
  times: number[];
  changes: number;
  rssMb: number;
  heapMb: number;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      queries: { type: 'string', default: '100000' },
      minutes: { type: 'string' },
      'changes-per-second': { type: 'string', default: '10' },
      'window-seconds': { type: 'string', default: '30' },
      db: { type: 'string' },
      root: { type: 'string' },
    },
  });
  const maxQueries = Number(values.queries);
  const deadline = values.minutes ? performance.now() + Number(values.minutes) * 60_000 : Number.POSITIVE_INFINITY;
  const changeEveryMs = 1000 / Number(values['changes-per-second']);
  const windowMs = Number(values['window-seconds']) * 1000;
  const root = values.root ? path.resolve(values.root) : linuxTree();
  const dbFile = values.db ? path.resolve(values.db) : path.resolve('.cache/bench', `${path.basename(root)}.db`);
  const engine = await Engine.open({ root, dbFile });
  if (engine.stats().files === 0) {
    console.log(`Indexing ${root} into ${dbFile} (once) …`);
    await engine.sync();
  }
  const soakDir = path.join(root, SOAK_DIR);
  fs.mkdirSync(soakDir, { recursive: true });
  const soakPath = (i: number) => `${SOAK_DIR}/change-${i}.md`;
  for (let i = 0; i < SOAK_FILES; i++) {
    fs.writeFileSync(path.join(root, soakPath(i)), `# Soak file ${i}\n\nsoakinitial${i}\n`);
    await engine.updateFile(soakPath(i));
  }
  const stats = engine.stats();
  console.log(
    `Index: ${root}, ${stats.files.toLocaleString('en-US')} files, ${stats.chunks.toLocaleString('en-US')} chunks, ${(stats.diskBytes / 1e9).toFixed(2)} GB`,
  );
  console.log(
    `Soak: up to ${maxQueries.toLocaleString('en-US')} queries${values.minutes ? ` or ${values.minutes} minutes` : ''}, ${values['changes-per-second']} file changes per second, windows of ${values['window-seconds']} s\n`,
  );

  (globalThis as { gc?: () => void }).gc?.();
  const startMem = process.memoryUsage();
  const started = performance.now();
  const windows: Window[] = [];
  let current: Window = { endSeconds: 0, queries: 0, times: [], changes: 0, rssMb: 0, heapMb: 0 };
  let windowEnds = started + windowMs;
  const all: number[] = [];
  const byKind = new Map(KINDS.map((kind) => [kind, [] as number[]]));
  let changes = 0;
  let nextChangeAt = started;
  let visibleNow = 0;
  const latest = new Map<string, string>();
  const failures: string[] = [];

  console.log(
    `${'window end s'.padStart(12)} ${'queries'.padStart(8)} ${'p50 ms'.padStart(7)} ${'p95 ms'.padStart(7)} ${'p99 ms'.padStart(7)} ${'max ms'.padStart(7)} ${'changes'.padStart(8)} ${'rss MB'.padStart(7)} ${'heap MB'.padStart(8)}`,
  );
  const closeWindow = (now: number) => {
    const memory = process.memoryUsage();
    current.endSeconds = (now - started) / 1000;
    current.rssMb = memory.rss / 1e6;
    current.heapMb = memory.heapUsed / 1e6;
    windows.push(current);
    const t = current.times;
    console.log(
      `${current.endSeconds.toFixed(0).padStart(12)} ${String(current.queries).padStart(8)} ${pct(t, 50).toFixed(1).padStart(7)} ${pct(t, 95).toFixed(1).padStart(7)} ${pct(t, 99).toFixed(1).padStart(7)} ${Math.max(
        0,
        ...t,
      )
        .toFixed(1)
        .padStart(7)} ${String(current.changes).padStart(8)} ${current.rssMb.toFixed(0).padStart(7)} ${current.heapMb.toFixed(0).padStart(8)}`,
    );
    current = { endSeconds: 0, queries: 0, times: [], changes: 0, rssMb: 0, heapMb: 0 };
  };

  let served = 0;
  try {
    while (served < maxQueries && performance.now() < deadline) {
      // Changes owed at the configured rate go first, as watcher events would interleave.
      while (performance.now() >= nextChangeAt) {
        nextChangeAt += changeEveryMs;
        const i = changes % SOAK_FILES;
        const token = `soakchange${changes}`;
        fs.writeFileSync(
          path.join(root, soakPath(i)),
          `# Soak file ${i}\n\n${token} ${MIX.phrase[changes % MIX.phrase.length]}\n\n${'filler words for the soak '.repeat(changes % 50)}\n`,
        );
        await engine.updateFile(soakPath(i));
        latest.set(soakPath(i), token);
        if (engine.searchIndexed(token, { fuzzy: 'off' }).results.some((r) => r.path === soakPath(i))) visibleNow++;
        else failures.push(`${token} not searchable right after its update`);
        changes++;
        current.changes++;
      }
      const kind = KINDS[served % KINDS.length]!;
      const list = MIX[kind];
      const query = list[Math.floor(served / KINDS.length) % list.length]!;
      const t0 = performance.now();
      await engine.search(query);
      const ms = performance.now() - t0;
      all.push(ms);
      byKind.get(kind)!.push(ms);
      current.times.push(ms);
      current.queries++;
      served++;
      const now = performance.now();
      if (now >= windowEnds) {
        closeWindow(now);
        windowEnds += windowMs;
      }
    }
    if (current.queries > 0) closeWindow(performance.now());

    // Every file's newest change is what search finds now.
    let finalVisible = 0;
    for (const [relPath, token] of latest) {
      if (engine.searchIndexed(token, { fuzzy: 'off' }).results.some((r) => r.path === relPath)) finalVisible++;
      else failures.push(`${relPath}: final ${token} not searchable`);
    }
    const seconds = (performance.now() - started) / 1000;
    (globalThis as { gc?: () => void }).gc?.();
    const endMem = process.memoryUsage();
    console.log(
      `\n${served.toLocaleString('en-US')} queries in ${seconds.toFixed(0)} s (${(served / seconds).toFixed(0)}/s) while ${changes.toLocaleString('en-US')} changes were indexed (${(changes / seconds).toFixed(1)}/s)`,
    );
    console.log(
      `Latency, ms: p50 ${pct(all, 50).toFixed(1)}  p95 ${pct(all, 95).toFixed(1)}  p99 ${pct(all, 99).toFixed(1)}  max ${Math.max(...all).toFixed(1)}`,
    );
    for (const [kind, times] of byKind)
      console.log(`  ${kind.padEnd(10)} p50 ${pct(times, 50).toFixed(1)}  p95 ${pct(times, 95).toFixed(1)}  p99 ${pct(times, 99).toFixed(1)}`);
    console.log(
      `Memory, MB (after GC${(globalThis as { gc?: () => void }).gc ? '' : ' — run with --expose-gc for exact figures'}): rss ${(startMem.rss / 1e6).toFixed(0)} → ${(endMem.rss / 1e6).toFixed(0)}, heap ${(startMem.heapUsed / 1e6).toFixed(0)} → ${(endMem.heapUsed / 1e6).toFixed(0)}`,
    );
    if (windows.length >= 4) {
      const half = Math.floor(windows.length / 2);
      const firstHalf = Math.max(...windows.slice(1, half).map((w) => w.rssMb));
      const secondHalf = Math.max(...windows.slice(half).map((w) => w.rssMb));
      console.log(`Peak rss, first half vs second half of the run: ${firstHalf.toFixed(0)} vs ${secondHalf.toFixed(0)} MB`);
    }
    console.log(
      `Changes searchable right after their update: ${visibleNow} of ${changes}; newest version of every changed file searchable at the end: ${finalVisible} of ${latest.size}`,
    );
    for (const failure of failures.slice(0, 10)) console.log(`  MISSED ${failure}`);
    process.exitCode = failures.length === 0 ? 0 : 1;
  } finally {
    for (let i = 0; i < SOAK_FILES; i++) await engine.removeFile(soakPath(i));
    fs.rmSync(soakDir, { recursive: true, force: true });
    engine.close();
  }
}

function pct(values: number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

await main();
