// Source code is chunked by symbol: one chunk per function, method, class or struct, titled by
// its path (`ContentStore > searchWithFallback`). A class that fits under the cap stays whole; a
// bigger one becomes a header chunk (its lines outside its methods) plus one chunk per method, so
// no method is indexed twice. Code between symbols is chunked too, titled `<file> (top level)` at
// file level and by the enclosing symbol inside one: nothing is dropped. Comments, decorators and
// attributes right above a symbol belong to it.
//
// The result is null when the tree cannot be trusted (parse timed out, mostly errors, input too
// big or minified for a syntax tree to help); the caller then falls back to line windows.

import type { Language, Node, Parser, Range } from '@vscode/tree-sitter-wasm';
import type { ChunkDraft } from '../types.ts';
import { emitRange } from './byte-cap.ts';
import { LEADING_TYPES, symbolName, type CodeLanguage, type NodeRule } from './code-languages.ts';
import { isBlank, rangeBytes, trimBlankLines, type SourceLines } from './lines.ts';
import { hiddenRanges, MACRO_NAME } from './skeleton.ts';
import { DEFINING_MACRO } from './text.ts';

/** Larger inputs go straight to line windows: a tree would cost seconds and help little. */
const MAX_PARSE_CHARS = 4_000_000;
/** Mean characters per line above which a file is minified or data, not code a person reads. */
const MINIFIED_MEAN_LINE = 300;
/**
 * A parse gets 1 s plus 5 ms per 1,000 characters, at most 10 s: twenty times and more what an
 * ordinary file needs (0.1–0.3 ms per 1,000 characters), so that only pathological input (error
 * recovery that turns quadratic) is cut short, and a busy machine never turns a file's symbols
 * into line windows — the index must not depend on the load it was built under. tree-sitter's
 * progress steps cannot bound this instead: in that quadratic case each step costs ever more.
 */
const PARSE_BASE_MS = 1000;
const PARSE_MS_PER_KB = 5;
const PARSE_MAX_MS = 10_000;
/**
 * Share of the lines the parser could not make sense of above which symbols found would be mostly
 * guesses. An ERROR node often wraps good declarations (a macro it misread at the top of a header
 * puts the whole file in one ERROR); only its lines outside any recognised child count.
 */
const MAX_ERROR_SHARE = 0.5;
/** Nesting of scopes, containers and transparent nodes we follow; deeper code stays in its ancestor. */
const MAX_DEPTH = 24;
/**
 * A paragraph of at most this many lines and bytes may join a symbol rather than be a chunk of its
 * own: a statement right below it (`EXPORT_SYMBOL(f);`), lines that close it (`}`, `#endif`) below
 * it, lines that open it (`#ifdef X`) above it, blank lines between or not.
 */
const TRIVIAL_LINES = 2;
const TRIVIAL_BYTES = 120;
/** What lines that open what follows them hold: `#if`, `#ifdef`, a label, a macro alone on its line. */
const OPENS = String.raw`#\s*(?:if|ifdef|ifndef)\b.*|\w+\s*:|${MACRO_NAME}`;
/** What lines that close what is above them hold: `#endif`, `#else`, `}`, Ruby's `end`. */
const CLOSES = String.raw`#\s*(?:elif|else|endif)\b.*|(?:end|fi|done|esac)\b|[^\p{L}\p{N}/]*`;
/** A line's trailing comment. */
const TRAILING_COMMENT = String.raw`(?:\/\/.*|\/\*.*)?`;
/**
 * Lines that may join a symbol they do not touch, or the symbol below them: preprocessor
 * conditionals, labels (`public:`), closers (`}  // namespace store`, Ruby's `end`), and a macro
 * alone on its line (`YY_ATTRIBUTE_UNUSED` above a function), which the parser does not see.
 */
