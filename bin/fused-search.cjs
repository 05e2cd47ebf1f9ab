#!/usr/bin/env node
// The CLI is bundled to dist/cli.cjs by `npm run build` (run by `npm test` and before packing).
//
// It runs under `--liftoff-only`: V8's optimising tier recompiles the tree-sitter grammars' huge
// parse functions as they get hot, which took the peak memory of an index run from about 190 MB
// to 730 MB without parsing any faster. The flag only works from the command line, so the
// launcher starts Node again with it.
const path = require('node:path');
const { spawnSync } = require('node:child_process');

const cli = path.join(__dirname, '..', 'dist', 'cli.cjs');
if (process.execArgv.includes('--liftoff-only')) {
  require(cli);
} else {
  const child = spawnSync(process.execPath, ['--liftoff-only', cli, ...process.argv.slice(2)], { stdio: 'inherit' });
  if (child.signal) process.kill(process.pid, child.signal);
  process.exitCode = child.status ?? 1;
}
