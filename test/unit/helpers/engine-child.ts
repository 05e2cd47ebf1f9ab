// A process the fault suite kills, or runs beside another one on the same database. Prints
// `ready` once the engine is open, then works:
//
//   sync ROOT DB                 one full sync: prints `indexing` when the crawl is done and files
//                                are being read and written, then `done` and the summary as JSON
//   burst ROOT DB SEED           rewrites, deletes and adds files under ROOT forever, calling
//                                updateFile after each change, as a file watcher would
//   search DB MS QUERY...        searches the queries in turn for MS milliseconds, then prints
//                                {"queries":N,"errors":[...]} — every error a search threw
//   hold ROOT DB                 keeps the index as a VS Code window does: claims the index lease
//                                (kind `vscode`), syncs, then renews the lease until killed
//   host ROOT DB                 stands in for the extension host: starts the engine worker through
//                                the extension's client, opens ROOT and starts its first index;
//                                prints `worker PID` and `ready` once files are being written, then
//                                waits until killed

import fs from 'node:fs';
import path from 'node:path';
import { Engine } from '../../../src/core/engine.ts';
import { HEARTBEAT_MS, IndexLease } from '../../../src/core/index-lease.ts';
import { EngineClient } from '../../../src/worker/client.ts';
import { random } from './random.ts';

const [mode, ...args] = process.argv.slice(2);

if (mode === 'sync') {
  const [root, dbFile] = args as [string, string];
  const engine = await Engine.open({ root, dbFile });
  process.stdout.write('ready\n');
  let said = false;
  const summary = await engine.sync({
    onProgress: (progress) => {
      if (progress.phase !== 'scanning' && !said) {
        said = true;
        process.stdout.write('indexing\n');
      }
    },
  });
  engine.close();
  process.stdout.write(`done\n${JSON.stringify(summary)}\n`);
} else if (mode === 'burst') {
  const [root, dbFile, seed] = args as [string, string, string];
  const engine = await Engine.open({ root, dbFile });
  const files = engine.store.catalog().map((file) => file.path);
  const next = random(Number(seed));
  process.stdout.write('ready\n');
  for (let i = 0; ; i++) {
    const relPath = files[Math.floor(next() * files.length)]!;
    const absPath = path.join(root, relPath);
    const roll = next();
    if (roll < 0.1) {
      fs.rmSync(absPath, { force: true });
    } else if (roll < 0.2) {
      const added = `burst/new-${seed}-${i}.md`;
      fs.mkdirSync(path.join(root, 'burst'), { recursive: true });
      fs.writeFileSync(path.join(root, added), `# New ${i}\n\nburstnew${i} ${'words to index '.repeat(50)}\n`);
      await engine.updateFile(added);
    } else {
      fs.mkdirSync(path.dirname(absPath), { recursive: true });
      fs.writeFileSync(
        absPath,
        `# Rewrite ${i}\n\nburstword${i} ${'rewritten text '.repeat(Math.floor(next() * 400))}\n\n## More\n\n${'another paragraph '.repeat(100)}\n`,
      );
    }
    await engine.updateFile(relPath);
  }
} else if (mode === 'search') {
  const [dbFile, ms, ...queries] = args as [string, string, ...string[]];
  const engine = await Engine.open({ dbFile });
  process.stdout.write('ready\n');
  const until = performance.now() + Number(ms);
  const errors: string[] = [];
  let count = 0;
  while (performance.now() < until) {
    try {
      engine.searchIndexed(queries[count % queries.length]!);
      engine.stats();
    } catch (error) {
      errors.push((error as Error).message);
    }
    count++;
    // Let other processes' writes interleave with our reads rather than spin in one transaction.
    if (count % 20 === 0) await new Promise((resolve) => setImmediate(resolve));
  }
  engine.close();
  process.stdout.write(`${JSON.stringify({ queries: count, errors: errors.slice(0, 10), errorCount: errors.length })}\n`);
} else if (mode === 'hold') {
  const [root, dbFile] = args as [string, string];
  const engine = await Engine.open({ root, dbFile });
  const lease = new IndexLease(engine.store, { kind: 'vscode' });
  if (!lease.tryAcquire().acquired) throw new Error('engine-child: the index lease is taken');
  await engine.sync();
  setInterval(() => lease.renew(), HEARTBEAT_MS);
  process.stdout.write('ready\n');
} else if (mode === 'host') {
  const [root, dbFile] = args as [string, string];
  const worker = new URL('../../../src/worker/worker.ts', import.meta.url).pathname;
  const client = new EngineClient(worker, { info() {}, warn() {}, error: (message) => process.stderr.write(`${message}\n`) });
  const folder = { id: 'file:///host', name: 'host', root, dbFile, index: { include: [], exclude: [], maxFileBytes: 1 << 20, chunkMaxBytes: 4096 } };
  const writing = new Promise<void>((resolve) =>
    client.onEvent((event) => event.type === 'progress' && event.progress.phase === 'indexing' && event.progress.filesDone > 0 && resolve()),
  );
  const opened = await client.request({ type: 'open', folders: [folder] });
  if (!opened.ok) throw new Error(`engine-child: the worker could not open the folder: ${opened.error.message}`);
  void client.request({ type: 'sync', folder: folder.id });
  await writing;
  process.stdout.write(`worker ${client.workerPid}\nready\n`);
  setInterval(() => undefined, 60_000);
} else {
  process.stderr.write(`engine-child: unknown mode ${mode}\n`);
  process.exitCode = 2;
}
