import assert from 'node:assert/strict';
import { suite, test } from 'mocha';
import { wholeLinesShown } from './helpers/layout.ts';
import { workbench } from '../../scripts/vscode-host/workbench.ts';
import { WORKSPACE_TRACE } from '../fixtures/workspace-trace.ts';

suite('locating a stack trace', () => {
  test('a trace selected in an editor is located from the palette: the panel says where the text came from, ranks the files it points at, says why, and opens them at the frame and the chunk', async () => {
    const { page, runCommand, screenshot, waitForIndex, panel, openPanel } = workbench();
    await waitForIndex();
    // A search shown before the located files, which must not come back over them.
    const searched = await openPanel();
    await searched.locator('#query input').fill('content store');
    await searched.locator('#note', { hasText: /^\d+ results in / }).waitFor();
    await runCommand('New Untitled Text File', 'File: New Untitled Text File');
    // Keys go where the focus is: the new editor takes it a moment after it opens.
    await page.locator('.editor-instance .monaco-editor.focused').waitFor();
    // Inserted, not typed: typing would let the editor close the brackets itself.
    await page.keyboard.insertText(WORKSPACE_TRACE);
    await page.keyboard.press('ControlOrMeta+A');
    await runCommand('Fused Search: Locate', 'Fused Search: Locate from Issue or Stack Trace');

    const view = panel();
    // The note says what was read, and from where.
    await view.locator('#note', { hasText: /^Located \d+ files? from .+ in the editor's selection \(\d+ ms\)$/ }).waitFor();
    const first = view.locator('.result.located').first();
    assert.match(await first.locator('button.open').innerText(), /1\.\s*app › src\/store\.ts:31$/);
    assert.match(await first.locator('.frame-line').innerText(), /^31: return \[\.\.\.this\.entries\.values\(\)\]/, "the frame's line, as the source reads");
    const shown = await wholeLinesShown(first.locator('.frame-line'));
    assert.ok(Number.isInteger(shown.lines) && shown.lines <= 4, `the frame's line takes at most four whole lines: ${JSON.stringify(shown)}`);
    assert.match(await first.locator('.why').innerText(), /stack frame src\/store\.ts:31 in ContentStore\.search/);
    // A long chunk title is cut short; the line range beside it stays whole, on one line.
    for (const row of await view.locator('.result.located button.chunk').all()) {
      const [title, range] = await Promise.all([row.locator('.title').boundingBox(), row.locator('.where').boundingBox()]);
      assert.ok(title && range && range.height <= title.height, `${await row.innerText()}: the range takes ${range?.height} px, the title ${title?.height}`);
    }
    // A note is a document and its sections prose, as the search results show them; the code's chunks are symbols.
    const changelog = view.locator('.result.located', { hasText: 'notes › changelog.md' });
    assert.equal(await changelog.locator('button.open .codicon-file').count(), 1, 'the note is a document, not a code file');
    const sections = await changelog.locator('button.chunk').count();
    assert.ok(sections > 0 && (await changelog.locator('button.chunk .codicon-book').count()) === sections, 'its sections are prose');
    assert.equal(await first.locator('button.open .codicon-file-code').count(), 1);
    assert.equal(
      await first.locator('button.chunk .codicon-symbol-method').count(),
      await first.locator('button.chunk').count(),
      "the store's chunks are symbols",
    );
    await screenshot('locate-panel');

    // The panel's page loaded again (as after a window reload: a mark left on it tells the pages
    // apart) shows the same located files, not the search before them.
    const located = await view.locator('#results').innerText();
    await view.locator('body').evaluate((body) => body.setAttribute('data-loaded-before', ''));
    await runCommand('Reload Webviews', 'Developer: Reload Webviews');
    await view.locator('body:not([data-loaded-before]) #note', { hasText: /^Located \d+ files? from / }).waitFor();
    assert.equal(await view.locator('#results').innerText(), located);

    // The file opens at the frame's line; its first chunk, the one holding that line, opens selected
    // whole; the frame's line under the file opens the file at that line again.
    const selection = page.locator('[id="status.editor.selection"]');
    await first.locator('button.open').click();
    await page.locator('.tab.active', { hasText: 'store.ts' }).waitFor();
    await selection.filter({ hasText: /^Ln 31, Col \d+ \(\d+ selected\)$/ }).waitFor();
    const chunk = first.locator('button.chunk').first();
    const range = /:(\d+)–(\d+)/.exec(await chunk.locator('.where').innerText());
    assert.ok(range && Number(range[1]) <= 31 && 31 <= Number(range[2]), `the chunk holds line 31: ${range?.[0]}`);
    await chunk.click();
    await selection.filter({ hasText: `Ln ${range[2]},` }).waitFor();
    await first.locator('.frame-line').click();
    await selection.filter({ hasText: /^Ln 31, Col \d+ \(\d+ selected\)$/ }).waitFor();
    // From the keyboard as through search results: Down from the search box to the file, then its
    // frame's line, then its chunks; Enter opens the one reached.
    await view.locator('#query input').click();
    for (const stop of [first.locator('button.open'), first.locator('.frame-line'), chunk]) {
      await page.keyboard.press('ArrowDown');
      assert.ok(await stop.evaluate((button) => button.matches(':focus')), `Down reaches ${await stop.innerText()}`);
    }
    await page.keyboard.press('Enter');
    await selection.filter({ hasText: `Ln ${range[2]},` }).waitFor();

    // Leave the editors as the suite found them, none open: the untitled one is reverted first, or
    // closing it would ask.
    await page.locator('.tab', { hasText: 'Untitled' }).click();
    await runCommand('Revert and Close', 'View: Revert and Close Editor');
    await page.locator('.tab', { hasText: 'Untitled' }).waitFor({ state: 'detached' });
    await runCommand('Close All Editors', 'View: Close All Editors');
    await page.locator('.tab').first().waitFor({ state: 'detached' });
  });
});
