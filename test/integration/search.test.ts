import assert from 'node:assert/strict';
import { renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { suite, suiteSetup, test } from 'mocha';
import * as vscode from 'vscode';
import type { FolderResult, SearchAnswer } from '../../src/protocol/worker.ts';
import { itemFor } from '../../src/extension/quickpick.ts';
import { activateAndIndex, search, waitForIndex } from './extension-api.ts';

function folder(name: string): string {
  const found = vscode.workspace.workspaceFolders?.find((f) => f.name === name);
  assert.ok(found, `workspace folder ${name}`);
  return found.uri.fsPath;
}

/** Searches until `check` accepts the answer (watcher events are debounced), or fails after `ms`. */
async function eventually(query: string, check: (answer: SearchAnswer) => boolean, ms = 8_000): Promise<SearchAnswer> {
  const deadline = Date.now() + ms;
  for (;;) {
    const answer = await search(query);
    if (answer && check(answer)) return answer;
    if (Date.now() > deadline)
      throw new Error(`"${query}" never gave the expected results; last: ${JSON.stringify(answer?.results.map((r) => `${r.folderName}/${r.path}`))}`);
    await new Promise((r) => setTimeout(r, 150));
  }
}

suite('indexing and searching a multi-root workspace', () => {
  suiteSetup(async function () {
    this.timeout(60_000);
    await activateAndIndex();
  });

  test('the first index covers both folders, and files.exclude keeps generated files out', async () => {
    const state = await waitForIndex();
    assert.equal(state.phase, 'ready');
    assert.deepEqual(state.stats.map((s) => s.name).sort(), ['app', 'notes']);
    for (const s of state.stats) assert.ok(s.chunks > 0, `${s.name} has chunks`);
    const answer = await search('zebracorn');
    assert.equal(answer?.results.length, 0, 'app/generated is excluded by the workspace files.exclude');
  });

  test('a search answers with ranked results that say their folder, stage and why', async () => {
    const answer = await search('reciprocal rank fusion');
    assert.ok(answer);
    const top = answer.results[0];
    assert.ok(top);
    assert.equal(top.folderName, 'app');
    assert.equal(top.path, 'src/fusion.ts');
    assert.ok(['rrf', 'proximity', 'fuzzy'].includes(top.stage));
    assert.ok(top.explain.rrf.score > 0);
    assert.ok(top.explain.porter || top.explain.trigram);
    assert.ok(
      answer.results.some((r) => r.folderName === 'notes'),
      'the notes folder matches too',
    );
  });

  test('a typo is corrected and the answer says so', async () => {
    const answer = await search('kubernets cluster');
    assert.ok(answer);
    assert.deepEqual(answer.corrections, [['kubernets', 'kubernetes']]);
    assert.equal(answer.results[0]?.path, 'guide.md');
    assert.equal(answer.results[0]?.folderName, 'notes');
  });

  test('text saved in the editor is searchable right after the save', async () => {
    const uri = vscode.Uri.file(path.join(folder('app'), 'src', 'store.ts'));
    const document = await vscode.workspace.openTextDocument(uri);
    const edit = new vscode.WorkspaceEdit();
    edit.insert(uri, new vscode.Position(document.lineCount, 0), '\nexport function platypusMarker(): string {\n  return "platypus";\n}\n');
    assert.ok(await vscode.workspace.applyEdit(edit));
    assert.ok(await document.save());
    const answer = await search('platypusMarker');
    const hit = answer?.results.find((r) => r.path === 'src/store.ts');
    assert.ok(hit, 'the saved function is found without waiting');
    assert.ok(hit.startLine >= 30, `the chunk starts where the function is now (line ${hit.startLine})`);
  });

  test('a file created on disk becomes searchable, and one deleted on disk disappears', async () => {
    const file = path.join(folder('notes'), 'walrus.md');
    writeFileSync(file, '# Walrus\n\nThe walrus migration plan moves every tusk to the new cluster.\n');
    await eventually('walrus migration', (a) => a.results.some((r) => r.path === 'walrus.md'));
    rmSync(file);
    const answer = await search('walrus migration');
    assert.ok(answer);
    assert.ok(!answer.results.some((r) => r.path === 'walrus.md'), 'a deleted file is never a result');
  });

  test('a section pasted into several files is one result: its quick pick item counts the copies, and a lens marks each copy', async () => {
    const pages = ['pasted-one.md', 'pasted-two.md', 'pasted-three.md'].map((name) => path.join(folder('notes'), name));
    for (const page of pages) writeFileSync(page, '# Narwhal\n\nThe narwhal rotation schedule pages whoever holds the tusk.\n');
    try {
      const answer = await eventually('narwhal rotation', (a) => a.results.some((r) => r.copies?.length === 2));
      const pasted = answer.results.filter((r) => r.path.startsWith('pasted-'));
      assert.equal(pasted.length, 1, 'one result for the three pages');
      const [kept] = pasted as [FolderResult];
      assert.match(itemFor(kept, true).description ?? '', / · same text in 2 more places$/);
      // The search set the result list the lenses mark: a copy's file gets one naming the result.
      const copy = kept.copies![0]!;
      // Lenses are asked of open documents only.
      const document = await vscode.workspace.openTextDocument(vscode.Uri.file(copy.absPath));
      const lenses = await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', document.uri);
      const index = answer.results.indexOf(kept);
      const mark = lenses.find((lens) => lens.command?.title.startsWith(`Fused #${index + 1} of ${answer.results.length} · same text as ${kept.path}:`));
      assert.ok(mark, `a lens on the copy: ${lenses.map((lens) => lens.command?.title).join(' | ')}`);
      assert.equal(mark.range.start.line, copy.startLine - 1);
      assert.deepEqual(mark.command?.arguments, [index], 'it opens the result the copy was folded into');
    } finally {
      for (const page of pages) rmSync(page);
    }
  });

  test('a file renamed on disk is found under its new name only', async () => {
    const from = path.join(folder('app'), 'src', 'fusion.ts');
    const to = path.join(folder('app'), 'src', 'ranking.ts');
    renameSync(from, to);
    const answer = await eventually('reciprocalRankFusion', (a) => a.results.some((r) => r.path === 'src/ranking.ts'));
    assert.ok(!answer.results.some((r) => r.path === 'src/fusion.ts'));
  });

  test('next and previous open result chunks with their lines selected', async () => {
    const answer = await search('content store entries');
    assert.ok(answer && answer.results.length >= 2);
    await vscode.commands.executeCommand('fusedSearch.nextResult');
    const first = answer.results[0]!;
    const editor = vscode.window.activeTextEditor;
    assert.ok(editor);
    assert.equal(editor.document.uri.fsPath, first.absPath);
    assert.equal(editor.selection.start.line, first.startLine - 1);
    assert.equal(editor.selection.end.line, first.endLine - 1);
    await vscode.commands.executeCommand('fusedSearch.nextResult');
    assert.equal(vscode.window.activeTextEditor?.selection.start.line, answer.results[1]!.startLine - 1);
    await vscode.commands.executeCommand('fusedSearch.previousResult');
    assert.equal(vscode.window.activeTextEditor?.document.uri.fsPath, first.absPath);
    const lenses = await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', vscode.Uri.file(first.absPath));
    assert.ok(
      lenses.some((l) => l.command?.title.startsWith(`Fused #1 of ${answer.results.length}`)),
      'a CodeLens marks the result chunk',
    );
    await vscode.commands.executeCommand('fusedSearch.clearResults');
    const after = await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', vscode.Uri.file(first.absPath));
    assert.ok(!after.some((l) => l.command?.title.startsWith('Fused #')), 'Clear Results removes the lenses');
  });

  test('a corrupt index is moved aside and rebuilt', async function () {
    this.timeout(60_000);
    const dbFiles = await vscode.commands.executeCommand<string[]>('fusedSearch.api.dbFiles');
    assert.equal(dbFiles.length, 2);
    await vscode.commands.executeCommand('fusedSearch.api.stopEngine');
    for (const file of dbFiles) {
      rmSync(`${file}-wal`, { force: true });
      rmSync(`${file}-shm`, { force: true });
      writeFileSync(file, 'this is not a SQLite database, and it is long enough to have a header of sorts.'.repeat(50));
    }
    await vscode.commands.executeCommand('fusedSearch.api.startEngine');
    const state = await waitForIndex();
    assert.equal(state.phase, 'ready');
    const answer = await search('kubernetes cluster');
    assert.equal(answer?.results[0]?.path, 'guide.md');
  });
});
