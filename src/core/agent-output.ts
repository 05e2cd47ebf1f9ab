// Search results as a coding agent reads them: plain text, a line of location per result and the
// chunk's own lines around its best match, never more than a byte budget in total. Shared by the
// MCP server and the VS Code language model tool, so both answer agents the same way.
//
// Honesty rules: the text says how many results matched and how many it left out (and why), and
// which words a fuzzy retry corrected, so an agent never mistakes a truncated or corrected answer
// for the whole truth. The budget counts UTF-8 bytes of the whole text, notices included.

import { describeAsText } from './describe.ts';
import { DEFAULT_AGENT_BUDGET_BYTES, MIN_AGENT_BUDGET_BYTES } from './options.ts';
import type { SearchResponse, SearchResult } from './types.ts';

/** Excerpt lines longer than this (characters) are cut: minified lines would eat the budget. */
const MAX_LINE_CHARS = 160;
/** Lines per excerpt at most; the rest of a chunk is one `read_chunk` away. */
const MAX_EXCERPT_LINES = 40;
const MAX_TITLE_CHARS = 100;

export interface AgentOutputOptions {
  /** Total UTF-8 bytes of the answer, notices included. Default DEFAULT_AGENT_BUDGET_BYTES; at least MIN_AGENT_BUDGET_BYTES. */
  budgetBytes?: number;
  /**
   * A chunk's full text by id, for line excerpts; without it (or if it returns undefined) the one-line
   * snippet is shown. The result is passed too: ids are per database, and a caller merging several
   * (a multi-root workspace) tells them apart by the result.
   */
  chunkText?: (chunkId: number, result: SearchResult) => string | undefined;
  /** Add a line per result saying which lists found it and what the rerank did, in describe()'s words. */
  explain?: boolean;
}

/** What one shown result covers: the chunk's range and the lines actually printed. */
export interface ShownResult {
  chunkId: number;
  path: string;
  startLine: number;
  endLine: number;
  /** 1-based, inclusive; the lines whose text is in the answer (null when only the one-line snippet was shown). */
  excerpt: { startLine: number; endLine: number } | null;
}

export interface AgentOutput {
  text: string;
  /** UTF-8 bytes of `text`; never more than the budget. */
  bytes: number;
  shown: ShownResult[];
  /** Results the search returned but the budget left out. */
  omitted: number;
}

/** What the agent's text is made from: one folder's search response, or several merged. */
export type AgentAnswer = Pick<SearchResponse, 'results' | 'corrections' | 'candidates'>;

export function formatForAgent(query: string, response: AgentAnswer, options: AgentOutputOptions = {}): AgentOutput {
  const budget = Math.max(MIN_AGENT_BUDGET_BYTES, Math.floor(options.budgetBytes ?? DEFAULT_AGENT_BUDGET_BYTES));
  const results = response.results;
  const corrections = correctionLine(response);

  // Reserve room for the header and trailer as they would read with the largest numbers, then fill
  // the rest with results; the real notices are never longer than the reserved ones.
  const n = results.length;
  const reserve = bytes(header(query, response, n, n)) + bytes(corrections) + bytes(trailer(n, budget, n));
  let room = budget - reserve;
  const blocks: string[] = [];
  const shown: ShownResult[] = [];
  for (let i = 0; i < n; i++) {
    const result = results[i]!;
    const allowance = Math.floor(room / (n - i));
    const block = resultBlock(i + 1, result, query, allowance, room, options);
    if (!block) break;
    blocks.push(block.text);
    shown.push(block.shown);
    room -= bytes(block.text);
  }
  const omitted = n - shown.length;
  const text = header(query, response, shown.length, omitted) + corrections + blocks.join('') + trailer(omitted, budget, n);
  // The reserve makes this unreachable; kept so the promise holds even if the notices change.
  const safe = bytes(text) <= budget ? text : cutToBytes(text, budget);
  return { text: safe, bytes: bytes(safe), shown, omitted };
}

function header(query: string, response: AgentAnswer, shown: number, omitted: number): string {
  const total = shown + omitted;
  if (total === 0) return `No results for "${oneLine(query, 200)}".\n`;
  const more = response.candidates > total ? ` (${response.candidates} candidates matched; raise limit for more)` : '';
  return `${total} result${total === 1 ? '' : 's'} for "${oneLine(query, 200)}"${more}${omitted > 0 ? `; ${shown} shown` : ''}.\n`;
}

