// The MCP `locate` tool as an agent sees it: the SDK's own client over stdio, the CLI's `mcp`
// command in a child Node, over the locate repository (helpers/locate-repo.ts).

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { writeLocateRepo } from './helpers/locate-repo.ts';

const CLI = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));
const fixture = (name: string) => fs.readFileSync(new URL(`../fixtures/locate/${name}`, import.meta.url), 'utf8');

let client: Client;

async function call(name: string, args: Record<string, unknown>): Promise<{ text: string; isError: boolean }> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  const first = result.content[0];
  return { text: first?.type === 'text' ? first.text : '', isError: result.isError === true };
}

before(async () => {
  const root = writeLocateRepo();
  client = new Client({ name: 'fused-search-test', version: '1.0.0' });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [CLI, 'mcp', '--root', root], stderr: 'ignore' }));
  assert.equal((await call('reindex', {})).isError, false);
});

after(async () => {
  await client?.close();
});

test("locate turns a pasted traceback into ranked files with reasons, the frame's line, line ranges and chunk ids", async () => {
  const answer = await call('locate', { text: fixture('python.txt'), limit: 3 });
  assert.equal(answer.isError, false);
  const lines = answer.text.split('\n');
  assert.match(lines[0]!, /^3 files to look at, best first \(from 2 frames, .*1 error, 1 message/);
  assert.match(
    lines[1]!,
    /^1\. app\/payments\/gateway\.py \(score [\d.]+\): stack frame app\/payments\/gateway\.py:10 in charge; quotes "amount must be positive" verbatim/,
  );
  // Under the file's line, the line its frame names, as the source reads; then its best chunk: line range, title and id.
  assert.equal(lines[2], '   10: raise ValueError("amount must be positive")');
  const chunkLine = lines[3]!;
  const [, start, end, id] = /^ {3}(\d+)-(\d+) .* · chunk (\d+)$/.exec(chunkLine)!;
  assert.ok(Number(start) <= 10 && 10 <= Number(end), 'the first chunk holds the frame line');
  // The id reads the chunk the answer pointed at.
  const chunk = await call('read_chunk', { id: Number(id) });
  assert.match(chunk.text, /raise ValueError\("amount must be positive"\)/);
});

test('locate stays within the byte budget and says how many files it left out', async () => {
  const answer = await call('locate', { text: fixture('node.txt'), budget_bytes: 512 });
  assert.ok(Buffer.byteLength(answer.text) <= 512, `${Buffer.byteLength(answer.text)} bytes`);
  assert.match(answer.text, /^1\. web\/src\/server\.js/m);
  assert.match(answer.text, /\[\d+ more files? left out to stay within 512 bytes; ask with a larger budget_bytes\.\]/);
});

test('text that points at nothing says so, and empty text is a tool error', async () => {
  const nothing = await call('locate', { text: 'thanks!' });
  assert.equal(nothing.isError, false);
  assert.match(nothing.text, /^No indexed file matches what the text points at/);
  const empty = await call('locate', { text: '   ' });
  assert.equal(empty.isError, true);
  assert.match(empty.text, /text/);
  assert.match(empty.text, /must be a non-empty string/);
});
