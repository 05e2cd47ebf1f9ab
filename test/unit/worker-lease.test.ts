// The extension's engine worker and another process on the same database. The worker holds the
// index lease (kind `vscode`) for each folder it opens, so the MCP server VS Code starts on that
// database only reads it, and takes over once the worker lets go; and a worker that finds the lease
// held (a second window on the same folder) only reads, and takes over once the holder is gone.
// The worker runs from source in a process of its own, started by the extension's client, and
// speaks protocol.ts, as it does beside the extension host.

import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { Engine } from '../../src/core/engine.ts';
import { HEARTBEAT_MS } from '../../src/core/index-lease.ts';
import { IndexService } from '../../src/mcp/index-service.ts';
import type { FolderSpec, RequestBody, RequestResult, RequestType, WorkerEvent } from '../../src/protocol/worker.ts';
import { EngineClient } from '../../src/worker/client.ts';
import { startChild } from './helpers/fault.ts';
import { tempDir } from './helpers/store.ts';
import { eventually } from './helpers/eventually.ts';

const CLI = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));
const WORKER = new URL('../../src/worker/worker.ts', import.meta.url);

/** The worker through the extension's own client, as the extension host drives it. */
function startWorker() {
  const events: WorkerEvent[] = [];
  const client = new EngineClient(fileURLToPath(WORKER), { info() {}, warn() {}, error() {} });
  client.onEvent((event) => events.push(event));
  const request = async <T extends RequestType>(body: RequestBody<T>): Promise<RequestResult<T>> => {
    const result = await client.request(body);
    if (!result.ok) throw new Error(result.error.message);
    return result.value;
  };
  return { client, request, events };
}

/** Enough files that a first index takes several seconds here, long after a prompt stop would have ended it. */
const FILES_FOR_A_LONG_SYNC = 20_000;

const cleanup: Array<() => Promise<unknown>> = [];
after(async () => {
  for (const run of cleanup.reverse()) await run().catch(() => undefined);
});

test('an MCP server started on the database the extension indexes only reads it, and takes over when the extension closes it', async () => {
  const root = tempDir('fused-worker-lease-');
  fs.writeFileSync(path.join(root, 'retry.ts'), 'export function retryWithBackoff(attempts: number): number {\n  return 2 ** attempts;\n}\n');
  // Like the extension: the database lives outside the folder (VS Code's global storage).
  const dbFile = path.join(tempDir('fused-worker-storage-'), 'index.db');
  const spec: FolderSpec = {
    id: 'file:///lease',
    name: 'lease',
    root,
    dbFile,
    index: { include: [], exclude: [], maxFileBytes: 1 << 20, chunkMaxBytes: 4096 },
  };
  const { client: engine, request } = startWorker();
  cleanup.push(() => engine.stop());
  await request({ type: 'open', folders: [spec] });
  await request({ type: 'sync', folder: spec.id });

  const transport = new StdioClientTransport({ command: process.execPath, args: [CLI, 'mcp', '--db', dbFile], stderr: 'ignore' });
  const client = new Client({ name: 'fused-search-test', version: '1.0.0' });
  await client.connect(transport);
  cleanup.push(() => client.close());
  const call = async (name: string, args: Record<string, unknown>) => {
    const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
    return result.content[0]?.type === 'text' ? result.content[0].text : '';
  };
  const status = JSON.parse(await call('index_status', {})) as { role: string; heldBy: { kind: string; pid: number } | null; files: number };
  assert.equal(status.role, 'reader');
  assert.equal(status.heldBy?.kind, 'vscode');
  assert.equal(status.heldBy?.pid, engine.workerPid, 'the engine worker process holds the lease');
  assert.notEqual(engine.workerPid, process.pid, 'in a process of its own, not the host');
  assert.equal(status.files, 1, 'the server sees what the worker indexed, without indexing it again');
  assert.match(await call('search', { query: 'retryWithBackoff' }), /\nretry\.ts\n\[1\] 1-3 retryWithBackoff /);

  // A reader in this process with a short heartbeat: it must wait while the worker holds the lease
  // and take over once the worker has closed the folder (released, not merely expired).
  const reader = await IndexService.open({ dbFile, heartbeatMs: 50, watch: false });
  cleanup.push(() => reader.close());
  await new Promise((resolve) => setTimeout(resolve, 200));
  assert.equal(reader.keeper.role, 'reader');
  await request({ type: 'close' });
  assert.ok(await eventually(() => reader.keeper.role === 'owner', 3000), 'the reader took over after the worker released the lease');
});

