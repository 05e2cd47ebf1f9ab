// One keeper of an index (src/core/index-keeper.ts) for every host: the rules that the worker and
// the MCP server once each wrote down, and had let drift apart, checked where a user meets them.

import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { IndexKeeper } from '../../src/core/index-keeper.ts';
import { describeHolder } from '../../src/core/index-lease.ts';
import { isBusy } from '../../src/core/store/database.ts';
import { IndexService } from '../../src/mcp/index-service.ts';
import { startChild } from './helpers/fault.ts';
import { tempDir } from './helpers/store.ts';
import { eventually } from './helpers/eventually.ts';

const CLI = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));
const PROJECT = fileURLToPath(new URL('../..', import.meta.url));

const cleanup: Array<() => unknown> = [];
after(async () => {
  for (const run of cleanup.reverse())
    await Promise.resolve()
      .then(run)
      .catch(() => undefined);
});

function folderWith(files: Record<string, string>): string {
  const root = tempDir('fused-keeper-');
  for (const [relPath, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, relPath)), { recursive: true });
    fs.writeFileSync(path.join(root, relPath), text);
  }
  return root;
}

/** An MCP server's keeper of `root`, with a database of its own, closed after the tests. */
async function keeperOf(root: string): Promise<IndexKeeper> {
  const keeper = await IndexKeeper.open({ root, dbFile: path.join(tempDir('fused-keeper-db-'), 'index.db'), kind: 'mcp' });
  cleanup.push(() => keeper.close());
  return keeper;
}

async function paths(keeper: IndexKeeper, query: string): Promise<string[]> {
  return (await keeper.search(query)).results.map((result) => result.path);
}

for (const [ignoreFile, line] of [
  ['.fusedsearchignore', 'secret.md'],
  ['.gitignore', 'secret.md'],
  ['.git/info/exclude', 'secret.md'],
] as const) {
  test(`the MCP server's watcher drops a file once ${ignoreFile} names it`, async () => {
    const root = folderWith({
      'secret.md': '# Secret\n\nzanzibar marmalade\n',
      'open.md': '# Open\n\nzanzibar lighthouse\n',
      '.git/HEAD': 'ref: refs/heads/main\n',
    });
    const service = await IndexService.open({ root, dbFile: path.join(tempDir('fused-keeper-db-'), 'index.db'), debounceMs: 20 });
    cleanup.push(() => service.close());
    await service.keeper.sync();
    assert.deepEqual((await paths(service.keeper, 'zanzibar')).sort(), ['open.md', 'secret.md']);

    fs.mkdirSync(path.dirname(path.join(root, ignoreFile)), { recursive: true });
    fs.writeFileSync(path.join(root, ignoreFile), `${line}\n`);
    assert.ok(
      await eventually(async () => {
        await service.settle();
        return !(await paths(service.keeper, 'zanzibar')).includes('secret.md');
      }),
      `secret.md is still found after ${ignoreFile} named it`,
    );
    assert.deepEqual(await paths(service.keeper, 'lighthouse'), ['open.md'], 'the rest stays indexed');
  });
}

