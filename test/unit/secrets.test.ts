// No secret leaves through any tool by default. Credential files are kept out of the index (crawl,
// single-file updates, an index built before the rule), with their own skip reason and count;
// the opt-in lets them in. Secret-looking values in indexed files are redacted from every answer
// an agent gets: the MCP tools through the SDK's own client over stdio, and the language model
// tool's text through the extension's worker, both on a corpus of planted secrets.

import { spawnSync } from 'node:child_process';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { secretByPath } from '../../src/core/crawl/secret-files.ts';
import { IndexKeeper } from '../../src/core/index-keeper.ts';
import { agentText, redactResults, redactText } from '../../src/core/redact.ts';
import type { FolderSpec, RequestBody, RequestResult, RequestType } from '../../src/protocol/worker.ts';
import { EngineClient } from '../../src/worker/client.ts';
import { runScript, srcModule } from './helpers/child-script.ts';
import { random } from './helpers/random.ts';
import { plantSecrets, tracesIntoSecrets, type SecretCorpus } from './helpers/secret-corpus.ts';
import { tempDir } from './helpers/store.ts';

const CLI = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));
const WORKER = fileURLToPath(new URL('../../src/worker/worker.ts', import.meta.url));

/** Whether the index holds the file: a file with text has at least one chunk. */
const holds = (keeper: IndexKeeper, file: string) => keeper.chunksOfFile(file).length > 0;

/** Every planted secret that `text` gives away, whole or its last 12 characters (which no probe holds). */
function leaks(corpus: SecretCorpus, text: string): string[] {
  return corpus.secrets.filter((s) => text.includes(s.secret) || text.includes(s.secret.slice(-12))).map((s) => `${s.kind} from ${s.file}`);
}

describe('credential files', () => {
  test('are recognised by name, and templates and public keys are not', () => {
    for (const secret of [
      '.env',
      '.env.local',
      'app/.env.production',
      'prod.env',
      '.ssh/config',
      'home/.ssh/known_hosts',
      'id_rsa',
      'keys/id_ed25519',
      'tls.key',
      'server.pem',
      'cert.p12',
      'store.pfx',
      'app.keystore',
      'trust.jks',
      '.aws/credentials',
      '.git-credentials',
      'main.tfstate',
      'config/secrets.yml',
    ]) {
      assert.equal(secretByPath(secret), 'secret', secret);
    }
    for (const ordinary of [
      '.env.example',
      '.env.sample',
      '.env.template',
      '.env.dist',
      'id_rsa.pub',
      'src/env.ts',
      'keyboard.c',
      'src/token.ts',
      'environment.md',
    ]) {
      assert.equal(secretByPath(ordinary), undefined, ordinary);
    }
    for (const checked of ['.npmrc', 'pkg/.pypirc', '.netrc', '.docker/config.json', '.kube/config', 'credentials.json', 'ca.crt']) {
      assert.equal(secretByPath(checked), 'check-content', checked);
    }
  });

  test('are kept out of a sync with their own skip reason and counted in the stats and the status', async () => {
    const root = tempDir('fused-secret-sync-');
    const corpus = plantSecrets(root);
    const keeper = await IndexKeeper.open({ root, dbFile: path.join(tempDir('fused-secret-db-'), 'index.db'), kind: 'cli' });
    try {
      const summary = (await keeper.sync())!;
      assert.equal(summary.skipped.secret, corpus.keptOutFiles.length);
      assert.deepEqual(
        summary.skippedFiles
          .filter((f) => f.reason === 'secret')
          .map((f) => f.path)
          .sort(),
        corpus.keptOutFiles,
      );
      for (const file of corpus.keptOutFiles) assert.ok(!holds(keeper, file), `${file} is not indexed`);
      for (const file of corpus.ordinaryFiles) assert.ok(holds(keeper, file), `${file} is indexed`);
      assert.equal(keeper.stats().secretFiles.count, corpus.keptOutFiles.length);
      assert.deepEqual((await keeper.status()).secretFiles, keeper.stats().secretFiles);
    } finally {
      await keeper.close();
    }
  });

  test('are kept out of single-file updates, and an .npmrc is judged by what it holds', async () => {
    const root = tempDir('fused-secret-update-');
    fs.writeFileSync(path.join(root, 'app.ts'), 'export const region = "eu-west-1";\n');
    const keeper = await IndexKeeper.open({ root, dbFile: path.join(tempDir('fused-secret-db-'), 'index.db'), kind: 'cli' });
    try {
      await keeper.sync();
      fs.writeFileSync(path.join(root, '.env'), 'DB_PASSWORD=hunter2hunter2\n');
      assert.deepEqual(await keeper.reindexFile('.env'), { skipped: 'secret' });
      fs.writeFileSync(path.join(root, '.npmrc'), 'registry=https://registry.npmjs.org/\n');
      assert.equal(await keeper.reindexFile('.npmrc'), 'indexed');
      fs.writeFileSync(path.join(root, '.npmrc'), 'registry=https://registry.npmjs.org/\n//registry.npmjs.org/:_authToken=${NPM_TOKEN}\n');
      assert.deepEqual(await keeper.reindexFile('.npmrc'), { skipped: 'secret' });
      assert.ok(holds(keeper, 'app.ts'));
      assert.ok(!holds(keeper, '.npmrc'), 'the .npmrc that gained a token left the index');
      assert.ok(!holds(keeper, '.env'));
      assert.deepEqual(keeper.stats().secretFiles, { count: 2, examples: ['.env', '.npmrc'] });
      fs.rmSync(path.join(root, '.env'));
      await keeper.reindexFile('.env');
      assert.deepEqual(keeper.stats().secretFiles.examples, ['.npmrc'], 'a deleted secret file is no longer counted');
    } finally {
      await keeper.close();
    }
  });

  test('a symlink with an innocent name to a credential file is kept out too', async () => {
    const root = tempDir('fused-secret-link-');
    fs.writeFileSync(path.join(root, '.env'), 'API_TOKEN=abc\n');
    fs.symlinkSync('.env', path.join(root, 'settings.txt'));
    const keeper = await IndexKeeper.open({ root, dbFile: path.join(tempDir('fused-secret-db-'), 'index.db'), kind: 'cli' });
    try {
      const summary = (await keeper.sync())!;
      assert.equal(summary.skipped.secret, 2);
      assert.deepEqual(await keeper.reindexFile('settings.txt'), { skipped: 'secret' });
    } finally {
      await keeper.close();
    }
  });

  test('are indexed when the user opts in, and an index built that way drops them at the next sync without the opt-in', async () => {
    const root = tempDir('fused-secret-optin-');
    const corpus = plantSecrets(root);
    const dbFile = path.join(tempDir('fused-secret-db-'), 'index.db');
    const optedIn = await IndexKeeper.open({ root, dbFile, kind: 'cli', index: { indexSecretFiles: true } });
    try {
      const summary = (await optedIn.sync())!;
      assert.equal(summary.skipped.secret, undefined);
      for (const file of corpus.keptOutFiles) assert.ok(holds(optedIn, file), `${file} is indexed when opted in`);
    } finally {
      await optedIn.close();
    }
    // The same database opened as every host opens it by default, as an index from before the rule would be.
    const later = await IndexKeeper.open({ root, dbFile, kind: 'cli' });
    try {
      const summary = (await later.sync())!;
      assert.equal(summary.removed, corpus.keptOutFiles.length);
      for (const file of corpus.keptOutFiles) assert.ok(!holds(later, file), `${file} left the index`);
      const hits = await later.search('OPENSSH PRIVATE KEY');
      assert.ok(!hits.results.some((r) => r.path === '.ssh/id_rsa'));
    } finally {
      await later.close();
    }
  });
});

