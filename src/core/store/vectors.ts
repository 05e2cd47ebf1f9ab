// The semantic lane's vectors, in the index's own database. A vector belongs to a chunk's content
// (a hash of its title and text) and to the model that made it, not to the chunk row: an unchanged
// chunk is never embedded twice, a renamed or re-chunked file finds its vectors again, and vectors
// of another model are never read as this one's.
//
//   chunk_hashes  chunk id → content hash; a trigger drops the row with its chunk.
//   vectors       (model, hash) → float32 vector, unit length.
//
// `vectors` is a rowid table with a unique index rather than WITHOUT ROWID keyed by (model, hash):
// a vector of a few hundred bytes or more is too big a row for a WITHOUT ROWID b-tree, which gave
// nearly a page to each (6 GB for 1.3 M 256-dimension vectors, 1.3 GB of them floats).
//
// The tables arrived after schema version 1; they are created when a process first embeds, and an
// index without them simply has no vectors. Searching scans an int8 copy of every vector held in
// memory, then rescores the best few hundred with the stored float32 vectors: the int8 pass reads a
// quarter of the bytes, and the rescore gives back the exact cosine each result reports.

import { createHash } from 'node:crypto';
import type { Statement } from 'better-sqlite3';
import type { Db } from './database.ts';
import type { IndexStore } from './store.ts';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS chunk_hashes (chunk_id INTEGER PRIMARY KEY, hash BLOB NOT NULL);
CREATE INDEX IF NOT EXISTS chunk_hashes_by_hash ON chunk_hashes (hash);
CREATE TABLE IF NOT EXISTS vectors (id INTEGER PRIMARY KEY, model TEXT NOT NULL, hash BLOB NOT NULL, vector BLOB NOT NULL);
CREATE UNIQUE INDEX IF NOT EXISTS vectors_by_content ON vectors (model, hash);
CREATE TRIGGER IF NOT EXISTS chunk_hashes_after_delete AFTER DELETE ON chunks BEGIN
  DELETE FROM chunk_hashes WHERE chunk_id = old.id;
