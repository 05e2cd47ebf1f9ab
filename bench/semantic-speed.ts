// `npm run bench:semantic-speed [-- --rows 1300000] [-- --dims 64,256]`
//
// What the semantic lane costs at the Linux tree's size (1.3 M chunks):
//
// - the semantic list's query time: the int8 scan of every vector plus the float32 rescore, as
//   the lane runs it, against an exact float32 scan of the same vectors, p50/p95 over 32 queries;
//   the first query after opening pays for reading and quantising the vectors, reported apart;
// - the database's growth per vector, and the process's peak memory once the vectors are loaded;
// - embedding throughput of the in-process `static` provider (model2vec) on real kernel chunks,
//   one core: the tokenizer is most of its work.
//
// The scan's cost depends on the number of rows and their size, not on what the vectors mean, so
// the rows are random unit vectors in a real index file (bench/out/semantic-speed-<dims>.db).

import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { Engine } from '../src/core/engine.ts';
import { createEmbedder } from '../src/core/semantic/providers.ts';
import { IndexStore } from '../src/core/store/store.ts';
import { VectorStore } from '../src/core/store/vectors.ts';
import { dbSize, linuxTree, peakRssMb, percentile } from './lib/corpora.ts';
import { random } from '../test/unit/helpers/random.ts';

const { values } = parseArgs({ options: { rows: { type: 'string', default: '1300000' }, dims: { type: 'string', default: '64,256' } } });
const ROWS = Number(values.rows);
const QUERIES = 32;
/** What a search with the default limit asks of the lane: max(candidateDepth, 8 × limit, 40). */
const DEPTH = 80;
const OUT = path.resolve('bench/out');

const rng = random(20261201);

function unitVector(dims: number): Float32Array {
  const vector = Float32Array.from({ length: dims }, () => rng() * 2 - 1);
  const norm = Math.hypot(...vector);
  return vector.map((v) => v / norm);
}

/** An index file holding ROWS chunk hashes with a random vector each, made once. */
function syntheticIndex(dims: number): { dbFile: string; model: string; emptyBytes: number } {
  const dbFile = path.join(OUT, `semantic-speed-${dims}.db`);
  const model = `synthetic@${dims}`;
  const emptyFile = path.join(OUT, `semantic-speed-empty.db`);
  if (!fs.existsSync(emptyFile)) new IndexStore(emptyFile).close();
  const emptyBytes = dbSize(emptyFile);
  const store = new IndexStore(dbFile);
  const vectors = new VectorStore(store);
  vectors.ensureSchema();
  const have = store.db.prepare('SELECT count(*) FROM vectors').pluck().get() as number;
  if (have !== ROWS) {
    store.db.exec('DELETE FROM vectors; DELETE FROM chunk_hashes;');
    const hash = store.db.prepare('INSERT INTO chunk_hashes (chunk_id, hash) VALUES (?, ?)');
    const BATCH = 10_000;
    for (let start = 0; start < ROWS; start += BATCH) {
      const entries = Array.from({ length: Math.min(BATCH, ROWS - start) }, (_, i) => {
        const key = Buffer.alloc(16);
        key.writeUInt32LE(start + i + 1);
        return { id: start + i + 1, hash: key, vector: unitVector(dims) };
      });
      store.transaction(() => {
        for (const entry of entries) hash.run(entry.id, entry.hash);
      });
      vectors.put(model, entries);
    }
    store.db.pragma('wal_checkpoint(TRUNCATE)');
  }
  store.close();
  return { dbFile, model, emptyBytes };
}

function exactTop(matrix: Float32Array, dims: number, query: Float32Array, k: number): number[] {
  const rows = matrix.length / dims;
  const scores = new Float32Array(rows);
  for (let r = 0; r < rows; r++) {
    let dot = 0;
    for (let d = 0; d < dims; d++) dot += matrix[r * dims + d]! * query[d]!;
    scores[r] = dot;
  }
  return Array.from(scores.keys())
    .sort((a, b) => scores[b]! - scores[a]!)
    .slice(0, k);
}