test('the CLI says which files it kept out, indexes them on request, and redacts what search prints', () => {
  const root = tempDir('fused-secret-cli-');
  const corpus = plantSecrets(root);
  const cli = (...args: string[]) => spawnSync(process.execPath, [CLI, ...args], { cwd: root, encoding: 'utf8' });
  const indexed = cli('index', '.');
  assert.equal(indexed.status, 0, indexed.stderr);
  assert.match(indexed.stdout, new RegExp(`Kept out ${corpus.keptOutFiles.length} files that may hold credentials \\(`));
  assert.match(cli('stats').stdout, /Kept out \d+ files that may hold credentials/);
  // A spawned CLI per query is slow: a few queries that between them reach every indexed secret.
  const queries = ['invoice pipeline', 'monthly subscription', 'replenish_threshold', 'storefront', 'webhook payloads', 'token password secret key'];
  const printed = queries.map((query) => cli('search', query, '--limit', '50').stdout + cli('search', query, '--limit', '50', '--json').stdout).join('\n');
  for (const secret of corpus.secrets.filter((s) => !s.keptOut)) assert.ok(printed.includes(secret.context), `the ${secret.kind}'s file was found`);
  assert.deepEqual(leaks(corpus, printed), []);
  assert.match(printed, /\[redacted: github token\]/);
  const optedIn = cli('index', '.', '--index-secret-files', '--json');
  assert.deepEqual((JSON.parse(optedIn.stdout) as { secretFiles: string[] }).secretFiles, []);
  assert.match(cli('search', 'OPENSSH PRIVATE KEY').stdout, /\.ssh\/id_rsa:/, 'opted in, the key file is found (its key block still redacted)');
});

