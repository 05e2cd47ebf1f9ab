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
// quarter of the bytes, and the rescore gives back the exact cosine each result reports. Past a few
// million int8 values the copy is partitioned (vector-partition.ts) and a search scans only the
// cells nearest the query.

import { createHash } from 'node:crypto';
import type { Statement } from 'better-sqlite3';
import type { Db } from './database.ts';
import type { IndexStore } from './store.ts';
import { cellsNear, partitionSteps, type Partition } from './vector-partition.ts';

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
/**
 * The size of the int8 copy (rows × dimensions) from which it is partitioned: below it a full scan
 * takes a few milliseconds and stays exact.
 */
const PARTITION_FROM_VALUES = 4_000_000;
/**
 * The vectors from which the copy is read in steps between searches rather than inside one:
 * reading costs per row (a lookup by content hash, some 18 µs), so 10,000 rows are about 0.2 s.
 */
const READ_IN_STEPS_FROM_ROWS = 10_000;
/** Cells a partitioned search scans: this share of them, and never fewer than MIN_PROBES. */
const PROBE_SHARE = 0.05;
const MIN_PROBES = 16;
/** Rows read per statement when the copy is read in steps. */
const LOAD_SLICE = 2_000;
/** Rows moved into cell order between two yields. */
const REORDER_SLICE = 25_000;
/** Of a big copy's loading, the share reading takes (the rest is partitioning): for the progress it reports. */
const READ_SHARE = 0.7;
/** A big copy is read again no sooner than this many times as long as its last read took, after it. */
const RELOAD_PAUSE_FACTOR = 4;

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
  /** Present when the copy is big enough that scanning all of it would be slow. */
  partition: Partition | undefined;
}

interface Loading {
  model: string;
  /** Of the whole read, quantising and partitioning, 0–1. */
  share: number;
  done: Promise<void>;
}

export class VectorStore {
  private readonly db: Db;
  private readonly store: IndexStore;
  private quantised: QuantisedVectors | undefined;
  /** A big copy being read in steps, and how far it is. */
  private loading: Loading | undefined;
  private lastLoad: { endedAt: number; tookMs: number } | undefined;
  /** `countEmbedded`'s last answer: a count over every chunk, which each status asks for. */
  private embeddedCount: { model: string; version: string; count: number } | undefined;
  private readonly statements = new Map<string, Statement>();

  private readonly partitionFrom: number;
  private readonly readInStepsFrom: number;

  /** The options let a test partition, or read in steps, a small copy. */
  constructor(store: IndexStore, options: { partitionFromValues?: number; readInStepsFromRows?: number } = {}) {
    this.store = store;
    this.db = store.db;
    this.partitionFrom = options.partitionFromValues ?? PARTITION_FROM_VALUES;
    this.readInStepsFrom = options.readInStepsFromRows ?? READ_IN_STEPS_FROM_ROWS;
  }

  /** Whether this index has vector tables at all (a reader never creates them). */
  get exists(): boolean {
    return this.statement("SELECT 1 FROM sqlite_schema WHERE name = 'vectors'").get() !== undefined;
  }

  /** Creates the tables if the index predates them; only a process that writes calls this. */
  ensureSchema(): void {
    if (!this.exists) this.db.exec(SCHEMA);
  }

