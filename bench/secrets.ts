// Secrets benchmark. Two questions:
//
// 1. Does any planted secret reach an agent? The corpus of test/unit/helpers/secret-corpus.ts (every
//    kind, in credential files the index keeps out and inside ordinary files) is indexed by a real
//    MCP server over stdio; every secret's start, the words around it and some generic words are
//    searched, every chunk is read, and the language model tool's text is asked for through the
//    extension's worker. Tools another branch adds (read_range, locate) are called too when the
//    server lists them. Per kind and tool: how many planted secrets came back (goal: none).
// 2. How often is an ordinary line redacted by mistake? The redactor runs over every line of every
//    file a default index would hold in real trees (the npm CLI package; the Linux 6.1 tree when
//    its tarball is installed), and prints each redacted line so a person can judge it.
//
// Run: npm run bench:secrets               (planted corpus + npm CLI + Linux if /usr/src has it)
//      npm run bench:secrets -- --trees npm   (skip Linux; --trees none: the planted corpus only)

import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { crawl, readTextFile } from '../src/core/crawl/index.ts';
import { INDEX_DIR } from '../src/core/indexer.ts';
import { resolveIndexOptions } from '../src/core/options.ts';
import { redactForAgent, redactText } from '../src/core/redact.ts';
import type { FolderSpec, RequestBody, RequestResult, RequestType } from '../src/protocol/worker.ts';
import { EngineClient } from '../src/worker/client.ts';
import { plantSecrets, tracesIntoSecrets, type PlantedSecret } from '../test/unit/helpers/secret-corpus.ts';
import { linuxTree } from './lib/linux-tree.ts';

const { values } = parseArgs({ options: { trees: { type: 'string', default: 'npm,linux' }, 'show-max': { type: 'string', default: '400' } } });
const trees = values.trees.split(',');
const showMax = Number(values['show-max']);
const CLI = path.resolve('src/cli/main.ts');
const WORKER = path.resolve('src/worker/worker.ts');

/** A planted secret reached an answer if the answer holds it whole or its last 12 characters (no probe does). */
const reached = (secret: PlantedSecret, text: string) => text.includes(secret.secret) || text.includes(secret.secret.slice(-12));

