// What the extension host feels, measured through the same client, worker process and protocol the
// extension uses (src/worker/client.ts starting dist/worker.cjs): event-loop delay on the host thread
// while the worker indexes a large tree, the peak memory of the worker and of the host, save →
// searchable latency, and per-keystroke query latency (p50/p95) as a user types a query.
//   node bench/extension-speed.ts [folder]     (default /usr/lib/node_modules/npm)
//
// Event-loop delay is timer lateness, so it also counts the time the OS did not schedule the thread
// at all: the bench measures an idle window first (same process, worker open but idle) as the
// machine's floor, and the host's own work directly (time inside the message handler, and event-loop
// utilisation). Activation time comes from the extension's log of the last VS Code test run
// (test-results/*/extension.log, written by scripts/vscode-host/run-tests.ts).
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import type { Request } from '../src/protocol/worker.ts';
import { EngineClient, type Result } from '../src/worker/client.ts';
import { keystrokes as prefixesOf, TYPED_QUERIES } from './lib/queries.ts';

const root = path.resolve(process.argv[2] ?? '/usr/lib/node_modules/npm');
const scratch = mkdtempSync(path.join(tmpdir(), 'fused-bench-'));
const client = new EngineClient(path.join(import.meta.dirname, '..', 'dist', 'worker.cjs'), console);
// The host's own work per event, as the extension host would do it: dispatch and re-render.
let messages = 0;
let longestHandlerMs = 0;
client.onEvent((event) => {
  const t = performance.now();
  messages++;
  JSON.stringify(event); // stands in for the status bar text and the panel's state message
  longestHandlerMs = Math.max(longestHandlerMs, performance.now() - t);
});
const req = (body: Omit<Request, 'id'>): Promise<Result<unknown>> => client.request(body);
/** The CPU time a process's threads have had so far (Linux's per-thread schedstat, in ns), in ms. */
const cpuMs = (pid: number | undefined) => {
  const tasks = pid === undefined ? [] : readdirSync(`/proc/${pid}/task`);
  return tasks.reduce((sum, task) => sum + Number(readFileSync(`/proc/${pid}/task/${task}/schedstat`, 'utf8').split(' ')[0]) / 1e6, 0);
};
/** A process's peak resident memory so far (Linux), in MB. */
const peakMb = (pid: number | undefined) => {
  const status = pid === undefined || !existsSync(`/proc/${pid}/status`) ? '' : readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = /VmHWM:\s+(\d+) kB/.exec(status)?.[1];
  return kb ? `${(Number(kb) / 1024).toFixed(0)} MB` : 'unknown';
};
const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]!;

const folder = {
  id: 'f',
  name: path.basename(root),
  root,
  dbFile: path.join(scratch, 'index.db'),
  index: { include: [], exclude: [], maxFileBytes: 1048576, chunkMaxBytes: 4096 },
};
await req({ type: 'open', folders: [folder] } as Omit<Request, 'id'>);
const ms = (ns: number) => (ns / 1e6).toFixed(1);
const idle = monitorEventLoopDelay({ resolution: 10 });
idle.enable();
await new Promise((r) => setTimeout(r, 5_000));
idle.disable();
const delay = monitorEventLoopDelay({ resolution: 10 });
delay.enable();
const started = performance.now();
const elu = performance.eventLoopUtilization();
messages = 0;
const sync = await req({ type: 'sync', folder: 'f' } as Omit<Request, 'id'>);
const busy = performance.eventLoopUtilization(elu);
delay.disable();
const seconds = (performance.now() - started) / 1000;
const summary = sync.ok ? (sync.value as { files: number; chunks: number }) : undefined;
console.log(`indexed ${root}: ${summary?.files} files, ${summary?.chunks} chunks in ${seconds.toFixed(1)} s`);
console.log(
  `host event-loop delay while indexing: max ${ms(delay.max)} ms, p99 ${ms(delay.percentile(99))} ms; idle floor on this machine (5 s, no work): max ${ms(idle.max)} ms, p99 ${ms(idle.percentile(99))} ms`,
);
console.log(
  `host work while indexing: ${messages} events (${(messages / seconds).toFixed(1)}/s), longest handler ${longestHandlerMs.toFixed(2)} ms, event-loop utilisation ${(100 * busy.utilization).toFixed(2)}%`,
);
console.log(`peak memory by the end of the first index: the engine worker process ${peakMb(client.workerPid)}, the host process ${peakMb(process.pid)}`);

