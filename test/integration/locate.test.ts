import assert from 'node:assert/strict';
import { suite, suiteSetup, test } from 'mocha';
import * as vscode from 'vscode';
import { lastCommandInBuffer } from '../../src/extension/terminal-output.ts';
import type { FolderLocateAnswer } from '../../src/protocol/worker.ts';
import { WORKSPACE_TRACE } from '../fixtures/workspace-trace.ts';
import { activateAndIndex } from './extension-api.ts';

const locate = (text?: string) => vscode.commands.executeCommand<FolderLocateAnswer | undefined>('fusedSearch.locate', ...(text !== undefined ? [text] : []));

suite('Locate from Issue or Stack Trace', () => {
  suiteSetup(async function () {
    this.timeout(60_000);
    await activateAndIndex();
  });

  test('a stack trace given to the command ranks the file its frame points at first, with the reason and the chunk', async () => {
    const answer = await locate(WORKSPACE_TRACE);
    assert.ok(answer, 'the command answers');
    const top = answer.files[0];
    assert.ok(top, 'a file');
    assert.equal(top.folderName, 'app');
    assert.equal(top.path, 'src/store.ts');
    assert.ok(top.absPath.endsWith('store.ts'));
    assert.ok(top.why.includes('stack frame src/store.ts:31 in ContentStore.search'), top.why.join('; '));
    const chunk = top.chunks[0]!;
    assert.ok(chunk.startLine <= 31 && 31 <= chunk.endLine, `${chunk.title} ${chunk.startLine}-${chunk.endLine}`);
    assert.ok(answer.clues.some((clue) => clue.kind === 'error' && clue.text === 'TypeError'));
  });

  test('with nothing selected and no text given, the clipboard is located', async function () {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await vscode.env.clipboard.writeText(WORKSPACE_TRACE);
    // A headless code-server may have no clipboard; the text argument above covers the rest.
    if ((await vscode.env.clipboard.readText()) !== WORKSPACE_TRACE) this.skip();
    const answer = await locate();
    assert.equal(answer?.files[0]?.path, 'src/store.ts');
  });

  test('from a terminal, its selection is located, and the clipboard it was copied through is put back', async function () {
    this.timeout(60_000);
    await vscode.env.clipboard.writeText('kept on the clipboard');
    if ((await vscode.env.clipboard.readText()) !== 'kept on the clipboard') this.skip();
    const terminal = vscode.window.createTerminal({ name: 'failing run' });
    terminal.show();
    try {
      const quoted = WORKSPACE_TRACE.split('\n').map((line) => `'${line.replace(/'/g, `'\\''`)}'`);
      terminal.sendText(`printf '%s\\n' ${quoted.join(' ')}`);
      // The shell prints when it gets to it: select and locate until the trace is on the screen.
      const deadline = Date.now() + 30_000;
      let answer: FolderLocateAnswer | undefined;
      while (answer?.files[0]?.path !== 'src/store.ts') {
        assert.ok(Date.now() < deadline, `the terminal's trace was never located: ${JSON.stringify(answer?.files.map((f) => f.path))}`);
        await new Promise((resolve) => setTimeout(resolve, 500));
        await vscode.commands.executeCommand('workbench.action.terminal.selectAll');
        answer = await vscode.commands.executeCommand<FolderLocateAnswer | undefined>('fusedSearch.locateTerminalSelection');
      }
      assert.equal(answer.files[0].line, 31, 'the line the frame names');
      assert.equal(await vscode.env.clipboard.readText(), 'kept on the clipboard');
    } finally {
      terminal.dispose();
    }
  });

  test("a terminal's last command is located without selecting its output, past a command that printed nothing, and a terminal with none says so", async function () {
    this.timeout(60_000);
    // bash, which VS Code's shell integration hooks into, whatever the machine's default shell is.
    const terminal = vscode.window.createTerminal({ name: 'tests', shellPath: '/bin/bash' });
    terminal.show();
    try {
      const integration = terminal.shellIntegration ?? (await shellIntegrationOf(terminal));
      // Coloured as a test runner prints it (the file's name cyan, its line dim): read through the colours.
      const coloured = WORKSPACE_TRACE.replace(/([\w-]+\.ts)(:\d+:\d+)/g, '\\033[36m$1\\033[39m\\033[2m$2\\033[22m');
      const quoted = coloured.split('\n').map((line) => `'${line.replace(/'/g, `'\\''`)}'`);
      // A pause before printing, as a test run has: VS Code can report the start of a command that
      // prints at once after its output, and passes none of it on (about 1 run in 25 here). The
      // extension then reads the terminal's buffer, but only for the latest command: the `cd`
      // below would leave the output unread.
      const exitCode = await executed(terminal, integration, `sleep 0.2; echo building; printf '%b\\n' ${quoted.join(' ')}; false`);
      assert.equal(exitCode, 1, 'the command failed, as a test run does');
      // Then a command that prints nothing, as `cd` or `clear` would: the failure is still what is located.
      assert.equal(await executed(terminal, integration, 'cd .'), 0);
      // The extension reads the output as it streams; its last chunk may land a moment after the end.
      const deadline = Date.now() + 10_000;
      let answer: FolderLocateAnswer | undefined;
      while (answer?.files[0]?.path !== 'src/store.ts') {
        assert.ok(Date.now() < deadline, `the command's output was never located: ${JSON.stringify(answer?.files.map((f) => f.path))}`);
        answer = await vscode.commands.executeCommand<FolderLocateAnswer | undefined>('fusedSearch.locateLastCommand');
        if (answer?.files[0]?.path !== 'src/store.ts') await new Promise((resolve) => setTimeout(resolve, 250));
      }
      assert.equal(answer.files[0].line, 31, 'the line the frame names');
    } finally {
      terminal.dispose();
    }
    // A terminal where nothing ran has no output to locate: the command answers nothing.
    const idle = vscode.window.createTerminal({ name: 'idle', shellPath: '/bin/bash' });
    idle.show();
    try {
      const shown = Date.now() + 10_000;
      while (vscode.window.activeTerminal !== idle) {
        assert.ok(Date.now() < shown, 'the idle terminal never became the active one');
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      assert.equal(await vscode.commands.executeCommand('fusedSearch.locateLastCommand'), undefined);
    } finally {
      idle.dispose();
    }
  });

  test("a command's output is read from the terminal's buffer, as for a command VS Code passed none of, and the clipboard is put back", async function () {
    this.timeout(60_000);
    const terminal = vscode.window.createTerminal({ name: 'buffer', shellPath: '/bin/bash' });
    terminal.show();
    try {
      const integration = terminal.shellIntegration ?? (await shellIntegrationOf(terminal));
      const commandLine = `printf 'TypeError: boom\\n    at runQuery (src/query.ts:12:9)\\n'`;
      await executed(terminal, integration, commandLine);
      await vscode.env.clipboard.writeText('what the user copied');
      const buffered = await lastCommandInBuffer();
      assert.equal(buffered?.commandLine, commandLine);
      assert.equal(buffered.output.trim(), 'TypeError: boom\n    at runQuery (src/query.ts:12:9)');
      assert.equal(await vscode.env.clipboard.readText(), 'what the user copied');
      await executed(terminal, integration, 'cd .');
      assert.deepEqual(await lastCommandInBuffer(), { commandLine: 'cd .', output: '' }, 'a command that printed nothing');
    } finally {
      terminal.dispose();
    }
  });

  test('the editor selection is located before the clipboard', async () => {
    const document = await vscode.workspace.openTextDocument({ content: `notes\n${WORKSPACE_TRACE}\n`, language: 'plaintext' });
    const editor = await vscode.window.showTextDocument(document);
    editor.selection = new vscode.Selection(1, 0, 2, 200);
    await vscode.env.clipboard.writeText('nothing that points at code');
    const answer = await locate();
    // Reverted, not saved: closing an untitled document with text would ask.
    await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
    assert.equal(answer?.files[0]?.path, 'src/store.ts');
  });
});

/** Runs `commandLine` in `terminal` and resolves with its exit code once it has ended. */
function executed(terminal: vscode.Terminal, integration: vscode.TerminalShellIntegration, commandLine: string): Promise<number | undefined> {
  // Listening before it runs, so that its end cannot be missed.
  const ended = new Promise<number | undefined>((resolve) => {
    const subscription = vscode.window.onDidEndTerminalShellExecution((event) => {
      if (event.terminal !== terminal) return;
      subscription.dispose();
      resolve(event.exitCode);
    });
  });
  integration.executeCommand(commandLine);
  return ended;
}

/** The terminal's shell integration, once its shell has started and reported in. */
function shellIntegrationOf(terminal: vscode.Terminal): Promise<vscode.TerminalShellIntegration> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no shell integration in ${terminal.name} after 20 s`)), 20_000);
    const subscription = vscode.window.onDidChangeTerminalShellIntegration((event) => {
      if (event.terminal !== terminal) return;
      clearTimeout(timer);
      subscription.dispose();
      resolve(event.shellIntegration);
    });
  });
}
