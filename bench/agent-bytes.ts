// Context bytes an agent reads to find an answer: the MCP `search` tool (default budget) against
// reading the files that hold the answer. Runs the real server in-process over the SDK's in-memory
// transport, so the bytes counted are exactly what an agent would receive.
//
//   npx node bench/agent-bytes.ts [REPO_DIR] [--limit N] [--budget BYTES]
//   (default: the global npm CLI package, the tool's default limit 10 and budget 8 KB)
//
// Each question was answered by hand: the file and line range where the answer is (several ranges
// when the answer legitimately lives in more than one place; any one of them counts). For each, the
// table says the first result whose chunk range overlaps the answer lines ("rank"), whether those lines
// were printed in the answer's excerpts ("lines"), and the bytes of the answer vs of the files.

import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { DEFAULT_AGENT_BUDGET_BYTES, DEFAULT_SEARCH_OPTIONS } from '../src/core/options.ts';
import { IndexService } from '../src/mcp/index-service.ts';
import { createMcpServer } from '../src/mcp/server.ts';

interface Question {
  query: string;
  /** What the agent wants to know, for the reader of this file. */
  question: string;
  answers: Array<{ path: string; start: number; end: number }>;
}

const QUESTIONS: Question[] = [
  {
    question: 'What does npm ci say when there is no lockfile?',
    query: 'npm ci requires existing package-lock.json lockfileVersion',
    answers: [{ path: 'lib/commands/ci.js', start: 61, end: 71 }],
  },
  {
    question: 'When does npm ci delete node_modules?',
    query: 'ci remove node_modules before install',
    answers: [{ path: 'lib/commands/ci.js', start: 97, end: 107 }],
  },
  {
    question: 'How is an unsupported engine detected?',
    query: 'check engines node npm version EBADENGINE',
    answers: [{ path: 'node_modules/npm-install-checks/lib/index.js', start: 5, end: 23 }],
  },
  {
    question: 'How does semver satisfies work?',
    query: 'semver satisfies version range',
    answers: [{ path: 'node_modules/semver/functions/satisfies.js', start: 4, end: 11 }],
  },
  {
    question: 'How often does npm check for a newer version of itself?',
    query: 'update notifier check new npm version weekly daily',
    answers: [{ path: 'lib/cli/update-notifier.js', start: 69, end: 97 }],
  },
  {
    question: 'How are "did you mean" suggestions chosen?',
    query: 'did you mean suggestion mistyped command levenshtein distance',
    answers: [{ path: 'lib/utils/did-you-mean.js', start: 7, end: 25 }],
  },
  {
    question: 'Where is the default cache folder?',
    query: 'default cache directory location npm-cache',
    answers: [
      { path: 'node_modules/@npmcli/config/lib/definitions/definitions.js', start: 84, end: 86 },
      { path: 'node_modules/@npmcli/config/lib/definitions/definitions.js', start: 419, end: 428 },
      { path: 'docs/content/using-npm/config.md', start: 428, end: 433 },
    ],
  },
  {
    question: 'How many sockets per origin by default?',
    query: 'maxsockets maximum connections per origin default',
    answers: [{ path: 'node_modules/@npmcli/config/lib/definitions/definitions.js', start: 1449, end: 1459 }],
  },
  {
    question: 'Where does npx ask before installing packages?',
    query: 'npx prompt need to install the following packages ok to proceed',
    answers: [{ path: 'node_modules/libnpmexec/lib/index.js', start: 298, end: 309 }],
  },
  {
    question: 'Why does publish refuse a private package?',
    query: 'publish private package EPRIVATE',
    answers: [{ path: 'lib/commands/publish.js', start: 153, end: 158 }],
  },
  {
    question: 'Which package names are invalid because of their first character?',
    query: 'package name cannot start with period underscore',
    answers: [{ path: 'node_modules/validate-npm-package-name/lib/index.js', start: 33, end: 43 }],
  },
  {
    question: 'How does the registry client know a one-time password is needed?',
    query: 'one-time password otp 401 www-authenticate',
    answers: [{ path: 'node_modules/npm-registry-fetch/lib/check-response.js', start: 75, end: 88 }],
  },
  {
    question: 'What does npm print on an unsupported Node.js version?',
    query: 'npm does not support Node.js version message',
    answers: [{ path: 'lib/cli/validate-engines.js', start: 11, end: 13 }],
  },
  { question: 'How are byte counts formatted for humans?', query: 'format bytes kB MB', answers: [{ path: 'lib/utils/format-bytes.js', start: 4, end: 27 }] },
  {
    question: 'When is an integrity checksum mismatch raised?',
    query: 'integrity checksum failed EINTEGRITY',
    answers: [
      { path: 'node_modules/ssri/lib/index.js', start: 115, end: 118 },
      { path: 'node_modules/ssri/lib/index.js', start: 448, end: 456 },
    ],
  },
];

