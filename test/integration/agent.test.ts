import assert from 'node:assert/strict';
import { suite, suiteSetup, test } from 'mocha';
import * as vscode from 'vscode';
import type { SearchAnswer } from '../../src/worker/protocol.ts';

/** The tool's answer as the model reads it: its text parts joined. */
async function invoke(input: Record<string, unknown>): Promise<string> {
  const result = await vscode.lm.invokeTool('fused_search', { input, toolInvocationToken: undefined });
  return result.content.map((part) => (part instanceof vscode.LanguageModelTextPart ? part.value : String((part as { value?: unknown }).value ?? ''))).join('');
}

suite('the fused_search language model tool', () => {
  suiteSetup(async function () {
    this.timeout(60_000);
    await vscode.extensions.getExtension('fused-search.fused-search')?.activate();
    await vscode.commands.executeCommand('fusedSearch.api.waitForIndex');
  });

  test('is registered for agents under its declared name', () => {
    const tool = vscode.lm.tools.find((t) => t.name === 'fused_search');
    assert.ok(tool, 'listed in vscode.lm.tools');
    assert.deepEqual((tool.inputSchema as { required?: string[] }).required, ['query']);
  });

  test('answers with folder/path:start-end, stage and the chunk lines, from the live index', async () => {
    const answer = await vscode.commands.executeCommand<SearchAnswer>('fusedSearch.api.search', 'reciprocal rank fusion');
    const top = answer.results[0];
    assert.ok(top);
    const text = await invoke({ query: 'reciprocal rank fusion' });
    // Multi-root: each path starts with its workspace folder's name.
    assert.ok(text.includes(`${top.folderName}/${top.path}:${top.startLine}-${top.endLine}`), text);
    assert.match(text, /\[code, (rrf|proximity|fuzzy), chunk \d+\]/);
    assert.match(text, /\d+: export function reciprocalRankFusion/);
  });

  test('path and kind narrow the answer', async () => {
    const prose = await invoke({ query: 'reciprocal rank fusion', kind: 'prose' });
    assert.doesNotMatch(prose, /\.ts:\d/);
    const md = await invoke({ query: 'kubernetes', path: '*.md' });
    assert.match(md, /notes\/guide\.md:\d+-\d+/);
  });

  test('the answer stays within the byte budget the setting gives', async () => {
    const full = await invoke({ query: 'reciprocal rank fusion' });
    assert.ok(Buffer.byteLength(full) > 600, 'with the default 8 KB budget the answer is longer than 600 bytes');
    const config = vscode.workspace.getConfiguration('fusedSearch');
    await config.update('agent.budgetBytes', 600, vscode.ConfigurationTarget.Workspace);
    try {
      const text = await invoke({ query: 'reciprocal rank fusion' });
      assert.ok(Buffer.byteLength(text) <= 600, `${Buffer.byteLength(text)} bytes`);
      // The formatter keeps every location and drops lines first; the best result is still there.
      assert.match(text, /app\/src\/fusion\.ts:\d+-\d+ reciprocalRankFusion/);
    } finally {
      await config.update('agent.budgetBytes', undefined, vscode.ConfigurationTarget.Workspace);
    }
  });

  test('bad input is answered with a sentence the model can act on, not an exception', async () => {
    assert.match(await invoke({ query: '  ' }), /Invalid input: "query" must be a non-empty string/);
    assert.match(await invoke({ query: 'x', kind: 'binary' }), /"kind" must be "code" or "prose"/);
  });
});
