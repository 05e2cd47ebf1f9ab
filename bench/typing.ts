// `npm run bench:typing [-- --root DIR]`: what a first index takes from the machine while someone
// types, and what the typing feels of it. The folder (default: the Linux tree's drivers/net/ethernet)
// is indexed twice from scratch in fresh processes under the engine's flags: once with nobody
// typing, once with a keystroke every 100 ms throughout, as the extension reports an editor's
// changes to its worker. Beside each run an editor stand-in (a process at normal priority) does
// 4 ms of work every 25 ms and records how late each piece of work finishes; it runs once more with
// no index at all, as the floor.
//
// Prints, per run: seconds, CPU seconds of the indexing process, cores it kept busy on average, the
// share of the run spent resting, and the editor stand-in's lateness p50 / p95 / max.

import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { ENGINE_NODE_FLAGS, engineEnvironment } from '../src/core/engine-process.ts';
import { IndexKeeper } from '../src/core/index-keeper.ts';
import { UserActivity } from '../src/core/user-activity.ts';
import { linuxTree, percentileOf as pct } from './lib/corpora.ts';

const KEYSTROKE_MS = 100;
const FRAME_MS = 25;
const FRAME_WORK_MS = 4;

const { values } = parseArgs({
  options: {
    root: { type: 'string' },
    child: { type: 'string' },
    probe: { type: 'boolean', default: false },
    db: { type: 'string' },
  },
});

interface IndexRun {
  seconds: number;
  cpuSeconds: number;
  restingSeconds: number;
  files: number;
}

async function indexChild(root: string, dbFile: string, typing: boolean): Promise<void> {
  const activity = new UserActivity();
  const keystrokes = typing ? setInterval(() => activity.noteActive(), KEYSTROKE_MS) : undefined;
  if (typing) activity.noteActive();
  const keeper = await IndexKeeper.open({ root, dbFile, kind: 'bench', activity });
  let restingSince: number | undefined;
  let restingMs = 0;
  const cpu = process.cpuUsage();
  const started = performance.now();
  const summary = await keeper.sync({
    onProgress: (progress) => {
      if (progress.resting && restingSince === undefined) restingSince = performance.now();
      if (!progress.resting && restingSince !== undefined) {
        restingMs += performance.now() - restingSince;
        restingSince = undefined;
      }
    },
  });
  const seconds = (performance.now() - started) / 1000;
  const used = process.cpuUsage(cpu);
  clearInterval(keystrokes);
  await keeper.close();
  const run: IndexRun = { seconds, cpuSeconds: (used.user + used.system) / 1e6, restingSeconds: restingMs / 1000, files: summary?.files ?? 0 };
  process.stdout.write(JSON.stringify(run));
}

/** The editor stand-in: until stdin closes, 4 ms of work every 25 ms; prints each one's lateness. */
function probeChild(): void {
  const lateness: number[] = [];
  let due = performance.now() + FRAME_MS;
  const frame = () => {
    const begin = performance.now();
    while (performance.now() - begin < FRAME_WORK_MS);
    // A timer may fire a fraction of a millisecond early: that is no lateness.
    lateness.push(Math.max(0, performance.now() - (due + FRAME_WORK_MS)));
    due += FRAME_MS;
    timer = setTimeout(frame, Math.max(0, due - performance.now()));
  };
  let timer = setTimeout(frame, FRAME_MS);
  process.stdin.resume();
  process.stdin.on('end', () => {
    clearTimeout(timer);
    process.stdout.write(JSON.stringify(lateness));
  });
}

/** What a child process prints, once it has ended. */
function finished(child: ChildProcess): Promise<{ status: number | null; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (data: Buffer) => (stdout += data.toString()));
  child.stderr?.on('data', (data: Buffer) => (stderr += data.toString()));
  return new Promise((resolve) => child.on('close', (status: number | null) => resolve({ status, stdout, stderr })));
}

async function withProbe<T>(work: () => Promise<T>): Promise<{ result: T; lateness: number[] }> {
  const probe = spawn(process.execPath, [process.argv[1]!, '--probe'], { stdio: ['pipe', 'pipe', 'inherit'] });
  const ended = finished(probe);
  const result = await work();
  probe.stdin.end();
  return { result, lateness: JSON.parse((await ended).stdout) as number[] };
}

async function indexRun(root: string, typing: boolean): Promise<IndexRun> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fused-typing-bench-'));
  const mode = typing ? 'typing' : 'quiet';
  const child = spawn(process.execPath, [...ENGINE_NODE_FLAGS, process.argv[1]!, '--child', mode, '--root', root, '--db', path.join(dir, 'index.db')], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: engineEnvironment(),
  });
  const { status, stdout, stderr } = await finished(child);
  fs.rmSync(dir, { recursive: true, force: true });
  if (status !== 0) throw new Error(`the ${mode} run failed: ${stderr}`);
  return JSON.parse(stdout) as IndexRun;
}

if (values.probe) {
  probeChild();
} else if (values.child) {
  await indexChild(values.root!, values.db!, values.child === 'typing');
} else {
  const root = values.root ?? path.join(linuxTree(), 'drivers/net/ethernet');
  const floor = await withProbe(() => new Promise((resolve) => setTimeout(resolve, 10_000)));
  const quiet = await withProbe(() => indexRun(root, false));
  const typing = await withProbe(() => indexRun(root, true));
  const late = (lateness: number[]) => `${pct(lateness, 50).toFixed(1)} / ${pct(lateness, 95).toFixed(1)} / ${Math.max(...lateness).toFixed(1)}`;
  console.log(
    `first index of ${root} (${quiet.result.files} files), ${os.availableParallelism()} CPUs; editor stand-in: ${FRAME_WORK_MS} ms of work every ${FRAME_MS} ms\n`,
  );
  console.log('| run | seconds | CPU seconds | cores busy | resting | editor lateness p50 / p95 / max, ms |');
  console.log('| --- | ---: | ---: | ---: | ---: | ---: |');
  console.log(`| no index running (10 s) | | | | | ${late(floor.lateness)} |`);
  for (const [name, { result, lateness }] of [
    ['nobody typing', quiet],
    [`a keystroke every ${KEYSTROKE_MS} ms`, typing],
  ] as const) {
    console.log(
      `| ${name} | ${result.seconds.toFixed(1)} | ${result.cpuSeconds.toFixed(1)} | ${(result.cpuSeconds / result.seconds).toFixed(2)} | ${((100 * result.restingSeconds) / result.seconds).toFixed(0)}% | ${late(lateness)} |`,
    );
  }
}
