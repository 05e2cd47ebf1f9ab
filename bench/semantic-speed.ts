// `npm run bench:semantic-speed [-- --rows 1300000] [-- --dims 64,256]`
//
// What the semantic lane costs at the Linux tree's size (1.3 M chunks):
//
// - reading the vectors into memory (int8, partitioned past a few million values), which a host
//   does in steps at open while searches go on: its time, and the longest step a search could wait
//   behind;
// - the semantic list's query time, as the lane runs it (the cells near the query, then a float32
//   rescore), against an exact float32 scan of every vector, p50/p95 over 32 queries, and how much
//   of the exact top 10 and of as many as a default search asks (100) it finds;
// - the database's growth per vector and the copy's size in memory.
//
// Embedding throughput is `npm run bench:embed-speed`'s.
//
// Two kinds of vectors. The Linux tree's own chunks, embedded by a model2vec-shaped model of 64
// dimensions made from random token vectors (tokenModel; bench/out/semantic-speed-linux.db, made
// once: an index of the tree, then its vectors) — real text, so chunks that share rare words get
// near vectors, the clustering a partition relies on.
// And random unit vectors (64 and 256 dimensions): the same cost per row, but no clusters at all,
// the worst case for a partition's recall.

import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { Engine } from '../src/core/engine.ts';
import { DEFAULT_SEARCH_OPTIONS } from '../src/core/options.ts';
import { filteredDepth } from '../src/core/search/pipeline.ts';
import { createEmbedder } from '../src/core/semantic/providers.ts';
import { loadTokenizer } from '../src/core/semantic/tokenizer.ts';
import { IndexStore } from '../src/core/store/store.ts';
import { VectorStore } from '../src/core/store/vectors.ts';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { dbSize, linuxTree, peakRssMb, percentile } from './lib/corpora.ts';
import { LINUX_QUERIES } from './lib/queries.ts';
import { random } from '../test/unit/helpers/random.ts';

const { values } = parseArgs({ options: { rows: { type: 'string', default: '1300000' }, dims: { type: 'string', default: '64,256' } } });
const ROWS = Number(values.rows);
const QUERIES = 32;
const STATIC_MODEL = path.resolve('test/fixtures/model2vec/float32');
/** What a search with the default limit asks of the lane. */
const DEPTH = filteredDepth(DEFAULT_SEARCH_OPTIONS);
const OUT = path.resolve('bench/out');

const rng = random(20261201);

function unitVector(dims: number): Float32Array {
  const vector = Float32Array.from({ length: dims }, () => rng() * 2 - 1);
  const norm = Math.hypot(...vector);
  return vector.map((v) => v / norm);
}

/** An index file holding ROWS chunk hashes with a random vector each, made once. */
function syntheticIndex(dims: number): { dbFile: string; model: string } {
  const dbFile = path.join(OUT, `semantic-speed-${dims}.db`);
  const model = `synthetic@${dims}`;
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
  return { dbFile, model };
}

/**
 * A model2vec-shaped model of 64 dimensions, made once: the test model's tokenizer (bge's 30k
 * WordPiece vocabulary), a random vector per token, and per-token weights a / (a + p(token)) from
 * the tokens' frequency in the kernel's chunks, as model2vec's Zipf weighting damps common tokens.
 * Chunks that share rare tokens get near vectors, as with a trained model; what the vectors mean is
 * not the point, how they cluster is. (The test model itself has 2 dimensions.)
 */
async function tokenModel(store: IndexStore): Promise<string> {
  const folder = path.join(OUT, 'random-token-model-64');
  if (fs.existsSync(path.join(folder, 'model.safetensors'))) return folder;
  const { tokenizer } = await loadTokenizer(STATIC_MODEL, 'the test model');
  const vocab = (JSON.parse(fs.readFileSync(path.join(STATIC_MODEL, 'tokenizer.json'), 'utf8')) as { model: { vocab: Record<string, number> } }).model.vocab;
  const vocabulary = Math.max(...Object.values(vocab)) + 1;
  const counts = new Float64Array(vocabulary);
  let total = 0;
  for (const text of store.db.prepare('SELECT text FROM chunks WHERE id % 50 = 0').pluck().iterate() as Iterable<string>) {
    for (const id of tokenizer.encode(text, { add_special_tokens: false }).ids) {
      counts[id]!++;
      total++;
    }
  }
  const embeddings = new Float32Array(vocabulary * 64).map(() => rng() * 2 - 1);
  const weights = Float32Array.from(counts, (count) => 1e-3 / (1e-3 + count / total));
  const header = JSON.stringify({
    embeddings: { dtype: 'F32', shape: [vocabulary, 64], data_offsets: [0, embeddings.byteLength] },
    weights: { dtype: 'F32', shape: [vocabulary], data_offsets: [embeddings.byteLength, embeddings.byteLength + weights.byteLength] },
  });
  const length = Buffer.alloc(8);
  length.writeBigUInt64LE(BigInt(Buffer.byteLength(header)));
  fs.mkdirSync(folder, { recursive: true });
  fs.copyFileSync(path.join(STATIC_MODEL, 'tokenizer.json'), path.join(folder, 'tokenizer.json'));
  fs.writeFileSync(path.join(folder, 'config.json'), JSON.stringify({ model_type: 'model2vec', hidden_dim: 64, normalize: true }));
  fs.writeFileSync(
    path.join(folder, 'model.safetensors'),
    Buffer.concat([length, Buffer.from(header), Buffer.from(embeddings.buffer), Buffer.from(weights.buffer)]),
  );
  return folder;
}

