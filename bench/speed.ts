// `npm run bench:speed [-- --linux] [-- --only npm,rxjs,linux] [-- --cap-seconds N]`
//
// Indexes each corpus with each engine — ours, context-mode's ContentStore, the plain FTS5 Porter
// floor — every engine in its own child process, one after the other, over the same text files;
// then times a fixed query set in a fresh child (cold: each query's first run after opening;
// warm: further rounds), and ripgrep over the same tree. Prints the tables and ratios, writes
// docs/benchmarks/speed-<corpus>.json and the SVG plots beside them.
//
// The Linux tree is behind --linux: a full run takes tens of minutes. ContentStore's indexing is
// capped by --cap-seconds (default: none, 240 on Linux); a capped run reports how far it got.

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { readTextFile } from '../src/core/crawl/index.ts';
import { ENGINE_NODE_FLAGS, engineEnvironment } from '../src/core/engine-process.ts';
import { Engine } from '../src/core/engine.ts';
import { resolveIndexOptions } from '../src/core/options.ts';
import {
  dbSize,
  linuxTree,
  mediumTree,
  MEDIUM_PACKAGE,
  npmTree,
  peakRssMb,
  percentile,
  percentileOf,
  perFileCurve,
  textFiles,
  type CorpusFile,
  type Mark,
} from './lib/corpora.ts';
import { contextModeVersion, fiftyLinePieces, Fts5Floor, openContentStore } from './lib/peers.ts';
import { LINUX_QUERIES, NPM_QUERIES, q, type Query } from './lib/queries.ts';
import { lineChart } from './lib/svg.ts';

type EngineName = 'ours' | 'contentstore' | 'fts5';
const ENGINES: EngineName[] = ['ours', 'contentstore', 'fts5'];
const LABEL: Record<EngineName | 'ripgrep', string> = { ours: 'ours', contentstore: 'ContentStore', fts5: 'FTS5 Porter', ripgrep: 'ripgrep' };
const LIMIT = 10;
const WARM_ROUNDS = 5;
const OUT = path.resolve('docs/benchmarks');

interface Corpus {
  name: string;
  dir: () => string;
  queries: Query[];
  /** ripgrep's two fixed searches: a literal identifier, and two words on one line, any case. */
  literal: string;
  twoWords: [string, string];
  capSeconds?: number;
}

const CORPORA: Corpus[] = [
  {
    name: 'npm',
    dir: npmTree,
    literal: 'buildIdealTree',
    twoWords: ['peer', 'dependency'],
    queries: NPM_QUERIES,
  },
  {
    name: 'rxjs',
    dir: mediumTree,
    literal: 'shareReplay',
    twoWords: ['higher-order', 'observable'],
    queries: [
      ...q('identifier', 'switchMap', 'BehaviorSubject', 'shareReplay', 'observeOn'),
      ...q(
        'question',
        'how to cancel the previous request when a new value arrives',
        'what happens when a subscriber unsubscribes',
        'how do I retry with a delay',
        'which operator combines the latest values',
      ),
      ...q('phrase', 'higher-order observable', 'marble diagram', 'teardown logic', 'error notification'),
      ...q('typo', 'subscibe observable', 'obsevable completes', 'debouce time', 'scheduer async'),
    ],
  },
  {
    name: 'linux',
    dir: linuxTree,
    literal: 'spin_lock_irqsave',
    twoWords: ['page', 'fault'],
    capSeconds: 240,
    queries: LINUX_QUERIES,
  },
];

interface IndexRun {
  engine: EngineName;
  files: number;
  filesTotal: number;
  textBytes: number;
  seconds: number;
  dbBytes: number;
  peakMb: number;
  /** Set when the run stopped at the time cap before the last file. */
  capped: boolean;
  tenths: Array<{ upTo: number; msPerFile: number }>;
  curve: Array<{ upTo: number; msPerFile: number }>;
  /** The first re-index after indexing: ours loads its grammars on the indexing thread then (its pool threads did the chunking). */
  reindexMs: number;
  /** The median of the REINDEX_EDITS re-indexes after the first: what each later save costs. */
  reindexLaterMs: number;
  reindexPath: string;
}

