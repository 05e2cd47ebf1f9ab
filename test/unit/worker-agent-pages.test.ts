// The language model tool's later pages, as the worker answers them over every open folder: each
// folder ranks down to the page's last result, the merge is cut to the page, and the answer numbers
// the results from the offset. The worker runs from source in a real worker_thread through the
// extension's own client.

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

function folder(name: string, functions: number): FolderSpec {
  const root = tempDir(`fused-pages-${name}-`);
  for (let i = 0; i < functions; i++) {
    // Some hold the words side by side and some far apart, so the folders' scores interleave.
    const body = i % 2 === 0 ? '// retry with backoff' : `// retry${' and then some more words'.repeat(i)} before the backoff`;
    fs.writeFileSync(path.join(root, `${name}${i}.ts`), `export function ${name}Handler${i}() {\n  ${body}\n  return ${i};\n}\n`);
  }
  return workerFolder(name, root);
}

/** The answer's results in rank order, as "rank folder/function". */
function ranked(text: string): string[] {
  const found: string[] = [];
  let file = '';
  for (const line of text.split('\n')) {
    const result = /^\[(\d+)\] \d+-\d+ (\w+) ·/.exec(line);
    if (result) found.push(`${result[1]} ${file.split('/')[0]}/${result[2]}`);
    else if (/^\S+\.ts$/.test(line)) file = line;
  }
  return found.sort((a, b) => Number(a.split(' ')[0]) - Number(b.split(' ')[0]));
}

test('pages of the language model tool over two folders neither repeat nor skip a result', async () => {
  const folders = [folder('alpha', 6), folder('beta', 6)];
  assert.ok((await client.request({ type: 'open', folders })).ok);
  for (const spec of folders) assert.ok((await client.request({ type: 'sync', folder: spec.id })).ok);
  const ask = async (offset: number, limit: number) => {
    const answer = await client.request({ type: 'agentSearch', query: 'retry backoff', options: { limit, offset }, budgetBytes: 16_000, explain: false });
    assert.ok(answer.ok);
    return answer.value.text;
  };

  const whole = ranked(await ask(0, 12));
  assert.equal(whole.length, 12);
  assert.ok(whole.some((r) => r.includes('alpha/')) && whole.some((r) => r.includes('beta/')), 'both folders answer');

  const first = await ask(0, 4);
  assert.match(first, /^4 results in 4 files \(12 candidates matched\); offset 4 for the next\.\n/);
  const second = await ask(4, 4);
  assert.match(second, /^Results 5–8 in 4 files \(12 candidates matched\); offset 8 for the next\.\n/);
  const third = await ask(8, 4);
  assert.match(third, /^Results 9–12 in 4 files\.\n/, 'the last page names no next one');
  assert.deepEqual([...ranked(first), ...ranked(second), ...ranked(third)], whole, 'the pages read as the one answer of twelve');
  assert.match(await ask(12, 4), /^No results after the first 12\.\n/);
});
