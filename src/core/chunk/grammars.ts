// Loads the tree-sitter runtime and grammars from @vscode/tree-sitter-wasm.
//
// Where the wasm files are: by default, resolved from the package's own package.json through
// Node's resolver, which works from source (ESM, import.meta.url) and from an esbuild CommonJS
// bundle (import.meta is empty there, __filename is not) as long as node_modules ships with it.
// A host that copies the wasm files elsewhere (a packaged VS Code extension) passes `wasmDir`.

import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import TreeSitter from '@vscode/tree-sitter-wasm';
import type { Language } from '@vscode/tree-sitter-wasm';

let runtime: Promise<void> | undefined;

/** Grammar base names (`cpp`, `c-sharp`, …) mapped to loaded languages, all loaded in parallel. */
export async function loadGrammars(grammars: readonly string[], wasmDir = defaultWasmDir()): Promise<Map<string, Language>> {
  // The runtime is one wasm instance per process; every chunker shares it.
  runtime ??= TreeSitter.Parser.init({ locateFile: (file: string) => path.join(wasmDir, file) });
  await runtime;
  const loaded = await Promise.all(
    grammars.map(async (grammar) => {
      const bytes = await readFile(path.join(wasmDir, `tree-sitter-${grammar}.wasm`));
      return [grammar, await TreeSitter.Language.load(bytes)] as const;
    }),
  );
  return new Map(loaded);
}

function defaultWasmDir(): string {
  // `??`: in a CommonJS bundle esbuild leaves import.meta empty.
  const here = import.meta.url ?? pathToFileURL(__filename).href;
  const packageJson = createRequire(here).resolve('@vscode/tree-sitter-wasm/package.json');
  return path.join(path.dirname(packageJson), 'wasm');
}
