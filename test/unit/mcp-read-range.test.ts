// read_range as an agent client sees it: the SDK's own Client over stdio, spawning the CLI entry
// point, on a folder with an ignored file, a symlink out of it and a file outside it.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { tempDir } from './helpers/store.ts';

const CLI = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));

let base: string;
let root: string;
let client: Client;

async function call(name: string, args: Record<string, unknown>): Promise<{ text: string; isError: boolean }> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  const first = result.content[0];
  return { text: first?.type === 'text' ? first.text : '', isError: result.isError === true };
}

const LINES = Array.from({ length: 120 }, (_, i) => `const line${i + 1} = ${i + 1}; // some ordinary code on line ${i + 1}`);

before(async () => {
  base = tempDir('fused-range-');
  root = path.join(base, 'root');
  fs.mkdirSync(path.join(root, 'src'), { recursive: true });
  fs.writeFileSync(path.join(root, 'src/long.ts'), `${LINES.join('\n')}\n`);
  fs.writeFileSync(path.join(root, '.gitignore'), 'private.txt\nbuild/\n');
  fs.writeFileSync(path.join(root, 'private.txt'), 'kept out by .gitignore\n');
  fs.mkdirSync(path.join(root, 'build'));
  fs.writeFileSync(path.join(root, 'build/out.js'), 'generated\n');
  fs.writeFileSync(path.join(root, 'src/blob.bin'), Buffer.from([0x50, 0x4b, 0x03, 0x04, 0x00, 0x00, 0x01, 0x02]));
  fs.writeFileSync(path.join(base, 'outside.txt'), 'not under the root\n');
  fs.symlinkSync(path.join(base, 'outside.txt'), path.join(root, 'src/escape.txt'));
  fs.symlinkSync(path.join(root, 'private.txt'), path.join(root, 'src/peek.txt'));
  const transport = new StdioClientTransport({ command: process.execPath, args: [CLI, 'mcp', '--root', root], stderr: 'ignore' });
  client = new Client({ name: 'fused-range-test', version: '1.0.0' });
  await client.connect(transport);
  await call('reindex', {});
});

after(async () => {
  await client?.close();
});

test('a range comes back numbered as search excerpts are, and an end past the file is clamped', async () => {
  const got = await call('read_range', { path: 'src/long.ts', start_line: 10, end_line: 12 });
  assert.equal(got.isError, false);
  assert.equal(got.text, `src/long.ts:10-12 (120 lines in the file)\n10: ${LINES[9]}\n11: ${LINES[10]}\n12: ${LINES[11]}\n`);
  const tail = await call('read_range', { path: 'src/long.ts', start_line: 119, end_line: 500 });
  assert.match(tail.text, /^src\/long\.ts:119-120 \(120 lines in the file\)\n119: .*\n120: .*\n$/);
});

test('a range past the end, a reversed range and a missing file get clear errors', async () => {
  const past = await call('read_range', { path: 'src/long.ts', start_line: 121, end_line: 130 });
  assert.equal(past.isError, true);
  assert.match(past.text, /has 120 lines; start_line 121 is past its end/);
  const reversed = await call('read_range', { path: 'src/long.ts', start_line: 20, end_line: 10 });
  assert.equal(reversed.isError, true);
  assert.match(reversed.text, /end_line \(10\) is before start_line \(20\)/);
  const missing = await call('read_range', { path: 'src/nope.ts', start_line: 1, end_line: 5 });
  assert.equal(missing.isError, true);
  assert.match(missing.text, /No file src\/nope\.ts/);
  const binary = await call('read_range', { path: 'src/blob.bin', start_line: 1, end_line: 5 });
  assert.equal(binary.isError, true);
  assert.match(binary.text, /binary file/);
});

test('nothing outside the root is read: ../, an absolute path elsewhere, a symlink leading out', async () => {
  for (const given of ['../outside.txt', path.join(base, 'outside.txt'), '/etc/passwd']) {
    const got = await call('read_range', { path: given, start_line: 1, end_line: 5 });
    assert.equal(got.isError, true, given);
    assert.match(got.text, /not a file inside the indexed folder/, given);
    assert.doesNotMatch(got.text, /not under the root|root:/);
  }
  const link = await call('read_range', { path: 'src/escape.txt', start_line: 1, end_line: 5 });
  assert.equal(link.isError, true);
  assert.match(link.text, /symlink to a place outside the indexed folder/);
  assert.doesNotMatch(link.text, /not under the root/);
});

test("files the index's ignore rules exclude are not read, nor through a symlink to them", async () => {
  for (const given of ['private.txt', 'build/out.js', 'src/peek.txt']) {
    const got = await call('read_range', { path: given, start_line: 1, end_line: 5 });
    assert.equal(got.isError, true, given);
    assert.match(got.text, /excluded by the index's rules/, given);
    assert.doesNotMatch(got.text, /kept out by|generated/);
  }
});

test('a range larger than the budget is cut at a whole line and says where to go on', async () => {
  const got = await call('read_range', { path: 'src/long.ts', start_line: 1, end_line: 120, budget_bytes: 1024 });
  assert.equal(got.isError, false);
  assert.ok(Buffer.byteLength(got.text) <= 1024, `${Buffer.byteLength(got.text)} bytes`);
  const last = Number(/Truncated after line (\d+) to stay within 1024 bytes; read_range from line (\d+)/.exec(got.text)?.[1]);
  assert.ok(last > 1 && last < 120);
  assert.ok(got.text.includes(`\n${last}: ${LINES[last - 1]}\n`), 'the last line printed is whole');
  assert.ok(!got.text.includes(`\n${last + 1}: `));
  const small = await call('read_range', { path: 'src/long.ts', start_line: 1, end_line: 120, budget_bytes: 100 });
  assert.equal(small.isError, true, 'a budget under the minimum is refused');
});

test('read_chunk cuts a long chunk at a whole line and says which line read_range goes on from', async () => {
  const found = await call('search', { query: 'line60', limit: 1 });
  const [, start, end, id] = /\n\[1\] (\d+)-(\d+) .* · chunk (\d+)\n/.exec(found.text)!;
  const chunk = await call('read_chunk', { id: Number(id), budget_bytes: 1024 });
  assert.equal(chunk.isError, false);
  assert.ok(Buffer.byteLength(chunk.text) <= 1024, `${Buffer.byteLength(chunk.text)} bytes`);
  const last = Number(/Truncated after line (\d+) to stay within 1024 bytes; read_range from line (\d+)/.exec(chunk.text)?.[1]);
  assert.ok(last >= Number(start) && last < Number(end), `cut inside the chunk ${start}-${end}, after line ${last}`);
  const shown = chunk.text.split('\n').slice(1, -2);
  assert.deepEqual(shown, LINES.slice(Number(start) - 1, last), "the chunk's lines up to the cut, whole");
});