  /**
   * Copies the vectors of another index file into this one, with the `meta` entries that say which
   * model made them; returns how many vectors. The engine uses it on an index moved aside for its
   * schema version (`IndexStore.previousVersion`). They are keyed by content, so the rebuilt index finds them again as its chunks are
   * hashed: an upgrade costs re-indexing, which is quick, not re-embedding, which may take an
   * embedding model hours.
   */
  carryOverFrom(file: string, metaKeys: readonly string[]): number {
    this.db.prepare('ATTACH DATABASE ? AS previous').run(file);
    try {
      const held = this.db.prepare("SELECT 1 FROM previous.sqlite_schema WHERE name = 'vectors'").get() !== undefined;
      if (!held) return 0;
      this.ensureSchema();
      const copied = this.db.prepare('INSERT OR IGNORE INTO vectors (model, hash, vector) SELECT model, hash, vector FROM previous.vectors').run().changes;
      this.db
        .prepare('INSERT OR REPLACE INTO meta (key, value) SELECT key, value FROM previous.meta WHERE key IN (SELECT value FROM json_each(?))')
        .run(JSON.stringify(metaKeys));
      if (copied > 0) this.bumpVersion();
      return copied;
    } finally {
      this.db.prepare('DETACH DATABASE previous').run();
    }
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
   * first; undefined while a big index's vectors are read into memory for the first time.
   */
  nearest(model: string, query: Float32Array, limit: number): NearestChunk[] | undefined {
    if (!this.exists || limit <= 0) return [];
    const index = this.copyFor(model);
    if (!index) return undefined;
    if (index.ids.length === 0 || index.dimensions !== query.length) return [];
    const { dimensions, values, scales, ids, partition } = index;
    // The rows to scan, as runs of the copy: all of it, or the cells nearest the query.
    const runs = partition
      ? cellsNear(partition, query, Math.max(MIN_PROBES, Math.ceil(PROBE_SHARE * (partition.cellStarts.length - 1)))).map((c) => [
          partition.cellStarts[c]!,
          partition.cellStarts[c + 1]!,
        ])
      : [[0, ids.length]];
    const count = runs.reduce((sum, [from, to]) => sum + to! - from!, 0);
    // A partitioned search is approximate already: rescoring only what it returns keeps the cosines
    // exact and costs a quarter of the lookups (each a few pages of a large file), with the same
    // recall (bench:semantic-speed).
    const rescore = Math.min(count, partition ? limit : Math.max(MIN_RESCORE, RESCORE_FACTOR * limit));
    const rowOf = new Int32Array(count);
    const estimates = new Float32Array(count);
    // Read as doubles: the loop then converts only the int8 side (measured: up to half the time).
    const wide = Float64Array.from(query);
    let i = 0;
    for (const [from, to] of runs) {
      for (let row = from!; row < to!; row++, i++) {
        let dot = 0;
        const offset = row * dimensions;
        for (let d = 0; d < dimensions; d++) dot += values[offset + d]! * wide[d]!;
        rowOf[i] = row;
        estimates[i] = dot * scales[row]!;
      }
    }
    const candidates = topRows(estimates, rescore).map((candidate) => ids[rowOf[candidate]!]!);
    const scored: NearestChunk[] = [];
    for (const [id, vector] of this.storedVectors(model, candidates)) scored.push({ id, cosine: dot(vector, query) });
    return scored.sort((a, b) => b.cosine - a.cosine || a.id - b.id).slice(0, limit);
  }

  /** How far reading `model`'s vectors into memory has come (0–1), while a big index's are read. */
  loadingShare(model: string): number | undefined {
    return this.loading?.model === model ? this.loading.share : undefined;
  }

  /**
   * Starts reading `model`'s vectors into memory if they are not there yet, and resolves once they
   * are: a host calls it at open without waiting, so its first search does not pay for the read; a
   * one-shot search waits for it.
   */
  async load(model: string): Promise<void> {
    if (!this.exists) return;
    this.copyFor(model);
    while (this.loading?.model === model) await this.loading.done;
  }

  /** The stored `model` vector of a chunk's content, if it has one. */
  vectorOf(model: string, chunkId: number): Float32Array | undefined {
    return this.exists ? this.storedVectors(model, [chunkId]).get(chunkId) : undefined;
  }

  /**
   * The stored `model` vectors of the chunks that have one: the rescore's few hundred in one
   * statement, a third of the time of one statement each.
   */
  private storedVectors(model: string, chunkIds: readonly number[]): Map<number, Float32Array> {
    const rows = this.statement(
      'SELECT h.chunk_id AS id, v.vector FROM json_each(?) j JOIN chunk_hashes h ON h.chunk_id = j.value JOIN vectors v ON v.model = ? AND v.hash = h.hash',
    ).all(JSON.stringify(chunkIds), model) as Array<{ id: number; vector: Buffer }>;
    return new Map(rows.map((row) => [row.id, asFloats(row.vector)]));
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

  /**
   * The int8 copy of `model`'s vectors to search, or undefined while a big one is being read for
   * the first time. A small copy is read at once, as the search waits; a big one (a second or more;
   * a minute on a large tree) is read in steps between searches, and the copy it replaces answers meanwhile.
   * Its newer chunks are missed until then; the rescore reads each candidate's current vector, so
   * no cosine is stale.
   */
  private copyFor(model: string): QuantisedVectors | undefined {
    const version = this.version();
    const cached = this.quantised?.model === model ? this.quantised : undefined;
    if (cached?.version === version) return cached;
    if (this.loading?.model === model) return cached;
    // The highest rowid bounds the vectors at once, where counting them takes a scan.
    const rows = (this.statement('SELECT max(id) FROM vectors').pluck().get() as number | null) ?? 0;
    if (rows < this.readInStepsFrom) {
      const steps = this.readCopy(model, version);
      let step = steps.next();
      while (!step.done) step = steps.next();
      return (this.quantised = step.value);
    }
    // Read again only after a pause four times as long as the last read took: an embedding pass
    // changes the vectors every batch, and re-reading them all each time would take a core.
    if (cached && this.lastLoad && performance.now() < this.lastLoad.endedAt + RELOAD_PAUSE_FACTOR * this.lastLoad.tookMs) return cached;
    this.loadInSteps(model, version);
    return cached;
  }

  private loadInSteps(model: string, version: string): void {
    const started = performance.now();
    const loading: Loading = { model, share: 0, done: Promise.resolve() };
    this.loading = loading;
    loading.done = (async () => {
      const steps = this.readCopy(model, version);
      try {
        for (let step = steps.next(); ; step = steps.next()) {
          if (step.done) {
            this.quantised = step.value;
            return;
          }
          loading.share = step.value;
          await new Promise((resolve) => setImmediate(resolve));
          if (!this.db.open) return;
        }
      } catch {
        // The index changed under the read (closed, or replaced): a later search reads it again,
        // after the pause, and meets the same error in its own statements if it lasts.
      } finally {
        this.loading = undefined;
        this.lastLoad = { endedAt: performance.now(), tookMs: performance.now() - started };
      }
    })();
  }

  /**
   * Reads and quantises every `model` vector, then partitions a big copy. Yields the share done
   * after each slice, so that a caller reading in steps lets searches run in between; the slices
   * are separate statements for the same reason (an open statement would keep the connection busy).
   */
  private *readCopy(model: string, version: string): Generator<number, QuantisedVectors> {
    // Streamed into typed arrays sized first: a million row objects at once would weigh more than
    // the copy. Every chunk has at most one vector, so the chunks bound the rows (counting the join
    // itself takes a second on a large tree). CROSS JOIN keeps SQLite to the chunks' order: left to
    // itself it reads every vector of the model and sorts them, for each slice.
    const join = 'FROM chunk_hashes h CROSS JOIN vectors v ON v.model = ? AND v.hash = h.hash';
    const count = this.statement('SELECT count(*) FROM chunk_hashes').pluck().get() as number;
    const dimensions = ((this.statement(`SELECT length(v.vector) ${join} LIMIT 1`).pluck().get(model) as number | undefined) ?? 0) / 4;
    const ids = new Int32Array(count);
    const values = new Int8Array(count * dimensions);
    const scales = new Float32Array(count);
    const slice = this.statement(`SELECT h.chunk_id AS id, v.vector ${join} WHERE h.chunk_id > ? ORDER BY h.chunk_id LIMIT ${LOAD_SLICE}`);
    let r = 0;
    for (let afterId = 0; r < count;) {
      const rows = slice.all(model, afterId) as Array<{ id: number; vector: Buffer }>;
      if (rows.length === 0) break;
      afterId = rows.at(-1)!.id;
      for (const row of rows) {
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
      yield (READ_SHARE * r) / count;
    }
    const copy = { model, version, dimensions, ids: trimmed(ids, r), values: trimmed(values, r * dimensions), scales: trimmed(scales, r) };
    if (r * dimensions < this.partitionFrom) return { ...copy, partition: undefined };
    const steps = partitionSteps(copy.values, dimensions, r);
    let step = steps.next();
    for (; !step.done; step = steps.next()) yield READ_SHARE + (1 - READ_SHARE) * step.value;
    const { partition, order } = step.value;
    // Laid out in cell order, so that a cell's rows are read from one run of memory.
    const inOrder = { ids: new Int32Array(r), values: new Int8Array(r * dimensions), scales: new Float32Array(r) };
    for (let at = 0; at < r; at++) {
      const row = order[at]!;
      inOrder.ids[at] = copy.ids[row]!;
      inOrder.scales[at] = copy.scales[row]!;
      inOrder.values.set(copy.values.subarray(row * dimensions, (row + 1) * dimensions), at * dimensions);
      if ((at + 1) % REORDER_SLICE === 0) yield 1;
    }
    return { ...copy, ...inOrder, partition };
  }
}

/** 16 bytes of SHA-256 over a chunk's title and text: what makes two chunks' vectors the same. */
export function contentHash(title: string, text: string): Buffer {
  return createHash('sha256').update(title).update('\0').update(text).digest().subarray(0, 16);
}

/**
 * The first `length` values, copied when they are fewer than the array holds (fewer chunks have
 * vectors than there are chunks while a pass is under way): a view would keep the whole buffer.
 */
function trimmed<T extends Int32Array | Int8Array | Float32Array>(array: T, length: number): T {
  return length === array.length ? array : (array.slice(0, length) as T);
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
