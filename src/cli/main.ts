// `fused-search`: the engine from a terminal. Human-readable by default, `--json` for scripts,
// a one-line message on stderr and a non-zero exit status for a usage error or a missing index.

import fs from 'node:fs';
import path from 'node:path';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import type { z } from 'zod/v4';
import { formatForAgent } from '../core/agent-output.ts';
import { partialNote } from '../core/describe.ts';
import { Engine } from '../core/engine.ts';
import { IndexKeeper } from '../core/index-keeper.ts';
import { INDEX_DIR } from '../core/indexer.ts';
import { loadBeir } from '../core/eval/beir.ts';
import { evaluate } from '../core/eval/run.ts';
import { locate } from '../core/locate.ts';
import {
  AGENT_LOCATE_INPUT,
  AGENT_SEARCH_INPUT,
  DEFAULT_AGENT_BUDGET_BYTES,
  INDEX_OPTION_SCHEMAS,
  SEARCH_OPTION_SCHEMAS,
  EMBEDDING_OPTION_SCHEMAS,
  filtersFor,
} from '../core/options.ts';
import { EMBED_API_KEY_ENV } from '../core/semantic/embedder.ts';
import type { EmbedOutcome } from '../core/semantic/lane.ts';
import { agentText, redactedText, redactForAgent, redactResults } from '../core/redact.ts';
import { answerNotes, formatEval, formatLocate, formatResults, formatStats, formatSummary } from './format.ts';
import { ProgressBar } from './progress.ts';
import { errorMessage } from '../core/error-message.ts';

const USAGE = `fused-search — fused full-text search over a folder

Usage:
  fused-search index [DIR] [--db FILE] [--include GLOB]... [--exclude GLOB]... [--max-file-bytes N] [--chunk-bytes N] [--threads N] [--index-secret-files] [--wait] [--json] [EMBEDDING]
  fused-search search QUERY [--db FILE] [--limit N] [--offset N] [--path GLOB]... [--kind code|prose] [--fuzzy MODE] [--explain] [--json | --agent [--budget BYTES]] [EMBEDDING]
  fused-search locate [TEXT] [--file FILE] [--db FILE] [--limit N] [--json]   files to look at for an issue, an error or a stack trace
  fused-search stats [--db FILE] [--json]
  fused-search eval DATASET_DIR [--split test] [--queries FILE] [--json]
  fused-search mcp [--root DIR | --db FILE] [--budget BYTES] [--index-secret-files]   MCP server over stdio, for coding agents

Without --db, the index lives in DIR/${INDEX_DIR}/index.db; search and stats look for it in the
current folder and its parents. search --offset N skips the first N results, for the next page;
--path keeps the results whose path matches one of its globs, and --path '!GLOB' leaves out those
that match GLOB.
locate reads the text from --file, or from stdin when no TEXT is given and stdin is not a terminal.
While another process keeps the index up to date (a VS Code window, an MCP server), index exits
with status 3 and says which; --wait waits for it to let go. --threads sets how many threads read
and chunk files beside the one that writes the index (0: that one does it all; default: 1 when
there is a second CPU).

EMBEDDING turns on the semantic lane, a third list of the chunks nearest the query's meaning:
  --embed ollama|openai|static|onnx --embed-model NAME|DIR [--embed-endpoint URL] [--embed-dimensions N] [--embed-batch N]
index embeds after indexing (only chunks whose text has no vector yet) and the index remembers the
model, so later searches and the MCP server use it without these flags. An OpenAI-compatible
endpoint's key is read from ${EMBED_API_KEY_ENV}.

Files that hold credentials (.env, private keys, .ssh/, .aws/credentials, an .npmrc with a token, ...)
are not indexed unless --index-secret-files is given; search and locate output redacts secret-looking values.`;

class UsageError extends Error {}

/** `index` found the index kept by another process (a VS Code window, an MCP server) and did not wait. */
const EXIT_KEPT_ELSEWHERE = 3;

