import assert from 'node:assert/strict';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { suite, suiteSetup, suiteTeardown, test } from 'mocha';
import * as vscode from 'vscode';
import { activateAndIndex, search, status, waitForIndex } from './extension-api.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** More than a mass change (MASS_CHANGE_FILES), so the worker syncs them in batches with the bulk writer. */
const FILES = 1200;
/** A word only file `n` holds, letters only so the query is one token. */
const word = (n: number) => `typist${[...String(n)].map((d) => String.fromCharCode(97 + Number(d))).join('')}q`;

suite('indexing gives way while the user types', () => {
  let dir = '';

  suiteSetup(async function () {
    this.timeout(60_000);
    await activateAndIndex();
    const notes = vscode.workspace.workspaceFolders?.find((f) => f.name === 'notes');
    assert.ok(notes);
    dir = path.join(notes.uri.fsPath, 'typing');
  });

  suiteTeardown(async function () {
    this.timeout(30_000);
    await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
    rmSync(dir, { recursive: true, force: true });
    // Leave the index as the other suites expect it: without these files.
    const deadline = Date.now() + 20_000;
    while ((await search(word(FILES - 1)))?.results.some((r) => r.path.startsWith('typing/')) && Date.now() < deadline) await sleep(250);
  });

  test('files that arrive while the user types in an editor are indexed with rests between batches, and all of them arrive', async function () {
    this.timeout(90_000);
    const state = await waitForIndex(); // the live state: it follows the worker's progress
    const editor = await vscode.window.showTextDocument(await vscode.workspace.openTextDocument({ content: '' }));
    let typing = true;
    const keystrokes = (async () => {
      while (typing) {
        await editor.edit((edit) => edit.insert(editor.document.positionAt(editor.document.getText().length), 'a'));
        await sleep(40);
      }
    })();
    let rested = false;
    const watch = setInterval(() => (rested ||= state.progress?.resting === true), 5);
    let toldInTooltip = false;
    const statusWatch = (async () => {
      while (typing && !toldInTooltip) {
        const { tooltip } = await status();
        toldInTooltip = /indexing rests between its batches/.test(tooltip);
        await sleep(10);
      }
    })();
    try {
      await sleep(300);
      mkdirSync(dir, { recursive: true });
      // Files of a few KB each, so that indexing them is work worth resting from (see user-activity.ts).
      const body = Array.from({ length: 40 }, (_, line) => `Line ${line} of the notes on harbours, ferries and tides.`).join('\n');
      for (let n = 0; n < FILES; n++) writeFileSync(path.join(dir, `file${n}.md`), `# Typing ${n}\n\nThis file says ${word(n)}.\n\n${body}\n`);
      const deadline = Date.now() + 60_000;
      for (const n of [0, FILES / 2, FILES - 1]) {
        while (!(await search(word(n)))?.results.some((r) => r.path === `typing/file${n}.md`)) {
          assert.ok(Date.now() < deadline, `typing/file${n}.md was never indexed`);
          await sleep(250);
        }
      }
    } finally {
      typing = false;
      await Promise.all([keystrokes, statusWatch]);
      clearInterval(watch);
    }
    assert.ok(rested, "the worker's progress never said it rested for the typing");
    assert.ok(toldInTooltip, "the status bar's tooltip never said that indexing rests while the user types");
  });
});