interface Printed {
  path: string;
  start: number;
  end: number;
  lines: Set<number>;
}

/** The results of the tool's text: each `N. path:a-b ...` header and the `   line: text` lines under it. */
function parseAnswer(text: string): Printed[] {
  const results: Printed[] = [];
  for (const line of text.split('\n')) {
    const head = /^\d+\. (\S+):(\d+)-(\d+) /.exec(line);
    if (head) {
      results.push({ path: head[1]!, start: Number(head[2]), end: Number(head[3]), lines: new Set() });
      continue;
    }
    const excerpt = /^ {3}(\d+): /.exec(line);
    if (excerpt && results.length > 0) results.at(-1)!.lines.add(Number(excerpt[1]));
  }
  return results;
}

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({ options: { limit: { type: 'string' }, budget: { type: 'string' } }, allowPositionals: true });
  const extra = { ...(values.limit ? { limit: Number(values.limit) } : {}), ...(values.budget ? { budget_bytes: Number(values.budget) } : {}) };
  const repo = path.resolve(positionals[0] ?? path.join(execFileSync('npm', ['root', '-g'], { encoding: 'utf8' }).trim(), 'npm'));
  const dbFile = path.join(os.tmpdir(), 'fused-search-bench', `${path.basename(repo)}-agent-bytes.db`);
  const service = await IndexService.open({ root: repo, dbFile, watch: false });
  const summary = (await service.keeper.sync())!;
  const server = createMcpServer(service);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'agent-bytes', version: '1.0.0' });
  await client.connect(clientSide);

  process.stdout.write(
    `${repo}: ${summary.files} files, ${summary.chunks} chunks; limit ${values.limit ?? DEFAULT_SEARCH_OPTIONS.limit}, budget ${values.budget ?? `default (${DEFAULT_AGENT_BUDGET_BYTES})`} bytes\n\n`,
  );
  const rows: string[][] = [['question', 'answer at', 'search B', 'files B', 'ratio', 'rank', 'lines']];
  let searchTotal = 0;
  let filesTotal = 0;
  let located = 0;
  let printed = 0;
  for (const q of QUESTIONS) {
    const result = (await client.callTool({ name: 'search', arguments: { query: q.query, ...extra } })) as CallToolResult;
    const text = result.content[0]?.type === 'text' ? result.content[0].text : '';
    const searchBytes = Buffer.byteLength(text);
    // Any one answer file suffices, so the fair comparison is the cheapest of them.
    const fileBytes = Math.min(...q.answers.map((a) => fs.statSync(path.join(repo, a.path)).size));
    const shown = parseAnswer(text);
    let rank = 0;
    let linesShown = 'no';
    shown.forEach((r, i) => {
      for (const a of q.answers) {
        if (r.path !== a.path || r.end < a.start || r.start > a.end) continue;
        if (!rank) rank = i + 1;
        let inside = 0;
        for (let line = a.start; line <= a.end; line++) if (r.lines.has(line)) inside++;
        const verdict = inside === a.end - a.start + 1 ? 'all' : inside > 0 ? 'part' : 'no';
        if (verdict === 'all' || (verdict === 'part' && linesShown === 'no')) linesShown = verdict;
      }
    });
    searchTotal += searchBytes;
    filesTotal += fileBytes;
    if (rank) located++;
    if (linesShown === 'all') printed++;
    const at = q.answers.map((a) => `${a.path.replace(/^node_modules\//, '…/')}:${a.start}-${a.end}`).join(' | ');
    rows.push([q.question, at, String(searchBytes), String(fileBytes), (fileBytes / searchBytes).toFixed(1), rank ? String(rank) : '-', linesShown]);
  }
  rows.push([
    'total',
    '',
    String(searchTotal),
    String(filesTotal),
    (filesTotal / searchTotal).toFixed(1),
    `${located}/${QUESTIONS.length}`,
    `${printed}/${QUESTIONS.length} all`,
  ]);
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => r[c]!.length)));
  const numeric = new Set([2, 3, 4, 5]);
  for (const [i, row] of rows.entries()) {
    process.stdout.write(`${row.map((cell, c) => (numeric.has(c) ? cell.padStart(widths[c]!) : cell.padEnd(widths[c]!))).join('  ')}\n`);
    if (i === 0 || i === rows.length - 2) process.stdout.write(`${widths.map((w) => '-'.repeat(w)).join('  ')}\n`);
  }
  process.stdout.write(
    "\nsearch B: bytes of the search tool's answer; files B: bytes of the smallest file holding the answer; ratio = files B / search B.\n" +
      "rank: first result whose chunk range overlaps the answer lines (- = none of the results); lines: whether the answer's lines were printed in that result's excerpt (all, part, no).\n",
  );
  await client.close();
  await server.close();
  await service.close();
}

await main();
