import assert from 'node:assert/strict';
import path from 'node:path';
import { suite, suiteSetup, suiteTeardown, test } from 'mocha';
import * as vscode from 'vscode';
import type { IndexState } from '../../src/extension/indexing.ts';
import { itemFor } from '../../src/extension/quickpick.ts';
import type { SearchAnswer } from '../../src/protocol/worker.ts';
import { activateAndIndex, status, waitForIndex } from './extension-api.ts';

// The semantic lane as a user turns it on: a model folder in the settings, embedded in the
// background by the extension's engine worker, the status saying how far it got, and a query that
// no word of the workspace matches answered by the semantic list. The model is model2vec's
// two-dimension test model: its neighbours mean little, which is why the query shares no word with
// anything — every result then comes from the lane, so the path from settings to results is proven.

const settings = () => vscode.workspace.getConfiguration('fusedSearch');

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

suite('the semantic lane in VS Code', () => {
  suiteSetup(async function () {
    this.timeout(60_000);
    await activateAndIndex();
  });

  suiteTeardown(async function () {
    this.timeout(60_000);
    await settings().update('semantic.provider', undefined, vscode.ConfigurationTarget.Global);
    await settings().update('semantic.model', undefined, vscode.ConfigurationTarget.Global);
    // Each change restarts the index; the suites after this one expect it settled, without the lane.
    const settled = (state: IndexState) => state.phase === 'ready' && state.stats.length > 0 && state.stats.every((folder) => !folder.semantic);
    await until(waitForIndex, settled, 30_000);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    assert.ok(settled(await until(waitForIndex, settled, 30_000)), 'the index settled without the lane');
  });

  test('a model folder chosen in the settings embeds every folder in the background, the status says so, and search answers by meaning', async function () {
    this.timeout(120_000);
    const extension = vscode.extensions.getExtension('fused-search.fused-search')!;
    const model = path.join(extension.extensionPath, 'test', 'fixtures', 'model2vec', 'float32');
    await settings().update('semantic.model', model, vscode.ConfigurationTarget.Global);
    await settings().update('semantic.provider', 'static', vscode.ConfigurationTarget.Global);

    const state = await until(
      waitForIndex,
      (s) => s.stats.length > 0 && s.stats.every((folder) => folder.semantic !== undefined && folder.semantic.embedded === folder.chunks),
      60_000,
    );
    for (const folder of state.stats) assert.deepEqual(folder.semantic, { model: 'static:float32@2', embedded: folder.chunks }, folder.name);
    const chunks = state.stats.reduce((n, folder) => n + folder.chunks, 0);
    const shown = await status();
    assert.match(
      shown.tooltip,
      new RegExp(`Semantic lane: static:float32@2, ${chunks.toLocaleString('en-US')} of ${chunks.toLocaleString('en-US')} chunks embedded\\.`),
    );
    assert.doesNotMatch(shown.text, /embedding/, 'the pass is over');

    const answer = await vscode.commands.executeCommand<SearchAnswer>('fusedSearch.api.search', 'qqzzyyxx', { fuzzy: 'off' });
    assert.ok(answer.results.length > 0, 'the lane answers where no word matches');
    for (const result of answer.results) {
      assert.equal(result.stage, 'semantic');
      assert.ok(result.explain.semantic && !result.explain.porter && !result.explain.trigram, JSON.stringify(result.explain));
    }
    // The quick pick's row says so, with the list's rank and cosine.
    assert.match(itemFor(answer.results[0]!, true).description ?? '', /:\d+ · semantic · semantic #1, cosine -?\d\.\d{2}$/);
  });
});
