// reStructuredText's section titles and literal blocks, for sections.ts to split at, as Markdown's
// headings and fences are. Python projects and Sphinx sites write their documents in it, and so
// does the Linux kernel's `Documentation/` (3,000 pages): read as plain text, a page was cut into
// windows titled by their first line, whichever section they held.
//
// A title is a line underlined, and maybe overlined, by one punctuation character repeated
// (`Install\n=======`). Its level is not the character but the order in which the document first
// uses each style, as docutils reads it; a document's one title of the first style is its name
// (see `scan`). An indented block after `::` or a directive (`.. code-block:: python`) is opaque:
// a code sample is kept whole, and nothing in it is a title.

import type { ChunkDraft } from '../types.ts';
import { isBlank, shortLabel, type SourceLines } from './lines.ts';
import { chunkSections, type Block, type Heading } from './sections.ts';

/** A line of one punctuation character repeated: a title's underline or overline, or a transition. */
const ADORNMENT = /^([!-/:-@[-`{-~])\1+[ \t]*$/;
/** A line that an indented block follows: a paragraph ending in `::`, or a directive (`.. note::`). */
const BLOCK_OPENER = /::[ \t]*$|^[ \t]*\.\.[ \t]+[\w:-]+::/;
/** An underline shorter than its title still makes a title from this length on, as docutils reads it. */
const SHORT_UNDERLINE = 4;
/** Longer lines are no title; it also bounds the expressions' work on a pathological line. */
const MAX_TITLE_CHARS = 500;

export function chunkRst(src: SourceLines, maxBytes: number): ChunkDraft[] {
  const { headings, blocks } = scan(src.lines);
  return chunkSections(src, headings, blocks, maxBytes);
}

function scan(lines: readonly string[]): { headings: Heading[]; blocks: Block[] } {
  const headings: Heading[] = [];
  const blocks: Block[] = [];
  const styles: string[] = [];
  const levelOf = (style: string): number => {
    if (!styles.includes(style)) styles.push(style);
    return styles.indexOf(style) + 1;
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    if (isBlank(line) || line.length > MAX_TITLE_CHARS) continue;
    const overline = ADORNMENT.exec(line);
    if (overline) {
      // `====\n Title \n====`: the title may be indented, and its underline matches the overline.
      const text = lines[i + 1];
      const under = lines[i + 2];
      if (text !== undefined && under?.trimEnd() === line.trimEnd() && !isBlank(text) && !ADORNMENT.test(text)) {
        headings.push({ line: i, level: levelOf(`over ${overline[1]}`), text: titleText(text) });
        i += 2;
      }
      continue;
    }
    const under = lines[i + 1];
    const underline = under !== undefined && under.length <= MAX_TITLE_CHARS ? ADORNMENT.exec(under) : null;
    const afterBreak = i === 0 || isBlank(lines[i - 1] as string);
    if (underline && afterBreak && !/^\s/.test(line) && underlines(under as string, line)) {
      headings.push({ line: i, level: levelOf(`under ${underline[1]}`), text: titleText(line) });
      i++;
      continue;
    }
    if (BLOCK_OPENER.test(line)) {
      const block = indentedBlock(lines, i);
      if (block) {
        blocks.push(block);
        i = block.end;
      }
    }
  }
  // A title whose style no other title uses is the document's (docutils' doctitle): it names the
  // page, as HTML's `<h1>` does, and titles its own lines only, not every section below it.
  if (headings.filter((heading) => heading.level === 1).length === 1 && headings[0]?.level === 1) headings[0].pageTitle = true;
  return { headings, blocks };
}

function underlines(adornment: string, title: string): boolean {
  const length = adornment.trimEnd().length;
  return length >= title.trimEnd().length || length >= SHORT_UNDERLINE;
}

/** The lines indented deeper than the opener at `open`, after blank lines, up to the last of them. */
function indentedBlock(lines: readonly string[], open: number): Block | undefined {
  const base = indentation(lines[open] as string);
  let first = open + 1;
  while (first < lines.length && isBlank(lines[first] as string)) first++;
  if (first >= lines.length || indentation(lines[first] as string) <= base) return undefined;
  let last = first;
  for (let k = first + 1; k < lines.length; k++) {
    const line = lines[k] as string;
    if (isBlank(line)) continue;
    if (indentation(line) <= base) break;
    last = k;
  }
  return { start: first, end: last };
}

function indentation(line: string): number {
  return line.length - line.trimStart().length;
}

/** A title as a reader sees it: inline literals' backquotes and emphasis marks removed. */
function titleText(raw: string): string {
  const text = raw
    .replace(/``([^`]+)``/g, '$1')
    .replace(/:[\w:-]+:`([^`<]*?)(?:\s*<[^>]*>)?`/g, '$1')
    .replace(/`([^`]+)`_{0,2}/g, '$1')
    .replace(/\*{1,2}(\S(?:.*?\S)?)\*{1,2}/g, '$1');
  return shortLabel(text) || '(untitled)';
}
