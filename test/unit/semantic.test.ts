// The semantic lane with real models: USE-lite behind a local server that speaks Ollama's and
// OpenAI's protocols (helpers/embedding-server.ts), and model2vec's published test models for the
// in-process `static` loader. What a user notices: a question that shares no word with the code
// finds it, every result says what the lane did, and a slow, missing or broken model never costs
// a lexical answer or a stored vector.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import { promisify } from 'node:util';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { formatForAgent } from '../../src/core/agent-output.ts';
import { describeAsText } from '../../src/core/describe.ts';
import { Engine } from '../../src/core/engine.ts';
import { IndexKeeper } from '../../src/core/index-keeper.ts';
import type { FolderSpec } from '../../src/protocol/worker.ts';
import { EngineClient } from '../../src/worker/client.ts';
import type { EmbedderConfig } from '../../src/core/semantic/embedder.ts';
import type { SearchResponse } from '../../src/core/types.ts';
import { SemanticLane, type EmbedProgress } from '../../src/core/semantic/lane.ts';
import { createEmbedder } from '../../src/core/semantic/providers.ts';
import { loadTokenizer } from '../../src/core/semantic/tokenizer.ts';
import { IndexStore } from '../../src/core/store/store.ts';
import { UserActivity } from '../../src/core/user-activity.ts';
import { VectorStore } from '../../src/core/store/vectors.ts';
import { startEmbeddingServer, type EmbeddingServer } from './helpers/embedding-server.ts';
import { expectedVector, writeOnnxModel } from './helpers/onnx-model.ts';
import { random } from './helpers/random.ts';
import { treeMaker } from './helpers/temp-tree.ts';
import { eventually } from './helpers/eventually.ts';

const FIXTURES = fileURLToPath(new URL('../fixtures/model2vec/', import.meta.url));
const CLI = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));
const makeTree = treeMaker('fused-semantic-');

// None of the concept query's words is in any file, stemmed or not. USE-lite is a small model:
// it ranks the rate limiter first for this phrasing (cosine 0.23 against 0.20 for the deploy notes).
const WORKSPACE = {
  'src/rate_limit.ts': [
    '/** Rate limiting: each client may make at most `perSecond` calls a second; extra calls are refused until the bucket refills. */',
    'export function rateLimit(bucket: { tokens: number; perSecond: number }): boolean {',
    '  if (bucket.tokens <= 0) return false;',
    '  bucket.tokens -= 1;',
    '  return true;',
    '}',
    '',
  ].join('\n'),
  'src/chart.ts': [
    '/** Draws the legend of a bar chart, one coloured swatch per series. */',
    'export function drawLegend(series: string[], colours: string[]): string {',
    '  return series.map((name, i) => `<span style="color:${colours[i]}">${name}</span>`).join(\'\');',
    '}',
    '',
  ].join('\n'),
  'docs/deploy.md': '# Deploying\n\nRoll the cluster one node at a time and watch the dashboards.\n',
  'src/csv.ts':
    "/** Splits one line of a comma-separated file into its fields. */\nexport function splitFields(line: string): string[] {\n  return line.split(',');\n}\n",
};
const CONCEPT_QUERY = 'how is traffic throttled';

let server: EmbeddingServer;
before(async () => {
  server = await startEmbeddingServer();
});
after(async () => {
  await server.close();
});

const engines: Engine[] = [];
after(() => {
  for (const engine of engines) engine.close();
});

async function indexed(files: Record<string, string>, embedding: EmbedderConfig): Promise<Engine> {
  const engine = await Engine.open({ root: makeTree(files), embedding });
  engines.push(engine);
  await engine.sync();
  return engine;
}

function ollama(extra: Partial<EmbedderConfig> = {}): EmbedderConfig {
  return { provider: 'ollama', model: 'use-lite', endpoint: server.url, ...extra };
}

function vectorRows(engine: Engine): Array<{ model: string; hash: Buffer; bytes: number }> {
  return engine.store.db.prepare('SELECT model, hash, length(vector) AS bytes FROM vectors').all() as Array<{ model: string; hash: Buffer; bytes: number }>;
}

/** Every chunk's content has exactly one vector of `model`, and no vector belongs to no chunk. */
function assertIntact(engine: Engine, model: string): void {
  const db = engine.store.db;
  const missing = db
    .prepare(
      'SELECT count(*) FROM chunks c LEFT JOIN chunk_hashes h ON h.chunk_id = c.id LEFT JOIN vectors v ON v.hash = h.hash AND v.model = ? WHERE v.hash IS NULL',
    )
    .pluck()
    .get(model);
  const orphans = db.prepare('SELECT count(*) FROM vectors v WHERE NOT EXISTS (SELECT 1 FROM chunk_hashes h WHERE h.hash = v.hash)').pluck().get();
  assert.equal(missing, 0, 'every chunk has a vector');
  assert.equal(orphans, 0, 'no vector outlives its chunks');
}

