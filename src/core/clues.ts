// What in a pasted issue, error message or stack trace points at code, read from the text alone
// (no index): stack frames and path mentions, symbols (`Class.method`, `module.function`,
// identifiers in backticks, the functions frames name), error class names, quoted messages and
// the remaining words. `locate` (locate.ts) then checks each against the index.
//
// Every loop is bounded (characters read, lines, clues of each kind), so a 200-line trace or a
// whole issue with its code blocks costs a few milliseconds, and a pasted log of megabytes no more.

import { jsonObjects, type JsonObject } from './json-objects.ts';
import { isStopword } from './search/terms.ts';

/** A stack frame or a `file:line` mention: where the text says code ran or failed. */
export interface Frame {
  /** The path as written, `\` turned into `/` and `file://` dropped. */
  path: string;
  /** 1-based; absent for a bare path mention. */
  line?: number;
  /** The function the frame names, as written (`Server.handle`, `parse_args`), if any. */
  symbol?: string;
  /** The frame as it reads in the text, for explanations. */
  text: string;
  /** A link to the file (a code host's permalink), not a place the program ran. */
  link?: true;
}

/** A name that may be defined in the code: `name` is its last part, `qualifier` what came before (`Foo` of `Foo.bar`). */
export interface SymbolMention {
  name: string;
  qualifier?: string;
  /** What the qualifier is in, when the text says: `Internet` of `Faker::Internet.unique.email`. */
  outer?: string;
  text: string;
}

export interface Extracted {
  /**
   * Frames and `path:line` mentions, in the order the text has them, except a Python traceback's
   * frames: it prints the innermost last ("most recent call last"), every other runtime first, so
   * they are turned around and the innermost comes first here too.
   */
  frames: Frame[];
  /** Paths named without a line. */
  paths: string[];
  /** Paths a link to a code host names without a line (`…/blob/main/src/x.py`). */
  links: string[];
  symbols: SymbolMention[];
  /** Error class names (`ValueError`, `NullPointerException`). */
  errors: string[];
  /** Messages quoted or following an error name, each a candidate for a verbatim match in the source. */
  messages: string[];
  /** Every other word worth weighing, lowercased, with how often the text says it. */
  words: Array<{ word: string; count: number }>;
}

/** Text read at most; a pasted log past this adds nothing an issue's first 200 KB did not say. */
export const MAX_INPUT_CHARS = 200_000;
const MAX_LINES = 5_000;
/** Of a longer line (minified code, a base64 blob) only the start is read. */
const MAX_LINE_CHARS = 1_000;
const MAX_FRAMES = 200;
const MAX_PATHS = 50;
const MAX_SYMBOLS = 60;
const MAX_ERRORS = 20;
const MAX_MESSAGES = 20;
const MAX_WORDS = 300;
const MIN_MESSAGE_CHARS = 8;
const MAX_MESSAGE_CHARS = 200;

// File extensions a path mention must end with to be taken for a path: code and the files that
// configure it. Without the list, every `e.g.` and `v1.2` would be a path.
const EXTENSIONS =
  'py|pyi|pyx|js|mjs|cjs|jsx|ts|mts|cts|tsx|java|kt|kts|scala|groovy|go|rs|c|h|cc|cpp|cxx|hpp|hh|hxx|cs|fs|rb|erb|php|phtml|swift|m|mm|' +
  'sh|bash|ps1|psm1|lua|pl|pm|ex|exs|erl|hrl|hs|ml|clj|dart|vue|svelte|json|ya?ml|toml|ini|cfg|md|rst|html?|css|scss|less|sql|proto|gradle|xml|r|jl|zig|nim|v|sol';

// A path: optional drive, scheme or URL, `./` or `../`, segments, a known extension, not followed
// by more word characters (`foo.pyc`, `a.json5` are other files). A URL is a browser's frame
// (`http://localhost:3000/src/app.js`) or a link to a file (`https://github.com/o/r/blob/main/a.py`);
// webpack names a module by its project (`webpack://my-app/./src/app.ts`, `webpack-internal:///./src/app.ts`)
// and Next.js by its layer too (`webpack-internal:///(rsc)/./app/page.tsx`).
const PATH = String.raw`(?:[A-Za-z]:[\\/]|file:\/\/\/?|webpack(?:-internal)?:\/\/[\w@+~-]*\/(?:\([\w-]+\)\/)?|https?:\/\/[\w.-]+(?::\d+)?\/|[\\/])?(?:\.\.?[\\/])*(?:[\w@+~-][\w.@+~-]*[\\/])*[\w@+~-][\w.@+~-]*\.(?:${EXTENSIONS})(?![\w])`;

