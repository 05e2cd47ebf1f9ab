// Search results as a coding agent reads them: plain text, grouped by file (best file first), each
// result's line range, its symbol and an excerpt of its chunk (excerpt.ts), never more than a byte
// budget in total. Shared by the MCP server, the VS Code language model tool and the CLI's
// `--format agent`, so all of them answer agents the same way.
//
// An agent pays for every byte it reads, so an answer prints what points at the answer and says
// exactly what it left out: each result's header gives the chunk's line range, its printed lines
// carry their file line numbers (`…` where they skip), the trailer counts the lines not printed,
// and `read_chunk` / `read_range` fetch the rest. Lower ranks get fewer lines: the first results
// hold the answer most of the time, the third is worth its best line, and the others their
// location, with their best line only when it holds much of what was asked. Each result's share of
// the budget is weighted by the lines its rank allows. A file's top level first (its imports and
// constants) leaves the lines it does not need to the best other result of its file.
//
// Honesty rules: the text says how many results matched and how many it left out (and why), and
// which words a fuzzy retry corrected, so an agent never mistakes a truncated or corrected answer
// for the whole truth. The budget counts UTF-8 bytes of the whole text, notices included.

import { bytes, cutToBytes, oneLine, titleUnderPath } from './agent-text.ts';
import { copiesNote, describeAsText, partialNote, unmatchedNote } from './describe.ts';
import { isTopLevel, lineScore, linesForRank, MAX_LINE_CHARS, pickLines, queryTerms, termWeight } from './excerpt.ts';
import { DEFAULT_AGENT_BUDGET_BYTES, MIN_AGENT_BUDGET_BYTES } from './options.ts';
import type { SearchResponse, SearchResult } from './types.ts';

const MAX_TITLE_CHARS = 100;
/**
 * From this rank on, a first page's result prints its best line only when that line holds at least
 * STRONG_LINE_SHARE of the query's words (by weight), and else only its location. Those best lines
 * printed none of the 50 answers of bench/agent-bytes.ts in full, and cost a fifth of its bytes; the
 * strong ones are what tells an agent a result is worth reading (RuleTester's "Should have no errors
 * but had %d" at rank 7).
 */
const LOCATION_ONLY_FROM_RANK = 4;
/**
 * On those 40 questions, against every best line printed: 0.4 kept 138 of 280 lines, three of the
 * four that hold part of an answer, for 10% fewer bytes; 0.5 kept 83 lines and one of the four, for
 * 13%; no best line at all, 19%.
 */
const STRONG_LINE_SHARE = 0.4;
/**
 * Copies of a result's text named by place (the others are counted): one is where to look, more is
 * bytes. Places of much the same text (a page's HTML and man renderings) are only counted: an agent
 * reads the result, and npm's renderings named by place cost its 15 answers 2 KB.
 */
const COPIES_LISTED = 2;

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
  /** The runs of file lines (1-based, inclusive) whose text is in the answer, in line order; empty when only the snippet or nothing was printed. */
  printed: Array<[number, number]>;
}

export interface AgentOutput {
  text: string;
  /** UTF-8 bytes of `text`; never more than the budget. */
  bytes: number;
  /** In rank order. */
  shown: ShownResult[];
  /** Results the search returned but the budget left out. */
  omitted: number;
}

/** What the agent's text is made from: one folder's search response, or several merged. */
export type AgentAnswer = Pick<SearchResponse, 'results' | 'offset' | 'corrections' | 'unmatched' | 'candidates' | 'semantic' | 'partial'>;

interface Block {
  rank: number;
  result: SearchResult;
  head: string;
  body: string;
  shown: ShownResult;
}

