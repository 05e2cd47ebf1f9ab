// Bundles the suites that run inside VS Code into out/test/. CommonJS (.cjs) because VS Code loads
// extensionTestsPath with require() and package.json says "type": "module". mocha stays external
// so that the runner and every test file share one instance, and `vscode` only exists in the host.
import { readdirSync } from 'node:fs';
import { build } from 'esbuild';

const common = {
  bundle: true,
  platform: 'node',
  target: 'node22',
  format: 'cjs',
  sourcemap: 'inline',
  external: ['vscode', 'mocha'],
  // esbuild leaves import.meta empty in CommonJS output.
  define: { 'import.meta.dirname': '__dirname' },
  outExtension: { '.js': '.cjs' },
  logLevel: 'warning',
};

const tests = readdirSync('test/integration').filter((f) => f.endsWith('.test.ts'));
await build({ ...common, entryPoints: { index: 'test/integration/index.ts' }, outdir: 'out/test' });
await build({ ...common, entryPoints: tests.map((f) => `test/integration/${f}`), outdir: 'out/test/integration' });