// Save → searchable: append a unique word to a file, ask for an update, then search. The first save
// after the index is built is reported apart: it pays for warming what later saves reuse.
async function saves(target: string): Promise<void> {
  const original = readFileSync(target, 'utf8');
  const rows: Array<{ update: number; search: number; cpu: number }> = [];
  try {
    for (let i = 0; i < 10; i++) {
      const word = `zqxbench${i}marker`;
      writeFileSync(target, `${original}\n// ${word}\n`);
      // CPU time of the worker process's threads: what the save costs, apart from waiting for a
      // core on a busy machine.
      const cpu = cpuMs(client.workerPid);
      const t = performance.now();
      await req({ type: 'update', folder: 'f', paths: [path.relative(root, target)] } as Omit<Request, 'id'>);
      const u = performance.now();
      const answer = await req({ type: 'search', query: word, options: { limit: 10 } } as Omit<Request, 'id'>);
      rows.push({ update: u - t, search: performance.now() - u, cpu: cpuMs(client.workerPid) - cpu });
      if (!answer.ok || (answer.value as { results: unknown[] }).results.length === 0) console.log(`  ${word} not found!`);
    }
  } finally {
    writeFileSync(target, original);
  }
  const totals = rows.map((r) => r.update + r.search);
  const rest = totals.slice(1);
  console.log(
    `save → searchable (${path.relative(root, target)}, ${(Buffer.byteLength(original) / 1024).toFixed(0)} KB): first ${totals[0]!.toFixed(1)} ms ` +
      `(update ${rows[0]!.update.toFixed(1)} + search ${rows[0]!.search.toFixed(1)}), then p50 ${pct(rest, 50).toFixed(1)} ms, max ${Math.max(...rest).toFixed(1)} ms ` +
      `(update p50 ${pct(
        rows.slice(1).map((r) => r.update),
        50,
      ).toFixed(1)}, search p50 ${pct(
        rows.slice(1).map((r) => r.search),
        50,
      ).toFixed(1)}; ` +
      `CPU p50 ${pct(
        rows.map((r) => r.cpu),
        50,
      ).toFixed(0)} ms, max ${Math.max(...rows.map((r) => r.cpu)).toFixed(0)} ms)`,
  );
}
// A user saves some time after the index is built, not within milliseconds of it: give the worker the
// moment it takes to prepare what the first query needs (src/worker/worker.ts, prepareWhenIdle).
await new Promise((r) => setTimeout(r, 1_000));
const targets = process.env.BENCH_FILE
  ? [process.env.BENCH_FILE]
  : [path.join(root, 'lib', 'npm.js'), path.join(root, 'node_modules/@npmcli/arborist/lib/node.js')];
for (const target of targets.filter((t) => existsSync(t))) await saves(target);

// Per keystroke: every prefix of a few queries, as the quick pick sends them (round trip).
const keystrokes: Array<{ prefix: string; ms: number }> = [];
for (const prefix of prefixesOf(TYPED_QUERIES)) {
  const t = performance.now();
  await req({ type: 'search', query: prefix, options: { limit: 10 } } as Omit<Request, 'id'>);
  keystrokes.push({ prefix, ms: performance.now() - t });
}
const keystrokeTimes = keystrokes.map((k) => k.ms);
const slowestKeystroke = keystrokes.reduce((a, b) => (b.ms > a.ms ? b : a));
console.log(
  `per-keystroke query round trip (${keystrokes.length} queries): p50 ${pct(keystrokeTimes, 50).toFixed(1)} ms, p95 ${pct(keystrokeTimes, 95).toFixed(1)} ms, max ${slowestKeystroke.ms.toFixed(1)} ms for ${JSON.stringify(slowestKeystroke.prefix)} (${keystrokes.findIndex((k) => k === slowestKeystroke) + 1} of ${keystrokes.length})`,
);
console.log(`peak memory over the whole run: the engine worker process ${peakMb(client.workerPid)}, the host process ${peakMb(process.pid)}`);
await client.stop();
rmSync(scratch, { recursive: true, force: true });

for (const suite of ['integration', 'e2e']) {
  const log = path.join(import.meta.dirname, '..', 'test-results', suite, 'extension.log');
  const times = existsSync(log) ? [...readFileSync(log, 'utf8').matchAll(/activated in ([\d.]+) ms/g)].map((m) => Number(m[1])) : [];
  console.log(
    times.length > 0
      ? `activation (extension log of the last ${suite} run): ${times.map((t) => `${t.toFixed(1)} ms`).join(', ')}`
      : `activation: no extension log from a ${suite} run yet (npm run test:${suite} writes test-results/${suite}/extension.log)`,
  );
}
