import assert from 'node:assert/strict';
import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { suite, test } from 'mocha';
import { workbench } from '../../scripts/vscode-host/workbench.ts';

// The workbench turns each decoration type an extension creates into CSS rules on a class of its
// own (`ced-…`), kept until the extension disposes the type. Read in the page as source text:
// these suites compile without the DOM's types.
const PREVIEW_CLASSES = `[...new Set([...document.querySelectorAll('.monaco-editor .view-overlays [class*="ced-"]')]
  .flatMap((element) => [...element.classList].filter((name) => name.startsWith('ced-'))))]`;
const rulesFor = (classes: string[]) => `[...document.styleSheets]
  .flatMap((sheet) => { try { return [...sheet.cssRules]; } catch { return []; } })
  .map((rule) => rule.cssText)
  .filter((text) => ${JSON.stringify(classes)}.some((name) => text.includes('.' + name)))`;

suite("the quick pick's preview highlight", () => {
  test('leaves no style behind once the quick pick closes', async () => {
    const { page, runCommand, waitForIndex, escapeFrom } = workbench();
    await waitForIndex();
    await runCommand('Fused Search: Search Workspace', 'Fused Search: Search Workspace');
    const input = page.locator('.quick-input-widget input[placeholder^="Search the workspace"]');
    await input.waitFor();
    await input.fill('content store expiry');
    await page
      .locator('.quick-input-widget [role="option"]', { hasText: /store\.ts:\d+/ })
      .first()
      .waitFor();
    // The active result is previewed with its lines highlighted.
    await page.locator('.monaco-editor .view-overlays [class*="ced-"]').first().waitFor();
    const classes = await page.evaluate<string[]>(PREVIEW_CLASSES);
    assert.ok((await page.evaluate<string[]>(rulesFor(classes))).length > 0, `the highlight (${classes.join(' ')}) is styled while previewed`);

    const widget = page.locator('.quick-input-widget');
    await escapeFrom(widget);
    assert.equal(await widget.isVisible(), false, 'Escape closes the quick pick');
    const deadline = Date.now() + 5_000;
    let left = await page.evaluate<string[]>(rulesFor(classes));
    while (left.length > 0 && Date.now() < deadline) {
      await page.waitForTimeout(100);
      left = await page.evaluate<string[]>(rulesFor(classes));
    }
    assert.deepEqual(left, [], "the highlight's decoration type is disposed with the quick pick");
  });

  test('previews superseded by moving on or closing warn of nothing', async () => {
    const { page, extensionLogs, escapeFrom } = workbench();
    const warnings = () => extensionLogs().flatMap((log) => log.split('\n').filter((line) => line.includes('[warning] cannot preview')));
    const before = warnings().length;
    const widget = page.locator('.quick-input-widget');
    const input = widget.locator('input[placeholder^="Search the workspace"]');
    // As a person scanning results does: each arrow key starts the next item's preview before the
    // last one opened, and Escape puts the earlier editor back over whichever is still opening.
    for (const query of ['store', 'content store', 'expiry', 'store expiry', 'content']) {
      await page.keyboard.press('Control+Alt+F');
      await input.fill(query);
      await widget
        .locator('[role="option"]', { hasText: /·\s*(rrf|proximity|fuzzy)/ })
        .first()
        .waitFor();
      for (let i = 0; i < 4; i++) await page.keyboard.press(i % 2 ? 'ArrowUp' : 'ArrowDown');
      await escapeFrom(widget);
    }
    await page.waitForTimeout(1_000);
    assert.deepEqual(warnings().slice(before), [], 'no preview the pick moved past or closed over is logged as a warning');
  });

  test("moved past at once, a result whose file takes longer to load does not cover the active result's preview", async () => {
    const { page, runCommand, escapeFrom } = workbench();
    const widget = page.locator('.quick-input-widget');
    const input = widget.locator('input[placeholder^="Search the workspace"]');
    const rows = widget.locator('[role="option"]', { hasText: /·\s*(rrf|proximity|fuzzy)/ });
    // The fixture's second folder, `notes`: the workspace file in the page's address names it relative to itself.
    const notes = path.join(path.dirname(new URL(page.url()).searchParams.get('workspace') ?? ''), 'notes');
    const open = path.join(notes, 'quokka-open.md');
    const late = path.join(notes, 'quokka-late.md');
    writeFileSync(open, '# Quokka relay\n\nThe quokka relay settles every ledger.\n');
    // Half a megabyte, never opened: its preview waits for the file to load, the other's does not.
    const filler = Array.from({ length: 6_000 }, (_, i) => `Line ${i} of the wombat tally, counted twice.`);
    writeFileSync(late, ['# Tally', '', 'A quokka relay passed here once.', '', ...filler].join('\n'));
    try {
      // The file to come back to, open in an editor: the first result, opened with Enter.
      await runCommand('Fused Search: Search Workspace', 'Fused Search: Search Workspace');
      const listed = async (name: string) => (await rows.filter({ hasText: name }).count()) > 0;
      // The files reach the index a moment after they are written: search again until both have.
      for (let attempt = 0; !(await listed('quokka-open.md')) || !(await listed('quokka-late.md')); attempt++) {
        assert.ok(attempt < 40, 'the two new files never both showed in the results');
        await input.fill(attempt % 2 === 0 ? 'quokka relay' : 'quokka relay ledger');
        await page.waitForTimeout(500);
      }
      await input.fill('quokka relay');
      await rows.filter({ hasText: 'quokka-late.md' }).waitFor();
      assert.match(await rows.nth(0).innerText(), /quokka-open\.md/, 'the short page ranks first');
      await page.keyboard.press('Enter');
      await page.locator('.tab.active', { hasText: 'quokka-open.md' }).waitFor();
      await page.locator('.monaco-editor.focused').waitFor();

      await page.keyboard.press('Control+Alt+F');
      await input.fill('quokka relay');
      await rows.filter({ hasText: 'quokka-late.md' }).waitFor();
      await widget.locator('[role="option"].focused', { hasText: 'quokka-open.md' }).waitFor();
      await page.keyboard.press('ArrowDown');
      await page.keyboard.press('ArrowUp');
      await widget.locator('[role="option"].focused', { hasText: 'quokka-open.md' }).waitFor();
      // Long enough for the big file to load and any preview of it to land.
      await page.waitForTimeout(2_000);
      assert.equal((await page.locator('.tab.active').first().innerText()).replace(/\s+/g, ''), 'quokka-open.md', "the active result's file is the one shown");

      await escapeFrom(widget);
      await page.locator('.monaco-editor.focused').waitFor();
      assert.equal(await page.locator('.tab', { hasText: 'quokka-late.md' }).count(), 0, 'no preview is left open');
    } finally {
      await escapeFrom(widget);
      await runCommand('Close All Editors', 'View: Close All Editors');
      rmSync(open, { force: true });
      rmSync(late, { force: true });
    }
  });
});
