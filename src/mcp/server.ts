// `fused-search mcp`: the index as an MCP server over stdio, for coding agents. Six tools:
// search (bounded, honest text: see src/core/agent-output.ts), locate (an issue or a stack trace
// to ranked files: src/core/locate.ts), index_status, reindex (a path or everything, cancellable),
// read_chunk and read_range (src/core/read-range.ts). Stdout carries the protocol, so every diagnostic goes
// to stderr. A bad argument or a failed call is a tool error (isError) with a sentence an agent
// can act on; the server itself keeps running.

import path from 'node:path';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod/v4';
import packageJson from '../../package.json' with { type: 'json' };
import { formatForAgent } from '../core/agent-output.ts';
import { DEFAULT_LOCATE_LIMIT, locate } from '../core/locate.ts';
import { formatLocateForAgent } from '../core/locate-output.ts';
import {
  AGENT_LOCATE_INPUT,
  AGENT_SEARCH_INPUT,
  DEFAULT_AGENT_BUDGET_BYTES,
  DEFAULT_SEARCH_OPTIONS,
  MIN_AGENT_BUDGET_BYTES,
  filtersFor,
} from '../core/options.ts';
import type { IndexKeeper } from '../core/index-keeper.ts';
import { linesWithin, readRange, textLines } from '../core/read-range.ts';
import { agentText, NOTICE_MAX_BYTES, redactedText, redactForAgent, redactionNotice, redactResults } from '../core/redact.ts';
import type { SearchResponse } from '../core/types.ts';
import { IndexService, isDirectory, relativeToRoot, type IndexServiceOptions } from './index-service.ts';

export interface McpServerOptions extends IndexServiceOptions {
  /** Default byte budget of a search answer (DEFAULT_AGENT_BUDGET_BYTES). */
  budgetBytes?: number;
}

/**
 * The search tool's text for a search's response: secrets redacted from what the formatter is
 * given, and once more from what it made, within `budgetBytes`.
 */
export function searchAnswerText(keeper: IndexKeeper, query: string, response: SearchResponse, budgetBytes: number, explain = false): string {
  return agentText(
    budgetBytes,
    (budget) =>
      formatForAgent(
        query,
        { ...response, results: redactResults(response.results, (result) => keeper.chunk(result.chunkId)?.text) },
        { budgetBytes: budget, chunkText: (id) => redactedText(keeper.chunk(id)?.text), explain },
      ).text,
  ).text;
}

