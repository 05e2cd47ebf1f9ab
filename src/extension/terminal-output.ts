// What each terminal's latest command printed, read through VS Code's shell integration, so
// "Locate Last Command's Output" needs no selection: run the tests, see them fail, locate. A
// command that printed nothing (`cd`, `clear`) is passed over for the one before it that did.
//
// A command's output can only be read from its start, so every command is read as it runs. Only
// the end of a long output is kept, as much as `locate` reads (MAX_INPUT_CHARS): a program prints
// its error and trace last. Colours and the shell integration's own sequences are dropped when the
// output is asked for, not as it streams, so a chatty command costs a list of its last chunks.
//
// VS Code can report a command's start after the output it printed at once (a race in its shell
// integration), and passes on none of that output then. Such a command is unread, not silent: when
// it is the latest, or when no command was read at all (it ran before the extension listened), its
// output is read from the terminal's buffer with the terminal's own Copy Last Command Output.

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
  /** True when VS Code passed on none of its output and the terminal's buffer could not make up for it: `output` is empty because it is unknown. */
  unread: boolean;
}

/** Raw characters kept per command: room for the escape sequences around the text kept. */
const RAW_CHARS_KEPT = 2 * MAX_INPUT_CHARS;

interface Recording {
  commandLine: string;
  /** Undefined when the command was read from the terminal's buffer, not as it ran. */
  execution: vscode.TerminalShellExecution | undefined;
  chunks: string[];
  length: number;
  exitCode: number | undefined;
  running: boolean;
  /**
   * It ended and VS Code passed on nothing, not even the shell integration's own sequence that
   * every read output starts with.
   */
  unread: boolean;
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

  /**
   * The latest command of the active terminal that printed something (or may have: unread),
   * finished or still running, or the latest when none did; undefined when none was run or read.
   */
  async ofActive(): Promise<CommandOutput | undefined> {
    const terminal = vscode.window.activeTerminal;
    if (!terminal) return undefined;
    await this.readUnreadFromBuffer(terminal);
    const recent = this.recent.get(terminal) ?? [];
    const latest = recent.at(-1);
    if (!latest) return undefined;
    const recording = recent.findLast(mayHavePrinted) ?? latest;
    return {
      commandLine: recording.commandLine,
      output: outputOf(recording),
      exitCode: recording.exitCode,
      running: recording.running,
      latest: recording === latest,
      unread: recording.unread,
    };
  }

  /** The active terminal's latest command, when unread or not recorded at all, read from its buffer. */
  private async readUnreadFromBuffer(terminal: vscode.Terminal): Promise<void> {
    const latest = this.recent.get(terminal)?.at(-1);
    // Without shell integration the buffer marks no command: the clipboard is left alone.
    if ((latest && !latest.unread) || !terminal.shellIntegration) return;
    const buffered = await lastCommandInBuffer();
    // The buffer's latest command may be a newer one whose start is not reported yet.
    if (!buffered || (latest && buffered.commandLine.trim() !== latest.commandLine.trim())) return;
    const recording = latest ?? newRecording(buffered.commandLine, undefined);
    if (!latest) {
      // A command that started while the buffer was read is newer: it stays the latest.
      if (this.recent.has(terminal)) return;
      this.recent.set(terminal, [recording]);
    }
    recording.chunks = [buffered.output];
    recording.length = buffered.output.length;
    recording.unread = false;
  }

  private async record(terminal: vscode.Terminal, execution: vscode.TerminalShellExecution): Promise<void> {
    const recording = newRecording(execution.commandLine.value, execution);
    const candidates = (this.recent.get(terminal) ?? []).filter((r) => r.running || mayHavePrinted(r));
    this.recent.set(terminal, [...candidates.slice(Math.max(0, candidates.findLastIndex(mayHavePrinted))), recording]);
    try {
      for await (const data of execution.read()) {
        recording.chunks.push(data);
        recording.length += data.length;
        while (recording.length - recording.chunks[0]!.length >= RAW_CHARS_KEPT) recording.length -= recording.chunks.shift()!.length;
      }
    } finally {
      recording.running = false;
      recording.unread = recording.chunks.length === 0;
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

/** A command read as it runs (`execution`), or from the terminal's buffer once it ended (none). */
function newRecording(commandLine: string, execution: vscode.TerminalShellExecution | undefined): Recording {
  return { commandLine, execution, chunks: [], length: 0, exitCode: undefined, running: execution !== undefined, unread: false };
}

function mayHavePrinted(recording: Recording): boolean {
  return recording.unread || outputOf(recording).trim() !== '';
}

/**
 * The active terminal's latest command and its output as the terminal's buffer holds them (shell
 * integration marks where each starts), or undefined when it knows of no command.
 */
export async function lastCommandInBuffer(): Promise<{ commandLine: string; output: string } | undefined> {
  if (!vscode.window.activeTerminal) return undefined;
  return withTerminalCopies(async (copy) => {
    const commandLine = await copy('workbench.action.terminal.copyLastCommand');
    return commandLine ? { commandLine, output: await copy('workbench.action.terminal.copyLastCommandOutput') } : undefined;
  });
}

/** What one of the active terminal's Copy commands copies (see `withTerminalCopies`); empty when no terminal is open. */
export async function copiedFromTerminal(command: string): Promise<string> {
  if (!vscode.window.activeTerminal) return '';
  return withTerminalCopies((copy) => copy(command));
}

/**
 * Runs `use` with `copy`, which returns what one of the active terminal's Copy commands copies:
 * VS Code's API reads neither a terminal's selection nor its buffer (1.101). The clipboard is put
 * back as it was once `use` is done, however many copies it made; a copy is empty when its command
 * copies nothing (it then leaves the cleared clipboard empty).
 */
async function withTerminalCopies<T>(use: (copy: (command: string) => Promise<string>) => Promise<T>): Promise<T> {
  const saved = await vscode.env.clipboard.readText();
  try {
    return await use(async (command) => {
      await vscode.env.clipboard.writeText('');
      await vscode.commands.executeCommand(command);
      return vscode.env.clipboard.readText();
    });
  } finally {
    await vscode.env.clipboard.writeText(saved);
  }
}