test('a keeper that only reads leaves stale files to the owner; the owner refreshes them before answering', async () => {
  const root = folderWith({ 'notes.md': '# Notes\n\nquokka habitat\n' });
  const dbFile = path.join(tempDir('fused-keeper-db-'), 'index.db');
  const owner = await IndexKeeper.open({ root, dbFile, kind: 'vscode' });
  cleanup.push(() => owner.close());
  await owner.sync();
  const reader = await IndexKeeper.open({ root, dbFile, kind: 'mcp' });
  cleanup.push(() => reader.close());
  assert.equal(owner.role, 'owner');
  assert.equal(reader.role, 'reader');
  assert.match(reader.stats().indexedBy ?? '', /^a VS Code window \(pid \d+/);

  fs.writeFileSync(path.join(root, 'notes.md'), '# Notes\n\nwombat burrow, rewritten at greater length\n');
  assert.deepEqual(await paths(reader, 'quokka'), ['notes.md'], 'the reader answers from the index as it is');
  assert.deepEqual(await paths(reader, 'wombat'), [], 'and writes nothing: the changed file is not re-indexed');
  assert.deepEqual(await paths(owner, 'quokka'), [], 'the owner sees the file changed and re-indexes it first');
  assert.deepEqual(await paths(reader, 'wombat'), ['notes.md'], 'which the reader then reads');
});

test('a reader applies no file changes, refuses a rebuild and takes over when the owner closes', async () => {
  const root = folderWith({ 'a.md': '# A\n\nalpha text\n' });
  const dbFile = path.join(tempDir('fused-keeper-db-'), 'index.db');
  const owner = await IndexKeeper.open({ root, dbFile, kind: 'mcp', heartbeatMs: 30 });
  await owner.sync();
  const reader = await IndexKeeper.open({ root, dbFile, kind: 'vscode', heartbeatMs: 30 });
  cleanup.push(() => reader.close());
  fs.writeFileSync(path.join(root, 'b.md'), '# B\n\nbeta text\n');
  assert.deepEqual(await reader.applyChanges(['b.md']), []);
  assert.equal(reader.stats().files, 1);
  await assert.rejects(reader.rebuild(), /kept by a fused-search MCP server \(pid \d+/);
  assert.equal(await reader.sync(), null);

  const roles: string[] = [];
  reader.onEvent((event) => event.type === 'role' && roles.push(event.role));
  await owner.close();
  assert.ok(await eventually(() => reader.role === 'owner', 3000));
  assert.deepEqual(roles, ['owner'], 'the take-over is an event the host acts on');
  assert.deepEqual(await reader.applyChanges(['b.md']), ['b.md']);
  assert.deepEqual(await paths(reader, 'beta'), ['b.md']);
});

test('file changes apply in order and a search waits for those queued before it', async () => {
  const root = folderWith({ 'a.md': '# A\n\nfirst draft\n' });
  const keeper = await keeperOf(root);
  await keeper.sync();
  fs.writeFileSync(path.join(root, 'a.md'), '# A\n\nsecond draft\n');
  const applying = keeper.applyChanges(['a.md']);
  // Not awaited: the search queues behind the change.
  assert.deepEqual(await paths(keeper, 'second'), ['a.md']);
  assert.deepEqual(await applying, ['a.md']);
  fs.rmSync(path.join(root, 'a.md'));
  fs.mkdirSync(path.join(root, 'docs'));
  fs.writeFileSync(path.join(root, 'docs', 'b.md'), '# B\n\nnested note\n');
  await keeper.applyChanges(['a.md', 'docs']);
  assert.deepEqual(await paths(keeper, 'draft'), [], 'a deleted file is gone');
  assert.deepEqual(await paths(keeper, 'nested'), ['docs/b.md'], 'a new folder is crawled');
  fs.rmSync(path.join(root, 'docs'), { recursive: true });
  assert.deepEqual(await keeper.applyChanges(['docs']), ['docs/b.md'], 'a vanished folder drops what was under it');
});

test('SQLITE_BUSY and SQLITE_LOCKED, with their extended codes, are both "busy": retried, never a broken database', () => {
  const error = (code: string) => Object.assign(new Error(code), { code });
  for (const code of ['SQLITE_BUSY', 'SQLITE_BUSY_SNAPSHOT', 'SQLITE_LOCKED', 'SQLITE_LOCKED_SHAREDCACHE']) assert.equal(isBusy(error(code)), true, code);
  for (const code of ['SQLITE_CORRUPT', 'SQLITE_FULL', 'ENOENT']) assert.equal(isBusy(error(code)), false, code);
});

test('every host names a lease holder the same way', () => {
  const holder = { id: 'x', pid: 4242, host: 'devbox', since: 0, heartbeatAt: 0 };
  assert.equal(describeHolder({ ...holder, kind: 'vscode' }), 'a VS Code window (pid 4242 on devbox)');
  assert.equal(describeHolder({ ...holder, kind: 'mcp' }), 'a fused-search MCP server (pid 4242 on devbox)');
  assert.equal(describeHolder({ ...holder, kind: 'cli' }), 'fused-search index (pid 4242 on devbox)');
});

function runCli(args: string[]): { done: Promise<{ code: number | null; stderr: string; stdout: string }>; stderr: () => string } {
  const child = spawn(process.execPath, [CLI, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (data: Buffer) => (stdout += data.toString()));
  child.stderr.on('data', (data: Buffer) => (stderr += data.toString()));
  cleanup.push(() => child.kill('SIGKILL'));
  return { done: new Promise((resolve) => child.on('exit', (code) => resolve({ code, stderr, stdout }))), stderr: () => stderr };
}

test('fused-search index leaves an index another process keeps alone, says who keeps it, and with --wait indexes once it lets go', async () => {
  const root = folderWith({ 'a.md': '# A\n\nalpha text\n' });
  const dbFile = path.join(tempDir('fused-keeper-db-'), 'index.db');
  const holder = startChild(['hold', root, dbFile]);
  cleanup.push(() => holder.process.kill('SIGKILL'));
  await holder.ready;
  fs.writeFileSync(path.join(root, 'b.md'), '# B\n\nbeta text\n');

  const refused = await runCli(['index', root, '--db', dbFile]).done;
  assert.equal(refused.code, 3, refused.stderr);
  assert.match(refused.stderr, new RegExp(`kept by a VS Code window \\(pid ${holder.process.pid} on [^)]+\\).*--wait`));

  const waiting = runCli(['index', root, '--db', dbFile, '--wait', '--json']);
  assert.ok(await eventually(() => /waiting for a VS Code window/.test(waiting.stderr()), 10_000), waiting.stderr());
  holder.process.kill('SIGKILL');
  const indexed = await waiting.done;
  assert.equal(indexed.code, 0, indexed.stderr);
  assert.equal((JSON.parse(indexed.stdout) as { files: number }).files, 2, 'it indexed the change once the holder was gone');
});

test('the shipped bundle carries no test hook: the crash command and the worker crash are built only for development', async () => {
  const out = tempDir('fused-keeper-bundle-');
  const build = spawn(process.execPath, [path.join(PROJECT, 'esbuild.mjs'), '--production', '--out', out], { cwd: PROJECT, stdio: 'inherit' });
  assert.equal(await new Promise((resolve) => build.on('exit', resolve)), 0);
  const extension = fs.readFileSync(path.join(out, 'dist', 'extension.cjs'), 'utf8');
  const worker = fs.readFileSync(path.join(out, 'dist', 'worker.cjs'), 'utf8');
  assert.doesNotMatch(extension, /crashWorkerForTest/);
  assert.doesNotMatch(worker, /asked to crash/);
  assert.match(worker, /superseded by a newer query/, 'the worker itself is in the bundle');
});

test('a rebuild while files change, by the hundred and one at a time, fails nothing and loses nothing', async () => {
  const root = folderWith(Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`notes/n${i}.md`, `# Note ${i}\n\nwombat ${i}\n`])));
  const keeper = await keeperOf(root);
  const logs: string[] = [];
  keeper.onEvent((event) => {
    if (event.type === 'log') logs.push(event.message);
  });
  await keeper.sync();
  const write = (relPath: string, text: string) => {
    fs.mkdirSync(path.dirname(path.join(root, relPath)), { recursive: true });
    fs.writeFileSync(path.join(root, relPath), text);
    return relPath;
  };
  // A branch switch as the rebuild is asked for, another while it runs, and a save in between.
  const before = Array.from({ length: 300 }, (_, i) => write(`before/b${i}.md`, `# B ${i}\n\nokapi ${i}\n`));
  const during = Array.from({ length: 300 }, (_, i) => write(`during/d${i}.md`, `# D ${i}\n\nokapi ${i}\n`));
  write('single.md', '# Single\n\nquokka\n');
  const work: Array<Promise<unknown>> = [keeper.applyChanges(before)];
  // A sync asked for then waits for the batch's, which the rebuild stops.
  await new Promise((resolve) => setImmediate(resolve));
  work.push(keeper.sync());
  const rebuilt = keeper.rebuild();
  work.push(keeper.applyChanges(['single.md']), keeper.search('okapi'));
  await new Promise((resolve) => setImmediate(resolve));
  work.push(keeper.applyChanges(during), keeper.search('quokka'));
  const outcomes = await Promise.allSettled([rebuilt, ...work]);
  assert.deepEqual(
    outcomes.flatMap((outcome) => (outcome.status === 'rejected' ? [String(outcome.reason)] : [])),
    [],
    'the rebuild, the changes and the searches all answer',
  );
  assert.deepEqual(
    logs.filter((line) => /not open|could not/i.test(line)),
    [],
    'no change was applied to the database the rebuild closed',
  );
  await keeper.sync();
  assert.equal(keeper.stats().files, 20 + 300 + 300 + 1, 'the files there before, both batches and the saved file are indexed');
  assert.deepEqual(await paths(keeper, 'quokka'), ['single.md']);
});

