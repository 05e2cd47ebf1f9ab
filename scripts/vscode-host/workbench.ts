// The bridge between the runner and UI test modules: the runner opens the workbench page and hands
// it over here before it loads the modules, which read it back with `workbench()`.
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FrameLocator, Locator, Page } from 'playwright-core';

// Function-typed members rather than methods: the suites destructure them from workbench(), and
// none of them uses `this`.
export interface Workbench {
  page: Page;
  /** Saves a full-page PNG as `<screenshot folder>/<name>.png` and returns its path. */
  screenshot: (name: string) => Promise<string>;
  /**
   * Opens the command palette, types `filter` and returns the row labelled exactly `entry`,
   * reopening the palette until that row appears or `timeoutMs` (default 60 000) runs out.
   */
  commandPalette: (filter: string, entry: string, timeoutMs?: number) => Promise<Locator>;
  /** Runs the command palette's row labelled `entry`, found by typing `filter`. */
  runCommand: (filter: string, entry: string) => Promise<void>;
  /**
   * Opens `folder` (default: the suite's workspace) in another browser page and resolves once its
   * workbench is restored: another window, with an extension host process of its own. Close it
   * with `page.close({ runBeforeUnload: true })`, which shuts its extension host down as closing a
   * window does.
   */
  openWindow: (folder?: string) => Promise<Workbench>;
  /** The extension's log (its output channel) of every extension host so far, one text each. */
  extensionLogs: () => string[];
  /** Resolves once the status bar shows a built index (`Fused: N chunks`). */
  waitForIndex: () => Promise<void>;
  /** Opens the Fused Search panel from the command palette and returns its webview's frame. */
  openPanel: () => Promise<FrameLocator>;
  /** The panel's webview frame, open or not. */
  panel: () => FrameLocator;
  /**
   * Presses Escape until `widget` hides, at most three times: the first may only close a hover that
   * the pointer, left where a click was, opened. The caller checks that it hid.
   */
  escapeFrom: (widget: Locator) => Promise<void>;
}

export interface WorkbenchHost {
  screenshotDir: string;
  /** Opens `folder` (default: the suite's workspace) in a new page, once its workbench is restored. */
  openWindow(folder?: string): Promise<Page>;
  /** code-server's log folder: one sub-folder per extension host holds the extension's log. */
  logsDir: string;
}

// Extensions register their commands a few seconds after the workbench looks ready, at a moment
// the page does not announce, and an open palette does not pick up commands registered later.
const PALETTE_ATTEMPT_MS = 3_000;

let current: Workbench | undefined;

function forPage(page: Page, host: WorkbenchHost): Workbench {
  const self: Workbench = {
    page,
    async screenshot(name) {
      mkdirSync(host.screenshotDir, { recursive: true });
      const path = join(host.screenshotDir, `${name}.png`);
      await page.screenshot({ path, fullPage: true });
      return path;
    },
    async commandPalette(filter, entry, timeoutMs = 60_000) {
      const palette = page.locator('.quick-input-widget');
      // A row's accessible name is its label, then any detail or keybinding after a comma; matching
      // the whole label keeps "Open Preview" from also matching "Open Preview to the Side".
      const label = entry.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      const row = palette.getByRole('option', { name: new RegExp(`^${label}(,|$)`) });
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        await page.keyboard.press('F1');
        try {
          // Keys go wherever the focus is, and the palette takes it a moment after it shows (later
          // still when F1 came from a webview), or loses it, and closes, to an editor a click opened:
          // keys typed then land in the panel's search box or the document. Filled, they reach the
          // palette alone, or the attempt fails and the palette opens again.
          await palette.locator('input').fill(`>${filter}`, { timeout: PALETTE_ATTEMPT_MS });
          await row.waitFor({ timeout: PALETTE_ATTEMPT_MS });
          return row;
        } catch (error) {
          if (Date.now() > deadline) throw error;
          await page.keyboard.press('Escape');
        }
      }
    },
    async runCommand(filter, entry) {
      const deadline = Date.now() + 60_000;
      for (;;) {
        const row = await self.commandPalette(filter, entry);
        try {
          // The palette closes when an editor opened a moment before takes the focus back: the
          // row was never clicked, and the palette opens again.
          await row.click({ timeout: PALETTE_ATTEMPT_MS });
          return;
        } catch (error) {
          if (Date.now() > deadline) throw error;
        }
      }
    },
    async openWindow(folder) {
      return forPage(await host.openWindow(folder), host);
    },
    async waitForIndex() {
      await page
        .locator('.statusbar-item', { hasText: /Fused: [\d,]+ chunks/ })
        .first()
        .waitFor({ timeout: 60_000 });
    },
    async openPanel() {
      await self.runCommand('Fused Search: Search in Panel', 'Fused Search: Search in Panel');
      return self.panel();
    },
    panel() {
      // The view's webview nests the panel's document in a second frame.
      return page.frameLocator('iframe.webview.ready').frameLocator('iframe#active-frame');
    },
    async escapeFrom(widget) {
      for (let tries = 0; tries < 3 && (await widget.isVisible()); tries++) {
        await page.keyboard.press('Escape');
        await widget.waitFor({ state: 'hidden', timeout: 2_000 }).catch(() => {});
      }
    },
    extensionLogs() {
      return readdirSync(host.logsDir, { recursive: true, encoding: 'utf8' })
        .filter((file) => file.endsWith('Fused Search.log'))
        .sort()
        .map((file) => readFileSync(join(host.logsDir, file), 'utf8'));
    },
  };
  return self;
}

export function openWorkbench(page: Page, host: WorkbenchHost): Workbench {
  current = forPage(page, host);
  return current;
}

export function workbench(): Workbench {
  if (!current) throw new Error('UI tests must be run by scripts/vscode-host/run-tests.ts --ui');
  return current;
}
