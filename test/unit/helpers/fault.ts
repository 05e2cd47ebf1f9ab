// Shared by the fault suite and its long-form benchmarks (bench/fault-kill.ts): a corpus to index,
// a child process to kill, and the checks a database must pass after any fault.

import Database from 'better-sqlite3';
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { random } from './random.ts';

const WORDS =
  'alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november oscar papa quebec romeo sierra tango uniform victor whiskey xray yankee zulu parse config retry policy buffer socket stream token index search query result'.split(
    ' ',
  );

/**
 * Writes `files` files of Markdown, TypeScript, JSON and plain text under `dir`, each with a few
 * chunks' worth of text and a word unique to it (`uniq<N>`), spread over nested folders.
 */
export function writeCorpus(dir: string, files: number, seed = 1): string[] {
  const next = random(seed);
  const word = () => WORDS[Math.floor(next() * WORDS.length)]!;
  const sentence = (n: number) => Array.from({ length: n }, word).join(' ');
  const written: string[] = [];
  for (let i = 0; i < files; i++) {
    const folder = `d${i % 7}/e${i % 13}`;
    const kind = i % 4;
    let relPath: string;
    let text: string;
    if (kind === 0) {
      relPath = `${folder}/doc${i}.md`;
      text = `# Document ${i}\n\nuniq${i} ${sentence(30)}\n\n## Part two\n\n${sentence(200)}\n\n## Part three\n\n${sentence(120)}\n`;
    } else if (kind === 1) {
      relPath = `${folder}/mod${i}.ts`;
      text = `// module ${i}\nexport function fn${i}(uniq${i}: number): number {\n  return uniq${i} + 1; // ${sentence(12)}\n}\n\nexport class Klass${i} {\n${Array.from({ length: 20 }, (_, k) => `  method${k}(): string { return '${sentence(8)}'; }`).join('\n')}\n}\n`;
    } else if (kind === 2) {
      relPath = `${folder}/data${i}.json`;
      text = JSON.stringify({ id: `uniq${i}`, items: Array.from({ length: 15 }, (_, k) => ({ k, text: sentence(10) })) }, null, 2);
    } else {
      relPath = `${folder}/notes${i}.txt`;
      text = `uniq${i}\n\n${Array.from({ length: 12 }, () => sentence(20)).join('\n\n')}\n`;
    }
    fs.mkdirSync(path.join(dir, path.dirname(relPath)), { recursive: true });
    fs.writeFileSync(path.join(dir, relPath), text);
    written.push(relPath);
  }
  return written;
}

/** Recursively copies a folder (real files only), for a benchmark that edits a copy of a tree. */
export function copyTree(from: string, to: string): void {
  fs.cpSync(from, to, { recursive: true, verbatimSymlinks: true });
}

export interface DatabaseCheck {
  /** Empty when the database is sound. */
  problems: string[];
  files: number;
  chunks: number;
}

/**
 * What must hold after any fault: SQLite's own integrity check, FTS5's integrity-check on each
 * full-text table (the word trigrams against the words they index, rank 1; the contentless
 * tables check their index alone), no file with half its chunks — `chunk_count`
 * matches the rows and the ords run 0..n-1 without gaps — and a length for every chunk and no other.
 */
