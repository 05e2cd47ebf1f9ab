// The line model every splitter works on. Splitters decide where chunks start and end in whole
// lines (0-based here, 1-based only in the ChunkDraft they emit), so byte sizes of line ranges must
// be cheap: they are prefix sums, computed once per file.

export interface SourceLines {
  /** The file's lines after `\r\n` and lone `\r` became `\n`; index i is line i + 1 of the original. */
  readonly lines: readonly string[];
  /** The file name without folders, used in titles. */
  readonly fileName: string;
  /** byteStart[i] = UTF-8 bytes of lines[0..i) including their newlines; length lines.length + 1. */
  readonly byteStart: Float64Array;
}

/**
 * Every original line break (CRLF, LF or a lone CR) becomes exactly one `\n`, so line i of the
 * result is line i of the original and line numbers stay true for the file on disk. A leading BOM
 * is dropped: it is not content, and JSON.parse-style scanners would trip on it.
 */
export function normalizeText(text: string): string {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  return body.includes('\r') ? body.replace(/\r\n?/g, '\n') : body;
}

export function toSourceLines(normalized: string, relPath: string): SourceLines {
  const lines = normalized.split('\n');
  const byteStart = new Float64Array(lines.length + 1);
  // Most source files are ASCII; then a line's byte length is its length and the per-line
  // Buffer.byteLength calls (the bulk of this function's cost on large trees) can be skipped.
  const ascii = Buffer.byteLength(normalized, 'utf8') === normalized.length;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    byteStart[i + 1] = (byteStart[i] as number) + (ascii ? line.length : Buffer.byteLength(line, 'utf8')) + 1;
  }
  return { lines, fileName: baseName(relPath), byteStart };
}

/** UTF-8 bytes of lines start..end (0-based, inclusive) joined by `\n`. */
export function rangeBytes(src: SourceLines, start: number, end: number): number {
  return (src.byteStart[end + 1] as number) - (src.byteStart[start] as number) - 1;
}

export function lineBytes(src: SourceLines, index: number): number {
  return rangeBytes(src, index, index);
}

export function rangeText(src: SourceLines, start: number, end: number): string {
  return src.lines.slice(start, end + 1).join('\n');
}

export function isBlank(line: string): boolean {
  return !/\S/.test(line);
}

/** The smallest [start, end] inside the given range whose first and last lines are not blank, or null. */
export function trimBlankLines(src: SourceLines, start: number, end: number): [number, number] | null {
  let s = start;
  let e = end;
  while (s <= e && isBlank(src.lines[s] as string)) s++;
  while (e >= s && isBlank(src.lines[e] as string)) e--;
  return s <= e ? [s, e] : null;
}

/**
 * A short, single-line label made from source text: whitespace collapsed, cut at `max` characters
 * without splitting a surrogate pair. Titles are shown in lists and weighted in ranking, so they
 * must stay short.
 */
export function shortLabel(text: string, max = 80): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  if (flat.length <= max) return flat;
  let cut = max - 1;
  const code = flat.charCodeAt(cut - 1);
  if (code >= 0xd800 && code <= 0xdbff) cut--;
  return `${flat.slice(0, cut).trimEnd()}…`;
}

/** The file name without folders: what a chunk's title names the file by. */
export function baseName(relPath: string): string {
  const parts = relPath.split(/[\\/]/);
  return parts[parts.length - 1] || relPath;
}
