// The MCP server as an agent client sees it: the SDK's own Client over stdio, spawning the CLI
// entry point in a child Node (the one running the tests, Node 24, which runs .ts directly).

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { IndexService } from '../../src/mcp/index-service.ts';
import { tempDir } from './helpers/store.ts';
import { eventually } from './helpers/eventually.ts';

const CLI = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));

let root: string;
let client: Client;

async function connect(args: string[]): Promise<Client> {
  const transport = new StdioClientTransport({ command: process.execPath, args: [CLI, 'mcp', ...args], stderr: 'ignore' });
  const c = new Client({ name: 'fused-search-test', version: '1.0.0' });
  await c.connect(transport);
  return c;
}

async function call(c: Client, name: string, args: Record<string, unknown>): Promise<{ text: string; isError: boolean }> {
  const result = (await c.callTool({ name, arguments: args })) as CallToolResult;
  const first = result.content[0];
  return { text: first?.type === 'text' ? first.text : '', isError: result.isError === true };
}

before(async () => {
  root = tempDir('fused-mcp-');
  fs.mkdirSync(path.join(root, 'src'));
  fs.mkdirSync(path.join(root, 'docs'));
  fs.writeFileSync(
    path.join(root, 'src/retry.ts'),
    [
      'export function retryWithBackoff(attempts: number): number {',
      '  // exponential backoff between attempts',
      '  return Math.min(1000 * 2 ** attempts, 30000);',
      '}',
      '',
    ].join('\n'),
  );
  fs.writeFileSync(path.join(root, 'docs/guide.md'), '# Guide\n\n## Retries\n\nFailed requests are retried with exponential backoff.\n');
  client = await connect(['--root', root]);
  // Joins the initial index the server started on its own.
  const indexed = await call(client, 'reindex', {});
  assert.match(indexed.text, /Index up to date: 2 files/);
});

after(async () => {
  await client?.close();
});