test('a second window on the same folder only reads the index the first one keeps, and keeps it once the first is gone', async () => {
  const root = tempDir('fused-worker-reader-');
  fs.writeFileSync(path.join(root, 'retry.ts'), 'export function retryWithBackoff(attempts: number): number {\n  return 2 ** attempts;\n}\n');
  const dbFile = path.join(tempDir('fused-worker-storage-'), 'index.db');
  const spec: FolderSpec = {
    id: 'file:///reader',
    name: 'reader',
    root,
    dbFile,
    index: { include: [], exclude: [], maxFileBytes: 1 << 20, chunkMaxBytes: 4096 },
  };
  // The first window: another process that claimed the lease and indexed the folder.
  const first = startChild(['hold', root, dbFile]);
  cleanup.push(async () => first.process.kill('SIGKILL'));
  await first.ready;

  const { client: engine, request, events } = startWorker();
  cleanup.push(() => engine.stop());
  await request({ type: 'open', folders: [spec] });
  const [stats] = await request({ type: 'stats' });
  assert.match(stats?.indexedBy ?? '', new RegExp(`^a VS Code window \\(pid ${first.process.pid} on `), 'its stats name the window that keeps the index');
  assert.equal(stats?.files, 1, 'it reads what the first window indexed');
  assert.equal(await request({ type: 'sync', folder: spec.id }), null, 'it does not crawl the folder');
  fs.writeFileSync(path.join(root, 'saved.md'), '# Saved\n\nquixotic marmalade\n');
  await request({ type: 'update', folder: spec.id, paths: ['saved.md'] });
  assert.equal((await request({ type: 'stats' }))[0]?.files, 1, 'nor index a change: the first window watches the folder');
  await assert.rejects(request({ type: 'rebuild', folder: spec.id }), /kept by a VS Code window/);
  assert.ok(fs.existsSync(dbFile), 'nor delete the database under the first window');
  assert.match((await request({ type: 'search', query: 'retryWithBackoff', options: {} })).results[0]?.path ?? '', /retry\.ts/);
  // The first window's watcher indexes the change (a connection of this process stands in for it):
  // the second one's stats follow within a heartbeat.
  const keeper = await Engine.open({ root, dbFile });
  await keeper.updateFile('saved.md');
  keeper.close();
  const changed = () => events.some((e) => e.type === 'indexChanged' && e.folder === spec.id);
  assert.ok(await eventually(changed, HEARTBEAT_MS + 3000), 'it says the index changed');
  assert.equal((await request({ type: 'stats' }))[0]?.files, 2);

  // The first window's process ends without releasing the lease (a crash): free as soon as it is
  // gone. A file changed meanwhile is indexed by no one until the second window takes over.
  first.process.kill('SIGKILL');
  await first.exited;
  fs.writeFileSync(path.join(root, 'late.md'), '# Late\n\nquixotic lighthouse\n');
  const taken = () => events.some((e) => e.type === 'leaseTaken' && e.folder === spec.id);
  assert.ok(await eventually(taken, HEARTBEAT_MS + 3000), 'it takes the lease over at its next heartbeat and says so');
  assert.equal((await request({ type: 'stats' }))[0]?.indexedBy, undefined);
  const summary = await request({ type: 'sync', folder: spec.id });
  assert.equal(summary?.added, 1, 'its catch-up sync indexes what changed while no one kept the index');
  assert.match((await request({ type: 'search', query: 'lighthouse', options: {} })).results[0]?.path ?? '', /late\.md/);
});

test('when the extension host dies during a first index, its engine worker stops, gives the lease back and exits', async () => {
  const root = tempDir('fused-worker-orphan-');
  for (let i = 0; i < FILES_FOR_A_LONG_SYNC; i++) fs.writeFileSync(path.join(root, `note-${i}.md`), `# Note ${i}\n\nretry with backoff, attempt ${i}\n`);
  const dbFile = path.join(tempDir('fused-worker-storage-'), 'index.db');
  const host = startChild(['host', root, dbFile]);
  cleanup.push(async () => host.process.kill('SIGKILL'));
  await host.ready;
  const workerPid = Number(/worker (\d+)/.exec(host.stdout())?.[1]);
  assert.ok(workerPid > 0 && workerPid !== host.process.pid, `the worker runs in a process of its own: ${host.stdout()} ${host.stderr()}`);
  const running = () => {
    try {
      process.kill(workerPid, 0);
      return true;
    } catch {
      return false;
    }
  };

  // Killed, as a crashed extension host or a force-quit window is: nothing of the host's runs.
  host.process.kill('SIGKILL');
  await host.exited;
  const killedAt = Date.now();
  assert.ok(await eventually(() => !running(), 10_000), 'the orphaned worker exited');
  const heir = await IndexService.open({ dbFile, heartbeatMs: 50, watch: false });
  cleanup.push(() => heir.close());
  assert.equal(heir.keeper.role, 'owner', 'the next process keeps the index at once: the lease was given back');
  const summary = await heir.keeper.sync();
  assert.ok(summary && summary.added > 0, `the first index was stopped, not finished by an orphan (exited ${Date.now() - killedAt} ms after the kill)`);
  assert.equal(heir.keeper.stats().files, FILES_FOR_A_LONG_SYNC);
});
