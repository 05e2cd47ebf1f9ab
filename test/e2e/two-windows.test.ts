import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { suite, suiteSetup, suiteTeardown, test } from 'mocha';
import { workbench, type Workbench } from '../../scripts/vscode-host/workbench.ts';

// Two windows on one folder: each browser page on code-server gets an extension host process of its
// own, so two pages are two engine workers on the folder's one database. One keeps the index (it
// holds the lease), the other reads it; when the first closes, the second keeps it. The windows
// open a folder of their own, so that closing one leaves the suite's window alone.

const STATUS = /Fused: [\d,]+ chunks/;

function status(window: Workbench) {
  return window.page.locator('.statusbar-item', { hasText: /Fused:/ }).first();
}

/** The chunk count the window's status bar shows. */
async function chunks(window: Workbench): Promise<number> {
  return Number((await status(window).innerText()).match(/([\d,]+) chunks/)?.[1]?.replaceAll(',', ''));
}

/**
 * Searches in the window's quick pick (opened with its keybinding, Ctrl+Alt+F), typing the query
 * again until a row from `file` shows up.
 */
async function find(window: Workbench, query: string, file: string, timeoutMs = 30_000): Promise<void> {
  const { page } = window;
  const widget = page.locator('.quick-input-widget');
  const input = widget.locator('input[placeholder^="Search the workspace"]');
  const row = widget.locator('[role="option"]', { hasText: new RegExp(`${file.replaceAll('.', '\\.')}:\\d+ · (rrf|proximity|fuzzy)`) });
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await page.keyboard.press('Control+Alt+F');
      await input.fill(query, { timeout: 3_000 });
      await row.first().waitFor({ timeout: 3_000 });
      return;
    } catch (error) {
      if (Date.now() > deadline) throw new Error(`"${query}" did not find ${file} in time`, { cause: error });
    } finally {
      await closeQuickPick(window);
    }
  }
}

/**
 * Closes the window's quick pick, so that the next keybinding press opens a fresh one rather than
 * landing in this one as it closes. On a loaded machine the quick pick may open only after an
 * Escape meant for it was pressed, so Escape is pressed until it is gone.
 */
async function closeQuickPick({ page }: Workbench): Promise<void> {
  const widget = page.locator('.quick-input-widget');
  const deadline = Date.now() + 30_000;
  for (;;) {
    await page.keyboard.press('Escape');
    try {
      await widget.waitFor({ state: 'hidden', timeout: 2_000 });
      return;
    } catch (error) {
      if (Date.now() > deadline) throw error;
    }
  }
}

/**
 * The notifications the window holds (the smoke-test driver keeps them behind the bell) that are
 * errors or warnings, or come from this extension. The workbench's own progress ("Activating
 * Extensions...") may be there too.
 */
async function problems(window: Workbench): Promise<string[]> {
  const { page } = window;
  const bell = page.locator('[id="status.notifications"]');
  if ((await bell.locator('.codicon-bell-dot').count()) === 0) return [];
  await bell.click();
  const rows = page.locator('.notifications-center .monaco-list-row');
  // A transient one (progress, "extension host is unresponsive" on a loaded machine) may be gone by
  // the time the centre opens: an empty centre holds no problem.
  await rows
    .first()
    .waitFor({ timeout: 5_000 })
    .catch(() => undefined);
  const found = await rows.evaluateAll((elements) =>
    elements
      .filter((row) => row.querySelector('.codicon-error, .codicon-warning') || /Fused|locked/i.test(row.textContent ?? ''))
      .map((row) => row.textContent ?? ''),
  );
  await bell.click();
  return found;
}