test('the server reports the version package.json gives the extension', async () => {
  const manifest = JSON.parse(fs.readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  assert.equal(client.getServerVersion()?.version, manifest.version);
});

test('search takes the parameters the language model tool takes', async () => {
  const { tools } = await client.listTools();
  const search = tools.find((t) => t.name === 'search')!;
  const manifest = JSON.parse(fs.readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    contributes: { languageModelTools: Array<{ inputSchema: { properties: Record<string, object> } }> };
  };
  const lmTool = manifest.contributes.languageModelTools[0]!.inputSchema.properties;
  assert.deepEqual(Object.keys(search.inputSchema.properties ?? {}).sort(), Object.keys(lmTool).sort());
  const { description: _mcp, ...pathHere } = search.inputSchema.properties!.path as Record<string, unknown>;
  const { description: _lm, ...pathThere } = lmTool.path as Record<string, unknown>;
  assert.deepEqual(pathHere, pathThere, 'path is a glob or a list of globs in both');
});

test('an agent sees the six tools', async () => {
  const { tools } = await client.listTools();
  assert.deepEqual(tools.map((t) => t.name).sort(), ['index_status', 'locate', 'read_chunk', 'read_range', 'reindex', 'search']);
});

test('search answers with the file, line range, chunk id and the matching lines, and read_chunk gives the whole chunk', async () => {
  const found = await call(client, 'search', { query: 'exponential backoff', kind: 'code' });
  assert.equal(found.isError, false);
  assert.match(found.text, /\nsrc\/retry\.ts\n\[1\] 1-4 retryWithBackoff · chunk (\d+)\n1: export function retryWithBackoff/);
  assert.doesNotMatch(found.text, /docs\/guide\.md/, 'kind: code leaves prose out');
  const id = Number(/chunk (\d+)\n/.exec(found.text)![1]);
  const chunk = await call(client, 'read_chunk', { id });
  assert.equal(chunk.isError, false);
  assert.match(chunk.text, /^src\/retry\.ts:1-4 retryWithBackoff \[code, typescript\]\n/);
  assert.match(chunk.text, /return Math\.min\(1000 \* 2 \*\* attempts, 30000\);/);
});

test('a typo is corrected and the answer says so', async () => {
  const found = await call(client, 'search', { query: 'exponental', path: 'docs/**' });
  assert.match(found.text, /Corrected: "exponental" → "exponential"/);
  assert.match(found.text, /\ndocs\/guide\.md\n\[1\] /);
});

test('a changed file is searchable after reindexing it', async () => {
  fs.writeFileSync(path.join(root, 'src/jitter.ts'), 'export const jitterSeedValue = 42; // randomises the backoff\n');
  const outcome = await call(client, 'reindex', { path: 'src/jitter.ts' });
  assert.equal(outcome.text, 'src/jitter.ts: indexed.');
  const found = await call(client, 'search', { query: 'jitterSeedValue' });
  assert.match(found.text, /\nsrc\/jitter\.ts\n\[1\] 1-1 /);
});

test('the file watcher picks up a new file without being asked', async () => {
  fs.writeFileSync(path.join(root, 'docs/watched.md'), '# Watched\n\nThe zanzibarquux setting is picked up by the watcher.\n');
  const seen = await eventually(async () => (await call(client, 'search', { query: 'zanzibarquux' })).text.includes('docs/watched.md'));
  assert.ok(seen, 'the new file became searchable');
});

test('an agent pages through results with offset: no result comes twice, and the answer names the next offset', async () => {
  fs.mkdirSync(path.join(root, 'paged'));
  for (let i = 0; i < 5; i++) fs.writeFileSync(path.join(root, `paged/part${i}.md`), `# Part ${i}\n\nThe quasarpaging knob, note ${i}.\n`);
  assert.equal((await call(client, 'reindex', { path: 'paged' })).isError, false);
  const chunks = (text: string) => [...text.matchAll(/ · chunk (\d+)\n/g)].map((m) => m[1]);
  const first = await call(client, 'search', { query: 'quasarpaging', limit: 2 });
  assert.match(first.text, /^2 results in 2 files \(5 candidates matched\); offset 2 for the next\.\n/);
  const second = await call(client, 'search', { query: 'quasarpaging', limit: 2, offset: 2 });
  assert.match(second.text, /^Results 3–4 in 2 files \(5 candidates matched\); offset 4 for the next\.\n/);
  assert.match(second.text, /\n\[3\] /);
  const third = await call(client, 'search', { query: 'quasarpaging', limit: 2, offset: 4 });
  assert.match(third.text, /^Result 5 in 1 file\.\n/);
  const seen = [first, second, third].flatMap((answer) => chunks(answer.text));
  assert.equal(seen.length, 5);
  assert.equal(new Set(seen).size, 5, 'each part came back once');
  assert.match((await call(client, 'search', { query: 'quasarpaging', offset: 5 })).text, /^No results after the first 5\.\n/);
  const negative = await call(client, 'search', { query: 'quasarpaging', offset: -1 });
  assert.equal(negative.isError, true);
  assert.match(negative.text, /offset/);
});

test('index_status reports files, chunks, freshness and who keeps the index', async () => {
  const status = JSON.parse((await call(client, 'index_status', {})).text) as Record<string, unknown>;
  assert.equal(status.role, 'owner');
  assert.equal(status.watching, true);
  assert.ok((status.files as number) >= 3);
  assert.ok((status.chunks as number) >= 3);
  assert.equal(typeof status.lastSync, 'string');
  assert.deepEqual(Object.keys(status.staleFiles as object).sort(), ['count', 'examples']);
});

test('bad arguments get a clear tool error, and the server keeps answering', async () => {
  const empty = await call(client, 'search', { query: '   ' });
  assert.equal(empty.isError, true);
  assert.match(empty.text, /must be a non-empty string at query/);
  const wrongType = await call(client, 'search', { query: 'x', limit: 0 });
  assert.equal(wrongType.isError, true);
  assert.match(wrongType.text, /limit/);
  const missingChunk = await call(client, 'read_chunk', { id: 987654321 });
  assert.equal(missingChunk.isError, true);
  assert.match(missingChunk.text, /No chunk 987654321/);
  const outside = await call(client, 'reindex', { path: '../../etc/passwd' });
  assert.equal(outside.isError, true);
  assert.match(outside.text, /outside the indexed folder/);
  const still = await call(client, 'search', { query: 'backoff' });
  assert.equal(still.isError, false);
});

test('a second server on the same database reads it instead of indexing it again', async () => {
  const second = await connect(['--db', path.join(root, '.fused-search', 'index.db')]);
  try {
    const status = JSON.parse((await call(second, 'index_status', {})).text) as { role: string; heldBy: { kind: string } };
    assert.equal(status.role, 'reader');
    assert.equal(status.heldBy.kind, 'mcp');
    assert.match((await call(second, 'search', { query: 'retryWithBackoff' })).text, /src\/retry\.ts/);
  } finally {
    await second.close();
  }
});

test('a reader takes over the index when its keeper goes away', async () => {
  const folder = tempDir('fused-mcp-lease-');
  fs.writeFileSync(path.join(folder, 'a.md'), '# A\n\nalpha text\n');
  const keeper = await IndexService.open({ root: folder, heartbeatMs: 30, watch: false });
  const reader = await IndexService.open({ root: folder, heartbeatMs: 30, watch: false });
  try {
    assert.equal(keeper.keeper.role, 'owner');
    assert.equal(reader.keeper.role, 'reader');
    await keeper.close();
    assert.ok(await eventually(async () => reader.keeper.role === 'owner', 2000));
  } finally {
    await reader.close();
  }
});

test('cancelling a reindex stops the run and keeps what was indexed so far', async () => {
  const folder = tempDir('fused-mcp-cancel-');
  for (let i = 0; i < 400; i++) fs.writeFileSync(path.join(folder, `note-${i}.md`), `# Note ${i}\n\nword${i} text\n`);
  const service = await IndexService.open({ root: folder, watch: false });
  try {
    const abort = new AbortController();
    const summary = (await service.keeper.sync({
      signal: abort.signal,
      onProgress: (p) => {
        if (p.phase === 'indexing') abort.abort();
      },
    }))!;
    assert.equal(summary.complete, false);
    assert.ok(summary.files < 400, `${summary.files} files indexed before the cancel`);
    const again = (await service.keeper.sync())!;
    assert.equal(again.complete, true);
    assert.equal(again.files, 400);
  } finally {
    await service.close();
  }
});
