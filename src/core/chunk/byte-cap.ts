// The one rule every splitter obeys: a chunk's text is at most `maxBytes` UTF-8 bytes. Splitters
// first cut where the structure says (headings, symbols, keys); whatever is still too big comes
// here and is cut by lines, then, for a single line that is itself too big, inside the line.

import type { ChunkDraft, ChunkKind } from '../types.ts';
import { isBlank, lineBytes, rangeBytes, rangeText, trimBlankLines, type SourceLines } from './lines.ts';

/** A candidate chunk: 0-based inclusive lines and its text (a fragment when start = end and the line was cut). */
export interface Piece {
  start: number;
  end: number;
  text: string;
}

/**
 * The smallest cap that can hold any character: a UTF-8 character takes up to 4 bytes and is
 * never cut, so a smaller cap could not be honoured.
 */
export const MIN_CHUNK_BYTES = 4;

/**
 * Emits lines start..end (0-based, inclusive) as one chunk if they fit, otherwise as parts titled
 * `title (part n)`. Blank lines at either end are left out; an all-blank range emits nothing.
 */
export function emitRange(out: ChunkDraft[], src: SourceLines, start: number, end: number, title: string, kind: ChunkKind, maxBytes: number): void {
  emitPieces(out, packLines(src, start, end, maxBytes), title, kind);
}

export function emitPieces(out: ChunkDraft[], pieces: readonly Piece[], title: string, kind: ChunkKind): void {
  const numbered = pieces.length > 1;
  pieces.forEach((piece, i) => {
    out.push({
      title: numbered ? `${title} (part ${i + 1})` : title,
      kind,
      startLine: piece.start + 1,
      endLine: piece.end + 1,
      text: piece.text,
    });
  });
}

/**
 * Cuts lines start..end into pieces under the cap, greedily, without overlap. When a piece must
 * end, it ends at the last blank line of its second half if there is one, so paragraphs and
 * function bodies tend to stay whole. A line longer than the cap becomes several one-line pieces.
 */
export function packLines(src: SourceLines, start: number, end: number, maxBytes: number): Piece[] {
  const pieces: Piece[] = [];
  const trimmed = trimBlankLines(src, start, end);
  if (!trimmed) return pieces;
  const [first, last] = trimmed;
  if (rangeBytes(src, first, last) <= maxBytes) {
    pieces.push({ start: first, end: last, text: rangeText(src, first, last) });
    return pieces;
  }
  let s = first;
  while (s <= last) {
    while (s <= last && isBlank(src.lines[s] as string)) s++;
    if (s > last) break;
    if (lineBytes(src, s) > maxBytes) {
      for (const text of splitLongLine(src.lines[s] as string, maxBytes)) pieces.push({ start: s, end: s, text });
      s++;
      continue;
    }
    let e = s;
    let lastBlank = -1;
    while (e < last && lineBytes(src, e + 1) <= maxBytes && rangeBytes(src, s, e + 1) <= maxBytes) {
      e++;
      if (isBlank(src.lines[e] as string)) lastBlank = e;
    }
    if (e < last && lastBlank > s + (e - s) / 2) e = lastBlank;
    const piece = trimBlankLines(src, s, e) as [number, number];
    pieces.push({ start: piece[0], end: piece[1], text: rangeText(src, piece[0], piece[1]) });
    s = e + 1;
  }
  return pieces;
}

/**
 * Cuts one line into fragments of at most maxBytes UTF-8 bytes, never inside a character (a
 * surrogate pair counts as one 4-byte character; a lone surrogate as the 3-byte U+FFFD it encodes
 * to). A cut prefers to fall just after a space in the last quarter of the fragment, so words stay
 * whole for the full-text index. Whitespace-only fragments are dropped.
 */
export function splitLongLine(line: string, maxBytes: number): string[] {
  const fragments: string[] = [];
  const n = line.length;
  // Minified bundles are ASCII: one byte per character, so a cut is plain arithmetic.
  const ascii = Buffer.byteLength(line, 'utf8') === n;
  let i = 0;
  while (i < n) {
    if (ascii) {
      let j = Math.min(n, i + maxBytes);
      if (j < n) {
        const earliest = i + (maxBytes * 3) / 4;
        let k = j;
        while (k > earliest && line.charCodeAt(k - 1) !== 0x20 && line.charCodeAt(k - 1) !== 0x09) k--;
        if (k > earliest) j = k;
      }
      const fragment = line.slice(i, j);
      if (/\S/.test(fragment)) fragments.push(fragment);
      i = j;
      continue;
    }
    let bytes = 0;
    let j = i;
    let afterSpace = -1;
    while (j < n) {
      const c = line.charCodeAt(j);
      let width: number;
      let step = 1;
      if (c < 0x80) width = 1;
      else if (c < 0x800) width = 2;
      else if (c >= 0xd800 && c <= 0xdbff && j + 1 < n && isLowSurrogate(line.charCodeAt(j + 1))) {
        width = 4;
        step = 2;
      } else width = 3;
      if (bytes + width > maxBytes) break;
      bytes += width;
      j += step;
      if (c === 0x20 || c === 0x09) afterSpace = j;
    }
    if (j === i) j = i + 1; // only reachable with a cap below MIN_CHUNK_BYTES
    if (j < n && afterSpace > i + ((j - i) * 3) / 4) j = afterSpace;
    const fragment = line.slice(i, j);
    if (/\S/.test(fragment)) fragments.push(fragment);
    i = j;
  }
  return fragments;
}

function isLowSurrogate(c: number): boolean {
  return c >= 0xdc00 && c <= 0xdfff;
}