export function formatForAgent(query: string, response: AgentAnswer, options: AgentOutputOptions = {}): AgentOutput {
  const budget = Math.max(MIN_AGENT_BUDGET_BYTES, Math.floor(options.budgetBytes ?? DEFAULT_AGENT_BUDGET_BYTES));
  const results = response.results;
  const n = results.length;
  const files = new Set(results.map((r) => r.path)).size;
  const notices = correctionLine(response) + unmatchedLine(response) + semanticLine(response) + partialLine(response);
  const terms = queryTerms([query, ...response.corrections.map(([, corrected]) => corrected)].join(' '));
  const queryWeight = terms.reduce((sum, term) => sum + termWeight(term), 0);

  // Reserve room for the longest the header and trailer can read, whatever number of results fits,
  // then fill the rest with results.
  let headerReserve = 0;
  for (let shown = 0; shown <= n; shown++) headerReserve = Math.max(headerReserve, bytes(header(response, n, shown, files)));
  const reserve = headerReserve + bytes(notices) + bytes(trailer(n, n, budget, Number.MAX_SAFE_INTEGER));
  let room = budget - reserve;
  const heir = response.offset === 0 ? topLevelHeir(results) : -1;
  const blocks: Block[] = [];
  const seenFiles = new Set<string>();
  for (let i = 0; i < n; i++) {
    const result = results[i]!;
    const fileHead = seenFiles.has(result.path) ? '' : fileLine(result.path);
    // Each result's share of the room left is weighted by the lines it may print (its rank's, or
    // those it inherits), so the first results get the lines and the budget still reaches the last.
    const rank = response.offset + i + 1;
    const inherited = i === heir && blocks[0] ? linesLeftByWhole(blocks[0]) : 0;
    const maxLines = Math.max(inherited, linesForRank(rank));
    let weights = maxLines;
    for (let j = i + 1; j < n; j++) weights += linesForRank(response.offset + j + 1);
    const allowance = Math.floor((room * maxLines) / weights) - bytes(fileHead);
    const text = options.chunkText?.(result.chunkId, result);
    // Below the first results of a first page a best line must earn its bytes; on a page an agent
    // asked for beyond it, every result has its line, as the rank's allowance gives it.
    const minLineScore = inherited === 0 && response.offset === 0 && rank >= LOCATION_ONLY_FROM_RANK ? STRONG_LINE_SHARE * queryWeight : 0;
    const block = resultBlock(rank, result, text, terms, maxLines, minLineScore, allowance, room - bytes(fileHead), options);
    if (!block) break;
    blocks.push(block);
    seenFiles.add(result.path);
    room -= bytes(fileHead) + bytes(block.head) + bytes(block.body);
  }
  const omitted = n - blocks.length;
  const unprinted = blocks.reduce((sum, b) => sum + b.shown.endLine - b.shown.startLine + 1 - printedCount(b.shown), 0);
  const text = header(response, n, blocks.length, files) + notices + grouped(blocks) + trailer(omitted, n, budget, blocks.length > 0 ? unprinted : 0);
  // The reserve makes this unreachable; kept so the promise holds even if the notices change.
  const safe = bytes(text) <= budget ? text : cutToBytes(text, budget);
  return { text: safe, bytes: bytes(safe), shown: blocks.map((b) => b.shown), omitted };
}

/** Files in the order of their best result; inside a file, results in line order, as the file reads. */
function grouped(blocks: Block[]): string {
  const byFile = new Map<string, Block[]>();
  for (const block of blocks) {
    const list = byFile.get(block.result.path);
    if (list) list.push(block);
    else byFile.set(block.result.path, [block]);
  }
  let out = '';
  for (const [file, list] of byFile) {
    out += fileLine(file);
    for (const block of list.sort((a, b) => a.result.startLine - b.result.startLine || a.rank - b.rank)) out += block.head + block.body;
  }
  return out;
}

function fileLine(path: string): string {
  return `\n${path}\n`;
}

/**
 * The answer's first line, for `total` results of which the first `shown` fit the budget. It does
 * not repeat the query: the answer comes back attached to the call that asked it.
 */
function header(response: AgentAnswer, total: number, shown: number, files: number): string {
  if (total === 0) return response.offset > 0 ? `No results after the first ${response.offset}.\n` : 'No results.\n';
  const first = response.offset + 1;
  const which = response.offset === 0 ? `${total} result${total === 1 ? '' : 's'}` : total === 1 ? `Result ${first}` : `Results ${first}–${first + total - 1}`;
  const where = ` in ${files} file${files === 1 ? '' : 's'}`;
  const beyond = response.candidates > response.offset + total;
  const counted = beyond ? ` (${response.candidates} candidates matched)` : '';
  // The next page starts at the first result not printed, whether the limit or the budget stopped
  // there; the trailer counts what the budget left out.
  const next = shown > 0 && (beyond || shown < total) ? `; offset ${response.offset + shown} for the next` : '';
  return `${which}${where}${counted}${next}.\n`;
}

function correctionLine(response: AgentAnswer): string {
  if (response.corrections.length === 0) return '';
  const pairs = response.corrections.map(([typed, corrected]) => `"${typed}" → "${corrected}"`).join(', ');
  return `Corrected: ${pairs} (some words matched nothing as typed; results are for the corrected words).\n`;
}

/** Said when query words are in no file, so that the agent asks another way rather than read results that ignore them. */
function unmatchedLine(response: AgentAnswer): string {
  if (response.unmatched.length === 0) return '';
  return `Note: ${unmatchedNote(response.unmatched, response.results.length)}.\n`;
}

