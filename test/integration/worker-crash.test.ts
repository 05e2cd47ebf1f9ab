import assert from 'node:assert/strict';
import { suite, suiteSetup, test } from 'mocha';
import * as vscode from 'vscode';
import { activateAndIndex, CHECKOUT_FILES, checkoutWhilePaused, MASS_CHANGE_FILES, search, status, waitForIndex } from './extension-api.ts';

async function until<T>(what: string, probe: () => Thenable<T>, accept: (value: T) => boolean, ms = 5_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (accept(value)) return value;
    if (Date.now() > deadline) throw new Error(`${what}: never happened; last ${JSON.stringify(value)}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

suite('the engine worker dies', () => {
  suiteSetup(async function () {
    this.timeout(60_000);
    await activateAndIndex();
  });

  test('a crashed worker is restarted, the status bar says so, and the next search works', async function () {
    this.timeout(30_000);
    const before = await waitForIndex();
    assert.equal(before.phase, 'ready');
    const restartsBefore = before.restarts; // the command hands back the live state object
    await vscode.commands.executeCommand('fusedSearch.api.crashWorkerForTest');
    const shown = await until('the status bar shows the restart', status, (s) => s.text.includes('restarting'));
    assert.match(shown.tooltip, /stopped unexpectedly .*restarting it in 0\.5 s/);

    const started = Date.now();
    const answer = await search('kubernetes cluster');
    assert.equal(answer?.results[0]?.path, 'guide.md', 'the first search after the crash is answered by the new worker');
    // Not a speed goal: shared machines are slow at times (5.9 s once, three suites on two cores).
    // The bound catches a search left waiting far past the 0.5 s restart, short of the test's timeout.
    assert.ok(Date.now() - started < 15_000, `answered ${Date.now() - started} ms after the crash was seen`);

    const after = await until('the index is ready again', waitForIndex, (s) => s.phase === 'ready');
    assert.equal(after.restarts, restartsBefore + 1);
    assert.equal(after.error, undefined);
    assert.doesNotMatch((await status()).text, /restarting|error/);
  });

  test('a worker that calls process.exit soon after the first crash is restarted too, after a longer wait', async function () {
    this.timeout(30_000);
    await waitForIndex();
    await vscode.commands.executeCommand('fusedSearch.api.crashWorkerForTest', 'exit');
    const shown = await until('the status bar shows the restart', status, (s) => s.text.includes('restarting'));
    assert.match(shown.tooltip, /restarting it in 1\.0 s/);
    assert.match(shown.tooltip, /exit code 0/);
    const answer = await search('reciprocal rank fusion');
    assert.ok(answer && answer.results.length > 0);
  });

  test('a worker that dies while indexing is paused comes back paused: a checkout meanwhile waits for Resume', async function () {
    this.timeout(60_000);
    const restarts = (await waitForIndex()).restarts;
    await vscode.commands.executeCommand('fusedSearch.pauseIndexing');
    await vscode.commands.executeCommand('fusedSearch.api.crashWorkerForTest');
    await until('the worker is back, paused', waitForIndex, (s) => s.restarts > restarts && s.phase === 'paused', 15_000);
    const { whilePaused, status: shown, afterResume } = await checkoutWhilePaused('numbatledger');
    assert.ok(whilePaused < MASS_CHANGE_FILES, `paused, the new worker leaves the checkout for Resume (${whilePaused} indexed)`);
    assert.match(shown, /Fused: paused/);
    assert.equal(afterResume, CHECKOUT_FILES, 'resumed, the sync brings the checkout in');
  });
});