interface QueryRun {
  engine: EngineName | 'ripgrep';
  openMs: number;
  /** Per query, in query-set order: first run, then the warm rounds. */
  cold: number[];
  warm: number[][];
  hits: number[];
  peakMb: number;
}

interface CorpusResult {
  corpus: string;
  dir: string;
  files: number;
  textBytes: number;
  queries: Query[];
  index: IndexRun[];
  query: QueryRun[];
  ripgrep: { literal: { pattern: string; ms: number[]; files: number }; twoWords: { pattern: string; ms: number[]; files: number } };
  machine: Record<string, string>;
}

// ---------------------------------------------------------------------------------- children

async function childIndex(engine: EngineName, dir: string, work: string, capSeconds: number): Promise<IndexRun> {
  const files = JSON.parse(fs.readFileSync(path.join(work, 'files.json'), 'utf8')) as CorpusFile[];
  const dbFile = path.join(work, `${engine}.db`);
  const marks: Mark[] = [];
  const started = performance.now();
  const clock = () => performance.now() - started;
  let indexed = files.length;
  let textBytes = files.reduce((sum, f) => sum + f.bytes, 0);
  let capped = false;
  const target = files[medianBySize(files)]!;
  let reindex = { first: NaN, later: NaN };

  if (engine === 'ours') {
    const ours = await Engine.open({ root: dir, dbFile });
    const summary = await ours.sync({
      onProgress: (p) => {
        if (p.phase === 'indexing') marks.push({ done: p.filesDone, ms: clock() });
      },
    });
    // As `fused-search index` and every long-running host do: the vocabulary is stored with the
    // index, so the query child's first typo does not spend seconds building it, and the segments
    // the bulk writes left are merged (hosts do that while idle; it counts as indexing time here).
    ours.prepareVocabulary();
    while (ours.mergeSegments());
    marks.push({ done: summary.files + Object.values(summary.skipped).reduce((a, b) => a + b, 0), ms: clock() });
    indexed = summary.files;
    textBytes = summary.bytes;
    const seconds = clock() / 1000;
    reindex = await editAndTime(target.absPath, () => ours.updateFile(target.relPath));
    ours.close();
    return finish(seconds);
  }

  const { maxFileBytes } = resolveIndexOptions();
  const cap = capSeconds > 0 ? capSeconds * 1000 : Infinity;
  if (engine === 'contentstore') {
    const store = await openContentStore(dbFile);
    for (let i = 0; i < files.length; i++) {
      store.index({ path: files[i]!.absPath, source: files[i]!.relPath });
      marks.push({ done: i + 1, ms: clock() });
      if (clock() > cap && i + 1 < files.length) {
        capped = true;
        indexed = i + 1;
        textBytes = files.slice(0, indexed).reduce((sum, f) => sum + f.bytes, 0);
        break;
      }
    }
    const seconds = clock() / 1000;
    reindex = await editAndTime(target.absPath, () => store.index({ path: target.absPath, source: target.relPath }));
    store.close();
    return finish(seconds);
  }

  const floor = new Fts5Floor(dbFile);
  floor.db.exec('BEGIN');
  for (let i = 0; i < files.length; i++) {
    const read = await readTextFile(files[i]!.absPath, maxFileBytes);
    if (read.ok) floor.replace(files[i]!.relPath, fiftyLinePieces(files[i]!.relPath, read.text));
    marks.push({ done: i + 1, ms: clock() });
  }
  floor.db.exec('COMMIT');
  const seconds = clock() / 1000;
  reindex = await editAndTime(target.absPath, async () => {
    const read = await readTextFile(target.absPath, maxFileBytes);
    if (read.ok) floor.db.transaction(() => floor.replace(target.relPath, fiftyLinePieces(target.relPath, read.text)))();
  });
  floor.close();
  return finish(seconds);

  function finish(seconds: number): IndexRun {
    const total = engine === 'ours' ? (marks.at(-1)?.done ?? files.length) : files.length;
    return {
      engine,
      files: indexed,
      filesTotal: files.length,
      textBytes,
      seconds,
      dbBytes: dbSize(dbFile),
      peakMb: peakRssMb(),
      capped,
      tenths: perFileCurve(marks, total, 10),
      curve: perFileCurve(marks, total, 50),
      reindexMs: reindex.first,
      reindexLaterMs: reindex.later,
      reindexPath: target.relPath,
    };
  }
}