describe('redaction', () => {
  test('keeps every line and the key name, and leaves placeholders, lookups and code alone', () => {
    const text = [
      'password = changeme',
      'password: ${DB_PASSWORD}',
      'const apiKey = process.env.API_KEY;',
      'token = strsep(&buf, ",");',
      'author = "Linus Torvalds"',
      'token_type = "bearer_token_v2"',
      'AWS_SECRET_ACCESS_KEY=Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MGFiY2RlZmdo',
    ].join('\n');
    const out = redactText(text);
    assert.equal(out.text.split('\n').length, 7);
    assert.deepEqual(out.text.split('\n').slice(0, 6), text.split('\n').slice(0, 6));
    assert.equal(out.text.split('\n')[6], 'AWS_SECRET_ACCESS_KEY=[redacted: aws secret key]');
    assert.equal(out.lines, 1);
  });

  test('redacts a private key block whole, every line, even when an excerpt starts inside it', () => {
    const next = random(7);
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
    const body = Array.from({ length: 4 }, () => Array.from({ length: 64 }, () => alphabet[Math.floor(next() * 64)]).join(''));
    const block = ['-----BEGIN RSA PRIVATE KEY-----', ...body, '-----END RSA PRIVATE KEY-----', 'after the key'].join('\n');
    const out = redactText(block).text.split('\n');
    assert.equal(out.length, 7);
    assert.match(out[0]!, /\[redacted: private key, 6 lines\]/);
    for (const line of body) assert.ok(!out.join('\n').includes(line));
    assert.equal(out[6], 'after the key');
    // A chunk or excerpt cut inside the block has no BEGIN line: its body lines still go.
    const inside = redactText(body.slice(1).join('\n'));
    assert.equal(inside.lines, 3);
    assert.deepEqual(inside.kinds, ['key material']);
  });

  test('a snippet cut inside a value, without the key name that marks it, is redacted from its chunk', () => {
    const chunk = 'warehouse:\n  client_secret: XNryMijc1afWLUUh9rvuJTcjY4wzxf5I\n  replenish_threshold: 40\n';
    const result = {
      snippet: '…ret: XNryMijc1afWLUUh9rvuJTcjY4wzxf5I replenish_threshold: 40',
      title: 'settings.yaml',
      matches: [[40, 59]] as Array<[number, number]>,
    };
    assert.equal(redactResults([result])[0]!.snippet, result.snippet, 'alone, the snippet does not say it holds a secret');
    const [redacted] = redactResults([result], () => chunk);
    assert.equal(redacted!.snippet, '…ret: [redacted: secret value] replenish_threshold: 40');
    assert.deepEqual(redacted!.matches, []);
  });

  test('a megabyte-long run of word characters (a hex blob) is redacted at once, and a secret after it still is', () => {
    // The assignment pattern read such a run to its end from each of its characters: quadratic,
    // minutes at a megabyte. A child process, so that a hang fails the test instead of stalling the suite.
    const script = [
      `import { redactText } from ${srcModule('core/redact.ts')};`,
      `const line = 'const keyHex = "' + '0f'.repeat(512 * 1024) + '"; const apiKey = "Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MGFi";';`,
      'process.stdout.write(redactText(line).text.slice(-60));',
    ].join('\n');
    const run = runScript(script, { timeoutMs: 30_000 });
    assert.equal(run.error, undefined, 'redacted within 30 s');
    assert.match(run.stdout, /const apiKey = "\[redacted: secret value\]";$/);
  });

  test('an answer that shows a redacted value says so and stays within its budget', () => {
    const line = `3: export const TOKEN = 'ghp_${'a1B2c3D4e5'.repeat(4)}';\n`;
    const answer = agentText(600, (budget) => `1 result in 1 file.\n${line.repeat(Math.floor(budget / line.length))}`);
    assert.ok(Buffer.byteLength(answer.text) <= 600);
    assert.ok(answer.redacted > 0);
    assert.match(answer.text, /values? redacted: (it|they) looked like secrets/);
    assert.ok(!answer.text.includes('ghp_a1B2'));
    const plain = agentText(600, () => 'nothing secret here\n');
    assert.equal(plain.text, 'nothing secret here\n');
  });
});

