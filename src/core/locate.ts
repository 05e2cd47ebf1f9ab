// `locate`: from an issue text, an error message or a stack trace to the files to look at, best
// first, each with the reasons it is there and its best chunks.
//
// The contract (the CLI, the MCP `locate` tool, the VS Code worker and bench/ call exactly this):
//
//   locate(keeper: IndexKeeper, text: string, options?: { limit?: number }): Promise<LocateAnswer>
//
//   LocateAnswer = { files: LocatedFile[]; clues: Array<{ kind; text }>; elapsedMs }
//   LocatedFile  = { path; score; why: string[]; chunks: Array<{ chunkId; title; kind; startLine; endLine }> }
//
// `files` holds at most `limit` files (default DEFAULT_LOCATE_LIMIT), best first; `path` is
// relative to the keeper's root; `why` has one short phrase per piece of evidence ("stack frame
// src/a.py:123 in parse", "defines Config.load", "quotes "connection reset" verbatim", "search: 3
// chunks"), strongest first; `chunks` the file's best chunks (at most MAX_CHUNKS_PER_FILE), the
// ones the strongest evidence points at first. `clues` is what was read from the text, by kind
// (`frame`, `link`, `path`, `symbol`, `error`, `message`, `word`). Text with nothing that points at code
// answers no files, never an error.
//
// How a file's score is made (the weights below, and why they stand where they stand):
//
// - A stack frame whose path resolves to an indexed file (FRAME_WEIGHT): the strongest evidence
//   there is, the program says it ran there. Each further frame in the same file adds less
//   (FRAME_DIMINISHING), so that all of them together weigh less than a frame and a message. A
//   path matched only by its last folders (`/app/src/x.py` for `lib/src/x.py`) counts
//   PARTIAL_PATH_FACTOR of it; a path several files could be splits its weight among them. A
//   `path:line` mention and a link to a line (a code host's permalink) count as frames. A frame in
//   a build's output (`lib/x.js`) counts for the source it was built from (`src/x.ts`) only where
//   that file defines the frame's function: the name survives the build, the path only roughly.
// - A path named without a line (PATH_WEIGHT): said by a person, nearly as strong.
// - A quoted message found verbatim in a chunk (MESSAGE_WEIGHT, scaled down for fragments of
//   fewer than four words and split among the files holding it): the code that raises or logs it.
// - A symbol defined in the file, its chunk titled by it (SYMBOL_QUALIFIED_WEIGHT for
//   `Class.method` found as such, SYMBOL_NAME_WEIGHT for the bare name; split among the files
//   defining it, and ignored past MAX_DEFINING_FILES: `get` or `__init__` point nowhere). A
//   document's section titled by it counts only where no code defines it.
// - An error class defined in the file (ERROR_WEIGHT): relevant, but the raising code matters more.
// - The lexical search of the symbols, errors and rarest words (SEARCH_WEIGHT): each file's chunk
//   scores over the search's best, halved for each further chunk, so one file with many weak hits
//   never outweighs a file the best chunk is in. It orders the files nothing above points at, and
//   breaks ties among those it does.
// - A test, a file about the project (`.github/`, CONTRIBUTING), a lockfile, vendored code or an
//   example or benchmark counts half its evidence (ROLE_FACTOR, `file-roles.ts`), and says so: the
//   fix an issue asks for is in the project's code, and these match an issue's words as well as the
//   code does (a test names the behaviour, an issue template holds the issue's headings, a vendored
//   library defines the names an issue uses, an example calls them).
//
// Within a file, the pieces of evidence of one kind add up with diminishing returns (the best in
// full, the next half, then a quarter...; frames faster), so fifty frames through one dispatcher
// do not bury the file a single frame and a quoted message point at.

import { oneLine } from './agent-text.ts';
import type { IndexKeeper } from './index-keeper.ts';
import { redactText } from './redact.ts';
import { inverseDocumentFrequency } from './search/lists.ts';
import { isStopword } from './search/terms.ts';
import { quote } from './store/store.ts';
import type { StoredChunk } from './store/store.ts';
import { extractClues, splitSymbol, type Extracted, type Frame, type SymbolMention } from './clues.ts';
import { fileRole, type FileRole } from './file-roles.ts';
import type { ChunkKind } from './types.ts';

