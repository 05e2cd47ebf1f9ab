// A big folder from the first minute: a first index answers with what it has so far and says so,
// reads the files in front of the user and their recent work first, and a mass change (a checkout)
// is one batch that searches never wait for.

import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { recentFirst } from '../../src/core/crawl/recent.ts';
import { partialNote } from '../../src/core/describe.ts';
import { IndexKeeper, MASS_CHANGE_FILES } from '../../src/core/index-keeper.ts';
import type { IndexProgress } from '../../src/core/indexer.ts';
import { isBusy } from '../../src/core/store/database.ts';
import type { FileStat } from '../../src/core/types.ts';
import { tempDir } from './helpers/store.ts';
import { eventually } from './helpers/eventually.ts';

const CLI = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));

const keepers: IndexKeeper[] = [];
after(async () => {
  for (const keeper of keepers) await keeper.close();
});

/** Where `folderOf` puts its `i`th file: 50 to a folder. */
function fileOf(i: number): string {
  return `d${String(Math.floor(i / 50)).padStart(2, '0')}/${String(i).padStart(4, '0')}.txt`;
}

/** A folder of `count` small files, `dir/NNN.txt`, each with its own word `tokenNNNq` and a shared one. */
function folderOf(count: number, shared = 'common'): string {
  const root = tempDir('fused-first-');
  for (let i = 0; i < count; i++) {
    const relPath = fileOf(i);
    fs.mkdirSync(path.dirname(path.join(root, relPath)), { recursive: true });
    fs.writeFileSync(path.join(root, relPath), `token${i}q ${shared} text of file ${i}\n`);
  }
  return root;
}

async function keeperFor(root: string): Promise<IndexKeeper> {
  const keeper = await IndexKeeper.open({ root, dbFile: path.join(tempDir('fused-first-db-'), 'index.db'), kind: 'test', index: { prepareThreads: 0 } });
  keepers.push(keeper);
  assert.equal(keeper.role, 'owner');
  return keeper;
}

test('a search during a first index answers from the files indexed so far and says how far it got', async () => {
  const root = folderOf(2000);
  const keeper = await keeperFor(root);
  let during: Promise<Awaited<ReturnType<IndexKeeper['search']>>> | undefined;
  await keeper.sync({
    onProgress: (progress) => {
      // The first batches (128 files each) are written by now; the rest is still to come.
      if (progress.phase === 'indexing' && progress.filesDone >= 300 && !during) during = keeper.search('common', { limit: 100 });
    },
  });
  const midway = await during!;
  assert.ok(midway.results.length > 0, 'results from the files indexed so far');
  assert.ok(midway.partial, 'the answer says the index is not complete');
  assert.equal(midway.partial.filesFound, 2000);
  assert.ok(midway.partial.filesDone! >= 300 && midway.partial.filesDone! < 2000, JSON.stringify(midway.partial));
  const done = midway.partial.filesDone!;
  assert.equal(partialNote(midway.partial), `indexed ${Math.floor(done / 20)}% (${done.toLocaleString('en-US')} of 2,000 files) — results so far`);

  const complete = await keeper.search('common', { limit: 100 });
  assert.equal(complete.partial, undefined, 'a complete index answers without the label');
  assert.equal(complete.results.length, 100);
});

test('a first index stopped part-way labels its answers until a sync completes, and the resumed sync reads only the rest', async () => {
  const root = folderOf(2000);
  const keeper = await keeperFor(root);
  const abort = new AbortController();
  const first = await keeper.sync({
    signal: abort.signal,
    onProgress: (progress) => {
      if (progress.phase === 'indexing' && progress.filesDone >= 300) abort.abort();
    },
  });
  assert.ok(first && !first.complete);
  const held = keeper.stats().files;
  assert.ok(held > 0 && held < 2000, `held ${held}`);
  const stopped = await keeper.search('common');
  assert.deepEqual(stopped.partial, {}, 'no run, so no counts, but still labelled');
  assert.match(partialNote(stopped.partial), /first index not finished/);

  const resumed = await keeper.sync();
  assert.ok(resumed?.complete);
  assert.equal(resumed.unchanged, held, 'every file the stopped run wrote is taken as it is, not read again');
  assert.equal(resumed.added, 2000 - held);
  assert.equal((await keeper.search('common')).partial, undefined);
});

