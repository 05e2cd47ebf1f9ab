// `npm run bench:embed-speed [-- --sample 1024]`
//
// Embedding throughput of the in-process providers on one core (each runs one thread), on real
// kernel chunks (kernel/ of Linux 6.1, as the index chunks it), in the lane's batches:
//
// - `static` (model2vec), the test fixtures' model: its cost is the tokenizer and a lookup, so
//   every chunk of the folder;
// - `onnx`, BERT encoders of all-MiniLM-L6-v2's and bge-small-en-v1.5's shapes with random
//   weights (bench/lib/bert-onnx.ts: a model's cost is its shape), on a seeded sample of the
//   chunks: a transformer takes minutes for what the static model does in seconds.
//
// Prints chunks/s and KB/s each, and the tokens a chunk averages (the onnx provider cuts a chunk
// at 512).

import path from 'node:path';
import { parseArgs } from 'node:util';
import { Engine } from '../src/core/engine.ts';
import { DEFAULT_BATCH_SIZE } from '../src/core/semantic/embedder.ts';
import { createEmbedder } from '../src/core/semantic/providers.ts';
import { loadTokenizer } from '../src/core/semantic/tokenizer.ts';
import { random } from '../test/unit/helpers/random.ts';
import { BERT_SHAPES, writeBertShapedModel } from './lib/bert-onnx.ts';
import { linuxTree } from './lib/corpora.ts';

const { values } = parseArgs({ options: { sample: { type: 'string', default: '1024' } } });
const OUT = path.resolve('bench/out');
const STATIC_MODEL = path.resolve('test/fixtures/model2vec/float32');

const engine = await Engine.open({ root: path.join(linuxTree(), 'kernel'), dbFile: path.join(OUT, 'embed-speed-kernel.db') });
await engine.sync();
const chunks = engine.store.db.prepare('SELECT title, text FROM chunks ORDER BY id').all() as Array<{ title: string; text: string }>;
engine.close();
// What the lane embeds of a chunk.
const texts = chunks.map((chunk) => `${chunk.title}\n${chunk.text}`);
const next = random(20261204);
const sample = texts
  .map((text) => ({ text, key: next() }))
  .sort((a, b) => a.key - b.key)
  .slice(0, Number(values.sample))
  .map(({ text }) => text);

const { tokenizer } = await loadTokenizer(STATIC_MODEL, 'the test tokenizer');
const tokensOf = (of: readonly string[]) =>
  of.reduce((sum, text) => sum + Math.min(512, tokenizer.encode(text, { add_special_tokens: true }).ids.length), 0) / of.length;

const rows: string[] = [];
async function measure(label: string, provider: 'static' | 'onnx', model: string, of: readonly string[]): Promise<void> {
  const embedder = await createEmbedder({ provider, model });
  // One batch first: onnxruntime plans its kernels on the first run.
  await embedder.embed(of.slice(0, DEFAULT_BATCH_SIZE));
  const started = performance.now();
  for (let i = 0; i < of.length; i += DEFAULT_BATCH_SIZE) await embedder.embed(of.slice(i, i + DEFAULT_BATCH_SIZE));
  const seconds = (performance.now() - started) / 1000;
  const kilobytes = of.reduce((sum, text) => sum + Buffer.byteLength(text), 0) / 2 ** 10;
  rows.push(
    `| ${label} | ${of.length.toLocaleString('en-US')} | ${tokensOf(of).toFixed(0)} | ${seconds.toFixed(1)} | **${(of.length / seconds).toFixed(1)}** | ${(kilobytes / seconds).toFixed(1)} |`,
  );
  process.stderr.write(`${rows.at(-1)}\n`);
}

await measure('static (model2vec test model), every chunk', 'static', STATIC_MODEL, texts);
for (const [name, shape] of Object.entries(BERT_SHAPES)) {
  const folder = path.join(OUT, 'bert-shaped', name);
  writeBertShapedModel(folder, shape);
  await measure(`onnx, ${name}'s shape (${shape.layers} layers, ${shape.hidden} wide), sample`, 'onnx', folder, sample);
}

console.log(`\nEmbedding throughput on one core: chunks of Linux 6.1's kernel/ (${texts.length.toLocaleString('en-US')}), batches of ${DEFAULT_BATCH_SIZE}\n`);
console.log('| provider and model | chunks | tokens a chunk | seconds | chunks/s | KB/s |');
console.log('|---|---|---|---|---|---|');
for (const row of rows) console.log(row);