END;
`;

/** The meta key counting writes to the vectors, so that other processes notice them. */
const VERSION_KEY = 'vectorsVersion';
/** Chunks hashed per transaction when catching up with the chunks table. */
const HASH_BATCH = 2_000;
/** Candidates of the int8 pass rescored with float32 vectors, per result wanted. */
const RESCORE_FACTOR = 4;
const MIN_RESCORE = 200;

/** A chunk still waiting for this model's vector. */
export interface PendingChunk {
  chunkId: number;
  hash: Buffer;
  title: string;
  text: string;
}

export interface NearestChunk {
  id: number;
  cosine: number;
}

/** Every vector of one model, int8-quantised, as the first pass of a search scans them. */
interface QuantisedVectors {
  model: string;
  /** What the index looked like when they were read; a change means reading them again. */
  version: string;
  dimensions: number;
  ids: Int32Array;
  /** ids.length × dimensions values, each row scaled so its largest magnitude is 127. */
  values: Int8Array;
  /** Per row: the factor that turns its int8 dot product back into a cosine estimate. */
  scales: Float32Array;
}

export class VectorStore {
  private readonly db: Db;
  private readonly store: IndexStore;
  private quantised: QuantisedVectors | undefined;
  /** `countEmbedded`'s last answer: a count over every chunk, which each status asks for. */
  private embeddedCount: { model: string; version: string; count: number } | undefined;
  private readonly statements = new Map<string, Statement>();

  constructor(store: IndexStore) {
    this.store = store;
    this.db = store.db;
  }

  /** Whether this index has vector tables at all (a reader never creates them). */
  get exists(): boolean {
    return this.statement("SELECT 1 FROM sqlite_schema WHERE name = 'vectors'").get() !== undefined;
  }

  /** Creates the tables if the index predates them; only a process that writes calls this. */
  ensureSchema(): void {
    if (!this.exists) this.db.exec(SCHEMA);
  }

  /** Hashes the chunks that have no hash yet (new since the last pass), in one pass over the chunks by id; returns how many. */
  hashNewChunks(): number {
    const select = this.statement(
      `SELECT c.id, c.title, c.text FROM chunks c WHERE c.id > ? AND NOT EXISTS (SELECT 1 FROM chunk_hashes h WHERE h.chunk_id = c.id) ORDER BY c.id LIMIT ${HASH_BATCH}`,
    );
    const insert = this.statement('INSERT INTO chunk_hashes (chunk_id, hash) VALUES (?, ?)');
    let total = 0;
    let afterId = 0;
    for (;;) {
      const rows = select.all(afterId) as Array<{ id: number; title: string; text: string }>;
      if (rows.length === 0) return total;
      this.db.transaction(() => {
        for (const row of rows) insert.run(row.id, contentHash(row.title, row.text));
      })();
      total += rows.length;
      afterId = rows.at(-1)!.id;
    }
  }

  /** How many distinct contents still lack a vector of `model`. */
  countPending(model: string): number {
    return this.statement('SELECT count(DISTINCT h.hash) FROM chunk_hashes h WHERE NOT EXISTS (SELECT 1 FROM vectors v WHERE v.model = ? AND v.hash = h.hash)')
      .pluck()
      .get(model) as number;
  }

  /** Up to `limit` chunks after `afterId` whose content lacks a vector of `model`, one per content, in id order. */
  pending(model: string, afterId: number, limit: number): PendingChunk[] {
    const rows = this.statement(
      `SELECT h.chunk_id AS chunkId, h.hash, c.title, c.text FROM chunk_hashes h JOIN chunks c ON c.id = h.chunk_id
       WHERE h.chunk_id > ? AND NOT EXISTS (SELECT 1 FROM vectors v WHERE v.model = ? AND v.hash = h.hash)
       ORDER BY h.chunk_id LIMIT ?`,
    ).all(afterId, model, limit) as PendingChunk[];
    const seen = new Set<string>();
    return rows.filter((row) => {
      const key = row.hash.toString('hex');
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    });
  }

  /** Stores vectors for contents, in one transaction. */
  put(model: string, entries: ReadonlyArray<{ hash: Buffer; vector: Float32Array }>): void {
    const insert = this.statement('INSERT OR REPLACE INTO vectors (model, hash, vector) VALUES (?, ?, ?)');
    this.db.transaction(() => {
      for (const { hash, vector } of entries) insert.run(model, hash, Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength));
      this.bumpVersion();
    })();
  }

  /**
   * Drops vectors no chunk holds any more, and every vector of another model: once `model` covers
   * the index, the old model's vectors are dead weight. Returns how many went.
   */
  removeStale(model: string): number {
    return this.db.transaction(() => {
      const removed = this.statement('DELETE FROM vectors WHERE model <> ? OR NOT EXISTS (SELECT 1 FROM chunk_hashes h WHERE h.hash = vectors.hash)').run(
        model,
      ).changes;
      if (removed > 0) this.bumpVersion();
      return removed;
    })();
  }

  /** Chunks that have a vector of `model`; counted again only when the files or the vectors changed. */
  countEmbedded(model: string): number {
    if (!this.exists) return 0;
    const version = this.version();
    const cached = this.embeddedCount;
    if (cached?.model === model && cached.version === version) return cached.count;
    const count = this.statement('SELECT count(*) FROM chunk_hashes h WHERE EXISTS (SELECT 1 FROM vectors v WHERE v.model = ? AND v.hash = h.hash)')
      .pluck()
      .get(model) as number;
    this.embeddedCount = { model, version, count };
    return count;
  }

  /**
   * The `limit` chunks whose `model` vectors are closest to `query` (unit length), by cosine, best
   * first.
   */
  nearest(model: string, query: Float32Array, limit: number): NearestChunk[] {
    if (!this.exists || limit <= 0) return [];
    const index = this.quantisedFor(model, this.version());
    if (index.ids.length === 0 || index.dimensions !== query.length) return [];
    const { dimensions, values, scales, ids } = index;
    const rescore = Math.min(ids.length, Math.max(MIN_RESCORE, RESCORE_FACTOR * limit));
    const estimates = new Float32Array(ids.length);
    for (let row = 0; row < ids.length; row++) {
      let dot = 0;
      const offset = row * dimensions;
      for (let d = 0; d < dimensions; d++) dot += values[offset + d]! * query[d]!;
      estimates[row] = dot * scales[row]!;
    }
    const scored: NearestChunk[] = [];
    for (const row of topRows(estimates, rescore)) {
      const id = ids[row]!;
      const vector = this.storedVector(model, id);
      if (vector) scored.push({ id, cosine: dot(vector, query) });
    }
    return scored.sort((a, b) => b.cosine - a.cosine || a.id - b.id).slice(0, limit);
  }

  /** The stored `model` vector of a chunk's content, if it has one. */
  vectorOf(model: string, chunkId: number): Float32Array | undefined {
    return this.exists ? this.storedVector(model, chunkId) : undefined;
  }

  /** `vectorOf` once the tables are known to exist: the rescore asks it for every candidate. */
  private storedVector(model: string, chunkId: number): Float32Array | undefined {
    const blob = this.statement('SELECT v.vector FROM chunk_hashes h JOIN vectors v ON v.model = ? AND v.hash = h.hash WHERE h.chunk_id = ?')
      .pluck()
      .get(model, chunkId) as Buffer | undefined;
    return blob && asFloats(blob);
  }

  /** Prepared once each: the tables may not exist yet when the store is made, so not in the constructor. */
  private statement(sql: string): Statement {
    let prepared = this.statements.get(sql);
    if (!prepared) this.statements.set(sql, (prepared = this.db.prepare(sql)));
    return prepared;
  }

  /**
   * Changes whenever any process changes the files (and so which chunks exist) or the vectors:
   * the int8 copy is read again then, and only then.
   */
  private version(): string {
    return `${this.store.catalogVersion()} ${this.store.meta(VERSION_KEY) ?? 0}`;
  }

  private bumpVersion(): void {
    this.statement("INSERT INTO meta (key, value) VALUES (?, '1') ON CONFLICT (key) DO UPDATE SET value = CAST(value AS INTEGER) + 1").run(VERSION_KEY);
  }

  private quantisedFor(model: string, version: string): QuantisedVectors {
    const cached = this.quantised;
    if (cached?.model === model && cached.version === version) return cached;
    this.quantised = undefined;
    // Streamed into typed arrays sized first: a million row objects at once would weigh more than the copy.
    const join = 'FROM chunk_hashes h JOIN vectors v ON v.model = ? AND v.hash = h.hash';
    const count = this.statement(`SELECT count(*) ${join}`).pluck().get(model) as number;
    const dimensions = ((this.statement(`SELECT length(v.vector) ${join} LIMIT 1`).pluck().get(model) as number | undefined) ?? 0) / 4;
    const ids = new Int32Array(count);
    const values = new Int8Array(count * dimensions);
    const scales = new Float32Array(count);
    let r = 0;
    for (const row of this.statement(`SELECT h.chunk_id AS id, v.vector ${join}`).iterate(model) as Iterable<{ id: number; vector: Buffer }>) {
      // A vector of another size under the same model id cannot be compared: left out.
      if (r === count || row.vector.byteLength !== dimensions * 4) continue;
      const vector = asFloats(row.vector);
      let largest = 0;
      for (const value of vector) largest = Math.max(largest, Math.abs(value));
      const scale = largest > 0 ? 127 / largest : 0;
      for (let d = 0; d < dimensions; d++) values[r * dimensions + d] = Math.round(vector[d]! * scale);
      ids[r] = row.id;
      scales[r] = scale > 0 ? 1 / scale : 0;
      r++;
    }
    this.quantised = { model, version, dimensions, ids: ids.subarray(0, r), values: values.subarray(0, r * dimensions), scales: scales.subarray(0, r) };
    return this.quantised;
  }
}

/** 16 bytes of SHA-256 over a chunk's title and text: what makes two chunks' vectors the same. */
export function contentHash(title: string, text: string): Buffer {
  return createHash('sha256').update(title).update('\0').update(text).digest().subarray(0, 16);
}

function asFloats(blob: Buffer): Float32Array {
  // A copy: the blob's byte offset need not be 4-aligned.
  return new Float32Array(blob.buffer.slice(blob.byteOffset, blob.byteOffset + blob.byteLength));
}

function dot(a: Float32Array, b: Float32Array): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += a[i]! * b[i]!;
  return sum;
}

/**
 * Indexes of the `count` largest values, in no particular order: a min-heap of the best so far, so
 * a million estimates cost one comparison each, not a sort.
 */
function topRows(values: Float32Array, count: number): number[] {
  if (count >= values.length) return Array.from(values.keys());
  const heap = new Int32Array(count);
  const less = (a: number, b: number) => values[heap[a]!]! < values[heap[b]!]!;
  const swap = (a: number, b: number) => {
    const t = heap[a]!;
    heap[a] = heap[b]!;
    heap[b] = t;
  };
  const siftDown = (from: number) => {
    for (let i = from; ;) {
      const left = 2 * i + 1;
      const right = left + 1;
      let smallest = i;
      if (left < count && less(left, smallest)) smallest = left;
      if (right < count && less(right, smallest)) smallest = right;
      if (smallest === i) return;
      swap(i, smallest);
      i = smallest;
    }
  };
  for (let i = 0; i < count; i++) heap[i] = i;
  for (let i = (count >> 1) - 1; i >= 0; i--) siftDown(i);
  for (let row = count; row < values.length; row++) {
    if (values[row]! <= values[heap[0]!]!) continue;
    heap[0] = row;
    siftDown(0);
  }
  return Array.from(heap);
}