test('the files in front of the user are searchable before the crawl of the rest', async () => {
  const root = folderOf(400);
  const keeper = await keeperFor(root);
  const abort = new AbortController();
  // The last file the crawl would reach, stopped as soon as the crawl starts.
  const summary = await keeper.sync({
    firstPaths: ['d07/0399.txt', 'missing.txt'],
    signal: abort.signal,
    onProgress: () => abort.abort(),
  });
  assert.equal(summary?.added, 1);
  const answer = await keeper.search('token399q');
  assert.deepEqual(
    answer.results.map((r) => r.path),
    ['d07/0399.txt'],
  );
  assert.ok(answer.partial);
});

test('a first index reads recent work first: uncommitted and untracked files, then the last commits, in a git repository', async () => {
  const root = folderOf(120);
  const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd: root, stdio: 'pipe' });
  git('init', '-q');
  git('add', '.');
  git('commit', '-qm', 'all');
  fs.appendFileSync(path.join(root, 'd01/0077.txt'), 'edited\n');
  git('commit', '-qam', 'recent');
  fs.appendFileSync(path.join(root, 'd02/0110.txt'), 'uncommitted\n');
  fs.writeFileSync(path.join(root, 'd00/new.txt'), 'untracked\n');
  const files = listFiles(root);
  // A fresh clone: every file as new as the others, so modification times say nothing.
  const ordered = await recentFirst(root, files);
  assert.deepEqual(
    ordered.slice(0, 3).map((f) => f.relPath),
    ['d02/0110.txt', 'd00/new.txt', 'd01/0077.txt'],
  );
  assert.equal(ordered.length, files.length);
  assert.deepEqual(new Set(ordered.map((f) => f.relPath)), new Set(files.map((f) => f.relPath)));
});

test('outside git, files modified lately come first, newest first, unless most of the folder is that new', async () => {
  const root = folderOf(60);
  const files = listFiles(root);
  const now = Date.now();
  const old = files.map((f, i) => ({ ...f, mtimeMs: now - 365 * 86_400_000 + i }));
  old[40] = { ...old[40]!, mtimeMs: now - 3 * 86_400_000 };
  old[10] = { ...old[10]!, mtimeMs: now - 86_400_000 };
  const ordered = await recentFirst(root, old, now);
  assert.deepEqual(
    ordered.slice(0, 3).map((f) => f.relPath),
    [old[10].relPath, old[40].relPath, old[0]!.relPath],
  );
  const allNew = files.map((f) => ({ ...f, mtimeMs: now }));
  assert.deepEqual(await recentFirst(root, allNew, now), allNew, 'a fresh extraction keeps folder order');
});

test(`a mass change (${MASS_CHANGE_FILES}+ files, a checkout) is one batch; searches answer throughout and never show a changed file's old text`, async () => {
  const root = folderOf(1600, 'before');
  const keeper = await keeperFor(root);
  await keeper.sync();
  const changed: string[] = [];
  for (let i = 0; i < 1600; i += 2) {
    const relPath = fileOf(i);
    fs.writeFileSync(path.join(root, relPath), `token${i}q after text of file ${i}, changed by a checkout\n`);
    changed.push(relPath);
  }
  const logs: string[] = [];
  keeper.onEvent((event) => event.type === 'log' && logs.push(event.message));
  let applied = false;
  const applying = keeper.applyChanges(changed).then(() => (applied = true));
  let answeredWhileApplying = 0;
  while (!applied) {
    // A file the checkout left alone: nothing to refresh, so the answer comes at once.
    const untouched = await keeper.search('token1q');
    assert.equal(untouched.results[0]?.path, 'd00/0001.txt');
    if (!applied) answeredWhileApplying++;
    // Changed files among the results are read again before they are shown.
    const answer = await keeper.search('before', { limit: 20 });
    for (const result of answer.results) {
      const text = fs.readFileSync(path.join(root, result.path), 'utf8');
      assert.match(text, /before/, `${result.path} was shown with text it no longer has`);
    }
  }
  await applying;
  assert.ok(answeredWhileApplying > 0, 'searches did not wait for the batch');
  assert.ok(
    logs.some((line) => line.includes('as one batch')),
    logs.join('\n'),
  );
  assert.equal(keeper.chunksMatching('"after"', 2000), 800, 'every changed file holds its new text');
  assert.equal(keeper.chunksMatching('"before"', 2000), 800, 'and no longer its old one');
});

