// Files with no structure we understand (plain text, logs, unknown extensions) and the fallback
// for files whose structure could not be read (a failed parse, invalid JSON). Paragraphs are the
// natural unit of such text; text without paragraphs (a log) gets overlapping line windows so a
// match that straddles a window boundary still lands whole in one chunk.

import type { ChunkDraft, ChunkKind } from '../types.ts';
import { emitPieces, splitLongLine } from './byte-cap.ts';
import { isBlank, lineBytes, rangeBytes, rangeText, shortLabel, type SourceLines } from './lines.ts';

/** Lines per window when a paragraph is too big to be one chunk. */
const WINDOW_LINES = 40;
/** Lines a window shares with the previous one. */
const WINDOW_OVERLAP = 5;

/**
 * Blank-line paragraphs merged greedily up to the cap; a paragraph over the cap becomes windows of
 * up to WINDOW_LINES lines (fewer if the bytes run out) overlapping by WINDOW_OVERLAP. Each chunk
 * is titled `file: first meaningful line`, or for code the line of the definition it opens or
 * carries on (`definingLine`), which a person recognises where a bare line range would repeat what
 * the result list already shows.
 */
export function chunkText(src: SourceLines, kind: ChunkKind, maxBytes: number): ChunkDraft[] {
  const out: ChunkDraft[] = [];
  let groupStart = -1;
  let groupEnd = -1;
  const flush = (): void => {
    if (groupStart < 0) return;
    out.push(draft(src, groupStart, groupEnd, kind));
    groupStart = -1;
  };
  for (const [start, end] of paragraphs(src)) {
    if (rangeBytes(src, start, end) > maxBytes) {
      flush();
      windows(out, src, start, end, kind, maxBytes);
    } else if (groupStart >= 0 && rangeBytes(src, groupStart, end) <= maxBytes) {
      groupEnd = end;
    } else {
      flush();
      groupStart = start;
      groupEnd = end;
    }
  }
  flush();
  return out;
}

function paragraphs(src: SourceLines): Array<[number, number]> {
  const found: Array<[number, number]> = [];
  let start = -1;
  src.lines.forEach((line, i) => {
    if (isBlank(line)) {
      if (start >= 0) found.push([start, i - 1]);
      start = -1;
    } else if (start < 0) start = i;
  });
  if (start >= 0) found.push([start, src.lines.length - 1]);
  return found;
}

function windows(out: ChunkDraft[], src: SourceLines, start: number, end: number, kind: ChunkKind, maxBytes: number): void {
  let s = start;
  while (s <= end) {
    if (lineBytes(src, s) > maxBytes) {
      const title = titleFor(src, s, s, kind);
      const pieces = splitLongLine(src.lines[s] as string, maxBytes).map((text) => ({ start: s, end: s, text }));
      emitPieces(out, pieces, title, kind);
      s++;
      continue;
    }
    let e = s;
    while (e < end && e - s + 1 < WINDOW_LINES && lineBytes(src, e + 1) <= maxBytes && rangeBytes(src, s, e + 1) <= maxBytes) {
      e++;
    }
    out.push(draft(src, s, e, kind));
    if (e >= end) break;
    // A window cut short by the byte cap overlaps less, so windows still advance by most of their
    // length; and no overlap leads into a line too long for any window.
    const overlap = Math.min(WINDOW_OVERLAP, Math.floor((e - s + 1) / 4));
    s = lineBytes(src, e + 1) <= maxBytes ? e + 1 - overlap : e + 1;
  }
}

function draft(src: SourceLines, start: number, end: number, kind: ChunkKind): ChunkDraft {
  return { title: titleFor(src, start, end, kind), kind, startLine: start + 1, endLine: end + 1, text: rangeText(src, start, end) };
}

function titleFor(src: SourceLines, start: number, end: number, kind: ChunkKind): string {
  const line = (kind === 'code' ? definingLine(src, start, end) : undefined) ?? firstWordyLine(src, start, end, () => true);
  return line === undefined ? `${src.fileName}: lines ${start + 1}–${end + 1}` : `${src.fileName}: ${shortLabel(line.slice(0, 400), 60)}`;
}

const WORDY = /[\p{L}\p{N}]/u;
/**
 * Comments, and directives of the C preprocessor and the assembler (`#include`, `.section`), name
 * nothing a chunk defines: a licence header least of all. A stylesheet's `.button {` is no directive.
 */
const COMMENT_OR_DIRECTIVE = /^\s*(?:\/\*|\*|\/\/|#|;|--|\.(?!macro\b)[A-Za-z_][\w.]*(?:\s[^{]*)?$)/;
/**
 * The name of a macro whose call defines a symbol (`SYM_FUNC_START`, `ENTRY`, `TRACE_EVENT`), not
 * of one that closes or exports a symbol defined above (`SYM_FUNC_END`, `EXPORT_SYMBOL`).
 */
export const DEFINING_MACRO = String.raw`(?!EXPORT_)[A-Z][A-Z0-9_]*(?<!_END)`;
/**
 * Lines that open a definition at the margin: a label, make target or grammar rule (`memcpy_orig:`,
 * `clean:`, `Term:`, not the local `.Lretry:` nor the assignment `obj-y :=`), an assembler macro,
 * or a defining macro's call naming the symbol (`SYM_FUNC_START(__memcpy)`, `ENTRY(startup_32)`).
 */
const DEFINES = new RegExp(String.raw`^(?:(?!\.L)[A-Za-z_.$][\w.$-]*\s*:(?![:=])|\.macro\s+\w|${DEFINING_MACRO}\(\s*[A-Za-z_]\w*\s*[,)])`);
/** An indented line, or an assembler's local label (`1:`, `.Lretry:`), carries on the definition above it. */
const CARRIES_ON = /^(?:\s|\d+:|\.L[\w$.]*:)/;
/** Lines looked back over for the opener of a window that starts inside a definition. */
const MAX_OPENER_LOOKBACK = 400;

/**
 * What a code chunk without a grammar is titled by, as a parsed one is by its symbol: for a chunk
 * that starts inside a definition (its first line of code carries on), the definition above that
 * it continues, or the nearest line of code at the margin above; else its first line of code at
 * the margin, or any. Undefined when the chunk is all comments and directives.
 */
function definingLine(src: SourceLines, start: number, end: number): string | undefined {
  const code = (line: string) => WORDY.test(line) && !COMMENT_OR_DIRECTIVE.test(line);
  const atMargin = (line: string) => code(line) && !CARRIES_ON.test(line);
  const first = firstWordyLine(src, start, end, code);
  if (first !== undefined && CARRIES_ON.test(first)) {
    const opener = lastLineAbove(src, start, (line) => DEFINES.test(line)) ?? lastLineAbove(src, start, atMargin);
    if (opener !== undefined) return opener;
  }
  return firstWordyLine(src, start, end, atMargin) ?? first;
}

function firstWordyLine(src: SourceLines, start: number, end: number, wanted: (line: string) => boolean): string | undefined {
  for (let i = start; i <= end; i++) {
    const line = src.lines[i] as string;
    if (WORDY.test(line) && wanted(line)) return line;
  }
  return undefined;
}

function lastLineAbove(src: SourceLines, start: number, wanted: (line: string) => boolean): string | undefined {
  for (let i = start - 1; i >= Math.max(0, start - MAX_OPENER_LOOKBACK); i--) {
    const line = src.lines[i] as string;
    if (wanted(line)) return line;
  }
  return undefined;
}
