// The VS Code side of Fused Search. `activate` only registers things; every disposable goes into
// context.subscriptions so VS Code releases it on deactivation or reload.
import * as vscode from 'vscode';

export function activate(context: vscode.ExtensionContext): void {
  const version = String((context.extension.packageJSON as { version?: unknown }).version ?? '');
  context.subscriptions.push(
    vscode.commands.registerCommand('fusedSearch.showVersion', () => {
      void vscode.window.showInformationMessage(`Fused Search ${version}`);
      // Returned as well as shown so that tests and other extensions can read it.
      return version;
    }),
  );
}
