// A pool thread (pool.ts): prepares the files the indexing thread sends and posts each result back
// with the job's id. Jobs run concurrently, so one file's read overlaps another's chunking.

import os from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import { createChunker, type ChunkerOptions } from '../chunk/index.ts';
import { prepareFile, type PrepareJob } from './index.ts';

/**
 * Background work yields to the user's: this thread's nice value is raised, so a first index of a
 * big folder on every spare core never makes typing or a search wait for the CPU; idle cores still
 * run it flat out. Only on Linux, where a nice value is per thread: elsewhere it would lower the
 * whole process this thread lives in (VS Code's extension host).
 */
const PREPARE_NICE = 10;

if (process.platform === 'linux') {
  try {
    os.setPriority(PREPARE_NICE);
  } catch {
    // Not permitted (a sandbox): the thread runs at normal priority.
  }
}

const port = parentPort!;
const chunker = createChunker(workerData as ChunkerOptions);

port.on('message', ({ id, job }: { id: number; job: PrepareJob }) => {
  // A chunker that cannot load rejects here, which ends the thread: the pool takes the job back.
  void chunker.then(async (loaded) => port.postMessage({ id, prepared: await prepareFile(loaded, job) }));
});