async function plantedLeaks(): Promise<void> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'fused-bench-secrets-'));
  const corpus = plantSecrets(root);
  const outputs = new Map<string, string[]>();
  const record = (tool: string, text: string) => outputs.set(tool, [...(outputs.get(tool) ?? []), text]);
  const queries = [...new Set(corpus.secrets.flatMap((s) => [s.probe, s.context, `${s.context} ${s.probe}`]))];
  queries.push('OPENSSH PRIVATE KEY', 'BEGIN PRIVATE KEY', 'password', 'token', 'secret key', 'AKIA', 'ghp', 'authToken', 'api key', 'credentials');

  const client = new Client({ name: 'fused-search-bench', version: '1.0.0' });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [CLI, 'mcp', '--root', root], stderr: 'ignore' }));
  const call = async (name: string, args: Record<string, unknown>) => {
    const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
    return result.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
  };
  await call('reindex', {});
  const status = JSON.parse(await call('index_status', {})) as { files: number; secretFiles: { count: number } };
  const { tools } = await client.listTools();
  const toolNames = new Set(tools.map((t) => t.name));
  for (const query of queries) record('search', await call('search', { query, limit: 20, budget_bytes: 16_000 }));
  for (let id = 1, misses = 0; misses < 20; id++) {
    const text = await call('read_chunk', { id });
    if (text.startsWith('No chunk')) misses++;
    else {
      misses = 0;
      record('read_chunk', text);
    }
  }
  // Tools other branches add: called with arguments filled in from their own input schemas.
  for (const tool of tools.filter((t) => t.name === 'read_range' || t.name === 'locate')) {
    const props = Object.keys(tool.inputSchema.properties ?? {});
    const files = [...new Set(corpus.secrets.map((s) => s.file)), ...corpus.ordinaryFiles];
    // locate prints the line a stack frame names: traces into each secret's line too.
    const inputs = tool.name === 'locate' ? [...queries, ...tracesIntoSecrets(root, corpus)].map((q) => ({ text: q })) : files.map((file) => ({ file }));
    for (const input of inputs) {
      const args: Record<string, unknown> = {};
      for (const prop of props) {
        if (/^(path|file)/i.test(prop) && 'file' in input) args[prop] = input.file;
        else if (/^(start|from|first)/i.test(prop)) args[prop] = 1;
        else if (/^(end|to|last)/i.test(prop)) args[prop] = 400;
        else if (/^(text|query|issue|input)/i.test(prop) && 'text' in input) args[prop] = input.text;
      }
      record(tool.name, await call(tool.name, args).catch((error: unknown) => String(error)));
    }
  }
  await client.close();

  const engine = new EngineClient(WORKER, { info() {}, warn() {}, error() {} });
  const request = async <T extends RequestType>(body: RequestBody<T>): Promise<RequestResult<T>> => {
    const result = await engine.request(body);
    if (!result.ok) throw new Error(result.error.message);
    return result.value;
  };
  const spec: FolderSpec = {
    id: 'file:///bench-secrets',
    name: 'bench-secrets',
    root,
    dbFile: path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'fused-bench-secrets-db-')), 'index.db'),
    index: resolveIndexOptions({ prepareThreads: 0 }),
  };
  await request({ type: 'open', folders: [spec] });
  await request({ type: 'sync', folder: spec.id });
  for (const query of queries)
    record('lm tool', (await request({ type: 'agentSearch', query, options: { limit: 20 }, budgetBytes: 16_000, explain: false })).text);
  await engine.stop();

  const columns = ['search', 'read_chunk', 'read_range', 'locate', 'lm tool'];
  console.log(
    `\nPlanted secrets: ${corpus.secrets.length} (${corpus.secrets.filter((s) => s.keptOut).length} in ${corpus.keptOutFiles.length} credential files kept out, the rest inside ordinary files)`,
  );
  console.log(
    `Index: ${status.files} files, ${status.secretFiles.count} kept out as secret; ${queries.length} queries, answers: ${columns.map((c) => `${c} ${outputs.get(c)?.length ?? 0}`).join(', ')}`,
  );
  console.log(`\n| kind | planted | ${columns.join(' | ')} |`);
  console.log(`|---|---:|${columns.map(() => '---:').join('|')}|`);
  const kinds = [...new Set(corpus.secrets.map((s) => s.kind))];
  const totals = new Map<string, number>();
  for (const kind of kinds) {
    const planted = corpus.secrets.filter((s) => s.kind === kind);
    const cells = columns.map((column) => {
      if (column !== 'lm tool' && column !== 'search' && column !== 'read_chunk' && !toolNames.has(column)) return 'n/a';
      const text = (outputs.get(column) ?? []).join('\n');
      const leaked = planted.filter((s) => reached(s, text)).length;
      totals.set(column, (totals.get(column) ?? 0) + leaked);
      return String(leaked);
    });
    console.log(`| ${kind} | ${planted.length} | ${cells.join(' | ')} |`);
  }
  console.log(`| **all** | ${corpus.secrets.length} | ${columns.map((c) => (totals.has(c) ? `**${totals.get(c)}**` : 'n/a')).join(' | ')} |`);
  const said = (outputs.get('search') ?? []).filter((t) => t.includes('looked like secrets')).length;
  console.log(`\nSearch answers that say something was redacted: ${said} of ${outputs.get('search')?.length ?? 0}.`);
  // What redaction adds to one answer: the final pass over the answer text, every answer 20 times.
  const answers = outputs.get('search') ?? [];
  const times: number[] = [];
  for (let round = 0; round < 20; round++) {
    for (const answer of answers) {
      const started = performance.now();
      redactForAgent(answer);
      times.push(performance.now() - started);
    }
  }
  times.sort((a, b) => a - b);
  const kb = answers.reduce((n, a) => n + Buffer.byteLength(a), 0) / answers.length / 1024;
  console.log(
    `Redacting one answer (mean ${kb.toFixed(1)} KB): median ${(times[times.length >> 1]! * 1000).toFixed(0)} µs, p95 ${(times[Math.floor(times.length * 0.95)]! * 1000).toFixed(0)} µs.`,
  );
  fs.rmSync(root, { recursive: true, force: true });
}

