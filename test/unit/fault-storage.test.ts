// Fault suite, storage: a damaged, foreign or newer database is moved aside and rebuilt with one
// notice; a lost WAL costs only the newest writes, which the next sync restores; a full disk
// stops indexing with a message, keeps the index answering, and indexing resumes once there is
// room again.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Engine } from '../../src/core/engine.ts';
import { IndexFullError } from '../../src/core/indexer.ts';
import { checkDatabase, contentDigest, referenceDigest, removeDatabase, writeCorpus } from './helpers/fault.ts';

const base = fs.mkdtempSync(path.join(os.tmpdir(), 'fault-storage-'));
const root = path.join(base, 'work');
let reference: ReturnType<typeof contentDigest>;
after(() => fs.rmSync(base, { recursive: true, force: true }));

before(async () => {
  writeCorpus(root, 150, 7);
  reference = await referenceDigest(root, path.join(base, 'reference.db'));
});

let counter = 0;
async function freshIndex(): Promise<string> {
  const dbFile = path.join(base, `db${counter++}`, 'index.db');
  const engine = await Engine.open({ root, dbFile });
  await engine.sync();
  engine.close();
  return dbFile;
}

/** Opens the damaged file, syncs, and checks it was moved aside once, rebuilt, and told once. */
async function assertRebuilt(dbFile: string, why: RegExp): Promise<void> {
  const engine = await Engine.open({ root, dbFile });
  assert.equal(engine.notices.length, 1, `one notice: ${JSON.stringify(engine.notices)}`);
  assert.match(engine.notices[0]!, why);
  assert.match(engine.notices[0]!, /moved to .*broken-/);
  const summary = await engine.sync();
  engine.close();
  assert.equal(summary.complete, true);
  assert.deepEqual(checkDatabase(dbFile).problems, []);
  assert.deepEqual(contentDigest(dbFile), reference);
  const asides = fs.readdirSync(path.dirname(dbFile)).filter((name) => name.includes('.broken-') && !name.endsWith('-wal') && !name.endsWith('-shm'));
  assert.equal(asides.length, 1, `one file moved aside: ${asides.join(', ')}`);
  const again = await Engine.open({ root, dbFile });
  assert.deepEqual(again.notices, [], 'told once: the rebuilt index opens quietly');
  again.close();
}

test('a database file cut in half is moved aside and rebuilt, and the user is told once', async () => {
  const dbFile = await freshIndex();
  const size = fs.statSync(dbFile).size;
  assert.ok(size > 100_000, `index of ${size} bytes is big enough to cut`);
  fs.truncateSync(dbFile, Math.floor(size / 2 / 4096) * 4096);
  await assertRebuilt(dbFile, /could not be read|malformed|corrupt/i);
});

test('a database file of garbage is moved aside and rebuilt', async () => {
  const dbFile = path.join(base, `db${counter++}`, 'index.db');
  fs.mkdirSync(path.dirname(dbFile), { recursive: true });
  fs.writeFileSync(dbFile, Buffer.from(Array.from({ length: 64 * 1024 }, (_, i) => (i * 7919) % 251)));
  await assertRebuilt(dbFile, /not a database|could not be read/i);
});

test('a database whose header is intact but whose pages are garbage is moved aside and rebuilt', async () => {
  const dbFile = await freshIndex();
  const fd = fs.openSync(dbFile, 'r+');
  const size = fs.fstatSync(fd).size;
  // Keep page 1 (header and schema); scribble over everything after it.
  for (let offset = 4096; offset < size; offset += 4096) fs.writeSync(fd, Buffer.alloc(4096, 0xa5), 0, 4096, offset);
  fs.closeSync(fd);
  await assertRebuilt(dbFile, /could not be read|malformed|corrupt/i);
});

test('a database from a newer schema version is moved aside, not read or downgraded', async () => {
  const dbFile = await freshIndex();
  const db = new Database(dbFile);
  db.pragma('user_version = 99');
  db.close();
  await assertRebuilt(dbFile, /schema version is 99/);
});

