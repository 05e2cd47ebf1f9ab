// Indexing gives way while the user types: a sync rests between its batches, for as long as it
// worked, while keystrokes keep arriving, and says so in its progress.

import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { IndexKeeper } from '../../src/core/index-keeper.ts';
import type { IndexProgress } from '../../src/core/indexer.ts';
import { UserActivity } from '../../src/core/user-activity.ts';
import { EngineClient } from '../../src/worker/client.ts';
import { tempDir } from './helpers/store.ts';

const WORKER = fileURLToPath(new URL('../../src/worker/worker.ts', import.meta.url));

const keepers: IndexKeeper[] = [];
const client = new EngineClient(WORKER, { info() {}, warn() {}, error() {} });
after(async () => {
  for (const keeper of keepers) await keeper.close();
  await client.stop();
});

/**
 * Files in a folder whose sync must rest: enough that it works well past the 200 ms a rest waits
 * for (MIN_WORK_MS in user-activity.ts). 1,500 took as little as 170 ms of work, and never rested.
 */
const SYNC_FILES = 4000;

/** A folder of `files` one-line files, `fN.txt`, each with its own word `wordNq`. */
function folderOf(files: number): string {
  const root = tempDir('fused-typing-');
  for (let i = 0; i < files; i++) fs.writeFileSync(path.join(root, `f${i}.txt`), `word${i}q shared text\n`);
  return root;
}

async function timed(run: () => Promise<boolean>): Promise<{ rested: boolean; ms: number }> {
  const started = performance.now();
  const rested = await run();
  return { rested, ms: performance.now() - started };
}

test('with nobody typing, background work does not rest', async () => {
  const { rested, ms } = await timed(() => new UserActivity().rest(10_000));
  assert.equal(rested, false);
  assert.ok(ms < 1_000, `returned after ${ms} ms`);
});

test('while the user types, background work rests as long as it worked', async () => {
  const activity = new UserActivity(60_000);
  activity.noteActive();
  assert.equal(activity.active, true);
  const { rested, ms } = await timed(() => activity.rest(300));
  assert.equal(rested, true);
  assert.ok(ms >= 290, `rested ${ms} ms`);
});

test('the rest ends when the user stops typing, or when the work is cancelled', async () => {
  const typing = new UserActivity(100);
  typing.noteActive();
  const stopped = await timed(() => typing.rest(30_000));
  assert.equal(stopped.rested, true);
  assert.ok(stopped.ms < 10_000, `rested ${stopped.ms} ms after the last keystroke`);
  assert.equal(typing.active, false);

  const still = new UserActivity(60_000);
  still.noteActive();
  const abort = new AbortController();
  setTimeout(() => abort.abort(), 50);
  const cancelled = await timed(() => still.rest(30_000, abort.signal));
  assert.equal(cancelled.rested, true);
  assert.ok(cancelled.ms < 10_000, `rested ${cancelled.ms} ms after the abort`);
});

test('short steps go on until they add up to a span worth a rest, and work done while the user was idle does not count', async () => {
  const activity = new UserActivity(60_000);
  const pace = activity.pace();
  const rests: boolean[] = [];
  const busy = (ms: number) => {
    const until = performance.now() + ms;
    while (performance.now() < until);
  };
  busy(300);
  await pace.between((on) => rests.push(on)); // idle: no rest, and the 300 ms are forgotten
  assert.equal(rests.length, 0);
  activity.noteActive();
  busy(20);
  await pace.between((on) => rests.push(on));
  assert.equal(rests.length, 0, 'a 20 ms step is not worth a rest');
  busy(250);
  const { ms } = await timed(async () => {
    await pace.between((on) => rests.push(on));
    return true;
  });
  assert.deepEqual(rests, [true, false]);
  assert.ok(ms >= 250, `rested ${ms} ms after 270 ms of work`);
});

test('a first index rests between batches while the user types, says so, and still indexes every file', async () => {
  const files = SYNC_FILES;
  const root = folderOf(files);
  const activity = new UserActivity();
  const keeper = await IndexKeeper.open({
    root,
    dbFile: path.join(tempDir('fused-typing-db-'), 'index.db'),
    kind: 'test',
    index: { prepareThreads: 0 },
    activity,
  });
  keepers.push(keeper);
  const reports: IndexProgress[] = [];
  activity.noteActive();
  const typing = setInterval(() => activity.noteActive(), 50);
  try {
    const summary = await keeper.sync({ onProgress: (progress) => reports.push(progress) });
    assert.equal(summary?.files, files);
  } finally {
    clearInterval(typing);
  }
  assert.ok(reports.some((progress) => progress.resting));
  // Each rest is followed by a report without the flag, so the status bar drops it as work resumes.
  const last = reports.findLastIndex((progress) => progress.resting);
  assert.ok(reports.slice(last + 1).some((progress) => progress.phase === 'indexing' && !progress.resting));
  assert.equal((await keeper.search('word1499q')).results[0]?.path, 'f1499.txt');

  // Nobody typing: the next sync of the same folder rests nowhere.
  fs.writeFileSync(path.join(root, 'new.txt'), 'fresh words\n');
  await new Promise((resolve) => setTimeout(resolve, 1_100));
  const quiet: IndexProgress[] = [];
  await keeper.sync({ onProgress: (progress) => quiet.push(progress) });
  assert.equal(quiet.filter((progress) => progress.resting).length, 0);
});

test("the extension's worker hears the user typing and rests its sync", async () => {
  const files = SYNC_FILES;
  const root = folderOf(files);
  const folder = 'file:///typing';
  const index = { include: [], exclude: [], maxFileBytes: 1 << 20, chunkMaxBytes: 4096, prepareThreads: 0 };
  assert.ok(
    (await client.request({ type: 'open', folders: [{ id: folder, name: 'typing', root, dbFile: path.join(tempDir('fused-typing-db-'), 'index.db'), index }] }))
      .ok,
  );
  const reports: IndexProgress[] = [];
  const stopListening = client.onEvent((event) => {
    if (event.type === 'progress') reports.push(event.progress);
  });
  // As the extension sends it from an editor's changes: at most every 250 ms.
  const typing = setInterval(() => void client.request({ type: 'typing' }), 250);
  try {
    assert.ok((await client.request({ type: 'typing' })).ok);
    const synced = await client.request({ type: 'sync', folder });
    assert.ok(synced.ok && synced.value?.files === files);
  } finally {
    clearInterval(typing);
    stopListening.dispose();
  }
  assert.ok(reports.some((progress) => progress.resting));
});
