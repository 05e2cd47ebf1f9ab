// How every answer for an agent writes what it prints (search, locate, read_range, the CLI's
// agent format): a file line numbered as in the file, a chunk's title under its path, one line of
// text cut to a width, and the UTF-8 bytes a budget counts.

import { baseName } from './chunk/lines.ts';
import type { ChunkKind } from './types.ts';

/**
 * A document's section is titled by its heading, and by the heading it sits in when both fit in
 * this many characters: an outer heading is context (`Functions > Ranges`) until it is a long
 * document title (`Benchmarks: Fused Search against context-mode's ContentStore, … > Agent answers`).
 */
const MAX_HEADINGS_CHARS = 60;

/**
 * A chunk's title as an agent's answer prints it, under its file's path: without the file's name
 * the path already gives (`eqeqeq.js (top level)` → `(top level)`), and of a document's heading
 * path the section's heading, with the one it sits in when short (MAX_HEADINGS_CHARS).
 */
export function titleUnderPath(path: string, title: string, kind: ChunkKind): string {
  const name = baseName(path);
  if (title === name) return '';
  if (title.startsWith(`${name} (`)) return title.slice(name.length + 1);
  if (title.startsWith(`${name}: `)) return title.slice(name.length + 2);
  if (kind !== 'prose') return title;
  const [parent, section] = title.split(' > ').slice(-2);
  if (section === undefined) return parent!;
  return parent!.length + section.length + 3 <= MAX_HEADINGS_CHARS ? `${parent} > ${section}` : section;
}

/**
 * A file line as every agent answer prints it: `61: text`, or `61:` for a blank line. Not
 * indented: two spaces before the number cost an agent two tokens a line (o200k_base), 9% of the
 * answers of bench/agent-bytes.ts.
 */
export function numberedLine(lineNumber: number, text: string): string {
  return text.trim() === '' ? `${lineNumber}:\n` : `${lineNumber}: ${text.trimEnd()}\n`;
}

/** The text on one line, cut with `…` past `maxChars` characters. */
export function oneLine(text: string, maxChars: number): string {
  const flat = text.replace(/[\r\n]+/g, ' ').trimEnd();
  return flat.length > maxChars ? `${flat.slice(0, maxChars - 1)}…` : flat;
}

export function bytes(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}

/** The longest prefix of `text` within `max` UTF-8 bytes, cut between code points. */
export function cutToBytes(text: string, max: number): string {
  let out = '';
  let used = 0;
  for (const ch of text) {
    const size = bytes(ch);
    if (used + size > max) break;
    out += ch;
    used += size;
  }
  return out;
}
