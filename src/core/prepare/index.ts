// The CPU half of indexing one file: read it, stop if its content is what the index already holds,
// chunk it and derive each chunk's word lists. It touches no database, so it runs the same on the
// indexing thread and on a pool thread (pool.ts), and its result crosses a thread boundary as
// plain data.

import type { Chunker } from '../chunk/index.ts';
import { readTextFile, type ReadResult } from '../crawl/index.ts';
import { isSourceMap } from '../crawl/source-map.ts';
import { chunkWords, indexedTitle, type ChunkWords } from '../store/words.ts';
import type { ChunkDraft, SkipReason } from '../types.ts';

export interface PrepareJob {
  absPath: string;
  relPath: string;
  maxFileBytes: number;
  /** The content hash the index holds for this path, if any: the same content is not chunked again. */
  knownHash?: string;
}

export type PreparedFile =
  | { status: 'skipped'; reason: SkipReason }
  | { status: 'unchanged' }
  | {
      status: 'chunked';
      hash: string;
      language: string;
      /** UTF-8 bytes of the text. */
      bytes: number;
      chunks: ChunkDraft[];
      /** `chunkWords` of each chunk, in the same order. */
      words: ChunkWords[];
    };

/** Prepares one file. Never throws. */
export async function prepareFile(chunker: Chunker, job: PrepareJob): Promise<PreparedFile> {
  return prepareRead(chunker, job, await readTextFile(job.absPath, job.maxFileBytes));
}

/** The part of `prepareFile` after the read, for callers that may drop a read's result unchunked. */
export async function prepareRead(chunker: Chunker, job: PrepareJob, read: ReadResult): Promise<PreparedFile> {
  if (!read.ok) return { status: 'skipped', reason: read.reason };
  if (read.hash === job.knownHash) return { status: 'unchanged' };
  if (isSourceMap(job.relPath, read.text)) return { status: 'skipped', reason: 'source-map' };
  let chunked;
  try {
    chunked = await chunker.chunk(job.relPath, read.text);
  } catch {
    return { status: 'skipped', reason: 'chunk-failed' };
  }
  return {
    status: 'chunked',
    hash: read.hash,
    language: chunked.language,
    bytes: Buffer.byteLength(read.text),
    chunks: chunked.chunks,
    words: chunked.chunks.map((chunk) => chunkWords(indexedTitle(job.relPath, chunk), chunk.text)),
  };
}