test('with preparing threads, batches are written on a thread of their own: searches are answered while a batch is being written, from what was committed before it', async () => {
  // Every tenth file holds the word searched for; the filler makes each batch take a while to write.
  const root = folderOf(3000, 'filler '.repeat(200));
  for (let i = 0; i < 3000; i += 10) fs.appendFileSync(path.join(root, fileOf(i)), 'tenthword\n');
  const dbFile = path.join(tempDir('fused-first-db-'), 'index.db');
  const keeper = await IndexKeeper.open({ root, dbFile, kind: 'test', index: { prepareThreads: 1 } });
  keepers.push(keeper);
  // The test's own connection: BEGIN IMMEDIATE fails at once while another connection holds the
  // write lock, and a count reads what is committed.
  const probe = new Database(dbFile);
  probe.pragma('busy_timeout = 0');
  const batchBeingWritten = () => {
    try {
      probe.exec('BEGIN IMMEDIATE');
      probe.exec('ROLLBACK');
      return false;
    } catch (error) {
      if (!isBusy(error)) throw error;
      return true;
    }
  };
  const committed = () => probe.prepare("SELECT count(*) FROM fts_porter WHERE fts_porter MATCH 'tenthword'").pluck().get() as number;
  let synced = false;
  const syncing = keeper.sync().then((summary) => {
    synced = true;
    return summary;
  });
  let answeredDuringABatch = 0;
  while (!synced) {
    await new Promise((resolve) => setImmediate(resolve));
    if (!batchBeingWritten()) continue;
    const before = committed();
    const answer = await keeper.search('tenthword', { limit: 500 });
    // Only an answer given while one and the same batch was being written counts.
    if (!batchBeingWritten() || committed() !== before) continue;
    answeredDuringABatch++;
    assert.ok(answer.partial, 'labelled as results so far');
    assert.equal(answer.results.length, before, 'every file committed before the batch, and none of the batch');
  }
  probe.close();
  assert.equal((await syncing)?.added, 3000);
  assert.ok(answeredDuringABatch > 0, 'no search was answered while a batch was being written');
  assert.equal((await keeper.search('tenthword', { limit: 500 })).results.length, 300);
  assert.equal(keeper.chunkCount, 3000, 'the indexing thread counts what the writer thread wrote');
});

test('a mass change reads only the files it names: changed, new, deleted and credential files take effect without a crawl; a new folder among them brings one', async () => {
  const root = folderOf(1000);
  const keeper = await keeperFor(root);
  await keeper.sync();
  const named: string[] = [];
  for (let i = 0; i < 600; i += 2) {
    const relPath = fileOf(i);
    fs.writeFileSync(path.join(root, relPath), `token${i}q checkout text of file ${i}\n`);
    named.push(relPath);
  }
  for (let i = 0; i < 10; i++) {
    fs.writeFileSync(path.join(root, `d19/added${i}.txt`), `arrived with the checkout ${i}\n`);
    fs.rmSync(path.join(root, `d19/09${String(50 + i)}.txt`));
    named.push(`d19/added${i}.txt`, `d19/09${String(50 + i)}.txt`);
  }
  fs.writeFileSync(path.join(root, 'd00/.env'), 'AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\n');
  named.push('d00/.env');
  const progress: IndexProgress[] = [];
  keeper.onEvent((event) => event.type === 'progress' && progress.push(event.progress));

  assert.deepEqual(await keeper.applyChanges(named), []);
  assert.ok(progress.length > 0, 'the status bar hears how the batch goes');
  assert.ok(
    progress.every((p) => p.phase !== 'scanning' && p.filesFound === 310),
    `no crawl: it counts the 310 files it was told of that are there to read, not the folder's 1,000 (${JSON.stringify(progress.at(-1))})`,
  );
  assert.equal(keeper.chunksMatching('"checkout"', 2000), 310, 'changed and new files hold their new text');
  assert.equal(keeper.chunksMatching('token955q', 10), 0, 'deleted files are gone');
  const status = await keeper.status();
  assert.equal(status.files, 1000, 'ten deleted, ten added');
  assert.deepEqual(status.secretFiles.examples, ['d00/.env'], 'the credential file is kept out and counted');
  assert.equal(keeper.chunksMatching('wJalrXUtnFEMI', 10), 0);
  assert.equal(status.indexing, null);

  // A folder checked out with the rest: only a crawl finds what it holds.
  fs.mkdirSync(path.join(root, 'vendor/lib'), { recursive: true });
  fs.writeFileSync(path.join(root, 'vendor/lib/deep.txt'), 'vendored marmalade\n');
  progress.length = 0;
  await keeper.applyChanges(['vendor', ...named.slice(0, MASS_CHANGE_FILES)]);
  assert.ok(progress.some((p) => p.phase === 'scanning'));
  assert.equal(keeper.chunksMatching('marmalade', 10), 1);
});

