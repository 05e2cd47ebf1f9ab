import assert from 'node:assert/strict';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { suite, test } from 'mocha';
import { workbench } from '../../scripts/vscode-host/workbench.ts';

/** Enough code files that indexing them from scratch outlasts the test's moves: about 12 s here, idle. */
const LEDGER_FILES = 12_000;

function writeLedger(folder: string): void {
  for (let i = 0; i < LEDGER_FILES; i++) {
    const dir = path.join(folder, `part${String(i % 100).padStart(2, '0')}`);
    if (i < 100) mkdirSync(dir, { recursive: true });
    const functions = Array.from({ length: 8 }, (_, f) => `export function wombat${f}Tally${i}(okapi: number): number {\n  return okapi * ${f} + ${i};\n}\n`);
    writeFileSync(path.join(dir, `ledger${i}.ts`), functions.join('\n'));
  }
}

suite('the quick pick while a first index runs', () => {
  test('asked again as the first index brings more files, the pick keeps the result a person moved to', async function () {
    this.timeout(240_000);
    const { page, commandPalette, waitForIndex } = workbench();
    await waitForIndex();
    const status = page.locator('.statusbar-item', { hasText: /Fused: [\d,]+ chunks/ }).first();
    const indexed = await status.innerText();
    // The second folder, `notes`: the workspace file in the page's address names it relative to itself.
    const ledger = path.join(path.dirname(new URL(page.url()).searchParams.get('workspace') ?? ''), 'notes', 'ledger');
    writeLedger(ledger);
    const widget = page.locator('.quick-input-widget');
    try {
      // Rebuilt, the first folder is indexed again at once and the second, with the ledger, for a while.
      await (await commandPalette('Rebuild Index', 'Fused Search: Rebuild Index')).click();
      await (await commandPalette('Fused Search: Search Workspace', 'Fused Search: Search Workspace')).click();
      const input = widget.locator('input[placeholder^="Search the workspace"]');
      await input.fill('content store entry value');
      const title = widget.locator('.quick-input-title');
      await title.filter({ hasText: /results so far/ }).waitFor();
      const results = widget.locator('[role="option"]', { hasText: /·\s*(rrf|proximity|fuzzy)/ });
      await results.nth(2).waitFor();
      const focused = widget.locator('[role="option"].focused');
      await page.keyboard.press('ArrowDown');
      await page.keyboard.press('ArrowDown');
      // A row names its file and first line: the stage beside them may change as the index grows.
      const place = async () => /\S+\.\w+:\d+/.exec(await focused.innerText())?.[0];
      const chosen = await place();
      assert.equal(chosen, /\S+\.\w+:\d+/.exec(await results.nth(2).innerText())?.[0], 'the arrows reach the third result');

      // The first index goes on: every 2 s the pick asks again, and its title says how far it got.
      const before = await title.innerText();
      for (let waited = 0; (await title.innerText()) === before; waited += 200) {
        assert.ok(waited < 60_000, `the pick was never asked again while the first index ran (${before})`);
        await page.waitForTimeout(200);
      }
      assert.equal(await place(), chosen, `asked again (${before} → ${await title.innerText()}), the pick still has the result moved to active`);
    } finally {
      for (let tries = 0; tries < 3 && (await widget.isVisible()); tries++) {
        await page.keyboard.press('Escape');
        await widget.waitFor({ state: 'hidden', timeout: 2_000 }).catch(() => {});
      }
      rmSync(ledger, { recursive: true, force: true });
      // The tests after this one search the fixture alone: the index holds it alone again.
      await page.locator('.statusbar-item', { hasText: indexed }).waitFor({ timeout: 120_000 });
    }
  });
});
