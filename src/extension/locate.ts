// "Fused Search: Locate from Issue or Stack Trace": the text a person points at (a selection in
// the editor or a terminal, or the clipboard) to the files it is about, in the panel; and "Locate
// Last Command's Output", the same for what the active terminal's latest command printed.

import * as vscode from 'vscode';
import { oneLine } from '../core/agent-text.ts';
import { MAX_LOCATE_CHARS } from '../core/options.ts';
import type { FolderLocateAnswer } from '../protocol/worker.ts';
import type { EngineClient } from '../worker/client.ts';
import type { PanelProvider } from './panel.ts';
import { copiedFromTerminal, type TerminalOutputs } from './terminal-output.ts';

/** The panel names a command by at most this many characters of its line: a test run's whole, a script pasted at the prompt cut. */
const MAX_COMMAND_CHARS = 80;

/** A text to locate, and where it was taken from in words ("the clipboard"), which the panel says; none for a text given to the command. */
export interface TextToLocate {
  text: string;
  source?: string;
}

export interface LocateDeps {
  client: EngineClient;
  panel: PanelProvider;
  log: vscode.LogOutputChannel;
}

/**
 * Where the text comes from, first found wins: the editor's selection, the active terminal's
 * selection, then the clipboard. A selection is a deliberate choice; the clipboard may hold
 * anything, so it comes last. From the terminal's context menu the terminal's selection comes
 * first, whatever the editor has selected.
 */
export async function textToLocate(from: 'anywhere' | 'terminal'): Promise<TextToLocate> {
  const editor = vscode.window.activeTextEditor;
  const selected = from === 'anywhere' && editor && !editor.selection.isEmpty ? editor.document.getText(editor.selection) : '';
  if (selected.trim()) return { text: selected, source: "the editor's selection" };
  const terminal = await copiedFromTerminal('workbench.action.terminal.copySelection');
  if (terminal.trim()) return { text: terminal, source: "the terminal's selection" };
  return { text: await vscode.env.clipboard.readText(), source: 'the clipboard' };
}

/** Locates `text` in every open folder and shows the ranked files in the panel; resolves with the answer (for tests), or undefined. */
export async function locateInPanel(deps: LocateDeps, { text, source }: TextToLocate): Promise<FolderLocateAnswer | undefined> {
  if (!text.trim()) {
    void vscode.window.showInformationMessage('Fused Search: select an issue text, an error message or a stack trace (or copy it), then locate again.');
    return undefined;
  }
  const answer = await deps.client.request({ type: 'locate', text: text.slice(0, MAX_LOCATE_CHARS) });
  if (!answer.ok) {
    deps.log.error(`locate failed: ${answer.error.message}`);
    void vscode.window.showErrorMessage(`Fused Search: could not locate the text: ${answer.error.message}`);
    return undefined;
  }
  await deps.panel.showLocated(answer.value, source);
  return answer.value;
}

/** Locates what the active terminal's latest command printed (passing over those that printed nothing), or says why there is nothing to locate. */
export async function locateLastCommand(deps: LocateDeps, outputs: TerminalOutputs): Promise<FolderLocateAnswer | undefined> {
  const last = await outputs.ofActive();
  if (!last?.output.trim()) {
    const why = !vscode.window.activeTerminal
      ? 'no terminal is open'
      : !last
        ? "no command's output was read in the active terminal (its shell integration is off, or nothing ran since it opened)"
        : last.unread
          ? `VS Code passed on none of \`${last.commandLine}\`'s output`
          : `\`${last.commandLine}\` printed nothing`;
    void vscode.window.showInformationMessage(`Fused Search: ${why}. Select the output and use Locate Selection in Code instead.`);
    return undefined;
  }
  const state = last.running ? 'still running' : last.exitCode !== undefined ? `exit code ${last.exitCode}` : '';
  const passedOver = last.latest ? '' : 'the commands after it printed nothing';
  const notes = [state, passedOver].filter(Boolean).join('; ');
  deps.log.info(`locating the output of \`${last.commandLine}\`${notes ? ` (${notes})` : ''}`);
  return locateInPanel(deps, { text: last.output, source: `the output of “${oneLine(last.commandLine, MAX_COMMAND_CHARS)}”` });
}