const LEADING_LINE = new RegExp(String.raw`^\s*(?:${OPENS}|${CLOSES})\s*${TRAILING_COMMENT}$`, 'u');
/** Of those, the lines that open what follows them; the others close what is above them. */
const OPENING_LINE = new RegExp(String.raw`^\s*(?:${OPENS})\s*${TRAILING_COMMENT}$`, 'u');

/** A defining macro called at the margin: `TRACE_EVENT(`, not `EXPORT_SYMBOL(` (text.ts). */
const MACRO_CALL = new RegExp(String.raw`^(${DEFINING_MACRO})\(`);
/**
 * A macro call's first argument, and its second, when they are names: `(sched_switch,`,
 * `(sched_wakeup_template, sched_waking,`; not `(acpi_status acpi_load_table(…))`.
 */
const MACRO_NAMES = /\(\s*([A-Za-z_]\w*)\s*(?:\)|,(?:\s*([A-Za-z_]\w*)\s*[,)])?)/;
/** A first argument that is a type (`LSM_HOOK(int, 0, …)`) names nothing. */
const C_TYPE_WORDS = new Set([
  'void',
  'int',
  'char',
  'short',
  'long',
  'unsigned',
  'signed',
  'float',
  'double',
  'bool',
  'struct',
  'union',
  'enum',
  'const',
  'static',
]);
/** Lines a macro call is followed over for its closing parenthesis. */
const MAX_MACRO_CALL_LINES = 400;

/** A line of a comment, block comments' inner lines included. */
const COMMENT_ABOVE = /^\s*(?:\/\/|\/\*|\*)/;

/** A line that opens with a comment, `//` or `/*`. */
const COMMENT_LINE = /^\s*(?:\/\/|\/\*)/;

/** A line holding only a macro's name, without a label's colon: `ATTRIBUTE_TARGET_POPCNT` (see `macroLinesAbove`). */
const MACRO_LINE = new RegExp(String.raw`^\s*${MACRO_NAME}\s*$`);

