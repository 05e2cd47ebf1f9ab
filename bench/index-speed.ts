// `npm run bench [-- DIR]`: indexes a real source tree with the full engine and with the floor —
// the same files cut into fixed 50-line chunks, inserted into a Porter and a trigram FTS5 table
// in one transaction — each in its own process, one after the other, and prints the ratios.
//
// DIR defaults to the npm CLI package that ships with Node. `--linux` extracts Debian's
// linux-source-6.1 tarball (about 75k files) into .cache/ and uses that.

import Database from 'better-sqlite3';
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { crawl, readTextFile } from '../src/core/crawl/index.ts';
import { ENGINE_NODE_FLAGS, engineEnvironment } from '../src/core/engine-process.ts';
import { Engine } from '../src/core/engine.ts';
import { resolveIndexOptions } from '../src/core/options.ts';
import { linuxTree } from './lib/linux-tree.ts';

interface Run {
  engine: string;
  files: number;
  chunks: number;
  textBytes: number;
  seconds: number;
  dbBytes: number;
  maxRssMb: number;
  /** Seconds spent on each tenth of the files, in indexing order. */
  tenths: number[];
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const child = args.indexOf('--child');
  if (child !== -1) {
    const [engine, dir, dbFile] = args.slice(child + 1) as [string, string, string];
    const run = engine === 'floor' ? await floor(dir, dbFile) : await ours(dir, dbFile);
    process.stdout.write(JSON.stringify(run));
    return;
  }
  const dir = args.includes('--linux') ? linuxTree() : path.resolve(args.find((a) => !a.startsWith('--')) ?? defaultCorpus());
  console.log(`Corpus: ${dir}`);
  const runs = ['floor', 'ours'].map((engine) => {
    const dbFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), `bench-${engine}-`)), 'index.db');
    // How the CLI and the extension run the engine (src/core/engine-process.ts).
    const result = spawnSync(process.execPath, ['--expose-gc', ...ENGINE_NODE_FLAGS, process.argv[1]!, '--child', engine, dir, dbFile], {
      env: engineEnvironment(),
      encoding: 'utf8',
      maxBuffer: 1 << 26,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    if (result.status !== 0) throw new Error(`${engine} run failed`);
    fs.rmSync(path.dirname(dbFile), { recursive: true, force: true });
    return JSON.parse(result.stdout) as Run;
  });
  report(runs);
}

function report(runs: Run[]): void {
  const [floorRun, oursRun] = runs as [Run, Run];
  const row = (r: Run) =>
    [
      r.engine.padEnd(6),
      String(r.files).padStart(7),
      String(r.chunks).padStart(8),
      (r.textBytes / 1e6).toFixed(1).padStart(8),
      r.seconds.toFixed(1).padStart(8),
      (r.textBytes / 1e6 / r.seconds).toFixed(2).padStart(7),
      (r.dbBytes / 1e6).toFixed(1).padStart(9),
      (r.dbBytes / r.textBytes).toFixed(2).padStart(7),
      String(r.maxRssMb).padStart(8),
      (r.tenths.at(-1)! / r.tenths[0]!).toFixed(2).padStart(9),
    ].join(' ');
  console.log(`engine   files   chunks  text MB  seconds    MB/s  index MB  size/x  peak MB  last/1st`);
  for (const r of runs) console.log(row(r));
  console.log('');
  console.log(`time, ours / floor:        ${(oursRun.seconds / floorRun.seconds).toFixed(2)}×   (target ≤ 1.5×)`);
  console.log(`linearity, ours last/first tenth per-file cost: ${(oursRun.tenths.at(-1)! / oursRun.tenths[0]!).toFixed(2)}   (target ≤ 1.3)`);
  console.log(
    `index size, ours / text:   ${(oursRun.dbBytes / oursRun.textBytes).toFixed(2)}×   (target ≤ 4×; floor ${(floorRun.dbBytes / floorRun.textBytes).toFixed(2)}×)`,
  );
  console.log(`peak memory, ours:         ${oursRun.maxRssMb} MB   (target ≤ 500 MB)`);
  console.log(`seconds per tenth, floor:  ${floorRun.tenths.map((t) => t.toFixed(2)).join(' ')}`);
  console.log(`seconds per tenth, ours:   ${oursRun.tenths.map((t) => t.toFixed(2)).join(' ')}`);
}

