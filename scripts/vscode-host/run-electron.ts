// Runs the integration suite in desktop VS Code through @vscode/test-electron, for machines that can
// download VS Code (or have it: set VSCODE_EXECUTABLE_PATH). The offline machines and CI use
// run-tests.ts with code-server instead; both load the same out/test/index.cjs.
//   npm run build && node scripts/build-tests.mjs && node scripts/vscode-host/run-electron.ts
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runTests } from '@vscode/test-electron';
import { projectRoot } from './host.ts';
import { RESULTS_FILE_ENV, type Counts } from './protocol.ts';

const scratch = mkdtempSync(join(tmpdir(), 'fused-search-electron-'));
const resultsFile = join(scratch, 'results.json');
let counts: Counts = { passed: 0, failed: 0 };
let exitCode = 0;
try {
  await runTests({
    ...(process.env.VSCODE_EXECUTABLE_PATH ? { vscodeExecutablePath: process.env.VSCODE_EXECUTABLE_PATH } : {}),
    extensionDevelopmentPath: projectRoot,
    extensionTestsPath: join(projectRoot, 'out', 'test', 'index.cjs'),
    extensionTestsEnv: { [RESULTS_FILE_ENV]: resultsFile, FUSED_SEARCH_TEST_HOOKS: 'on' },
    launchArgs: [
      join(projectRoot, 'test', 'fixtures', 'workspace'),
      '--disable-extensions',
      '--disable-workspace-trust',
      '--user-data-dir',
      join(scratch, 'user-data'),
    ],
  });
} catch (error) {
  console.error(error);
  exitCode = 1;
}
try {
  counts = JSON.parse(readFileSync(resultsFile, 'utf8')) as Counts;
} catch {
  // VS Code did not start or the runner never finished; exitCode already says so.
}
rmSync(scratch, { recursive: true, force: true });
if (counts.passed === 0) exitCode = 1;
console.log(`integration: ${counts.passed} passed, ${counts.failed} failed`);
process.exit(exitCode);
