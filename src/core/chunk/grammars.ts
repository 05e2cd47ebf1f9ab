// Loads the tree-sitter runtime and grammars from @vscode/tree-sitter-wasm.
//
// Where the wasm files are: by default, resolved from the package's own package.json through
// Node's resolver, from source (ESM) and from the esbuild CommonJS bundles (esbuild.mjs defines
// import.meta.url there) as long as node_modules ships with them.
// A host that copies the wasm files elsewhere (a packaged VS Code extension) passes `wasmDir`.

import { constants } from 'node:fs';
import { access, readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import TreeSitter from '@vscode/tree-sitter-wasm';
import type { Language } from '@vscode/tree-sitter-wasm';

let runtime: Promise<void> | undefined;
/**
 * Grammars loaded in this process, by folder and name. A loaded grammar is an immutable wasm module
 * of a few megabytes that the runtime never frees, and every Engine.open makes a chunker: a process
 * that opened about a hundred indexes (a benchmark, a long-lived server) ran the runtime out of
 * memory when each chunker loaded its own copies.
 */
const loaded = new Map<string, Promise<Language>>();

/** A grammar (`cpp`, `c-sharp`, …) by its base name, loaded once per process and folder. */
export async function loadGrammar(grammar: string, wasmDir = defaultWasmDir()): Promise<Language> {
  try {
    await startRuntime(wasmDir);
    return await cachedGrammar(wasmDir, grammar);
  } catch (cause) {
    // A packaging mistake, not a condition to live with: say where we looked.
    throw new Error(`cannot load tree-sitter grammars from ${wasmDir}`, { cause });
  }
}

/**
 * Starts the runtime, and checks that every grammar in `grammars` is there to load later: a
 * package shipped without one fails here, at once, not at the first file of its language.
 */
export async function startGrammars(grammars: readonly string[], wasmDir = defaultWasmDir()): Promise<void> {
  try {
    await startRuntime(wasmDir);
    await Promise.all(grammars.map((grammar) => access(grammarFile(wasmDir, grammar), constants.R_OK)));
  } catch (cause) {
    throw new Error(`cannot load tree-sitter grammars from ${wasmDir}`, { cause });
  }
}

/** The runtime is one wasm instance per process, shared by every chunker. */
function startRuntime(wasmDir: string): Promise<void> {
  // Started once, and again only if starting failed (initialising it twice would orphan existing parsers).
  runtime ??= TreeSitter.Parser.init({ locateFile: (file: string) => path.join(wasmDir, file) }).catch((error: unknown) => {
    runtime = undefined;
    throw error;
  });
  return runtime;
}

function grammarFile(wasmDir: string, grammar: string): string {
  return path.join(wasmDir, `tree-sitter-${grammar}.wasm`);
}

function cachedGrammar(wasmDir: string, grammar: string): Promise<Language> {
  const key = `${wasmDir}\0${grammar}`;
  let language = loaded.get(key);
  if (!language) {
    language = readFile(grammarFile(wasmDir, grammar)).then((bytes) => TreeSitter.Language.load(bytes));
    // A failed load (a missing file) is tried again next time rather than remembered.
    language.catch(() => loaded.delete(key));
    loaded.set(key, language);
  }
  return language;
}

export function defaultWasmDir(): string {
  const packageJson = createRequire(import.meta.url).resolve('@vscode/tree-sitter-wasm/package.json');
  return path.join(path.dirname(packageJson), 'wasm');
}
