import assert from 'node:assert/strict';
import { suite, test } from 'mocha';
import { workbench } from '../../scripts/vscode-host/workbench.ts';

// The page runs on Linux, so these are the Windows and Linux keys; the manifest gives macOS others.
suite("the extension's shortcuts", () => {
  test("Ctrl+Alt+F leaves a tree's own find to it, as VS Code binds it there, and opens the quick pick from an editor", async () => {
    const { page, runCommand, screenshot, waitForIndex, escapeFrom } = workbench();
    await waitForIndex();
    await runCommand('Show Explorer', 'View: Show Explorer');
    const row = page.locator('.explorer-folders-view .monaco-list-row').first();
    await row.click();
    await page.locator('.explorer-folders-view .monaco-list:focus-within').waitFor();
    await page.keyboard.press('Control+Alt+F');
    const treeFind = page.locator('.monaco-tree-type-filter-input');
    await treeFind.waitFor();
    await screenshot('explorer-find');
    const quickPick = page.locator('.quick-input-widget input[placeholder^="Search the workspace"]');
    assert.equal(await quickPick.isVisible(), false, 'the quick pick stays closed over the Explorer');
    await escapeFrom(treeFind);
    assert.equal(await treeFind.isVisible(), false, "Escape closes the tree's find");

    await runCommand('Go to File', 'Go to File...');
    await page.locator('.quick-input-widget input').fill('store.ts');
    await page.locator('.quick-input-widget [role="option"]', { hasText: 'store.ts' }).first().waitFor();
    await page.keyboard.press('Enter');
    await page.locator('.monaco-editor.focused').waitFor();
    await page.keyboard.press('Control+Alt+F');
    await quickPick.waitFor();
    await page.keyboard.press('Escape');
    await quickPick.waitFor({ state: 'hidden' });
    // Closed, the pick gives the focus back to the editor: the next suite's palette waits for it.
    await page.locator('.monaco-editor.focused').waitFor();
  });
});
