// Where a sync's batches are written: on the indexing thread, or on a thread of its own with its
// own connection to the database. A batch (256 files when this was measured) held its thread for
// 0.5–1.6 s on the Linux tree; on the indexing thread, every search asked meanwhile waited for
// it. On its own thread, the searches read what was committed before (WAL lets readers and one
// writer work side by side), and SQLite still sees one writer at a time: the indexer hands out
// write turns.

import { Worker } from 'node:worker_threads';
import type { IndexStore, WriteBatch, WriteTally } from './store.ts';

export interface BatchWriter {
  /** Resolves once the batch is committed; rejects with SQLite's error (a full disk) if it was rolled back. */
  write(batch: WriteBatch): Promise<void>;
  /** Stops the thread, if any, once the batches given to it are settled. */
  close(): Promise<void>;
}

/** Writes on the calling thread, through the store itself. */
export class LocalWriter implements BatchWriter {
  private readonly store: IndexStore;

  constructor(store: IndexStore) {
    this.store = store;
  }

  async write(batch: WriteBatch): Promise<void> {
    this.store.writeBatch(batch);
  }

  async close(): Promise<void> {}
}

/** What the thread is started with. */
export interface WriterData {
  dbFile: string;
  maxPageCount: number;
}

/** What the thread answers for one batch. */
export type WriterReply = { id: number; tally: WriteTally } | { id: number; error: { message: string; code?: string } };

/**
 * The thread's heap. A batch arrives whole (up to 8 MB of text and its word lists, tens of MB as
 * strings) and is garbage once written; left to V8, the old generation grew to 96 MB before it was
 * collected. Capped, it is collected sooner: indexing the kernel's drivers/net peaked at 510 / 541 MB
 * against 559 / 556 MB without the cap, at the same speed. A batch that did not fit would end the
 * thread, and the indexing thread would write it (see ThreadWriter).
 */
const WRITER_HEAP_LIMITS = { maxYoungGenerationSizeMb: 4, maxOldGenerationSizeMb: 128 };

interface Pending {
  batch: WriteBatch;
  resolve: () => void;
  reject: (error: unknown) => void;
}

/**
 * Writes on a thread of its own, then tells `store` what the batch changed (`IndexStore.absorb`),
 * so its counts and caches stay right. A thread that fails — its bundle missing, the database not
 * openable there, a crash — hands its batches, and every later one, to the calling thread: a
 * batch it rolled back is written again, and one it committed is written again to the same rows.
 */
export class ThreadWriter implements BatchWriter {
  private readonly store: IndexStore;
  private readonly local: LocalWriter;
  private readonly worker: Worker;
  private readonly pending = new Map<number, Pending>();
  /** Every batch not yet committed or rolled back, wherever it is being written. */
  private readonly unsettled = new Set<Promise<void>>();
  private nextId = 0;
  private failed = false;
  private closed = false;

  constructor(store: IndexStore) {
    this.store = store;
    this.local = new LocalWriter(store);
    // SQLite keeps a page limit (max_page_count) per connection: one set on the index's binds this one too.
    const workerData: WriterData = { dbFile: store.dbFile, maxPageCount: store.db.pragma('max_page_count', { simple: true }) as number };
    this.worker = new Worker(writerEntry(), { workerData, resourceLimits: WRITER_HEAP_LIMITS });
    this.worker.on('message', (reply: WriterReply) => {
      const pending = this.pending.get(reply.id);
      if (!pending) return;
      this.pending.delete(reply.id);
      if ('error' in reply) {
        pending.reject(Object.assign(new Error(reply.error.message), reply.error.code ? { code: reply.error.code } : {}));
      } else {
        this.store.absorb(reply.tally);
        pending.resolve();
      }
    });
    this.worker.on('error', () => this.fail());
    this.worker.on('exit', () => this.fail());
  }

  write(batch: WriteBatch): Promise<void> {
    if (this.failed) return this.local.write(batch);
    const id = this.nextId++;
    const written = new Promise<void>((resolve, reject) => {
      this.pending.set(id, { batch, resolve, reject });
      this.worker.postMessage({ id, batch });
    });
    this.unsettled.add(written);
    const settled = () => this.unsettled.delete(written);
    written.then(settled, settled);
    return written;
  }

  async close(): Promise<void> {
    await Promise.allSettled(this.unsettled);
    this.closed = true;
    await this.worker.terminate();
  }

  private fail(): void {
    if (this.closed || this.failed) return;
    this.failed = true;
    const pending = [...this.pending.values()];
    this.pending.clear();
    for (const { batch, resolve, reject } of pending) this.local.write(batch).then(resolve, reject);
  }
}

/** The thread's entry: beside this module when run from source, beside the bundle (esbuild.mjs) otherwise. */
function writerEntry(): URL {
  return import.meta.url.endsWith('.ts') ? new URL('./writer-thread.ts', import.meta.url) : new URL('./store-writer.cjs', import.meta.url);
}
