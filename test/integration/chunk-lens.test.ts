import assert from 'node:assert/strict';
import path from 'node:path';
import { suite, suiteSetup, test } from 'mocha';
import * as vscode from 'vscode';
import { activateAndIndex } from './extension-api.ts';

suite('the CodeLens over each indexed chunk (fusedSearch.codeLens.chunks)', () => {
  suiteSetup(async function () {
    this.timeout(60_000);
    await activateAndIndex();
  });

  test('names each chunk of the file in order, each with a Find similar that names its folder and chunk', async () => {
    const app = vscode.workspace.workspaceFolders?.find((f) => f.name === 'app');
    assert.ok(app);
    const uri = vscode.Uri.file(path.join(app.uri.fsPath, 'src', 'store.ts'));
    const config = vscode.workspace.getConfiguration('fusedSearch');
    await config.update('codeLens.chunks', true, vscode.ConfigurationTarget.Workspace);
    try {
      // The provider runs over an open document's model, as in an editor.
      await vscode.workspace.openTextDocument(uri);
      const lenses = await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', uri);
      const titles = lenses.map((lens) => lens.command?.title ?? '');
      const named = titles.filter((title) => /^chunk \d+\/\d+ · /.test(title));
      assert.ok(named.length >= 2, `a lens per chunk: ${JSON.stringify(titles)}`);
      assert.deepEqual(
        named.map((title) => title.replace(/ · .*/, '')),
        named.map((_, i) => `chunk ${i + 1}/${named.length}`),
      );
      assert.ok(
        named.some((title) => title.endsWith(' · ContentStore')),
        'the class is one of them',
      );
      const similar = lenses.filter((lens) => lens.command?.command === 'fusedSearch.findSimilar');
      assert.equal(similar.length, named.length, 'each chunk offers Find similar');
      const [folder, chunkId] = similar[0]!.command!.arguments as [unknown, unknown];
      assert.equal(folder, app.uri.toString(), 'the folder that indexes the file');
      assert.ok(Number.isInteger(chunkId));
    } finally {
      await config.update('codeLens.chunks', undefined, vscode.ConfigurationTarget.Workspace);
    }
  });
});
