// Markdown is split where its author split it: at headings. A chunk's title is its heading path
// (`Install > From source`), which is what a reader would call that part of the document. Fenced
// code is opaque: `# comment` inside a fence is code, not a heading, and a fence is never cut
// unless it alone is over the byte cap.

import type { ChunkDraft } from '../types.ts';
import { emitPieces, packLines, type Piece } from './byte-cap.ts';
import { isBlank, rangeBytes, rangeText, trimBlankLines, type SourceLines } from './lines.ts';

interface Heading {
  /** 0-based line where the section starts (the text line of a setext heading). */
  line: number;
  level: number;
  text: string;
}

interface Block {
  start: number;
  end: number;
}

const ATX = /^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$/;
/**
 * A line longer than this is neither a heading nor a heading's text: a title that long is a data
 * line or a table row, and the expressions that read headings take time growing faster than the
 * square of a line's length (a `# ` line of 64 K characters, most of them spaces, took 9 s).
 */
const MAX_HEADING_CHARS = 500;
/** A backtick fence's info string has no backtick: "```x```" on one line is inline code. */
const FENCE = /^\s*(?:(`{3,})[^`]*|(~{3,}).*)$/;
const SETEXT = /^ {0,3}(=+|-+)[ \t]*$/;
/** Lines that cannot be the text of a setext heading: list items, quotes, tables, HTML. */
const NOT_SETEXT_TEXT = /^\s*(?:[-*+]\s|\d+[.)]\s|>|\||<)/;

export function chunkMarkdown(src: SourceLines, maxBytes: number): ChunkDraft[] {
  const { headings, fences } = scan(src);
  const out: ChunkDraft[] = [];
  const path: Heading[] = [];
  const firstHeading = headings[0]?.line ?? src.lines.length;
  emitSection(out, src, 0, firstHeading - 1, src.fileName, fences, maxBytes);
  headings.forEach((heading, i) => {
    while (path.length > 0 && (path[path.length - 1] as Heading).level >= heading.level) path.pop();
    path.push(heading);
    const end = (headings[i + 1]?.line ?? src.lines.length) - 1;
    emitSection(out, src, heading.line, end, path.map((h) => h.text).join(' > '), fences, maxBytes);
  });
  return out;
}

function scan(src: SourceLines): { headings: Heading[]; fences: Block[] } {
  const headings: Heading[] = [];
  const fences: Block[] = [];
  const lines = src.lines;
  let i = frontMatterEnd(lines) + 1;
  // First line of the current paragraph: a setext underline right below it makes it a heading.
  let paragraphStart = i;
  while (i < lines.length) {
    const line = lines[i] as string;
    const fence = FENCE.exec(line);
    if (fence) {
      const marker = (fence[1] ?? fence[2]) as string;
      let close = i + 1;
      while (close < lines.length && !closesFence(lines[close] as string, marker)) close++;
      // An unclosed fence runs to the end of the document, as CommonMark says.
      fences.push({ start: i, end: Math.min(close, lines.length - 1) });
      i = close + 1;
      paragraphStart = i;
      continue;
    }
    const atx = line.length <= MAX_HEADING_CHARS ? ATX.exec(line) : null;
    if (atx) {
      headings.push({ line: i, level: (atx[1] as string).length, text: headingText(atx[2] ?? '') });
      paragraphStart = i + 1;
    } else if (isBlank(line)) {
      paragraphStart = i + 1;
    } else {
      const setext = SETEXT.exec(line);
      const text = lines[i - 1];
      if (setext && i - 1 === paragraphStart && text !== undefined && text.length <= MAX_HEADING_CHARS && !NOT_SETEXT_TEXT.test(text)) {
        headings.push({ line: i - 1, level: (setext[1] as string).startsWith('=') ? 1 : 2, text: headingText(text) });
      }
      // Whether an underline or a thematic break, nothing after it continues the paragraph above.
      if (setext) paragraphStart = i + 1;
    }
    i++;
  }
  return { headings, fences };
}

/** YAML front matter is metadata, not a heading underline: the index of its closing line, else -1. */
function frontMatterEnd(lines: readonly string[]): number {
  if (lines[0]?.trimEnd() !== '---') return -1;
  for (let i = 1; i < lines.length; i++) {
    const line = (lines[i] as string).trimEnd();
    if (line === '---' || line === '...') return i;
  }
  return -1;
}

function closesFence(line: string, marker: string): boolean {
  const trimmed = line.trim();
  return trimmed.length >= marker.length && trimmed === (marker[0] as string).repeat(trimmed.length);
}

/** Heading text as a reader sees it: code-span backticks, emphasis and link targets removed. */
function headingText(raw: string): string {
  const text = raw
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/`+([^`]*)`+/g, '$1')
    // Only `*` emphasis: underscores are far more often part of identifiers (`__init__`).
    .replace(/\*\*(.+?)\*\*/g, '$1')
    .replace(/(^|[^\w*])\*(\S(?:.*?\S)?)\*(?![\w*])/g, '$1$2')
    .replace(/\s+/g, ' ')
    .trim();
  return text || '(untitled)';
}

/**
 * One section becomes one chunk if it fits; otherwise its blocks (paragraphs and whole fences) are
 * packed greedily under the cap, and only a block that alone is too big is cut by lines.
 */
function emitSection(out: ChunkDraft[], src: SourceLines, start: number, end: number, title: string, fences: readonly Block[], maxBytes: number): void {
  const range = trimBlankLines(src, start, end);
  if (!range) return;
  const pieces: Piece[] = [];
  let groupStart = -1;
  let groupEnd = -1;
  const flush = (): void => {
    if (groupStart >= 0) pieces.push({ start: groupStart, end: groupEnd, text: rangeText(src, groupStart, groupEnd) });
    groupStart = -1;
  };
  for (const block of blocks(src, range[0], range[1], fences)) {
    if (rangeBytes(src, block.start, block.end) > maxBytes) {
      flush();
      pieces.push(...packLines(src, block.start, block.end, maxBytes));
    } else if (groupStart >= 0 && rangeBytes(src, groupStart, block.end) <= maxBytes) {
      groupEnd = block.end;
    } else {
      flush();
      groupStart = block.start;
      groupEnd = block.end;
    }
  }
  flush();
  emitPieces(out, pieces, title, 'prose');
}

/** Paragraphs (runs of non-blank lines) and fences, in order, inside start..end. */
function blocks(src: SourceLines, start: number, end: number, fences: readonly Block[]): Block[] {
  const found: Block[] = [];
  let fenceIndex = fences.findIndex((f) => f.end >= start);
  let i = start;
  while (i <= end) {
    const fence = fenceIndex >= 0 ? fences[fenceIndex] : undefined;
    if (fence && fence.start <= i) {
      found.push({ start: i, end: Math.min(fence.end, end) });
      i = fence.end + 1;
      fenceIndex = fenceIndex + 1 < fences.length ? fenceIndex + 1 : -1;
      continue;
    }
    if (isBlank(src.lines[i] as string)) {
      i++;
      continue;
    }
    let e = i;
    const stop = fence ? Math.min(end, fence.start - 1) : end;
    while (e < stop && !isBlank(src.lines[e + 1] as string)) e++;
    found.push({ start: i, end: e });
    i = e + 1;
  }
  return found;
}
