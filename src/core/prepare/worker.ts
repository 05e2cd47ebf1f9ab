// A pool thread (pool.ts): prepares the files the indexing thread sends and posts each result back
// with the job's id. Jobs run concurrently, so one file's read overlaps another's chunking.

import { parentPort, workerData } from 'node:worker_threads';
import { createChunker, type ChunkerOptions } from '../chunk/index.ts';
import { prepareFile, type PrepareJob } from './index.ts';
import { lowerThreadPriority } from '../thread-priority.ts';

lowerThreadPriority();

const port = parentPort!;
const chunker = createChunker(workerData as ChunkerOptions);

port.on('message', ({ id, job }: { id: number; job: PrepareJob }) => {
  // A chunker that cannot load rejects here, which ends the thread: the pool takes the job back.
  void chunker.then(async (loaded) => port.postMessage({ id, prepared: await prepareFile(loaded, job) }));
});