export interface LocatedFile {
  path: string;
  score: number;
  /** Why the file is here, for people and agents: one short phrase each, e.g. 'stack frame src/a.py:123', 'defines Foo.bar', 'quotes "connection reset" verbatim', 'search: 3 chunks'. */
  why: string[];
  /** The best chunks in it: symbol title, kind and 1-based line range. */
  chunks: Array<{ chunkId: number; title: string; kind: ChunkKind; startLine: number; endLine: number }>;
  /** The line its innermost stack frame names (of those surest of the path), when one names a line: where the program was. */
  line?: number;
  /**
   * That line's text as indexed, trimmed and cut at FRAME_LINE_MAX_CHARS: what an agent reads first.
   * Secrets redacted already: out of its chunk, a line of a private key block no longer says what it is.
   */
  lineText?: string;
}

export interface LocateAnswer {
  files: LocatedFile[];
  /** What was extracted from the text, by kind, for explanations and tests. */
  clues: Array<{ kind: string; text: string }>;
  elapsedMs: number;
}

export const DEFAULT_LOCATE_LIMIT = 10;
const MAX_CHUNKS_PER_FILE = 3;
const FRAME_LINE_MAX_CHARS = 160;
/** A line that only holds a comment: the doc comment above a function names it before its own line does. */
const COMMENT = /^\s*(?:\/\/|\/\*|\*|#|--|;)/;
/** A quoted string in a chunk's title, to the title's end when the title cut it short. */
const QUOTED = /(['"])[^]*?(?:\1|$)/g;

const FRAME_WEIGHT = 10;
const PATH_WEIGHT = 8;
const MESSAGE_WEIGHT = 8;
const SYMBOL_QUALIFIED_WEIGHT = 7;
const SYMBOL_NAME_WEIGHT = 4;
const ERROR_WEIGHT = 3;
const SEARCH_WEIGHT = 4;
const PARTIAL_PATH_FACTOR = 0.6;
/** Folders a repository keeps its packages under, which an installed copy's paths do not have. */
const SOURCE_ROOTS = new Set(['src', 'lib', 'source', 'python', 'pkg', 'packages']);
/**
 * The names a JavaScript file that ran may have been compiled from, by its extension: a trace from
 * a build (tsc's `dist/`, Babel's `lib/`) names the output, and the repository holds the source.
 */
const SOURCE_EXTENSIONS: Record<string, readonly string[]> = {
  js: ['ts', 'tsx', 'jsx', 'js'],
  mjs: ['mts', 'ts', 'mjs', 'js'],
  cjs: ['cts', 'ts', 'cjs', 'js'],
};
/** Folders builds write JavaScript to, standing where the sources' `src` stands. */
const BUILD_FOLDERS = new Set(['lib', 'dist', 'build', 'out', 'es', 'esm', 'cjs', 'module']);
/** Each further piece of evidence of the same kind in a file counts this share of the one before. */
const DIMINISHING = 0.5;
/**
 * Further frames in a file count less still: recursion and dispatchers put many frames in one
 * file, and however many there are, they add up to less than a frame and a verbatim message.
 */
const FRAME_DIMINISHING = 0.3;
/** A path more indexed files could be than this says nothing about which one. */
const MAX_PATH_CANDIDATES = 4;
const MAX_DEFINING_FILES = 8;
/** Chunks a title lookup reads: past MAX_DEFINING_FILES files the name is ignored anyway. */
const DEFINITION_LOOKUP = 24;
const MAX_MESSAGE_FILES = 5;
/** Symbols, messages and words looked up at most: each is one or two bounded index queries. */
const MAX_SYMBOL_LOOKUPS = 30;
const MAX_MESSAGE_LOOKUPS = 12;
const MAX_WORD_LOOKUPS = 150;
/** A word in this many chunks or more is common; counting stops there. */
const WORD_COUNT_CAP = 2_000;
/** Nor is a word distinctive in more than this share of the chunks (`for`, `return`, `self`), however small the index. */
const COMMON_SHARE = 0.1;
const SEARCH_WORDS = 12;
const SEARCH_SYMBOLS = 8;
const SEARCH_ERRORS = 4;
const SEARCH_RESULTS = 40;
const WHY_PER_KIND = 3;
/**
 * The score of a test, a file about the project or a lockfile (`file-roles.ts`) is its evidence's
 * times this: such a file matches an issue's words as well as the code does, but the fix is in the
 * code. It still comes first when the evidence for it is twice as strong (a trace whose only frames
 * are in a test).
 */
const ROLE_FACTOR = 0.5;
const ROLE_WHY: Record<FileRole, string> = {
  test: 'a test file: counts half',
  project: 'about the project, not its code: counts half',
  lockfile: 'a lockfile: counts half',
  vendored: "another project's code kept here: counts half",
  example: 'an example or a benchmark: counts half',
};

type EvidenceKind = 'frame' | 'path' | 'message' | 'symbol' | 'error' | 'search';
/** The order `why` lists evidence in: the kinds that decide most first. */
const KIND_ORDER: readonly EvidenceKind[] = ['frame', 'path', 'message', 'symbol', 'error', 'search'];

interface Evidence {
  kind: EvidenceKind;
  weight: number;
  why: string;
  chunk?: StoredChunk;
  /** A frame's line. */
  line?: number;
}

export async function locate(keeper: IndexKeeper, text: string, options: { limit?: number } = {}): Promise<LocateAnswer> {
  const started = performance.now();
  const limit = options.limit ?? DEFAULT_LOCATE_LIMIT;
  const extracted = extractClues(text);
  const board = new Board(keeper);
  resolveFrames(keeper, extracted, board);
  const symbols = defineSymbols(keeper, extracted.symbols, board);
  defineErrors(keeper, extracted.errors, board);
  quoteMessages(keeper, extracted.messages, board);
  const words = rareWords(keeper, extracted);
  const query = [...symbols.slice(0, SEARCH_SYMBOLS), ...extracted.errors.slice(0, SEARCH_ERRORS), ...words].join(' ');
  if (query.trim() !== '') await searchWords(keeper, query, board);
  return { files: board.ranked(limit), clues: cluesOf(extracted, words), elapsedMs: performance.now() - started };
}

/**
 * Where a written path may be in the index: the files it can be, and how sure that is (1 = exactly).
 * `built`: the path is read as a build's output (its source's name and `src` for the build's
 * folder, an installed `@scope/name` for the repository's `scope-name` folder).
 */
function resolvePath(keeper: IndexKeeper, written: string, named: Map<string, string[]>, built = false): Array<{ path: string; factor: number }> {
  const root = keeper.root.replace(/\\/g, '/');
  if (!built && written.startsWith(`${root}/`)) {
    const inside = written.slice(root.length + 1);
    if (named.get(inside.slice(inside.lastIndexOf('/') + 1))?.includes(inside)) return [{ path: inside, factor: 1 }];
  }
  const segments = written.split('/').filter((s) => s !== '' && s !== '.');
  const fileName = segments.at(-1) ?? '';
  const candidates = (built ? sourceNames(fileName) : [fileName]).flatMap((name) => named.get(name) ?? []);
  const fromEnd = (list: readonly string[], count: number) => list[list.length - 1 - count];
  let best = 0;
  let found: Array<{ path: string; factor: number }> = [];
  for (const candidate of candidates) {
    const theirs = candidate.split('/');
    // A built file's name was matched by the lookup: its source's.
    let common = built ? 1 : 0;
    while (
      common < theirs.length &&
      common < segments.length &&
      sameSegment(fromEnd(theirs, common)!, fromEnd(segments, common)!, fromEnd(segments, common + 1), built)
    )
      common++;
    // The whole of one is the end of the other (`site-packages/pkg/a.py` for `pkg/a.py`, or
    // `a/b.py` for `src/a/b.py`), or only a source root is left over (`site-packages/pkg/a.py` for
    // `src/pkg/a.py`, how an installed package's traceback names a file of its repository): the
    // same file. Two folders agreeing and then differing: likely.
    const unmatched = theirs.length - common;
    const whole = unmatched === 0 || common === segments.length || (unmatched === 1 && common >= 2 && SOURCE_ROOTS.has(theirs[0]!));
    if (!whole && common < 2) continue;
    const factor = whole ? 1 : PARTIAL_PATH_FACTOR;
    if (common > best) {
      best = common;
      found = [];
    }
    if (common === best) found.push({ path: candidate, factor });
  }
  if (found.length > MAX_PATH_CANDIDATES) return [];
  return found.map((f) => ({ path: f.path, factor: f.factor / found.length }));
}

/** The names of the files a built JavaScript file may come from (none for any other file). */
function sourceNames(fileName: string): string[] {
  const dot = fileName.lastIndexOf('.');
  return (SOURCE_EXTENSIONS[fileName.slice(dot + 1)] ?? []).map((extension) => `${fileName.slice(0, dot)}.${extension}`);
}

/** Whether a segment of a path here is the one written in a path (`above`: the folder written above it). */
function sameSegment(ours: string, written: string, above: string | undefined, built: boolean): boolean {
  if (ours === written) return true;
  if (!built) return false;
  return (ours === 'src' && BUILD_FOLDERS.has(written)) || (above?.startsWith('@') === true && ours === `${above.slice(1)}-${written}`);
}

function resolveFrames(keeper: IndexKeeper, extracted: Extracted, board: Board): void {
  const written = [...extracted.frames.map((f) => f.path), ...extracted.paths, ...extracted.links].map((p) => p.slice(p.lastIndexOf('/') + 1));
  const named = keeper.filesNamed(new Set([...written, ...written.flatMap(sourceNames)]));
  for (const frame of extracted.frames) {
    const resolved = resolvePath(keeper, frame.path, named);
    for (const { path, factor } of resolved) {
      const site = frame.line !== undefined ? frameSite(board, path, frame.line, frame.symbol) : undefined;
      const why = frameWhy(path, frame) + (site && site.line !== frame.line ? ` (at line ${site.line} here)` : '');
      board.add(path, { kind: 'frame', weight: FRAME_WEIGHT * factor, why, ...site });
    }
    if (resolved.length === 0) builtFrame(keeper, frame, named, board);
  }
  const mentions = [...extracted.links.map((written) => ({ written, said: 'links to' })), ...extracted.paths.map((written) => ({ written, said: 'names' }))];
  for (const { written, said } of mentions) {
    for (const { path, factor } of resolvePath(keeper, written, named)) board.add(path, { kind: 'path', weight: PATH_WEIGHT * factor, why: `${said} ${path}` });
  }
}

/**
 * A frame in a build's output (`node_modules/@babel/generator/lib/source-map.js:31 in SourceMap`)
 * points at the source the build came from when that file defines the frame's function: the name
 * is what survives compiling; the line does not, and a bundle's `index.js` is not `src/index.ts`.
 */
function builtFrame(keeper: IndexKeeper, frame: Frame, named: Map<string, string[]>, board: Board): void {
  const symbol = frame.symbol !== undefined && frame.line !== undefined ? splitSymbol(frame.symbol) : undefined;
  if (!symbol) return;
  for (const { path, factor } of resolvePath(keeper, frame.path, named, true)) {
    const site = declarations(board.chunksOf(path), symbol.name, symbol.qualifier)[0];
    if (!site) continue;
    const ran = frame.path.split('/').slice(-path.split('/').length).join('/');
    board.add(path, { kind: 'frame', weight: FRAME_WEIGHT * factor, why: `${frameWhy(ran, frame)}, built from this file (line ${site.line} here)`, ...site });
  }
}

function frameWhy(path: string, frame: Frame): string {
  return `${frame.link ? 'links to' : 'stack frame'} ${frameText({ ...frame, path })}`;
}

/**
 * Where a frame points in the indexed copy of its file: the narrowest chunk holding its line (a
 * method rather than its class's header chunk). When the frame names its function and that chunk
 * is not it, the trace came from another version of the file (a release's, against a checkout):
 * the function is where to look, from its first line of code, if the file has one function of
 * that name (overloads are several; a long function's parts are one) or one declaration of it in
 * its class kept as one chunk.
 */
function frameSite(board: Board, path: string, line: number, symbol: string | undefined): { line: number; chunk?: StoredChunk } {
  const chunks = board.chunksOf(path);
  const holding = chunks.filter((c) => c.startLine <= line && line <= c.endLine).sort((a, b) => a.endLine - a.startLine - (b.endLine - b.startLine))[0];
  const asWritten = { line, ...(holding ? { chunk: holding } : {}) };
  const named = symbol ? splitSymbol(symbol) : undefined;
  if (!named || (holding && (titleHas(declaringTitle(holding), named.name) || declaredInClass(holding, named.name, named.qualifier).length > 0)))
    return asWritten;
  const declared = declarations(chunks, named.name, named.qualifier);
  return declared.length === 1 ? declared[0]! : asWritten;
}

/**
 * Where the file declares a function, at its first line of code: each function of that name
 * (overloads are several; a long function's parts are one), or else each declaration of it in its
 * class kept as one chunk. The top-level chunk of a file named so (`transform.ts (top level)`)
 * is titled by the file, not the function, and counts only when no function is titled by it.
 */
function declarations(chunks: readonly StoredChunk[], name: string, qualifier: string | undefined): Array<{ line: number; chunk: StoredChunk }> {
  const titled = chunks.filter((chunk) => titledAs(chunk, name, qualifier) && !LATER_PART.test(chunk.title));
  const functions = titled.some((chunk) => !TOP_LEVEL.test(chunk.title)) ? titled.filter((chunk) => !TOP_LEVEL.test(chunk.title)) : titled;
  if (functions.length > 0) {
    const naming = new RegExp(`${startsName(name)}(?![\\w$])`);
    return functions.map((chunk) => {
      const offset = chunk.text.split('\n').findIndex((text) => naming.test(text) && !COMMENT.test(text));
      return { line: chunk.startLine + Math.max(0, offset), chunk };
    });
  }
  return chunks.flatMap((chunk) => declaredInClass(chunk, name, qualifier).map((offset) => ({ line: chunk.startLine + offset, chunk })));
}

/** The second and later parts of a function chunked in parts (`run (part 2)`). */
const LATER_PART = / \(part (?:[2-9]|\d{2,})\)$/;
/** A file's code outside its functions and classes, titled by the file (`app.ts (top level)`). */
const TOP_LEVEL = / \(top level\)(?: \(part \d+\))?$/;

/**
 * The lines (offsets in the chunk) that declare `name` in a class `qualifier` kept as one chunk:
 * `name(` opening a line or after its modifiers and type, not called (after `.`, `=`, `return`…).
 * A signature may end in `;` (`abstract T read(In in);`, `get(name: string): string;`); a line
 * that is only `name(…);` is a call in one of the class's methods.
 */
function declaredInClass(chunk: StoredChunk, name: string, qualifier: string | undefined): number[] {
  if (!qualifier || chunk.kind !== 'code' || !titleHas(declaringTitle(chunk).split(' > ').at(-1) ?? '', qualifier)) return [];
  const declaring = new RegExp(`^(?:\\s*func\\s*\\([^)]*\\))?([^=(;.]*?)${startsName(name)}\\s*\\(`);
  const offsets: number[] = [];
  chunk.text.split('\n').forEach((text, offset) => {
    const prefix = declaring.exec(text)?.[1];
    if (prefix === undefined || COMMENT.test(text) || CALLING.test(prefix)) return;
    if (prefix.trim() === '' && /\)\s*;\s*$/.test(text)) return;
    offsets.push(offset);
  });
  return offsets;
}

/** What before a name on its line makes it a call or an expression: `return read(…)`, `a->read(…)`. */
const CALLING = /(?:\b(?:return|throw|new|await|yield|else|case|do)|->|::|[+\-/%|!?:,])\s*$/;

/** Records where each symbol is defined; returns the symbols as the search should say them, qualified ones first. */
function defineSymbols(keeper: IndexKeeper, symbols: readonly SymbolMention[], board: Board): string[] {
  const ordered = [...symbols].sort((a, b) => Number(b.qualifier !== undefined) - Number(a.qualifier !== undefined));
  // A name credited to a file by its qualified mention is not credited again bare.
  const credited = new Set<string>();
  for (const symbol of ordered.slice(0, MAX_SYMBOL_LOOKUPS)) {
    // The middle of a chain may be a value, not a type (faker's `Faker::Internet.unique.email`, an
    // enum constant's method): then what it is in says where the name is defined.
    const inQualifier = qualifiedIn(keeper, symbol.qualifier, symbol.name);
    const [qualifier, qualified] = inQualifier.length > 0 ? [symbol.qualifier, inQualifier] : [symbol.outer, qualifiedIn(keeper, symbol.outer, symbol.name)];
    const chosen = qualified.length > 0 ? qualified : codeFirst(definitions(keeper, symbol.name));
    const files = new Set(chosen.map((chunk) => chunk.path));
    if (files.size === 0 || files.size > MAX_DEFINING_FILES) continue;
    const weight = (qualified.length > 0 ? SYMBOL_QUALIFIED_WEIGHT : SYMBOL_NAME_WEIGHT) / files.size;
    const said = qualified.length > 0 ? `${qualifier}.${symbol.name}` : symbol.name;
    for (const chunk of firstPerFile(chosen)) {
      const key = `${chunk.path}\0${symbol.name}`;
      if (credited.has(key)) continue;
      credited.add(key);
      board.add(chunk.path, { kind: 'symbol', weight, why: definesWhy(chunk, said), chunk });
    }
  }
  return ordered.map((symbol) => (symbol.qualifier ? `${symbol.qualifier}.${symbol.name}` : symbol.name));
}

/** The code that defines `name` inside `qualifier` (else the documents' sections on it); none without a qualifier. */
function qualifiedIn(keeper: IndexKeeper, qualifier: string | undefined, name: string): StoredChunk[] {
  return qualifier ? codeFirst(qualifiedDefinitions(keeper, qualifier, name)) : [];
}

/**
 * Chunks that define `name` inside `qualifier`: titled `Qualifier > name`; in a module of that name
 * (`api.get` in `requests/api.py`; a package's name says too little: all its files are in it); and,
 * since a small class stays one chunk, in the other files the class's own chunk when its code
 * declares `name` (lombok's javac `HandleHelper` is one chunk, its Eclipse twin is split into
 * methods, and both define `HandleHelper.handle`). A call does not count: a bundle's UMD wrapper
 * titled `global` calls `new FormData()`, a stylesheet's `.post` rule `url(…)`.
 */
function qualifiedDefinitions(keeper: IndexKeeper, qualifier: string, name: string): StoredChunk[] {
  const nested = definitions(keeper, name, qualifier);
  const nestedFiles = new Set(nested.map((chunk) => chunk.path));
  // Asked with the name in the text: a qualifier such as `Adapter` titles many chunks.
  const whole = keeper
    .matchChunks(`title : ${quote(qualifier)} AND text : ${quote(name)}`, DEFINITION_LOOKUP)
    .filter((chunk) => !nestedFiles.has(chunk.path) && declaredInClass(chunk, name, qualifier).length > 0);
  return [...nested, ...whole];
}

/**
 * The code that defines a name, where any does; else the documents' sections titled by it. A
 * README's section on `axios.create([config])` took half of the credit from the code defining
 * `create`, though the fix goes in the code; a name only documents hold still points at them.
 */
function codeFirst(definitions: StoredChunk[]): StoredChunk[] {
  const code = definitions.filter((chunk) => chunk.kind === 'code');
  return code.length > 0 ? code : definitions;
}

/** A document's section titled by a name is about it (a troubleshooting guide's `IllegalStateException`), not its definition. */
function definesWhy(chunk: StoredChunk, name: string): string {
  return chunk.kind === 'code' ? `defines ${name}` : `a section on ${name}`;
}

function defineErrors(keeper: IndexKeeper, errors: readonly string[], board: Board): void {
  for (const name of errors) {
    const defining = codeFirst(definitions(keeper, name));
    const files = new Set(defining.map((chunk) => chunk.path));
    if (files.size === 0 || files.size > MAX_DEFINING_FILES) continue;
    for (const chunk of firstPerFile(defining))
      board.add(chunk.path, { kind: 'error', weight: ERROR_WEIGHT / files.size, why: definesWhy(chunk, name), chunk });
  }
}

/**
 * Chunks titled by the symbol (`titledAs`). Given a qualifier, only chunks whose title or path also
 * says it are looked up: a name many types define (gin's `Render`, on every renderer and in every
 * renderer's test) would fill the lookup before the qualifier's own (`Context > Render`) were read.
 */
function definitions(keeper: IndexKeeper, name: string, qualifier?: string): StoredChunk[] {
  const match = `title : ${quote(name)}` + (qualifier ? ` AND title : ${quote(qualifier)}` : '');
  return keeper.matchChunks(match, DEFINITION_LOOKUP).filter((chunk) => titledAs(chunk, name, qualifier));
}

/** The start of a pattern that finds `name` where it is not part of a longer identifier. */
function startsName(name: string): string {
  return `(?<![\\w$])${name.replace(/\$/g, '\\$')}`;
}

/** Whether the chunk defines `name`: its title's last part says it, and what it is in says the qualifier, or its file is named so. */
function titledAs(chunk: StoredChunk, name: string, qualifier: string | undefined): boolean {
  const parts = declaringTitle(chunk).split(' > ');
  if (!titleHas(parts.at(-1) ?? '', name)) return false;
  if (qualifier === undefined) return true;
  return titleHas(parts.slice(0, -1).join(' '), qualifier) || chunk.path.slice(chunk.path.lastIndexOf('/') + 1).replace(/\.[^.]+$/, '') === qualifier;
}

function titleHas(title: string, name: string): boolean {
  return title.split(/[^\w$]+/).includes(name);
}

/**
 * A chunk's title as far as it names declarations. A call is titled by its callee and first
 * argument, and a test's by its label (`it('should render NaN as text content')`,
 * `describe('PureComponent')`): a label's words say what is tested, not what is declared, and a
 * test counted among a name's definitions halved the credit of the code that defines it. A quoted
 * name outside tests is kept: `Vue.component('TodoItem')` registers it.
 */
function declaringTitle(chunk: StoredChunk): string {
  const test = fileRole(chunk.path) === 'test';
  return chunk.title.replace(QUOTED, (quoted) => (test || /\s/.test(quoted) ? ' ' : quoted));
}

function firstPerFile(chunks: readonly StoredChunk[]): StoredChunk[] {
  const seen = new Set<string>();
  return chunks.filter((chunk) => !seen.has(chunk.path) && seen.add(chunk.path));
}

function quoteMessages(keeper: IndexKeeper, messages: readonly string[], board: Board): void {
  const fragments = [...new Set(messages.flatMap(fragmentsOf))].slice(0, MAX_MESSAGE_LOOKUPS);
  for (const fragment of fragments) {
    const wanted = flatten(fragment);
    const holding = keeper.matchChunks(quote(fragment), 30).filter((chunk) => flatten(chunk.text).includes(wanted));
    const files = firstPerFile(holding);
    if (files.length === 0 || files.length > MAX_MESSAGE_FILES) continue;
    const words = fragment.split(' ').length;
    const weight = (MESSAGE_WEIGHT * Math.min(1, words / 4)) / files.length;
    const shown = fragment.length > 48 ? `${fragment.slice(0, 45)}…` : fragment;
    for (const chunk of files) board.add(chunk.path, { kind: 'message', weight, why: `quotes "${shown}" verbatim`, chunk });
  }
}

/**
 * The parts of a message that source code would hold as they are: the runs of words between
 * the values an error fills in (numbers, quoted names, paths, punctuation). The two longest of
 * each message, of two words or more and not only stopwords.
 */
function fragmentsOf(message: string): string[] {
  return message
    .replace(/'[^']*'|"[^"]*"|`[^`]*`|\S*[/\\]\S*|\S*\d\S*/g, '|')
    .split(/[^A-Za-z_\s'-]+/)
    .map((part) => part.trim().replace(/\s+/g, ' '))
    .filter((part) => part.split(' ').length >= 2 && part.split(' ').some((word) => word.length >= 3 && !isStopword(word.toLowerCase())))
    .sort((a, b) => b.length - a.length)
    .slice(0, 2);
}

function flatten(text: string): string {
  return text.toLowerCase().replace(/\s+/g, ' ');
}

/** The words of the text the index finds rarest, weighed by how often the text says them (tf · idf). */
function rareWords(keeper: IndexKeeper, extracted: Extracted): string[] {
  const total = keeper.chunkCount;
  const said = new Set(
    extracted.symbols.flatMap((s) => [s.name.toLowerCase(), s.qualifier?.toLowerCase()]).concat(extracted.errors.map((e) => e.toLowerCase())),
  );
  return [...extracted.words]
    .filter(({ word }) => !said.has(word) && !/^\d|_/.test(word))
    .sort((a, b) => b.count - a.count)
    .slice(0, MAX_WORD_LOOKUPS)
    .map(({ word, count }) => ({ word, count, chunks: keeper.chunksMatching(quote(word), WORD_COUNT_CAP) }))
    .filter(({ chunks }) => chunks > 0 && chunks < WORD_COUNT_CAP && chunks <= total * COMMON_SHARE)
    .map(({ word, count, chunks }) => ({ word, weight: (1 + Math.log(count)) * inverseDocumentFrequency(total, chunks) }))
    .sort((a, b) => b.weight - a.weight || a.word.localeCompare(b.word))
    .slice(0, SEARCH_WORDS)
    .map(({ word }) => word);
}

async function searchWords(keeper: IndexKeeper, query: string, board: Board): Promise<void> {
  // No typo retry: a name the index does not hold is someone else's code, not a misspelling of
  // ours. No feedback list: the query is a dozen distinctive words already, and it costs a pass.
  // Copies unfolded: a copy of a chunk in another file is evidence for that file, at its own rank.
  // Tests, changelogs, builds and vendored code at their full weight: the board weighs a file's role once, for every kind of evidence.
  const response = await keeper.search(query, {
    limit: SEARCH_RESULTS,
    fuzzy: 'off',
    testWeight: 1,
    changelogWeight: 1,
    buildOutputWeight: 1,
    vendoredWeight: 1,
    stages: { feedback: false, copies: false },
  });
  const best = response.results[0]?.score;
  if (!best) return;
  const byFile = new Map<string, typeof response.results>();
  for (const result of response.results) {
    const list = byFile.get(result.path);
    if (list) list.push(result);
    else byFile.set(result.path, [result]);
  }
  for (const [path, results] of byFile) {
    const weight = SEARCH_WEIGHT * results.reduce((sum, result, i) => sum + (result.score / best) * DIMINISHING ** i, 0);
    const chunks = results.map((result) => keeper.chunk(result.chunkId)).filter((chunk): chunk is StoredChunk => chunk !== undefined);
    board.add(path, {
      kind: 'search',
      weight,
      why: `search: ${results.length} chunk${results.length === 1 ? '' : 's'}`,
      ...(chunks[0] ? { chunk: chunks[0] } : {}),
    });
    for (const chunk of chunks.slice(1)) board.add(path, { kind: 'search', weight: 0, why: '', chunk });
  }
}

function cluesOf(extracted: Extracted, words: readonly string[]): LocateAnswer['clues'] {
  return [
    ...extracted.frames.map((frame) => ({ kind: frame.link ? 'link' : frame.line !== undefined ? 'frame' : 'path', text: frameText(frame) })),
    ...extracted.links.map((text) => ({ kind: 'link', text })),
    ...extracted.paths.map((text) => ({ kind: 'path', text })),
    ...extracted.symbols.map((symbol) => ({ kind: 'symbol', text: symbol.qualifier ? `${symbol.qualifier}.${symbol.name}` : symbol.name })),
    ...extracted.errors.map((text) => ({ kind: 'error', text })),
    ...extracted.messages.map((text) => ({ kind: 'message', text })),
    ...words.map((text) => ({ kind: 'word', text })),
  ];
}

function frameText(frame: Frame): string {
  return `${frame.path}${frame.line !== undefined ? `:${frame.line}` : ''}${frame.symbol ? ` in ${frame.symbol}` : ''}`;
}

/** The evidence gathered per file, and the ranking made of it. */
class Board {
  private readonly files = new Map<string, Evidence[]>();
  private readonly chunkCache = new Map<string, StoredChunk[]>();

  private readonly keeper: IndexKeeper;

  constructor(keeper: IndexKeeper) {
    this.keeper = keeper;
  }

  add(path: string, evidence: Evidence): void {
    const list = this.files.get(path);
    if (list) list.push(evidence);
    else this.files.set(path, [evidence]);
  }

  chunksOf(path: string): StoredChunk[] {
    let chunks = this.chunkCache.get(path);
    if (!chunks) this.chunkCache.set(path, (chunks = this.keeper.chunksOfFile(path)));
    return chunks;
  }

  ranked(limit: number): LocatedFile[] {
    const scored = [...this.files].map(([path, evidence], order) => {
      const role = fileRole(path);
      return { path, evidence, role, order, score: score(evidence) * (role ? ROLE_FACTOR : 1) };
    });
    // Of equals, the file the evidence reached first: frames come innermost first, then the
    // paths, names, messages and the search's hits in their order.
    scored.sort((a, b) => b.score - a.score || a.order - b.order);
    return scored.slice(0, limit).map(({ path, evidence, role, score }) => ({
      path,
      score: Number(score.toFixed(3)),
      why: role ? [...whyOf(evidence), ROLE_WHY[role]] : whyOf(evidence),
      chunks: bestChunks(evidence),
      ...frameLine(evidence),
    }));
  }
}

function byStrength(evidence: readonly Evidence[]): Evidence[] {
  return [...evidence].sort((a, b) => KIND_ORDER.indexOf(a.kind) - KIND_ORDER.indexOf(b.kind) || b.weight - a.weight);
}

function score(evidence: readonly Evidence[]): number {
  let total = 0;
  for (const kind of KIND_ORDER) {
    const weights = evidence
      .filter((e) => e.kind === kind)
      .map((e) => e.weight)
      .sort((a, b) => b - a);
    const share = kind === 'frame' ? FRAME_DIMINISHING : DIMINISHING;
    total += weights.reduce((sum, weight, i) => sum + weight * share ** i, 0);
  }
  return total;
}

function whyOf(evidence: readonly Evidence[]): string[] {
  const why: string[] = [];
  for (const kind of KIND_ORDER) {
    // An error class the text also names as a symbol is one definition, said once.
    const phrases = [...new Set(byStrength(evidence.filter((e) => e.kind === kind && e.why !== '')).map((e) => e.why))].filter(
      (phrase) => !why.includes(phrase),
    );
    why.push(...phrases.slice(0, WHY_PER_KIND));
    const more = phrases.length - WHY_PER_KIND;
    if (more > 0) why.push(`and ${more} more ${kind === 'search' ? 'hit' : kind}${more === 1 ? '' : 's'}`);
  }
  return why;
}

/**
 * The strongest frame's line, the innermost of equals, with its text unless that is blank or not
 * indexed (a trace from an older version may name a line past the file's end).
 */
function frameLine(evidence: readonly Evidence[]): Pick<LocatedFile, 'line' | 'lineText'> {
  const frame = byStrength(evidence).find((e) => e.line !== undefined);
  if (frame?.line === undefined) return {};
  const text = frame.chunk && redactText(frame.chunk.text).text.split('\n')[frame.line - frame.chunk.startLine]?.trim();
  return text ? { line: frame.line, lineText: oneLine(text, FRAME_LINE_MAX_CHARS) } : { line: frame.line };
}

function bestChunks(evidence: readonly Evidence[]): LocatedFile['chunks'] {
  const seen = new Set<number>();
  const chunks: LocatedFile['chunks'] = [];
  for (const { chunk } of byStrength(evidence)) {
    if (!chunk || seen.has(chunk.id)) continue;
    seen.add(chunk.id);
    chunks.push({ chunkId: chunk.id, title: chunk.title, kind: chunk.kind, startLine: chunk.startLine, endLine: chunk.endLine });
    if (chunks.length === MAX_CHUNKS_PER_FILE) break;
  }
  return chunks;
}