const OPTIONS = {
  db: { type: 'string' },
  root: { type: 'string' },
  budget: { type: 'string' },
  json: { type: 'boolean', default: false },
  agent: { type: 'boolean', default: false },
  wait: { type: 'boolean', default: false },
  explain: { type: 'boolean', default: false },
  limit: { type: 'string' },
  offset: { type: 'string' },
  path: { type: 'string', multiple: true },
  kind: { type: 'string' },
  fuzzy: { type: 'string' },
  include: { type: 'string', multiple: true },
  exclude: { type: 'string', multiple: true },
  'max-file-bytes': { type: 'string' },
  'chunk-bytes': { type: 'string' },
  threads: { type: 'string' },
  'index-secret-files': { type: 'boolean', default: false },
  split: { type: 'string', default: 'test' },
  queries: { type: 'string' },
  file: { type: 'string' },
  embed: { type: 'string' },
  'embed-model': { type: 'string' },
  'embed-endpoint': { type: 'string' },
  'embed-dimensions': { type: 'string' },
  'embed-batch': { type: 'string' },
  help: { type: 'boolean', short: 'h', default: false },
} satisfies ParseArgsConfig['options'];

async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
  const [command, ...rest] = positionals;
  if (values.help || !command) {
    process.stdout.write(`${USAGE}\n`);
    return command || values.help ? 0 : 2;
  }
  const out = (text: string) => process.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
  const json = (value: unknown) => out(JSON.stringify(value, null, 2));

  switch (command) {
    case 'index': {
      const root = path.resolve(rest[0] ?? '.');
      if (!fs.statSync(root, { throwIfNoEntry: false })?.isDirectory()) throw new UsageError(`not a folder: ${root}`);
      const keeper = await IndexKeeper.open({
        root,
        kind: 'cli',
        searchesDuringSyncs: false,
        embedding: embeddingFlags(values),
        ...(values.db ? { dbFile: path.resolve(values.db) } : {}),
        index: {
          ...(values.include ? { include: values.include } : {}),
          ...(values.exclude ? { exclude: values.exclude } : {}),
          ...(values['max-file-bytes'] ? { maxFileBytes: numberFlag(INDEX_OPTION_SCHEMAS.maxFileBytes, values['max-file-bytes'], '--max-file-bytes') } : {}),
          ...(values['chunk-bytes'] ? { chunkMaxBytes: numberFlag(INDEX_OPTION_SCHEMAS.chunkMaxBytes, values['chunk-bytes'], '--chunk-bytes') } : {}),
          ...(values.threads ? { prepareThreads: numberFlag(INDEX_OPTION_SCHEMAS.prepareThreads, values.threads, '--threads') } : {}),
          ...(values['index-secret-files'] ? { indexSecretFiles: true } : {}),
        },
      });
      for (const notice of keeper.notices) process.stderr.write(`${notice}\n`);
      const abort = new AbortController();
      process.once('SIGINT', () => abort.abort());
      try {
        if (keeper.role !== 'owner') {
          // Another process keeps this index up to date; two writers would index every change twice.
          const keptBy = keeper.keptBy ?? 'another process';
          if (!values.wait) {
            process.stderr.write(
              `fused-search: the index at ${keeper.dbFile} is kept by ${keptBy}, which keeps it up to date; run again with --wait to index once it lets go\n`,
            );
            return EXIT_KEPT_ELSEWHERE;
          }
          process.stderr.write(`fused-search: waiting for ${keptBy} to let go of the index at ${keeper.dbFile}…\n`);
          if (!(await becomesOwner(keeper, abort.signal))) return 130;
        }
        const bar = values.json ? undefined : ProgressBar.forStderr();
        const summary = (await keeper.sync({ signal: abort.signal, ...(bar ? { onProgress: (p) => bar.update(p) } : {}) }))!;
        // Stored in a big index, so that no later `search` with a typo spends seconds building it;
        // and the index tidied, so that no later query seeks each term in a dozen segments.
        if (summary.complete) {
          keeper.prepareVocabulary();
          keeper.tidyNow();
        }
        bar?.done();
        const embedded = summary.complete ? await embedWithProgress(keeper, abort.signal, !values.json) : undefined;
        if (values.json) {
          json({
            files: summary.files,
            chunks: summary.chunks,
            bytes: summary.bytes,
            seconds: round(summary.seconds, 3),
            skipped: summary.skipped,
            secretFiles: summary.skippedFiles.filter((f) => f.reason === 'secret').map((f) => f.path),
            ...(embedded ? { embedded: embedded.embedded, ...(embedded.failed ? { embeddingFailed: embedded.failed } : {}) } : {}),
          });
        } else {
          out(formatSummary(summary, keeper.stats()));
        }
        if (summary.stopped) {
          process.stderr.write(`fused-search: ${summary.stopped.message}\n`);
          return 1;
        }
        return summary.complete ? 0 : 130;
      } finally {
        await keeper.close();
      }
    }
    case 'search': {
      const query = rest.join(' ');
      if (!query.trim()) throw new UsageError('search needs a query');
      const limit = values.limit === undefined ? undefined : numberFlag(SEARCH_OPTION_SCHEMAS.limit, values.limit, '--limit');
      const offset = values.offset === undefined ? undefined : numberFlag(SEARCH_OPTION_SCHEMAS.offset, values.offset, '--offset');
      const fuzzy = values.fuzzy === undefined ? undefined : flag(SEARCH_OPTION_SCHEMAS.fuzzy, values.fuzzy, '--fuzzy');
      const globs = values.path === undefined ? undefined : flag(AGENT_SEARCH_INPUT.path, values.path, '--path');
      const kind = values.kind === undefined ? undefined : flag(AGENT_SEARCH_INPUT.kind, values.kind, '--kind');
      const keeper = await IndexKeeper.open({ dbFile: existingIndex(values.db), kind: 'cli', embedding: embeddingFlags(values) });
      for (const notice of keeper.notices) process.stderr.write(`${notice}\n`);
      try {
        await keeper.prepareVectors();
        // Holding the lease (nobody else keeps the index), the search refreshes stale result files;
        // reading an index another process keeps, it only reads.
        const found = await keeper.search(query, {
          ...(limit ? { limit } : {}),
          ...(offset ? { offset } : {}),
          ...(fuzzy ? { fuzzy } : {}),
          filters: filtersFor(globs, kind),
        });
        if (found.semantic?.skipped) process.stderr.write(`fused-search: the semantic list was skipped (${found.semantic.model}): ${found.semantic.skipped}\n`);
        if (found.partial) process.stderr.write(`fused-search: ${partialNote(found.partial)}\n`);
        // Whoever reads a terminal may be an agent driving it: secrets are redacted here too.
        const response = { ...found, results: redactResults(found.results, (result) => keeper.chunk(result.chunkId)?.text) };
        if (values.agent) {
          // What the MCP server's search tool answers, for agents and scripts in a terminal.
          const budget = values.budget === undefined ? undefined : numberFlag(AGENT_SEARCH_INPUT.budget_bytes, values.budget, '--budget');
          out(
            agentText(
              budget ?? DEFAULT_AGENT_BUDGET_BYTES,
              (budgetBytes) =>
                formatForAgent(query, response, { budgetBytes, chunkText: (id) => redactedText(keeper.chunk(id)?.text), explain: values.explain }).text,
            ).text,
          );
        } else if (values.json) {
          // The results are a list, as scripts read them; what the answer says of the query goes beside it.
          for (const note of answerNotes(response)) process.stderr.write(`fused-search: ${note}\n`);
          json(
            response.results.map(({ chunkId, path: p, startLine, endLine, title, kind: k, language, stage, score, snippet, explain, copies }) => ({
              chunkId,
              path: p,
              startLine,
              endLine,
              title,
              kind: k,
              language,
              stage,
              score,
              snippet,
              explain,
              ...(copies ? { copies } : {}),
            })),
          );
        } else {
          out(formatResults(response, { explain: values.explain, color: process.stdout.isTTY }));
        }
        return 0;
      } finally {
        await keeper.close();
      }
    }
    case 'locate': {
      const limit = values.limit === undefined ? undefined : numberFlag(AGENT_LOCATE_INPUT.limit, values.limit, '--limit');
      const text = flag(AGENT_LOCATE_INPUT.text, await locateText(rest, values.file), 'the text');
      const keeper = await IndexKeeper.open({ dbFile: existingIndex(values.db), kind: 'cli' });
      for (const notice of keeper.notices) process.stderr.write(`${notice}\n`);
      try {
        const answer = await locate(keeper, text, limit ? { limit } : {});
        // Its reasons quote the source (a verbatim message, a definition): redacted like search.
        out(redactForAgent(values.json ? JSON.stringify(answer, null, 2) : formatLocate(answer)).text);
        return 0;
      } finally {
        await keeper.close();
      }
    }
    case 'stats': {
      const engine = await openExisting(values.db);
      try {
        const stats = engine.stats();
        if (values.json) json({ root: engine.root, ...stats });
        else out(formatStats(engine.root, stats));
        return 0;
      } finally {
        engine.close();
      }
    }
    case 'eval': {
      const dir = rest[0];
      if (!dir) throw new UsageError('eval needs a dataset folder (BEIR layout)');
      const dataset = await loadBeir(path.resolve(dir), { split: values.split, ...(values.queries ? { queriesFile: path.resolve(values.queries) } : {}) });
      const report = evaluate(dataset, values.split);
      if (values.json) json(report);
      else out(formatEval(report));
      return 0;
    }
    case 'mcp': {
      // Loaded on demand: the MCP SDK is only needed by this command.
      const { runMcpServer } = await import('../mcp/server.ts');
      const root = values.root ? path.resolve(values.root) : values.db ? undefined : process.cwd();
      if (root !== undefined && !fs.statSync(root, { throwIfNoEntry: false })?.isDirectory()) throw new UsageError(`not a folder: ${root}`);
      if (root === undefined && !fs.existsSync(path.resolve(values.db!)))
        throw new UsageError(`no index at ${path.resolve(values.db!)}; pass --root DIR too to build one`);
      return runMcpServer({
        ...(root !== undefined ? { root } : {}),
        ...(values.db ? { dbFile: path.resolve(values.db) } : {}),
        ...(values.budget ? { budgetBytes: numberFlag(AGENT_SEARCH_INPUT.budget_bytes, values.budget, '--budget') } : {}),
        ...(values['index-secret-files'] ? { indexSecretFiles: true } : {}),
      });
    }
    default:
      throw new UsageError(`unknown command "${command}" (index, search, locate, stats, eval or mcp)`);
  }
}