function ms(run: () => void): number {
  const started = performance.now();
  run();
  return performance.now() - started;
}

fs.mkdirSync(OUT, { recursive: true });
const scanRows: string[] = [];
for (const dims of values.dims.split(',').map(Number)) {
  const { dbFile, model, emptyBytes } = syntheticIndex(dims);
  const store = new IndexStore(dbFile);
  const vectors = new VectorStore(store);
  const queries = Array.from({ length: QUERIES }, () => unitVector(dims));
  const rssBefore = process.memoryUsage().rss;
  const first = ms(() => vectors.nearest(model, queries[0]!, DEPTH));
  const rssLoaded = process.memoryUsage().rss;
  const lane = queries.map((query) => ms(() => vectors.nearest(model, query, DEPTH))).sort((a, b) => a - b);
  // The exact scan over float32 vectors held in memory, for comparison (and 4× the memory).
  const blobs = store.db.prepare('SELECT vector FROM vectors WHERE model = ?').pluck().all(model) as Buffer[];
  const matrix = new Float32Array(blobs.length * dims);
  blobs.forEach((blob, r) => matrix.set(new Float32Array(blob.buffer.slice(blob.byteOffset, blob.byteOffset + blob.byteLength)), r * dims));
  const exact = queries.map((query) => ms(() => exactTop(matrix, dims, query, DEPTH))).sort((a, b) => a - b);
  const bytesPerVector = (dbSize(dbFile) - emptyBytes) / ROWS;
  scanRows.push(
    `| ${dims} | ${ROWS.toLocaleString('en-US')} | ${first.toFixed(0)} | ${percentile(lane, 50).toFixed(1)} / ${percentile(lane, 95).toFixed(1)} | ${percentile(exact, 50).toFixed(1)} / ${percentile(exact, 95).toFixed(1)} | ${bytesPerVector.toFixed(0)} | ${((rssLoaded - rssBefore) / 2 ** 20).toFixed(0)} |`,
  );
  store.close();
}

// Embedding throughput of the static provider on real kernel chunks (kernel/ of Linux 6.1).
const root = path.join(linuxTree(), 'kernel');
const engine = await Engine.open({ root, dbFile: path.join(OUT, 'semantic-speed-kernel.db') });
await engine.sync();
const chunks = engine.store.db.prepare('SELECT title, text FROM chunks').all() as Array<{ title: string; text: string }>;
engine.close();
const embedder = await createEmbedder({ provider: 'static', model: path.resolve('test/fixtures/model2vec/float32') });
const texts = chunks.map((chunk) => `${chunk.title}\n${chunk.text}`);
const started = performance.now();
for (let i = 0; i < texts.length; i += 256) await embedder.embed(texts.slice(i, i + 256));
const seconds = (performance.now() - started) / 1000;
const megabytes = texts.reduce((sum, text) => sum + Buffer.byteLength(text), 0) / 2 ** 20;

console.log(`\nThe semantic list at ${ROWS.toLocaleString('en-US')} chunks (one thread; ${DEPTH} nearest, as a default search asks)\n`);
console.log(
  '| dims | vectors | first query after open, ms | lane (int8 scan + rescore) p50 / p95, ms | exact float32 scan p50 / p95, ms | bytes per vector on disk | memory for the int8 copy, MB |',
);
console.log('|---|---|---|---|---|---|---|');
for (const row of scanRows) console.log(row);
console.log(
  `\nStatic (model2vec) embedding: ${texts.length.toLocaleString('en-US')} chunks of kernel/ (${megabytes.toFixed(1)} MB) in ${seconds.toFixed(1)} s: ${(texts.length / seconds).toFixed(0)} chunks/s, ${(megabytes / seconds).toFixed(2)} MB/s on one core`,
);
console.log(`Peak memory of this process: ${peakRssMb()} MB`);
