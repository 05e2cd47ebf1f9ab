// Runs the unit suite (or the test files given) with a temp folder of its own, and fails when the
// suite leaves anything in it: a test that makes a temp folder must delete it, or every `npm test`
// litters the machine's temp folder. The suite's own temp folder, not the system's, because other
// processes on the machine (another checkout's tests) make and delete entries there meanwhile.
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const files = process.argv.slice(2);
const scratch = mkdtempSync(join(tmpdir(), 'fused-unit-'));
// Open to all, sticky, as a system temp folder is: the fault suite runs children as `nobody` in
// folders they must reach.
chmodSync(scratch, 0o1777);
const run = spawnSync(process.execPath, ['--test', '--test-reporter=spec', ...(files.length > 0 ? files : ['test/unit/**/*.test.ts'])], {
  stdio: 'inherit',
  env: { ...process.env, TMPDIR: scratch, TMP: scratch, TEMP: scratch },
});
const left = readdirSync(scratch);
rmSync(scratch, { recursive: true, force: true });
if (left.length > 0) {
  console.error(`the unit tests left ${left.length} entries in the temp folder: ${left.sort().join(', ')}`);
}
process.exitCode = run.status !== 0 ? (run.status ?? 1) : left.length > 0 ? 1 : 0;