// Frame formats with more than a path and a line: each one's function name, or a path built
// from a Java package. The generic `path:line` pattern below catches the rest (Node, Rust, C,
// C++, Go's file lines, Ruby, compilers and linters).
const PYTHON_FRAME = /File "([^"]+)", line (\d+)(?:, in ([\w<>.$]+))?/;
// IPython and Jupyter: `File ~/venv/lib/python3.11/site-packages/pandas/core/frame.py:3807, in DataFrame.__getitem__(self, key)`.
const IPYTHON_FRAME = new RegExp(String.raw`^\s*File (${PATH}):(\d+), in ([\w<>.$]+)`);
// `java.base/` before the class is the module, no folder.
const JAVA_FRAME = /\bat\s+(?:[\w.]+\/)?((?:[\w$]+\.)+)([\w$<>-]+)\(([\w$-]+\.(?:java|kt|kts|scala|groovy|clj)):(\d+)\)/;
const CSHARP_FRAME = /\bat\s+([\w.`$<>+]+)\(.*?\)\s+in\s+(.+?):line\s+(\d+)/;
// A dev server's module URL carries a query between the path and the line (`app.ts?t=1712345678:10:5`).
const QUERY = String.raw`(?:\?[\w=&%.-]*)?`;
const NODE_FRAME = new RegExp(String.raw`\bat\s+(?:async\s+)?(?:new\s+)?([^\s()]+)(?:\s+\[as [^\]]+\])?\s+\((${PATH})${QUERY}:(\d+)(?::\d+)?\)`);
const PHP_FRAME = new RegExp(String.raw`#\d+\s+(${PATH})\((\d+)\):\s*([\w\\]+(?:->|::)\w+|\w+)?`);
const PHP_ERROR_AT = new RegExp(String.raw`\bin\s+(${PATH})(?:\s+on\s+line\s+|:)(\d+)`);
// Firefox and Safari: `parseBody@http://localhost:3000/src/server.js:12:5`, `@…` for an anonymous
// function; Firefox writes a nested function after its outer one (`outer/inner@`, `outer/<@`).
const AT_SIGN_FRAME = new RegExp(String.raw`^\s*(?:[^@\s]*\*)?([\w$.<>/]*)@(${PATH})${QUERY}:(\d+)(?::\d+)?\s*$`);
// pytest's long traceback: `app/store.py:8: in load`, outermost first, as Python prints it.
const PYTEST_FRAME = new RegExp(String.raw`^(${PATH}):(\d+): in ([\w<>.]+)\s*$`);
// gdb's and the sanitizers' frames: `#0 0x4f1e2b in Cache::evict(int) /src/cache.cpp:42:7`,
// `#1  0x5555 in handle (c=0x0) at src/server.c:77`.
const NATIVE_FRAME = new RegExp(String.raw`#\d+\s+(?:0x[\da-f]+\s+in\s+)?([^\s(]+)\s*(?:\(.*\))?\s+(?:at\s+)?(${PATH}):(\d+)`);
// C's assert on BSD and macOS, Swift's fatal errors: `…, function main, file src/a.c, line 5.`
const FILE_COMMA_LINE = new RegExp(String.raw`\bfile\s+(${PATH}),\s+line\s+(\d+)`);
// Dart and Flutter: `#0      ProfilePage.build (package:my_app/pages/profile_page.dart:42:31)`; a
// package's `package:my_app/` is the folder of its `lib/`, and `dart:core-patch/` is the SDK's.
const DART_FRAME = new RegExp(String.raw`^#\d+\s+(\S.*?)\s+\((?:package:([\w.]+)\/|(dart:))?(${PATH}):(\d+)(?::\d+)?\)\s*$`);
// Elixir: `(my_app 0.1.0) lib/my_app/worker.ex:12: MyApp.Worker.handle_call/3`, or the call with its arguments.
const ELIXIR_FRAME = new RegExp(String.raw`^\s*\([\w.]+(?: [\w.+-]+)?\) (${PATH}):(\d+): :?([\w.!?]+)[/(]`);
// Erlang: `in function  my_app_server:init/1 (src/my_app_server.erl, line 34)`, a module and its function.
const ERLANG_FRAME = new RegExp(String.raw`\bin (?:function|call from)\s+(\w+):'?(\w+)'?\/\d+\s+\((${PATH}),\s+line\s+(\d+)\)`);
// Perl's die, warn and Carp: `Can't open config at lib/App/Config.pm line 42.`, and a caller
// `App::Runner::run('App::Runner') called at bin/app.pl line 7`. What comes before a die's place is
// the message its source holds.
const PERL_AT = new RegExp(String.raw`^(?:\s*(.*?)\s+)?(called\s+)?at\s+(${PATH})\s+line\s+(\d+)[.,]?`);
// Lua's traceback: `src/game/player.lua:57: in function 'pickup'` (`in method 'Player:pickup'`,
// `in local 'pickup'`, `in function <src/game/player.lua:50>` for one with no name).
const LUA_FRAME = new RegExp(String.raw`^\s*(${PATH}):(\d+): in (?:function|method|local|upvalue|field) '([\w.:]+)'`);
const RUBY_FRAME = new RegExp(String.raw`(${PATH}):(\d+):in\s+[\`'‘]([^'\`’]+)['’]`);
// A Go function as the runtime names it, package path left out: `(*Server).Handle`, `parse`,
// `(*List[...]).Push`. A closure (`.func1`, `.func2.1`, `.gowrap1`) and a method value (`-fm`) are
// code of the function they sit in, which is what the index's chunks are titled by.
const GO_NAME = String.raw`((?:\(\*?\w+(?:\[[^\]]*\])?\)\.)?\w+)(?:\.(?:func|gowrap|deferwrap)?\d+)*(?:\[[^\]]*\])?(?:-fm)?`;
// Go prints the function on one line and its file on the next: `pkg.(*Server).Handle(0xc0001, {0x0, 0x0})`,
// or, for the frame that started a goroutine, `created by pkg.(*Server).Serve in goroutine 1`.
const GO_FUNCTION = new RegExp(String.raw`^\s*(?:created by\s+)?(?:[\w.~-]+\/)*[\w.~-]+?\.${GO_NAME}(?:\([^()]*\)|\s+in goroutine \d+)?$`);
const GO_FILE = /^\s+(\S+\.go):(\d+)(?:\s+\+0x[\da-f]+)?\s*$/;
// gin's recovery log turns that around: the file first (`/app/h.go:42 (0x9a1b2c)`), then the
// function without its package and the line's code (`\t(*Context).JSON: c.Render(code, r)`).
const GIN_FILE = /^(\S+\.go):(\d+) \(0x[\da-f]+\)$/;
const GIN_FUNCTION = new RegExp(String.raw`^\t${GO_NAME}: `);
// A Rust backtrace line: `  12: mycrate::server::handle::h0123456789abcdef`; its `at` line follows.
const RUST_FUNCTION = /^\s*\d+:\s+((?:[\w<>]+::)+[\w<>]+?)(?:::h[\da-f]{16})?\s*$/;
// A link's query (`?plain=1`) goes between the path and its `#L12`, a dev server's before its line;
// Maven writes javac's place as `File.java:[8,1]`.
const PATH_LINE = new RegExp(String.raw`(?<![\w./\\-])(${PATH})(?:${QUERY}:(\d+)(?::\d+)?|\((\d+)(?:,\d+)?\)|${QUERY}#L(\d+)|:\[(\d+),\d+\])?`, 'g');

const ERROR_NAME = /\b((?:[A-Za-z_][\w]*\.)*([A-Z][A-Za-z0-9]*(?:Error|Exception|Panic|Fault|Failure|Warning)))\b(?::\s+([^`\n]+))?/g;
// A message after its severity: Go's `panic:`, and a compiler's or a tool's `error:` and `warning:`
// (`x.c:3:5: warning: unused variable`, coreutils' `tr: warning: an unescaped backslash at end of
// string is not portable`).
const SEVERITY_MESSAGE = /\b(?:panic|fatal error|error(?:\[E\d+\])?|warning(?:\[[\w-]+\])?):\s+([^`\n]+)/i;
// Maven's report of a compiler's message: `[ERROR] /src/main/java/A.java:[8,1] wrong number of type arguments`.
const MAVEN_MESSAGE = /^\s*\[(?:ERROR|WARNING)\]\s+\S+:\[\d+,\d+\]\s+(.+)/;
// Rust before 1.73 quoted the message after `panicked at`; since then the place ends the line and
// the message is the next line.
const RUST_PANIC = /panicked at (?:'([^']+)'|"([^"]+)"|[^:]+:\d+:\d+:$)/;
// Not starting or ending with a space: `'a' in section 'b'` quotes two names, not " in section ".
const QUOTED = /"(\S[^"\n]{6,198}\S)"|'(\S[^'\n]{6,198}\S)'|“(\S[^”\n]{6,198}\S)”|‘(\S[^’\n]{6,198}\S)’/g;
const BACKTICKED = /`([^`\n]{1,200})`/g;
const QUALIFIED = /(?<![\w$.])([A-Za-z_$][\w$]*(?:(?:\.|::|#|->)[A-Za-z_$][\w$]*)+)(\(\))?/g;
const CALL = /(?<![\w$.])([A-Za-z_$][\w$]{2,})\(\)/g;
// Names shaped like identifiers even in prose: snake_case, camelCase, PascalCase with two humps.
// A part of a dotted name is no name of its own (`OrderService` of `orders.OrderService.place`), nor
// a part of a hyphenated word: a target triple's `x86_64` (`x86_64-unknown-linux-gnu`, in every
// issue template's version output), a plugin's `rspec_rails` (`rubocop-rspec_rails`).
const IDENTIFIER =
  /(?<![\w$]|[\w$]\.|[\w$]-)([a-z][a-z0-9]*_[a-z0-9_]*[a-z0-9]|_[a-z0-9_]+|[a-z]+[A-Z][A-Za-z0-9]*|[A-Z][a-z0-9]+[A-Z][A-Za-z0-9]*)(?!\.?[\w$]|-[\w$])/g;
const WORD = /[A-Za-z_][A-Za-z0-9_]{2,}/g;
// A URL names no code (a CodePen's `dyMgMQR`, a docs page's `concepts#heredocs`), nor does an email
// address (`harvey.msgr` of an address a generator printed); a link to a file is read as a path
// before. A URL's host is no word of the code either (`mozilla`, `codepen`), but its path may be:
// a link to the project's docs at `caddyfile/concepts#heredocs` says what the issue is about.
const SCHEME = String.raw`\b[a-z][a-z+.-]*:\/\/`;
const EMAIL = String.raw`[\w.+-]+@[\w-]+(?:\.[\w-]+)*\.[A-Za-z]{2,}\b`;
const NAMELESS = new RegExp(String.raw`${SCHEME}\S+|${EMAIL}`, 'gi');
const WORDLESS = new RegExp(String.raw`${SCHEME}[^/\s]*|${EMAIL}`, 'gi');
/** One part of a qualified name: `Internet`, `email`, `$store`. */
const NAME_PART = /^[A-Za-z_$][\w$]*$/;
const IDENTIFIER_ALONE = /^[A-Za-z_$][\w$]*(?:(?:\.|::|#|->)[A-Za-z_$][\w$]*)*(?:\(\))?$/;
/** Qualifiers that name an object, not a class or module: `self.foo` is the method `foo`. */
const RECEIVERS = new Set(['self', 'this', 'cls', 'super', 'Object', 'exports', 'module', 'window', 'globalThis', '<anonymous>']);
/** Dotted words that are no code: abbreviations and the like. */
const NOT_QUALIFIED = /^(?:e\.g|i\.e|etc\.\w+|vs\.\w+|[\d.]+|www\..*|.*\.(?:com|org|net|io|dev))$/i;

export function extractClues(input: string): Extracted {
  const text = input.length > MAX_INPUT_CHARS ? input.slice(0, MAX_INPUT_CHARS) : input;
  const found = new Collector();
  readJsonFrames(text, found);
  const lines = unescapeTraces(text.replace(/\r\n?/g, '\n')).split('\n', MAX_LINES);
  let goFunction: string | undefined;
  let rustFunction: string | undefined;
  const cut = (whole: string) => (whole.length > MAX_LINE_CHARS ? whole.slice(0, MAX_LINE_CHARS) : whole);
  for (let i = 0; i < lines.length; i++) {
    const line = cut(lines[i]!);
    const next = cut(lines[i + 1] ?? '');
    readFrames(line, found, { goFunction, rustFunction }, next);
    goFunction = GO_FUNCTION.exec(line)?.[0].trim();
    rustFunction = RUST_FUNCTION.exec(line)?.[1];
    readErrors(line, found, next);
    readQuoted(line, found);
    readSymbols(line.replace(NAMELESS, ' '), found);
    readWords(line.replace(WORDLESS, ' '), found);
  }
  return found.result();
}

// A trace in a JSON log line (`"stack_trace":"java.lang.X: y\n\tat com.a.B.c(B.java:1)\n…"`) is one
// line, its newlines, tabs, quotes and (PHP's) slashes escaped: an escaped newline before a frame
// or a traceback's start says so.
const ESCAPED_TRACE = /\\n(?:\\t|\s)*(?:at\s|File \\"|Caused by|Traceback|#\d+\s)/;
const ESCAPES: Record<string, string> = { '\\n': '\n', '\\t': '\t', '\\"': '"', '\\/': '/', '\\\\': '\\' };

/** The lines a JSON log's escaped traces stand for, read as they were printed; other lines as they are. */
function unescapeTraces(text: string): string {
  if (!text.includes('\\n')) return text;
  return text
    .split('\n')
    .map((line) => (ESCAPED_TRACE.test(line) ? line.replace(/\\[nt"/\\]/g, (escape) => ESCAPES[escape]!) : line))
    .join('\n');
}

// An error report in JSON names each frame's file and line as fields of one object: Laravel's and
// Symfony's debug responses (`file`, `line`), Sentry's events (`filename` or `abs_path`, `lineno`,
// `function`; the oldest frame first, as Python prints them), log4j's and Jackson's Java frames
// (`class` or `className`, `method` or `methodName`, `file`, `line`), stacktrace.js (`fileName`,
// `lineNumber`, `functionName`). Read as lines, such a report names paths without their lines, and
// with its slashes escaped (`\/var\/www\/app\/…`, as PHP writes them) no paths at all.
const JSON_LINE_FIELD = /"(?:line|lineno|lineNumber|line_number)"\s*:\s*"?\d/;
const JSON_PATH_KEYS = ['file', 'filename', 'fileName', 'filePath', 'file_path', 'abs_path'];
const JSON_LINE_KEYS = ['line', 'lineno', 'lineNumber', 'line_number'];
const WHOLE_PATH = new RegExp(String.raw`^${PATH}$`);
const JVM_FILE = /^[\w$-]+\.(?:java|kt|kts|scala|groovy)$/;

function readJsonFrames(text: string, found: Collector): void {
  if (!JSON_LINE_FIELD.test(text)) return;
  for (const object of jsonObjects(text)) {
    const paths = JSON_PATH_KEYS.map((key) => object[key]).filter((value): value is string => typeof value === 'string' && WHOLE_PATH.test(value));
    const path = paths[0];
    const line = Number(JSON_LINE_KEYS.map((key) => object[key]).find((value) => typeof value === 'number' || typeof value === 'string'));
    if (typeof path !== 'string' || !Number.isInteger(line) || line < 1) continue;
    const sentry = 'lineno' in object;
    const called = jvmFrame(object, path, sentry) ?? { path, ...symbolOf(textOf(object.functionName) ?? (sentry ? textOf(object.function) : undefined)) };
    found.frame({ ...called, line, text: `${path}:${line}` }, sentry ? 'innermost last' : 'innermost first');
    // Each path the object writes is this frame's, none a mention of its own: Sentry's as the
    // project has it and as it was on the server, a JVM frame's file without its package.
    for (const written of paths) found.framedPath(written);
    // PHP's entry names the function its line calls, not the one holding it: a clue, not the frame's function.
    if (!sentry && typeof object.function === 'string' && typeof object.class === 'string') found.symbol(`${object.class}::${object.function}`);
  }
}

/** A JVM frame's file in its package's folder and its method, from the class the object names. */
function jvmFrame(object: JsonObject, file: string, sentry: boolean): { path: string; symbol?: string } | undefined {
  const className = textOf(object.class) ?? textOf(object.className) ?? (sentry ? textOf(object.module) : undefined);
  if (!className || !JVM_FILE.test(file)) return undefined;
  const parts = className.split('.');
  const method = textOf(object.method) ?? textOf(object.methodName) ?? (sentry ? textOf(object.function) : undefined);
  return { path: [...parts.slice(0, -1), file].join('/'), ...(method ? { symbol: jvmSymbol(parts.at(-1)!, method) } : {}) };
}

function textOf(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** The last part of a qualified name and what came before, receivers dropped; undefined for no name at all. */
export function splitSymbol(written: string): SymbolMention | undefined {
  const cleaned = written
    .replace(/\(\)$/, '')
    .replace(/\(\*?(\w+)\)/g, '$1')
    .replace(/\$\d+$/, '');
  const parts = cleaned.split(/\.|::|#|->|\$|\\/).filter((part) => part !== '' && !RECEIVERS.has(part));
  const name = parts.at(-1);
  if (!name || !NAME_PART.test(name) || name === '<module>') return undefined;
  // `main.main` (Go's package and function): the package adds nothing to look up.
  const qualifier = parts.at(-2) === name ? undefined : parts.at(-2);
  if (!qualifier || !NAME_PART.test(qualifier)) return { name, text: written };
  const outer = parts.at(-3);
  return { name, qualifier, ...(outer && outer !== qualifier && NAME_PART.test(outer) ? { outer } : {}), text: written };
}

/**
 * The class and method a JVM frame is in, as its source names them. `Y$Inner` is the inner class
 * `Inner`; `Y$1` an anonymous class in Y; Kotlin's `Y$render$1.invoke` the body of a lambda in
 * `render`; javac's `lambda$render$0` and Scala's `$anonfun$render$1` a lambda's body in `render`;
 * Scala's `Y$` the object Y.
 */
function jvmSymbol(binaryClass: string, method: string): string {
  const parts = binaryClass.split('$').filter((part) => part !== '' && part !== 'anonfun');
  let anonymous = false;
  while (parts.length > 1 && /^\d+$/.test(parts.at(-1)!)) {
    parts.pop();
    anonymous = true;
  }
  if (anonymous && parts.length > 1 && /^[a-z]/.test(parts.at(-1)!)) {
    const enclosing = parts.pop()!;
    return `${parts.at(-1)!}.${enclosing}`;
  }
  const lambda = /^(?:lambda\$|\$anonfun\$)(\w+?)\$\d+$/.exec(method);
  return `${parts.at(-1)!}.${lambda?.[1] ?? method}`;
}

/**
 * A .NET frame's method as its source names it: the compiler writes a lambda in `Create` as
 * `<Create>b__3_0`, an async or iterator `Load` as `<Load>d__5.MoveNext`, the class holding a
 * lambda's captures as `<>c__DisplayClass3_0`, and a nested class as `Outer+Inner`.
 */
function dotnetName(written: string): string {
  return written
    .replace(/[+.]<>c(?:__DisplayClass\w+)?(?=\.)/g, '')
    .replace(/<(\w+)>[a-z]__\w+(?:\.MoveNext)?$/, '$1')
    .replace(/\+/g, '.');
}

function readFrames(line: string, found: Collector, previous: { goFunction: string | undefined; rustFunction: string | undefined }, next: string): void {
  const python = PYTHON_FRAME.exec(line);
  if (python) return found.frame({ path: python[1]!, line: Number(python[2]), ...symbolOf(python[3]), text: python[0] }, 'innermost last');
  const ipython = IPYTHON_FRAME.exec(line);
  if (ipython) return found.frame({ path: ipython[1]!, line: Number(ipython[2]), ...symbolOf(ipython[3]), text: ipython[0].trim() }, 'innermost last');
  const java = JAVA_FRAME.exec(line);
  if (java) {
    // `at com.x.Y$Inner.method(Y.java:42)`: the file lives in the package's folder.
    const packagePath = java[1]!.split('.').slice(0, -2).join('/');
    const file = packagePath ? `${packagePath}/${java[3]!}` : java[3]!;
    return found.frame({ path: file, line: Number(java[4]), symbol: jvmSymbol(java[1]!.split('.').at(-2)!, java[2]!), text: java[0] });
  }
  const csharp = CSHARP_FRAME.exec(line);
  if (csharp) return found.frame({ path: csharp[2]!, line: Number(csharp[3]), ...symbolOf(dotnetName(csharp[1]!)), text: csharp[0] });
  const node = NODE_FRAME.exec(line);
  if (node) return found.frame({ path: node[2]!, line: Number(node[3]), ...symbolOf(node[1]), text: node[0] });
  const php = PHP_FRAME.exec(line);
  if (php) return found.phpFrame({ path: php[1]!, line: Number(php[2]), text: php[0] }, php[3]);
  const atSign = AT_SIGN_FRAME.exec(line);
  if (atSign) {
    const innermostNamed = atSign[1]!.split('/').findLast((part) => /^[\w$.]+$/.test(part));
    return found.frame({ path: atSign[2]!, line: Number(atSign[3]), ...symbolOf(innermostNamed), text: atSign[0].trim() });
  }
  const pytest = PYTEST_FRAME.exec(line);
  if (pytest) return found.frame({ path: pytest[1]!, line: Number(pytest[2]), ...symbolOf(pytest[3]), text: pytest[0].trim() }, 'innermost last');
  const dart = DART_FRAME.exec(line);
  if (dart) {
    // The SDK's own frames (`int._parse`, `_rootRun`) are no code of the workspace, as Node's internals.
    if (dart[3]) return;
    const path = dart[2] ? `${dart[2]}/lib/${dart[4]!}` : dart[4]!;
    // `_FormState.build.<anonymous closure>`: the closure is code of the method it sits in.
    return found.frame({ path, line: Number(dart[5]), ...symbolOf(dart[1]!.replace(/^new /, '').replace(/(?:\.<[^>]*>)+$/, '')), text: dart[0].trim() });
  }
  const elixir = ELIXIR_FRAME.exec(line);
  if (elixir) return found.frame({ path: elixir[1]!, line: Number(elixir[2]), ...symbolOf(elixir[3]), text: elixir[0].trim() });
  const erlang = ERLANG_FRAME.exec(line);
  if (erlang) return found.frame({ path: erlang[3]!, line: Number(erlang[4]), symbol: `${erlang[1]!}.${erlang[2]!}`, text: erlang[0] });
  const perl = PERL_AT.exec(line);
  if (perl) {
    // A caller's line names the sub it called (`App::Runner::run(…) called at`), not its own.
    if (!perl[2] && perl[1]) found.message(perl[1]);
    return found.frame({ path: perl[3]!, line: Number(perl[4]), text: perl[0].trim() });
  }
  const lua = LUA_FRAME.exec(line);
  if (lua) return found.frame({ path: lua[1]!, line: Number(lua[2]), ...symbolOf(lua[3]!.replace(':', '.')), text: lua[0].trim() });
  const native = NATIVE_FRAME.exec(line);
  if (native) return found.frame({ path: native[2]!, line: Number(native[3]), ...symbolOf(native[1]), text: native[0] });
  const fileComma = FILE_COMMA_LINE.exec(line);
  if (fileComma) return found.frame({ path: fileComma[1]!, line: Number(fileComma[2]), text: fileComma[0] });
  const ruby = RUBY_FRAME.exec(line);
  if (ruby) return found.frame({ path: ruby[1]!, line: Number(ruby[2]), ...symbolOf(ruby[3]), text: ruby[0] });
  const phpError = PHP_ERROR_AT.exec(line);
  if (phpError) return found.phpFrame({ path: phpError[1]!, line: Number(phpError[2]), text: phpError[0] });
  const go = GO_FILE.exec(line);
  if (go) {
    const fn = previous.goFunction ? GO_FUNCTION.exec(previous.goFunction) : null;
    return found.frame({ path: go[1]!, line: Number(go[2]), ...goSymbol(fn?.[1]), text: go[0].trim() });
  }
  const gin = GIN_FILE.exec(line);
  if (gin) return found.frame({ path: gin[1]!, line: Number(gin[2]), ...goSymbol(GIN_FUNCTION.exec(next)?.[1]), text: gin[0] });
  for (const match of line.matchAll(PATH_LINE)) {
    const lineNumber = match[2] ?? match[3] ?? match[4] ?? match[5];
    const path = match[1]!;
    if (lineNumber === undefined) {
      found.path(path);
      continue;
    }
    // Rust prints a frame's function on the line before its `at src/x.rs:12:5`.
    const symbol = /^\s*at\s/.test(line) ? symbolOf(previous.rustFunction) : {};
    found.frame({ path, line: Number(lineNumber), ...symbol, text: match[0], ...(LINK.test(path) ? { link: true as const } : {}) });
  }
}

/** A generic Go function's or receiver's type parameters (`(*List[...]).Push`) are no part of its name in the source. */
function goSymbol(written: string | undefined): { symbol?: string } {
  return symbolOf(written?.replace(/\[[^\]]*\]/g, ''));
}

function symbolOf(written: string | undefined): { symbol?: string } {
  if (!written) return {};
  const split = splitSymbol(written);
  return split ? { symbol: split.qualifier ? `${split.qualifier}.${split.name}` : split.name } : {};
}

function readErrors(line: string, found: Collector, next: string): void {
  for (const match of line.matchAll(ERROR_NAME)) {
    found.error(match[2]!);
    if (match[3]) found.message(match[3]);
  }
  const severity = SEVERITY_MESSAGE.exec(line) ?? MAVEN_MESSAGE.exec(line);
  if (severity) found.message(severity[1]!);
  const rust = RUST_PANIC.exec(line);
  if (!rust) return;
  const message = rust[1] ?? rust[2] ?? next.trim();
  if (message) found.message(message);
}

function readQuoted(line: string, found: Collector): void {
  if (PYTHON_FRAME.test(line)) return;
  for (const match of line.matchAll(QUOTED)) found.message(match[1] ?? match[2] ?? match[3] ?? match[4]!);
  for (const match of line.matchAll(BACKTICKED)) {
    const inner = match[1]!.trim();
    if (IDENTIFIER_ALONE.test(inner)) {
      found.symbol(inner);
    } else if (/\s/.test(inner)) {
      found.message(inner);
    }
  }
}

/** A path written as a URL: a link to a file on a code host, or a browser's. */
const LINK = /^https?:/;
const FILE_NAME = new RegExp(String.raw`\.(?:${EXTENSIONS})$`);
const FILE_NAME_THEN_COLONS = new RegExp(String.raw`^[\w$.-]*\.(?:${EXTENSIONS})::`);

function readSymbols(line: string, found: Collector): void {
  for (const match of line.matchAll(QUALIFIED)) {
    // pytest's node ids name the test after its file: `test_store.py::TestCache::test_load`.
    const written = match[1]!.replace(FILE_NAME_THEN_COLONS, '');
    if (NOT_QUALIFIED.test(written) || FILE_NAME.test(written)) continue;
    found.symbol(written + (match[2] ?? ''));
  }
  for (const match of line.matchAll(CALL)) found.symbol(match[1]!);
  for (const match of line.matchAll(IDENTIFIER)) found.symbol(match[1]!);
}

function readWords(line: string, found: Collector): void {
  for (const match of line.matchAll(WORD)) found.word(match[0].toLowerCase());
}

/** Gathers clues without repeats, each kind up to its cap. */
class Collector {
  private readonly frames: Frame[] = [];
  private readonly frameKeys = new Map<string, Frame>();
  /** The frames of Python tracebacks. */
  private readonly innermostLast = new Set<Frame>();
  private readonly paths = new Set<string>();
  /** Paths written as part of a frame, though not as the frame's path: no mentions of their own. */
  private readonly framedPaths = new Set<string>();
  private readonly links = new Set<string>();
  private readonly symbols = new Map<string, SymbolMention>();
  private readonly errors = new Set<string>();
  private readonly messages = new Set<string>();
  private readonly words = new Map<string, number>();
  /** The last PHP frame read, whose function the next PHP entry's call names. */
  private phpCaller: Frame | undefined;

  frame(frame: Frame, order: 'innermost first' | 'innermost last' = 'innermost first'): void {
    this.keep(frame, order);
  }

  /** The frame as kept (the one seen before at that path and line), or undefined when it is not kept. */
  private keep(frame: Frame, order: 'innermost first' | 'innermost last' = 'innermost first'): Frame | undefined {
    const path = normalisePath(frame.path);
    if (!path) return undefined;
    const key = `${path}:${frame.line ?? ''}`;
    const seen = this.frameKeys.get(key);
    if (seen) {
      // Rust says where it panicked, then the same place again as a frame with its function.
      if (!seen.symbol && frame.symbol) {
        seen.symbol = frame.symbol;
        this.symbol(frame.symbol);
      }
      return seen;
    }
    if (this.frames.length >= MAX_FRAMES) return undefined;
    const kept = { ...frame, path };
    this.frameKeys.set(key, kept);
    this.frames.push(kept);
    if (order === 'innermost last') this.innermostLast.add(kept);
    if (frame.symbol) this.symbol(frame.symbol);
    return kept;
  }

  /**
   * A frame of PHP's trace (`#0 /app/Checkout.php(54): App\Cart->total()`), or the place it was
   * thrown (`… in /app/Cart.php:31`). A PHP entry names the function its line calls, not the one
   * holding it: `Cart->total` is a symbol to look up, and the function holding the entry before it,
   * innermost first (the thrown site's, for `#0`). Named as the line's own function, it sent a
   * frame whose file defines the callee too to the callee's definition.
   */
  phpFrame(frame: Frame, callee?: string): void {
    const named = callee ? symbolOf(callee).symbol : undefined;
    if (named) {
      this.symbol(named);
      // A `#0` starts a trace: its call names the thrown site's function, not a frame of a trace before.
      const startsTrace = frame.text.startsWith('#0') && this.phpCaller?.text.startsWith('#') === true;
      if (this.phpCaller && !this.phpCaller.symbol && !startsTrace) this.phpCaller.symbol = named;
    }
    this.phpCaller = this.keep(frame);
  }

  framedPath(written: string): void {
    const path = normalisePath(written);
    if (path) this.framedPaths.add(path);
  }

  path(written: string): void {
    const path = normalisePath(written);
    if (!path || this.paths.size + this.links.size >= MAX_PATHS) return;
    if (LINK.test(written)) this.links.add(path);
    else this.paths.add(path);
  }

  symbol(written: string): void {
    const split = splitSymbol(written);
    if (!split || split.name.length < 3) return;
    const key = `${split.qualifier ?? ''}.${split.name}`;
    if (this.symbols.has(key) || this.symbols.size >= MAX_SYMBOLS) return;
    // An error class is its own kind of clue.
    if (!split.qualifier && this.errors.has(split.name)) return;
    this.symbols.set(key, split);
  }

  error(name: string): void {
    if (this.errors.size < MAX_ERRORS) this.errors.add(name);
  }

  message(written: string): void {
    const message = written.trim().replace(/\s+/g, ' ');
    if (message.length < MIN_MESSAGE_CHARS || this.messages.size >= MAX_MESSAGES) return;
    // Two words at least: one word is a symbol or a word, not a message.
    if ((message.match(/[A-Za-z]{2,}/g) ?? []).length < 2) return;
    this.messages.add(message.length > MAX_MESSAGE_CHARS ? message.slice(0, MAX_MESSAGE_CHARS) : message);
  }

  word(word: string): void {
    if (isStopword(word)) return;
    const count = this.words.get(word);
    if (count !== undefined) this.words.set(word, count + 1);
    else if (this.words.size < MAX_WORDS) this.words.set(word, 1);
  }

  result(): Extracted {
    const framed = new Set([...this.frames.map((frame) => frame.path), ...this.framedPaths]);
    // The Python frames turned around in the places they hold: a chained traceback's last, the
    // exception that ended the program, comes first.
    const turned = [...this.innermostLast].reverse();
    let next = 0;
    return {
      frames: this.frames.map((frame) => (this.innermostLast.has(frame) ? turned[next++]! : frame)),
      paths: [...this.paths].filter((path) => !framed.has(path) && !this.links.has(path)),
      links: [...this.links].filter((path) => !framed.has(path)),
      symbols: [...this.symbols.values()].filter((symbol) => symbol.qualifier || !this.errors.has(symbol.name)),
      errors: [...this.errors],
      messages: [...this.messages],
      words: [...this.words].map(([word, count]) => ({ word, count })),
    };
  }
}

/**
 * `/`-separated, without `file://`, `webpack://`, a URL's host, a code host's `owner/repo/blob/ref`,
 * leading `./` and `../` or a trailing `)`; undefined for Node's own modules.
 */
export function normalisePath(written: string): string | undefined {
  let path = written
    .replace(/\\/g, '/')
    .replace(/^file:\/\/\/?/, '/')
    .replace(/^webpack(?:-internal)?:\/\/[^/]*\/(?:\([\w-]+\)\/)?/, '/')
    .replace(/^https?:\/\/[^/]+/, '')
    // GitHub's and Gitea's `/owner/repo/blob/ref/`, GitLab's `/group/repo/-/blob/ref/`.
    .replace(/^\/(?:[^/]+\/)+?(?:-\/)?blob\/[^/]+\//, '');
  if (/^(?:node|internal)[:/]/.test(written)) return undefined;
  path = path.replace(/^(?:\.\.?\/)+/, '').replace(/\/\.\//g, '/');
  return path === '' ? undefined : path;
}
