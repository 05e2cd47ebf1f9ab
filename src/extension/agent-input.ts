// The `fused_search` language model tool's input: the agents' search parameters from
// src/core/options.ts, as package.json declares them to VS Code, and the check of what a model
// actually sent (the schema is advice to the model, not a guarantee). No vscode import, so the
// check and the manifest's copy of the schema are unit-tested.

import { z } from 'zod/v4';
import { AGENT_SEARCH_INPUT } from '../core/options.ts';

/** The MCP `search` tool's parameters, with the defaults and ceilings the user's settings give. */
const TOOL_INPUT = z.object({
  query: AGENT_SEARCH_INPUT.query,
  limit: AGENT_SEARCH_INPUT.limit.describe("Results wanted (default: the user's fusedSearch.limit, 10)."),
  offset: AGENT_SEARCH_INPUT.offset,
  path: AGENT_SEARCH_INPUT.path,
  kind: AGENT_SEARCH_INPUT.kind,
  explain: AGENT_SEARCH_INPUT.explain,
  budget_bytes: AGENT_SEARCH_INPUT.budget_bytes.describe(
    "Most UTF-8 bytes of text to return; at most the user's fusedSearch.agent.budgetBytes (8192 unless changed), which is also the default.",
  ),
});

export type ToolInput = z.output<typeof TOOL_INPUT>;

/** The JSON schema package.json declares as the tool's `inputSchema`. */
export function toolInputJsonSchema(): Record<string, unknown> {
  const schema: Record<string, unknown> = z.toJSONSchema(TOOL_INPUT, { io: 'input' });
  delete schema.$schema;
  return schema;
}

export function parseToolInput(input: unknown): { ok: true; value: ToolInput } | { ok: false; message: string } {
  if (typeof input !== 'object' || input === null) return { ok: false, message: 'input must be an object with a "query"' };
  const parsed = TOOL_INPUT.safeParse(input);
  if (parsed.success) return { ok: true, value: parsed.data };
  const issue = parsed.error.issues[0]!;
  return { ok: false, message: `"${issue.path.join('.')}" ${issue.message}` };
}
