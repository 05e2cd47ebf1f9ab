// Walks folders with the crawl and prints files/s, then reads and hashes every file it found.
//
//   node bench/crawl-speed.ts [--runs N] [--no-read] <root> [<root> ...]
//
// Several roots are crawled one after the other and counted together. That is how to measure a
// tree whose top-level .gitignore ignores nearly everything, such as the Debian linux-source
// package (`/*` with `!/debian/`): pass its subfolders, e.g. /tmp/linux-6.1/*/.
// Wall-clock time depends on whatever else the machine runs; CPU time is printed beside it.

import path from 'node:path';
import { crawl, readTextFile, type CrawlOptions } from '../src/core/crawl/index.ts';
import type { FileStat } from '../src/core/types.ts';
import { DEFAULT_INDEX_OPTIONS } from '../src/core/options.ts';

/** Reads in flight at once: enough to keep the thread pool busy without queuing thousands. */
const READ_CONCURRENCY = 16;

const args = process.argv.slice(2);
const runsFlag = args.indexOf('--runs');
const runs = runsFlag >= 0 ? Number(args.splice(runsFlag, 2)[1]) : 3;
const readFlag = args.indexOf('--no-read');
const read = readFlag < 0;
if (!read) args.splice(readFlag, 1);
const roots = args;
if (roots.length === 0 || !(runs > 0)) {
  console.error('usage: node bench/crawl-speed.ts [--runs N] [--no-read] <root> [<root> ...]');
  process.exit(2);
}

const options: CrawlOptions = { include: [], exclude: [], maxFileBytes: DEFAULT_INDEX_OPTIONS.maxFileBytes };

let files: Array<FileStat & { absPath: string }> = [];
for (let run = 1; run <= runs; run++) {
  files = [];
  const skips: Record<string, number> = {};
  const measure = startMeasure();
  for (const root of roots) {
    for await (const entry of crawl(root, options)) {
      if (entry.type === 'file') files.push({ ...entry.file, absPath: path.join(root, entry.file.relPath) });
      else skips[entry.reason] = (skips[entry.reason] ?? 0) + 1;
    }
  }
  const { wallMs, cpuMs } = measure();
  console.log(
    `crawl run ${run}: ${files.length} files in ${wallMs.toFixed(0)} ms (cpu ${cpuMs.toFixed(0)} ms) = ` +
      `${Math.round((files.length / wallMs) * 1000)} files/s; skipped ${JSON.stringify(skips)}`,
  );
}

if (read) {
  const measure = startMeasure();
  const reasons: Record<string, number> = {};
  let bytes = 0;
  let next = 0;
  const worker = async () => {
    while (next < files.length) {
      const file = files[next++]!;
      const result = await readTextFile(file.absPath, options.maxFileBytes);
      if (result.ok) bytes += file.size;
      else reasons[result.reason] = (reasons[result.reason] ?? 0) + 1;
    }
  };
  await Promise.all(Array.from({ length: READ_CONCURRENCY }, worker));
  const { wallMs, cpuMs } = measure();
  console.log(
    `read+hash: ${files.length} files, ${(bytes / 1e6).toFixed(1)} MB of text in ${wallMs.toFixed(0)} ms ` +
      `(cpu ${cpuMs.toFixed(0)} ms) = ${Math.round((files.length / wallMs) * 1000)} files/s, ` +
      `${(bytes / 1e6 / (wallMs / 1000)).toFixed(0)} MB/s; not text ${JSON.stringify(reasons)}`,
  );
}

function startMeasure(): () => { wallMs: number; cpuMs: number } {
  const wall = performance.now();
  const cpu = process.cpuUsage();
  return () => {
    const used = process.cpuUsage(cpu);
    return { wallMs: performance.now() - wall, cpuMs: (used.user + used.system) / 1000 };
  };
}
