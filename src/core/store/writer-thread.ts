// The bulk writer's thread (batch-writer.ts): writes each batch the indexing thread sends through
// a connection of its own, and answers with what the batch changed, or with SQLite's error.

import { parentPort, workerData } from 'node:worker_threads';
import { lowerThreadPriority } from '../thread-priority.ts';
import { errorMessage } from '../error-message.ts';
import type { WriterData, WriterReply } from './batch-writer.ts';
import { IndexStore, type WriteBatch } from './store.ts';

/** The writer's page cache, in KB. */
const WRITER_CACHE_KB = 8_192;

lowerThreadPriority();

const port = parentPort!;
const { dbFile, maxPageCount } = workerData as WriterData;
// A database this thread cannot open throws here, which ends the thread: the writer then writes
// on the indexing thread.
const store = new IndexStore(dbFile, { existing: true });
store.db.pragma(`max_page_count = ${maxPageCount}`);
// A batch mostly appends (new rows, new FTS5 segments), which a page cache barely helps; the
// indexing thread's connection keeps the default 32 MB for the searches' reads. Indexing the
// kernel's drivers/net (5,693 files): peak memory 611 / 586 MB with 32 MB here, 559 / 556 MB with
// 8 MB, at the same speed; the whole tree: 40–60 MB less for 1–6% more time.
store.db.pragma(`cache_size = -${WRITER_CACHE_KB}`);

port.on('message', ({ id, batch }: { id: number; batch: WriteBatch }) => {
  let reply: WriterReply;
  try {
    reply = { id, tally: store.writeBatch(batch) };
  } catch (error) {
    const code = error instanceof Error && 'code' in error ? String(error.code) : undefined;
    reply = { id, error: { message: errorMessage(error), ...(code ? { code } : {}) } };
  }
  port.postMessage(reply);
});