export function checkDatabase(dbFile: string): DatabaseCheck {
  const db = new Database(dbFile, { fileMustExist: true });
  const problems: string[] = [];
  try {
    db.pragma('busy_timeout = 10000');
    const integrity = db.pragma('integrity_check', { simple: false }) as Array<{ integrity_check: string }>;
    if (integrity.length !== 1 || integrity[0]!.integrity_check !== 'ok')
      problems.push(`integrity_check: ${integrity.map((r) => r.integrity_check).join('; ')}`);
    for (const [table, rank] of [
      ['fts_porter', 0],
      ['fts_chunk_words', 0],
      ['word_trigrams', 1],
      ['fts_words', 0],
    ] as const) {
      try {
        db.prepare(`INSERT INTO ${table} (${table}, rank) VALUES ('integrity-check', ?)`).run(rank);
      } catch (error) {
        problems.push(`${table} integrity-check: ${(error as Error).message}`);
      }
    }
    const half = db
      .prepare(
        `SELECT f.path, f.chunk_count AS expected, count(c.id) AS actual, coalesce(min(c.ord), 0) AS lo, coalesce(max(c.ord), -1) AS hi
      FROM files f LEFT JOIN chunks c ON c.file_id = f.id GROUP BY f.id
      HAVING count(c.id) != f.chunk_count OR lo != 0 AND count(c.id) > 0 OR hi != count(c.id) - 1 OR count(DISTINCT c.ord) != count(c.id)`,
      )
      .all() as Array<Record<string, unknown>>;
    for (const row of half.slice(0, 5)) problems.push(`half-written file: ${JSON.stringify(row)}`);
    const orphans = db.prepare('SELECT count(*) FROM chunks WHERE file_id NOT IN (SELECT id FROM files)').pluck().get() as number;
    if (orphans > 0) problems.push(`${orphans} chunks belong to no file`);
    const unmeasured = db.prepare('SELECT count(*) FROM chunks WHERE id NOT IN (SELECT id FROM chunk_lengths)').pluck().get() as number;
    const strayLengths = db.prepare('SELECT count(*) FROM chunk_lengths WHERE id NOT IN (SELECT id FROM chunks)').pluck().get() as number;
    if (unmeasured + strayLengths > 0) problems.push(`${unmeasured} chunks have no length, ${strayLengths} lengths no chunk`);
    const files = db.prepare('SELECT count(*) FROM files').pluck().get() as number;
    const chunks = db.prepare('SELECT count(*) FROM chunks').pluck().get() as number;
    return { problems, files, chunks };
  } finally {
    db.close();
  }
}

/**
 * The content of an index as two digests that ignore row ids and times: files (path, hash) and
 * chunks (path, ord, title, line range, text). Two indexes of the same folder must agree.
 */
export function contentDigest(dbFile: string): { files: string; chunks: string; fileCount: number; chunkCount: number } {
  const db = new Database(dbFile, { readonly: true, fileMustExist: true });
  try {
    const files = createHash('sha256');
    let fileCount = 0;
    for (const row of db.prepare('SELECT path, hash FROM files ORDER BY path').raw().iterate() as Iterable<unknown[]>) {
      files.update(JSON.stringify(row));
      fileCount++;
    }
    const chunks = createHash('sha256');
    let chunkCount = 0;
    for (const row of db
      .prepare('SELECT f.path, c.ord, c.title, c.start_line, c.end_line, c.text FROM chunks c JOIN files f ON f.id = c.file_id ORDER BY f.path, c.ord')
      .raw()
      .iterate() as Iterable<unknown[]>) {
      chunks.update(JSON.stringify(row));
      chunkCount++;
    }
    return { files: files.digest('hex'), chunks: chunks.digest('hex'), fileCount, chunkCount };
  } finally {
    db.close();
  }
}

const CHILD = new URL('./engine-child.ts', import.meta.url).pathname;

