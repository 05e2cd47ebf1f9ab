// Markdown's headings (ATX and setext) and fences, for sections.ts to split at. Fenced code is
// opaque: `# comment` inside a fence is code, not a heading, and a fence is never cut unless it
// alone is over the byte cap. A section that is a list of links (a table of contents, a "See
// also" list) is navigation and left out, as it is in HTML: a page's Markdown source and its
// rendering are indexed alike.

import type { ChunkDraft } from '../types.ts';
import { isBlank, type SourceLines } from './lines.ts';
import { chunkSections, isNavigation, visibleChars, type Block, type Heading, type SectionText } from './sections.ts';

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
// The link expressions stop at the next bracket that could open another link, and bound every run
// they scan: each `[` scanning to the end of its line for a `]`, a line of 60,000 took 7 s.
/** An image is no text a reader reads, alone or as a badge inside a link (`[![build](svg)](ci)`). */
const IMAGE = /!\[[^\][]{0,200}\](?:\([^()\s]{0,500}(?:\s+"[^"]{0,200}")?\)|\[[^\][]{0,200}\])/g;
/** A link reference definition (`[npm-ci]: ../commands/npm-ci.md`) is never shown. */
const LINK_DEFINITION = /^ {0,3}\[[^\][]{1,200}\]:\s*\S/;
/** Inline and reference links (their text is group 1 or 2), autolinks, bare URLs and HTML anchors (group 3). */
const LINK =
  /\[([^\][]{0,200})\]\([^()\s]{0,500}(?:\s+"[^"]{0,200}")?\)|\[([^\][]{1,200})\]\[[^\][]{0,200}\]|<(?:https?|mailto):[^<>\s]{1,500}>|https?:\/\/\S+|<a\b[^<>]{0,500}>((?:[^<]|<(?!\/?a\b)){0,200})<\/a>/gi;

export function chunkMarkdown(src: SourceLines, maxBytes: number): ChunkDraft[] {
  const { headings, fences } = scan(src);
  markNavigation(src.lines, headings, fences);
  return chunkSections(src, headings, fences, maxBytes);
}

/** Flags each heading whose section, up to the next heading, is a list of links. */
function markNavigation(lines: readonly string[], headings: Heading[], fences: readonly Block[]): void {
  const inFence = new Array<boolean>(lines.length).fill(false);
  for (const fence of fences) inFence.fill(true, fence.start, fence.end + 1);
  headings.forEach((heading, h) => {
    const end = (headings[h + 1]?.line ?? lines.length) - 1;
    const section: SectionText = { chars: 0, linkChars: 0, links: 0 };
    // The heading's own line (and a setext underline, which holds no letters) counts for nothing.
    for (let i = heading.line + 1; i <= end; i++) {
      const line = lines[i] as string;
      if (inFence[i]) section.chars += visibleChars(line);
      else if (!LINK_DEFINITION.test(line)) countLinks(line, section);
    }
    if (isNavigation(section)) heading.navigation = true;
  });
}

function countLinks(line: string, section: SectionText): void {
  const rest = line.replace(IMAGE, '').replace(LINK, (link, inline?: string, reference?: string, anchor?: string) => {
    const chars = visibleChars(inline ?? reference ?? anchor ?? link);
    section.links++;
    section.linkChars += chars;
    section.chars += chars;
    return ' ';
  });
  section.chars += visibleChars(rest);
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

/**
 * The HTML a Markdown heading may carry, which a reader does not see: an anchor to link to (gson's
 * `## <a id="serialize-nulls"></a> Properties are not serialized` was titled with its tag), a
 * comment, inline markup. Only elements of HTML by name: `Promise<Boolean>` and `npm run <user
 * defined>` are the heading's words.
 */
const HEADING_HTML =
  /<!--.*?-->|<\/?(?:a|abbr|b|br|cite|code|del|details|dfn|div|em|font|i|img|ins|kbd|mark|p|picture|q|s|samp|small|source|span|strong|sub|summary|sup|time|u|var|wbr)(?:\s[^<>]*)?\/?>/gi;

/** Heading text as a reader sees it: HTML tags, code-span backticks, emphasis and link targets removed. */
function headingText(raw: string): string {
  const text = raw
    // A tag inside a code span is the span's text: tags are dropped between spans only.
    .split(/(`+[^`]*`+)/)
    .map((part, i) => (i % 2 === 0 ? part.replace(HEADING_HTML, '') : part))
    .join('')
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/`+([^`]*)`+/g, '$1')
    // Only `*` emphasis: underscores are far more often part of identifiers (`__init__`).
    .replace(/\*\*(.+?)\*\*/g, '$1')
    .replace(/(^|[^\w*])\*(\S(?:.*?\S)?)\*(?![\w*])/g, '$1$2')
    .replace(/\s+/g, ' ')
    .trim();
  return text || '(untitled)';
}