test('a search under way when a rebuild starts answers, whenever in the search the rebuild comes', async () => {
  const root = folderWith(Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`n${i}.md`, `# N ${i}\n\nokapi ${i}\n`])));
  const keeper = await keeperOf(root);
  await keeper.sync();
  const failures: string[] = [];
  for (let turns = 0; turns < 12; turns++) {
    // Changed on disk and not reported: the search refreshes them first, which takes it a while.
    for (let i = 0; i < 30; i++) fs.writeFileSync(path.join(root, `n${i}.md`), `# N ${i}\n\nokapi ${i}, draft ${turns}\n`);
    const searching = keeper.search('okapi');
    for (let turn = 0; turn < turns; turn++) await new Promise((resolve) => setImmediate(resolve));
    for (const outcome of await Promise.allSettled([searching, keeper.rebuild()]))
      if (outcome.status === 'rejected') failures.push(`after ${turns} turns: ${String(outcome.reason)}`);
  }
  assert.deepEqual(failures, []);
  assert.equal((await keeper.search('okapi', { limit: 50 })).results.length, 30);
});

test('a pause as a rebuild replaces the database stops the rebuild too: it leaves the index part-built and says so', async () => {
  const root = folderWith(Object.fromEntries(Array.from({ length: 400 }, (_, i) => [`n${i}.md`, `# N ${i}\n\nokapi ${i}\n`])));
  const keeper = await keeperOf(root);
  await keeper.sync();
  // As a pause reaches the worker a moment after Rebuild Index: the old database is still being let go.
  const rebuilt = keeper.rebuild();
  await keeper.pause();
  const summary = await rebuilt;
  assert.equal(summary?.complete, false, 'the rebuild says it stopped');
  assert.ok(keeper.stats().files < 400, `the rebuild stopped before indexing every file (${keeper.stats().files})`);
  const resumed = await keeper.sync();
  assert.equal(resumed?.complete, true);
  assert.equal(keeper.stats().files, 400, 'a later sync finishes the rebuilt index');
});

