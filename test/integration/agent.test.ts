import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { suite, suiteSetup, test } from 'mocha';
import * as vscode from 'vscode';
import { ENGINE_NODE_FLAGS } from '../../src/core/engine-process.ts';
import type { SearchAnswer } from '../../src/protocol/worker.ts';
import { activateAndIndex, status } from './extension-api.ts';

/** The tool's answer as the model reads it: its text parts joined. */
async function invoke(input: Record<string, unknown>): Promise<string> {
  const result = await vscode.lm.invokeTool('fused_search', { input, toolInvocationToken: undefined });
  return result.content.map((part) => (part instanceof vscode.LanguageModelTextPart ? part.value : JSON.stringify(part))).join('');
}

suite('the fused_search language model tool', () => {
  suiteSetup(async function () {
    this.timeout(60_000);
    await activateAndIndex();
  });

  test('is registered for agents under its declared name', () => {
    const tool = vscode.lm.tools.find((t) => t.name === 'fused_search');
    assert.ok(tool, 'listed in vscode.lm.tools');
    assert.deepEqual((tool.inputSchema as { required?: string[] }).required, ['query']);
  });

  test('answers with folder/path, the line range, chunk id and the chunk lines, from the live index', async () => {
    const answer = await vscode.commands.executeCommand<SearchAnswer>('fusedSearch.api.search', 'reciprocal rank fusion');
    const top = answer.results[0];
    assert.ok(top);
    const text = await invoke({ query: 'reciprocal rank fusion' });
    // Multi-root: each path starts with its workspace folder's name.
    assert.ok(text.includes(`\n${top.folderName}/${top.path}\n[1] ${top.startLine}-${top.endLine} `), text);
    assert.match(text, / · chunk \d+\n/);
    assert.match(text, /\d+: export function reciprocalRankFusion/);
  });

  test('path and kind narrow the answer', async () => {
    const prose = await invoke({ query: 'reciprocal rank fusion', kind: 'prose' });
    assert.doesNotMatch(prose, /\.ts\n\[\d+\] /);
    const notCode = await invoke({ query: 'reciprocal rank fusion', path: '!**/*.ts' });
    assert.doesNotMatch(notCode, /\.ts\n\[\d+\] /);
    assert.match(notCode, /notes\/guide\.md\n\[\d+\] /, 'what the excluded glob does not match is still found');
    const md = await invoke({ query: 'kubernetes', path: '*.md' });
    assert.match(md, /notes\/guide\.md\n\[\d+\] \d+-\d+ /);
  });

  test('path takes a list of globs, and budget_bytes lowers the budget, as with the MCP search tool', async () => {
    const md = await invoke({ query: 'kubernetes', path: ['docs/**', '*.md'], budget_bytes: 600 });
    assert.match(md, /notes\/guide\.md\n\[\d+\] \d+-\d+ /);
    assert.ok(Buffer.byteLength(md) <= 600, `${Buffer.byteLength(md)} bytes`);
  });

  test('explain adds why each result ranks where it does, in the words the CLI and the panel use', async () => {
    const plain = await invoke({ query: 'reciprocal rank fusion' });
    const explained = await invoke({ query: 'reciprocal rank fusion', explain: true });
    assert.doesNotMatch(plain, /why: /);
    assert.match(explained, /why: Stage: (rrf|proximity|fuzzy) · score [\d.]+; Porter: /);
  });

  test('offset gives the next page, numbered on from the first and ranked as it was', async () => {
    // Each result as "rank path lines", in rank order, under whichever file line (the line after a blank one) it is printed.
    const located = (text: string) => {
      let file = '';
      let previous = '';
      const found: Array<[number, string]> = [];
      for (const line of text.split('\n')) {
        const result = /^\[(\d+)\] (\d+-\d+) /.exec(line);
        if (result) found.push([Number(result[1]), `${result[1]} ${file} ${result[2]}`]);
        else if (previous === '' && line !== '') file = line;
        previous = line;
      }
      return found.sort((a, b) => a[0] - b[0]).map(([, text]) => text);
    };
    const two = located(await invoke({ query: 'reciprocal rank fusion', limit: 2 }));
    assert.equal(two.length, 2);
    const first = await invoke({ query: 'reciprocal rank fusion', limit: 1 });
    assert.match(first, /; offset 1 for the next\.\n/);
    const second = await invoke({ query: 'reciprocal rank fusion', limit: 1, offset: 1 });
    assert.match(second, /^Result 2 in 1 file/);
    assert.deepEqual([...located(first), ...located(second)], two);
  });

  test('the answer stays within the byte budget the setting gives', async () => {
    const full = await invoke({ query: 'reciprocal rank fusion' });
    assert.ok(Buffer.byteLength(full) > 600, 'with the default 8 KB budget the answer is longer than 600 bytes');
    const config = vscode.workspace.getConfiguration('fusedSearch');
    await config.update('agent.budgetBytes', 600, vscode.ConfigurationTarget.Workspace);
    try {
      const text = await invoke({ query: 'reciprocal rank fusion' });
      assert.ok(Buffer.byteLength(text) <= 600, `${Buffer.byteLength(text)} bytes`);
      // The first result keeps its location and its matched line; the answer counts what the budget left out.
      assert.match(text, /app\/src\/fusion\.ts\n\[1\] \d+-\d+ .+ · chunk \d+\n\d+: .*[Rr]eciprocal/, text);
      assert.match(text, /\[Truncated: \d+ more of \d+ results left out to stay within 600 bytes/);
    } finally {
      await config.update('agent.budgetBytes', undefined, vscode.ConfigurationTarget.Workspace);
    }
  });

  test('a secret in an indexed file is redacted from the answer, and a credential file is never a result', async () => {
    const text = await invoke({ query: 'nightly digest relay password' });
    assert.match(text, /sendDigest/);
    assert.match(text, /relayPassword = '\[redacted: secret value\]'/);
    assert.match(text, /1 value redacted: it looked like secrets/);
    assert.ok(!text.includes('hR7#kq2Lx9vB!mZ4'), text);
    const env = await invoke({ query: 'SMTP_PASSWORD mail relay' });
    assert.doesNotMatch(env, /\.env:\d/);
    assert.ok(!env.includes('Vt8pQ2zL6wRk3Ns9'));
    assert.match((await status()).tooltip, /Kept out 1 file that may hold credentials \(\.env\)/);
  });

  test('bad input is answered with a sentence the model can act on, not an exception', async () => {
    assert.match(await invoke({ query: '  ' }), /Invalid input: "query" must be a non-empty string/);
    assert.match(await invoke({ query: 'x', kind: 'binary' }), /"kind" must be "code" or "prose"/);
  });
});

interface McpServerSpec {
  label: string;
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd: string;
}

suite('the MCP server the extension offers VS Code', () => {
  test("starts from its definition, searches the extension's index, and only reads it while the extension keeps it", async function () {
    this.timeout(60_000);
    await vscode.commands.executeCommand('fusedSearch.api.waitForIndex');
    const specs = await vscode.commands.executeCommand<McpServerSpec[]>('fusedSearch.api.mcpServers');
    assert.deepEqual(specs.map((s) => s.label).sort(), ['Fused Search (app)', 'Fused Search (notes)']);
    const app = specs.find((s) => s.label === 'Fused Search (app)');
    assert.ok(app);
    // It runs the engine as the CLI launcher and the extension's worker do: were VS Code's Node to
    // refuse a flag, the server would not start.
    assert.deepEqual(app.args.slice(0, ENGINE_NODE_FLAGS.length), [...ENGINE_NODE_FLAGS]);
    assert.equal(app.env.MALLOC_ARENA_MAX, process.env.MALLOC_ARENA_MAX ?? '2');
    assert.equal(app.env.MALLOC_MMAP_THRESHOLD_, process.env.MALLOC_MMAP_THRESHOLD_ ?? '131072');
    // Started the way VS Code starts it: the definition's command, arguments and environment.
    const transport = new StdioClientTransport({
      command: app.command,
      args: app.args,
      env: { ...process.env, ...app.env } as Record<string, string>,
      cwd: app.cwd,
      stderr: 'ignore',
    });
    const client = new Client({ name: 'fused-search-integration', version: '1.0.0' });
    await client.connect(transport);
    try {
      const call = async (name: string, args: Record<string, unknown>) => {
        const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
        return result.content[0]?.type === 'text' ? result.content[0].text : '';
      };
      const indexStatus = JSON.parse(await call('index_status', {})) as { role: string; heldBy: { kind: string } | null };
      assert.equal(indexStatus.role, 'reader');
      assert.equal(indexStatus.heldBy?.kind, 'vscode');
      assert.match(await call('search', { query: 'reciprocal rank fusion' }), /src\/fusion\.ts\n(?:.+\n)*?\[\d+\] \d+-\d+ reciprocalRankFusion · chunk /);
    } finally {
      await client.close();
    }
  });
});
