// Bundles every entry point into dist/. Node-only bundles are CommonJS (.cjs) because VS Code
// loads extensions with require(); better-sqlite3 stays external so its prebuilt binary is found.
import { build } from 'esbuild';

const node = {
  bundle: true,
  platform: 'node',
  target: 'node22',
  format: 'cjs',
  sourcemap: true,
  external: ['better-sqlite3', 'vscode'],
  logLevel: 'warning',
};

await build({ ...node, entryPoints: { cli: 'src/cli/main.ts', extension: 'src/extension/extension.ts' }, outExtension: { '.js': '.cjs' }, outdir: 'dist' });
