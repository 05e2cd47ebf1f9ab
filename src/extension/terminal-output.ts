// What each terminal's latest command printed, read through VS Code's shell integration, so
// "Locate Last Command's Output" needs no selection: run the tests, see them fail, locate. A
// command that printed nothing (`cd`, `clear`) is passed over for the one before it that did.
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
  /** False when the commands run after it printed nothing (`cd`, `clear`) and were passed over. */
  latest: boolean;
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
  /**
   * Per terminal, its latest command last, after the latest before it that printed something and
   * those since that may still print (a command's output can arrive after its end).
   */
  private readonly recent = new WeakMap<vscode.Terminal, Recording[]>();
  private readonly subscriptions: vscode.Disposable[];

  constructor(log: vscode.LogOutputChannel) {
    this.subscriptions = [
      vscode.window.onDidStartTerminalShellExecution((event) => {
        this.record(event.terminal, event.execution).catch((error: unknown) =>
          log.warn(`cannot read the output of \`${event.execution.commandLine.value}\`: ${String(error)}`),
        );
      }),
      vscode.window.onDidEndTerminalShellExecution((event) => {
        const recording = this.recent.get(event.terminal)?.find((r) => r.execution === event.execution);
        if (recording) recording.exitCode = event.exitCode;
      }),
    ];
  }

  /** The latest command of `terminal` that printed something, finished or still running, or the latest when none did; undefined when none was read. */
  of(terminal: vscode.Terminal): CommandOutput | undefined {
    const recent = this.recent.get(terminal) ?? [];
    const latest = recent.at(-1);
    if (!latest) return undefined;
    const recording = recent.findLast(printed) ?? latest;
    return {
      commandLine: recording.execution.commandLine.value,
      output: outputOf(recording),
      exitCode: recording.exitCode,
      running: recording.running,
      latest: recording === latest,
    };
  }

  private async record(terminal: vscode.Terminal, execution: vscode.TerminalShellExecution): Promise<void> {
    const recording: Recording = { execution, chunks: [], length: 0, exitCode: undefined, running: true };
    const candidates = (this.recent.get(terminal) ?? []).filter((r) => r.running || printed(r));
    this.recent.set(terminal, [...candidates.slice(Math.max(0, candidates.findLastIndex(printed))), recording]);
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

/** What a command printed, escape sequences dropped, at most MAX_INPUT_CHARS: its end. */
function outputOf(recording: Recording): string {
  return stripAnsi(recording.chunks.join('')).slice(-MAX_INPUT_CHARS);
}

function printed(recording: Recording): boolean {
  return outputOf(recording).trim() !== '';
}
