// Which lines of one result's chunk an agent's answer prints: the lines that hold the query's
// words, each with the statement around it when that is short (else a little context), the
// symbol's signature, merged where they touch and numbered as in the file, within a number of
// lines its rank allows and a byte allowance. A whole chunk is printed when that costs little more
// than its excerpt. The first two results print a statement whose lines hold the query's words
// between them, and a switch case whose label names the query, whole; from the third on, a best
// line that is a message comes with the call that says it. agent-output.ts lays the excerpts out
// on a page and shares the budget among them.

import { bytes, numberedLine, oneLine } from './agent-text.ts';
import type { SearchResult } from './types.ts';

/** Printed lines longer than this (characters) are cut: minified lines would eat the budget. */
export const MAX_LINE_CHARS = 160;
/**
 * Most lines printed for the result at each rank (the last entry for every rank below): the first
 * result gets room for a whole function, the second for its statement, the others for their best
 * line. On the 40 questions of bench/agent-bytes.ts, also giving the third to tenth results 10, 4,
 * 2 and 1 lines cost 17% more bytes for one more answer printed in full. Against 40 and 20 lines
 * for the first two, 48 and 12 printed one more answer in full (no-empty's) for 3% fewer bytes;
 * 40 for the first lost it again, and 10 for the second lost another.
 */
