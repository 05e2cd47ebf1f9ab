// Settings, parsed at the boundary: every value is checked, and an invalid one falls back to the
// engine's default with a warning in the log. Defaults come from src/core/options.ts, the same
// ones the manifest declares. No vscode import: settings.ts hands in where the values come from.

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

/**
 * Settings that decide what is read into the index and written to it. In an untrusted workspace
 * only the user's own value (or the default) counts: a cloned repository's .vscode/settings.json
 * must not widen what the extension reads and stores. The manifest lists the same keys under
 * `restrictedConfigurations`; this check does not rely on the host honouring that list.
 */
export const RESTRICTED_KEYS: ReadonlySet<string> = new Set(['include', 'exclude', 'maxFileBytes', 'chunkMaxBytes']);

/** Where settings come from: the effective value, and (for restricted keys) the user's own layer. */
export interface SettingsSource {
  get(key: string): unknown;
  inspect(key: string): { defaultValue?: unknown; globalValue?: unknown } | undefined;
}

/** Reads and checks every setting; pure, so the trust rule and the fallbacks are unit-tested. */
export function parseSettings(source: SettingsSource, trusted: boolean, logWarning: (message: string) => void): Settings {
  const raw = (key: string): unknown => {
    if (trusted || !RESTRICTED_KEYS.has(key)) return source.get(key);
    const layers = source.inspect(key);
    return layers?.globalValue ?? layers?.defaultValue;
  };
  const config = { get: <T>(key: string, fallback: T): unknown => raw(key) ?? fallback };
  const warn = (key: string, value: unknown, fallback: unknown) =>
    logWarning(`setting ${SECTION}.${key} = ${JSON.stringify(value)} is invalid; using ${JSON.stringify(fallback)}`);
  const int = (key: string, fallback: number, min: number, max = Number.MAX_SAFE_INTEGER): number => {
    const value = config.get(key, fallback);
    if (typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max) return value;
    warn(key, value, fallback);
    return fallback;
  };
  const num = (key: string, fallback: number, min: number): number => {
    const value = config.get(key, fallback);
    if (typeof value === 'number' && Number.isFinite(value) && value >= min) return value;
    warn(key, value, fallback);
    return fallback;
  };
  const bool = (key: string, fallback: boolean): boolean => {
    const value = config.get(key, fallback);
    if (typeof value === 'boolean') return value;
    warn(key, value, fallback);
    return fallback;
  };
  const globs = (key: string): string[] => {
    const value = config.get(key, []);
    if (Array.isArray(value) && value.every((g) => typeof g === 'string')) return value.filter((g) => g.trim() !== '');
    warn(key, value, []);
    return [];
  };
  const fuzzyValue = config.get('fuzzy', DEFAULT_SEARCH_OPTIONS.fuzzy);
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
        feedback: num('weights.feedback', DEFAULT_SEARCH_OPTIONS.listWeights.feedback, 0),
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