/** `locate`'s text: the words given, else the file named, else stdin when it is piped. */
async function locateText(words: string[], file: string | undefined): Promise<string> {
  if (words.length > 0 && file !== undefined) throw new UsageError('locate takes the text or --file, not both');
  if (words.length > 0) return words.join(' ');
  if (file !== undefined) {
    try {
      return fs.readFileSync(path.resolve(file), 'utf8');
    } catch (error) {
      throw new UsageError(`cannot read ${file}: ${(error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : String(error)}`);
    }
  }
  if (process.stdin.isTTY) throw new UsageError('locate needs a text: pass it, name a file with --file, or pipe it in');
  const parts: Buffer[] = [];
  for await (const part of process.stdin) parts.push(part as Buffer);
  return Buffer.concat(parts).toString('utf8');
}

/** The database of an index that must already exist: a search never silently builds one. */
function existingIndex(dbOption: string | undefined): string {
  const dbFile = dbOption ? path.resolve(dbOption) : findIndex(process.cwd());
  if (!dbFile || !fs.existsSync(dbFile)) {
    throw new UsageError(dbOption ? `no index at ${dbFile}` : `no index found in ${process.cwd()} or its parents; run "fused-search index DIR" first`);
  }
  return dbFile;
}

/** Opens an index that must already exist, to read it. */
async function openExisting(dbOption: string | undefined): Promise<Engine> {
  const engine = await Engine.open({ dbFile: existingIndex(dbOption) });
  for (const notice of engine.notices) process.stderr.write(`${notice}\n`);
  return engine;
}

