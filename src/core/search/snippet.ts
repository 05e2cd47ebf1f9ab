// One line of a chunk around its best match, with the matched pieces marked.

import type { MatchRange } from '../types.ts';
import type { Occurrence } from './occurrences.ts';

const SNIPPET_CHARS = 160;

export interface Snippet {
  text: string;
  matches: MatchRange[];
}

/**
 * Whitespace runs (newlines included) become single spaces so the snippet fits one line; the
 * window starts a little before the densest cluster of matches.
 */
export function makeSnippet(text: string, occurrences: Occurrence[]): Snippet {
  const anchor = densestStart(occurrences);
  const from = Math.max(0, anchor - 40);
  let out = '';
  const matches: MatchRange[] = [];
  let pending = occurrences.filter((o) => o.start >= from);
  let i = from;
  if (from > 0) out = '…';
  while (i < text.length && out.length < SNIPPET_CHARS) {
    const next = pending[0];
    if (next && next.start === i) {
      const word = text.slice(next.start, next.end);
      matches.push([out.length, out.length + word.length]);
      out += word;
      i = next.end;
      pending = pending.slice(1);
      continue;
    }
    const ch = text[i]!;
    if (/\s/.test(ch)) {
      if (out.length > 0 && !out.endsWith(' ') && !out.endsWith('…')) out += ' ';
    } else {
      out += ch;
    }
    i++;
  }
  out = out.trimEnd();
  if (i < text.length) out += '…';
  return { text: out, matches: matches.filter(([, end]) => end <= out.length) };
}

/** Start of the window of SNIPPET_CHARS that holds the most occurrences. */
function densestStart(occurrences: Occurrence[]): number {
  let best = occurrences[0]?.start ?? 0;
  let bestCount = 0;
  let left = 0;
  for (let right = 0; right < occurrences.length; right++) {
    while (occurrences[right]!.end - occurrences[left]!.start > SNIPPET_CHARS) left++;
    const terms = new Set(occurrences.slice(left, right + 1).map((o) => o.term)).size;
    if (terms > bestCount) {
      bestCount = terms;
      best = occurrences[left]!.start;
    }
  }
  return best;
}
