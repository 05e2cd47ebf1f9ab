// Reads the extension's settings from VS Code and hands them to settings-parse.ts, which checks
// them (and applies the workspace-trust rule) without touching the vscode API.

import * as vscode from 'vscode';
import { parseSettings, SECTION, type Settings } from './settings-parse.ts';

export { parseSettings, RESTRICTED_KEYS, SECTION, type Settings, type SettingsSource } from './settings-parse.ts';

export function readSettings(log: vscode.LogOutputChannel, scope?: vscode.Uri): Settings {
  const config = vscode.workspace.getConfiguration(SECTION, scope);
  return parseSettings({ get: (key) => config.get<unknown>(key), inspect: (key) => config.inspect<unknown>(key) }, vscode.workspace.isTrusted, (message) =>
    log.warn(message),
  );
}

/**
 * `files.exclude` and `search.exclude` as gitignore-style globs for the engine. Only entries set to
 * `true` count; a `when` clause (sibling-dependent) cannot be expressed and is skipped.
 */
export function editorExcludes(scope: vscode.Uri): string[] {
  const out = new Set<string>();
  for (const [section, key] of [
    ['files', 'exclude'],
    ['search', 'exclude'],
  ] as const) {
    const value = vscode.workspace.getConfiguration(section, scope).get<Record<string, unknown>>(key) ?? {};
    for (const [glob, on] of Object.entries(value)) if (on === true) out.add(glob.replace(/^\.\//, ''));
  }
  return [...out];
}