test('a lost -wal file costs only the newest writes: the database opens as it is, and the next sync restores them', async () => {
  const dbFile = await freshIndex();
  // Hold a reader open so the WAL is not checkpointed away when the writer closes, then copy the
  // database without it: the state a crash plus a lost WAL leaves behind.
  const engine = await Engine.open({ root, dbFile });
  engine.store.db.pragma('wal_autocheckpoint = 0');
  fs.appendFileSync(path.join(root, 'd0/e0/doc0.md'), '\nwalonlymarker\n');
  await engine.updateFile('d0/e0/doc0.md');
  assert.equal(engine.searchIndexed('walonlymarker').results.length, 1);
  assert.ok(fs.statSync(`${dbFile}-wal`).size > 0, 'the write sits in the WAL');
  const copy = path.join(base, `db${counter++}`, 'index.db');
  fs.mkdirSync(path.dirname(copy));
  fs.copyFileSync(dbFile, copy);
  engine.close();

  const reopened = await Engine.open({ root, dbFile: copy });
  assert.deepEqual(reopened.notices, [], 'a consistent database at its last checkpoint is not thrown away');
  assert.deepEqual(checkDatabase(copy).problems, []);
  assert.equal(reopened.searchIndexed('walonlymarker', { fuzzy: 'off' }).results.length, 0, 'the lost write is lost');
  await reopened.sync();
  assert.equal(reopened.searchIndexed('walonlymarker', { fuzzy: 'off' }).results.length, 1, 'and the next sync restores it');
  reopened.close();
  const expected = await referenceDigest(root, path.join(base, 'reference.db'));
  assert.deepEqual(contentDigest(copy), expected);
  reference = expected;
});

test('a full disk stops indexing with a message, the index keeps answering, and indexing resumes when space returns', async () => {
  const dbFile = path.join(base, `db${counter++}`, 'index.db');
  const engine = await Engine.open({ root, dbFile });
  await engine.sync();
  const before = contentDigest(dbFile);
  const more = writeCorpus(path.join(root, 'more'), 400, 8);
  try {
    // SQLite's page limit makes this connection's database "full" 40 pages from now.
    const pages = engine.store.db.pragma('page_count', { simple: true }) as number;
    engine.store.db.pragma(`max_page_count = ${pages + 40}`);

    const stopped = await engine.sync();
    assert.equal(stopped.complete, false);
    assert.equal(stopped.stopped?.code, 'disk-full');
    assert.match(stopped.stopped.message, /is full: indexing stopped .*Searches still answer/);
    assert.doesNotMatch(stopped.stopped.message, /\n\s+at /, 'a message, not a stack trace');
    assert.deepEqual(checkDatabase(dbFile).problems, [], 'the batch that did not fit was rolled back whole');
    assert.equal(stopped.files, engine.stats().files);
    assert.ok(stopped.files < 150 + 400, 'some of the new files did not fit');
    assert.equal(stopped.added, stopped.files - 150, 'the summary counts only what was committed');

    // Searches keep working, old files and whatever made it in alike.
    assert.equal(engine.searchIndexed('walonlymarker').results[0]?.path, 'd0/e0/doc0.md');
    const response = await engine.search('parse config retry policy');
    assert.ok(response.results.length > 0);

    // A single-file update that does not fit throws a typed error with the same kind of message.
    fs.writeFileSync(path.join(root, 'more', 'huge.md'), `# Huge\n\n${'unfit words never stored '.repeat(20_000)}\n`);
    await assert.rejects(
      engine.updateFile('more/huge.md'),
      (error: unknown) => error instanceof IndexFullError && error.code === 'disk-full' && /is full/.test(error.message),
    );
    // Search re-checks files behind results; a refresh that does not fit still answers.
    fs.appendFileSync(path.join(root, 'd3/e3/notes3.txt'), `\n${'growth words '.repeat(20_000)}\n`);
    const stillAnswers = await engine.search('uniq3');
    assert.ok(Array.isArray(stillAnswers.results));

    engine.store.db.pragma('max_page_count = 1073741823');
    const resumed = await engine.sync();
    assert.equal(resumed.complete, true);
    assert.equal(resumed.stopped, undefined);
    assert.equal(engine.stats().files, 150 + more.length + 1);
    engine.close();
    assert.deepEqual(checkDatabase(dbFile).problems, []);
    assert.deepEqual(contentDigest(dbFile), await referenceDigest(root, path.join(base, 'reference.db')));
    assert.notDeepEqual(contentDigest(dbFile), before);
  } finally {
    engine.close();
    fs.rmSync(path.join(root, 'more'), { recursive: true, force: true });
    removeDatabase(dbFile);
  }
});
