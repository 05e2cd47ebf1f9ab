import assert from 'node:assert/strict';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { suite, suiteSetup, suiteTeardown, test } from 'mocha';
import * as vscode from 'vscode';
import type { IndexState } from '../../src/extension/indexing.ts';
import { activateAndIndex, CHECKOUT_FILES, checkoutWhilePaused, MASS_CHANGE_FILES, search, status, waitForIndex } from './extension-api.ts';

/** Enough files in the first folder that rebuilding it outlasts the pause asked for as it starts. */
const BULK_FILES = 3_000;

const lastIndexed = (state: IndexState, folder: string) => state.stats.find((s) => s.name === folder)?.lastIndexedAt;

suite('Pause Indexing', () => {
  let bulk = '';

  suiteSetup(async function () {
    this.timeout(120_000);
    await activateAndIndex();
    const app = vscode.workspace.workspaceFolders?.find((f) => f.name === 'app');
    assert.ok(app);
    bulk = path.join(app.uri.fsPath, 'bulk');
    mkdirSync(bulk, { recursive: true });
    for (let i = 0; i < BULK_FILES; i++) {
      writeFileSync(path.join(bulk, `tally${i}.ts`), `export function quollTally${i}(count: number): number {\n  return count + ${i};\n}\n`);
    }
    // The watcher reports so many new files over a few seconds: every one of them indexed, none is left to arrive during the test.
    for (let waited = 0; ; waited += 200) {
      const files = (await waitForIndex()).stats.find((s) => s.name === 'app')?.files ?? 0;
      if (files >= BULK_FILES) break;
      assert.ok(waited < 60_000, `the bulk files were never all indexed (${files})`);
      await new Promise((r) => setTimeout(r, 200));
    }
  });

  suiteTeardown(async function () {
    this.timeout(120_000);
    await vscode.commands.executeCommand('fusedSearch.resumeIndexing');
    rmSync(bulk, { recursive: true, force: true });
    await waitForIndex();
  });

  test('a pause stops the rebuild where it is and says paused; Resume rebuilds the folders it had not reached', async function () {
    this.timeout(180_000);
    // The extension's state is one object, updated in place: what it says now, copied.
    const before = structuredClone((await waitForIndex()).stats);
    const notesBefore = before.find((s) => s.name === 'notes')?.lastIndexedAt;
    assert.ok(notesBefore, 'the notes folder was indexed');

    const rebuilding = vscode.commands.executeCommand('fusedSearch.rebuildIndex');
    for (let waited = 0; !(await status()).text.includes('indexing'); waited += 20) {
      assert.ok(waited < 30_000, `the rebuild never said it was indexing (${(await status()).text})`);
      await new Promise((r) => setTimeout(r, 20));
    }
    await vscode.commands.executeCommand('fusedSearch.pauseIndexing');
    await rebuilding;
    assert.match((await status()).text, /Fused: paused/, 'paused during a rebuild, the status says so');
    const paused = await waitForIndex();
    assert.equal(lastIndexed(paused, 'notes'), notesBefore, 'the folder after the one paused was not rebuilt');
    const app = paused.stats.find((s) => s.name === 'app');
    assert.ok(app && app.files < BULK_FILES, `the first folder was paused part-way (${app?.files} files)`);

    await vscode.commands.executeCommand('fusedSearch.resumeIndexing');
    const resumed = await waitForIndex();
    assert.equal(resumed.phase, 'ready');
    assert.ok((lastIndexed(resumed, 'notes') ?? 0) > notesBefore, 'resumed, the rebuild reached the folder it had not');
    for (const folder of before) {
      assert.equal(resumed.stats.find((s) => s.name === folder.name)?.files, folder.files, `${folder.name} holds every file again`);
    }
    const found = await search(`quollTally${BULK_FILES - 1}`);
    assert.ok(
      found?.results.some((r) => r.path === `bulk/tally${BULK_FILES - 1}.ts`),
      'the last bulk file is found again',
    );
  });

  test('settings changed while paused open the folders again paused: a checkout meanwhile waits for Resume', async function () {
    this.timeout(120_000);
    const config = vscode.workspace.getConfiguration('fusedSearch');
    await waitForIndex();
    await vscode.commands.executeCommand('fusedSearch.pauseIndexing');
    try {
      // A setting every folder's index is opened with: the worker opens each folder's index anew.
      await config.update('maxFileBytes', 2_000_000, vscode.ConfigurationTarget.Workspace);
      await new Promise((r) => setTimeout(r, 500));
      await waitForIndex();
      const { whilePaused, status: shown, afterResume } = await checkoutWhilePaused('bilbyledger');
      assert.ok(whilePaused < MASS_CHANGE_FILES, `paused, the folders opened again leave the checkout for Resume (${whilePaused} indexed)`);
      assert.match(shown, /Fused: paused/);
      assert.equal(afterResume, CHECKOUT_FILES, 'resumed, the sync brings the checkout in');
    } finally {
      await config.update('maxFileBytes', undefined, vscode.ConfigurationTarget.Workspace);
      await new Promise((r) => setTimeout(r, 500));
      await waitForIndex();
    }
  });
});
