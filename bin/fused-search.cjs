#!/usr/bin/env node
// The CLI is bundled to dist/cli.cjs by `npm run build` (run by `npm test` and before packing).
require('../dist/cli.cjs');
