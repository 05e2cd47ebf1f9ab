// The workbench's editor tabs, across every editor group.

import * as vscode from 'vscode';

export function allTabs(): vscode.Tab[] {
  return vscode.window.tabGroups.all.flatMap((group) => group.tabs);
}

/** The file a text editor's tab shows; other tabs (settings, webviews, diffs) show none. */
export function textTabUri(tab: vscode.Tab): vscode.Uri | undefined {
  return tab.input instanceof vscode.TabInputText ? tab.input.uri : undefined;
}
