// The extension tests entry: VS Code requires the bundle of this file (out/test/index.cjs) in the
// extension host and awaits run(); a rejection is reported as a failed suite.
// Test files are bundled one by one next to it (out/test/integration/*.test.cjs) and loaded by
// mocha with require(), so they share this mocha instance and see the real `vscode` module.
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { format } from 'node:util';
import Mocha from 'mocha';
import { OUTPUT_PREFIX_ENV, RESULTS_FILE_ENV, type Counts } from '../../scripts/vscode-host/protocol.ts';

export async function run(): Promise<void> {
  const prefix = process.env[OUTPUT_PREFIX_ENV];
  if (prefix) {
    Mocha.reporters.Base.consoleLog = (...args: unknown[]) => {
      for (const line of format(...args).split('\n')) console.log(`${prefix}${line}`);
    };
  }
  const mocha = new Mocha({ ui: 'tdd', color: false, timeout: 30_000 });
  const dir = join(import.meta.dirname, 'integration');
  for (const file of readdirSync(dir)
    .filter((f) => f.endsWith('.test.cjs'))
    .sort()) {
    mocha.addFile(join(dir, file));
  }
  const stats = await new Promise<Mocha.Stats>((ok) => {
    const runner = mocha.run(() => ok(runner.stats!));
  });
  const resultsFile = process.env[RESULTS_FILE_ENV];
  if (resultsFile) {
    const counts: Counts = { passed: stats.passes, failed: stats.failures };
    writeFileSync(resultsFile, JSON.stringify(counts));
  }
  if (stats.failures > 0) throw new Error(`${stats.failures} of ${stats.tests} integration tests failed`);
  if (stats.tests === 0) throw new Error('no integration tests ran');
}
