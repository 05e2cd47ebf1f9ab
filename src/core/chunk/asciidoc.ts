// AsciiDoc's section titles and delimited blocks, for sections.ts to split at, as Markdown's
// headings and fences are. rubocop documents every cop in `docs/**/*.adoc` (`== Layout/LineLength`,
// `=== Examples`): read as plain text, those pages were cut into windows titled by their first line
// (`cops_layout.adoc: | Enabled by default | Safe | …`), whichever cop they held.
//
// A delimited block (`----` listing, `....` literal, `|===` table, a ```` ``` ```` fence, …) is
// opaque: `== x` inside it is the block's text, not a title. The document title (`= RuboCop`) names
// the page, as HTML's `<h1>` does: it titles the lines under it, not every section of the page.

import type { ChunkDraft } from '../types.ts';
import { shortLabel, type SourceLines } from './lines.ts';
import { chunkSections, type Block, type Heading } from './sections.ts';

/** `== Title`, `=== Title ===` (the symmetric form), or Markdown's `## Title`, which AsciiDoc accepts too. */
const TITLE = /^(={1,6}|#{1,6})[ \t]+(\S.*?)(?:[ \t]+\1)?[ \t]*$/;
/** A line that opens a delimited block, closed by the same line (a fence by its backticks alone: group 2). */
const DELIMITER = /^(?:(-{4,}|\.{4,}|\+{4,}|\/{4,}|_{4,}|\*{4,}|={4,}|[|,:!]={3,})|(`{3,})[^`]*)[ \t]*$/;
const BLOCK_ATTRIBUTES = /^\[[^\]]*\]\]?[ \t]*$/;
/** Longer lines are no title; it also bounds the expressions' work on a pathological line. */
const MAX_TITLE_CHARS = 500;

export function chunkAsciidoc(src: SourceLines, maxBytes: number): ChunkDraft[] {
  const { headings, blocks } = scan(src.lines);
  return chunkSections(src, headings, blocks, maxBytes);
}

function scan(lines: readonly string[]): { headings: Heading[]; blocks: Block[] } {
  const headings: Heading[] = [];
  const blocks: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    if (line.length > MAX_TITLE_CHARS) continue;
    const delimiter = DELIMITER.exec(line);
    if (delimiter) {
      const close = closingLine(lines, i, delimiter[1] ?? (delimiter[2] as string));
      blocks.push({ start: i, end: close });
      i = close;
      continue;
    }
    const title = TITLE.exec(line);
    if (title) {
      const level = (title[1] as string).length;
      headings.push({ line: attributesAbove(lines, i), level, text: titleText(title[2] as string), pageTitle: level === 1 && title[1] === '=' });
    }
  }
  return { headings, blocks };
}

/** The first of the attribute lines right above a title (`[#layoutlinelength]`, `[[install]]`), which are the title's. */
function attributesAbove(lines: readonly string[], title: number): number {
  let first = title;
  while (first > 0 && BLOCK_ATTRIBUTES.test(lines[first - 1] as string)) first--;
  return first;
}

/** The line that closes the block opened at `open`, or the document's last line when none does. */
function closingLine(lines: readonly string[], open: number, marker: string): number {
  for (let k = open + 1; k < lines.length; k++) {
    if ((lines[k] as string).trimEnd() === marker) return k;
  }
  return lines.length - 1;
}

/** A title as a reader sees it: an inline anchor (`[[install]]`), code and emphasis marks removed. */
function titleText(raw: string): string {
  const text = raw
    .replace(/\[\[[^\]]*\]\]/g, '')
    .replace(/`+([^`]*)`+/g, '$1')
    .replace(/(^|[^\w*])\*{1,2}(\S(?:.*?\S)?)\*{1,2}(?![\w*])/g, '$1$2')
    .replace(/(^|\W)\+(\S(?:.*?\S)?)\+(?!\w)/g, '$1$2');
  return shortLabel(text) || '(untitled)';
}