suite('two windows on the same folder', () => {
  let folder: string;
  const windows: Workbench[] = [];

  suiteSetup(() => {
    folder = mkdtempSync(join(tmpdir(), 'fused-two-windows-'));
    mkdirSync(join(folder, 'src'));
    writeFileSync(join(folder, 'src', 'retry.ts'), 'export function retryWithBackoff(attempts: number): number {\n  return 2 ** attempts;\n}\n');
    writeFileSync(join(folder, 'guide.md'), '# Deploying\n\nRoll the cluster one node at a time.\n');
  });

  suiteTeardown(async () => {
    // Closing a page shuts its extension host down, as closing a window does (a closed one is left be).
    for (const window of windows) await window.page.close({ runBeforeUnload: true });
    rmSync(folder, { recursive: true, force: true });
  });

  test('share one index: one window keeps it, the other reads it, and takes it over when the first closes', async function () {
    this.timeout(120_000);
    const name = basename(folder);
    const a = await workbench().openWindow(folder);
    windows.push(a);
    await status(a).filter({ hasText: STATUS }).waitFor({ timeout: 60_000 });
    const b = await workbench().openWindow(folder);
    windows.push(b);
    // B finds the lease held, so it reads A's database instead of indexing: had it a database of its
    // own (VS Code gives each extension host its own workspace storage), it would hold that lease.
    await status(b)
      .filter({ hasText: /· read-only/ })
      .waitFor({ timeout: 30_000 });
    assert.match(await status(a).innerText(), STATUS);
    assert.doesNotMatch(await status(a).innerText(), /read-only/, 'exactly one window keeps the index');
    const before = await chunks(a);
    assert.equal(await chunks(b), before, 'both count the same index');
    await find(a, 'retryWithBackoff', 'retry.ts');
    await find(b, 'retryWithBackoff', 'retry.ts');

    // A new file on disk: A's watcher indexes it; B, which indexes nothing, finds it in the same database.
    writeFileSync(join(folder, 'harbour.md'), '# Harbour\n\nThe quokkaferry leaves at dawn.\n');
    await find(a, 'quokkaferry', 'harbour.md');
    await find(b, 'quokkaferry', 'harbour.md');
    // B's status bar follows what A indexed (the new file's one chunk) within a heartbeat, 5 s.
    await status(a)
      .filter({ hasText: `Fused: ${before + 1} chunks` })
      .waitFor();
    await status(b)
      .filter({ hasText: `Fused: ${before + 1} chunks · read-only` })
      .waitFor({ timeout: 10_000 });
    assert.deepEqual(await problems(a), [], 'window A shows no error, warning or notification of ours');

    // Closing A ends its extension host, which gives the lease up, and B takes over: a file changed
    // meanwhile is found in B, and so is a new one, which only a window that indexes can find
    // (worker-lease.test.ts covers the catch-up sync on its own).
    await a.page.close({ runBeforeUnload: true });
    writeFileSync(join(folder, 'src', 'retry.ts'), 'export function retryWithJitter(attempts: number): number {\n  return Math.random() * 2 ** attempts;\n}\n');
    await status(b)
      .filter({ hasText: STATUS })
      .filter({ hasNotText: /read-only/ })
      .waitFor({ timeout: 30_000 })
      .catch((error: unknown) => {
        // CI keeps no log folder: say here what each window's extension host was doing.
        const logs = workbench()
          .extensionLogs()
          .filter((log) => log.includes(`${name}: `));
        throw new Error(`window B did not take the index over; the extension hosts' logs:\n${logs.join('\n----\n')}`, { cause: error });
      });
    await find(b, 'retryWithJitter', 'retry.ts');
    writeFileSync(join(folder, 'tides.md'), '# Tides\n\nThe pelicanlighthouse blinks twice.\n');
    await find(b, 'pelicanlighthouse', 'tides.md');

    assert.deepEqual(await problems(b), [], 'window B shows no error, warning or notification of ours');
    // Each window's own log (its output channel): one kept the index from the start, the other read
    // it until it took over, and neither logged an error, a warning or a busy database.
    const logs = workbench()
      .extensionLogs()
      .filter((log) => log.includes(`${name}: `));
    assert.equal(logs.length, 2, `two extension hosts logged about ${name}`);
    const [keeper, reader] = logs[0]!.includes('lease is held by') ? [logs[1]!, logs[0]!] : [logs[0]!, logs[1]!];
    assert.match(keeper, new RegExp(`${name}: holding the index lease`));
    assert.doesNotMatch(keeper, /lease is held by/);
    assert.match(reader, new RegExp(`${name}: the index lease is held by a VS Code window \\(pid \\d+[^]*${name}: holding the index lease`));
    for (const log of logs) assert.doesNotMatch(log, /\[(error|warning)\]|locked|SQLITE_BUSY/i, log);
  });
});