function listFiles(root: string): FileStat[] {
  const out: FileStat[] = [];
  for (const dir of fs.readdirSync(root).sort()) {
    if (dir === '.git') continue;
    for (const name of fs.readdirSync(path.join(root, dir)).sort()) {
      const stat = fs.statSync(path.join(root, dir, name));
      out.push({ relPath: `${dir}/${name}`, size: stat.size, mtimeMs: stat.mtimeMs });
    }
  }
  return out;
}

/** Segments in the Porter table of the index at `dbFile`, read beside whoever writes it. */
function porterSegments(dbFile: string): number {
  const db = new Database(dbFile, { readonly: true });
  try {
    return db.prepare('SELECT count(DISTINCT segid) FROM fts_porter_idx').pluck().get() as number;
  } finally {
    db.close();
  }
}

// More files than one write batch holds: each batch leaves a segment in every FTS5 table.
const MULTI_BATCH_FILES = 900;

/** An owner right after a first index that left segments to merge. */
async function firstIndexWithSegments(): Promise<{ keeper: IndexKeeper; dbFile: string; segments: number }> {
  const dbFile = path.join(tempDir(), 'index.db');
  const keeper = await IndexKeeper.open({ root: folderOf(MULTI_BATCH_FILES), dbFile, kind: 'test' });
  keepers.push(keeper);
  await keeper.sync();
  const segments = porterSegments(dbFile);
  assert.ok(keeper.tidying && segments > 1, 'the first index left segments to merge');
  return { keeper, dbFile, segments };
}

test('after a first index the owner merges the segments it left while idle, answering searches meanwhile; a sync that rewrites a few files begins no merge', async () => {
  const root = folderOf(MULTI_BATCH_FILES);
  const dbFile = path.join(tempDir(), 'index.db');
  const keeper = await IndexKeeper.open({ root, dbFile, kind: 'test' });
  keepers.push(keeper);
  await keeper.sync();
  assert.equal(keeper.tidying, true, 'the first index begins a merge pass');
  assert.ok(porterSegments(dbFile) > 1, `the first index left ${porterSegments(dbFile)} segments`);
  const found = (await keeper.search('token7q common')).results.map((result) => result.path);
  assert.ok(found.length > 0);
  await eventually(() => !keeper.tidying, 30_000);
  assert.equal(keeper.tidying, false, 'the pass ends while idle');
  assert.equal(porterSegments(dbFile), 1);
  assert.deepEqual(
    (await keeper.search('token7q common')).results.map((result) => result.path),
    found,
    'a merged index answers as before',
  );
  fs.writeFileSync(path.join(root, 'd00/0001.txt'), 'token1q rewritten\n');
  await keeper.sync();
  assert.equal(keeper.tidying, false);
});