function correctionLine(response: AgentAnswer): string {
  if (response.corrections.length === 0) return '';
  const pairs = response.corrections.map(([typed, corrected]) => `"${typed}" → "${corrected}"`).join(', ');
  return `Corrected: ${pairs} (some words matched nothing as typed; results are for the corrected words).\n`;
}

function trailer(omitted: number, budget: number, total: number): string {
  if (omitted === 0) return '';
  return `[Truncated: ${omitted} more of ${total} results left out to stay within ${budget} bytes. Narrow with path or kind, lower limit, or raise the budget.]\n`;
}

function resultBlock(rank: number, result: SearchResult, query: string, allowance: number, room: number, options: AgentOutputOptions) {
  const head = `\n${rank}. ${result.path}:${result.startLine}-${result.endLine} ${oneLine(result.title, MAX_TITLE_CHARS)} [${result.kind}, ${result.stage}, chunk ${result.chunkId}]\n`;
  const explain = options.explain ? `   why: ${describeAsText(result).join('; ')}\n` : '';
  const fixed = bytes(head) + bytes(explain);
  if (fixed > room) return undefined;
  const shown: ShownResult = { chunkId: result.chunkId, path: result.path, startLine: result.startLine, endLine: result.endLine, excerpt: null };
  let body = '';
  const text = options.chunkText?.(result.chunkId, result);
  const lineBudget = Math.max(0, allowance - fixed);
  if (text !== undefined) {
    const excerpt = excerptLines(text, result, query, lineBudget);
    if (excerpt) {
      body = excerpt.text;
      shown.excerpt = { startLine: excerpt.startLine, endLine: excerpt.endLine };
    }
  }
  if (!body) {
    const snippet = `   ${result.snippet}\n`;
    if (bytes(snippet) <= lineBudget) body = snippet;
  }
  return { text: head + explain + body, shown };
}

/** The chunk's lines around the line that holds the most matched words, numbered, within `budget` bytes. */
function excerptLines(text: string, result: SearchResult, query: string, budget: number) {
  const lines = text.split('\n');
  const terms = matchedTerms(result, query);
  let best = 0;
  let bestScore = -1;
  lines.forEach((line, i) => {
    const lower = line.toLowerCase();
    const score = terms.filter((term) => lower.includes(term)).length;
    if (score > bestScore) {
      bestScore = score;
      best = i;
    }
  });
  const render = (i: number) => `   ${result.startLine + i}: ${oneLine(lines[i]!, MAX_LINE_CHARS)}\n`;
  // Grow a contiguous window from the best line: one line above for every two below, since a
  // match is usually a declaration or heading whose meaning follows it.
  let from = best;
  let to = best;
  let used = bytes(render(best));
  if (used > budget) return undefined;
  for (let step = 0; to - from + 1 < Math.min(MAX_EXCERPT_LINES, lines.length); step++) {
    const up = step % 3 === 2;
    const next = up ? (from > 0 ? from - 1 : to + 1) : to + 1 < lines.length ? to + 1 : from - 1;
    if (next < 0 || next >= lines.length) break;
    const cost = bytes(render(next));
    if (used + cost > budget) break;
    used += cost;
    if (next < from) from = next;
    else to = next;
  }
  // Blank lines at the window's edges carry nothing.
  while (to > from && !lines[to]!.trim()) to--;
  while (from < to && !lines[from]!.trim()) from++;
  let out = '';
  for (let i = from; i <= to; i++) out += render(i);
  return { text: out, startLine: result.startLine + from, endLine: result.startLine + to };
}

function matchedTerms(result: SearchResult, query: string): string[] {
  const fromSnippet = result.matches.map(([start, end]) => result.snippet.slice(start, end).toLowerCase());
  const words = fromSnippet.length > 0 ? fromSnippet : query.toLowerCase().split(/[^\p{L}\p{N}_]+/u);
  return [...new Set(words.filter((word) => word.length > 1))];
}

function oneLine(text: string, maxChars: number): string {
  const flat = text.replace(/[\r\n\t]+/g, ' ').trimEnd();
  return flat.length > maxChars ? `${flat.slice(0, maxChars - 1)}…` : flat;
}

export function bytes(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}

/** The longest prefix of `text` within `max` UTF-8 bytes, cut between code points. */
function cutToBytes(text: string, max: number): string {
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
