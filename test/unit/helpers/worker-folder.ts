// A workspace folder as the extension opens it in the engine worker, with a database of its own.

import path from 'node:path';
import type { FolderSpec } from '../../../src/protocol/worker.ts';
import { tempDir } from './store.ts';

export function workerFolder(name: string, root: string): FolderSpec {
  return {
    id: `file:///${name}`,
    name,
    root,
    dbFile: path.join(tempDir(`fused-worker-${name}-db-`), 'index.db'),
    index: { include: [], exclude: [], maxFileBytes: 1 << 20, chunkMaxBytes: 4096 },
  };
}
