// HTML is split at its headings (`<h1>`–`<h6>`), as Markdown is, and each section titled by its
// heading path, so a page rendered from Markdown (npm's `docs/output`, a static site's build) is
// chunked and titled like its source, not by its first line (`<ul>`, `</code></pre>`). A `<pre>`
// is opaque. A section that is a list of links, a table of contents, is left out: it names every
// heading of its page, so it matches any question about the page and answers none.
//
// An `<h1>` names the page (HTML has one per page, where Markdown's `#` often titles each part):
// it titles the section under it, not every section of the page. The page's name is in its path,
// which ranking already reads as a title; in every section's title too, it outranked the page's
// Markdown source and the code the page documents (npm's `npm ci` questions: `npm-ci @11.19.1 >
// Configuration > install-strategy` first).
//
// htmlparser2 reads the page as a browser would: a heading inside a `<script>` string or a comment
// is no heading, a tag may span lines, and a malformed page still parses.

import { Parser } from 'htmlparser2';
import type { ChunkDraft } from '../types.ts';
import { shortLabel, type SourceLines } from './lines.ts';
import { chunkSections, isNavigation, visibleChars, type Block, type Heading, type SectionText } from './sections.ts';

const HEADING_TAG = /^h([1-6])$/;
/** Elements whose text a reader never sees as the page's words. */
const UNSEEN = new Set(['script', 'style', 'template', 'noscript']);

export function chunkHtml(src: SourceLines, text: string, maxBytes: number): ChunkDraft[] {
  const { headings, pres, preambleText } = scan(src, text);
  // Tags alone above the first heading (`<html><body>`) would be a chunk found by its file name only.
  return chunkSections(src, headings, pres, maxBytes, preambleText);
}

function scan(src: SourceLines, text: string): { headings: Heading[]; pres: Block[]; preambleText: boolean } {
  const lineAt = lineFinder(src);
  const headings: Heading[] = [];
  const pres: Block[] = [];
  let open: Heading | undefined;
  let section: SectionText = { chars: 0, linkChars: 0, links: 0 };
  let preDepth = 0;
  let preStart = 0;
  let linkDepth = 0;
  let unseenDepth = 0;
  // Whether any text, a style or a script included, comes before the first heading.
  let preambleText = false;
  // The heading before a new one learns whether its section was a list of links.
  const endSection = (): void => {
    const last = headings[headings.length - 1];
    if (last && isNavigation(section)) last.navigation = true;
    section = { chars: 0, linkChars: 0, links: 0 };
  };
  const closeHeading = (): void => {
    if (!open) return;
    headings.push({ ...open, text: shortLabel(open.text) || '(untitled)' });
    open = undefined;
  };
  const parser = new Parser(
    {
      onopentag(name) {
        const level = HEADING_TAG.exec(name);
        if (level) {
          closeHeading();
          endSection();
          open = { line: lineAt(parser.startIndex), level: Number(level[1]), text: '', pageTitle: level[1] === '1' };
        } else if (name === 'pre') {
          if (preDepth++ === 0) preStart = lineAt(parser.startIndex);
        } else if (name === 'a') {
          linkDepth++;
          section.links++;
        } else if (UNSEEN.has(name)) {
          unseenDepth++;
        }
      },
      ontext(data) {
        if (headings.length === 0 && !open && /\S/.test(data)) preambleText = true;
        if (unseenDepth > 0) return;
        // A heading titles its section; whether the section is a list of links is its body's question.
        if (open) {
          open.text += data;
          return;
        }
        const chars = visibleChars(data);
        section.chars += chars;
        if (linkDepth > 0) section.linkChars += chars;
      },
      onclosetag(name) {
        if (HEADING_TAG.test(name)) closeHeading();
        else if (name === 'pre') {
          if (preDepth > 0 && --preDepth === 0) pres.push({ start: preStart, end: lineAt(parser.endIndex) });
        } else if (name === 'a') linkDepth = Math.max(0, linkDepth - 1);
        else if (UNSEEN.has(name)) unseenDepth = Math.max(0, unseenDepth - 1);
      },
    },
    { decodeEntities: true },
  );
  parser.end(text);
  closeHeading();
  endSection();
  return { headings, pres, preambleText };
}

/** The 0-based line of a character offset into the file's normalized text. */
function lineFinder(src: SourceLines): (offset: number) => number {
  const starts = new Array<number>(src.lines.length);
  let at = 0;
  src.lines.forEach((line, i) => {
    starts[i] = at;
    at += line.length + 1;
  });
  return (offset) => {
    let low = 0;
    let high = starts.length - 1;
    while (low < high) {
      const mid = (low + high + 1) >> 1;
      if ((starts[mid] as number) <= offset) low = mid;
      else high = mid - 1;
    }
    return low;
  };
}
