// Chunking speed per language over a folder: `node bench/chunk-speed.ts <folder> [chunkMaxBytes]`.
// Only chunk() is timed, not reading files, so the figures compare with SQLite insert time.
// Files the indexer would skip (over 1 MiB, or with a NUL byte in their first 8 KiB) are skipped.
// Rates are per wall-clock second inside chunk(); on a busy machine compare the process's CPU time,
// printed at the end, with the total wall time to see how much of it was spent waiting for a core.

import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { createChunker } from '../src/core/chunk/index.ts';

const MAX_FILE_BYTES = 1024 * 1024;

interface Tally {
  files: number;
  bytes: number;
  chunks: number;
  ms: number;
  slowestMs: number;
  slowest: string;
}

const root = process.argv[2];
if (!root) {
  console.error('usage: node bench/chunk-speed.ts <folder> [chunkMaxBytes]');
  process.exit(2);
}
const chunkMaxBytes = Number(process.argv[3] ?? 4096);

const started = performance.now();
const chunker = await createChunker({ chunkMaxBytes });
const loadMs = performance.now() - started;

const tallies = new Map<string, Tally>();
const cpuAtStart = process.cpuUsage();
const wallAtStart = performance.now();
for (const file of walk(root)) {
  const buffer = readFileSync(file);
  if (buffer.length > MAX_FILE_BYTES || buffer.subarray(0, 8192).includes(0)) continue;
  const text = buffer.toString('utf8');
  const relPath = path.relative(root, file);
  const t0 = performance.now();
  const { language, chunks } = await chunker.chunk(relPath, text);
  const ms = performance.now() - t0;
  const tally = tallies.get(language) ?? { files: 0, bytes: 0, chunks: 0, ms: 0, slowestMs: 0, slowest: '' };
  tally.files++;
  tally.bytes += buffer.length;
  tally.chunks += chunks.length;
  tally.ms += ms;
  if (ms > tally.slowestMs) [tally.slowestMs, tally.slowest] = [ms, relPath];
  tallies.set(language, tally);
}

const rows = [...tallies.entries()].sort((a, b) => b[1].bytes - a[1].bytes);
const total = rows.reduce((sum, [, t]) => ({ files: sum.files + t.files, bytes: sum.bytes + t.bytes, chunks: sum.chunks + t.chunks, ms: sum.ms + t.ms }), {
  files: 0,
  bytes: 0,
  chunks: 0,
  ms: 0,
});
console.log(`grammars loaded in ${loadMs.toFixed(0)} ms; chunkMaxBytes ${chunkMaxBytes}`);
const cpu = process.cpuUsage(cpuAtStart);
const wallMs = performance.now() - wallAtStart;
console.log(
  `${'language'.padEnd(18)} ${'files'.padStart(7)} ${'MB'.padStart(8)} ${'chunks'.padStart(8)} ${'s'.padStart(7)} ${'MB/s'.padStart(7)}  slowest file`,
);
for (const [language, t] of rows) {
  console.log(
    `${language.padEnd(18)} ${String(t.files).padStart(7)} ${mb(t.bytes).padStart(8)} ${String(t.chunks).padStart(8)} ${(t.ms / 1000).toFixed(2).padStart(7)} ${rate(t.bytes, t.ms).padStart(7)}  ${t.slowest} (${t.slowestMs.toFixed(0)} ms)`,
  );
}
console.log(
  `${'total'.padEnd(18)} ${String(total.files).padStart(7)} ${mb(total.bytes).padStart(8)} ${String(total.chunks).padStart(8)} ${(total.ms / 1000).toFixed(2).padStart(7)} ${rate(total.bytes, total.ms).padStart(7)}`,
);
console.log(`whole run, reading files included: ${(wallMs / 1000).toFixed(2)} s wall, ${((cpu.user + cpu.system) / 1e6).toFixed(2)} s CPU`);

function* walk(dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === '.git' || entry.name === 'node_modules') continue;
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) yield* walk(full);
    else if (entry.isFile()) yield full;
  }
}

function mb(bytes: number): string {
  return (bytes / 1e6).toFixed(1);
}

function rate(bytes: number, ms: number): string {
  return ms > 0 ? (bytes / 1e6 / (ms / 1000)).toFixed(1) : '-';
}
