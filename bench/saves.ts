// `npm run bench:saves [-- --saves 30 --rounds 8]`: what a morning of saves does to a small index's
// queries, and what the keeper's idle merge gives back. A copy of npm's tree is indexed and merged,
// as a host leaves it; then `--saves` of its files are saved one by one (a line appended, each
// re-indexed in its own transaction, as the watcher does), which leaves a segment in every FTS5
// table each. The index is copied, and the copy merged as the keeper does while idle
// (`beginMergeIfFragmented`, then the merge steps). Both are then asked the 16 npm queries of
// bench:speed, each query of both in turn, warm. Prints each table's segments, the merge's time,
// latency for both, and whether both return the same top 10 (a merge must not change a result).

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { Engine } from '../src/core/engine.ts';
import { npmTree, percentileOf as pct } from './lib/corpora.ts';
import { NPM_QUERIES } from './lib/queries.ts';

const { values } = parseArgs({ options: { saves: { type: 'string', default: '30' }, rounds: { type: 'string', default: '8' } } });
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'fused-saves-'));
const root = path.join(work, 'npm');
fs.cpSync(npmTree(), root, { recursive: true });
const fragmented = path.join(work, 'fragmented.db');
const merged = path.join(work, 'merged.db');

const indexing = await Engine.open({ root, dbFile: fragmented });
await indexing.sync();
while (indexing.mergeSegments());
const sources = fs
  .readdirSync(path.join(root, 'lib/commands'))
  .filter((name) => name.endsWith('.js'))
  .map((name) => `lib/commands/${name}`);
const saves = Number(values.saves);
for (let i = 0; i < saves; i++) {
  const relPath = sources[i % sources.length]!;
  fs.appendFileSync(path.join(root, relPath), `// saved ${i}\n`);
  await indexing.updateFile(relPath);
}
indexing.close();
fs.copyFileSync(fragmented, merged);

const mergeStarted = performance.now();
const merging = await Engine.open({ root, dbFile: merged });
const began = merging.beginMergeIfFragmented();
while (merging.mergeSegments());
const mergeMs = performance.now() - mergeStarted;
merging.close();

const engines = [
  { name: `after ${saves} saves`, engine: await Engine.open({ root, dbFile: fragmented }), ms: [] as number[], tops: new Map<string, string>() },
  { name: 'merged while idle', engine: await Engine.open({ root, dbFile: merged }), ms: [] as number[], tops: new Map<string, string>() },
];
const segments = (engine: Engine) => Object.values(engine.store.segmentCounts()).join(' / ');
console.log(`npm's tree, ${engines[0]!.engine.store.stats().chunks} chunks; ${saves} saves`);
console.log(`merge pass begun: ${began ? 'yes' : 'no'}, ${mergeMs.toFixed(0)} ms (open, the check, every step)`);
for (const { name, engine } of engines) console.log(`segments (Porter / words / word trigrams / vocabulary), ${name}: ${segments(engine)}`);

const rounds = Number(values.rounds);
// The first round warms both; each later round starts with the other index.
for (let round = 0; round <= rounds; round++) {
  for (const { text } of NPM_QUERIES) {
    for (const entry of round % 2 === 0 ? engines : [...engines].reverse()) {
      const started = performance.now();
      const response = entry.engine.searchIndexed(text);
      const ms = performance.now() - started;
      if (round > 0) entry.ms.push(ms);
      entry.tops.set(text, response.results.map((result) => result.chunkId).join(','));
    }
  }
}
for (const { name, ms } of engines) {
  const sum = ms.reduce((a, b) => a + b, 0);
  console.log(`${name.padEnd(20)} p50 ${pct(ms, 50).toFixed(1)} ms  p95 ${pct(ms, 95).toFixed(1)} ms  all ${sum.toFixed(0)} ms (${rounds} rounds)`);
}
const same = NPM_QUERIES.filter(({ text }) => engines[0]!.tops.get(text) === engines[1]!.tops.get(text)).length;
console.log(`same top 10: ${same} of ${NPM_QUERIES.length} queries`);
for (const { engine } of engines) engine.close();
fs.rmSync(work, { recursive: true, force: true });
