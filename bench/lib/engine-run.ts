// Benchmarks that run the engine in their own process run under the settings the CLI and the
// extension's worker start it with (src/core/engine-process.ts), so that their memory and timings
// are a user's. Those settings only take at process start, so the script starts again with them.

import { spawnSync } from 'node:child_process';
import { ENGINE_NODE_FLAGS, engineEnvironment } from '../../src/core/engine-process.ts';

/** Runs `main` here if this process has the engine's flags, else this script again in one that has. */
export async function runAsEngine(main: () => Promise<void>): Promise<void> {
  if (ENGINE_NODE_FLAGS.every((flag) => process.execArgv.includes(flag))) return main();
  const child = spawnSync(process.execPath, [...process.execArgv, ...ENGINE_NODE_FLAGS, ...process.argv.slice(1)], {
    stdio: 'inherit',
    env: engineEnvironment(),
  });
  process.exitCode = child.status ?? 1;
}