/** Re-indexes of one file timed after the first, for the median of what a later save costs. */
const REINDEX_EDITS = 5;

/**
 * Appends a line to the file and times `reindex`, then puts the file back as it was and re-indexes
 * it, untimed; once, then REINDEX_EDITS more times, each with a line of its own.
 */
async function editAndTime(file: string, reindex: () => unknown): Promise<{ first: number; later: number }> {
  const original = fs.readFileSync(file);
  const times: number[] = [];
  for (let edit = 0; edit <= REINDEX_EDITS; edit++) {
    fs.appendFileSync(file, `\n// edit ${edit} by the speed bench\n`);
    const started = performance.now();
    await reindex();
    times.push(performance.now() - started);
    fs.writeFileSync(file, original);
    await reindex();
  }
  return {
    first: times[0]!,
    later: percentileOf(times.slice(1), 50),
  };
}

function medianBySize(files: readonly CorpusFile[]): number {
  const order = files.map((f, i) => [f.bytes, i] as const).sort((a, b) => a[0] - b[0]);
  return order[Math.floor(order.length / 2)]![1];
}

async function childQuery(engine: EngineName, dir: string, work: string, queries: Query[]): Promise<QueryRun> {
  const dbFile = path.join(work, `${engine}.db`);
  const started = performance.now();
  let run: (text: string) => Promise<number>;
  let close: () => void;
  if (engine === 'ours') {
    const ours = await Engine.open({ root: dir, dbFile });
    run = async (text) => (await ours.search(text, { limit: LIMIT })).results.length;
    close = () => ours.close();
  } else if (engine === 'contentstore') {
    const store = await openContentStore(dbFile);
    run = async (text) => store.searchWithFallback(text, LIMIT).length;
    close = () => store.close();
  } else {
    const floor = new Fts5Floor(dbFile);
    run = async (text) => floor.search(text, LIMIT).length;
    close = () => floor.close();
  }
  const openMs = performance.now() - started;
  const cold: number[] = [];
  const hits: number[] = [];
  const warm: number[][] = queries.map(() => []);
  for (const query of queries) {
    const t = performance.now();
    hits.push(await run(query.text));
    cold.push(performance.now() - t);
  }
  for (let round = 0; round < WARM_ROUNDS; round++) {
    for (const [i, query] of queries.entries()) {
      const t = performance.now();
      await run(query.text);
      warm[i]!.push(performance.now() - t);
    }
  }
  close();
  return { engine, openMs, cold, warm, hits, peakMb: peakRssMb() };
}

// ---------------------------------------------------------------------------------- ripgrep

function rg(args: string[], dir: string): { ms: number; files: number } {
  const started = performance.now();
  const result = spawnSync('rg', [...args, '--', dir], { encoding: 'utf8', maxBuffer: 1 << 28 });
  const ms = performance.now() - started;
  if (result.error) throw new Error(`ripgrep is not installed (apt-get install ripgrep): ${result.error.message}`);
  return { ms, files: result.stdout.split('\n').filter(Boolean).length };
}

/** Each query as VS Code's search box would send it: the literal text, case-insensitive, files listed. */
function ripgrepQueries(corpus: Corpus, dir: string, rounds: number): QueryRun {
  const cold: number[] = [];
  const hits: number[] = [];
  const warm: number[][] = corpus.queries.map(() => []);
  corpus.queries.forEach((query, i) => {
    const first = rg(['-i', '-F', '-l', query.text], dir);
    cold.push(first.ms);
    hits.push(first.files);
    for (let r = 0; r < rounds; r++) warm[i]!.push(rg(['-i', '-F', '-l', query.text], dir).ms);
  });
  return { engine: 'ripgrep', openMs: 0, cold, warm, hits, peakMb: NaN };
}

