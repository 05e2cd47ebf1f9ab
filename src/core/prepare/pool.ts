// Where file preparation runs during a sync: on the indexing thread, or on a few worker threads
// so that reading and chunking (tree-sitter) overlap the SQL writes, which only one thread can do.
// Either way each file's result is the same; the indexer consumes them in its own order.

import { Worker } from 'node:worker_threads';
import type { Chunker, ChunkerOptions } from '../chunk/index.ts';
import { readTextFile } from '../crawl/index.ts';
import { prepareRead, type PrepareJob, type PreparedFile } from './index.ts';

export interface Preparer {
  /** Resolves with the file's preparation; rejects only for jobs still running when `close` is called. */
  prepare(job: PrepareJob): Promise<PreparedFile>;
  /** Stops the threads. Jobs still running settle soon after, without being chunked. */
  close(): Promise<void>;
}

/** Prepares on the calling thread; after `close`, a read still in flight is not chunked. */
export class LocalPreparer implements Preparer {
  private readonly chunker: () => Promise<Chunker>;
  private closed = false;

  constructor(chunker: () => Promise<Chunker>) {
    this.chunker = chunker;
  }

  async prepare(job: PrepareJob): Promise<PreparedFile> {
    const [chunker, read] = await Promise.all([this.chunker(), readTextFile(job.absPath, job.maxFileBytes)]);
    if (this.closed) throw new Error('preparer closed');
    return prepareRead(chunker, job, read);
  }

  async close(): Promise<void> {
    this.closed = true;
  }
}

interface Pending {
  job: PrepareJob;
  resolve: (prepared: PreparedFile) => void;
  reject: (error: unknown) => void;
}

/**
 * Prepares on `threads` worker threads, jobs dealt out in turn. Each thread loads its own
 * tree-sitter runtime and the grammars of the languages it meets (tens of MB), hence few threads. A thread that fails — its
 * bundle missing, its grammars unloadable, a crash — hands its jobs, and every later one, to
 * `fallback`, so a sync never loses files to the pool.
 */
export class PreparePool implements Preparer {
  private readonly threads: PoolThread[];
  private readonly fallback: Preparer;
  private turn = 0;

  constructor(threads: number, options: ChunkerOptions, fallback: Preparer) {
    this.fallback = fallback;
    this.threads = Array.from({ length: threads }, () => new PoolThread(options, fallback));
  }

  prepare(job: PrepareJob): Promise<PreparedFile> {
    const live = this.threads.filter((thread) => !thread.failed);
    if (live.length === 0) return this.fallback.prepare(job);
    return live[this.turn++ % live.length]!.prepare(job);
  }

  async close(): Promise<void> {
    await Promise.all([...this.threads.map((thread) => thread.close()), this.fallback.close()]);
  }
}

/**
 * Each thread's young generation. Left to V8, it grows to tens of MB per thread to save a little
 * scavenging: a pooled sync of the Linux tree's drivers/net peaked at 700 MB against 440 MB
 * without the pool; with 4 MB (and a batch of read-ahead, see the indexer) at 535 MB, the rest
 * being the thread's own runtime and tree-sitter heap.
 */
const YOUNG_GENERATION_MB = 4;

class PoolThread {
  failed = false;
  private closed = false;
  private readonly worker: Worker;
  private readonly pending = new Map<number, Pending>();
  private nextId = 0;
  private readonly fallback: Preparer;

  constructor(options: ChunkerOptions, fallback: Preparer) {
    this.fallback = fallback;
    this.worker = new Worker(workerEntry(), { workerData: options, resourceLimits: { maxYoungGenerationSizeMb: YOUNG_GENERATION_MB } });
    this.worker.on('message', ({ id, prepared }: { id: number; prepared: PreparedFile }) => {
      this.pending.get(id)?.resolve(prepared);
      this.pending.delete(id);
    });
    this.worker.on('error', () => this.fail());
    this.worker.on('exit', () => this.fail());
  }

  prepare(job: PrepareJob): Promise<PreparedFile> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { job, resolve, reject });
      this.worker.postMessage({ id, job });
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const { reject } of this.pending.values()) reject(new Error('preparer closed'));
    this.pending.clear();
    await this.worker.terminate();
  }

  private fail(): void {
    if (this.closed || this.failed) return;
    this.failed = true;
    for (const { job, resolve, reject } of this.pending.values()) this.fallback.prepare(job).then(resolve, reject);
    this.pending.clear();
  }
}

/** The thread's entry: beside this module when run from source, beside the bundle (esbuild.mjs) otherwise. */
function workerEntry(): URL {
  return import.meta.url.endsWith('.ts') ? new URL('./worker.ts', import.meta.url) : new URL('./prepare-worker.cjs', import.meta.url);
}
