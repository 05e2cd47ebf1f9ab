// Background work yields to the user's: the indexer's threads (pool.ts's preparing threads, the
// bulk writer's) raise their nice value, so a first index of a big folder on every spare core
// never makes typing or a search wait for the CPU; idle cores still run it flat out.

import os from 'node:os';

const BACKGROUND_NICE = 10;

/**
 * Lowers the calling thread's priority. Only on Linux, where a nice value is per thread:
 * elsewhere it would lower the whole process the thread lives in (VS Code's extension host).
 */
export function lowerThreadPriority(): void {
  if (process.platform !== 'linux') return;
  try {
    os.setPriority(BACKGROUND_NICE);
  } catch {
    // Not permitted (a sandbox): the thread runs at normal priority.
  }
}