/** Resolves true once the keeper holds the lease (the holder let go or died), false if `signal` aborts first. */
function becomesOwner(keeper: IndexKeeper, signal: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    const stop = keeper.onEvent((event) => {
      if (event.type === 'role' && event.role === 'owner') finish(true);
    });
    // The keeper's heartbeat does not hold the process open (a search must exit at once); waiting does.
    const keepAlive = setInterval(() => undefined, 60_000);
    const finish = (owner: boolean) => {
      clearInterval(keepAlive);
      stop();
      signal.removeEventListener('abort', abort);
      resolve(owner);
    };
    const abort = () => finish(false);
    signal.addEventListener('abort', abort, { once: true });
  });
}

function findIndex(from: string): string | undefined {
  for (let dir = from; ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, INDEX_DIR, 'index.db');
    if (fs.existsSync(candidate)) return candidate;
    if (path.dirname(dir) === dir) return undefined;
  }
}

/** A flag's value checked against its option's schema, which also words the complaint. */
/** The embedding model the flags name, or else the one the index was embedded with (if any). */
function embeddingFlags(values: { embed?: string; 'embed-model'?: string; 'embed-endpoint'?: string; 'embed-dimensions'?: string; 'embed-batch'?: string }) {
  const apiKey = process.env[EMBED_API_KEY_ENV] ? { apiKey: process.env[EMBED_API_KEY_ENV] } : {};
  if (values.embed === undefined) {
    if (values['embed-model'] !== undefined) throw new UsageError('--embed-model needs --embed ollama|openai|static|onnx');
    return { asIndexed: true as const, ...apiKey };
  }
  const provider = flag(EMBEDDING_OPTION_SCHEMAS.provider, values.embed, '--embed');
  const model = values['embed-model'];
  const inFolder = provider === 'static' || provider === 'onnx';
  if (!model) throw new UsageError(`--embed ${provider} needs --embed-model (${inFolder ? 'the model folder' : "the model's name"})`);
  return {
    provider,
    model: inFolder ? path.resolve(model) : model,
    ...(values['embed-endpoint'] ? { endpoint: values['embed-endpoint'] } : {}),
    ...(values['embed-dimensions'] ? { dimensions: numberFlag(EMBEDDING_OPTION_SCHEMAS.dimensions, values['embed-dimensions'], '--embed-dimensions') } : {}),
    ...(values['embed-batch'] ? { batchSize: numberFlag(EMBEDDING_OPTION_SCHEMAS.batchSize, values['embed-batch'], '--embed-batch') } : {}),
    ...apiKey,
  };
}

