import assert from 'node:assert/strict';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { suite, test } from 'mocha';
import { workbench } from '../../scripts/vscode-host/workbench.ts';

/** Enough files that rebuilding the folder that holds them outlasts the moves before the pause. */
const LEDGER_FILES = 12_000;
/** Each of the fixture's code files returns something, and its notes say "return" once: results in several files. */
const QUERY = 'return';

const chunksIn = (status: string) => Number(/Fused: ([\d,]+) chunks/.exec(status)?.[1]?.replace(/,/g, '') ?? NaN);

suite('results while a first index is under way', () => {
  test('asked again as the index grows, the quick pick keeps the result moved to, and Next Result goes on from where it was', async function () {
    this.timeout(420_000);
    const { page, runCommand, waitForIndex, escapeFrom, openPanel } = workbench();
    await waitForIndex();
    const status = page.locator('.statusbar-item', { hasText: /Fused: / }).first();
    const indexed = await status.innerText();
    // The workspace file in the page's address names its folders relative to itself.
    const workspace = path.dirname(new URL(page.url()).searchParams.get('workspace') ?? '');
    const ledger = path.join(workspace, 'notes', 'ledger');
    const probes = [path.join(workspace, 'app', 'src', 'probe-pick.ts'), path.join(workspace, 'app', 'src', 'probe-panel.ts')];
    const widget = page.locator('.quick-input-widget');
    const input = widget.locator('input[placeholder^="Search the workspace"]');
    const title = widget.locator('.quick-input-title');
    const rows = widget.locator('[role="option"]', { hasText: /·\s*(rrf|proximity|fuzzy)/ });
    const activeTab = async () => (await page.locator('.tab.active').first().innerText()).replace(/\s+/g, '');
    const searchInPick = async () => {
      await runCommand('Fused Search: Search Workspace', 'Fused Search: Search Workspace');
      await input.fill(QUERY);
    };
    try {
      for (let i = 0; i < LEDGER_FILES; i++) {
        const dir = path.join(ledger, `part${String(i % 100).padStart(2, '0')}`);
        if (i < 100) mkdirSync(dir, { recursive: true });
        const functions = Array.from({ length: 8 }, (_, f) => `export function wombat${f}Tally${i}(okapi: number): number {\n  okapi += ${f};\n}\n`);
        writeFileSync(path.join(dir, `ledger${i}.ts`), functions.join('\n'));
      }
      // Indexed from the watcher first, all of them: none is reported late, during the pause, to be
      // read and have the pick ask again. The watcher reports them over a few seconds: the count holds still after.
      let [count, since] = [0, Date.now()];
      for (let waited = 0; count < chunksIn(indexed) + LEDGER_FILES || Date.now() - since < 5_000; waited += 500) {
        assert.ok(waited < 240_000, `the ledger was never all indexed (${await status.innerText()})`);
        await page.waitForTimeout(500);
        const now = chunksIn(await status.innerText());
        if (now !== count) [count, since] = [now, Date.now()];
      }

      // Rebuilt, the first folder is indexed again at once and the second, with the ledger, for a
      // while: once the pick counts the ledger's files, the second is under way, and paused, stays half-built.
      await runCommand('Rebuild Index', 'Fused Search: Rebuild Index');
      await searchInPick();
      await title.filter({ hasText: /of 12,\d{3} files/ }).waitFor({ timeout: 120_000 });
      await escapeFrom(widget);
      await runCommand('Pause Indexing', 'Fused Search: Pause Indexing');
      await page.locator('.statusbar-item', { hasText: /Fused: paused/ }).waitFor();

      // The quick pick: moved to the third result, whose preview shows that the extension heard.
      await searchInPick();
      await title.filter({ hasText: /first index not finished/ }).waitFor();
      await rows.nth(2).waitFor();
      const place = (text: string) => /\S+\.\w+:\d+/.exec(text)?.[0] ?? '';
      const fileOf = (where: string) => path.basename(where.replace(/:\d+$/, ''));
      const first = place(await rows.nth(0).innerText());
      const chosen = place(await rows.nth(2).innerText());
      assert.notEqual(fileOf(chosen), fileOf(first), `the third result (${chosen}) is in another file than the first (${first})`);
      await page.keyboard.press('ArrowDown');
      await page.keyboard.press('ArrowDown');
      await page.locator('.tab.active', { hasText: fileOf(chosen) }).waitFor();
      // A file indexed as the pick stays open: the pick is asked again and lists it.
      writeFileSync(probes[0]!, `export function probePick(): number {\n  return 1;\n}\n`);
      await rows.filter({ hasText: 'probe-pick.ts' }).waitFor({ timeout: 30_000 });
      const focused = widget.locator('[role="option"].focused');
      assert.equal(place(await focused.innerText()), chosen, 'asked again, the pick still has the result moved to active');
      await escapeFrom(widget);

      // The panel: Next Result twice reaches its second result; asked again, the third comes next.
      const view = await openPanel();
      const query = view.locator('#query input');
      await query.fill(QUERY);
      const panelRows = view.locator('.result');
      await view.locator('#note', { hasText: /first index not finished/ }).waitFor();
      await panelRows.filter({ hasText: 'probe-pick.ts' }).waitFor();
      const keys = async () => panelRows.evaluateAll((items) => items.map((item) => (item as unknown as { dataset: { key: string } }).dataset.key));
      const next = () => runCommand('Fused Search: Next Result', 'Fused Search: Next Result');
      /** Waits for the editor to show a panel row's result: its file's tab, the selection ending on its last line (the status bar says where). */
      const opened = async (key: string) => {
        const [, file, end] = /^[^/]+\/(.+):\d+-(\d+)$/.exec(key)!;
        await page.locator('.tab.active', { hasText: path.basename(file!) }).waitFor({ timeout: 10_000 });
        await page.locator('.statusbar-item', { hasText: new RegExp(`Ln ${end}, Col`) }).waitFor({ timeout: 10_000 });
      };
      const [firstKey, second] = await keys();
      await next();
      await opened(firstKey!);
      await next();
      await opened(second!);
      writeFileSync(probes[1]!, `export function probePanel(): number {\n  return 2;\n}\n`);
      await panelRows.filter({ hasText: 'probe-panel.ts' }).waitFor({ timeout: 30_000 });
      const listed = await keys();
      const expected = listed[listed.indexOf(second!) + 1];
      assert.ok(expected, `the result Next Result was at (${second}) is still listed, with one after it: ${listed.join(', ')}`);
      await next();
      await opened(expected).catch(async () => {
        const at = await page
          .locator('.statusbar-item', { hasText: /Ln \d+, Col \d+/ })
          .first()
          .innerText();
        assert.fail(`Next Result opened ${await activeTab()} at ${at}, not ${expected}, the result after ${second}`);
      });
    } finally {
      await escapeFrom(widget);
      for (const probe of probes) rmSync(probe, { force: true });
      rmSync(ledger, { recursive: true, force: true });
      if (await page.locator('.statusbar-item', { hasText: /Fused: paused/ }).count()) {
        await runCommand('Resume Indexing', 'Fused Search: Resume Indexing');
      }
      // The tests after this one search the fixture alone: the index holds it alone again.
      await page.locator('.statusbar-item', { hasText: indexed }).waitFor({ timeout: 180_000 });
      await runCommand('Close All Editors', 'View: Close All Editors');
    }
  });
});
