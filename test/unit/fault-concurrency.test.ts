// Fault suite, concurrency: a process searching in a loop while another indexes the same
// database never sees `database is locked`; a burst of 1,000 file rewrites in 10 seconds, each
// followed by an updateFile call the way a file watcher fires them (without waiting for the
// previous one), converges on the files' final content with no update lost; a search whose
// refresh of a changed result file cannot get the write lock answers without that file.

import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { Engine } from '../../src/core/engine.ts';
import { checkDatabase, contentDigest, referenceDigest, sleep, startChild, writeCorpus } from './helpers/fault.ts';
import { random } from './helpers/random.ts';

const base = fs.mkdtempSync(path.join(os.tmpdir(), 'fault-concurrency-'));
after(() => fs.rmSync(base, { recursive: true, force: true }));

test('a process searching while another indexes the same database gets answers, never "database is locked"', async (t) => {
  const root = path.join(base, 'shared');
  const dbFile = path.join(base, 'shared.db');
  writeCorpus(root, 100, 11);
  const engine = await Engine.open({ root, dbFile });
  await engine.sync();
  engine.close();
  writeCorpus(path.join(root, 'incoming'), 900, 12);

  const reader = startChild(['search', dbFile, '6000', 'parse config', 'retry policy buffer', 'uniq42', 'sockt strem', 'how does the query find a result']);
  await reader.ready;
  const writer = startChild(['sync', root, dbFile]);
  const synced = await writer.exited;
  assert.equal(synced.code, 0, writer.stderr());
  // Keep writing until the reader is done: single-file updates, as a watcher makes them.
  const burst = startChild(['burst', root, dbFile, '5']);
  const read = await reader.exited;
  burst.process.kill('SIGKILL');
  await burst.exited;
  assert.equal(read.code, 0, reader.stderr());
  const result = JSON.parse(reader.stdout().split('\n').filter(Boolean).at(-1)!) as { queries: number; errors: string[]; errorCount: number };
  t.diagnostic(`reader served ${result.queries} queries while the writer indexed 900 files and then rewrote files`);
  assert.deepEqual(result.errors, []);
  assert.ok(result.queries > 50, `only ${result.queries} queries in 6 s`);
  assert.deepEqual(checkDatabase(dbFile).problems, []);
});

test('1,000 rewrites in 10 seconds with an updateFile call after each, not awaited, converge on the final content', async (t) => {
  const root = path.join(base, 'burst');
  const dbFile = path.join(base, 'burst.db');
  const files = writeCorpus(root, 200, 13);
  const engine = await Engine.open({ root, dbFile });
  await engine.sync();
  const next = random(99);
  const updates: Array<Promise<unknown>> = [];
  const last = new Map<string, number>();
  const started = performance.now();
  for (let i = 0; i < 1000; i++) {
    const relPath = files[Math.floor(next() * files.length)]!;
    // Sizes vary, and some rewrites keep the size: only the content tells them apart.
    const filler = 'rewritten words '.repeat(Math.floor(next() * 300));
    fs.writeFileSync(path.join(root, relPath), `# Version ${i}\n\nversion${String(i).padStart(4, '0')} ${filler}\n`);
    last.set(relPath, i);
    updates.push(engine.updateFile(relPath));
    if (i % 10 === 9) await sleep(Math.max(0, (i + 1) * 10 - (performance.now() - started)));
  }
  const outcomes = await Promise.allSettled(updates);
  const seconds = (performance.now() - started) / 1000;
  t.diagnostic(`1,000 rewrites of ${last.size} files and their updates took ${seconds.toFixed(1)} s`);
  assert.deepEqual(
    outcomes.filter((o) => o.status === 'rejected'),
    [],
  );

  // Every file's newest version is what the index holds and what a search finds.
  const lost: string[] = [];
  for (const [relPath, version] of last) {
    const word = `version${String(version).padStart(4, '0')}`;
    const chunks = engine.store.chunksOfFile(relPath);
    if (!chunks.some((c) => c.text.includes(word))) lost.push(`${relPath} lost ${word}: holds ${chunks[0]?.title}`);
    else if (!engine.searchIndexed(word, { fuzzy: 'off' }).results.some((r) => r.path === relPath)) lost.push(`${relPath}: ${word} not found by search`);
  }
  assert.deepEqual(lost, []);
  engine.close();
  assert.deepEqual(checkDatabase(dbFile).problems, []);
  assert.deepEqual(contentDigest(dbFile), await referenceDigest(root, path.join(base, 'burst-reference.db')));
});

