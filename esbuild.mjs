// Bundles every entry point. Node-only bundles are CommonJS (.cjs) because VS Code loads extensions
// with require(); better-sqlite3 and onnxruntime-node stay external so their prebuilt binaries are
// found in node_modules.
// The webview's script and styles go to media/dist/, the only folder the webview may load from.
import { copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';

const production = process.argv.includes('--production');
// `--out DIR` writes DIR/dist and DIR/media/dist instead (a test checks a shipped build there).
const outIndex = process.argv.indexOf('--out');
const out = outIndex > 0 ? process.argv[outIndex + 1] : '.';
const mediaOut = join(out, 'media', 'dist');

const node = {
  bundle: true,
  platform: 'node',
  target: 'node22',
  format: 'cjs',
  sourcemap: !production,
  minify: production,
  external: ['better-sqlite3', 'onnxruntime-node', 'vscode'],
  // The engine finds its tree-sitter grammars from import.meta.url, which CommonJS lacks.
  banner: { js: "const __importMetaUrl = require('node:url').pathToFileURL(__filename).href;" },
  define: {
    'import.meta.url': '__importMetaUrl',
    // Test-only code sits behind this check (src/protocol/worker.ts, CrashForTest): as a constant
    // in the shipped bundle, the minifier drops it.
    ...(production ? { 'process.env.FUSED_SEARCH_TEST_HOOKS': '"off"' } : {}),
  },
  logLevel: 'warning',
};

await Promise.all([
  build({
    ...node,
    entryPoints: {
      cli: 'src/cli/main.ts',
      extension: 'src/extension/extension.ts',
      worker: 'src/worker/worker.ts',
      // The indexer's pool threads (src/core/prepare/pool.ts), started beside whichever bundle indexes.
      'prepare-worker': 'src/core/prepare/worker.ts',
      // The bulk writer's thread (src/core/store/batch-writer.ts), likewise.
      'store-writer': 'src/core/store/writer-thread.ts',
    },
    outExtension: { '.js': '.cjs' },
    outdir: join(out, 'dist'),
  }),
  build({
    bundle: true,
    platform: 'browser',
    target: 'chrome120',
    format: 'iife',
    sourcemap: !production,
    minify: production,
    entryPoints: { panel: 'media/src/panel.ts' },
    outdir: mediaOut,
    logLevel: 'warning',
  }),
]);
mkdirSync(mediaOut, { recursive: true });
copyFileSync('media/src/panel.css', join(mediaOut, 'panel.css'));
for (const file of ['codicon.css', 'codicon.ttf']) copyFileSync(`node_modules/@vscode/codicons/dist/${file}`, join(mediaOut, file));
