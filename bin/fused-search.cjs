#!/usr/bin/env node
// The CLI is bundled to dist/cli.cjs by `npm run build` (run by `npm test` and before packing).
//
// It runs under `--liftoff-only`: V8's optimising tier recompiles the tree-sitter grammars' huge
// parse functions as they get hot, which took the peak memory of an index run from about 190 MB
// to 730 MB without parsing any faster. And with `--max-semi-space-size=4`: left to V8, the
// indexing thread's young generation grows past 100 MB on a big tree (the Linux tree's
// drivers/net/ethernet peaked at 452 MB, with the flag at 337 MB, at the same CPU time). Such flags
// only work from the command line, so the launcher starts Node again with them.
const path = require('node:path');
const { spawnSync } = require('node:child_process');

const cli = path.join(__dirname, '..', 'dist', 'cli.cjs');
const NODE_FLAGS = ['--liftoff-only', '--max-semi-space-size=4'];
if (NODE_FLAGS.every((flag) => process.execArgv.includes(flag))) {
  require(cli);
} else {
  const child = spawnSync(process.execPath, [...NODE_FLAGS, cli, ...process.argv.slice(2)], { stdio: 'inherit' });
  if (child.signal) process.kill(process.pid, child.signal);
  process.exitCode = child.status ?? 1;
}