test('a word of letters and digits (version0875) finds its file first, though its digits alone were never indexed', async () => {
  // Found by the rewrite burst above: the Porter list bounded the whole word by its pieces, and
  // `0875` alone has no postings, so the exact word was dropped from the query.
  const root = path.join(base, 'digits');
  fs.mkdirSync(root, { recursive: true });
  for (let i = 0; i < 30; i++)
    fs.writeFileSync(path.join(root, `f${i}.md`), `# Version ${i}\n\nversion${String(i * 7).padStart(4, '0')} ${'words '.repeat(i * 5)}\n`);
  const engine = await Engine.open({ root, dbFile: path.join(base, 'digits.db') });
  await engine.sync();
  assert.equal(engine.searchIndexed('version0035', { fuzzy: 'off' }).results[0]?.path, 'f5.md');
  engine.close();
});

test('a search whose result file changed while another process holds the write lock answers without that file, not "database is locked"', async () => {
  // A window reading the index another one keeps: the keeper is writing a batch, and a result's
  // file changed on disk, so the search's own refresh of that file cannot get the write lock.
  const root = path.join(base, 'busy');
  fs.mkdirSync(root, { recursive: true });
  fs.writeFileSync(path.join(root, 'kept.md'), '# Kept\n\nharbour ferry timetable\n');
  fs.writeFileSync(path.join(root, 'changed.md'), '# Changed\n\nharbour ferry fares\n');
  const dbFile = path.join(base, 'busy.db');
  const engine = await Engine.open({ root, dbFile });
  await engine.sync();
  fs.writeFileSync(path.join(root, 'changed.md'), '# Changed\n\nThe harbour ferry fares went up, and the file grew.\n');
  // The keeper's transaction outlasts the busy wait, made short here to keep the test quick.
  engine.store.db.pragma('busy_timeout = 50');
  const keeper = new Database(dbFile);
  keeper.exec('BEGIN IMMEDIATE');
  try {
    const answer = await engine.search('harbour ferry');
    assert.deepEqual(
      answer.results.map((r) => r.path),
      ['kept.md'],
    );
  } finally {
    keeper.exec('ROLLBACK');
    keeper.close();
  }
  assert.deepEqual(
    (await engine.search('harbour ferry')).results.map((r) => r.path).sort(),
    ['changed.md', 'kept.md'],
    'once the lock is free, the refresh runs',
  );
  engine.close();
});

test('opening and closing an index while another process writes it waits for no lock, and a database locked past the busy timeout is never moved aside', async () => {
  const root = path.join(base, 'opening');
  fs.mkdirSync(root, { recursive: true });
  fs.writeFileSync(path.join(root, 'guide.md'), '# Guide\n\nharbour ferry timetable\n');
  const dbFile = path.join(base, 'opening.db');
  const first = await Engine.open({ root, dbFile });
  await first.sync();
  // A second window opens the index while the first is in the middle of a write.
  first.store.db.exec('BEGIN IMMEDIATE');
  const started = performance.now();
  const second = await Engine.open({ root, dbFile });
  assert.ok(performance.now() - started < 1_000, `opened in ${(performance.now() - started).toFixed(0)} ms, without waiting for the lock`);
  assert.equal(second.searchIndexed('harbour').results[0]?.path, 'guide.md');
  const closing = performance.now();
  second.close();
  assert.ok(performance.now() - closing < 1_000, `closed in ${(performance.now() - closing).toFixed(0)} ms, without waiting for the lock`);
  first.store.db.exec('ROLLBACK');
  first.close();

  // A process holding an exclusive lock keeps even readers out: that is "busy", not "broken".
  const holder = new Database(dbFile);
  holder.pragma('locking_mode = EXCLUSIVE');
  holder.exec('BEGIN EXCLUSIVE');
  try {
    await assert.rejects(Engine.open({ root, dbFile }), /locked/);
    assert.deepEqual(
      fs.readdirSync(base).filter((f) => f.startsWith('opening.db.broken')),
      [],
      'the database stays where it is',
    );
  } finally {
    holder.exec('COMMIT');
    holder.close();
  }
});
