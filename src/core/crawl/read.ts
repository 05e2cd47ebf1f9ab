// Reading one file as text: the bytes, their hash, and the decision whether they are text at all.

import { hash } from 'node:crypto';
import fs from 'node:fs';
import type { SkipReason } from '../types.ts';

export type ReadResult = { ok: true; text: string; hash: string } | { ok: false; reason: SkipReason };

/** git's heuristic: a NUL byte this early means binary. */
const BINARY_SNIFF_BYTES = 8 * 1024;

/**
 * Non-blocking so that a FIFO put where a file was listed answers at once instead of hanging a
 * thread-pool thread until a writer appears; it changes nothing for regular files.
 */
const OPEN_FLAGS = fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK ?? 0);

/**
 * Reads and decodes one file; never throws. Too-large is decided again from the open file's own
 * stat, since the file may have grown since the crawl saw it. `hash` is the hex SHA-1 of the raw
 * bytes, so a change of encoding alone still counts as a change.
 */
export async function readTextFile(absPath: string, maxFileBytes: number): Promise<ReadResult> {
  let handle: fs.promises.FileHandle;
  try {
    handle = await fs.promises.open(absPath, OPEN_FLAGS);
  } catch (error) {
    return { ok: false, reason: reasonFor(error) };
  }
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) return { ok: false, reason: 'unreadable' };
    if (stats.size > maxFileBytes) return { ok: false, reason: 'too-large' };
    return decode(await readPrefix(handle, stats.size));
  } catch (error) {
    return { ok: false, reason: reasonFor(error) };
  } finally {
    await handle.close().catch(() => undefined);
  }
}

/**
 * Reads the `size` bytes the open file's stat reported and no more: a write racing the read is
 * followed by the watcher's next event, and the bound keeps a growing log from exhausting memory.
 */
async function readPrefix(handle: fs.promises.FileHandle, size: number): Promise<Buffer> {
  const buffer = Buffer.allocUnsafe(size);
  let filled = 0;
  while (filled < size) {
    const { bytesRead } = await handle.read(buffer, filled, size - filled, filled);
    if (bytesRead === 0) break;
    filled += bytesRead;
  }
  return buffer.subarray(0, filled);
}

function decode(bytes: Uint8Array): ReadResult {
  const encoding = utf16Encoding(bytes);
  if (encoding === undefined && bytes.subarray(0, BINARY_SNIFF_BYTES).includes(0)) {
    return { ok: false, reason: 'binary' };
  }
  let text: string;
  try {
    // fatal: a replacement character would hide that the bytes were not text; the BOM is dropped.
    text = new TextDecoder(encoding ?? 'utf-8', { fatal: true }).decode(bytes);
  } catch {
    // A UTF-16 BOM followed by undecodable bytes is more likely the start of some binary format.
    return { ok: false, reason: encoding === undefined ? 'invalid-utf8' : 'binary' };
  }
  return { ok: true, text, hash: hash('sha1', bytes, 'hex') };
}

/** UTF-16 is only recognised by its BOM: without one, its NUL bytes make it binary. */
function utf16Encoding(bytes: Uint8Array): 'utf-16le' | 'utf-16be' | undefined {
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return 'utf-16le';
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return 'utf-16be';
  return undefined;
}

function reasonFor(error: unknown): SkipReason {
  const code = (error as NodeJS.ErrnoException).code;
  return code === 'ENOENT' || code === 'ENOTDIR' ? 'vanished' : 'unreadable';
}
