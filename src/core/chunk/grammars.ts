// Loads the tree-sitter runtime and grammars from @vscode/tree-sitter-wasm.
//
// Where the wasm files are: by default, resolved from the package's own package.json through
// Node's resolver, from source (ESM) and from the esbuild CommonJS bundles (esbuild.mjs defines
// import.meta.url there) as long as node_modules ships with them.
// A host that copies the wasm files elsewhere (a packaged VS Code extension) passes `wasmDir`.

import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import TreeSitter from '@vscode/tree-sitter-wasm';
import type { Language } from '@vscode/tree-sitter-wasm';

let runtime: Promise<void> | undefined;

/** Grammar base names (`cpp`, `c-sharp`, …) mapped to loaded languages, all loaded in parallel. */
export async function loadGrammars(grammars: readonly string[], wasmDir = defaultWasmDir()): Promise<Map<string, Language>> {
  try {
    // The runtime is one wasm instance per process, shared by every chunker: started once, and
    // again only if starting failed (initialising it twice would orphan existing parsers).
    runtime ??= TreeSitter.Parser.init({ locateFile: (file: string) => path.join(wasmDir, file) }).catch((error: unknown) => {
      runtime = undefined;
      throw error;
    });
    await runtime;
    const loaded = await Promise.all(
      grammars.map(async (grammar) => {
        const bytes = await readFile(path.join(wasmDir, `tree-sitter-${grammar}.wasm`));
        return [grammar, await TreeSitter.Language.load(bytes)] as const;
      }),
    );
    return new Map(loaded);
  } catch (cause) {
    // A packaging mistake, not a condition to live with: say where we looked.
    throw new Error(`cannot load tree-sitter grammars from ${wasmDir}`, { cause });
  }
}

function defaultWasmDir(): string {
  const packageJson = createRequire(import.meta.url).resolve('@vscode/tree-sitter-wasm/package.json');
  return path.join(path.dirname(packageJson), 'wasm');
}