/** Said when the semantic lane sat this search out, so the agent knows the answer is lexical only. */
function semanticLine(response: AgentAnswer): string {
  if (!response.semantic?.skipped) return '';
  return `Semantic list skipped (${response.semantic.model}): ${oneLine(response.semantic.skipped, 200)}; results are from the lexical lists.\n`;
}

/** Said while the first index runs, so the agent knows a missing answer may not be indexed yet. */
function partialLine(response: AgentAnswer): string {
  if (!response.partial) return '';
  return `Index incomplete: ${partialNote(response.partial)}; files not indexed yet cannot be found.\n`;
}

function trailer(omitted: number, total: number, budget: number, unprinted: number): string {
  let out = '';
  if (unprinted > 0) out += `\n[${unprinted} lines of these chunks not printed; read_chunk(id) or read_range(path, start_line, end_line) prints them.]\n`;
  if (omitted > 0)
    out += `[Truncated: ${omitted} more of ${total} results left out to stay within ${budget} bytes; narrow with path or kind, or raise the budget.]\n`;
  return out;
}

/**
 * The index of the result that inherits the first's spare lines, or -1: when the first is a code
 * file's top level (its imports, constants and one-line helpers name what the code below uses, and
 * say little alone), the best-ranked other result of that file on the page. Asked how npm's "did
 * you mean" is chosen, the first result is `did-you-mean.js`'s seven lines above `didYouMean`, the
 * eighth; asked how often npm checks for a new version, the first is `update-notifier.js`'s fifteen
 * above `updateNotifier`, the second (30 lines, 12 at its rank). On the 40 questions of
 * bench/agent-bytes.ts this printed both whole for 1.6% more bytes; held out, it changed one of the
 * kernel's ten, for 3.6% of its bytes (`pid.c`'s constants leave their lines to `pid_idr_init`, not
 * to `alloc_pid` further down, the answer).
 */
function topLevelHeir(results: readonly SearchResult[]): number {
  const lead = results[0];
  if (!lead || !isTopLevel(lead)) return -1;
  return results.findIndex((r, i) => i > 0 && r.path === lead.path);
}

/** The first result's lines left unused, when it printed its whole chunk (else it needed them all). */
function linesLeftByWhole(block: Block): number {
  const [run, ...more] = block.shown.printed;
  const whole = run !== undefined && more.length === 0 && run[0] === block.shown.startLine && run[1] === block.shown.endLine;
  return whole ? Math.max(0, linesForRank(1) - printedCount(block.shown)) : 0;
}

/**
 * The result's header and at most `maxLines` printed lines within `allowance` bytes, or undefined if
 * not even the header fits in `room`. No line is printed unless the best one scores `minLineScore`.
 */
function resultBlock(
  rank: number,
  result: SearchResult,
  text: string | undefined,
  terms: string[],
  maxLines: number,
  minLineScore: number,
  allowance: number,
  room: number,
  options: AgentOutputOptions,
): Block | undefined {
  const title = oneLine(titleUnderPath(result.path, result.title, result.kind), MAX_TITLE_CHARS);
  const head =
    `[${rank}] ${result.startLine}-${result.endLine}${title ? ` ${title}` : ''} · chunk ${result.chunkId}\n` +
    (result.copies ? `(${copiesNote(result.copies, COPIES_LISTED, 0)})\n` : '') +
    (options.explain ? `why: ${describeAsText(result).join('; ')}\n` : '');
  const fixed = bytes(head);
  if (fixed > room) return undefined;
  const shown: ShownResult = { chunkId: result.chunkId, path: result.path, startLine: result.startLine, endLine: result.endLine, printed: [] };
  const lineBudget = Math.max(0, Math.min(allowance, room) - fixed);
  let body = '';
  const locationOnly = minLineScore > 0 && Math.max(...(text ?? result.snippet).split('\n').map((line) => lineScore(line, terms))) < minLineScore;
  if (text !== undefined && !locationOnly) {
    const excerpt = pickLines(text, result, terms, maxLines, lineBudget);
    body = excerpt.text;
    shown.printed = excerpt.runs;
  }
  if (!body && !locationOnly) {
    const snippet = `${oneLine(result.snippet, MAX_LINE_CHARS)}\n`;
    if (bytes(snippet) <= lineBudget) body = snippet;
  }
  return { rank, result, head, body, shown };
}

function printedCount(shown: ShownResult): number {
  return shown.printed.reduce((sum, [a, b]) => sum + b - a + 1, 0);
}
