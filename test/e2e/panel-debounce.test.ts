import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { suite, test } from 'mocha';
import { workbench } from '../../scripts/vscode-host/workbench.ts';

// Well above what a search takes on a loaded machine, and within the setting's maximum (2000).
const SLOW_MS = 1_500;
// Two queries with different results, typed in turn, so that each probe waits for a new list.
const QUERIES: Array<[string, RegExp]> = [
  ['quokka xylophone', /quokka/i],
  ['content store', /store\.ts/],
];

suite('the panel waits fusedSearch.debounceMs after the last keystroke', () => {
  test("raising the setting delays the panel's search by that long, and lowering it again speeds it up", async function () {
    this.timeout(120_000);
    const { page, waitForIndex, openPanel } = workbench();
    // The suite's workspace is the multi-root fixture: its settings live in the .code-workspace file.
    const workspaceFile = new URL(page.url()).searchParams.get('workspace') ?? '';
    assert.match(workspaceFile, /\.code-workspace$/, `the workbench opened a workspace file: ${page.url()}`);
    const original = readFileSync(workspaceFile, 'utf8');
    const workspace = JSON.parse(original) as { settings: Record<string, unknown> };

    await waitForIndex();
    const view = await openPanel();
    const field = view.locator('#query input');
    await field.waitFor();

    let turn = 0;
    /** Milliseconds from typing a query to its results showing: never less than the debounce. */
    const probe = async () => {
      const [text, shows] = QUERIES[turn++ % QUERIES.length]!;
      const started = Date.now();
      await field.fill(text);
      // Search results only: a located list left by an earlier suite lists files named for both
      // queries (`store.ts`, the hostile note whose headings say quokka), and would answer every probe
      // at once, each keystroke putting the search off again.
      await view.locator('.result:not(.located)', { hasText: shows }).first().waitFor({ timeout: 10_000 });
      return Date.now() - started;
    };
    // A changed workspace file reaches the extension a moment later, at a time the UI does not
    // show: probe until two searches in a row answer as the setting says, or time runs out.
    const settle = async (slow: boolean) => {
      const times: number[] = [];
      const deadline = Date.now() + 30_000;
      while (Date.now() < deadline && !(times.length >= 2 && times.slice(-2).every((ms) => ms >= SLOW_MS === slow))) {
        times.push(await probe());
      }
      return times;
    };

    try {
      writeFileSync(workspaceFile, JSON.stringify({ ...workspace, settings: { ...workspace.settings, 'fusedSearch.debounceMs': SLOW_MS } }));
      const slowTimes = await settle(true);
      assert.ok(
        slowTimes.slice(-2).every((ms) => ms >= SLOW_MS),
        `with ${SLOW_MS} ms, results came after ${slowTimes.join(', ')} ms`,
      );
    } finally {
      writeFileSync(workspaceFile, original);
    }
    const fastTimes = await settle(false);
    assert.ok(
      fastTimes.slice(-2).every((ms) => ms < SLOW_MS),
      `back at the default, results came after ${fastTimes.join(', ')} ms`,
    );
  });
});