const LINES_BY_RANK = [48, 12, 1];
/** Lines of context printed above and below a matched line. */
const CONTEXT_ABOVE = 1;
const CONTEXT_BELOW = 2;
/** Most lines of the block a matched line opens (an `if`, a call, an object) printed below it. */
const MAX_BLOCK_LINES = 16;
/** Terms this short match whole words only: inside longer words they are mostly chance. */
const SHORT_TERM_CHARS = 3;
const WORD_CHAR = /[\p{L}\p{N}]/u;
/** A line that starts by closing a bracket: the end of a block, or of a head broken over lines. */
const CLOSER_LINE = /^\s*[)\]}]/;
/** A line that only holds a comment (or the inside of a block comment). */
const COMMENT_LINE = /^\s*(?:\/\/|\/\*|\*|#(?![a-z]*\s*(?:include|define|if))|--)/;
/** Enclosing statement heads printed above a matched line. */
const MAX_OPENERS = 2;
/** A statement around a matched line of at most this many lines is printed whole, from its comment to its closer. */
const MAX_STATEMENT_LINES = 16;
/**
 * A passage, a statement whose lines together hold more of the query's words than any one of its
 * lines (an error message built over many lines, a call whose arguments name what was asked), is
 * printed whole up to this many lines, past the rank's allowance of lines. On the 40 questions of
 * bench/agent-bytes.ts it printed the stylish formatter's summary in full (19 lines, second
 * result) for 0.8% more bytes; held out, the kernel's and Python's stayed 7/10 in full, for 2.5% and
 * 0.5% more bytes, and the kernel's second result printed a second answer to its question whole.
 */
const MAX_PASSAGE_LINES = 24;
/** Ranks allowed fewer lines than this (the third on) print their best lines, never a passage. */
const MIN_PASSAGE_ALLOWANCE = LINES_BY_RANK[1]!;
/**
 * A `case` label (C, JavaScript, Java, Go, PHP, Python's `match`), the label in group 2; `::` is
 * C++'s scope, not the colon. The first two results print a case whose label names the query
 * whole, up to MAX_CASE_LINES (labelledCase). On the 40 questions of bench/agent-bytes.ts it
 * printed ESLint's reading of `/* global *\/` comments in full (29 lines, second result) for 0.35%
 * more bytes; held out, the kernel's and Python's answers did not change.
 */
const CASE_LINE = /^(\s*)case\s+(.+?)\s*:(?!:)/;
const DEFAULT_LINE = /^\s*default\s*:/;
/** A case is printed whole up to the first result's allowance of lines; a longer one is left to the lines its words pick. */
const MAX_CASE_LINES = LINES_BY_RANK[0]!;
/**
 * A line that assigns a plain name, with its declaration's words before it: `const match = …`,
 * `opts = opts || {}`, `struct task_struct *t = p;`, `err |= check()`; the name is group 1.
 */
const ONE_LINE_ASSIGNMENT = /^\s*(?:[A-Za-z_$][\w$<>[\]]*\s+)*\**([A-Za-z_$][\w$]*)\s*(?:[-+*/%&|^]|\|\||&&|\?\?)?=(?![=>])/;
/**
 * A line that starts with a string: an argument of a call broken over lines, a message mostly. The
 * third result on prints the call around such a best line (callAround). On the 40 questions of
 * bench/agent-bytes.ts it printed RuleTester's "Should have no errors but had %d" assertion in full
 * (9 lines, seventh result) for 0.4% more bytes; held out, the kernel's answers did not change and
 * Python's cost 0.2% more.
 */
const MESSAGE_LINE = /^\s*["'`]/;
/** A line that ends by opening a bracket: `) {`, `} else {`, `foo(`. */
const OPENS_BLOCK = /[{([]\s*(?:\/\/.*)?$/;
/** A line is a match when it holds at least this share of what the chunk's best line holds. */
const HIT_SHARE = 0.5;
/** Skipped runs of at most this many lines between printed ones are printed too. */
const MAX_FILLED_GAP = 2;
/** A chunk of at most this many lines is printed whole when the result's allowance covers it. */
const SMALL_CHUNK_LINES = 20;
/**
 * So is a longer one whose excerpt already holds this share of its lines. On the 40 questions of
 * bench/agent-bytes.ts it printed one more answer in full (npm's update notifier) for 252 bytes.
 */
const MOSTLY_PRINTED_SHARE = 2 / 3;
/** A whole chunk is printed instead of its excerpt when it costs at most this many bytes more. */
const WHOLE_CHUNK_SLACK_BYTES = 160;
/**
 * A code line ending in an operator, an opening bracket or a line continuation goes on below; the
 * `/` of a comment's closing `*\/` and the `++` or `--` of a statement without a semicolon do not.
 * Commas are left out: a line ending in one is an item of a list, finished as it stands, unless an
 * unclosed bracket says otherwise.
 */
const LEFT_OPEN = /(?:[=([*?\\]|(?<!\+)\+|(?<!-)-|(?<!\*)\/|&&|\|\||=>)\s*$/;
/**
 * A one-line string literal, whose brackets and operators are text, not code. A backslash is taken
 * only as an escape: were it also an ordinary character, a run of them in a string left open would
 * be tried every way it can be split, twice as long with every two more (over two minutes on a
 * line of escaped JSON in npm's test fixtures).
 */
const QUOTED = /(["'`])(?:\\.|(?!\1)[^\\])*\1/g;
/** The best line of a result is printed with at most this many lines that finish its expression. */
const MAX_CONTINUATION_LINES = 3;
/** A signature spans at most this many lines (a parameter list broken over lines). */
const MAX_SIGNATURE_LINES = 4;
/** The marker printed where a result's printed lines skip some. */
const GAP = '…\n';

/** The lines the result at this rank (1-based) may print; a passage, a case, a message's call and the end of a best line's expression may go past them. */
export function linesForRank(rank: number): number {
  return LINES_BY_RANK[Math.min(rank, LINES_BY_RANK.length) - 1]!;
}

/** Whether a result is the code of a file between its symbols (chunk/code.ts titles it `<file> (top level)`): imports, constants, no signature. */
export function isTopLevel(result: SearchResult): boolean {
  return result.kind === 'code' && result.title.endsWith('(top level)');
}

/**
 * Which of the chunk's lines to print within `maxLines` and `budget` bytes: the statement that
 * holds more query words than any line (a passage, even past `maxLines`), the switch case whose
 * label names the query (also past `maxLines`), the signature, then the statements (or the lines)
 * around the lines that hold the most query words, best first, merged where they touch; the whole
 * chunk instead when that costs at most WHOLE_CHUNK_SLACK_BYTES more.
 */
export function pickLines(
  text: string,
  result: SearchResult,
  terms: string[],
  maxLines: number,
  budget: number,
): { text: string; runs: Array<[number, number]> } {
  const lines = text.replace(/\n$/, '').split('\n');
  const chosen = new Set<number>();
  let used = 0;
  const costOf = (picked: Set<number>) => bytes(renderRuns(lines, result.startLine, picked).text);
  const tryAdd = (indices: number[], limit = maxLines): boolean => {
    const fresh = indices.filter((i) => i >= 0 && i < lines.length && !chosen.has(i) && lines[i]!.trim() !== '');
    if (fresh.length === 0) return true;
    if (chosen.size + fresh.length > limit) return false;
    const next = new Set([...chosen, ...fresh]);
    const nextCost = costOf(next);
    if (nextCost > budget) return false;
    for (const i of fresh) chosen.add(i);
    used = nextCost;
    return true;
  };

  const scores = lines.map((line) => lineScore(line, terms));
  const best = Math.max(0, ...scores);
  // Lines with fewer than half the words of the chunk's best line are noise around it: a long
  // query's one common word matches everywhere.
  const hits = scores
    .map((score, i) => ({ score, i }))
    .filter((h) => h.score > 0 && h.score >= best * HIT_SHARE)
    .sort((a, b) => b.score - a.score || a.i - b.i);
  // A passage first when the query's words are spread over the lines of one statement: each of its
  // lines holds less than the best line, and the best line, printed alone, would be beside the
  // point. A switch case labelled with a query word is the branch that handles it, whatever words
  // its body holds. Then the best line, so that even a tight budget prints what matched, with the
  // lines that finish its expression even past a one-line allowance (`const tooManyWarnings =` says
  // nothing alone); then the signature that says where it is, then the other matches in order of
  // strength, each with its statement when that is short and fits, else with the context around it.
  const signature = result.kind === 'code' ? signatureLines(lines) : [];
  const passage = result.kind === 'code' && maxLines >= MIN_PASSAGE_ALLOWANCE ? densestPassage(lines, scores, terms, signature[0] ?? 0) : undefined;
  if (passage && passage.score > best) tryAdd(passage.lines, Math.max(maxLines, passage.lines.length));
  const branch = result.kind === 'code' && maxLines >= MIN_PASSAGE_ALLOWANCE ? labelledCase(lines, terms) : undefined;
  if (branch) tryAdd(branch, Math.max(maxLines, chosen.size + branch.length));
  if (hits.length > 0) {
    const best = hits[0]!.i;
    const rest = result.kind === 'code' ? continuation(lines, best) : [];
    if (!tryAdd([best, ...rest], Math.max(maxLines, 1 + rest.length))) tryAdd([best]);
    // A message alone says what is said, not when: below the first two results (which print the
    // statement around each match), the call that says it comes with it.
    const call =
      result.kind === 'code' && maxLines < MIN_PASSAGE_ALLOWANCE && chosen.has(best) && MESSAGE_LINE.test(lines[best]!) ? callAround(lines, best) : undefined;
    if (call) tryAdd(call, chosen.size + call.length);
  }
  if (result.kind === 'code' && !isTopLevel(result)) tryAdd(signature);
  for (const hit of hits) {
    if (!tryAdd([hit.i])) continue;
    const statement = statementAround(lines, hit.i);
    if (statement && tryAdd(statement)) continue;
    for (const i of contextOf(lines, hit.i)) if (!tryAdd([i])) break;
  }
  // A gap of a line or two costs about what its lines do: print them and spare the reader a jump;
  // the same for the last lines of the chunk (its closing brace, mostly).
  const nonBlank = lines.map((_, i) => i).filter((i) => lines[i]!.trim() !== '');
  const picked = () => nonBlank.filter((i) => chosen.has(i));
  for (const [k, i] of picked().entries()) {
    const next = picked()[k + 1];
    if (next === undefined) break;
    const between = nonBlank.filter((j) => j > i && j < next);
    if (between.length <= MAX_FILLED_GAP) tryAdd(between);
  }
  const last = picked().at(-1);
  if (last !== undefined) {
    const tail = nonBlank.filter((j) => j > last);
    if (tail.length <= MAX_FILLED_GAP) tryAdd(tail);
  }

  // A chunk is printed whole when its lines are within the result's allowance and it is small or
  // its excerpt already holds most of it (the rest would be a read_range call for a few lines),
  // or when it costs little more than its excerpt. Only if a line of it was picked: a chunk found
  // by its path alone (a file's header comment and imports, under `eqeqeq.js`) says nothing more
  // whole than its location does, and its one-line snippet stands in.
  const all = new Set(nonBlank);
  const wholeCost = costOf(all);
  const mostlyPrinted = chosen.size >= all.size * MOSTLY_PRINTED_SHARE;
  const withinAllowance = hits.length > 0 && all.size <= maxLines && (all.size <= SMALL_CHUNK_LINES || mostlyPrinted);
  if (wholeCost <= budget && (withinAllowance || (chosen.size > 0 && wholeCost <= used + WHOLE_CHUNK_SLACK_BYTES))) {
    chosen.clear();
    for (const i of all) chosen.add(i);
  }
  if (chosen.size === 0) return { text: '', runs: [] };

  const rendered = renderRuns(lines, result.startLine, chosen);
  return bytes(rendered.text) <= budget ? rendered : { text: '', runs: [] };
}

/** The picked lines (0-based in the chunk) numbered as in the file; blank lines between two picked ones are printed, longer skips marked. */
function renderRuns(lines: readonly string[], startLine: number, picked: Set<number>): { text: string; runs: Array<[number, number]> } {
  const runs: Array<[number, number]> = [];
  let out = '';
  for (const i of [...picked].sort((a, b) => a - b)) {
    const last = runs.at(-1);
    const from = last ? last[1] - startLine + 1 : 0;
    if (last && lines.slice(from, i).every((l) => l.trim() === '')) {
      for (let j = from; j < i; j++) out += numberedLine(startLine + j, '');
      last[1] = startLine + i;
    } else {
      if (last) out += GAP;
      runs.push([startLine + i, startLine + i]);
    }
    out += numberedLine(startLine + i, oneLine(lines[i]!, MAX_LINE_CHARS));
  }
  return { text: out, runs };
}

/**
 * The whole statement a matched line belongs to, when it is short: the block the line opens, or
 * the statement of an opener above it (`if (…) {`, `context.report({`), the outermost within
 * MAX_STATEMENT_LINES, with the comment lines right above it. A statement printed
 * whole answers "what happens then"; one cut at its middle leaves the reader to guess its end.
 * Undefined when the line stands alone (a one-line statement in a long block) or even its own
 * block is longer: the context around it says more than a statement can.
 */
function statementAround(lines: readonly string[], at: number, maxLines = MAX_STATEMENT_LINES): number[] | undefined {
  const indent = (i: number) => /^\s*/.exec(lines[i]!)![0].length;
  const blank = (i: number) => lines[i]!.trim() === '';
  let head = codeBelow(lines, at);
  /** The first line of the statement whose head ends at `i`: `) {` closes a head broken over lines. */
  const startOf = (i: number): number => {
    if (!CLOSER_LINE.test(lines[i]!)) return i;
    for (let k = i - 1; k >= 0 && k >= i - maxLines; k--) if (!blank(k) && indent(k) <= indent(i) && !CLOSER_LINE.test(lines[k]!)) return k;
    return i;
  };
  /**
   * The last line of the statement starting at `start`: the lines indented deeper, through the
   * closer at its own level (`) {` and `} else {` go on); undefined past MAX_STATEMENT_LINES.
   */
  const endOf = (start: number): number | undefined => {
    const level = indent(start);
    let end = start;
    for (let i = start + 1; i < lines.length; i++) {
      if (blank(i)) continue;
      const closes = indent(i) <= level;
      if (closes && !CLOSER_LINE.test(lines[i]!)) break;
      if (i - start >= maxLines) return undefined;
      end = i;
      if (closes && !OPENS_BLOCK.test(lines[i]!)) break;
    }
    return end;
  };
  let best: [number, number] | undefined;
  for (;;) {
    const start = startOf(head);
    const end = endOf(start);
    if (end === undefined || end < at) break;
    best = [start, end];
    let opener = start - 1;
    while (opener >= 0 && (blank(opener) || indent(opener) >= indent(start))) opener--;
    if (opener < 0) break;
    head = opener;
  }
  if (!best || best[0] === best[1]) return undefined;
  let first = best[0];
  while (first > 0 && COMMENT_LINE.test(lines[first - 1]!)) first--;
  return Array.from({ length: best[1] - first + 1 }, (_, k) => first + k);
}

/**
 * The statement around a matched line that holds the most of the query's words (the fewest lines
 * among equals), with the head of the block it sits in when that is the line right above it (the
 * `if` that says when it runs) and the assignments above it of what its head tests; its lines and
 * the weight of the words it holds. `firstCode` is the chunk's first line of code (its signature's).
 */
function densestPassage(
  lines: readonly string[],
  scores: readonly number[],
  terms: string[],
  firstCode: number,
): { lines: number[]; score: number } | undefined {
  const indent = (i: number) => /^\s*/.exec(lines[i]!)![0].length;
  let best: { lines: number[]; score: number } | undefined;
  const seen = new Set<string>();
  for (const [at, score] of scores.entries()) {
    if (score === 0) continue;
    const statement = statementAround(lines, at, MAX_PASSAGE_LINES - 1);
    if (!statement) continue;
    const key = `${statement[0]}-${statement.at(-1)}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const above = statement[0]! - 1;
    const passage = above >= 0 && lines[above]!.trim() !== '' && indent(above) < indent(statement[0]!) ? [above, ...statement] : statement;
    // The symbol's whole body is the small-chunk rule's business, not a passage within it.
    if (passage.length > MAX_PASSAGE_LINES || passage[0]! <= firstCode) continue;
    passage.unshift(...inputsAbove(lines, passage, firstCode));
    const weight = lineScore(passage.map((i) => lines[i]).join('\n'), terms);
    if (!best || weight > best.score || (weight === best.score && passage.length < best.lines.length)) best = { lines: passage, score: weight };
  }
  return best;
}

/**
 * The switch case whose labels hold the most of the query's words (`case "global":` asked about
 * global comments), from its labels to the line before the next case or the switch's end: the
 * branch that handles what was asked, whole, however few of the query's words its body holds.
 * Undefined when no label holds a query word, or the case is over MAX_CASE_LINES.
 */
function labelledCase(lines: readonly string[], terms: string[]): number[] | undefined {
  const caseAt = (i: number, indent: string): boolean => CASE_LINE.exec(lines[i] ?? '')?.[1] === indent;
  let best: { at: number; indent: string; score: number } | undefined;
  for (const [at, line] of lines.entries()) {
    const label = CASE_LINE.exec(line);
    const score = label ? lineScore(label[2]!, terms) : 0;
    if (score > (best?.score ?? 0)) best = { at, indent: label![1]!, score };
  }
  if (!best) return undefined;
  // Labels stacked on one body (`case "globals":` over `case "global":`) are one case.
  let start = best.at;
  while (caseAt(start - 1, best.indent)) start--;
  let end = best.at;
  while (caseAt(end + 1, best.indent)) end++;
  const opensBlock = OPENS_BLOCK.test(lines[end]!);
  for (let i = end + 1; i < lines.length; i++) {
    const line = lines[i]!;
    if (line.trim() === '') continue;
    const indent = /^\s*/.exec(line)![0].length;
    if (indent < best.indent.length) break;
    if (indent === best.indent.length) {
      if (CASE_LINE.test(line) || DEFAULT_LINE.test(line)) break;
      if (CLOSER_LINE.test(line)) {
        // A braced case (`case "eslint": {`) ends with its own brace; otherwise the brace is the switch's.
        if (opensBlock) end = i;
        break;
      }
    }
    end = i;
  }
  return end - start + 1 <= MAX_CASE_LINES ? Array.from({ length: end - start + 1 }, (_, k) => start + k) : undefined;
}

/**
 * The one-line assignments right above a passage of the names its head tests (`const match =
 * newSri.match(sri)` above `if (match || …)`), nearest last, as many as fit in MAX_PASSAGE_LINES:
 * a condition printed without what it tests leaves the reader a read_range away from its meaning.
 * Of the 60 answers of bench/agent-bytes.ts it changed ssri's alone, which it printed in full.
 */
function inputsAbove(lines: readonly string[], passage: readonly number[], firstCode: number): number[] {
  const head = lines[passage.find((i) => !COMMENT_LINE.test(lines[i]!)) ?? passage[0]!]!;
  const inputs: number[] = [];
  for (let k = passage[0]! - 1; k > firstCode && passage.length + inputs.length < MAX_PASSAGE_LINES; k--) {
    const line = lines[k]!;
    const name = ONE_LINE_ASSIGNMENT.exec(line)?.[1];
    if (!name || OPENS_BLOCK.test(line) || LEFT_OPEN.test(line) || !holdsWord(head, name)) break;
    inputs.unshift(k);
  }
  return inputs;
}

/** Whether `text` holds `name` as a whole identifier, not inside a longer one. */
function holdsWord(text: string, name: string): boolean {
  const identifierChar = /[\w$]/;
  for (let at = text.indexOf(name); at !== -1; at = text.indexOf(name, at + 1)) {
    if (!identifierChar.test(text[at - 1] ?? ' ') && !identifierChar.test(text[at + name.length] ?? ' ')) return true;
  }
  return false;
}

/**
 * The lines that finish the expression `at` leaves open (`const tooManyWarnings =`, `if (a &&`,
 * `log.error(`, a macro line ending in `\`), or none when it is finished or takes more than
 * MAX_CONTINUATION_LINES to finish; none for a comment. Strings and line comments are blanked
 * first, so a `(` in a message or an `=` in a comment does not count.
 */
function continuation(lines: readonly string[], at: number): number[] {
  if (COMMENT_LINE.test(lines[at]!)) return [];
  const out: number[] = [];
  let depth = 0;
  for (let i = at; i < lines.length; i++) {
    // A line longer than is printed is cut with `…` (minified code, data): no expression to finish.
    if (lines[i]!.length > MAX_LINE_CHARS) return [];
    const code = codeOf(lines[i]!);
    for (const ch of code) {
      if (ch === '(' || ch === '[') depth++;
      else if (ch === ')' || ch === ']') depth--;
    }
    if (i > at) out.push(i);
    if (depth <= 0 && !LEFT_OPEN.test(code)) return out;
    if (out.length === MAX_CONTINUATION_LINES) return [];
  }
  return [];
}

/** A code line with its one-line strings and its line comment blanked, so that only its code's brackets and operators count. */
function codeOf(line: string): string {
  return line.replace(QUOTED, '""').replace(/\/\/.*$/, '');
}

/**
 * The call a line is an argument of, with the calls that hold it up to the statement they make, at
 * most MAX_STATEMENT_LINES long: `assert.strictEqual(…, util.format("Should have no errors…", …))`
 * around its message. An object or an array passed to a call (`context.report({`) is the call's.
 * Undefined when the line is no argument of a call: an item of a list or of an object literal.
 */
function callAround(lines: readonly string[], at: number): number[] | undefined {
  let start = at;
  let depth = 0;
  climb: for (let i = at - 1; i >= 0 && at - i < MAX_STATEMENT_LINES; i--) {
    if (COMMENT_LINE.test(lines[i]!)) continue;
    const code = codeOf(lines[i]!);
    for (let k = code.length - 1; k >= 0; k--) {
      const ch = code[k]!;
      if (ch === ')' || ch === ']' || ch === '}') depth--;
      else if (ch === '(' || ch === '[' || ch === '{') {
        depth++;
        // An unclosed bracket above holds the line: a call's goes on up, a block's or a literal's is as far as it goes.
        if (depth > 0 && ch !== '(' && !/\(\s*$/.test(code.slice(0, k))) break climb;
      }
    }
    if (depth > 0) {
      start = i;
      depth = 0;
    }
  }
  if (start === at) return undefined;
  let open = 0;
  for (let i = start; i < lines.length && i - start < MAX_STATEMENT_LINES; i++) {
    if (COMMENT_LINE.test(lines[i]!)) continue;
    for (const ch of codeOf(lines[i]!)) {
      if (ch === '(' || ch === '[' || ch === '{') open++;
      else if (ch === ')' || ch === ']' || ch === '}') open--;
    }
    if (open <= 0 && i >= at) return Array.from({ length: i - start + 1 }, (_, k) => start + k);
  }
  return undefined;
}

/**
 * The line a matched line speaks for: itself, or for a comment (and the blank lines after it) the
 * code line below, within a few lines. A matched comment is about the code below it.
 */
function codeBelow(lines: readonly string[], at: number): number {
  let i = at;
  while (i + 1 < lines.length && (COMMENT_LINE.test(lines[i]!) || lines[i]!.trim() === '') && i - at < CONTEXT_BELOW + 2) i++;
  return i;
}

/**
 * The lines worth printing around a matched line, most useful first: CONTEXT_ABOVE lines above;
 * for a matched comment, the code below it; the block the line opens (the lines below indented
 * deeper, with the line that closes it); the statement it sits in (the nearest line above indented
 * less, then the rest of that statement down to its closer) and CONTEXT_BELOW lines after; then
 * the statement around that one. Blocks are cut at MAX_BLOCK_LINES.
 */
function contextOf(lines: readonly string[], at: number): number[] {
  const indent = (i: number) => /^\s*/.exec(lines[i]!)![0].length;
  const blank = (i: number) => lines[i]!.trim() === '';
  const out: number[] = [];
  for (let d = 1; d <= CONTEXT_ABOVE; d++) out.push(at - d);
  // That code's block is the context.
  const anchor = codeBelow(lines, at);
  for (let i = at + 1; i <= anchor; i++) out.push(i);
  /** The lines after `from` indented deeper than `level`, and the closer that ends them; the index after the last. */
  const blockBelow = (from: number, level: number): number => {
    let i = from + 1;
    for (let taken = 0; i < lines.length && taken < MAX_BLOCK_LINES; i++, taken++) {
      if (blank(i)) continue;
      if (indent(i) <= level) {
        // The closer (`}`, `)`, `]`) belongs to the block.
        if (CLOSER_LINE.test(lines[i]!)) out.push(i++);
        break;
      }
      out.push(i);
    }
    return i;
  };
  let after = blockBelow(anchor, indent(anchor));
  // The statements it sits in (`if (…) {`, `context.report({`): the nearest lines above indented less, each less than the last.
  let level = indent(anchor);
  for (let j = at - 1, openers = 0; j >= 0 && j >= at - MAX_BLOCK_LINES && openers < MAX_OPENERS && level > 0; j--) {
    if (blank(j) || indent(j) >= level) continue;
    out.push(j);
    level = indent(j);
    // `) {` ends a head broken over lines (`if (\n a &&\n b\n) {`): its first line says what the statement is.
    if (CLOSER_LINE.test(lines[j]!)) {
      for (let k = j - 1; k >= 0 && k >= j - MAX_BLOCK_LINES; k--) {
        if (blank(k) || indent(k) > level) {
          out.push(k);
          continue;
        }
        if (indent(k) === level && !CLOSER_LINE.test(lines[k]!)) out.push(k);
        break;
      }
    }
    if (openers === 0) after = Math.max(after, blockBelow(Math.max(after - 1, anchor), level));
    openers++;
  }
  for (let d = 0; d < CONTEXT_BELOW; d++) out.push(after + d);
  return out.filter((j) => j >= 0 && j < lines.length);
}

/**
 * The lines that declare the chunk's symbol: after the comments and decorators above it, up to the
 * line that opens its body (`{`, a trailing `:` or `=>`, `=`), at most MAX_SIGNATURE_LINES.
 */
export function signatureLines(lines: readonly string[]): number[] {
  let i = 0;
  let inBlockComment = false;
  for (; i < lines.length; i++) {
    const line = lines[i]!.trim();
    if (inBlockComment) {
      if (line.includes('*/')) inBlockComment = false;
      continue;
    }
    if (line === '' || line.startsWith('//') || line.startsWith('#') || line.startsWith('@') || line.startsWith('--')) continue;
    if (line.startsWith('/*')) {
      inBlockComment = !line.includes('*/');
      continue;
    }
    break;
  }
  const out: number[] = [];
  for (; i < lines.length && out.length < MAX_SIGNATURE_LINES; i++) {
    out.push(i);
    const line = lines[i]!.replace(/\s*(?:\/\/.*|\/\*.*\*\/\s*)$/, '').trimEnd();
    if (/[{:;]$|=>$|=$|\)$/.test(line)) break;
  }
  return out;
}

/** The query's words, lowercased, with common English endings cut so `installing` finds `install`. */
export function queryTerms(query: string): string[] {
  const words = query
    .toLowerCase()
    .split(/[^\p{L}\p{N}_]+/u)
    .filter((w) => w.length > 1);
  return [...new Set(words.map(stem))];
}

function stem(word: string): string {
  if (word.length <= 4) return word;
  return word.replace(/(?:ies|ing|ed|es|s|ly)$/, '');
}

/** How many of the query's terms the line holds, the longer (rarer) terms counting more. */
export function lineScore(line: string, terms: string[]): number {
  const lower = line.toLowerCase();
  let score = 0;
  for (const term of terms) if (holds(lower, term)) score += termWeight(term);
  return score;
}

export function termWeight(term: string): number {
  return Math.min(3, term.length / 3);
}

/** Whether the line holds the term: anywhere for a long one (`radix` in `isValidRadix`), as a word for a short one (`ci` not in `decision`). */
function holds(lower: string, term: string): boolean {
  if (term.length > SHORT_TERM_CHARS) return lower.includes(term);
  for (let at = lower.indexOf(term); at !== -1; at = lower.indexOf(term, at + 1)) {
    if (!WORD_CHAR.test(lower[at - 1] ?? ' ') && !WORD_CHAR.test(lower[at + term.length] ?? ' ')) return true;
  }
  return false;
}
