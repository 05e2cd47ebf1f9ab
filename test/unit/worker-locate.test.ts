// The worker's `locate` request, as the VS Code command sends it: every open folder located, the
// files merged by score, each with its folder and absolute path. The worker runs from source in a
// real worker_thread through the extension's own client.

import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { EngineClient } from '../../src/worker/client.ts';
import { writeLocateRepo } from './helpers/locate-repo.ts';
import { tempDir } from './helpers/store.ts';
import { workerFolder } from './helpers/worker-folder.ts';

const WORKER = fileURLToPath(new URL('../../src/worker/worker.ts', import.meta.url));
const fixture = (name: string) => fs.readFileSync(new URL(`../fixtures/locate/${name}`, import.meta.url), 'utf8');

const client = new EngineClient(WORKER, { info() {}, warn() {}, error() {} });
after(() => client.stop());

test('locate answers across every open folder, merged by score, each file with its folder', async () => {
  const notes = tempDir('fused-notes-');
  fs.writeFileSync(path.join(notes, 'incident.md'), '# Incident\n\nThe consumer queue stalled during polling; see the dashboard.\n');
  const folders = [workerFolder('repo', writeLocateRepo()), workerFolder('notes', notes)];
  assert.ok((await client.request({ type: 'open', folders })).ok);
  for (const folder of folders) assert.ok((await client.request({ type: 'sync', folder: folder.id })).ok);

  const answer = await client.request({ type: 'locate', text: fixture('go.txt'), limit: 3 });
  assert.ok(answer.ok);
  const { files } = answer.value;
  assert.equal(files.length, 3, 'cut to the limit after merging');
  assert.deepEqual(
    files.slice(0, 2).map((f) => `${f.folderName}/${f.path}`),
    ['repo/worker/queue/consumer.go', 'repo/worker/main.go'],
  );
  assert.equal(files[0]!.absPath, path.join(folders[0]!.root, 'worker/queue/consumer.go'));
  assert.ok(
    files.every((file, i) => i === 0 || files[i - 1]!.score >= file.score),
    'best first',
  );

  const all = await client.request({ type: 'locate', text: fixture('go.txt') });
  assert.ok(all.ok);
  assert.ok(
    all.value.files.some((f) => f.folderName === 'notes' && f.path === 'incident.md'),
    "the notes folder shares the panic's words",
  );

  const refused = await client.request({ type: 'locate', text: '' });
  assert.equal(refused.ok, false);
  assert.equal(!refused.ok && refused.error.code, 'bad-request');
});
