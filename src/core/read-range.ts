// Lines of one file for an agent widening an excerpt: only files under the root that the index's
// rules would index (so a .gitignore'd secret or build output is as unreachable here as it is in
// search), numbered the way search excerpts number them, within a byte budget.

import fs from 'node:fs';
import path from 'node:path';
import { bytes, numberedLine } from './agent-text.ts';
import { readTextFile } from './crawl/index.ts';

/** Files larger than this are not read for a range: nothing an agent should page through lives there. */
const MAX_READ_BYTES = 16 * 1024 * 1024;

export interface RangeSource {
  root: string;
  /** Whether the index's rules (ignore files, include/exclude) let it hold the file. */
  isIndexable(relPath: string): Promise<boolean>;
}

export interface RangeRequest {
  /** Relative to the root (an absolute path inside the root is accepted too). */
  path: string;
  /** 1-based, inclusive. */
  startLine: number;
  endLine: number;
  budgetBytes: number;
}

export type RangeAnswer = { ok: true; text: string } | { ok: false; message: string };

export async function readRange(source: RangeSource, request: RangeRequest): Promise<RangeAnswer> {
  const fail = (message: string): RangeAnswer => ({ ok: false, message });
  const root = path.resolve(source.root);
  const absolute = path.resolve(root, request.path);
  const relative = path.relative(root, absolute);
  if (relative === '' || relative.startsWith('..') || path.isAbsolute(relative))
    return fail(`"${request.path}" is not a file inside the indexed folder ${root}.`);
  const relPath = relative.split(path.sep).join('/');
  let real: string;
  try {
    real = fs.realpathSync(absolute);
  } catch {
    return fail(`No file ${relPath} in ${root}.`);
  }
  const realRelative = path.relative(fs.realpathSync(root), real);
  if (realRelative.startsWith('..') || path.isAbsolute(realRelative))
    return fail(`${relPath} is a symlink to a place outside the indexed folder; it is not read.`);
  // Both the path asked for and, through a symlink, the file it leads to: a link must not open an ignored file.
  const target = realRelative.split(path.sep).join('/');
  if (!(await source.isIndexable(relPath)) || (target !== relPath && !(await source.isIndexable(target))))
    return fail(`${relPath} is excluded by the index's rules (ignore files, include/exclude settings), so it is not read: only files the index may hold are.`);
  if (fs.statSync(real).isDirectory()) return fail(`${relPath} is a folder; give a file.`);
  if (request.endLine < request.startLine) return fail(`end_line (${request.endLine}) is before start_line (${request.startLine}).`);
  const read = await readTextFile(real, MAX_READ_BYTES);
  if (!read.ok) {
    const why =
      read.reason === 'binary' ? 'a binary file' : read.reason === 'too-large' ? `larger than ${MAX_READ_BYTES} bytes` : `unreadable (${read.reason})`;
    return fail(`${relPath} is ${why}; it has no lines to read.`);
  }
  const lines = textLines(read.text);
  const total = read.text === '' ? 0 : lines.length;
  if (request.startLine > total) return fail(`${relPath} has ${total} line${total === 1 ? '' : 's'}; start_line ${request.startLine} is past its end.`);
  const end = Math.min(request.endLine, total);
  const head = `${relPath}:${request.startLine}-${end} (${total} lines in the file)\n`;
  return { ok: true, text: linesWithin(head, (line) => numberedLine(line, lines[line - 1]!), request.startLine, end, request.budgetBytes) };
}

/** A text's lines without their line ends, as `read_range` and `read_chunk` number and cut them. */
export function textLines(text: string): string[] {
  return text.replace(/\r?\n$/, '').split(/\r?\n/);
}

/**
 * File lines `start` to `end` under `head`, each as `lineAt` prints it, cut after the last whole
 * line that fits `budget` bytes with a notice saying where the rest starts: the text of
 * `read_range` (numbered lines) and of `read_chunk` (the chunk's text as it is).
 */
export function linesWithin(head: string, lineAt: (line: number) => string, start: number, end: number, budget: number): string {
  // The notice as it would read with the largest numbers, so the lines it follows never push it past the budget.
  const notice = (last: number) => `[Truncated after line ${last} to stay within ${budget} bytes; read_range from line ${last + 1} for the rest.]\n`;
  const room = budget - bytes(head) - bytes(notice(end));
  let body = '';
  let used = 0;
  for (let line = start; line <= end; line++) {
    const next = lineAt(line);
    if (used + bytes(next) > room) {
      const last = line - 1;
      if (last < start) return `${head}[Line ${start} alone is longer than ${budget} bytes; raise budget_bytes to read it.]\n`;
      return head + body + notice(last);
    }
    body += next;
    used += bytes(next);
  }
  return head + body;
}