test('paused, a keeper applies a changed file but starts no sync by itself: a mass change and an ignore file wait for the next sync', async () => {
  const root = folderWith(Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`n${i}.md`, `# N ${i}\n\nokapi ${i}\n`])));
  const keeper = await keeperOf(root);
  await keeper.sync();
  await keeper.pause();
  const checkout = Array.from({ length: 250 }, (_, i) => `branch/b${i}.md`);
  for (const relPath of checkout) {
    fs.mkdirSync(path.dirname(path.join(root, relPath)), { recursive: true });
    fs.writeFileSync(path.join(root, relPath), `# B\n\nquokka ${relPath}\n`);
  }
  fs.writeFileSync(path.join(root, 'saved.md'), '# Saved\n\nwallaby\n');
  fs.writeFileSync(path.join(root, '.fusedsearchignore'), 'n1.md\n');
  await keeper.applyChanges(checkout);
  await keeper.applyChanges(['saved.md']);
  await keeper.applyChanges(['.fusedsearchignore']);
  assert.deepEqual(await paths(keeper, 'wallaby'), ['saved.md'], 'a file changed while paused is indexed');
  assert.deepEqual(await paths(keeper, 'quokka'), [], 'the checkout waits for the next sync');
  const okapis = async () => (await keeper.search('okapi', { limit: 50 })).results.map((result) => result.path);
  assert.ok((await okapis()).includes('n1.md'), 'the new ignore rule waits for the next sync');

  const resumed = await keeper.sync();
  assert.equal(resumed?.complete, true);
  assert.equal((await keeper.search('quokka', { limit: 300 })).results.length, 250, 'the next sync brings the checkout in');
  assert.ok(!(await okapis()).includes('n1.md'), 'and leaves the ignored file out');
});