async function ours(dir: string, dbFile: string): Promise<Run> {
  const engine = await Engine.open({ root: dir, dbFile });
  const marks: Array<{ done: number; at: number }> = [];
  const started = performance.now();
  let total = 0;
  const summary = await engine.sync({
    onProgress: (p) => {
      if (p.phase !== 'indexing') return;
      total = p.filesFound;
      marks.push({ done: p.filesDone, at: performance.now() });
    },
  });
  const seconds = (performance.now() - started) / 1000;
  engine.close();
  return {
    engine: 'ours',
    files: summary.files,
    chunks: summary.chunks,
    textBytes: summary.bytes,
    seconds,
    dbBytes: dbSize(dbFile),
    maxRssMb: Math.round(process.resourceUsage().maxRSS / 1024),
    tenths: tenthsFromMarks(marks, total, started),
  };
}

/** The same files as ours, in the same order, cut into 50-line chunks, text stored in both tables. */
async function floor(dir: string, dbFile: string): Promise<Run> {
  const options = resolveIndexOptions();
  const started = performance.now();
  const files = [];
  for await (const entry of crawl(dir, { include: [], exclude: ['.fused-search/'], maxFileBytes: options.maxFileBytes })) {
    if (entry.type === 'file') files.push(entry.file.relPath);
  }
  const db = new Database(dbFile);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.exec(`CREATE VIRTUAL TABLE porter USING fts5 (source, text, tokenize = 'porter unicode61');
           CREATE VIRTUAL TABLE trigram USING fts5 (source, text, tokenize = 'trigram');`);
  const insertPorter = db.prepare('INSERT INTO porter (source, text) VALUES (?, ?)');
  const insertTrigram = db.prepare('INSERT INTO trigram (source, text) VALUES (?, ?)');
  let chunks = 0;
  let textBytes = 0;
  const tenthEnds: number[] = [];
  db.exec('BEGIN');
  for (let i = 0; i < files.length; i++) {
    const read = await readTextFile(path.join(dir, files[i]!), options.maxFileBytes);
    if (read.ok) {
      textBytes += Buffer.byteLength(read.text);
      const lines = read.text.split('\n');
      for (let at = 0; at < lines.length; at += 50) {
        const text = lines.slice(at, at + 50).join('\n');
        insertPorter.run(files[i]!, text);
        insertTrigram.run(files[i]!, text);
        chunks++;
      }
    }
    if (Math.floor(((i + 1) * 10) / files.length) > Math.floor((i * 10) / files.length)) tenthEnds.push(performance.now());
  }
  db.exec('COMMIT');
  db.close();
  const seconds = (performance.now() - started) / 1000;
  const tenths = tenthEnds.map((end, i) => (end - (i === 0 ? started : tenthEnds[i - 1]!)) / 1000);
  return {
    engine: 'floor',
    files: files.length,
    chunks,
    textBytes,
    seconds,
    dbBytes: dbSize(dbFile),
    maxRssMb: Math.round(process.resourceUsage().maxRSS / 1024),
    tenths,
  };
}

function tenthsFromMarks(marks: Array<{ done: number; at: number }>, total: number, started: number): number[] {
  const tenths: number[] = [];
  let previous = started;
  for (let tenth = 1; tenth <= 10; tenth++) {
    const mark = marks.find((m) => m.done >= (tenth * total) / 10) ?? marks.at(-1);
    const at = mark?.at ?? previous;
    tenths.push((at - previous) / 1000);
    previous = at;
  }
  return tenths;
}

function dbSize(dbFile: string): number {
  return ['', '-wal'].reduce((sum, suffix) => sum + (fs.statSync(dbFile + suffix, { throwIfNoEntry: false })?.size ?? 0), 0);
}

/** The npm CLI package installed with the system's Node: a real, mid-sized JavaScript tree. */
function defaultCorpus(): string {
  return path.join(execFileSync('npm', ['root', '-g'], { encoding: 'utf8' }).trim(), 'npm');
}

await main();
