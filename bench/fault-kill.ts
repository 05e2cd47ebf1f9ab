// `node bench/fault-kill.ts [--kills 50] [--root DIR] [--seed N]`: the long form of the kill test
// in test/unit/fault-kill.test.ts. Copies a real tree (default: the rxjs corpus in .cache, else a
// generated one), then SIGKILLs an indexing process at random moments — half the kills during a
// full index, half during an update burst — and after each checks that the database opens as it
// is, passes SQLite's integrity_check and FTS5's integrity-check on all three tables, holds no
// half-written file, and resumes to exactly the content of an uninterrupted index.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { copyTree, killRound, referenceDigest, removeDatabase, startChild, writeCorpus, type KillRound } from '../test/unit/helpers/fault.ts';
import { random } from '../test/unit/helpers/random.ts';

const { values } = parseArgs({
  options: { kills: { type: 'string', default: '50' }, root: { type: 'string' }, seed: { type: 'string', default: String(Date.now() % 1_000_000) } },
});
const kills = Number(values.kills);
const seed = Number(values.seed);
const base = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-fault-kill-'));
const root = path.join(base, 'work');
const dbFile = path.join(base, 'index.db');
const scratchDb = path.join(base, 'reference.db');

const source = values.root ? path.resolve(values.root) : path.resolve('.cache/corpus-rxjs');
if (fs.existsSync(source)) copyTree(source, root);
else writeCorpus(root, 3000, seed);
console.log(`Tree: ${fs.existsSync(source) ? source : 'generated, 3,000 files'} (copied to ${root}); ${kills} kills, seed ${seed}`);

try {
  let reference = await referenceDigest(root, scratchDb);
  const child = startChild(['sync', root, dbFile]);
  await child.indexing;
  const started = performance.now();
  await child.exited;
  const syncMs = performance.now() - started;
  console.log(`Uninterrupted index: ${reference.fileCount} files, ${reference.chunkCount} chunks; the child writes for ${syncMs.toFixed(0)} ms`);

  const next = random(seed);
  const rounds: KillRound[] = [];
  for (let i = 0; i < kills; i++) {
    const full = i % 2 === 0;
    let round: KillRound;
    if (full) {
      removeDatabase(dbFile);
      round = await killRound({
        kind: 'full-index',
        root,
        dbFile,
        afterMs: Math.floor(next() * syncMs * 0.9),
        seed: seed + i,
        reference: async () => reference,
        referenceDb: scratchDb,
      });
    } else {
      round = await killRound({
        kind: 'update-burst',
        root,
        dbFile,
        afterMs: 100 + Math.floor(next() * 2000),
        seed: seed + i,
        reference: async () => (reference = await referenceDigest(root, scratchDb)),
        referenceDb: scratchDb,
      });
    }
    rounds.push(round);
    const verdict = round.problems.length === 0 ? 'ok' : `FAIL ${round.problems.join('; ')}`;
    console.log(
      `${String(i + 1).padStart(3)} ${round.kind.padEnd(12)} kill at ${String(round.afterMs).padStart(5)} ms ${round.killed ? 'landed' : 'missed (finished first)'}; held ${round.files} files/${round.chunks} chunks; ${verdict}`,
    );
  }
  const landed = rounds.filter((r) => r.killed);
  const failed = rounds.filter((r) => r.problems.length > 0);
  const partial = rounds.filter((r) => r.kind === 'full-index' && r.killed && r.files > 0 && r.files < reference.fileCount);
  console.log(
    `\n${landed.length} of ${rounds.length} kills landed mid-work (${partial.length} full-index kills left a partial index, the rest came before the first commit or during a burst); ${failed.length} rounds failed a check.`,
  );
  process.exitCode = failed.length === 0 ? 0 : 1;
} finally {
  fs.rmSync(base, { recursive: true, force: true });
}
