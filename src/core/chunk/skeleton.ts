// Tree-sitter in wasm reads C at roughly 3 MB/s, too slow for a kernel-sized tree. Chunking needs
// the outline of a C file (which functions, structs and macros exist, where they start and end),
// never what is inside a function body or a parameter list. So a fast scan finds those, and the
// parser is given the file minus their insides as `includedRanges`: it still sees
// `int f() {}` at the right rows, and every node's line range is that of the real source.
// Comments are hidden the same way (the parser sees `/**/`), since kernel files are a third
// comments. On the kernel's own sources this is 3-5× faster than a full parse and finds slightly
// more functions, because macro-laden bodies and argument lists no longer confuse the parser.
//
// The scan knows just enough C to match brackets: comments, string and character literals, C++
// raw strings, and preprocessor lines (skipped; each branch of #if/#else starts from the brace
// depth at the #if, so `#ifdef X\n if (a) {\n#else\n if (b) {\n#endif` counts one brace, not
// two). If it is fooled anyway, the parse comes out broken and the caller parses the whole text.
//
// A line that is nothing but a macro's name is hidden too, and the kernel's lock annotations
// (`withUnparsedLines`).

/**
 * `c`: hide the inside of every brace block at file level (bodies, struct fields, initialisers),
 * except `extern "C" {`. `cpp`: hide only function bodies and initialisers, because classes and
 * namespaces hold the methods we chunk. Both hide comments and the arguments of `name(…)`.
 */
export type SkeletonMode = 'c' | 'cpp';

/** Words after which `{` opens a C++ function body: `void f() const {`. */
const BODY_AFTER_WORD = new Set(['const', 'override', 'final', 'noexcept', 'mutable', 'volatile', 'try']);
/** `name(…)` whose parentheses the grammar needs to see filled: `__attribute__((packed))`, `sizeof(x)`. */
const KEEP_ARGUMENTS = new Set([
  '__attribute__',
  '__attribute',
  '__declspec',
  'sizeof',
  'typeof',
  '__typeof__',
  '__typeof',
  'alignof',
  '_Alignof',
  'alignas',
  '_Alignas',
  'decltype',
  'static_assert',
  '_Static_assert',
  'asm',
  '__asm__',
  '__asm',
  'noexcept',
  'requires',
]);
/** Shorter argument lists are left visible: hiding them would cost a range switch for no gain. */
const MIN_HIDDEN_ARGUMENTS = 8;