describe('no planted secret reaches an agent', () => {
  let root: string;
  let corpus: SecretCorpus;
  let client: Client;

  const call = async (name: string, args: Record<string, unknown>) => {
    const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
    return result.content[0]?.type === 'text' ? result.content[0].text : '';
  };

  before(async () => {
    root = tempDir('fused-secret-mcp-');
    corpus = plantSecrets(root);
    const transport = new StdioClientTransport({ command: process.execPath, args: [CLI, 'mcp', '--root', root], stderr: 'ignore' });
    client = new Client({ name: 'fused-search-test', version: '1.0.0' });
    await client.connect(transport);
    assert.match(await call('reindex', {}), /Index up to date/);
  });

  after(async () => {
    await client?.close();
  });

  test('index_status counts the credential files kept out', async () => {
    const status = JSON.parse(await call('index_status', {})) as { secretFiles: { count: number; examples: string[] } };
    assert.equal(status.secretFiles.count, corpus.keptOutFiles.length);
  });

  test('through search and read_chunk over MCP, whatever is searched and read', async () => {
    const answers: string[] = [];
    const chunkIds = new Set<number>();
    const queries = [...new Set(corpus.secrets.flatMap((s) => [s.probe, s.context, `${s.context} ${s.probe}`]))];
    queries.push('OPENSSH PRIVATE KEY', 'BEGIN PRIVATE KEY', 'password', 'token', 'secret key', 'AKIA', 'ghp', 'authToken');
    for (const query of queries) {
      const answer = await call('search', { query, limit: 20, budget_bytes: 16_000 });
      answers.push(answer);
      for (const [, id] of answer.matchAll(/chunk (\d+)\]/g)) chunkIds.add(Number(id));
    }
    // Every chunk of the index, not only those searches returned: ids are dense from 1.
    for (let id = 1, misses = 0; misses < 20; id++) {
      const text = await call('read_chunk', { id });
      if (text.startsWith('No chunk')) misses++;
      else {
        misses = 0;
        chunkIds.delete(id);
        answers.push(text);
      }
    }
    assert.equal(chunkIds.size, 0, 'every chunk id a search gave was read');
    // Every file, credential files included, through read_range; every query, and a trace into each secret's line, through locate.
    for (const file of [...new Set(corpus.secrets.map((s) => s.file)), ...corpus.ordinaryFiles, '.ssh/config']) {
      const range = await call('read_range', { path: file, start_line: 1, end_line: 400 });
      if (corpus.keptOutFiles.includes(file)) assert.match(range, /excluded by the index's rules/, `${file} is not read`);
      answers.push(range);
    }
    // A frame's line is printed as the source reads: traces pointing at each secret's line too.
    for (const text of [...queries, ...tracesIntoSecrets(root, corpus)]) answers.push(await call('locate', { text }));
    const all = answers.join('\n');
    assert.deepEqual(leaks(corpus, all), []);
    for (const file of corpus.keptOutFiles) {
      // A search result's heading (`1. path:3-5`) or a chunk's (`path:3-5`) starts a line.
      const heading = new RegExp(`(?:^|\\n)(?:\\d+\\. )?${file.replace(/[.]/g, '\\.')}:\\d`);
      assert.doesNotMatch(all, heading, `${file} never appears as a result`);
    }

    // Redacted, not hidden: the answers say so, and the code around each secret still comes back.
    assert.match(all, /redacted: (it|they) looked like secrets/);
    for (const secret of corpus.secrets.filter((s) => !s.keptOut)) {
      assert.ok(all.includes(secret.context), `"${secret.context}" around the ${secret.kind} comes back`);
    }
    for (const kept of ['GITHUB_TOKEN', 'STRIPE_KEY', 'db_password', 'client_secret', 'testSigningKey', 'charge_subscription', 'VerifyWebhook']) {
      assert.ok(all.includes(kept), `${kept} is shown`);
    }
    assert.match(all, /GITHUB_TOKEN = '\[redacted: github token\]'/);
  });

  test("through the language model tool's text, as the extension's worker answers it", async () => {
    const engine = new EngineClient(WORKER, { info() {}, warn() {}, error() {} });
    const request = async <T extends RequestType>(body: RequestBody<T>): Promise<RequestResult<T>> => {
      const result = await engine.request(body);
      if (!result.ok) throw new Error(result.error.message);
      return result.value;
    };
    try {
      const spec: FolderSpec = {
        id: 'file:///secrets',
        name: 'secrets',
        root,
        dbFile: path.join(tempDir('fused-secret-worker-'), 'index.db'),
        index: { include: [], exclude: [], maxFileBytes: 1 << 20, chunkMaxBytes: 4096, indexSecretFiles: false },
      };
      await request({ type: 'open', folders: [spec] });
      await request({ type: 'sync', folder: spec.id });
      const texts: string[] = [];
      for (const query of new Set(corpus.secrets.flatMap((s) => [s.probe, s.context]))) {
        const answer = await request({ type: 'agentSearch', query, options: { limit: 20 }, budgetBytes: 16_000, explain: false });
        assert.ok(answer.bytes <= 16_000);
        texts.push(answer.text);
      }
      const all = texts.join('\n');
      assert.deepEqual(leaks(corpus, all), []);
      assert.match(all, /redacted: (it|they) looked like secrets/);
      assert.ok(all.includes('charge_subscription'));
    } finally {
      await engine.stop();
    }
  });
});
