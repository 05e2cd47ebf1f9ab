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

// better-sqlite3 is built on Node-API 10: on an older Node it does not fail to load, it kills the
// process with a segmentation fault. So the check runs before anything requires it, and reads
// `engines` so that the launcher and package.json cannot disagree. Only `>=X[.Y[.Z]]` is
// understood; anything else there is a packaging mistake, and throws.
/** @type {string} */
const needed = require('../package.json').engines.node;
const floor = /^>=\s*(\d+)(?:\.(\d+))?(?:\.(\d+))?$/.exec(needed);
if (!floor) throw new Error(`bin/fused-search.cjs cannot check engines.node "${needed}"`);
const want = floor.slice(1, 4).map((part) => Number(part || 0));
const have = process.versions.node.split('.').map(Number);
const at = want.findIndex((part, i) => have[i] !== part);
if (at >= 0 && have[at] < want[at]) {
  console.error(
    `fused-search needs Node ${needed}, but this is Node ${process.versions.node} (${process.execPath}): ` +
      'run `npx fused-search` inside the project, which uses the Node 24 it installs, or install Node 22 or newer.',
  );
  process.exit(1);
}

const cli = path.join(__dirname, '..', 'dist', 'cli.cjs');
const NODE_FLAGS = ['--liftoff-only', '--max-semi-space-size=4'];
if (NODE_FLAGS.every((flag) => process.execArgv.includes(flag))) {
  require(cli);
} else {
  const child = spawnSync(process.execPath, [...NODE_FLAGS, cli, ...process.argv.slice(2)], { stdio: 'inherit' });
  if (child.signal) process.kill(process.pid, child.signal);
  process.exitCode = child.status ?? 1;
}
