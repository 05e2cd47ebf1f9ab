// What the suites ask of the extension, through the commands it registers for tests: its index's
// state once settled, and a search as the quick pick asks it.
import * as vscode from 'vscode';
import type { IndexState } from '../../src/extension/indexing.ts';
import type { SearchAnswer } from '../../src/protocol/worker.ts';

/** Resolves once nothing is queued or syncing, with the index's state then. */
export const waitForIndex = async () => vscode.commands.executeCommand<IndexState>('fusedSearch.api.waitForIndex');

export const search = async (query: string) => vscode.commands.executeCommand<SearchAnswer | undefined>('fusedSearch.api.search', query);

/** Every suite's set-up: the extension activated and the workspace indexed. */
export async function activateAndIndex(): Promise<void> {
  await vscode.extensions.getExtension('fused-search.fused-search')?.activate();
  await waitForIndex();
}
