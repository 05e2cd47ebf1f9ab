// The chunker: one file's text in, titled line-range chunks out. It picks the splitter by
// language (Markdown, HTML, AsciiDoc and reStructuredText by heading, code by symbol, JSON/YAML by
// key path, anything else by paragraph and line window) and guarantees, whatever the splitter:
// line numbers of the original file, chunks in order, no blank chunk, no chunk over the byte cap,
// and no exception.

import type { Language, Parser } from '@vscode/tree-sitter-wasm';
import TreeSitter from '@vscode/tree-sitter-wasm';
import { DEFAULT_INDEX_OPTIONS } from '../options.ts';
import type { ChunkDraft } from '../types.ts';
import { MIN_CHUNK_BYTES } from './byte-cap.ts';
import { chunkCode } from './code.ts';
import { CODE_LANGUAGES } from './code-languages.ts';
import { defaultWasmDir, loadGrammar, startGrammars } from './grammars.ts';
import { chunkAsciidoc } from './asciidoc.ts';
import { chunkHtml } from './html.ts';
import { outlineJson } from './json.ts';
import { detectLanguage, KNOWN_LANGUAGES, languageKind } from './language.ts';
import { normalizeText, toSourceLines, type SourceLines } from './lines.ts';
import { chunkMarkdown } from './markdown.ts';
import { chunkOutline } from './outline.ts';
import { chunkRst } from './rst.ts';
import { chunkText } from './text.ts';
import { outlineYaml } from './yaml.ts';

export { detectLanguage } from './language.ts';

const MARKDOWN = new Set(['markdown', 'mdx']);
const JSON_LIKE = new Set(['json', 'jsonc', 'json5']);

/** Code chunked by paragraph and line window, for want of a grammar or an outline, as `split` below routes it: assembly, Makefiles, SQL, Kotlin. */
const WINDOWED_CODE = [...KNOWN_LANGUAGES].filter(
  (language) => languageKind(language) === 'code' && !CODE_LANGUAGES[language] && !JSON_LIKE.has(language) && language !== 'yaml',
);

/**
 * Bumped for a language when the same text would now be chunked differently, so that an index
 * built before chunks that language's files again at its next sync (IndexStore.markChunkedBefore)
 * rather than keeping the old chunks until each file is edited. Languages not listed are at 0.
 * 1: JavaScript and TypeScript objects of many entries over the cap are chunked per entry, and a
 *    multi-line `export default {…}` is a symbol of its own. Markdown: a line over 500 characters
 *    is neither a heading nor a heading's text. Windowed code: a chunk is titled by the definition
 *    it opens or continues (`SYM_FUNC_START(__memcpy)`), not by its first line (a licence header).
 *    HTML: split at headings and titled by them, tables of contents left out. Plain text: Kconfig,
 *    yacc and lex files are code of their own languages, no longer plain text: their chunks are
 *    titled by the entry or rule they open (`config PREEMPT_RCU`), not by a licence header.
 *    JSON and YAML: a sequence item is titled by its name (`steps > Run the tests`, jq's manual's
 *    `sections > Assignment`), not by its index, when it has a naming member (outline.ts).
 *    C and C++: a line holding only a macro's name (`NLOHMANN_JSON_NAMESPACE_BEGIN`, `Q_OBJECT`) and
 *    the kernel's lock annotations (`__releases(x)`) are hidden from the parser, so the classes and
 *    functions around them are found whole (skeleton.ts); `T& get()` and `operator*` are named.
 *    AsciiDoc and reStructuredText: split at section titles, as Markdown is (asciidoc.ts, rst.ts).
 * 2: Markdown: a section that is a list of links (a table of contents, "See also") is left out, as
 *    HTML's is. HTML: a section's share of link text is counted in letters and digits, as Markdown's.
 *    Plain text: a source map (`*.map`, read as plain text) is not indexed (crawl/source-map.ts).
 * 3: Markdown: a heading's HTML (`<a id="…"></a>`, a comment) is left out of its title.
 *
 * Code by symbol (code.ts) is at 2 where it was at 1, else at 1: lines between symbols that close
 * one (`#endif`, `}`) join the symbol above them and lines that open one (`#if X`, a section's
 * comment) the symbol below, a blank line away or not, rather than stand as chunks of their own.
 * C and C++ at 3: a macro call at the margin that spans lines is a chunk of its own, titled by the
 * macro and the names it defines (`TRACE_EVENT(sched_switch)`), not part of the code around it.
 */