/** Every line of every file a default index of `root` would hold, through the redactor. */
async function falsePositives(name: string, root: string): Promise<void> {
  const options = resolveIndexOptions();
  let files = 0;
  let lines = 0;
  let bytes = 0;
  let redactedLines = 0;
  let ms = 0;
  const shown: string[] = [];
  const byKind = new Map<string, number>();
  const keptOut: string[] = [];
  /** 8 KB pieces of real files, the size of a default answer, to time redaction as one answer sees it. */
  const pieces: string[] = [];
  for await (const entry of crawl(root, { include: [], exclude: [`${INDEX_DIR}/`], maxFileBytes: options.maxFileBytes })) {
    if (entry.type === 'skip' && entry.reason === 'secret') keptOut.push(entry.relPath);
    if (entry.type !== 'file') continue;
    const read = await readTextFile(path.join(root, entry.file.relPath), options.maxFileBytes);
    if (!read.ok) continue;
    files++;
    if (read.text.length >= 8192 && pieces.length < 1000 && files % 7 === 0) pieces.push(read.text.slice(0, 8192));
    const started = performance.now();
    const out = redactText(read.text);
    ms += performance.now() - started;
    const original = read.text.split('\n');
    lines += original.length;
    bytes += Buffer.byteLength(read.text);
    if (out.lines === 0) continue;
    redactedLines += out.lines;
    for (const kind of out.kinds) byKind.set(kind, (byKind.get(kind) ?? 0) + 1);
    const after = out.text.split('\n');
    after.forEach((line, i) => {
      if (line !== original[i] && shown.length < showMax) shown.push(`  ${entry.file.relPath}:${i + 1}: ${original[i]!.trim().slice(0, 140)}`);
    });
  }
  console.log(`\n## ${name}: ${root}`);
  console.log(`${files.toLocaleString('en-US')} text files, ${lines.toLocaleString('en-US')} lines, ${(bytes / 1e6).toFixed(1)} MB`);
  console.log(
    `Kept out as credential files: ${keptOut.length}${keptOut.length > 0 ? ` (${keptOut.slice(0, 30).join(', ')}${keptOut.length > 30 ? ', …' : ''})` : ''}`,
  );
  console.log(
    `Redacted lines: ${redactedLines} of ${lines.toLocaleString('en-US')} = ${((redactedLines / lines) * 100_000).toFixed(2)} per 100,000 lines` +
      ` (files with a redaction, by kind: ${[...byKind].map(([k, n]) => `${k} ${n}`).join(', ') || 'none'})`,
  );
  console.log(`Redaction time: ${ms.toFixed(0)} ms = ${((ms * 1e6) / lines).toFixed(0)} ns a line, ${(bytes / 1e6 / (ms / 1000)).toFixed(0)} MB/s`);
  const times = pieces
    .map((piece) => {
      const started = performance.now();
      redactForAgent(piece);
      return performance.now() - started;
    })
    .sort((a, b) => a - b);
  if (times.length > 0) {
    console.log(
      `Redacting an 8 KB answer (${times.length} pieces of files): median ${(times[times.length >> 1]! * 1000).toFixed(0)} µs, p95 ${(times[Math.floor(times.length * 0.95)]! * 1000).toFixed(0)} µs`,
    );
  }
  if (shown.length > 0) console.log(`Redacted lines (as written in the file, first ${showMax}):\n${shown.join('\n')}`);
}

await plantedLeaks();
if (trees.includes('npm')) await falsePositives('npm CLI', path.join(execFileSync('npm', ['root', '-g'], { encoding: 'utf8' }).trim(), 'npm'));
if (trees.includes('linux')) {
  if (fs.existsSync('/usr/src/linux-source-6.1.tar.xz')) await falsePositives('Linux 6.1', linuxTree());
  else console.log('\nLinux 6.1: /usr/src/linux-source-6.1.tar.xz is missing (apt-get install linux-source-6.1); skipped.');
}