/** Lines only C++ has: `class Foo {`, `namespace x {`, `template <…>`, access labels. */
const LOOKS_LIKE_CPP = /^[ \t]*(?:class[ \t]+\w+[^;(]*[{:]|namespace(?:[ \t]+[\w:]+)?[ \t]*\{|template[ \t]*<|(?:public|private|protected)[ \t]*:)/m;

interface Item {
  /** 0-based, inclusive, including leading comments. */
  start: number;
  end: number;
  path: string[];
  /** The node whose body holds members; null for leaves. */
  container: Node | null;
}

/** Lines of a scope: a symbol, or the code between symbols (joined: it went into a neighbouring symbol). */
interface Segment {
  start: number;
  end: number;
  item: Item | null;
  joined: boolean;
}

interface Context {
  src: SourceLines;
  spec: CodeLanguage;
  maxBytes: number;
  errorLines: number;
}

export function chunkCode(src: SourceLines, text: string, spec: CodeLanguage, language: Language, parser: Parser, maxBytes: number): ChunkDraft[] | null {
  if (text.length > MAX_PARSE_CHARS || text.length / src.lines.length > MINIFIED_MEAN_LINE) return null;
  parser.setLanguage(language);
  if (spec.skeleton) {
    // `.h` is C by name, but C++ headers use it too; their classes must not be hidden whole.
    const mode = spec.skeleton === 'c' && LOOKS_LIKE_CPP.test(text) ? 'cpp' : spec.skeleton;
    const hidden = hiddenRanges(text, mode);
    if (hidden.length > 0) {
      const chunks = parseAndChunk(src, text, spec, parser, maxBytes, hidden);
      if (chunks) return chunks;
    }
  }
  return parseAndChunk(src, text, spec, parser, maxBytes, []);
}

function parseAndChunk(src: SourceLines, text: string, spec: CodeLanguage, parser: Parser, maxBytes: number, hidden: readonly number[]): ChunkDraft[] | null {
  const deadline = performance.now() + Math.min(PARSE_MAX_MS, PARSE_BASE_MS + (PARSE_MS_PER_KB * text.length) / 1000);
  const tree = parser.parse(hidden.length > 0 ? readUpToBoundary(text, hidden) : text, null, {
    ...(hidden.length > 0 ? { includedRanges: includedRanges(src, text, hidden) } : {}),
    // Returning true cancels the parse; parse() then returns null.
    progressCallback: () => performance.now() > deadline,
  });
  if (!tree) {
    // A cancelled parse would otherwise resume on the next call, with the next file's text.
    parser.reset();
    return null;
  }
  try {
    const ctx: Context = { src, spec, maxBytes, errorLines: 0 };
    const root = tree.rootNode;
    // The root itself is an ERROR when the parser never got back on its feet (an `extern "C" {`
    // closed in a different #if branch than it opened): judged like any other ERROR node.
    if (root.type === 'ERROR') ctx.errorLines += unparsedLines(root, 0, src.lines.length - 1);
    const items: Item[] = [];
    collect(ctx, root, [], 0, items);
    if (ctx.errorLines > src.lines.length * MAX_ERROR_SHARE) return null;
    const out: ChunkDraft[] = [];
    emitScope(ctx, out, items, 0, src.lines.length - 1, `${src.fileName} (top level)`, false, 0);
    return out;
  } finally {
    // Trees live in wasm memory, which no garbage collector frees.
    tree.delete();
  }
}

/** Finds the symbols among the children of `parent`, in order, looking through scopes and transparent nodes. */
function collect(ctx: Context, parent: Node, path: readonly string[], depth: number, items: Item[]): void {
  let leadStart = -1;
  let leadEnd = -1;
  let previousEnd = -1;
  for (const node of parent.namedChildren) {
    if (!node) continue;
    const start = node.startPosition.row;
    const end = endRow(node);
    if (LEADING_TYPES.has(node.type)) {
      // Only a comment on its own line leads; `x = 1; // note` trails the code before it.
      if (start <= previousEnd) leadStart = -1;
      else if (leadStart >= 0 && start <= leadEnd + 1) leadEnd = end;
      else [leadStart, leadEnd] = [start, end];
      continue;
    }
    if (node.type === 'ERROR') ctx.errorLines += unparsedLines(node, start, end);
    const symbol = resolve(ctx.spec, node, end - start + 1);
    if (symbol && depth < MAX_DEPTH) {
      const { rule, target } = symbol;
      if (rule.role === 'transparent') collect(ctx, target, path, depth + 1, items);
      else if (rule.role === 'scope') {
        const body = bodyOf(ctx.spec, target);
        const first = items.length;
        if (body) collect(ctx, body, target.childForFieldName('name') ? [...path, symbolName(target, ctx.spec)] : path, depth + 1, items);
        // `namespace store {` is no chunk of its own: it leads the scope's first symbol.
        const member = items[first];
        if (member && member.start > start && isTrivial(ctx.src, start, member.start - 1)) member.start = start;
      } else {
        const head = ctx.spec.skeleton ? macroLinesAbove(ctx.src, start) : start;
        items.push({
          start: leadStart >= 0 && leadEnd >= head - 1 ? leadStart : head,
          end,
          path: [...path, symbolName(target, ctx.spec)],
          container: rule.role === 'container' ? target : null,
        });
      }
    }
    leadStart = -1;
    previousEnd = Math.max(previousEnd, end);
  }
}

/** Lines of an ERROR node outside its recognised children (nested ERRORs count on their own). */
function unparsedLines(error: Node, start: number, end: number): number {
  let covered = 0;
  let coveredUntil = start - 1;
  for (const child of error.namedChildren) {
    if (!child || child.type === 'ERROR') continue;
    const childEnd = endRow(child);
    if (childEnd > coveredUntil) {
      covered += childEnd - Math.max(child.startPosition.row, coveredUntil + 1) + 1;
      coveredUntil = childEnd;
    }
  }
  return end - start + 1 - covered;
}

/** The rule for a node, looking inside wrappers (`export`, decorators, `template <…>`) for what they wrap. */
function resolve(spec: CodeLanguage, node: Node, lines: number): { rule: NodeRule; target: Node } | null {
  let target = node;
  for (let hops = 0; hops < 4; hops++) {
    const rule = spec.rules[target.type];
    if (!rule) return null;
    if (rule.role !== 'wrapper') return lines >= (rule.minLines ?? 1) ? { rule, target } : null;
    const inner = target.namedChildren.find((child) => child && spec.rules[child.type] && !LEADING_TYPES.has(child.type));
    if (!inner) return null;
    target = inner;
  }
  return null;
}

function bodyOf(spec: CodeLanguage, node: Node): Node | null {
  const members = spec.members?.(node);
  if (members !== undefined) return members;
  const body = node.childForFieldName('body');
  if (body) return body;
  const last = node.lastNamedChild;
  return last && last.type === 'block' ? last : null;
}

/**
 * Emits lines scopeStart..scopeEnd: each item as a symbol chunk, the code between them as chunks
 * titled `gapTitle`. Trivial paragraphs next to a symbol join it rather than become chunks of their
 * own: below f, an `EXPORT_SYMBOL(f);` and the `}` or `#endif` that close it; above it, the
 * `#ifdef X` it depends on. A container's first run is its header and always stays a chunk, so the
 * class itself can be found by its title.
 */
function emitScope(
  ctx: Context,
  out: ChunkDraft[],
  items: Item[],
  scopeStart: number,
  scopeEnd: number,
  gapTitle: string,
  inContainer: boolean,
  depth: number,
): void {
  const segments: Segment[] = [];
  let cursor = scopeStart;
  const macroCalls = ctx.spec.skeleton && !inContainer ? macroCallItems(ctx.src, items, scopeStart, scopeEnd) : [];
  const symbols = macroCalls.length > 0 ? [...items, ...macroCalls].sort((a, b) => a.start - b.start) : items;
  for (const item of symbols) {
    const previous = segments[segments.length - 1];
    if (previous?.item && item.start <= previous.item.end) {
      // Two symbols on one line cannot be told apart by line ranges: they share a chunk.
      previous.item.end = Math.max(previous.item.end, item.end);
      previous.item.container = null;
      previous.end = previous.item.end;
      cursor = previous.end + 1;
      continue;
    }
    if (item.start > cursor) segments.push({ start: cursor, end: item.start - 1, item: null, joined: false });
    segments.push({ start: item.start, end: item.end, item, joined: false });
    cursor = item.end + 1;
  }
  if (cursor <= scopeEnd) segments.push({ start: cursor, end: scopeEnd, item: null, joined: false });

  segments.forEach((segment, i) => {
    if (segment.item) return;
    let rest = trimBlankLines(ctx.src, segment.start, segment.end);
    const before = segments[i - 1]?.item;
    const after = segments[i + 1]?.item;
    // In a class, a field below a method is the class's, not the method's.
    let touching = Boolean(before && rest && before.end + 1 === rest[0]) && !inContainer;
    while (before && rest) {
      const [start, end] = rest;
      const first = paragraphEnd(ctx.src, start, end);
      if (!isTrivial(ctx.src, start, first) || anyLine(ctx.src, start, first, OPENING_LINE)) break;
      // A comment a blank line below a symbol heads what follows it.
      if (!touching && !(leadsInto(ctx.src, start, first) && !anyLine(ctx.src, start, first, COMMENT_LINE))) break;
      before.end = first;
      rest = trimBlankLines(ctx.src, first + 1, end);
      touching = false;
    }
    // A container's first run is its header, kept a chunk of its own.
    const isHeader = inContainer && segment.start === scopeStart;
    while (after && rest && !isHeader) {
      const [start, end] = rest;
      const last = paragraphStart(ctx.src, start, end);
      if (!isTrivial(ctx.src, last, end) || !leadsInto(ctx.src, last, end)) break;
      const heads = anyLine(ctx.src, last, end, OPENING_LINE) || anyLine(ctx.src, last, end, COMMENT_LINE);
      if (after.start - 1 !== end && !heads) break;
      after.start = last;
      rest = trimBlankLines(ctx.src, start, last - 1);
    }
    if (rest) [segment.start, segment.end] = rest;
    else segment.joined = true;
  });

  for (const segment of segments) {
    if (segment.item) emitItem(ctx, out, segment.item, depth);
    else if (!segment.joined) emitRange(out, ctx.src, segment.start, segment.end, gapTitle, 'code', ctx.maxBytes);
  }
}

/**
 * The macro calls at the margin that span lines between the items of a scope, as items of their
 * own: in C and C++ they define what the grammar cannot see (the kernel's `TRACE_EVENT(sched_switch,
 * …)`, MicroPython's `MP_DEFINE_CONST_OBJ_TYPE(machine_uart_type, …)`). Each is titled by the macro
 * and its first arguments that are names, and takes the comment right above it, as a symbol does.
 */
function macroCallItems(src: SourceLines, items: readonly Item[], scopeStart: number, scopeEnd: number): Item[] {
  const found: Item[] = [];
  let next = 0;
  // The first line not in a symbol or a call found: a comment above a call goes no higher.
  let free = scopeStart;
  for (let i = scopeStart; i <= scopeEnd; i++) {
    while (next < items.length && (items[next] as Item).end < i) next++;
    const item = items[next];
    if (item && item.start <= i) {
      i = item.end;
      free = i + 1;
      continue;
    }
    const macro = MACRO_CALL.exec(src.lines[i] as string)?.[1];
    const call = macro === undefined ? undefined : macroCall(src, i, Math.min(scopeEnd, (item?.start ?? scopeEnd + 1) - 1));
    if (!call) continue;
    let head = i;
    while (head > free && COMMENT_ABOVE.test(src.lines[head - 1] as string)) head--;
    found.push({ start: head, end: call.end, path: [`${macro}(${call.names.join(', ')})`], container: null });
    i = call.end;
    free = i + 1;
  }
  return found;
}

/**
 * The last line and the leading name arguments (at most two) of the macro call that opens line
 * `start`, when it spans lines and ends by `end`; parentheses are counted outside strings and comments.
 */
function macroCall(src: SourceLines, start: number, end: number): { end: number; names: string[] } | undefined {
  const last = Math.min(end, start + MAX_MACRO_CALL_LINES);
  let depth = 0;
  let text = '';
  for (let i = start; i <= last; i++) {
    const line = (src.lines[i] as string).replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|\/\/.*|\/\*.*?\*\//g, '""');
    text += `${line}\n`;
    for (const char of line) {
      if (char === '(') depth++;
      else if (char === ')' && --depth === 0) {
        const names = MACRO_NAMES.exec(text);
        if (i === start || !names || C_TYPE_WORDS.has(names[1] as string)) return undefined;
        return { end: i, names: names.slice(1).filter((name) => name !== undefined) };
      }
    }
  }
  return undefined;
}

function emitItem(ctx: Context, out: ChunkDraft[], item: Item, depth: number): void {
  const title = item.path.join(' > ');
  if (item.container && depth < MAX_DEPTH && rangeBytes(ctx.src, item.start, item.end) > ctx.maxBytes) {
    const body = bodyOf(ctx.spec, item.container);
    const members: Item[] = [];
    if (body) collect(ctx, body, item.path, depth + 1, members);
    if (members.length > 0) {
      emitScope(ctx, out, members, item.start, item.end, title, true, depth + 1);
      return;
    }
  }
  emitRange(out, ctx.src, item.start, item.end, title, 'code', ctx.maxBytes);
}

/**
 * The first of the lines right above `row` that hold only a macro's name: the skeleton hides them
 * from the parser (`withUnparsedLines`), but `ATTRIBUTE_TARGET_POPCNT` above redis's
 * `redisPopcount` is the function's, and so is the comment above it.
 */
function macroLinesAbove(src: SourceLines, row: number): number {
  let first = row;
  // Not the last line of a multi-line `#define`: that one is the directive's.
  while (first > 0 && MACRO_LINE.test(src.lines[first - 1] as string) && !src.lines[first - 2]?.endsWith('\\')) first--;
  return first;
}

/** The last line of the paragraph (run of non-blank lines) that starts at `start`. */
function paragraphEnd(src: SourceLines, start: number, end: number): number {
  let e = start;
  while (e < end && !isBlank(src.lines[e + 1] as string)) e++;
  return e;
}

/** The first line of the paragraph that ends at `end`. */
function paragraphStart(src: SourceLines, start: number, end: number): number {
  let s = end;
  while (s > start && !isBlank(src.lines[s - 1] as string)) s--;
  return s;
}

/**
 * Whether lines only open or close a block: `#ifdef X`, `public:`, `}`. A statement right below a
 * symbol nearly always finishes it (`EXPORT_SYMBOL(f);`), but a statement above one is seldom
 * about it, and a statement a blank line away is about neither.
 */
function leadsInto(src: SourceLines, start: number, end: number): boolean {
  for (let i = start; i <= end; i++) {
    if (!LEADING_LINE.test(src.lines[i] as string)) return false;
  }
  return true;
}

function anyLine(src: SourceLines, start: number, end: number, pattern: RegExp): boolean {
  for (let i = start; i <= end; i++) {
    if (pattern.test(src.lines[i] as string)) return true;
  }
  return false;
}

function isTrivial(src: SourceLines, start: number, end: number): boolean {
  return end - start + 1 <= TRIVIAL_LINES && rangeBytes(src, start, end) <= TRIVIAL_BYTES;
}

/** A node that ends at column 0 ends with a newline: its last line is the one before. */
function endRow(node: Node): number {
  const end = node.endPosition;
  return end.column === 0 && end.row > node.startPosition.row ? end.row - 1 : end.row;
}

/**
 * The parser reads its input in pieces; given the whole string it copies 5,000 characters at every
 * jump to the next included range, which in a skeleton parse is most of the parse's own cost.
 * This reader hands out text only up to the next range boundary.
 */
function readUpToBoundary(text: string, boundaries: readonly number[]): (index: number) => string {
  return (index) => {
    let low = 0;
    let high = boundaries.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      if ((boundaries[middle] as number) <= index) low = middle + 1;
      else high = middle;
    }
    return text.slice(index, Math.min(boundaries[low] ?? text.length, index + 4096));
  };
}

/** The complement of the hidden ranges, with the row/column positions tree-sitter wants. */
function includedRanges(src: SourceLines, text: string, hidden: readonly number[]): Range[] {
  const ranges: Range[] = [];
  let row = 0;
  let rowStart = 0;
  const position = (index: number): { row: number; column: number } => {
    while (row + 1 < src.lines.length && rowStart + (src.lines[row] as string).length < index) {
      rowStart += (src.lines[row] as string).length + 1;
      row++;
    }
    return { row, column: index - rowStart };
  };
  let from = 0;
  for (let k = 0; k < hidden.length; k += 2) {
    const to = hidden[k] as number;
    ranges.push({ startIndex: from, endIndex: to, startPosition: position(from), endPosition: position(to) });
    from = hidden[k + 1] as number;
  }
  ranges.push({ startIndex: from, endIndex: text.length, startPosition: position(from), endPosition: position(text.length) });
  return ranges;
}
