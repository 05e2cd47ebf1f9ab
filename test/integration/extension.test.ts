import assert from 'node:assert/strict';
import { suite, test } from 'mocha';
import * as vscode from 'vscode';
import manifest from '../../package.json' with { type: 'json' };

suite('the extension in a real VS Code', () => {
  test('"Fused Search: Show Version" answers with the version in package.json', async () => {
    const extension = vscode.extensions.getExtension(`${manifest.publisher}.${manifest.name}`);
    assert.ok(extension, 'the development extension is loaded');
    const version = await vscode.commands.executeCommand<string>('fusedSearch.showVersion');
    assert.equal(version, manifest.version);
    assert.equal(extension.isActive, true);
  });
});