// ---------------------------------------------------------------------------------- parent

function spawnChild(args: string[]): unknown {
  // How the CLI and the extension run our engine (src/core/engine-process.ts); the peers' runs get
  // the same settings.
  const result = spawnSync(process.execPath, ['--expose-gc', ...ENGINE_NODE_FLAGS, process.argv[1]!, '--child', ...args], {
    env: engineEnvironment(),
    encoding: 'utf8',
    maxBuffer: 1 << 26,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  if (result.status !== 0) throw new Error(`child ${args.slice(0, 2).join(' ')} failed (${result.status})`);
  return JSON.parse(result.stdout);
}

async function runCorpus(corpus: Corpus, capOverride: number | undefined): Promise<CorpusResult> {
  const dir = corpus.dir();
  const work = fs.mkdtempSync(path.join(os.tmpdir(), `bench-speed-${corpus.name}-`));
  try {
    const files = await textFiles(dir);
    fs.writeFileSync(path.join(work, 'files.json'), JSON.stringify(files));
    const textBytes = files.reduce((sum, f) => sum + f.bytes, 0);
    console.log(`\n=== ${corpus.name}: ${dir} — ${files.length} text files, ${(textBytes / 1e6).toFixed(1)} MB`);
    const cap = capOverride ?? corpus.capSeconds ?? 0;
    const index: IndexRun[] = [];
    const query: QueryRun[] = [];
    for (const engine of ENGINES) {
      process.stdout.write(`  ${LABEL[engine]}: indexing…`);
      index.push(spawnChild(['index', engine, dir, work, String(engine === 'contentstore' ? cap : 0)]) as IndexRun);
      process.stdout.write(` ${index.at(-1)!.seconds.toFixed(1)} s; querying…`);
      query.push(spawnChild(['query', engine, dir, work, JSON.stringify(corpus.queries)]) as QueryRun);
      console.log(' done');
    }
    const rounds = corpus.name === 'linux' ? 2 : WARM_ROUNDS;
    query.push(ripgrepQueries(corpus, dir, rounds));
    const literal = Array.from({ length: rounds + 1 }, () => rg(['-F', '-l', corpus.literal], dir));
    const [a, b] = corpus.twoWords;
    const twoPattern = `${a}.*${b}|${b}.*${a}`;
    const two = Array.from({ length: rounds + 1 }, () => rg(['-i', '-l', twoPattern], dir));
    return {
      corpus: corpus.name,
      dir,
      files: files.length,
      textBytes,
      queries: corpus.queries,
      index,
      query,
      ripgrep: {
        literal: { pattern: `rg -F -l ${corpus.literal}`, ms: literal.map((r) => r.ms), files: literal[0]!.files },
        twoWords: { pattern: `rg -i -l '${twoPattern}'`, ms: two.map((r) => r.ms), files: two[0]!.files },
      },
      machine: machine(),
    };
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}

function machine(): Record<string, string> {
  const rgVersion = spawnSync('rg', ['--version'], { encoding: 'utf8' }).stdout.split('\n')[0] ?? '?';
  return {
    cpu: `${os.cpus()[0]?.model ?? '?'} × ${os.cpus().length}`,
    memory: `${Math.round(os.totalmem() / 2 ** 30)} GiB`,
    os: `${os.type()} ${os.release()}`,
    node: process.version,
    contextMode: contextModeVersion(),
    ripgrep: rgVersion,
    medium: MEDIUM_PACKAGE,
    date: new Date().toISOString().slice(0, 10),
  };
}

// ---------------------------------------------------------------------------------- report

const fmt = (v: number, digits = 1) => (Number.isFinite(v) ? v.toFixed(digits) : '—');
const sorted = (values: number[]) => [...values].sort((x, y) => x - y);
const median = (values: number[]) => percentile(sorted(values), 50);

export function latencyStats(run: QueryRun): { cold: [number, number, number]; warm: [number, number, number] } {
  const c = sorted(run.cold);
  const w = sorted(run.warm.flat());
  return { cold: [percentile(c, 50), percentile(c, 95), percentile(c, 99)], warm: [percentile(w, 50), percentile(w, 95), percentile(w, 99)] };
}

function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  return [line(header), ...rows.map(line)].join('\n');
}

function report(result: CorpusResult): void {
  const by = (e: EngineName) => result.index.find((r) => r.engine === e)!;
  console.log(`\n--- ${result.corpus}: indexing (${result.files} files, ${(result.textBytes / 1e6).toFixed(1)} MB of text)`);
  console.log(
    table(
      ['engine', 'files', 'seconds', 'MB/s', 'index MB', 'size/text', 'peak MB', 'ms/file 1st tenth', 'last tenth', 'last/1st', 're-index ms', 'later'],
      result.index.map((r) => [
        LABEL[r.engine] + (r.capped ? ' (capped)' : ''),
        `${r.files}`,
        fmt(r.seconds),
        fmt(r.textBytes / 1e6 / r.seconds, 2),
        fmt(r.dbBytes / 1e6),
        fmt(r.dbBytes / r.textBytes, 2),
        `${r.peakMb}`,
        fmt(r.tenths[0]?.msPerFile ?? NaN, 2),
        fmt(r.tenths.at(-1)?.msPerFile ?? NaN, 2),
        fmt((r.tenths.at(-1)?.msPerFile ?? NaN) / (r.tenths[0]?.msPerFile ?? NaN), 2),
        fmt(r.reindexMs, 1),
        fmt(r.reindexLaterMs, 1),
      ]),
    ),
  );
  for (const r of result.index) console.log(`  ${LABEL[r.engine].padEnd(13)} ms/file by tenth: ${r.tenths.map((t) => fmt(t.msPerFile, 2)).join(' ')}`);
  const cs = by('contentstore');
  const ours = by('ours');
  const csPerFile = (cs.seconds * 1000) / cs.files;
  const oursPerFile = (ours.seconds * 1000) / ours.files;
  console.log(
    `  ratio ContentStore / ours, time per file indexed: ${fmt(csPerFile / oursPerFile, 1)}×${cs.capped ? ` (ContentStore capped at ${cs.files} of ${cs.filesTotal} files)` : ''}; re-index of ${ours.reindexPath}: ${fmt(cs.reindexMs / ours.reindexMs, 1)}× the first, ${fmt(cs.reindexLaterMs / ours.reindexLaterMs, 1)}× later ones`,
  );

  console.log(
    `\n--- ${result.corpus}: query latency, ms (${result.queries.length} queries × ${LIMIT} results; cold = first run after opening, warm = ${WARM_ROUNDS} more rounds)`,
  );
  const stats = result.query.map((run) => ({ run, s: latencyStats(run) }));
  console.log(
    table(
      ['engine', 'open', 'cold p50', 'p95', 'p99', 'warm p50', 'p95', 'p99', 'empty results'],
      stats.map(({ run, s }) => [
        LABEL[run.engine],
        fmt(run.openMs),
        ...s.cold.map((v) => fmt(v, 2)),
        ...s.warm.map((v) => fmt(v, 2)),
        `${run.hits.filter((h) => h === 0).length}/${run.hits.length}`,
      ]),
    ),
  );
  const warm95 = (e: string) => stats.find((x) => x.run.engine === e)!.s.warm[1];
  console.log(
    `  ratio warm p95, ours / ContentStore: ${fmt(warm95('ours') / warm95('contentstore'), 2)}×; ripgrep / ours: ${fmt(warm95('ripgrep') / warm95('ours'), 1)}×`,
  );
  const twoIndex = result.queries.findIndex((x) => x.text === `${CORPORA.find((c) => c.name === result.corpus)!.twoWords.join(' ')}`);
  const oursRun = result.query.find((r) => r.engine === 'ours')!;
  const oursTwo = twoIndex >= 0 ? median(oursRun.warm[twoIndex]!) : NaN;
  console.log(`\n--- ${result.corpus}: ripgrep over the same tree, ms (median of ${result.ripgrep.literal.ms.length})`);
  console.log(`  literal:             ${fmt(median(result.ripgrep.literal.ms))}  (${result.ripgrep.literal.pattern}; ${result.ripgrep.literal.files} files)`);
  console.log(
    `  two words, any case: ${fmt(median(result.ripgrep.twoWords.ms))}  (${result.ripgrep.twoWords.pattern}; ${result.ripgrep.twoWords.files} files)`,
  );
  if (twoIndex >= 0)
    console.log(
      `  ours for "${result.queries[twoIndex]!.text}", warm median: ${fmt(oursTwo, 2)} → ripgrep / ours ${fmt(median(result.ripgrep.twoWords.ms) / oursTwo, 0)}×`,
    );
}

function plots(): void {
  const results = fs
    .readdirSync(OUT)
    .filter((f) => /^speed-.*\.json$/.test(f))
    .map((f) => JSON.parse(fs.readFileSync(path.join(OUT, f), 'utf8')) as CorpusResult);
  for (const result of results) {
    fs.writeFileSync(
      path.join(OUT, `index-cost-${result.corpus}.svg`),
      lineChart({
        title: `Per-file indexing cost as the index grows — ${result.corpus}`,
        xLabel: 'files indexed so far',
        yLabel: 'ms per file (window of 2% of the files)',
        logY: true,
        series: result.index.map((r) => ({
          name: LABEL[r.engine] + (r.capped ? ' (capped)' : ''),
          points: r.curve.map((p) => [p.upTo, p.msPerFile] as [number, number]),
        })),
      }),
    );
    fs.writeFileSync(
      path.join(OUT, `latency-${result.corpus}.svg`),
      lineChart({
        title: `Query latency, warm — ${result.corpus} (share of queries answered within x ms)`,
        xLabel: 'ms (log scale)',
        yLabel: 'share of query runs',
        logX: true,
        series: result.query.flatMap((run) => {
          const w = sorted(run.warm.flat());
          const c = sorted(run.cold);
          return [
            { name: `${LABEL[run.engine]} warm`, points: w.map((v, i) => [v, (i + 1) / w.length] as [number, number]) },
            ...(run.engine === 'ripgrep'
              ? []
              : [{ name: `${LABEL[run.engine]} cold`, dashed: true, points: c.map((v, i) => [v, (i + 1) / c.length] as [number, number]) }]),
          ];
        }),
      }),
    );
  }
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const child = args.indexOf('--child');
  if (child !== -1) {
    const [phase, engine, dir, work, extra] = args.slice(child + 1) as [string, EngineName, string, string, string];
    const run = phase === 'index' ? await childIndex(engine, dir, work, Number(extra)) : await childQuery(engine, dir, work, JSON.parse(extra) as Query[]);
    process.stdout.write(JSON.stringify(run));
    return;
  }
  const value = (flag: string) => {
    const i = args.indexOf(flag);
    return i === -1 ? undefined : args[i + 1];
  };
  if (args.includes('--plots-only')) return plots();
  const only = value('--only')?.split(',') ?? ['npm', 'rxjs', ...(args.includes('--linux') ? ['linux'] : [])];
  const cap = value('--cap-seconds');
  fs.mkdirSync(OUT, { recursive: true });
  for (const corpus of CORPORA.filter((c) => only.includes(c.name))) {
    const result = await runCorpus(corpus, cap === undefined ? undefined : Number(cap));
    fs.writeFileSync(path.join(OUT, `speed-${corpus.name}.json`), JSON.stringify(result, null, 1) + '\n');
    report(result);
  }
  plots();
  console.log(`\nWrote ${path.relative(process.cwd(), OUT)}/speed-*.json and the SVG plots.`);
}

await main();
