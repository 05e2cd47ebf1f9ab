import assert from 'node:assert/strict';
import { suite, test } from 'mocha';
import { workbench } from '../../scripts/vscode-host/workbench.ts';
import manifest from '../../package.json' with { type: 'json' };

suite('the command palette in a real VS Code', () => {
  test('typing "Fused Search" offers the extension\'s commands, and running one shows its version', async () => {
    const { page, screenshot, commandPalette, waitForIndex } = workbench();
    // The first index shows a progress notification; let it finish so the bell only has ours.
    await waitForIndex();
    const row = await commandPalette('Fused Search', 'Fused Search: Show Version');
    await screenshot('command-palette');

    await row.click();
    // The smoke-test driver keeps notifications out of toasts: the bell gets a dot instead, and its
    // list shows them. Opening the list before the dot appears can miss the notification.
    const bell = page.locator('[id="status.notifications"]');
    await bell.locator('.codicon-bell-dot').waitFor();
    await bell.click();
    const notification = page.locator('.notifications-center .monaco-list-row', {
      hasText: `Fused Search ${manifest.version}`,
    });
    await notification.waitFor();
    await screenshot('version-notification');
    assert.equal(await page.locator('.quick-input-widget').isVisible(), false, 'the palette closes once the command runs');
  });

  test('the palette offers Pause Indexing while the index is kept fresh, and Resume Indexing only once paused', async () => {
    const { page, commandPalette, waitForIndex } = workbench();
    await waitForIndex();
    const offered = (title: string) => page.locator('.quick-input-widget').getByRole('option', { name: new RegExp(`^Fused Search: ${title}(,|$)`) });
    const pause = await commandPalette('Indexing', 'Fused Search: Pause Indexing');
    assert.equal(await offered('Resume Indexing').count(), 0, 'Resume Indexing is not offered before a pause');
    await pause.click();
    await page.locator('.statusbar-item', { hasText: 'Fused: paused' }).waitFor();
    const resume = await commandPalette('Indexing', 'Fused Search: Resume Indexing');
    assert.equal(await offered('Pause Indexing').count(), 0, 'Pause Indexing is not offered while paused');
    await resume.click();
    await waitForIndex();
  });

  test('the palette offers Next and Previous Result once there are results to move through', async () => {
    const { page, runCommand, commandPalette, escapeFrom } = workbench();
    const widget = page.locator('.quick-input-widget');
    const offered = (title: string) => widget.getByRole('option', { name: new RegExp(`^Fused Search: ${title}(,|$)`) });
    await runCommand('Result', 'Fused Search: Clear Results');
    await commandPalette('Result', 'Fused Search: Clear Results');
    assert.equal(await offered('Next Result').count(), 0, 'Next Result is not offered with no results');
    assert.equal(await offered('Previous Result').count(), 0, 'Previous Result is not offered with no results');
    await escapeFrom(widget);

    await runCommand('Fused Search: Search Workspace', 'Fused Search: Search Workspace');
    await widget.locator('input[placeholder^="Search the workspace"]').fill('content store');
    await widget
      .locator('[role="option"]', { hasText: /store\.ts:\d+/ })
      .first()
      .waitFor();
    await escapeFrom(widget);
    // The pick's search is the list to move through, closed or not.
    await runCommand('Result', 'Fused Search: Next Result');
    await page.locator('.tab.active', { hasText: 'store.ts' }).waitFor();
    await page.locator('.monaco-editor.focused').waitFor();
    await commandPalette('Result', 'Fused Search: Previous Result');
    await escapeFrom(widget);
    await runCommand('Close All Editors', 'View: Close All Editors');
  });
});