/** Runs the embedding pass the keeper started after indexing, with a line of progress on stderr. */
async function embedWithProgress(keeper: IndexKeeper, signal: AbortSignal, show: boolean): Promise<EmbedOutcome | undefined> {
  const line = (text: string) => show && process.stderr.isTTY && process.stderr.write(`\r\x1b[2K${text}`);
  const outcome = await keeper.embed({
    signal,
    onProgress: ({ done, total }) => line(`embedding ${done.toLocaleString('en-US')}/${total.toLocaleString('en-US')} chunks`),
  });
  line('');
  if (outcome?.failed) process.stderr.write(`fused-search: the index is complete, but embedding stopped: ${outcome.failed}\n`);
  else if (outcome && show) process.stderr.write(`embedded ${outcome.embedded.toLocaleString('en-US')} chunks\n`);
  return outcome;
}

function flag<T extends z.ZodType>(schema: T, value: unknown, name: string): z.output<T> {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new UsageError(`${name} ${parsed.error.issues[0]!.message}`);
  return parsed.data;
}

function numberFlag<T extends z.ZodType>(schema: T, text: string, name: string): z.output<T> {
  // Number('') is 0, which could pass for a value nobody typed.
  return flag(schema, text.trim() === '' ? Number.NaN : Number(text), name);
}

function round(value: number, digits: number): number {
  return Number(value.toFixed(digits));
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    const known = error instanceof UsageError || (error instanceof Error && 'code' in error && String(error.code).startsWith('ERR_PARSE_ARGS'));
    process.stderr.write(`fused-search: ${errorMessage(error)}\n`);
    if (!known && process.env.FUSED_SEARCH_DEBUG) process.stderr.write(`${(error as Error).stack}\n`);
    process.exitCode = known ? 2 : 1;
  },
);
