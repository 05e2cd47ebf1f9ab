import assert from 'node:assert/strict';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { suite, test } from 'mocha';
import { wholeLinesShown } from './helpers/layout.ts';
import { workbench } from '../../scripts/vscode-host/workbench.ts';

// The workbench's own selection readout in the status bar, e.g. "Ln 9, Col 1 (812 selected)".
const SELECTION = '[id="status.editor.selection"]';

/** The fixture's second folder, `notes`, on disk: the workspace file (in the page's address) names its folders relative to itself. */
const notesFolder = (pageUrl: string) => path.join(path.dirname(new URL(pageUrl).searchParams.get('workspace') ?? ''), 'notes');

suite('searching from the quick pick, the panel and CodeLens', () => {
  test('the quick pick shows results with their stages as you type, and Enter opens the chunk selected', async () => {
    const { page, screenshot, commandPalette, waitForIndex } = workbench();
    // Wait for the first index: the status bar says how many chunks it holds.
    await waitForIndex();
    const row = await commandPalette('Fused Search: Search Workspace', 'Fused Search: Search Workspace');
    await row.click();
    // The palette's input box is reused by the extension's quick pick: type only once it is ours,
    // or the first keystrokes land in the closing palette.
    const input = page.locator('.quick-input-widget input[placeholder^="Search the workspace"]');
    await input.waitFor();
    await input.pressSequentially('content store expiry', { delay: 30 });
    const items = page.locator('.quick-input-widget [role="option"]');
    // A keystroke slower than the debounce shows a prefix's results first; wait for the row this
    // test is about instead of reading whichever list is up when the first result appears.
    const hit = items.filter({ hasText: /store\.ts:\d+ · (rrf|proximity|fuzzy)/ }).first();
    await hit.waitFor();
    await screenshot('quick-pick');
    await page.keyboard.press('Enter');
    await page.locator('.quick-input-widget').waitFor({ state: 'hidden' });
    // The preview of the active row already selected the chunk, without focus; the result is open
    // once its editor has the focus. Before that, the next test's palette could lose the focus to
    // it, and its keystrokes land in the document.
    await page.locator('.monaco-editor.focused').waitFor();
    await page.locator(SELECTION, { hasText: 'selected' }).waitFor();
    assert.match(await page.locator(SELECTION).innerText(), /Ln \d+, Col \d+ \(\d+ selected\)/);
  });

  test('the shortcut pressed again over the quick pick moves to its next result, past the last to the first, and keeps the query, as Quick Open does', async () => {
    const { page, screenshot, escapeFrom } = workbench();
    const widget = page.locator('.quick-input-widget');
    const input = widget.locator('input[placeholder^="Search the workspace"]');
    await page.keyboard.press('Control+Alt+F');
    await input.fill('content store expiry');
    const results = widget.locator('[role="option"]', { hasText: /·\s*(rrf|proximity|fuzzy)/ });
    await results.nth(1).waitFor();
    const [first, second] = [await results.nth(0).getAttribute('aria-label'), await results.nth(1).getAttribute('aria-label')];
    const active = (label: string | null) => widget.locator(`[role="option"].focused[aria-label=${JSON.stringify(label)}]`);
    await active(first).waitFor();
    await page.keyboard.press('Control+Alt+F');
    await active(second).waitFor();
    await screenshot('quick-pick-next');
    assert.equal(await input.inputValue(), 'content store expiry', 'the query typed is still there');
    // Past the last result, the first again (the pick lists all of this query's results at once).
    const count = await results.count();
    for (let at = 2; at <= count; at++) await page.keyboard.press('Control+Alt+F');
    await active(first).waitFor();
    await escapeFrom(widget);
    // Closed, the pick puts back the editor the last test opened, with its chunk selected, and gives
    // it the focus: a palette the next test opens before then loses its text to that selection.
    await page.locator('.monaco-editor.focused').waitFor();
  });

  test("the panel searches, shows stage badges, and expands a result's explanation", async () => {
    const { screenshot, openPanel } = workbench();
    const view = await openPanel();
    const query = view.locator('#query input');
    await query.waitFor();
    await query.fill('kubernets rolling updates');
    // The panel keeps an earlier suite's results until this query's arrive: wait for its note.
    await view.locator('#note', { hasText: /Showing results for kubernetes rolling updates/ }).waitFor();
    const result = view.locator('.result').first();
    assert.match(await result.locator('.stage').innerText(), /RRF|Proximity|Fuzzy/);
    await result.locator('button.toggle').click();
    const explain = result.locator('.explain');
    await explain.waitFor();
    assert.match(await explain.innerText(), /Porter/);
    assert.match(await explain.innerText(), /Feedback/, "a three-word query also searched its best chunks' words");
    assert.match(await explain.innerText(), /RRF: /);
    assert.match(await explain.innerText(), /lexical match \d+%/);
    assert.match(await explain.innerText(), /Proximity: ×\d+\.\d\d \(title /, 'the rerank in the words the CLI and the agent text use too');
    const shown = await wholeLinesShown(result.locator('.snippet'));
    assert.ok(shown.clamped && shown.lines === 4, `a long snippet shows four whole lines, none cut through: ${JSON.stringify(shown)}`);
    await screenshot('panel');
  });

  test("a query word no file holds is named in the panel's note and the quick pick's title", async () => {
    const { page, runCommand, escapeFrom, openPanel } = workbench();
    const view = await openPanel();
    const query = view.locator('#query input');
    await query.waitFor();
    await query.fill('content store downtime');
    await view.locator('#note', { hasText: /no file holds “downtime”/ }).waitFor();
    assert.ok((await view.locator('.result').count()) > 0, 'the results match the other words');

    await runCommand('Fused Search: Search Workspace', 'Fused Search: Search Workspace');
    const widget = page.locator('.quick-input-widget');
    const input = widget.locator('input[placeholder^="Search the workspace"]');
    await input.waitFor();
    await input.fill('content store downtime');
    await widget.locator('.quick-input-title', { hasText: /no file holds “downtime”/ }).waitFor();
    await escapeFrom(widget);
  });

  test('grouped by file, the panel lists each file once with its count, a code file and a document each with its icon, and ungrouped again as ranked', async () => {
    const { openPanel } = workbench();
    const view = await openPanel();
    const query = view.locator('#query input');
    await query.waitFor();
    await query.fill('content store expiry');
    // This query's note says no more than the count: the last test's (`… · no file holds “downtime”`) says more.
    await view.locator('#note', { hasText: /^\d+ results in \d+ ms$/ }).waitFor();
    const ranked = await view.locator('.result .title').allInnerTexts();
    // As rendered: a file at the folder's root keeps the space after the folder's name (`notes › changelog.md`).
    const rootFile = view.locator('.result div.where', { hasText: 'changelog.md' }).first();
    assert.equal(await rootFile.locator('.folders').innerText(), 'notes › ');
    const toggle = view.locator('vscode-checkbox#group-by-file');
    await toggle.click();
    const headers = view.locator('.group');
    await headers.first().waitFor();
    // Each header, then its results up to the next header: as many as its count says.
    const groups = await view.locator('#results').evaluate((list) => {
      const found: Array<{ file: string; count: number; icon: string; rows: number }> = [];
      for (const node of list.children) {
        if (node.classList.contains('group')) {
          const icon = [...node.querySelector('.codicon')!.classList].find((c) => c.startsWith('codicon-'))!;
          found.push({ file: node.textContent!.replace(/\s+\d+$/, '').trim(), count: Number(node.querySelector('.count')!.textContent), icon, rows: 0 });
        } else if (node.classList.contains('result')) found.at(-1)!.rows++;
      }
      return found;
    });
    assert.ok(groups.length >= 2, `several files: ${JSON.stringify(groups)}`);
    assert.equal(new Set(groups.map((g) => g.file)).size, groups.length, 'each file once');
    for (const group of groups) assert.equal(group.rows, group.count, `${group.file}: its count is its rows`);
    assert.equal(groups.find((g) => g.file.endsWith('src/store.ts'))?.icon, 'codicon-file-code');
    assert.equal(groups.find((g) => g.file.endsWith('changelog.md'))?.icon, 'codicon-file');
    assert.equal(
      groups.reduce((n, g) => n + g.rows, 0),
      ranked.length,
      'every result is in a group',
    );
    await toggle.click();
    await headers.first().waitFor({ state: 'detached' });
    assert.deepEqual(await view.locator('.result .title').allInnerTexts(), ranked, 'ungrouped, the ranking as before');
  });

  test('the panel shows a section pasted into several files once, with the count of its copies and their places on hover', async () => {
    const { page, openPanel } = workbench();
    const notes = notesFolder(page.url());
    const pages = ['pasted-a.md', 'pasted-b.md', 'pasted-c.md'].map((name) => path.join(notes, name));
    for (const file of pages) writeFileSync(file, '# Okapi\n\nThe okapi relay drains the queue before every deploy.\n');
    try {
      const view = await openPanel();
      const query = view.locator('#query input');
      await query.waitFor();
      const copies = view.locator('.result .copies');
      // The files reach the index a moment after they are written: search again until they have.
      for (let attempt = 0; (await copies.count()) === 0; attempt++) {
        assert.ok(attempt < 40, 'the pasted section never showed as one result with copies');
        await query.fill(attempt % 2 === 0 ? 'okapi relay' : 'okapi relay queue');
        await page.waitForTimeout(500);
      }
      assert.equal(await view.locator('.result', { hasText: 'Okapi' }).count(), 1, 'one result for the three pages');
      assert.match(await copies.innerText(), /^\s*· same text in 2 more places$/);
      assert.match((await copies.getAttribute('title')) ?? '', /^same text also at pasted-\w\.md:1-3, pasted-\w\.md:1-3$/);
    } finally {
      for (const file of pages) rmSync(file, { force: true });
    }
  });

  test('the panel shows a page and its HTML rendering once, saying the rendering is much the same text', async () => {
    const { page, openPanel } = workbench();
    const notes = notesFolder(page.url());
    const prose =
      'The wombat scheduler pauses the nightly import, waits for the workers to finish the batches they hold, ' +
      'and then writes a marker file so that the next import knows the batches were done when it started its own work.';
    const files = {
      'wombat.md': `# Wombat scheduler\n\n${prose}\n`,
      'wombat.html': `<html><body>\n<h1>Wombat scheduler</h1>\n<p>${prose}</p>\n</body></html>\n`,
    };
    for (const [name, text] of Object.entries(files)) writeFileSync(path.join(notes, name), text);
    try {
      const view = await openPanel();
      const query = view.locator('#query input');
      await query.waitFor();
      // Another test's pages may linger in the index a moment: wait for this page's result to show copies.
      const copies = view.locator('.result', { hasText: 'Wombat' }).locator('.copies');
      for (let attempt = 0; (await copies.count()) === 0; attempt++) {
        assert.ok(attempt < 40, 'the page and its rendering never showed as one result');
        await query.fill(attempt % 2 === 0 ? 'wombat scheduler marker' : 'wombat scheduler marker file');
        await page.waitForTimeout(500);
      }
      const wombats = await view.locator('.result', { hasText: 'Wombat' }).allInnerTexts();
      assert.equal(wombats.length, 1, `one result for the page and its rendering: ${wombats.join(' | ')}`);
      assert.match(await copies.innerText(), /^\s*· much the same text in 1 more place$/);
      assert.match((await copies.getAttribute('title')) ?? '', /^much the same text also at wombat\.(?:md|html):\d+-\d+$/);
    } finally {
      for (const name of Object.keys(files)) rmSync(path.join(notes, name), { force: true });
    }
  });

  test("the panel ranks a test below the code it tests, and the test's explanation says why", async () => {
    const { page, openPanel } = workbench();
    const notes = notesFolder(page.url());
    const code = path.join(notes, 'quokka-ledger.ts');
    const tests = path.join(notes, 'tests');
    // Both say the same thing in the same words, as a test and its code do.
    writeFileSync(
      code,
      "// Rounds a quokka ledger's balance to whole cents.\nexport function roundLedger(balance: number): number {\n  return Math.round(balance * 100) / 100;\n}\n",
    );
    mkdirSync(tests, { recursive: true });
    writeFileSync(
      path.join(tests, 'quokka-ledger.test.ts'),
      "import { roundLedger } from '../quokka-ledger';\n\ntest('rounds a quokka ledger balance to whole cents', () => {\n  expect(roundLedger(1.005)).toBe(1.01);\n});\n",
    );
    try {
      const view = await openPanel();
      const query = view.locator('#query input');
      await query.waitFor();
      const testRow = view.locator('.result', { hasText: "test('rounds a quokka ledger" });
      // The files reach the index a moment after they are written: search again until both have.
      for (let attempt = 0; (await testRow.count()) === 0 || (await view.locator('.result', { hasText: 'roundLedger' }).count()) === 0; attempt++) {
        assert.ok(attempt < 40, 'the code and its test never both showed');
        await query.fill(attempt % 2 === 0 ? 'quokka ledger balance whole cents' : 'rounds quokka ledger balance to whole cents');
        await page.waitForTimeout(500);
      }
      assert.match(await view.locator('.result .title').first().innerText(), /^roundLedger$/, 'the code comes first');
      await testRow.locator('button.toggle').click();
      assert.match(await testRow.locator('.explain').innerText(), /a test \(×0\.70\)/);
    } finally {
      rmSync(code, { force: true });
      rmSync(tests, { recursive: true, force: true });
    }
  });

  test('the panel shows more results below the first page, numbered on, keeps what was expanded and where the focus was, and CodeLens counts them', async () => {
    const { page, openPanel } = workbench();
    const notes = notesFolder(page.url());
    const pages = Array.from({ length: 13 }, (_, i) => path.join(notes, `paged-${i}.md`));
    pages.forEach((file, i) => writeFileSync(file, `# Paged ${i}\n\nThe wombatpaging gauge, reading ${i}.\n`));
    try {
      const view = await openPanel();
      const query = view.locator('#query input');
      await query.waitFor();
      const rows = view.locator('.result');
      const more = view.locator('#more');
      // The files reach the index a moment after they are written: search again until a page is full.
      for (let attempt = 0; !(await more.isVisible()); attempt++) {
        assert.ok(attempt < 40, 'a full first page with more behind it never showed');
        await query.fill(attempt % 2 === 0 ? 'wombatpaging' : 'wombatpaging gauge');
        await page.waitForTimeout(500);
      }
      assert.equal(await rows.count(), 10, "the first page: fusedSearch.limit's 10");
      await rows.nth(1).locator('button.toggle').click();
      await rows.nth(1).locator('.explain').waitFor();
      // From the keyboard: the button hides after the last page, and the page's first result takes the focus.
      await more.focus();
      await page.keyboard.press('Enter');
      await view.locator('.result .rank', { hasText: /^13\.$/ }).waitFor();
      assert.equal(await rows.count(), 13);
      assert.ok(
        await rows
          .nth(10)
          .locator('button.open')
          .evaluate((open) => open.matches(':focus')),
        'the 11th result has the focus',
      );
      assert.equal(await rows.nth(1).locator('button.toggle').getAttribute('aria-expanded'), 'true', 'the explanation shown stays shown');
      assert.equal(await rows.locator('.explain').count(), 1);
      assert.deepEqual(
        await view.locator('.result .rank').allInnerTexts(),
        Array.from({ length: 13 }, (_, i) => `${i + 1}.`),
      );
      await more.waitFor({ state: 'hidden' });
      // The editor's result list holds the later page too: its CodeLens counts all thirteen.
      await rows.nth(11).locator('button.open').click();
      await page.locator('.monaco-editor .codelens-decoration', { hasText: 'Fused #12 of 13' }).waitFor();
    } finally {
      for (const file of pages) rmSync(file, { force: true });
    }
  });

  test("the panel's path field keeps the files its globs match and leaves out those written !glob", async () => {
    const { page, openPanel } = workbench();
    const notes = notesFolder(page.url());
    const pages = ['quokka-kept.md', 'quokka-dropped.md'].map((name) => path.join(notes, name));
    for (const file of pages) writeFileSync(file, `# ${path.basename(file)}\n\nThe quokkafilter reading.\n`);
    const view = await openPanel();
    const pathField = view.locator('#path-filter input');
    try {
      const query = view.locator('#query input');
      await query.waitFor();
      const rows = view.locator('.result');
      // The files reach the index a moment after they are written: search again until both have.
      for (let attempt = 0; (await rows.filter({ hasText: 'quokka-' }).count()) < 2; attempt++) {
        assert.ok(attempt < 40, 'the two notes never showed');
        await query.fill(attempt % 2 === 0 ? 'quokkafilter' : 'quokkafilter reading');
        await page.waitForTimeout(500);
      }
      await pathField.fill('quokka-*.md, !quokka-dropped.md');
      await rows.filter({ hasText: 'quokka-dropped' }).waitFor({ state: 'detached' });
      assert.deepEqual(
        (await rows.allInnerTexts()).filter((text) => text.includes('quokka-')).map((text) => /quokka-\w+/.exec(text)![0]),
        ['quokka-kept'],
      );
    } finally {
      // The panel keeps its fields: the tests after this one search without a path.
      await pathField.fill('');
      for (const file of pages) rmSync(file, { force: true });
    }
  });

  test('Search in Panel searches for the words selected on a line of the editor', async () => {
    const { page, runCommand, openPanel } = workbench();
    await runCommand('New Untitled Text File', 'File: New Untitled Text File');
    await page.locator('.editor-instance .monaco-editor.focused').waitFor();
    await page.keyboard.insertText('rank fusion');
    await page.keyboard.press('ControlOrMeta+A');
    try {
      const view = await openPanel();
      await view
        .locator('.result', { hasText: /fusion/i })
        .first()
        .waitFor();
      assert.equal(await view.locator('#query input').inputValue(), 'rank fusion');
    } finally {
      // Reverted first, or closing the untitled editor would ask.
      await runCommand('Revert and Close', 'View: Revert and Close Editor');
      await page.locator('.tab', { hasText: 'Untitled' }).waitFor({ state: 'detached' });
    }
  });

  test('the keyboard moves from the search box through the results, shows and hides an explanation, and opens a result', async () => {
    const { page, openPanel } = workbench();
    const view = await openPanel();
    const query = view.locator('#query input');
    await query.waitFor();
    await query.fill('content store expiry');
    // This query's results, not the ones an earlier test left in the panel.
    await view.locator('.result', { hasText: 'learned expiry' }).waitFor();
    // The editor the last test closed hands the focus to the one under it, on a busy machine after
    // the panel took it: the keys would go to that editor. Clicked, as a person would, the box has it.
    await query.click();
    const results = view.locator('.result');
    const focused = (locator: typeof results) => locator.evaluate((element) => element === element.ownerDocument.activeElement);
    assert.equal(await view.locator('#results button[tabindex="0"]').count(), 1, 'Tab reaches the list once');

    await page.keyboard.press('ArrowDown');
    assert.ok(await focused(results.nth(0).locator('button.open')), 'Down from the search box focuses the first result');
    await page.keyboard.press('ArrowDown');
    const second = results.nth(1);
    assert.ok(await focused(second.locator('button.open')), 'Down again, the second');
    await page.keyboard.press('ArrowRight');
    await second.locator('.explain').waitFor();
    await page.keyboard.press('ArrowLeft');
    await second.locator('.explain').waitFor({ state: 'detached' });
    assert.ok(await focused(second.locator('button.open')), 'the result keeps the focus');
    assert.equal(await second.locator('button.open').getAttribute('tabindex'), '0', 'and is where Tab comes back to');
    await page.keyboard.press('ArrowUp');
    await page.keyboard.press('ArrowUp');
    assert.ok(await focused(view.locator('#query')), 'Up from the first result goes back to the search box');

    await page.keyboard.press('ArrowDown');
    const file = (await results.nth(0).locator('.file').innerText()).trim();
    await page.keyboard.press('Enter');
    await page.locator('.tab.active', { hasText: file }).waitFor();
  });

  test("a result opens to the side from the quick pick's item button and from the panel with Ctrl held; previews leave no tab behind", async () => {
    const { page, runCommand, openPanel } = workbench();
    const groups = page.locator('.editor-group-container');
    const closeGroups = async () => {
      await runCommand('Close All Editor Groups', 'View: Close All Editor Groups');
      await groups.nth(1).waitFor({ state: 'detached' });
    };
    // One editor open, none of the earlier tests' left, the result's neighbour beside it.
    await runCommand('Close All Editors', 'View: Close All Editors');
    await page.locator('.tab').first().waitFor({ state: 'detached' });
    await runCommand('New Untitled Text File', 'File: New Untitled Text File');
    await groups.first().locator('.tab', { hasText: 'Untitled' }).waitFor();

    const widget = page.locator('.quick-input-widget');
    const input = widget.locator('input[placeholder^="Search the workspace"]');
    const item = widget.locator('[role="option"]', { hasText: /changelog\.md:\d+/ }).first();
    // The untitled editor alone: its number depends on the editors earlier tests opened.
    const firstGroupTabs = async () => (await groups.first().locator('.tab').allInnerTexts()).map((tab) => tab.trim().replace(/^Untitled-\d+$/, 'Untitled'));
    const searchFor = async (query: string) => {
      await runCommand('Fused Search: Search Workspace', 'Fused Search: Search Workspace');
      await input.waitFor();
      // At once: typed, each keystroke's results replace the last, and a row found could be another's by the click.
      await input.fill(query);
      await item.waitFor();
    };

    // Closed without a choice, the pick puts the editor back and closes the tab its previews used.
    await searchFor('content store expiry');
    await groups
      .first()
      .locator('.tab', { hasText: /changelog\.md|store\.ts/ })
      .first()
      .waitFor();
    await page.keyboard.press('Escape');
    await widget.waitFor({ state: 'hidden' });
    await groups
      .first()
      .locator('.tab', { hasText: /changelog\.md|store\.ts/ })
      .first()
      .waitFor({ state: 'detached' });
    assert.deepEqual(await firstGroupTabs(), ['Untitled'], 'only the editor the pick started from');

    await searchFor('content store expiry');
    // The pointer rests where the palette's row was clicked, maybe over this row, whose tooltip then
    // opens under it and takes the pointer's events: move it off first.
    await page.mouse.move(0, 0);
    await item.hover();
    await item.getByRole('button', { name: 'Open to the Side' }).click();
    await groups.nth(1).locator('.tab.active', { hasText: 'changelog.md' }).waitFor();
    assert.deepEqual(await firstGroupTabs(), ['Untitled'], 'beside the editor the pick started from, no preview left');
    await closeGroups();

    await runCommand('New Untitled Text File', 'File: New Untitled Text File');
    const view = await openPanel();
    const query = view.locator('#query input');
    await query.fill('content store expiry');
    await view.locator('.result', { hasText: 'learned expiry' }).waitFor();
    await view
      .locator('.result', { hasText: 'learned expiry' })
      .locator('button.open')
      .click({ modifiers: ['ControlOrMeta'] });
    await groups.nth(1).locator('.tab.active', { hasText: 'changelog.md' }).waitFor();
    await closeGroups();

    // And from the keyboard: Ctrl+Enter on the result the arrows reached. The new editor takes the
    // focus once it opens, on a busy machine after the panel took it and the keys went to the editor:
    // the panel is opened once the editor has the focus, and its search box clicked, as a person would.
    await runCommand('New Untitled Text File', 'File: New Untitled Text File');
    await page.locator('.monaco-editor.focused').waitFor();
    await openPanel();
    await query.click();
    await page.keyboard.press('ArrowDown');
    const first = view.locator('.result').first();
    assert.ok(await first.locator('button.open').evaluate((open) => open.matches(':focus')), 'Down from the search box focuses the first result');
    const file = (await first.locator('.file').innerText()).trim();
    await page.keyboard.press('ControlOrMeta+Enter');
    await groups.nth(1).locator('.tab.active', { hasText: file }).waitFor();
    await closeGroups();
  });

  test('the panel keeps its query, its filters and its grouping when its page is loaded again', async () => {
    const { runCommand, openPanel } = workbench();
    const view = await openPanel();
    const query = view.locator('#query input');
    await query.waitFor();
    await query.fill('content store expiry');
    await view.locator('#path-filter input').fill('**/*.ts');
    await view.locator('vscode-checkbox#group-by-file').click();
    // Grouped, a file's name heads its group; the path filter has answered once no group names the changelog.
    await view.locator('.group').first().waitFor();
    await view.locator('.group', { hasText: 'changelog.md' }).waitFor({ state: 'detached' });
    const shown = await view.locator('#results').innerText();
    // VS Code loads a view's page again after a window reload, or when it drops a hidden view (the
    // panel does not ask to be retained): Reload Webviews does the same at once. A mark left on this
    // page tells the two apart.
    await view.locator('body').evaluate((body) => body.setAttribute('data-loaded-before', ''));
    try {
      await runCommand('Reload Webviews', 'Developer: Reload Webviews');
      await view.locator('body:not([data-loaded-before]) .group').first().waitFor();
      assert.equal(await view.locator('#query input').inputValue(), 'content store expiry');
      assert.equal(await view.locator('#path-filter input').inputValue(), '**/*.ts');
      assert.equal(await view.locator('#results').innerText(), shown, 'the same results, grouped by file, the note left out');
    } finally {
      // The tests after this one search without a path, ranked.
      await view.locator('#path-filter input').fill('');
      await view.locator('vscode-checkbox#group-by-file').click();
      await view.locator('.group').first().waitFor({ state: 'detached' });
    }
  });

  test("a result clicked in the panel is the panel's, whatever the quick pick searched since", async () => {
    const { page, runCommand, openPanel } = workbench();
    const view = await openPanel();
    await view.locator('#query input').fill('content store expiry');
    const first = view.locator('.result').first();
    await view.locator('.result', { hasText: 'learned expiry' }).waitFor();
    const file = (await first.locator('.file').innerText()).trim();

    await runCommand('Fused Search: Search Workspace', 'Fused Search: Search Workspace');
    const widget = page.locator('.quick-input-widget');
    await widget.locator('input[placeholder^="Search the workspace"]').fill('reciprocal rank fusion');
    const other = widget.locator('[role="option"]').filter({ hasNotText: file }).first();
    await other.waitFor();
    assert.ok(!(await widget.locator('[role="option"]').first().innerText()).includes(file), `the quick pick's first result is not in ${file}`);
    await page.keyboard.press('Escape');
    await widget.waitFor({ state: 'hidden' });

    await first.locator('button.open').click();
    await page.locator('.tab.active', { hasText: file }).waitFor();
    await page.locator('.monaco-editor .codelens-decoration', { hasText: 'Fused #1 of' }).first().waitFor();
  });

  test("Clear Results empties the panel's search box and list, and its page loaded again stays empty", async () => {
    const { page, runCommand, openPanel } = workbench();
    const view = await openPanel();
    const query = view.locator('#query input');
    await query.fill('content store expiry');
    await view.locator('.result', { hasText: 'learned expiry' }).waitFor();
    await runCommand('Fused Search: Clear Results', 'Fused Search: Clear Results');
    await view.locator('.result').first().waitFor({ state: 'detached' });
    assert.equal(await query.inputValue(), '');
    assert.equal(await view.locator('#note').innerText(), '');

    await view.locator('body').evaluate((body) => body.setAttribute('data-loaded-before', ''));
    await runCommand('Reload Webviews', 'Developer: Reload Webviews');
    await view.locator('body:not([data-loaded-before]) #query input').waitFor();
    // Time for a search the page might restore to answer.
    await page.waitForTimeout(1_000);
    assert.equal(await view.locator('.result').count(), 0);
    assert.equal(await query.inputValue(), '');
  });

  test('Find Similar Chunks lists in the panel the chunks like the one under the cursor, again when the page loads again', async () => {
    const { page, runCommand, openPanel } = workbench();
    const view = await openPanel();
    await view.locator('#query input').fill('content store');
    const store = view.locator('.result button.open', { hasText: 'ContentStore' }).first();
    await store.waitFor();
    await store.click();
    await page.locator('.tab.active', { hasText: 'store.ts' }).waitFor();
    // The open takes the focus a moment after the tab shows: from the palette, if it is open by then.
    await page.locator('.monaco-editor.focused').waitFor();
    await runCommand('Fused Search: Find Similar', 'Fused Search: Find Similar Chunks');
    const note = view.locator('#note', { hasText: /^\d+ results similar to src\/store\.ts:\d+ in \d+ ms/ });
    await note.waitFor();
    const listed = await view.locator('#results').innerText();
    assert.ok((await view.locator('.result').count()) > 0, 'some chunks are like it');
    assert.equal(await view.locator('.result .title', { hasText: /^ContentStore$/ }).count(), 0, 'the chunk itself is not among them');
    assert.equal(await view.locator('#query input').inputValue(), 'content store', 'the search box keeps what was typed');

    await view.locator('body').evaluate((body) => body.setAttribute('data-loaded-before', ''));
    await runCommand('Reload Webviews', 'Developer: Reload Webviews');
    await view.locator('body:not([data-loaded-before]) #note', { hasText: /similar to src\/store\.ts/ }).waitFor();
    assert.equal(await view.locator('#results').innerText(), listed);
  });

  test('a CodeLens marks each result chunk, and "next" jumps to the next result', async () => {
    const { page, screenshot, panel } = workbench();
    const view = panel();
    await view.locator('#query input').fill('content store');
    // The list still shows the previous query's results until the new ones arrive.
    const open = view.locator('.result button.open', { hasText: 'ContentStore' }).first();
    await open.waitFor();
    await open.click();
    // The lenses of the list shown before may linger while the editor draws the new ones; every "next"
    // runs the same command.
    const lens = page.locator('.monaco-editor .codelens-decoration', { hasText: 'Fused #1 of' }).first();
    await lens.waitFor();
    await screenshot('codelens');
    const before = await page.locator(SELECTION).innerText();
    await lens.locator('a', { hasText: 'next ▸' }).click();
    await page.locator('.monaco-editor .codelens-decoration', { hasText: 'Fused #2 of' }).first().waitFor();
    const deadline = Date.now() + 10_000;
    while ((await page.locator(SELECTION).innerText()) === before) {
      assert.ok(Date.now() < deadline, 'the selection moved to the next result');
      await page.waitForTimeout(100);
    }
  });
});