export interface Child {
  process: ChildProcess;
  /** Resolves when the child has opened the engine and starts working. */
  ready: Promise<void>;
  /** Resolves when a syncing child has crawled the folder and starts writing (or has exited). */
  indexing: Promise<void>;
  /** Resolves with the exit code, or the signal that ended it. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stdout: () => string;
  stderr: () => string;
}

/** Starts test/unit/helpers/engine-child.ts with `args` (see that file for the modes). */
export function startChild(args: string[]): Child {
  const child = spawn(process.execPath, [CHILD, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  let onReady: () => void;
  let onIndexing: () => void;
  const ready = new Promise<void>((resolve) => (onReady = resolve));
  const indexing = new Promise<void>((resolve) => (onIndexing = resolve));
  child.stdout.on('data', (data: Buffer) => {
    out += data.toString();
    if (out.includes('ready\n')) onReady();
    if (out.includes('indexing\n')) onIndexing();
  });
  child.stderr.on('data', (data: Buffer) => (err += data.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => {
      onReady();
      onIndexing();
      resolve({ code, signal });
    }),
  );
  return { process: child, ready, indexing, exited, stdout: () => out, stderr: () => err };
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface KillRound {
  kind: 'full-index' | 'update-burst';
  /** Milliseconds after the child was ready (burst) or started writing (full index) it was killed. */
  afterMs: number;
  /** False when the child finished before the kill landed (the round still checks the database). */
  killed: boolean;
  problems: string[];
  /** Files and chunks the killed index held. */
  files: number;
  chunks: number;
  /** Whether the resumed index equals an uninterrupted one of the same folder. */
  same: boolean;
  notices: string[];
}

/**
 * One round of the kill loop: start a child that indexes `root` into `dbFile` (a full sync, or an
 * update burst over an existing index), SIGKILL it `afterMs` after it starts writing (full) or is ready (burst), check the database,
 * resume with a full sync in this process and compare with `reference()` — a digest of an
 * uninterrupted index of the folder as it is now.
 */
export async function killRound(options: {
  kind: KillRound['kind'];
  root: string;
  dbFile: string;
  afterMs: number;
  seed: number;
  reference: () => Promise<ReturnType<typeof contentDigest>>;
  /** The database `reference` was computed from, to name the files that differ. */
  referenceDb?: string;
}): Promise<KillRound> {
  const { Engine } = await import('../../../src/core/engine.ts');
  const child = startChild(
    options.kind === 'full-index' ? ['sync', options.root, options.dbFile] : ['burst', options.root, options.dbFile, String(options.seed)],
  );
  await (options.kind === 'full-index' ? child.indexing : child.ready);
  await sleep(options.afterMs);
  const killed = child.process.exitCode === null && child.process.kill('SIGKILL');
  const exit = await child.exited;
  const problems: string[] = [];
  if (!killed && exit.code !== 0) problems.push(`child failed before the kill: ${exit.code} ${child.stderr()}`);
  const check = checkDatabase(options.dbFile);
  problems.push(...check.problems);
  const engine = await Engine.open({ root: options.root, dbFile: options.dbFile });
  const notices = [...engine.notices];
  const summary = await engine.sync();
  engine.close();
  if (!summary.complete) problems.push('the resumed sync did not complete');
  // Files the killed run committed are taken as they are: a resumed first index reads only the rest.
  if (options.kind === 'full-index' && summary.unchanged !== check.files)
    problems.push(`the resumed sync read ${check.files - summary.unchanged} of the ${check.files} files the killed run had indexed again`);
  const resumed = contentDigest(options.dbFile);
  const expected = await options.reference();
  const same = resumed.files === expected.files && resumed.chunks === expected.chunks;
  if (!same) {
    const where = options.referenceDb ? ` in ${differingFiles(options.dbFile, options.referenceDb).slice(0, 5).join(', ')}` : '';
    problems.push(`resumed index differs: ${resumed.fileCount} files/${resumed.chunkCount} chunks vs ${expected.fileCount}/${expected.chunkCount}${where}`);
  }
  if (notices.length > 0) problems.push(`the killed index was not reused: ${notices.join(' ')}`);
  return { kind: options.kind, afterMs: options.afterMs, killed, problems, files: check.files, chunks: check.chunks, same, notices };
}

/** Paths whose chunks differ between two indexes, each with its chunk count in both. */
export function differingFiles(dbFile: string, otherDb: string): string[] {
  const perFile = (file: string) => {
    const db = new Database(file, { readonly: true, fileMustExist: true });
    try {
      const map = new Map<string, { hash: ReturnType<typeof createHash>; count: number }>();
      for (const [p, ...rest] of db
        .prepare('SELECT f.path, c.ord, c.title, c.start_line, c.end_line, c.text FROM chunks c JOIN files f ON f.id = c.file_id ORDER BY f.path, c.ord')
        .raw()
        .iterate() as Iterable<[string, ...unknown[]]>) {
        const entry = map.get(p) ?? { hash: createHash('sha1'), count: 0 };
        entry.hash.update(JSON.stringify(rest));
        entry.count++;
        map.set(p, entry);
      }
      return new Map([...map].map(([p, e]) => [p, `${e.count}:${e.hash.digest('hex')}`]));
    } finally {
      db.close();
    }
  };
  const a = perFile(dbFile);
  const b = perFile(otherDb);
  return [...new Set([...a.keys(), ...b.keys()])]
    .filter((p) => a.get(p) !== b.get(p))
    .map((p) => `${p} (${a.get(p)?.split(':')[0] ?? 0} vs ${b.get(p)?.split(':')[0] ?? 0} chunks)`);
}

/** An uninterrupted index of `root` built into a scratch file; its digest. */
export async function referenceDigest(root: string, scratchDb: string): Promise<ReturnType<typeof contentDigest>> {
  const { Engine } = await import('../../../src/core/engine.ts');
  for (const suffix of ['', '-wal', '-shm']) fs.rmSync(scratchDb + suffix, { force: true });
  const engine = await Engine.open({ root, dbFile: scratchDb });
  await engine.sync();
  engine.close();
  return contentDigest(scratchDb);
}

export function removeDatabase(dbFile: string): void {
  for (const suffix of ['', '-wal', '-shm']) fs.rmSync(dbFile + suffix, { force: true });
}
