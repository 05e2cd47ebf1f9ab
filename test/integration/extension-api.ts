// What the suites ask of the extension, through the commands it registers for tests: its index's
// state once settled, its status bar item, a search as the quick pick asks it, and a checkout while
// indexing is paused.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import * as vscode from 'vscode';
import type { IndexState } from '../../src/extension/indexing.ts';
import type { SearchOptionsInput } from '../../src/core/options.ts';
import type { SearchAnswer } from '../../src/protocol/worker.ts';

/** Resolves once nothing is queued or syncing, with the index's state then. */
export const waitForIndex = async () => vscode.commands.executeCommand<IndexState>('fusedSearch.api.waitForIndex');

/** The status bar item's text and tooltip. */
export const status = async () => vscode.commands.executeCommand<{ text: string; tooltip: string }>('fusedSearch.api.status');

export const search = async (query: string, options?: SearchOptionsInput) =>
  vscode.commands.executeCommand<SearchAnswer | undefined>('fusedSearch.api.search', query, options);

/** Every suite's set-up: the extension activated and the workspace indexed. */
export async function activateAndIndex(): Promise<void> {
  await vscode.extensions.getExtension('fused-search.fused-search')?.activate();
  await waitForIndex();
}

/** The keeper syncs a batch of this many changed files or more as one (src/core/index-keeper.ts), rather than reading them one by one. */
export const MASS_CHANGE_FILES = 200;
/** A branch switch's worth of new files. */
export const CHECKOUT_FILES = 2 * MASS_CHANGE_FILES;

/**
 * With indexing paused, writes CHECKOUT_FILES pages that each say `word` into the `notes` folder, all
 * at once, as a checkout does: how many of them the index holds once the watcher has reported them,
 * what the status bar says then, and how many after Resume Indexing. The pages are removed after.
 */
export async function checkoutWhilePaused(word: string): Promise<{ whilePaused: number; status: string; afterResume: number }> {
  const notes = vscode.workspace.workspaceFolders?.find((f) => f.name === 'notes');
  if (!notes) throw new Error('the fixture has no notes folder');
  const checkout = path.join(notes.uri.fsPath, 'checkout');
  const found = async () => (await search(word, { limit: CHECKOUT_FILES + 100 }))?.results.length ?? 0;
  try {
    mkdirSync(checkout, { recursive: true });
    for (let i = 0; i < CHECKOUT_FILES; i++) writeFileSync(path.join(checkout, `page${i}.md`), `# Page ${i}\n\nThe ${word} holds page ${i}.\n`);
    await new Promise((r) => setTimeout(r, 2_000));
    await waitForIndex();
    const whilePaused = await found();
    const { text } = await status();
    await vscode.commands.executeCommand('fusedSearch.resumeIndexing');
    await waitForIndex();
    return { whilePaused, status: text, afterResume: await found() };
  } finally {
    await vscode.commands.executeCommand('fusedSearch.resumeIndexing');
    rmSync(checkout, { recursive: true, force: true });
    await new Promise((r) => setTimeout(r, 500));
    await waitForIndex();
  }
}