export const CHUNKING_REVISIONS: Readonly<Record<string, number>> = {
  markdown: 3,
  mdx: 3,
  html: 2,
  plaintext: 2,
  json: 1,
  jsonc: 1,
  json5: 1,
  yaml: 1,
  asciidoc: 1,
  restructuredtext: 1,
  ...Object.fromEntries(WINDOWED_CODE.map((language) => [language, 1])),
  ...Object.fromEntries(Object.keys(CODE_LANGUAGES).map((language) => [language, 1])),
  javascript: 2,
  typescript: 2,
  tsx: 2,
  c: 3,
  cpp: 3,
};

export interface Chunker {
  /**
   * Splits one file's text, loading its language's grammar the first time one is needed. Never
   * rejects for any input text: on internal failure falls back to line windows.
   */
  chunk(relPath: string, text: string): Promise<{ language: string; chunks: ChunkDraft[] }>;
}

export interface ChunkerOptions {
  /** Upper bound of a chunk's text in UTF-8 bytes (IndexOptions.chunkMaxBytes); at least 4, so any character fits. */
  chunkMaxBytes: number;
  /**
   * Folder holding tree-sitter.wasm and the tree-sitter-<grammar>.wasm files. Default: the `wasm`
   * folder of the installed @vscode/tree-sitter-wasm package; a bundle shipped without
   * node_modules must copy the files and say where.
   */
  wasmDir?: string;
}

/**
 * Starts the tree-sitter runtime; each grammar is loaded when the first file of its language comes
 * (a few to tens of milliseconds, once per process). All fifteen took 72 MB of a thread's memory,
 * the C/C++ one alone 19 MB, and each indexing thread has its own: a folder holds a few languages.
 */
export async function createChunker(options: ChunkerOptions): Promise<Chunker> {
  const maxBytes = Number.isFinite(options.chunkMaxBytes) ? Math.max(MIN_CHUNK_BYTES, Math.floor(options.chunkMaxBytes)) : DEFAULT_INDEX_OPTIONS.chunkMaxBytes;
  const grammars = [...new Set(Object.values(CODE_LANGUAGES).map((spec) => spec.grammar))];
  // Resolved once: every file asks for its grammar.
  const wasmDir = options.wasmDir ?? defaultWasmDir();
  await startGrammars(grammars, wasmDir);
  const parser = new TreeSitter.Parser();
  return {
    async chunk(relPath, text) {
      const normalized = normalizeText(text);
      const language = detectLanguage(relPath, firstLine(normalized));
      const spec = CODE_LANGUAGES[language];
      let grammar: Language | undefined;
      try {
        grammar = spec && (await loadGrammar(spec.grammar, wasmDir));
      } catch {
        // A grammar that will not compile costs its language the structure, as a splitter bug would.
      }
      const src = toSourceLines(normalized, relPath);
      try {
        return { language, chunks: split(src, normalized, language, grammar, parser, maxBytes) };
      } catch {
        // A splitter bug must cost one file its structure, not the whole index its file.
        return { language, chunks: chunkText(src, languageKind(language), maxBytes) };
      }
    },
  };
}

function split(src: SourceLines, text: string, language: string, grammar: Language | undefined, parser: Parser, maxBytes: number): ChunkDraft[] {
  if (MARKDOWN.has(language)) return chunkMarkdown(src, maxBytes);
  if (language === 'html') return chunkHtml(src, text, maxBytes);
  if (language === 'asciidoc') return chunkAsciidoc(src, maxBytes);
  if (language === 'restructuredtext') return chunkRst(src, maxBytes);
  if (JSON_LIKE.has(language)) {
    const outline = outlineJson(text);
    return outline ? chunkOutline(src, outline, maxBytes) : chunkText(src, 'code', maxBytes);
  }
  if (language === 'yaml') return chunkOutline(src, outlineYaml(src), maxBytes);
  const spec = CODE_LANGUAGES[language];
  if (spec && grammar) return chunkCode(src, text, spec, grammar, parser, maxBytes) ?? chunkText(src, 'code', maxBytes);
  return chunkText(src, languageKind(language), maxBytes);
}

function firstLine(text: string): string {
  const end = text.indexOf('\n');
  return text.slice(0, end < 0 ? Math.min(text.length, 200) : Math.min(end, 200));
}
