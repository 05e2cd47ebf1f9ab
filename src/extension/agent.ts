// What agents in VS Code get: the `fused_search` language model tool, answered by the worker from
// the live index as bounded text (src/core/agent-output.ts, the same format as the MCP server's
// `search`), and an MCP server definition per workspace folder — `fused-search mcp --db <that
// folder's database>` — so MCP clients in VS Code find the index without configuration. That
// server reads the database the worker keeps (the worker holds the index lease), so it never
// builds a second index.

import path from 'node:path';
import * as vscode from 'vscode';
import { ENGINE_NODE_FLAGS, mallocSettings } from '../core/engine-process.ts';
import { filtersFor, type SearchOptionsInput } from '../core/options.ts';
import type { EngineClient } from '../worker/client.ts';
import { parseToolInput, type ToolInput } from './agent-input.ts';
import type { IndexController } from './indexing.ts';
import type { Settings } from './settings.ts';

export const TOOL_NAME = 'fused_search';
export const MCP_PROVIDER_ID = 'fusedSearch.mcp';

export interface AgentDeps {
  client: EngineClient;
  index: IndexController;
  settings: () => Settings;
  log: vscode.LogOutputChannel;
}

function describe(input: ToolInput): string {
  // Read from the filters the search applies, so that `!glob` reads as what it leaves out.
  const { include, exclude } = filtersFor(input.path, input.kind);
  const quoted = (globs: readonly string[]) => globs.map((glob) => `\`${glob}\``);
  const where = [
    include ? `files matching ${quoted(include).join(' or ')}` : 'the workspace',
    exclude ? `not ${quoted(exclude).join(' nor ')}` : '',
    input.kind ? `${input.kind} only` : '',
  ]
    .filter(Boolean)
    .join(', ');
  const page = [input.limit ? `up to ${input.limit} results` : '', input.offset ? `after the first ${input.offset}` : ''].filter(Boolean).join(' ');
  return `Searching ${where} for "${input.query}"${page ? ` (${page})` : ''}`;
}

class FusedSearchTool implements vscode.LanguageModelTool<ToolInput> {
  private readonly deps: AgentDeps;

  constructor(deps: AgentDeps) {
    this.deps = deps;
  }

  prepareInvocation(options: vscode.LanguageModelToolInvocationPrepareOptions<ToolInput>): vscode.PreparedToolInvocation {
    const parsed = parseToolInput(options.input);
    // Read-only and local: no confirmation, only a line that says what is searched.
    return { invocationMessage: parsed.ok ? describe(parsed.value) : 'Searching the workspace index' };
  }

  async invoke(options: vscode.LanguageModelToolInvocationOptions<ToolInput>, token: vscode.CancellationToken): Promise<vscode.LanguageModelToolResult> {
    const parsed = parseToolInput(options.input);
    // A bad argument is an answer the model can correct, not an exception.
    if (!parsed.ok) return textResult(`Invalid input: ${parsed.message}.`);
    const input = parsed.value;
    const settings = this.deps.settings();
    const searchOptions: SearchOptionsInput = {
      ...settings.search,
      ...(input.limit ? { limit: input.limit } : {}),
      ...(input.offset ? { offset: input.offset } : {}),
      filters: filtersFor(input.path, input.kind),
    };
    // The user's setting is a ceiling: the model may ask for less context, never for more.
    const budgetBytes = Math.min(input.budget_bytes ?? settings.agentBudgetBytes, settings.agentBudgetBytes);
    const state = this.deps.index.state;
    const answer = await this.deps.client.request({
      type: 'agentSearch',
      query: input.query,
      options: searchOptions,
      budgetBytes,
      explain: input.explain ?? false,
    });
    if (token.isCancellationRequested) return textResult('Cancelled.');
    if (!answer.ok) {
      this.deps.log.error(`${TOOL_NAME} "${input.query}" failed: ${answer.error.message}`);
      return textResult(`The search failed: ${answer.error.message}`);
    }
    this.deps.log.info(`${TOOL_NAME} "${input.query}": ${answer.value.results} result(s) shown, ${answer.value.omitted} left out, ${answer.value.bytes} bytes`);
    // An index still being built answers from what it holds; say so, since the model cannot see the status bar.
    const note = state.phase === 'indexing' ? `[The index is still being built (${state.percent}%); results may be incomplete.]\n` : '';
    return textResult(note + answer.value.text);
  }
}

