// A document is split where its author split it: at headings. Markdown and HTML find their
// headings and their opaque blocks (fences, `<pre>`) each in its own way; this module turns them
// into chunks titled by heading path (`Install > From source`), which is what a reader would call
// that part of the document. An opaque block is never cut unless it alone is over the byte cap.

import type { ChunkDraft } from '../types.ts';
import { emitPieces, packLines, type Piece } from './byte-cap.ts';
import { isBlank, rangeBytes, rangeText, trimBlankLines, type SourceLines } from './lines.ts';

export interface Heading {
  /** 0-based line where the section starts (the text line of a setext heading). */
  line: number;
  level: number;
  text: string;
  /** The section it opens, up to the next heading, is navigation (a table of contents): not indexed. */
  navigation?: boolean;
  /** It names the page (HTML's `<h1>`): it titles its own section, not the sections below it. */
  pageTitle?: boolean;
}

/**
 * A section is a list of links (a table of contents, a "See also" list) when at least this share
 * of its visible characters are link text, over at least LINK_LIST_MIN_LINKS links.
 */
const LINK_LIST_SHARE = 0.8;
/** Fewer links than this are a pointer in a sentence or two, not navigation. */
const LINK_LIST_MIN_LINKS = 3;
const VISIBLE_CHAR = /[\p{L}\p{N}]/u;

/** What a section's body says, as its format reads it: its letters and digits, and those of its links. */
export interface SectionText {
  chars: number;
  linkChars: number;
  links: number;
}

/** Letters and digits: what a reader reads, whatever the markup or punctuation around them. */
export function visibleChars(text: string): number {
  let count = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) {
      if (((code | 0x20) >= 0x61 && (code | 0x20) <= 0x7a) || (code >= 0x30 && code <= 0x39)) count++;
      continue;
    }
    // Past ASCII, a character at a time, a surrogate pair as one.
    const char = String.fromCodePoint(text.codePointAt(i)!);
    if (VISIBLE_CHAR.test(char)) count++;
    i += char.length - 1;
  }
  return count;
}

/**
 * Navigation names the other sections or pages, so it matches any question about them and
 * answers none: it is not indexed.
 */
export function isNavigation(section: SectionText): boolean {
  return section.links >= LINK_LIST_MIN_LINKS && section.linkChars >= LINK_LIST_SHARE * section.chars;
}

/** Lines start..end, 0-based, inclusive. */
export interface Block {
  start: number;
  end: number;
}

/**
 * Each section is titled by its heading path, and the lines before the first heading, unless
 * `withPreamble` is false, by the file's name.
 */
export function chunkSections(src: SourceLines, headings: readonly Heading[], opaque: readonly Block[], maxBytes: number, withPreamble = true): ChunkDraft[] {
  const out: ChunkDraft[] = [];
  const path: Heading[] = [];
  const firstHeading = headings[0]?.line ?? src.lines.length;
  if (withPreamble) emitSection(out, src, 0, firstHeading - 1, src.fileName, opaque, maxBytes);
  headings.forEach((heading, i) => {
    while (path.length > 0 && (path[path.length - 1] as Heading).level >= heading.level) path.pop();
    // A table of contents is no part of the document its later sections are titled under. The
    // first heading opens the document, and its section is the introduction (a README's name,
    // tagline and badges), kept however many links it holds.
    if (heading.navigation && i > 0) return;
    const title = [...path, heading].map((h) => h.text).join(' > ');
    if (!heading.pageTitle) path.push(heading);
    const end = (headings[i + 1]?.line ?? src.lines.length) - 1;
    emitSection(out, src, heading.line, end, title, opaque, maxBytes);
  });
  return out;
}

/**
 * One section becomes one chunk if it fits; otherwise its blocks (paragraphs and whole opaque
 * blocks) are packed greedily under the cap, and only a block that alone is too big is cut by lines.
 */
function emitSection(out: ChunkDraft[], src: SourceLines, start: number, end: number, title: string, opaque: readonly Block[], maxBytes: number): void {
  const range = trimBlankLines(src, start, end);
  if (!range) return;
  const pieces: Piece[] = [];
  let groupStart = -1;
  let groupEnd = -1;
  const flush = (): void => {
    if (groupStart >= 0) pieces.push({ start: groupStart, end: groupEnd, text: rangeText(src, groupStart, groupEnd) });
    groupStart = -1;
  };
  for (const block of blocks(src, range[0], range[1], opaque)) {
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

/** Paragraphs (runs of non-blank lines) and opaque blocks, in order, inside start..end. */
function blocks(src: SourceLines, start: number, end: number, opaque: readonly Block[]): Block[] {
  const found: Block[] = [];
  let blockIndex = opaque.findIndex((f) => f.end >= start);
  let i = start;
  while (i <= end) {
    const block = blockIndex >= 0 ? opaque[blockIndex] : undefined;
    if (block && block.start <= i) {
      found.push({ start: i, end: Math.min(block.end, end) });
      i = block.end + 1;
      blockIndex = blockIndex + 1 < opaque.length ? blockIndex + 1 : -1;
      continue;
    }
    if (isBlank(src.lines[i] as string)) {
      i++;
      continue;
    }
    let e = i;
    const stop = block ? Math.min(end, block.start - 1) : end;
    while (e < stop && !isBlank(src.lines[e + 1] as string)) e++;
    found.push({ start: i, end: e });
    i = e + 1;
  }
  return found;
}
