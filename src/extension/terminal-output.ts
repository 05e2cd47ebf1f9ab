// What each terminal's latest command printed, read through VS Code's shell integration, so
// "Locate Last Command's Output" needs no selection: run the tests, see them fail, locate.
//
// A command's output can only be read from its start, so every command is read as it runs. Only
// the end of a long output is kept, as much as `locate` reads (MAX_INPUT_CHARS): a program prints
// its error and trace last. Colours and the shell integration's own sequences are dropped when the
// output is asked for, not as it streams, so a chatty command costs a list of its last chunks.

import stripAnsi from 'strip-ansi';
import * as vscode from 'vscode';
import { MAX_INPUT_CHARS } from '../core/clues.ts';

export interface CommandOutput {
  commandLine: string;
  /** What it printed, escape sequences dropped; at most MAX_INPUT_CHARS, its end. */
  output: string;
  /** Undefined while it runs, and when the shell does not report it. */
  exitCode: number | undefined;
  running: boolean;
}

/** Raw characters kept per command: room for the escape sequences around the text kept. */
const RAW_CHARS_KEPT = 2 * MAX_INPUT_CHARS;

interface Recording {
  execution: vscode.TerminalShellExecution;
  chunks: string[];
  length: number;
  exitCode: number | undefined;
  running: boolean;
}

export class TerminalOutputs implements vscode.Disposable {
  private readonly latest = new WeakMap<vscode.Terminal, Recording>();
  private readonly subscriptions: vscode.Disposable[];

  constructor(log: vscode.LogOutputChannel) {
    this.subscriptions = [
      vscode.window.onDidStartTerminalShellExecution((event) => {
        this.record(event.terminal, event.execution).catch((error: unknown) =>
          log.warn(`cannot read the output of \`${event.execution.commandLine.value}\`: ${String(error)}`),
        );
      }),
      vscode.window.onDidEndTerminalShellExecution((event) => {
        const recording = this.latest.get(event.terminal);
        if (recording?.execution === event.execution) recording.exitCode = event.exitCode;
      }),
    ];
  }

  /** The latest command of `terminal`, finished or still running; undefined when none was read. */
  of(terminal: vscode.Terminal): CommandOutput | undefined {
    const recording = this.latest.get(terminal);
    if (!recording) return undefined;
    return {
      commandLine: recording.execution.commandLine.value,
      output: stripAnsi(recording.chunks.join('')).slice(-MAX_INPUT_CHARS),
      exitCode: recording.exitCode,
      running: recording.running,
    };
  }

  private async record(terminal: vscode.Terminal, execution: vscode.TerminalShellExecution): Promise<void> {
    const recording: Recording = { execution, chunks: [], length: 0, exitCode: undefined, running: true };
    this.latest.set(terminal, recording);
    try {
      for await (const data of execution.read()) {
        recording.chunks.push(data);
        recording.length += data.length;
        while (recording.length - recording.chunks[0]!.length >= RAW_CHARS_KEPT) recording.length -= recording.chunks.shift()!.length;
      }
    } finally {
      recording.running = false;
    }
  }

  dispose(): void {
    for (const subscription of this.subscriptions) subscription.dispose();
  }
}
