// Markdown's headings (ATX and setext) and fences, for sections.ts to split at. Fenced code is
// opaque: `# comment` inside a fence is code, not a heading, and a fence is never cut unless it
// alone is over the byte cap.

import type { ChunkDraft } from '../types.ts';
import { isBlank, type SourceLines } from './lines.ts';
import { chunkSections, type Block, type Heading } from './sections.ts';

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
  return chunkSections(src, headings, fences, maxBytes);
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
