#!/usr/bin/env node
// The CLI is bundled to dist/cli.cjs by `npm run build` (run by `npm test` and before packing).
//
// A command that indexes runs under the engine's V8 flags and malloc settings, as the extension's
// engine worker does: src/core/engine-process.ts says why each one, and this launcher keeps a copy
// of them, since it runs before any bundle. Without them the peak memory of indexing a big tree
// doubles. Such settings only work from the start of a process, so the launcher starts Node again
// with them. A command that asks the index rather than builds it (search, locate, stats) runs
// here: starting Node again took 0.13 s of a search's 0.43 s on npm's index (medians, interleaved),
// and an agent driving the CLI pays it on every call.
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
const NODE_FLAGS = ['--liftoff-only', '--max-semi-space-size=4', '--heap-growing-percent=50'];
const ASKING_COMMANDS = new Set(['search', 'locate', 'stats']);
if (ASKING_COMMANDS.has(process.argv[2] ?? '') || NODE_FLAGS.every((flag) => process.execArgv.includes(flag))) {
  require(cli);
} else {
  const env = { MALLOC_ARENA_MAX: '2', MALLOC_MMAP_THRESHOLD_: '131072', ...process.env };
  const child = spawnSync(process.execPath, [...NODE_FLAGS, cli, ...process.argv.slice(2)], { stdio: 'inherit', env });
  if (child.signal) process.kill(process.pid, child.signal);
  process.exitCode = child.status ?? 1;
}