function textResult(text: string): vscode.LanguageModelToolResult {
  return new vscode.LanguageModelToolResult([new vscode.LanguageModelTextPart(text)]);
}

/** One MCP server to offer, as plain data (also what `fusedSearch.api.mcpServers` returns to tests). */
export interface McpServerSpec {
  label: string;
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd: string;
}

export function mcpServerSpecs(index: IndexController, cli: string): McpServerSpec[] {
  const multi = index.folders.length > 1;
  return index.folders.map((folder) => ({
    label: multi ? `Fused Search (${folder.name})` : 'Fused Search',
    // process.execPath is the extension host's Node, the one better-sqlite3's binary was loaded by;
    // in Electron it is the editor binary, which ELECTRON_RUN_AS_NODE makes behave as plain Node.
    // It runs the engine, and takes over keeping the index when the extension lets go of it: the
    // engine's process settings, as the CLI launcher gives them.
    command: process.execPath,
    args: [...ENGINE_NODE_FLAGS, cli, 'mcp', '--db', folder.dbFile],
    env: { ELECTRON_RUN_AS_NODE: '1', ...mallocSettings() },
    cwd: folder.root,
  }));
}

/** The MCP servers VS Code may start: one per indexed folder, reading that folder's database. */
class McpProvider implements vscode.McpServerDefinitionProvider<vscode.McpStdioServerDefinition> {
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeMcpServerDefinitions = this.changed.event;
  private readonly deps: AgentDeps;
  private readonly cli: string;
  private readonly version: string;
  private known = '';
  private readonly subscription: vscode.Disposable;

  constructor(deps: AgentDeps, extensionPath: string, version: string) {
    this.deps = deps;
    this.cli = path.join(extensionPath, 'dist', 'cli.cjs');
    this.version = version;
    // The folders are known once the index has started; tell VS Code when they change.
    this.subscription = deps.index.onDidChange(() => {
      const now = deps.index.folders.map((f) => f.dbFile).join('\n');
      if (now !== this.known) {
        this.known = now;
        this.changed.fire();
      }
    });
  }

  provideMcpServerDefinitions(): vscode.McpStdioServerDefinition[] {
    return mcpServerSpecs(this.deps.index, this.cli).map((spec) => {
      const server = new vscode.McpStdioServerDefinition(spec.label, spec.command, spec.args, spec.env, this.version);
      server.cwd = vscode.Uri.file(spec.cwd);
      return server;
    });
  }

  dispose(): void {
    this.subscription.dispose();
    this.changed.dispose();
  }
}

/** Registers the tool and the MCP provider where this VS Code has the APIs (both exist from 1.101). */
export function registerAgentSupport(deps: AgentDeps, extensionPath: string, version: string): vscode.Disposable[] {
  const disposables: vscode.Disposable[] = [];
  // Guarded because forks and web hosts that claim ^1.101 may still lack the language model API.
  if (typeof vscode.lm?.registerTool === 'function') disposables.push(vscode.lm.registerTool(TOOL_NAME, new FusedSearchTool(deps)));
  else deps.log.warn('this editor has no language model tool API; the fused_search tool is not available');
  if (typeof vscode.lm?.registerMcpServerDefinitionProvider === 'function') {
    const provider = new McpProvider(deps, extensionPath, version);
    disposables.push(provider, vscode.lm.registerMcpServerDefinitionProvider(MCP_PROVIDER_ID, provider));
  } else {
    deps.log.warn('this editor has no MCP server definition API; run `fused-search mcp --db <index.db>` yourself');
  }
  return disposables;
}