/** Characters the scan stops at; inside a hidden body only those that can end it matter. */
const SPECIAL = /[#/"'{}();]/g;
const SPECIAL_IN_BODY = /[#/"'{}]/g;

/** [start, end) UTF-16 offsets the parser should not see, ascending and disjoint. */
export function hiddenRanges(text: string, mode: SkeletonMode): number[] {
  const hidden: number[] = [];
  const n = text.length;
  const ppDepths: number[] = [];
  let depth = 0;
  /** Brace depth outside the body being hidden, or -1 when not inside one. */
  let bodyDepth = -1;
  let bodyStart = 0;
  /** Start of the argument list being hidden, or -1; and its parenthesis nesting. */
  let argsStart = -1;
  let argsNesting = 0;
  /** The last significant character outside comments and whitespace, and the offset after it. */
  let last = 0;
  let lastEnd = 0;
  let i = 0;
  while (i < n) {
    const pattern = bodyDepth < 0 ? SPECIAL : SPECIAL_IN_BODY;
    pattern.lastIndex = i;
    const special = pattern.exec(text);
    const at = special ? special.index : n;
    // Between special characters lies plain code: only its last non-blank character matters.
    let k = at - 1;
    while (k >= i && isSpace(text.charCodeAt(k))) k--;
    if (k >= i) {
      last = text.charCodeAt(k);
      lastEnd = k + 1;
    }
    if (!special) break;
    i = at;
    const c = text.charCodeAt(i);
    if (c === 0x23 && startsLine(text, i)) {
      const directive = /^#\s*([a-z]*)/.exec(text.slice(i, i + 32))?.[1] ?? '';
      if (directive.startsWith('if')) ppDepths.push(depth);
      else if (directive.startsWith('el')) depth = ppDepths[ppDepths.length - 1] ?? depth;
      else if (directive === 'endif') ppDepths.pop();
      i = endOfDirective(text, i);
      continue;
    }
    const next = text.charCodeAt(i + 1);
    if (c === 0x2f && next === 0x2f) {
      i = endOfLineComment(text, i);
      continue;
    }
    if (c === 0x2f && next === 0x2a) {
      const close = text.indexOf('*/', i + 2);
      const end = close < 0 ? n : close;
      if (bodyDepth < 0 && argsStart < 0 && end > i + 2) hidden.push(i + 2, end);
      i = close < 0 ? n : close + 2;
      continue;
    }
    if (c === 0x22) {
      i = mode === 'cpp' && text.charCodeAt(i - 1) === 0x52 ? endOfRawString(text, i) : endOfQuoted(text, i, c);
      [last, lastEnd] = [c, i];
      continue;
    }
    // After a digit, `'` is a C++14 digit separator (1'000'000), not a character literal.
    if (c === 0x27 && !isDigit(text.charCodeAt(i - 1))) {
      i = endOfQuoted(text, i, c);
      [last, lastEnd] = [c, i];
      continue;
    }
    if (bodyDepth < 0) {
      if (c === 0x28) {
        if (argsStart >= 0) argsNesting++;
        else if (isWordChar(text.charCodeAt(i - 1)) && !KEEP_ARGUMENTS.has(wordBefore(text, i))) {
          argsStart = i + 1;
          argsNesting = 1;
        }
      } else if (c === 0x29) {
        if (argsStart >= 0 && --argsNesting === 0) {
          if (i - argsStart > MIN_HIDDEN_ARGUMENTS) hidden.push(argsStart, i);
          argsStart = -1;
        }
      } else if (c === 0x3b || c === 0x7b || c === 0x7d) {
        // No argument list holds `;` or braces: the scan was fooled (unbalanced parentheses
        // across #if branches, say); stop hiding rather than hide half the file.
        argsStart = -1;
      }
    }
    if (c === 0x7b) {
      if (bodyDepth < 0 && opensBody(text, mode, depth, last, lastEnd)) {
        bodyDepth = depth;
        bodyStart = i + 1;
      }
      depth++;
    } else if (c === 0x7d) {
      depth = Math.max(0, depth - 1);
      if (depth === bodyDepth) {
        if (i > bodyStart) hidden.push(bodyStart, i);
        bodyDepth = -1;
      }
    }
    last = c;
    i++;
    lastEnd = i;
  }
  // An unclosed body or argument list hides nothing: better the parser sees text than half a file.
  return withUnparsedLines(text, hidden);
}

/**
 * A line holding only a macro's name, in capitals with an underscore: `NLOHMANN_JSON_NAMESPACE_BEGIN`
 * (which opens two namespaces), Qt's `Q_OBJECT`, glib's `G_BEGIN_DECLS`, or one used as an access
 * label, `JSON_PRIVATE_UNLESS_TESTED:`. The grammar cannot expand them and reads the name as the
 * start of the next declaration: nlohmann/json's `serializer.hpp`, which opens with the first,
 * came out as eleven windows titled `detail (part n)`, and its `dump_escaped` without a name.
 */
export const MACRO_NAME = String.raw`_*[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+`;
/**
 * Lines the parser is better without (group 1 is what it does not see): a macro's name as above,
 * and the kernel's lock annotations between a function's parameters and its body
 * (`__releases(rnp->lock)`), on a line of their own (711 in Linux 6.1) or after the parameters,
 * where the grammar ended the function and took its body for another, titled `__releases`.
 */
const LOCK_ANNOTATION = String.raw`__(?:acquires|releases|must_hold)\([^\n]*\)`;
const UNPARSED_LINE = new RegExp(
  String.raw`^(?:[ \t]*(${MACRO_NAME}[ \t]*:?|${LOCK_ANNOTATION})|[^\n]*\)[ \t]*(${LOCK_ANNOTATION}))[ \t]*(?:\/\/[^\n]*)?$`,
  'gm',
);

/** `hidden` with the `UNPARSED_LINE`s outside it added, kept ascending and disjoint. */
function withUnparsedLines(text: string, hidden: number[]): number[] {
  const found: number[] = [];
  let pair = 0;
  for (const line of text.matchAll(UNPARSED_LINE)) {
    const unparsed = (line[1] ?? line[2]) as string;
    const start = line.index + line[0].lastIndexOf(unparsed);
    while (pair < hidden.length && (hidden[pair + 1] as number) <= start) pair += 2;
    const inside = pair < hidden.length && (hidden[pair] as number) <= start;
    // The last line of a multi-line `#define` names a macro as often as not, and is the directive's.
    const continues = line.index >= 2 && text.charCodeAt(line.index - 2) === 0x5c;
    if (!inside && !continues) found.push(start, start + unparsed.length);
  }
  if (found.length === 0) return hidden;
  // An annotation's argument list is hidden already: the two ranges become one.
  const merged: number[] = [];
  for (let a = 0, b = 0; a < hidden.length || b < found.length;) {
    const fromHidden = b >= found.length || (a < hidden.length && (hidden[a] as number) < (found[b] as number));
    const source = fromHidden ? hidden : found;
    const at = fromHidden ? a : b;
    const [from, to] = [source[at] as number, source[at + 1] as number];
    if (merged.length > 0 && from <= (merged[merged.length - 1] as number)) merged[merged.length - 1] = Math.max(merged[merged.length - 1] as number, to);
    else merged.push(from, to);
    if (fromHidden) a += 2;
    else b += 2;
  }
  return merged;
}

function opensBody(text: string, mode: SkeletonMode, depth: number, last: number, lastEnd: number): boolean {
  if (mode === 'c') return depth === 0 && last !== 0x22;
  if (last === 0x29 || last === 0x3d) return true; // `) {` and `= {`
  return isWordChar(last) && BODY_AFTER_WORD.has(wordBefore(text, lastEnd));
}

function wordBefore(text: string, end: number): string {
  let start = end;
  while (start > 0 && isWordChar(text.charCodeAt(start - 1))) start--;
  return text.slice(start, end);
}

function endOfDirective(text: string, i: number): number {
  let k = i;
  while (k < text.length) {
    const c = text.charCodeAt(k);
    if (c === 0x0a) {
      if (text.charCodeAt(k - 1) !== 0x5c) return k;
    } else if (c === 0x2f && text.charCodeAt(k + 1) === 0x2a) {
      const close = text.indexOf('*/', k + 2);
      if (close < 0) return text.length;
      k = close + 2;
      continue;
    }
    k++;
  }
  return k;
}

function endOfLineComment(text: string, i: number): number {
  let k = text.indexOf('\n', i);
  // A backslash at the end of a // comment continues it onto the next line.
  while (k > 0 && text.charCodeAt(k - 1) === 0x5c) k = text.indexOf('\n', k + 1);
  return k < 0 ? text.length : k;
}

/** Past the closing quote, or at the end of the line for an unterminated literal. */
function endOfQuoted(text: string, i: number, quote: number): number {
  let k = i + 1;
  while (k < text.length) {
    const c = text.charCodeAt(k);
    if (c === 0x5c) k += 2;
    else if (c === quote) return k + 1;
    else if (c === 0x0a) return k;
    else k++;
  }
  return text.length;
}

/** `R"delim( … )delim"`: anything may appear inside, including quotes and braces. */
function endOfRawString(text: string, i: number): number {
  const open = text.indexOf('(', i);
  if (open < 0 || open - i > 17) return endOfQuoted(text, i, 0x22);
  const close = text.indexOf(`)${text.slice(i + 1, open)}"`, open);
  return close < 0 ? text.length : close + open - i + 1;
}

/** Whether only blanks stand between the start of the line and offset i. */
function startsLine(text: string, i: number): boolean {
  let k = i - 1;
  while (k >= 0 && (text.charCodeAt(k) === 0x20 || text.charCodeAt(k) === 0x09)) k--;
  return k < 0 || text.charCodeAt(k) === 0x0a;
}

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x09 || c === 0x0d || c === 0x0c || c === 0x0b;
}

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

function isWordChar(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || c === 0x5f;
}
