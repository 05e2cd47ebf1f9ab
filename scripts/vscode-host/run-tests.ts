// Runs a test suite inside a real VS Code on an offline machine: code-server serves the workbench on
// loopback and Debian's Chromium, driven by playwright-core, opens it.
//
//   --tests <file>    integration: the workbench loads <file> (a bundled mocha runner exporting run())
//                     in the extension host and reports its exit code through codeAutomationExit.
//   --ui <path>...    UI: mocha runs these modules (or a folder's *.test.ts) here, in Node, against
//                     the open workbench page (see workbench.ts).
//
// Test output goes to stdout; the workbench's and code-server's own logs, and any screenshots, go
// to test-results/<label>/. Whatever happens, code-server and Chromium are killed and the last line
// is `<label>: N passed, N failed`.
import { spawn, type ChildProcess } from 'node:child_process';
import {
  appendFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { format, parseArgs } from 'node:util';
import Mocha from 'mocha';
import { chromium, type Browser } from 'playwright-core';
import { codeServerArgs, codeServerReady, freePort, isInstalled, projectRoot } from './host.ts';
import { OUTPUT_PREFIX_ENV, RESULTS_FILE_ENV, type Counts } from './protocol.ts';
import { openWorkbench } from './workbench.ts';

const { values: args } = parseArgs({
  options: {
    tests: { type: 'string' },
    ui: { type: 'string', multiple: true },
    extension: { type: 'string', default: projectRoot },
    workspace: { type: 'string', default: join(projectRoot, 'test', 'fixtures', 'workspace') },
    // Bounds the whole run, start-up included, so a hung workbench cannot eat CI's budget.
    'timeout-seconds': { type: 'string', default: '600' },
    label: { type: 'string' },
    chromium: { type: 'string', default: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium' },
  },
});
if (!args.tests === !args.ui) {
  console.error('usage: run-tests.ts (--tests <bundled runner> | --ui <test module or folder>...) [--workspace <folder>]');
  process.exit(2);
}
const label = args.label ?? (args.tests ? 'integration' : 'ui');
const timeoutMs = Number(args['timeout-seconds']) * 1000;
const extensionDir = resolve(args.extension);
const resultsDir = join(projectRoot, 'test-results', label);
/** How long code-server keeps the extension host of a page that vanished (see its launch below). */
const RECONNECTION_GRACE_SECONDS = 5;

if (!isInstalled()) {
  console.error('code-server is not installed: run `node scripts/vscode-host/install.ts` first');
  process.exit(2);
}

rmSync(resultsDir, { recursive: true, force: true });
mkdirSync(resultsDir, { recursive: true });
const scratch = mkdtempSync(join(tmpdir(), 'fused-search-vscode-'));
// Tests (and the extension's index) write into the workspace: each run gets a fresh copy.
const workspaceDir = join(scratch, 'workspace');
cpSync(resolve(args.workspace), workspaceDir, { recursive: true });
// Some fixture names cannot be checked out everywhere (`<`, `>` and `"` on Windows): the repository
// keeps them under safe names, and `<workspace>.renames.json` maps each safe path to the real one.
const renames = `${resolve(args.workspace)}.renames.json`;
if (existsSync(renames)) {
  for (const [safe, real] of Object.entries(JSON.parse(readFileSync(renames, 'utf8')) as Record<string, string>)) {
    renameSync(join(workspaceDir, safe), join(workspaceDir, real));
  }
}
// The extension host inherits code-server's environment, and so learns where to write its counts.
const resultsFile = join(scratch, 'results.json');
const serverLog = join(resultsDir, 'code-server.log');
const testOutputPrefix = '[fused-search:test] ';
// code-server keeps logs and a heartbeat in the XDG data home, VS Code a device id in the cache, and
// Chromium crash reports and dconf state in the config and cache homes: keep all of it out of $HOME.
const xdgHomes = {
  XDG_DATA_HOME: join(scratch, 'data'),
  XDG_CACHE_HOME: join(scratch, 'cache'),
  XDG_CONFIG_HOME: join(scratch, 'config'),
};
const workbenchLog = join(resultsDir, 'workbench.log');
let server: ChildProcess | undefined;
let browser: Browser | undefined;

async function startCodeServer(port: number): Promise<void> {
  const userData = join(scratch, 'user-data');
  mkdirSync(join(userData, 'User'), { recursive: true });
  // A quiet workbench: no welcome page, no walkthroughs or chat panels opening over what the tests
  // look at, no network calls that would only time out offline.
  writeFileSync(
    join(userData, 'User', 'settings.json'),
    JSON.stringify({
      'workbench.startupEditor': 'none',
      'workbench.tips.enabled': false,
      'workbench.enableExperiments': false,
      'extensions.autoCheckUpdates': false,
      'extensions.autoUpdate': false,
      'extensions.ignoreRecommendations': true,
      'telemetry.telemetryLevel': 'off',
      'update.mode': 'none',
      'chat.disableAIFeatures': true,
      'git.enabled': false,
    }),
  );
  const config = join(scratch, 'config.yaml');
  writeFileSync(config, 'auth: none\n');
  const log = openSync(serverLog, 'a');
  server = spawn(
    process.execPath,
    codeServerArgs(port, { configFile: config, userDataDir: userData, extensionsDir: join(scratch, 'extensions') }, workspaceDir, [
      '--disable-workspace-trust',
      // A page that closes without saying goodbye on its extension host's socket (it happens now
      // and then when Playwright closes one) keeps that host running for the grace time, three
      // hours by default, in case it reconnects. A desktop window's host ends with the window, and
      // the suites that close a window (two windows sharing an index) expect that.
      '--reconnection-grace-time',
      String(RECONNECTION_GRACE_SECONDS),
    ]),
    {
      // Its own process group, so that killing the group also ends the extension host and pty host.
      detached: true,
      stdio: ['ignore', log, log],
      env: {
        ...process.env,
        [RESULTS_FILE_ENV]: resultsFile,
        [OUTPUT_PREFIX_ENV]: testOutputPrefix,
        // The development build obeys test-only messages (the engine crash) only with this set.
        FUSED_SEARCH_TEST_HOOKS: 'on',
        ...xdgHomes,
      },
    },
  );
  const exited = new Promise<never>((_, fail) => server!.once('exit', (code) => fail(new Error(`code-server exited with ${code}; log: ${serverLog}`))));
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (await Promise.race([codeServerReady(port), exited])) return;
    if (Date.now() > deadline) throw new Error(`code-server did not answer on port ${port}; log: ${serverLog}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

// The web client takes the development extension and the test runner from the `payload` query
// parameter (the server's command line accepts neither), as vscode-remote URIs on the same server.
function workbenchUrl(port: number, folder?: string): string {
  const remote = (path: string) => `vscode-remote://127.0.0.1:${port}${path}`;
  const payload: [string, string][] = [
    ['extensionDevelopmentPath', remote(extensionDir)],
    ['skipWelcome', 'true'],
  ];
  if (args.tests) payload.push(['extensionTestsPath', remote(resolve(args.tests))]);
  // A workspace folder holding a `*.code-workspace` file opens as that (multi-root) workspace.
  const workspaceFile = folder ? undefined : readdirSync(workspaceDir).find((f) => f.endsWith('.code-workspace'));
  const target = workspaceFile ? `workspace=${encodeURIComponent(join(workspaceDir, workspaceFile))}` : `folder=${encodeURIComponent(folder ?? workspaceDir)}`;
  return `http://127.0.0.1:${port}/?${target}&payload=${encodeURIComponent(JSON.stringify(payload))}`;
}

async function openPage(port: number, onExit: (code: number) => void, window = 1, folder?: string) {
  browser ??= await chromium.launch({
    executablePath: args.chromium,
    headless: true,
    env: { ...process.env, ...xdgHomes },
    // Offline: anything Chromium would fetch in the background fails, slowly and noisily.
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
      '--disable-dev-shm-usage',
    ],
  });
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  // Both are looked up by the workbench's smoke-test driver: codeAutomationLog receives the
  // workbench's log and the extension host's console output (the page console, filed below, has the
  // same), codeAutomationExit the test runner's exit code.
  await page.exposeFunction('codeAutomationLog', (_level: string, messages: unknown[]) => {
    const text = format(...messages);
    if (text.startsWith(testOutputPrefix)) console.log(text.slice(testOutputPrefix.length));
  });
  await page.exposeFunction('codeAutomationExit', (code: number) => onExit(code));
  // Without a test runner in the extension host the driver logs nothing; the page console still
  // carries the workbench's errors and the extension host's output. Lines of later windows say which.
  const tag = window === 1 ? '' : `[window ${window}] `;
  page.on('console', (message) => appendFileSync(workbenchLog, `${tag}[console.${message.type()}] ${message.text()}\n`));
  page.on('pageerror', (error) => appendFileSync(workbenchLog, `${tag}[pageerror] ${error.stack ?? error.message}\n`));
  await page.goto(workbenchUrl(port, folder));
  return page;
}

async function runIntegration(port: number): Promise<Counts> {
  let reportExit!: (code: number) => void;
  const exitCode = new Promise<number>((ok) => (reportExit = ok));
  await openPage(port, reportExit);
  const code = await exitCode;
  try {
    const counts = JSON.parse(readFileSync(resultsFile, 'utf8')) as Counts;
    if (code !== 0 && counts.failed === 0) counts.failed = 1;
    return counts;
  } catch {
    console.error(`the test runner exited with ${code} without writing ${resultsFile}`);
    return { passed: 0, failed: code === 0 ? 0 : 1 };
  }
}

async function runUi(port: number, files: string[]): Promise<Counts> {
  let windows = 0;
  const openWindow = async (folder?: string) => {
    const page = await openPage(port, () => {}, ++windows, folder);
    await page.locator('.monaco-workbench').waitFor({ timeout: 60_000 });
    // The smoke-test driver (window.driver) resolves this once the workbench has restored its parts.
    // The driver is installed a moment after the workbench's DOM appears (on a busy machine, late
    // enough that reading it at once failed a run): wait for it first.
    await page.waitForFunction('typeof window.driver?.whenWorkbenchRestored === "function"', undefined, { timeout: 60_000 });
    await page.evaluate('window.driver.whenWorkbenchRestored()');
    return page;
  };
  // Opened again once, in a new browser, if Chromium closes while the first window loads: on this
  // shared 2-core machine it did once in a clean-clone CI run, before any test had run (its crash
  // handler wrote a report), and the suite tests the extension, not Chromium on a loaded machine.
  const firstWindow = async () => {
    try {
      return await openWindow();
    } catch (error) {
      if (!/has been closed/.test(String(error))) throw error;
      console.error(`Chromium closed while the first window loaded (${String(error).split('\n')[0]}); opening it again in a new browser.`);
      await browser?.close().catch(() => {});
      browser = undefined;
      windows = 0;
      return openWindow();
    }
  };
  const ui = openWorkbench(await firstWindow(), { screenshotDir: join(resultsDir, 'screenshots'), openWindow, logsDir: join(scratch, 'user-data', 'logs') });
  const mocha = new Mocha({ ui: 'tdd', timeout: 60_000, color: false });
  for (const path of files.map((f) => resolve(f))) {
    if (!statSync(path).isDirectory()) mocha.addFile(path);
    else
      for (const f of readdirSync(path)
        .filter((f) => f.endsWith('.test.ts'))
        .sort())
        mocha.addFile(join(path, f));
  }
  // What the page showed when a test failed is usually the quickest explanation.
  mocha.suite.afterEach(async function () {
    const test = this.currentTest;
    if (test?.state === 'failed') await ui.screenshot(`failed-${test.fullTitle().replace(/[^\w-]+/g, '-')}`);
  });
  await mocha.loadFilesAsync();
  return new Promise((ok) => {
    const runner = mocha.run(() => ok({ passed: runner.stats?.passes ?? 0, failed: runner.stats?.failures ?? 0 }));
  });
}

async function stopEverything(): Promise<void> {
  await browser?.close().catch(() => {});
  if (server?.pid !== undefined && server.exitCode === null && server.signalCode === null) {
    const pid = server.pid;
    const kill = (signal: NodeJS.Signals) => {
      try {
        process.kill(-pid, signal);
      } catch {
        // Already gone.
      }
    };
    kill('SIGTERM');
    const exited = new Promise((ok) => server!.once('exit', ok));
    const grace = new Promise((ok) => setTimeout(ok, 5_000).unref());
    if ((await Promise.race([exited.then(() => true), grace.then(() => false)])) === false) kill('SIGKILL');
  }
  keepExtensionLog();
  rmSync(scratch, { recursive: true, force: true });
}

/**
 * The extension's own log (its LogOutputChannel, a file in the user-data logs) outlives the run as
 * `extension.log`: it says what the extension did, and `bench:extension` reads its activation time.
 */
function keepExtensionLog(): void {
  const found: string[] = [];
  const walk = (dir: string) => {
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      const full = join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.name === 'Fused Search.log' || (entry.name.endsWith('.log') && dir.endsWith('fused-search.fused-search'))) found.push(full);
    }
  };
  walk(join(scratch, 'user-data', 'logs'));
  if (found.length > 0) writeFileSync(join(resultsDir, 'extension.log'), found.map((file) => readFileSync(file, 'utf8')).join(''));
}

async function main(): Promise<number> {
  const started = performance.now();
  const port = await freePort();
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<Counts>((ok) => {
    timer = setTimeout(() => {
      console.error(`${label}: timed out after ${timeoutMs / 1000} s`);
      ok({ passed: 0, failed: 1 });
    }, timeoutMs);
  });
  let counts: Counts;
  try {
    const suite = (async () => {
      await startCodeServer(port);
      return args.tests ? runIntegration(port) : runUi(port, args.ui!);
    })();
    // After a time-out, closing the browser makes the abandoned suite reject; that is expected.
    suite.catch(() => {});
    counts = await Promise.race([suite, timedOut]);
  } catch (error) {
    console.error(error);
    counts = { passed: 0, failed: 1 };
  } finally {
    clearTimeout(timer);
    await stopEverything();
  }
  console.log(`${label} suite took ${((performance.now() - started) / 1000).toFixed(1)} s; logs in ${resultsDir}`);
  console.log(`${label}: ${counts.passed} passed, ${counts.failed} failed`);
  return counts.failed === 0 && counts.passed > 0 ? 0 : 1;
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => void stopEverything().finally(() => process.exit(130)));
}
process.exit(await main());