/** The Linux tree indexed and every chunk embedded by the 64-dimension token model, made once. */
async function linuxIndex(): Promise<{ dbFile: string; model: string; queries: Float32Array[] }> {
  const dbFile = path.join(OUT, 'semantic-speed-linux.db');
  let engine = await Engine.open({ root: linuxTree(), dbFile });
  if (engine.lastSync() === undefined) await engine.sync();
  const model = await tokenModel(engine.store);
  engine.close();
  engine = await Engine.open({ root: linuxTree(), dbFile, embedding: { provider: 'static', model, batchSize: 512 } });
  try {
    await engine.embedPending();
    // Half the questions a person asks, half chunks' own titles (as "find similar" starts from a chunk).
    const titles = engine.store.db.prepare("SELECT title FROM chunks WHERE id % 40009 = 7 AND title <> '' LIMIT 16").pluck().all() as string[];
    const embedder = await createEmbedder({ provider: 'static', model });
    const queries = await embedder.embed([...LINUX_QUERIES.map((query) => query.text), ...titles]);
    return { dbFile, model: embedder.modelId, queries };
  } finally {
    engine.close();
  }
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
const emptyFile = path.join(OUT, `semantic-speed-empty.db`);
if (!fs.existsSync(emptyFile)) new IndexStore(emptyFile).close();
const emptyBytes = dbSize(emptyFile);
const sets = [
  { label: 'Linux chunks, 64-dimension token model', ...(await linuxIndex()) },
  ...values.dims.split(',').map((dims) => {
    const made = syntheticIndex(Number(dims));
    return { label: 'random unit vectors', ...made, queries: Array.from({ length: QUERIES }, () => unitVector(Number(dims))) };
  }),
];
for (const set of sets) {
  const store = new IndexStore(set.dbFile);
  const vectors = new VectorStore(store);
  const dims = set.queries[0]!.length;
  // The last set's exact matrix (a gigabyte at 256 dimensions) collected now, not during this read.
  globalThis.gc?.();
  // Read in steps as a host does at open; the longest step is what a search asked meanwhile waits for.
  const delay = monitorEventLoopDelay({ resolution: 1 });
  delay.enable();
  const loadStarted = performance.now();
  await vectors.load(set.model);
  const loadMs = performance.now() - loadStarted;
  delay.disable();
  // Each query once untimed first: the first searches after the read also compile the scan.
  for (const query of set.queries) vectors.nearest(set.model, query, DEPTH);
  const lane = set.queries.map((query) => ms(() => vectors.nearest(set.model, query, DEPTH))).sort((a, b) => a - b);
  // The exact scan over float32 vectors held in memory, for comparison (and 4× the memory).
  const rows = store.db
    .prepare('SELECT h.chunk_id AS id, v.vector FROM chunk_hashes h JOIN vectors v ON v.model = ? AND v.hash = h.hash ORDER BY h.chunk_id')
    .all(set.model) as Array<{ id: number; vector: Buffer }>;
  const matrix = new Float32Array(rows.length * dims);
  rows.forEach((row, r) =>
    matrix.set(new Float32Array(row.vector.buffer.slice(row.vector.byteOffset, row.vector.byteOffset + row.vector.byteLength)), r * dims),
  );
  const exact = set.queries.map((query) => ms(() => exactTop(matrix, dims, query, DEPTH))).sort((a, b) => a - b);
  let found10 = 0;
  let foundAll = 0;
  for (const query of set.queries) {
    const truth = exactTop(matrix, dims, query, DEPTH).map((r) => rows[r]!.id);
    const got = new Set(vectors.nearest(set.model, query, DEPTH)!.map((row) => row.id));
    found10 += truth.slice(0, 10).filter((id) => got.has(id)).length;
    foundAll += truth.filter((id) => got.has(id)).length;
  }
  const count = rows.length;
  const bytesPerVector = set.label.startsWith('random') ? ((dbSize(set.dbFile) - emptyBytes) / count).toFixed(0) : '—';
  const copyMb = (count * (dims + 8 + 4) + Math.sqrt(count) * dims * 4) / 2 ** 20;
  scanRows.push(
    `| ${set.label} | ${dims} | ${count.toLocaleString('en-US')} | ${(loadMs / 1000).toFixed(1)} s, longest step ${(delay.max / 1e6).toFixed(0)} ms | ${percentile(lane, 50).toFixed(1)} / ${percentile(lane, 95).toFixed(1)} | ${percentile(exact, 50).toFixed(1)} / ${percentile(exact, 95).toFixed(1)} | ${(found10 / (10 * set.queries.length)).toFixed(3)} / ${(foundAll / (DEPTH * set.queries.length)).toFixed(3)} | ${bytesPerVector} | ${copyMb.toFixed(0)} |`,
  );
  store.close();
}

console.log(`\nThe semantic list at ${ROWS.toLocaleString('en-US')} chunks (one thread; ${DEPTH} nearest, as a default search asks)\n`);
console.log(
  `| vectors | dims | rows | read into memory at open (in steps) | lane p50 / p95, ms | exact float32 scan p50 / p95, ms | lane finds of the exact top 10 / top ${DEPTH} | bytes per vector on disk | int8 copy in memory, MB |`,
);
console.log('|---|---|---|---|---|---|---|---|---|');
for (const row of scanRows) console.log(row);
console.log(`Peak memory of this process: ${peakRssMb()} MB`);