export function createMcpServer(service: IndexService, options: { budgetBytes?: number } = {}): McpServer {
  const defaultBudget = options.budgetBytes ?? DEFAULT_AGENT_BUDGET_BYTES;
  const server = new McpServer({ name: 'fused-search', version: packageJson.version });
  const budget = AGENT_SEARCH_INPUT.budget_bytes.describe(`Most UTF-8 bytes of text to return (default ${defaultBudget}).`);

  server.registerTool(
    'search',
    {
      title: 'Search the workspace index',
      description:
        'Full-text search over the indexed folder (stemmed words and substrings fused, typos corrected). ' +
        'Returns compact results, ' +
        "grouped by file: each result's line range, symbol and chunk id, then its signature and the lines that matched, numbered as in the file, within a byte budget; " +
        'below the third result, only a line that holds much of the query is printed, and otherwise the location alone. ' +
        'A test ranks below code that matches as well, unless the query asks for tests (with "test" or "spec"). ' +
        'It names the query words no file holds in any form: ask again in the words the code would use. ' +
        'Use read_chunk with the chunk id for a whole chunk, read_range for any lines of a file, and the offset the answer names for the next results.',
      inputSchema: {
        ...AGENT_SEARCH_INPUT,
        limit: AGENT_SEARCH_INPUT.limit.describe(`Results wanted (default ${DEFAULT_SEARCH_OPTIONS.limit}).`),
        budget_bytes: budget,
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async ({ query, limit, offset, path: globs, kind, explain, budget_bytes }) => {
      const response = await service.keeper.search(query, { ...(limit ? { limit } : {}), ...(offset ? { offset } : {}), filters: filtersFor(globs, kind) });
      return text(searchAnswerText(service.keeper, query, response, budget_bytes ?? defaultBudget, explain ?? false));
    },
  );

  server.registerTool(
    'locate',
    {
      title: 'Locate the code an issue or a stack trace is about',
      description:
        'Give it an issue text, an error message or a stack trace as pasted; it reads the frames, links to files, paths, names, error classes and quoted messages ' +
        'and answers the files to look at, best first, each with why it is there (the frame, the definition, the verbatim message, the search hits) ' +
        "and its best chunks' line ranges (startLine-endLine, for read_range) and chunk ids (for read_chunk), within a byte budget.",
      inputSchema: {
        ...AGENT_LOCATE_INPUT,
        limit: AGENT_LOCATE_INPUT.limit.describe(`Files wanted (default ${DEFAULT_LOCATE_LIMIT}).`),
        budget_bytes: budget,
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async ({ text: pasted, limit, budget_bytes }) => {
      const answer = await locate(service.keeper, pasted, limit ? { limit } : {});
      // Its reasons quote the source (a verbatim message, a definition): redacted like search.
      return text(agentText(budget_bytes ?? defaultBudget, (budgetBytes) => formatLocateForAgent(answer, { budgetBytes }).text).text);
    },
  );

  server.registerTool(
    'index_status',
    {
      title: 'Index status',
      description:
        'Files and chunks indexed, last update, files changed on disk since, indexing progress, and whether this server or another process (the VS Code extension) keeps the index.',
      inputSchema: {},
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async () => text(JSON.stringify(await service.status(), null, 1)),
  );

  server.registerTool(
    'reindex',
    {
      title: 'Reindex',
      description:
        'Brings the index up to date: one file or folder (path, relative to the root) or everything (no path; only changed files are read). ' +
        'Waits until done and reports what changed. Cancel the call to stop, or pass cancel: true to stop a run in progress.',
      inputSchema: {
        path: z.string().min(1).optional().describe('A file or folder relative to the indexed root; omit for everything.'),
        cancel: z.boolean().optional().describe('Stop the indexing run in progress instead of starting one.'),
      },
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    async ({ path: given, cancel }, extra) => {
      if (cancel)
        return text(
          (await service.keeper.cancelSync()) ? 'Cancelled the indexing run in progress; what was indexed so far stays.' : 'No indexing run was in progress.',
        );
      const { keeper } = service;
      const root = keeper.root;
      if (keeper.role !== 'owner') {
        return text(
          `The index is kept by ${keeper.keptBy ?? 'another process'}, which watches the folder and indexes changes itself; this server reads that index.`,
        );
      }
      if (given !== undefined) {
        const relPath = relativeToRoot(root, given);
        if (relPath === undefined) return error(`"${given}" is outside the indexed folder ${root}.`);
        if (relPath !== '' && !isDirectory(path.join(root, relPath))) {
          const outcome = await keeper.reindexFile(relPath);
          const said = typeof outcome === 'string' ? outcome : `skipped (${outcome.skipped})`;
          return text(`${relPath}: ${said}.${outcome === 'ignored' ? ' The file does not exist or the ignore rules exclude it.' : ''}`);
        }
      }
      // A folder or everything: a sync reads only what changed, so it is the cheapest correct answer for both.
      const token = extra._meta?.progressToken;
      const summary = await keeper.sync({
        signal: extra.signal,
        ...(token !== undefined
          ? {
              onProgress: (p) => {
                void extra
                  .sendNotification({
                    method: 'notifications/progress',
                    params: { progressToken: token, progress: p.filesDone, ...(p.phase === 'indexing' ? { total: p.filesFound } : {}), message: p.phase },
                  })
                  .catch(() => undefined);
              },
            }
          : {}),
      });
      if (!summary) return text(`The index is now kept by ${keeper.keptBy ?? 'another process'}, which indexes changes itself.`);
      const skipped = Object.entries(summary.skipped)
        .map(([reason, n]) => `${n} ${reason}`)
        .join(', ');
      return text(
        `${summary.complete ? 'Index up to date' : 'Indexing cancelled; what was indexed so far stays'}: ${summary.files} files, ${summary.chunks} chunks; ` +
          `${summary.added} added, ${summary.updated} updated, ${summary.removed} removed, ${summary.unchanged} unchanged` +
          `${skipped ? `; skipped ${skipped}` : ''} (${summary.seconds.toFixed(1)} s).`,
      );
    },
  );

  server.registerTool(
    'read_chunk',
    {
      title: 'Read a chunk',
      description:
        'The full text of one chunk (a function, class, section...) by the id a search result gave, with its path and line range; read_range gives the same lines numbered.',
      inputSchema: {
        id: z.number().int().positive().describe('The chunk id from a search result ("chunk 123").'),
        budget_bytes: budget,
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async ({ id, budget_bytes }) => {
      const stored = service.keeper.chunk(id);
      if (!stored) return error(`No chunk ${id}: its file changed or was removed since the search. Search again for fresh ids.`);
      const chunk = { ...stored, text: redactedText(stored.text)!, title: redactedText(stored.title)! };
      // The text as it is: numbered, as read_range prints it, a chunk costs a third more tokens
      // (400 of ESLint's, o200k_base). Over the budget it is cut at a whole line, as read_range cuts.
      const lines = textLines(chunk.text);
      const end = Math.min(chunk.endLine, chunk.startLine + lines.length - 1);
      const head = `${chunk.path}:${chunk.startLine}-${chunk.endLine} ${chunk.title} [${chunk.kind}, ${chunk.language}]\n`;
      const answer = agentText(budget_bytes ?? Math.max(defaultBudget, MIN_AGENT_BUDGET_BYTES), (limit) =>
        linesWithin(head, (line) => `${lines[line - chunk.startLine]!}\n`, chunk.startLine, end, limit),
      );
      return text(answer.text);
    },
  );

  server.registerTool(
    'read_range',
    {
      title: 'Read lines of a file',
      description:
        'Lines start_line to end_line (1-based, inclusive) of one indexed file, numbered like search excerpts: widen an excerpt without reading the whole file. ' +
        "Only files inside the root that the index's rules admit can be read.",
      inputSchema: {
        path: z.string().trim().min(1).describe('The file, relative to the indexed root, as search results name it.'),
        start_line: z.number().int().positive().describe('First line wanted (1-based).'),
        end_line: z.number().int().positive().describe('Last line wanted (inclusive); clamped to the end of the file.'),
        budget_bytes: budget,
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async ({ path: given, start_line, end_line, budget_bytes }) => {
      const { keeper } = service;
      const read = (budgetBytes: number) =>
        readRange(
          { root: keeper.root, isIndexable: (relPath) => keeper.isIndexable(relPath) },
          { path: given, startLine: start_line, endLine: end_line, budgetBytes },
        );
      const budgetBytes = budget_bytes ?? Math.max(defaultBudget, MIN_AGENT_BUDGET_BYTES);
      const answer = await read(budgetBytes);
      if (!answer.ok) return error(answer.message);
      // As agentText does, asynchronously: read again with room for the notice if something was redacted.
      let shown = redactForAgent(answer.text);
      if (shown.redacted > 0) {
        const again = await read(Math.max(MIN_AGENT_BUDGET_BYTES, budgetBytes - NOTICE_MAX_BYTES));
        if (again.ok) shown = redactForAgent(again.text);
      }
      return text(shown.text + redactionNotice(shown.redacted));
    },
  );

  return server;
}

/** Runs the server on stdin/stdout until the client disconnects. Resolves with the exit code. */
export async function runMcpServer(options: McpServerOptions): Promise<number> {
  const log = (line: string) => process.stderr.write(`fused-search mcp: ${line}\n`);
  const service = await IndexService.open({ ...options, log });
  for (const notice of service.keeper.notices) log(notice);
  const server = createMcpServer(service, options.budgetBytes !== undefined ? { budgetBytes: options.budgetBytes } : {});
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => {
    transport.onclose = () => resolve();
    process.stdin.once('end', () => resolve());
    process.once('SIGINT', () => resolve());
    process.once('SIGTERM', () => resolve());
  });
  await server.connect(transport);
  log(`serving ${service.keeper.root} (${service.keeper.role === 'owner' ? 'indexing and watching it' : 'reading the index another process keeps'})`);
  await closed;
  await server.close().catch(() => undefined);
  await service.close();
  return 0;
}

function text(body: string): CallToolResult {
  return { content: [{ type: 'text', text: body }] };
}

function error(message: string): CallToolResult {
  return { content: [{ type: 'text', text: message }], isError: true };
}
