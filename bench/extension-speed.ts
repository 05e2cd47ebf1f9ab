// What the extension host feels, measured through the same worker and protocol the extension uses
// (dist/worker.cjs): event-loop delay on the host thread while the worker indexes a large tree,
// save → searchable latency, and per-keystroke query latency (p50/p95) as a user types a query.
//   node bench/extension-speed.ts [folder]     (default /usr/lib/node_modules/npm)
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import type { FromWorker, Request } from '../src/worker/protocol.ts';

const root = path.resolve(process.argv[2] ?? '/usr/lib/node_modules/npm');
const scratch = mkdtempSync(path.join(tmpdir(), 'fused-bench-'));
const worker = new Worker(path.join(import.meta.dirname, '..', 'dist', 'worker.cjs'));
let nextId = 0;
const pending = new Map<number, (m: FromWorker) => void>();
worker.on('message', (m: FromWorker) => m.type === 'response' && pending.get(m.id)?.(m));
const req = (body: Omit<Request, 'id'>) => new Promise<FromWorker & { type: 'response' }>((ok) => {
  const id = ++nextId;
  pending.set(id, ok as (m: FromWorker) => void);
  worker.postMessage({ ...body, id });
});
const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]!;

const folder = { id: 'f', name: path.basename(root), root, dbFile: path.join(scratch, 'index.db'), index: { include: [], exclude: [], maxFileBytes: 1048576, chunkMaxBytes: 4096 } };
await req({ type: 'open', folders: [folder] } as Omit<Request, 'id'>);
const delay = monitorEventLoopDelay({ resolution: 10 });
delay.enable();
const started = performance.now();
const sync = await req({ type: 'sync', folder: 'f' } as Omit<Request, 'id'>);
delay.disable();
const summary = sync.ok ? (sync.value as { files: number; chunks: number }) : undefined;
console.log(`indexed ${root}: ${summary?.files} files, ${summary?.chunks} chunks in ${((performance.now() - started) / 1000).toFixed(1)} s`);
console.log(`host event-loop delay while indexing: max ${(delay.max / 1e6).toFixed(1)} ms, p99 ${(delay.percentile(99) / 1e6).toFixed(1)} ms`);

// Save → searchable: append a unique word to a mid-sized file, ask for an update, then search.
const target = process.env.BENCH_FILE ?? path.join(root, 'lib', 'npm.js');
const original = readFileSync(target, 'utf8');
const saves: number[] = [];
try {
  for (let i = 0; i < 10; i++) {
    const word = `zqxbench${i}marker`;
    writeFileSync(target, `${original}\n// ${word}\n`);
    const t = performance.now();
    await req({ type: 'update', folder: 'f', paths: [path.relative(root, target)] } as Omit<Request, 'id'>);
    const answer = await req({ type: 'search', query: word, options: { limit: 10 } } as Omit<Request, 'id'>);
    saves.push(performance.now() - t);
    if (!answer.ok || (answer.value as { results: unknown[] }).results.length === 0) console.log(`  ${word} not found!`);
  }
} finally {
  writeFileSync(target, original);
}
console.log(`save → searchable (${(original.length / 1024).toFixed(0)} KB file): p50 ${pct(saves, 50).toFixed(1)} ms, max ${Math.max(...saves).toFixed(1)} ms`);

// Per keystroke: every prefix of a few queries, as the quick pick sends them (round trip).
const keystrokes: number[] = [];
for (const query of ['install dependencies', 'package lock file', 'registry auth token', 'workspace config']) {
  for (let n = 1; n <= query.length; n++) {
    const t = performance.now();
    await req({ type: 'search', query: query.slice(0, n), options: { limit: 10 } } as Omit<Request, 'id'>);
    keystrokes.push(performance.now() - t);
  }
}
console.log(`per-keystroke query round trip (${keystrokes.length} queries): p50 ${pct(keystrokes, 50).toFixed(1)} ms, p95 ${pct(keystrokes, 95).toFixed(1)} ms`);
await worker.terminate();
rmSync(scratch, { recursive: true, force: true });