test('a question that shares no word with the code finds it through an Ollama model, and the result says how', async () => {
  const engine = await indexed(WORKSPACE, ollama());
  const lexicalOnly = await engine.search(CONCEPT_QUERY);
  assert.deepEqual(lexicalOnly.results, [], 'before embedding, no list finds it: the words are not there');

  const outcome = await engine.embedPending();
  assert.equal(outcome?.failed, undefined);
  assert.equal(outcome?.embedded, engine.stats().chunks);
  assertIntact(engine, 'ollama:use-lite');

  const answer = await engine.search(CONCEPT_QUERY);
  const top = answer.results[0];
  assert.equal(top?.path, 'src/rate_limit.ts');
  assert.equal(top.stage, 'semantic');
  assert.equal(top.explain.semantic?.rank, 1);
  assert.ok(top.explain.semantic.cosine > 0.2, `cosine ${top.explain.semantic.cosine}`);
  assert.deepEqual(answer.semantic, { model: 'ollama:use-lite' });
  assert.match(describeAsText(top).join('\n'), /Semantic: #1 · cosine 0\.\d{3} · rrf \+0\.\d{4}/);
  assert.match(describeAsText(top).join('\n'), /Stage: semantic/);
});

test('an embedding pass rests between batches while the user types, says so, and still embeds every chunk', async () => {
  // Enough one-chunk batches that the pass works for longer than a span the pace lets go unrested.
  const notes = Object.fromEntries(Array.from({ length: 24 }, (_, i) => [`notes/${i}.md`, `# Note ${i}\n\nThe meeting moved to room ${i}.\n`]));
  const engine = await indexed({ ...WORKSPACE, ...notes }, ollama({ batchSize: 1 }));
  const activity = new UserActivity();
  activity.noteActive();
  const typing = setInterval(() => activity.noteActive(), 50);
  const reports: EmbedProgress[] = [];
  try {
    const outcome = await engine.embedPending({ activity, onProgress: (progress) => reports.push(progress) });
    assert.equal(outcome?.embedded, engine.stats().chunks);
  } finally {
    clearInterval(typing);
  }
  assert.ok(reports.some((progress) => progress.resting));
  assert.equal(reports.at(-1)?.resting, undefined, 'the last report is not a rest');
  assertIntact(engine, 'ollama:use-lite');
});

test('a chunk both lists find keeps its lexical stage, with the semantic rank beside Porter and trigram', async () => {
  const engine = await indexed(WORKSPACE, ollama());
  await engine.embedPending();
  const top = (await engine.search('bar chart legend colours')).results[0];
  assert.equal(top?.path, 'src/chart.ts');
  assert.notEqual(top.stage, 'semantic');
  assert.ok(top.explain.porter && top.explain.semantic, 'found by words and by meaning');
  const lines = describeAsText(top);
  assert.ok(lines.some((line) => line.startsWith('Porter: #1')) && lines.some((line) => line.startsWith('Semantic: #')), lines.join('\n'));
});

// Enough chunks for the lane to tell whether its nearest stands out (semanticStandout): 36 small
// functions on unrelated tasks, and the rate limiter.
const TASKS = [
  'Parses a date written as year-month-day',
  'Sorts the rows of a table by one column',
  'Renders a markdown heading as HTML',
  'Reads the user settings file from disk',
  'Computes the checksum of a downloaded archive',
  'Formats a price with its currency symbol',
  'Resizes an image to fit a thumbnail',
  'Sends a welcome email to a new account',
  'Converts temperatures from Celsius to Fahrenheit',
  'Counts the words in a paragraph',
  'Merges two sorted arrays into one',
  'Opens a websocket to the chat server',
  'Validates a postal address form',
  'Draws a pie chart of monthly sales',
  'Compresses log files older than a week',
  'Generates a random password of given length',
  'Looks up a city by its airport code',
  'Plays a notification sound',
  'Translates interface strings to French',
  'Schedules a backup every night at two',
  'Detects the language of a text',
  'Rounds a number to two decimals',
  'Builds the sitemap of the website',
  'Encrypts a message with a public key',
  'Shuffles a deck of playing cards',
  'Measures the distance between two coordinates',
  'Exports the spreadsheet as CSV',
  'Highlights syntax in a code block',
  'Checks whether a year is a leap year',
  'Uploads a file to cloud storage',
  'Paginates search results',
  'Calculates the tax of an invoice',
  'Tracks the reading position in an ebook',
  'Converts a colour from RGB to HSL',
  'Reverses the words of a sentence',
  'Parses command line arguments',
];
const MANY_TASKS = {
  'src/rate_limit.ts': WORKSPACE['src/rate_limit.ts'],
  ...Object.fromEntries(
    TASKS.map((task, i) => [`src/task${i}.ts`, `/** ${task}. */\nexport function task${i}(input: string): string {\n  return input;\n}\n`]),
  ),
};

test('a query the model sees nothing particular in is answered by the word lists alone, and says why; one it does is fused', async () => {
  const engine = await indexed(MANY_TASKS, ollama());
  await engine.embedPending();
  const ranking = (answer: SearchResponse) => answer.results.map((result) => `${result.path} ${result.stage}`);

  // Every task returns its input: USE-lite's cosines for this query are alike across them.
  const quiet = await engine.search('return input');
  assert.match(
    quiet.semantic?.skipped ?? '',
    /^no chunk stood out by meaning \(the nearest is [0-2]\.\d standard deviations above the mean of the 37 nearest, under 3\)$/,
  );
  assert.ok(quiet.results.length > 0 && quiet.results.every((result) => !result.explain.semantic), 'no result carries a semantic part');
  assert.deepEqual(ranking(quiet), ranking(await engine.search('return input', { stages: { semantic: false } })), 'the word lists rank as they do alone');
  const fusedAnyway = await engine.search('return input', { semanticStandout: 0 });
  assert.notDeepEqual(ranking(fusedAnyway), ranking(quiet), 'fused, the noise reorders what the words ranked');

  const particular = await engine.search('tokens bucket');
  assert.deepEqual(particular.semantic, { model: 'ollama:use-lite' });
  assert.equal(particular.results[0]?.path, 'src/rate_limit.ts');
  assert.ok(particular.results[0].explain.semantic, 'the semantic rank is in its explanation');
});

test('"find similar" fuses the chunk\'s neighbours by meaning even when none of them stands out', async () => {
  const keeper = await IndexKeeper.open({ root: makeTree(MANY_TASKS), kind: 'mcp', embedding: ollama() });
  try {
    await keeper.sync();
    await keeper.embed();
    // The tasks share their template, so a task's nearest neighbours are all about as near.
    const task = keeper.chunksOfFile('src/task26.ts')[0]!;
    const similar = await keeper.similar(task.id, { limit: 5 });
    assert.ok(similar);
    assert.equal(similar.response.semantic?.skipped, undefined);
    assert.ok(
      similar.response.results.some((result) => result.explain.semantic),
      "the chunk's neighbours by meaning are in the answer",
    );
  } finally {
    await keeper.close();
  }
});

test('an OpenAI-compatible endpoint with a key works, and a refused key is named without the key and costs no lexical answer', async () => {
  server.behaviour.apiKey = 'sk-test-right-key';
  try {
    const engine = await indexed(WORKSPACE, { provider: 'openai', model: 'use-lite', endpoint: `${server.url}/v1`, apiKey: 'sk-test-right-key' });
    assert.equal((await engine.embedPending())?.failed, undefined);
    assert.equal((await engine.search(CONCEPT_QUERY)).results[0]?.path, 'src/rate_limit.ts');

    const refused = await indexed(WORKSPACE, { provider: 'openai', model: 'use-lite', endpoint: `${server.url}/v1`, apiKey: 'sk-test-wrong-key' });
    const outcome = await refused.embedPending();
    assert.match(outcome?.failed ?? '', /refused the API key \(HTTP 401/);
    assert.doesNotMatch(outcome?.failed ?? '', /sk-test-wrong-key/, 'the key is never in a message');
    assert.equal(vectorRows(refused).length, 0);
    const answer = await refused.search('bar chart legend');
    assert.equal(answer.results[0]?.path, 'src/chart.ts', 'lexical search answers as before');
    assert.match(answer.semantic?.skipped ?? '', /refused the API key/);
    // An agent is told too, in the answer's text.
    assert.match(
      formatForAgent('bar chart legend', answer).text,
      /\nSemantic list skipped \(openai:use-lite\): .*refused the API key.*; results are from the lexical lists\.\n/,
    );
  } finally {
    delete server.behaviour.apiKey;
  }
});

test('an unchanged chunk is never embedded twice: not on a second pass, not after a rename; a save re-embeds only what changed', async () => {
  const engine = await indexed(WORKSPACE, ollama());
  await engine.embedPending();
  const asked = () => server.requests.flat().length;
  let before = asked();
  assert.equal((await engine.embedPending())?.embedded, 0);
  assert.equal(asked(), before);

  fs.renameSync(path.join(engine.root, 'src/csv.ts'), path.join(engine.root, 'src/fields.ts'));
  await engine.sync();
  assert.equal((await engine.embedPending())?.embedded, 0, 'the renamed file keeps its vectors');
  assert.equal(asked(), before);
  assertIntact(engine, 'ollama:use-lite');

  before = asked();
  fs.appendFileSync(path.join(engine.root, 'docs/deploy.md'), '\n## Holidays\n\nOn public holidays the office is closed and nobody answers the phone.\n');
  await engine.updateFile('docs/deploy.md');
  const saved = await engine.embedPending();
  assert.equal(saved?.embedded, 1, 'only the new section is embedded');
  assert.equal(asked() - before, 1);
  const found = (await engine.search('office closed on public holidays')).results[0];
  assert.equal(found?.path, 'docs/deploy.md');
  assert.match(found.title, /Holidays/);
  assert.ok(found.explain.semantic, 'the new section is in the semantic list');
  assertIntact(engine, 'ollama:use-lite');
});

test('an embedding pass stopped midway resumes where it stopped, with no duplicate and no orphan vector', async () => {
  const engine = await indexed(WORKSPACE, ollama({ batchSize: 1 }));
  const stop = new AbortController();
  const first = await engine.embedPending({ signal: stop.signal, onProgress: ({ done }) => done === 2 && stop.abort() });
  assert.equal(first?.embedded, 2);
  assert.equal(vectorRows(engine).length, 2);
  const before = server.requests.length;
  const rest = await engine.embedPending();
  assert.equal(rest?.embedded, engine.stats().chunks - 2, 'only the missing ones');
  assert.equal(server.requests.length - before, engine.stats().chunks - 2);
  assertIntact(engine, 'ollama:use-lite');
  assert.equal(new Set(vectorRows(engine).map((row) => row.hash.toString('hex'))).size, vectorRows(engine).length);

  fs.rmSync(path.join(engine.root, 'src/chart.ts'));
  await engine.sync();
  await engine.embedPending();
  assertIntact(engine, 'ollama:use-lite');
});

test('an index of an older schema version is rebuilt and keeps its vectors: nothing unchanged is embedded again, and it answers by meaning', async () => {
  const engine = await indexed(WORKSPACE, ollama());
  await engine.embedPending();
  const { root, store } = engine;
  const dbFile = store.dbFile;
  const embedded = vectorRows(engine).length;
  engine.close();
  const old = new Database(dbFile);
  old.pragma('user_version = 3');
  old.close();

  const before = server.requests.length;
  const upgraded = await Engine.open({ root, dbFile, embedding: { asIndexed: true } });
  engines.push(upgraded);
  assert.match(upgraded.notices.join('\n'), /moved to .* and is being rebuilt: its schema version is 3/);
  assert.match(upgraded.notices.join('\n'), new RegExp(`Kept ${embedded} vectors of the previous index`));
  await upgraded.sync();
  assert.equal((await upgraded.embedPending())?.embedded, 0, 'every chunk found its vector again');
  assert.equal(server.requests.length - before, 0, 'the model was not asked for any chunk');
  assertIntact(upgraded, 'ollama:use-lite');
  const response = await upgraded.search(CONCEPT_QUERY);
  assert.equal(response.semantic?.model, 'ollama:use-lite', 'the recorded model was kept with its vectors');
  assert.equal(response.results[0]?.path, 'src/rate_limit.ts');
});

test('a model switch never mixes vectors: the new model answers with its own, and the old ones go once it covers the index', async () => {
  const engine = await indexed(WORKSPACE, ollama());
  await engine.embedPending();
  await engine.useEmbedding(ollama({ model: 'use-lite-v2' }));
  const meanwhile = await engine.search(CONCEPT_QUERY);
  assert.ok(
    meanwhile.results.every((result) => !result.explain.semantic),
    'no result of the old model is served as the new one',
  );
  assert.equal(meanwhile.semantic?.model, 'ollama:use-lite-v2');
  await engine.embedPending();
  assert.deepEqual([...new Set(vectorRows(engine).map((row) => row.model))], ['ollama:use-lite-v2']);
  assert.equal((await engine.search(CONCEPT_QUERY)).results[0]?.path, 'src/rate_limit.ts');
});

test('an endpoint that is down, slow, rate limiting, or answering wrong vectors: a clear sentence, lexical answers, nothing stored wrong', async () => {
  // Rate limited twice, then fine: the pass retries and finishes.
  server.behaviour.failWith = { status: 429, failures: 2 };
  const engine = await indexed(WORKSPACE, ollama());
  assert.equal((await engine.embedPending())?.failed, undefined);
  assertIntact(engine, 'ollama:use-lite');

  // Wrong dimensions and NaN: the pass stops, stores nothing of that batch, and says why.
  for (const [behaviour, message] of [
    [{ truncateTo: 100 }, /vector of 100 dimensions where 512 were expected/],
    [{ nan: true }, /not all numbers/],
  ] as const) {
    Object.assign(server.behaviour, behaviour);
    const broken = await indexed(WORKSPACE, ollama({ dimensions: 512 }));
    const outcome = await broken.embedPending();
    assert.match(outcome?.failed ?? '', message);
    assert.equal(vectorRows(broken).length, 0);
    assert.equal((await broken.search('bar chart legend')).results[0]?.path, 'src/chart.ts');
    delete server.behaviour.truncateTo;
    delete server.behaviour.nan;
  }

  // Slow: the query waits its budget, then the lexical lists answer and the response says why.
  server.behaviour.delayMs = 2_000;
  const slowStarted = performance.now();
  const slow = await engine.search('bar chart legend');
  delete server.behaviour.delayMs;
  assert.ok(performance.now() - slowStarted < 1_500, 'the search did not wait for the model');
  assert.equal(slow.results[0]?.path, 'src/chart.ts');
  assert.match(slow.semantic?.skipped ?? '', /did not answer within 300 ms/);
  // Headers at once, the body late: still slow, not broken, so the next query asks the model again.
  server.behaviour.slowBodyMs = 2_000;
  assert.match((await engine.search('legend of a chart')).semantic?.skipped ?? '', /did not answer within 300 ms/);
  delete server.behaviour.slowBodyMs;
  const recovered = await engine.search('colours of the series');
  assert.equal(recovered.semantic?.skipped, undefined, 'a slow answer is no failure to wait out');

  // Down: the same, with the reason.
  const down = await startEmbeddingServer();
  await down.close();
  const orphaned = await indexed(WORKSPACE, { provider: 'ollama', model: 'use-lite', endpoint: down.url });
  assert.match((await orphaned.embedPending())?.failed ?? '', /cannot be reached \(ECONNREFUSED\): is it running\?/);
  const answer = await orphaned.search('bar chart legend');
  assert.equal(answer.results[0]?.path, 'src/chart.ts');
  assert.match(answer.semantic?.skipped ?? '', /cannot be reached/);
});

test('a model folder that is missing or broken: every search says so and answers lexically', async () => {
  const missing = await indexed(WORKSPACE, { provider: 'static', model: path.join(FIXTURES, 'no-such-model') });
  assert.equal(missing.embedPending(), undefined, 'no lane to run');
  const answer = await missing.search('bar chart legend');
  assert.equal(answer.results[0]?.path, 'src/chart.ts');
  assert.match(answer.semantic?.skipped ?? '', /no readable model\.safetensors \(ENOENT\)/);

  const brokenFolder = makeTree({ 'model.safetensors': 'not a model', 'tokenizer.json': '{}' });
  const broken = await indexed(WORKSPACE, { provider: 'static', model: brokenFolder });
  assert.match((await broken.search('bar chart legend')).semantic?.skipped ?? '', /is not a safetensors file/);
});

test('the static loader reproduces model2vec: the published vectors of its test models, plain and vocabulary-quantised', async () => {
  const expected = (name: string) => (JSON.parse(fs.readFileSync(path.join(FIXTURES, name), 'utf8')) as number[][])[0]!;
  const long = Array.from({ length: 1000 }, () => 'hello').join(' ');
  const plain = await createEmbedder({ provider: 'static', model: path.join(FIXTURES, 'float32') });
  const quantised = await createEmbedder({ provider: 'static', model: path.join(FIXTURES, 'vocab-quantized') });
  for (const [embedder, text, fixture] of [
    [plain, 'hello world', 'embeddings_short.json'],
    [plain, long, 'embeddings_long.json'],
    [quantised, long, 'embeddings_vocab_quantized.json'],
  ] as const) {
    const [vector] = await embedder.embed([text]);
    const want = expected(fixture);
    assert.equal(vector?.length, want.length, fixture);
    want.forEach((value, i) => assert.ok(Math.abs(vector[i]! - value) <= 1e-5 * Math.max(1, Math.abs(value)), `${fixture}[${i}]: ${vector[i]} vs ${value}`));
  }
  assert.match(plain.modelId, /^static:float32@2$/);
});

test('the CLI embeds after indexing, and later searches use the model the index remembers, with the semantic rank in --explain', async () => {
  const root = makeTree(WORKSPACE);
  // Asynchronously: the embedding server answers from this process.
  const run = (args: string[]) => promisify(execFile)(process.execPath, [CLI, ...args], { cwd: root, encoding: 'utf8' });
  const indexed = await run(['index', '.', '--json', '--embed', 'ollama', '--embed-model', 'use-lite', '--embed-endpoint', server.url]);
  const summary = JSON.parse(indexed.stdout) as { chunks: number; embedded: number };
  assert.equal(summary.embedded, summary.chunks);

  const found = await run(['search', CONCEPT_QUERY, '--explain', '--limit', '3']);
  assert.match(found.stdout, /^ 1 {2}src\/rate_limit\.ts:1-\d+ +semantic +rateLimit$/m);
  assert.match(found.stdout, /Semantic: #1 · cosine 0\.\d{3}/);
  assert.equal(found.stderr, '');

  // The model gone: the same search answers lexically and says why on stderr.
  const closed = await startEmbeddingServer();
  await closed.close();
  const gone = await run(['search', 'bar chart legend', '--embed', 'ollama', '--embed-model', 'use-lite', '--embed-endpoint', closed.url]);
  assert.match(gone.stdout, /^ 1 {2}src\/chart\.ts:1-4 +rrf/m);
  assert.match(gone.stderr, /the semantic list was skipped \(ollama:use-lite\): .*cannot be reached/);
});

test('the keeper embeds on its own after a sync and a save, and "find similar" uses the chunk\'s vector', async () => {
  const keeper = await IndexKeeper.open({ root: makeTree(WORKSPACE), kind: 'mcp', embedding: ollama() });
  try {
    const passes: number[] = [];
    keeper.onEvent((event) => event.type === 'embedding' && event.progress.done === event.progress.total && passes.push(event.progress.total));
    await keeper.sync();
    // The pass the sync started in the background; embed() joins it rather than starting another.
    await keeper.embed();
    assert.equal(keeper.stats().semantic?.embedded, keeper.stats().chunks);

    fs.writeFileSync(
      path.join(keeper.root, 'src/retry.ts'),
      '/** Waits longer after each failed attempt before trying again. */\nexport function backoff(attempt: number): number {\n  return 2 ** attempt;\n}\n',
    );
    await keeper.applyChanges(['src/retry.ts']);
    await keeper.embed();
    assert.equal(keeper.stats().semantic?.embedded, keeper.stats().chunks, 'the saved file was embedded without being asked');
    assert.ok(passes.length >= 2, `passes: ${passes.join(', ')}`);

    const rateLimit = keeper.chunksOfFile('src/rate_limit.ts')[0]!;
    const similar = await keeper.similar(rateLimit.id, { limit: 3 });
    assert.ok(similar && similar.response.results.length > 0);
    assert.ok(
      similar.response.results.every((result) => result.chunkId !== rateLimit.id),
      'the chunk itself is left out',
    );
    assert.ok(
      similar.response.results.some((result) => result.explain.semantic),
      "the chunk's neighbours by meaning are in the answer",
    );
  } finally {
    await keeper.close();
  }
});

test("the extension's engine worker takes the model in a folder's spec, reports the embedding pass, and answers by meaning", async () => {
  const client = new EngineClient(fileURLToPath(new URL('../../src/worker/worker.ts', import.meta.url)), { info() {}, warn() {}, error() {} });
  try {
    const folder: FolderSpec = {
      id: 'file:///semantic',
      name: 'semantic',
      root: makeTree(WORKSPACE),
      dbFile: path.join(makeTree({}), 'index.db'),
      index: { include: [], exclude: [], maxFileBytes: 1 << 20, chunkMaxBytes: 4096 },
      embedding: ollama(),
    };
    const finished = new Promise<void>((resolve) =>
      client.onEvent((event) => event.type === 'embedding' && event.progress.done === event.progress.total && event.progress.total > 0 && resolve()),
    );
    assert.ok((await client.request({ type: 'open', folders: [folder] })).ok);
    assert.ok((await client.request({ type: 'sync', folder: folder.id })).ok);
    await finished;
    const answer = await client.request({ type: 'search', query: CONCEPT_QUERY, options: {} });
    assert.ok(answer.ok);
    assert.equal(answer.value.results[0]?.path, 'src/rate_limit.ts');
    assert.equal(answer.value.results[0]?.stage, 'semantic');
    assert.deepEqual(answer.value.semantic, { model: 'ollama:use-lite' });
    const stats = await client.request({ type: 'stats' });
    assert.ok(stats.ok);
    assert.deepEqual(stats.value[0]?.semantic, { model: 'ollama:use-lite', embedded: stats.value[0]?.chunks });
    // A spec the worker cannot use is refused as a bad request, not half-applied.
    const refused = await client.request({ type: 'open', folders: [{ ...folder, embedding: { provider: 'word2vec', model: 'x' } as never }] });
    assert.equal(refused.ok, false);
  } finally {
    await client.stop();
  }
});

test('the onnx loader pools as the model folder says, padding and all: its vectors match an independent computation', async () => {
  const { tokenizer } = await loadTokenizer(path.join(FIXTURES, 'float32'), 'the fixture');
  // More texts than the provider runs at once, of lengths out of order: it runs them in groups of
  // similar lengths, and each vector must come back to its text.
  const texts = [
    'hello world',
    'a much longer sentence, so that the shorter ones in the batch are padded',
    'retry',
    ...Array.from({ length: 9 }, (_, i) => `sentence ${i} ${'with more words '.repeat((i * 5) % 7)}`),
  ];
  for (const pooling of ['mean', 'cls'] as const) {
    const folder = makeTree({});
    const model = writeOnnxModel(folder, { pooling });
    const embedder = await createEmbedder({ provider: 'onnx', model: folder });
    const batch = await embedder.embed(texts);
    const alone = await embedder.embed([texts[0]!]);
    texts.forEach((text, i) => {
      const want = expectedVector(model, tokenizer.encode(text, { add_special_tokens: true }).ids, pooling);
      want.forEach((value, d) => assert.ok(Math.abs(batch[i]![d]! - value) < 1e-5, `${pooling} "${text}"[${d}]: ${batch[i]![d]} vs ${value}`));
    });
    assert.deepEqual([...alone[0]!], [...batch[0]!], `${pooling}: a text's vector does not depend on its batch`);
    // onnxruntime's telemetry is off: it would leave a session file and a log in the temp folder.
    assert.ok(!fs.existsSync(path.join(os.tmpdir(), `mat-debug-${process.pid}.log`)) && !fs.existsSync(path.join(os.tmpdir(), '.ses')), 'no telemetry files');
    assert.match(embedder.modelId, /^onnx:/);
  }
  await assert.rejects(createEmbedder({ provider: 'onnx', model: makeTree({ 'tokenizer.json': '{}' }) }), /has no model\.onnx/);
  await assert.rejects(
    createEmbedder({
      provider: 'onnx',
      model: makeTree({ 'model.onnx': 'not a model', 'tokenizer.json': fs.readFileSync(path.join(FIXTURES, 'float32/tokenizer.json'), 'utf8') }),
    }),
    /model\.onnx cannot be loaded/,
  );
});

test('a model that fails when the index is built is asked again later, and the keeper embeds once it answers', async () => {
  server.behaviour.apiKey = 'sk-not-sent';
  const keeper = await IndexKeeper.open({ root: makeTree(WORKSPACE), kind: 'mcp', embedding: ollama(), embedRetryMs: 100 });
  try {
    const logs: string[] = [];
    keeper.onEvent((event) => event.type === 'log' && logs.push(event.message));
    await keeper.sync();
    assert.match((await keeper.embed())?.failed ?? '', /refused the API key/);
    assert.equal(keeper.stats().semantic?.embedded, 0);
    assert.match(keeper.stats().semantic?.problem ?? '', /refused the API key/);
    delete server.behaviour.apiKey;
    await eventually(() => keeper.stats().semantic?.embedded === keeper.stats().chunks, 10_000);
    assert.equal(keeper.stats().semantic?.embedded, keeper.stats().chunks, 'embedded by a retry nobody asked for');
    assert.ok(
      logs.some((line) => /trying again in \d+ s/.test(line)),
      logs.join('\n'),
    );
    assert.equal(keeper.stats().semantic?.problem, undefined, 'the failure is forgotten once a pass succeeds');
  } finally {
    delete server.behaviour.apiKey;
    await keeper.close();
  }
});

/** A fresh index whose vector tables hold `vectors` as the contents of chunks 1…n, under `model`. */
function storeWithVectors(model: string, vectors: readonly Float32Array[]): IndexStore {
  const store = new IndexStore(path.join(makeTree({}), 'index.db'));
  new VectorStore(store).ensureSchema();
  const rows = vectors.map((vector, i) => ({ id: i + 1, hash: Buffer.from(String(i).padStart(16, '0')), vector }));
  const insert = store.db.prepare('INSERT INTO chunk_hashes (chunk_id, hash) VALUES (?, ?)');
  for (const row of rows) insert.run(row.id, row.hash);
  new VectorStore(store).put(model, rows);
  return store;
}

function unitVector(values: ArrayLike<number>): Float32Array {
  const vector = Float32Array.from(values);
  const norm = Math.hypot(...vector);
  return vector.map((x) => x / norm);
}

/** The `limit` ids (1-based rows) nearest `query` by an exact scan, with their cosines. */
function exactNearest(vectors: readonly Float32Array[], query: Float32Array, limit: number): Array<{ id: number; cosine: number }> {
  return vectors
    .map((vector, i) => ({ id: i + 1, cosine: vector.reduce((sum, x, d) => sum + x * query[d]!, 0) }))
    .sort((a, b) => b.cosine - a.cosine)
    .slice(0, limit);
}

test('the int8 scan with its float32 rescore returns what an exact scan returns, over more vectors than it rescores', () => {
  const next = random(11);
  const unit = () => unitVector(Array.from({ length: 32 }, () => next() * 2 - 1));
  const rows = Array.from({ length: 3_000 }, unit);
  const store = storeWithVectors('test@32', rows);
  try {
    const vectors = new VectorStore(store);
    for (let q = 0; q < 5; q++) {
      const query = unit();
      const exact = exactNearest(rows, query, 50);
      const found = vectors.nearest('test@32', query, 50)!;
      assert.deepEqual(
        found.map((row) => row.id),
        exact.map((row) => row.id),
      );
      found.forEach((row, i) => assert.ok(Math.abs(row.cosine - exact[i]!.cosine) < 1e-5));
    }
  } finally {
    store.close();
  }
});

test('a copy too big to read inside a search but small enough to scan whole is read in steps, then searched exactly', async () => {
  const next = random(12);
  const unit = () => unitVector(Array.from({ length: 32 }, () => next() * 2 - 1));
  const rows = Array.from({ length: 3_000 }, unit);
  const store = storeWithVectors('test@32', rows);
  try {
    const vectors = new VectorStore(store, { readInStepsFromRows: 1 });
    const query = unit();
    assert.equal(vectors.nearest('test@32', query, 20), undefined, 'the search does not wait for the read');
    await vectors.load('test@32');
    assert.deepEqual(
      vectors.nearest('test@32', query, 20)!.map((row) => row.id),
      exactNearest(rows, query, 20).map((row) => row.id),
    );
  } finally {
    store.close();
  }
});

/** Options that make a small copy stand for a large tree's: partitioned, and read in steps. */
const BIG = { partitionFromValues: 1, readInStepsFromRows: 1 };

/** 8,000 vectors of 32 dimensions around 40 topics, as embeddings of a tree's chunks cluster. */
function clusteredVectors(seed: number): Float32Array[] {
  const next = random(seed);
  const gauss = () => Math.sqrt(-2 * Math.log(next() + 1e-12)) * Math.cos(2 * Math.PI * next());
  const topics = Array.from({ length: 40 }, () => Array.from({ length: 32 }, gauss));
  return Array.from({ length: 8_000 }, () => unitVector(topics[Math.floor(next() * topics.length)]!.map((x) => x + 0.5 * gauss())));
}

test('a big index: its vectors are read and partitioned between searches, which then scan the cells near the query and find what an exact scan finds', async () => {
  const rows = clusteredVectors(5);
  const store = storeWithVectors('test@32', rows);
  try {
    const vectors = new VectorStore(store, BIG);
    const next = random(6);
    const queries = Array.from({ length: 20 }, () => unitVector(rows[Math.floor(next() * rows.length)]!.map((x) => x + 0.05 * (next() - 0.5))));
    assert.equal(vectors.nearest('test@32', queries[0]!, 10), undefined, 'the first search does not wait for the read');
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(vectors.nearest('test@32', queries[0]!, 10), undefined, 'searches between the steps do not wait either');
    assert.ok(vectors.loadingShare('test@32')! > 0, 'the read reports its progress');
    await vectors.load('test@32');
    assert.equal(vectors.loadingShare('test@32'), undefined);

    let found = 0;
    for (const query of queries) {
      const exact = exactNearest(rows, query, 10);
      const near = vectors.nearest('test@32', query, 10)!;
      found += near.filter((row) => exact.some((e) => e.id === row.id)).length;
      // Whatever it finds carries its exact cosine, from the stored float32 vector.
      for (const row of near) assert.ok(Math.abs(row.cosine - rows[row.id - 1]!.reduce((sum, x, d) => sum + x * query[d]!, 0)) < 1e-5);
    }
    assert.ok(found / (queries.length * 10) >= 0.9, `recall@10 ${found / (queries.length * 10)}`);
  } finally {
    store.close();
  }
});

test('a big index answers from the vectors it read while new ones arrive, and finds the new ones once it reads them again', async () => {
  const rows = clusteredVectors(8);
  const store = storeWithVectors('test@32', rows);
  try {
    const vectors = new VectorStore(store, BIG);
    await vectors.load('test@32');
    const next = random(9);
    const query = unitVector(Array.from({ length: 32 }, () => next() * 2 - 1));
    const hash = Buffer.from('a-new-chunk-hash');
    store.db.prepare('INSERT INTO chunk_hashes (chunk_id, hash) VALUES (?, ?)').run(rows.length + 1, hash);
    vectors.put('test@32', [{ hash, vector: query }]);
    const meanwhile = vectors.nearest('test@32', query, 5);
    assert.ok(meanwhile && meanwhile.length === 5, 'the copy read before answers');
    assert.ok(!meanwhile.some((row) => row.id === rows.length + 1), 'without the vector that arrived since');
    const until = Date.now() + 20_000;
    let latest = meanwhile;
    while (latest[0]?.id !== rows.length + 1 && Date.now() < until) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      latest = vectors.nearest('test@32', query, 5) ?? latest;
    }
    assert.equal(latest[0]?.id, rows.length + 1, 'read again, the new vector is the nearest');
    assert.ok(Math.abs(latest[0].cosine - 1) < 1e-5);
  } finally {
    store.close();
  }
});

test('while a big index reads its vectors, the lane says so and the search goes on without it; then it answers', async () => {
  const engine = await indexed(WORKSPACE, { provider: 'static', model: path.join(FIXTURES, 'float32') });
  await engine.embedPending();
  const lane = new SemanticLane(await createEmbedder({ provider: 'static', model: path.join(FIXTURES, 'float32') }), new VectorStore(engine.store, BIG));
  const first = await lane.nearest('rate limiting of calls', 5);
  assert.ok('skipped' in first && /being read into memory \(\d+%\)/.test(first.skipped), JSON.stringify(first));
  await lane.prepare();
  const ready = await lane.nearest('rate limiting of calls', 5);
  assert.ok('rows' in ready && ready.rows.length > 0, JSON.stringify(ready));
});
