// Fault suite, crash safety: an indexing process is SIGKILLed at random moments, during a full
// index and during an update burst. After each kill the database opens as it is (not moved
// aside), passes SQLite's and FTS5's integrity checks, holds no file with half its chunks, and a
// resumed sync ends with exactly the content of an uninterrupted index. This is the short form;
// `node bench/fault-kill.ts` runs 50 kills on a real tree.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { contentDigest, killRound, referenceDigest, removeDatabase, startChild, writeCorpus, type KillRound } from './helpers/fault.ts';
import { random } from './helpers/random.ts';

const SEED = Number(process.env.FAULT_SEED ?? 20240601);
const base = fs.mkdtempSync(path.join(os.tmpdir(), 'fault-kill-'));
const root = path.join(base, 'work');
const dbFile = path.join(base, 'index.db');
const scratchDb = path.join(base, 'reference.db');
let syncMs = 0;
let fullReference: ReturnType<typeof contentDigest>;
after(() => fs.rmSync(base, { recursive: true, force: true }));

before(async () => {
  writeCorpus(root, 600, SEED);
  fullReference = await referenceDigest(root, scratchDb);
  // How long the child takes from its first write to done: the window the kills are spread over.
  const child = startChild(['sync', root, dbFile]);
  await child.indexing;
  const started = performance.now();
  await child.exited;
  syncMs = performance.now() - started;
});

function explain(rounds: KillRound[]): string {
  return rounds
    .filter((r) => r.problems.length > 0)
    .map((r) => `${r.kind} killed after ${r.afterMs} ms: ${r.problems.join('; ')}`)
    .join('\n');
}

test(`a full index killed at 4 random moments (seed ${SEED}) leaves a sound database that resumes to the same content`, async (t) => {
  const next = random(SEED);
  const rounds: KillRound[] = [];
  for (let i = 0; i < 4; i++) {
    removeDatabase(dbFile);
    const afterMs = Math.floor(next() * syncMs * 0.8);
    rounds.push(await killRound({ kind: 'full-index', root, dbFile, afterMs, seed: SEED + i, reference: async () => fullReference, referenceDb: scratchDb }));
  }
  t.diagnostic(rounds.map((r) => `killed ${r.killed} after ${r.afterMs} ms holding ${r.files} files`).join(', '));
  assert.equal(explain(rounds), '');
  assert.ok(
    rounds.filter((r) => r.killed).length >= 3,
    `most kills should land mid-index: ${JSON.stringify(rounds.map((r) => [r.afterMs, r.killed, r.files]))}`,
  );
});

test(`an update burst killed at 4 random moments (seed ${SEED}) loses nothing the folder holds`, async (t) => {
  const next = random(SEED + 1);
  const rounds: KillRound[] = [];
  for (let i = 0; i < 4; i++) {
    const afterMs = 100 + Math.floor(next() * 1000);
    rounds.push(
      await killRound({
        kind: 'update-burst',
        root,
        dbFile,
        afterMs,
        seed: SEED + 100 + i,
        reference: () => referenceDigest(root, scratchDb),
        referenceDb: scratchDb,
      }),
    );
  }
  t.diagnostic(rounds.map((r) => `killed ${r.killed} after ${r.afterMs} ms holding ${r.files} files`).join(', '));
  assert.equal(explain(rounds), '');
  assert.ok(
    rounds.every((r) => r.killed),
    'a burst never ends by itself',
  );
});
