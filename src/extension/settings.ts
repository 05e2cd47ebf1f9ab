// Settings, parsed at the boundary: every value is checked, and an invalid one falls back to the
// engine's default with a warning in the log. Defaults come from src/core/options.ts, the same
// ones the manifest declares.

import * as vscode from 'vscode';
import { DEFAULT_AGENT_BUDGET_BYTES, MIN_AGENT_BUDGET_BYTES } from '../core/agent-output.ts';
import { DEFAULT_INDEX_OPTIONS, DEFAULT_SEARCH_OPTIONS, type IndexOptions, type SearchOptionsInput } from '../core/options.ts';
import type { FuzzyMode } from '../core/types.ts';

export const SECTION = 'fusedSearch';

export interface Settings {
  /** What the extension's own settings add to the index options (files.exclude etc. come per folder). */
  index: IndexOptions;
  search: SearchOptionsInput;
  codeLens: { results: boolean; chunks: boolean };
  /** Milliseconds between the last keystroke and the query. */
  debounceMs: number;
  /** UTF-8 bytes one answer of the language model tool may take. */
  agentBudgetBytes: number;
}

/** Largest answer the language model tool may give, in bytes (the MCP server's ceiling too). */
export const MAX_AGENT_BUDGET_BYTES = 256 * 1024;

const FUZZY_MODES: readonly FuzzyMode[] = ['unknown-words', 'empty', 'off'];

export function readSettings(log: vscode.LogOutputChannel, scope?: vscode.Uri): Settings {
  const config = vscode.workspace.getConfiguration(SECTION, scope);
  const warn = (key: string, value: unknown, fallback: unknown) =>
    log.warn(`setting ${SECTION}.${key} = ${JSON.stringify(value)} is invalid; using ${JSON.stringify(fallback)}`);

  const int = (key: string, fallback: number, min: number, max = Number.MAX_SAFE_INTEGER): number => {
    const value = config.get<unknown>(key, fallback);
    if (typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max) return value;
    warn(key, value, fallback);
    return fallback;
  };
  const num = (key: string, fallback: number, min: number): number => {
    const value = config.get<unknown>(key, fallback);
    if (typeof value === 'number' && Number.isFinite(value) && value >= min) return value;
    warn(key, value, fallback);
    return fallback;
  };
  const bool = (key: string, fallback: boolean): boolean => {
    const value = config.get<unknown>(key, fallback);
    if (typeof value === 'boolean') return value;
    warn(key, value, fallback);
    return fallback;
  };
  const globs = (key: string): string[] => {
    const value = config.get<unknown>(key, []);
    if (Array.isArray(value) && value.every((g) => typeof g === 'string')) return value.filter((g) => g.trim() !== '');
    warn(key, value, []);
    return [];
  };
  const fuzzyValue = config.get<unknown>('fuzzy', DEFAULT_SEARCH_OPTIONS.fuzzy);
  const fuzzy = FUZZY_MODES.includes(fuzzyValue as FuzzyMode) ? (fuzzyValue as FuzzyMode) : (warn('fuzzy', fuzzyValue, DEFAULT_SEARCH_OPTIONS.fuzzy), DEFAULT_SEARCH_OPTIONS.fuzzy);

  return {
    index: {
      include: globs('include'),
      exclude: globs('exclude'),
      maxFileBytes: int('maxFileBytes', DEFAULT_INDEX_OPTIONS.maxFileBytes, 1),
      chunkMaxBytes: int('chunkMaxBytes', DEFAULT_INDEX_OPTIONS.chunkMaxBytes, 256),
    },
    search: {
      limit: int('limit', DEFAULT_SEARCH_OPTIONS.limit, 1, 500),
      rrfK: num('rrfK', DEFAULT_SEARCH_OPTIONS.rrfK, 0),
      listWeights: {
        porter: num('weights.porter', DEFAULT_SEARCH_OPTIONS.listWeights.porter, 0),
        trigram: num('weights.trigram', DEFAULT_SEARCH_OPTIONS.listWeights.trigram, 0),
      },
      candidateDepth: int('candidateDepth', DEFAULT_SEARCH_OPTIONS.candidateDepth, 0),
      rerankWindow: int('rerankWindow', DEFAULT_SEARCH_OPTIONS.rerankWindow, 0),
      fuzzy,
    },
    codeLens: { results: bool('codeLens.results', true), chunks: bool('codeLens.chunks', false) },
    debounceMs: int('debounceMs', 60, 0, 2000),
    agentBudgetBytes: int('agent.budgetBytes', DEFAULT_AGENT_BUDGET_BYTES, MIN_AGENT_BUDGET_BYTES, MAX_AGENT_BUDGET_BYTES),
  };
}

/**
 * `files.exclude` and `search.exclude` as gitignore-style globs for the engine. Only entries set to
 * `true` count; a `when` clause (sibling-dependent) cannot be expressed and is skipped.
 */
export function editorExcludes(scope: vscode.Uri): string[] {
  const out = new Set<string>();
  for (const [section, key] of [['files', 'exclude'], ['search', 'exclude']] as const) {
    const value = vscode.workspace.getConfiguration(section, scope).get<Record<string, unknown>>(key) ?? {};
    for (const [glob, on] of Object.entries(value)) if (on === true) out.add(glob.replace(/^\.\//, ''));
  }
  return [...out];
}