test("the owner's idle work waits while searches come one after another, as a quick pick's keystrokes do, and goes on once they stop", async () => {
  const { keeper, dbFile, segments } = await firstIndexWithSegments();
  for (let i = 0; i < 30; i++) {
    await keeper.search(`token${i}q`);
    await new Promise((resolve) => setTimeout(resolve, 40));
  }
  assert.equal(porterSegments(dbFile), segments, 'no merge step ran between searches 40 ms apart');
  await eventually(() => !keeper.tidying, 30_000);
  assert.equal(porterSegments(dbFile), 1, 'the merge ran once they stopped');
});

test('searches that never pause long hold the idle work back for seconds, not for good', async () => {
  const { keeper, dbFile } = await firstIndexWithSegments();
  const started = performance.now();
  let searches = 0;
  while (keeper.tidying && performance.now() - started < 30_000) {
    await keeper.search(`token${searches++ % 30}q`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  assert.equal(keeper.tidying, false, `the merge ended while ${searches} searches came 100 ms apart`);
  assert.equal(porterSegments(dbFile), 1);
});

test('fused-search index ends with the segments merged', () => {
  const root = folderOf(MULTI_BATCH_FILES);
  const dbFile = path.join(tempDir(), 'index.db');
  execFileSync(process.execPath, [CLI, 'index', root, '--db', dbFile, '--json'], { encoding: 'utf8' });
  assert.equal(porterSegments(dbFile), 1);
});

test('saves that leave a small index in many segments are merged while idle', async () => {
  const root = folderOf(20);
  const dbFile = path.join(tempDir('fused-first-db-'), 'index.db');
  const keeper = await IndexKeeper.open({ root, dbFile, kind: 'test', index: { prepareThreads: 0 } });
  keepers.push(keeper);
  await keeper.sync();
  await eventually(() => !keeper.tidying, 30_000);
  const before = porterSegments(dbFile);
  for (let i = 0; i < 12; i++) {
    fs.writeFileSync(path.join(root, fileOf(i)), `token${i}q saved${i}z common\n`);
    await keeper.reindexFile(fileOf(i));
  }
  await eventually(() => porterSegments(dbFile) === 1, 30_000);
  assert.equal(porterSegments(dbFile), 1, `twelve saves after ${before} segment(s), merged while idle`);
  assert.equal((await keeper.search('saved11z')).results[0]?.path, fileOf(11), 'the last save is found first');
});

test('a keeper that stays open reads the fuzzy vocabulary in the background, so the first typo does not pay for it', async () => {
  const root = folderOf(50);
  const dbFile = path.join(tempDir('fused-first-db-'), 'index.db');
  const first = await IndexKeeper.open({ root, dbFile, kind: 'test', index: { prepareThreads: 0 } });
  await first.sync();
  await first.close();
  const reopened = await IndexKeeper.open({ root, dbFile, kind: 'test', index: { prepareThreads: 0 } });
  keepers.push(reopened);
  await new Promise((resolve) => setTimeout(resolve, 300));
  assert.equal(reopened.prepareVocabulary(), false, 'already prepared: nothing left for the first query to build');
  const typo = await reopened.search('comon');
  assert.deepEqual(typo.corrections, [['comon', 'common']]);
});

test('a mass change that arrives during a sync waits to sync after it, and not at all if that sync is stopped (a pause)', async () => {
  const root = folderOf(1500);
  const keeper = await keeperFor(root);
  const changed = Array.from({ length: MASS_CHANGE_FILES }, (_, i) => `d00/new${i}.txt`);
  let applying: Promise<string[]> | undefined;
  const first = keeper.sync({
    onProgress: (progress) => {
      if (progress.phase !== 'indexing' || applying) return;
      for (const relPath of changed) fs.writeFileSync(path.join(root, relPath), 'late arrival\n');
      applying = keeper.applyChanges(changed);
      void keeper.cancelSync();
    },
  });
  await first;
  assert.deepEqual(await applying, []);
  assert.equal((await keeper.status()).indexing, null, 'nothing indexes after the pause');
  assert.equal(keeper.chunksMatching('"arrival"', 1000), 0, 'the paused change waits for the next sync');
  const resumed = await keeper.sync();
  assert.ok(resumed?.complete);
  assert.equal(keeper.chunksMatching('"arrival"', 1000), MASS_CHANGE_FILES);
});
