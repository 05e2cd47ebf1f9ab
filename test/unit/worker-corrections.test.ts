// Typo correction across a multi-root workspace's folders, as the worker searches them for the
// quick pick, the panel and the language model tool: a word one folder holds is no typo in another.
// The worker runs from source in a real worker_thread through the extension's own client.

import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FolderSpec } from '../../src/protocol/worker.ts';
import { EngineClient } from '../../src/worker/client.ts';
import { tempDir } from './helpers/store.ts';
import { workerFolder } from './helpers/worker-folder.ts';

const WORKER = fileURLToPath(new URL('../../src/worker/worker.ts', import.meta.url));

const client = new EngineClient(WORKER, { info() {}, warn() {}, error() {} });
after(() => client.stop());

function folder(name: string, files: Record<string, string>): FolderSpec {
  const root = tempDir(`fused-corrections-${name}-`);
  for (const [file, text] of Object.entries(files)) fs.writeFileSync(path.join(root, file), text);
  return workerFolder(name, root);
}

// The code never says `expiry`; it exports a lot, and `export` is two edits from it.
const app = folder('app', {
  'store.ts': 'export class ContentStore {\n  put(key: string, value: string): void {}\n}\n',
  'report.ts': 'export function exportReport(store: ContentStore): string {\n  return "export";\n}\n',
});
const notes = folder('notes', { 'design.md': '# Design notes\n\n- The content store learned expiry: entries carry a time to live.\n' });

test('a word one folder holds is searched as typed in every folder, and a real typo is still corrected', async () => {
  assert.ok((await client.request({ type: 'open', folders: [app, notes] })).ok);
  for (const spec of [app, notes]) assert.ok((await client.request({ type: 'sync', folder: spec.id })).ok);
  const search = async (query: string) => {
    const answer = await client.request({ type: 'search', query, options: { limit: 10 } });
    assert.ok(answer.ok);
    return answer.value;
  };

  // The vocabulary corrections are drawn from is read once no search has run for a moment: until
  // then a typo stays as typed. Asking more often than that would put it off.
  let typo = await search('content store expirey');
  for (const until = Date.now() + 20_000; typo.corrections.length === 0 && Date.now() < until; typo = await search('content store expirey')) {
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  assert.deepEqual(typo.corrections, [['expirey', 'expiry']], 'a word no folder holds is still a typo, corrected to the notes’ word');
  assert.deepEqual(typo.unmatched, [], 'a corrected word is said as a correction, not as missing');

  const typed = await search('content store expiry');
  assert.deepEqual(typed.corrections, [], 'the notes hold expiry: the code does not turn it into export');
  assert.deepEqual(
    typed.results.filter((r) => r.stage === 'fuzzy').map((r) => r.path),
    [],
    'no result comes from a correction',
  );
  assert.equal(typed.results[0]?.path, 'design.md', 'the note that holds every word leads');
  assert.deepEqual(typed.unmatched, [], 'a word one folder holds is missing from no answer, though the other folder lacks it');
  assert.deepEqual((await search('content store expiry downtime')).unmatched, ['downtime'], 'a word no folder holds is said to be missing');
});

test('a typo two folders correct to different words names both, and each folder answers for its own', async () => {
  const docs = folder('docs', { 'retention.md': '# Retention\n\nEntries in the content store expire after a day.\n' });
  assert.ok((await client.request({ type: 'open', folders: [notes, docs] })).ok);
  for (const spec of [notes, docs]) assert.ok((await client.request({ type: 'sync', folder: spec.id })).ok);
  const search = async () => {
    const answer = await client.request({ type: 'search', query: 'expirey', options: { limit: 10 } });
    assert.ok(answer.ok);
    return answer.value;
  };
  // Each folder reads its vocabulary once no search has run for a moment, not necessarily together.
  let typo = await search();
  for (const until = Date.now() + 20_000; typo.corrections[0]?.[1]?.includes('/') !== true && Date.now() < until; typo = await search()) {
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  assert.deepEqual(typo.corrections, [['expirey', 'expiry/expire']], 'the notes’ word and the docs’ word, in folder order');
  const fuzzy = typo.results.filter((r) => r.stage === 'fuzzy').map((r) => r.path);
  assert.deepEqual(fuzzy.sort(), ['design.md', 'retention.md'], 'each folder found its note through its own correction');
});
