// Settings, parsed at the boundary: every value is checked, and an invalid one falls back to the
// engine's default with a warning in the log. Defaults come from src/core/options.ts, the same
// ones the manifest declares. No vscode import: settings.ts hands in where the values come from.

import { z } from 'zod/v4';
import { OPTION_SETTINGS, type IndexOptions, type SearchOptionsInput } from '../core/options.ts';
import type { EmbedderConfig } from '../core/semantic/embedder.ts';

export const SECTION = 'fusedSearch';

export interface Settings {
  /** What the extension's own settings add to the index options (files.exclude etc. come per folder). */
  index: IndexOptions;
  search: SearchOptionsInput;
  /** The semantic lane's model, without its key (SecretStorage holds that); undefined: off. */
  embedding: Omit<EmbedderConfig, 'apiKey'> | undefined;
  codeLens: { results: boolean; chunks: boolean };
  /** Milliseconds between the last keystroke and the query. */
  debounceMs: number;
  /** UTF-8 bytes one answer of the language model tool may take. */
  agentBudgetBytes: number;
}

/** Every setting under `fusedSearch.`: the engine's, and those only the extension reads. */
export const SETTINGS = {
  ...OPTION_SETTINGS,
  'codeLens.results': z.boolean().default(true).describe('After a search, show a lens above each result chunk in open files.'),
  'codeLens.chunks': z.boolean().default(false).describe('Show a lens with "Find similar" above every indexed chunk of open files.'),
  debounceMs: z.int().min(0).max(2000).default(60).describe('Milliseconds between the last keystroke and the query in the quick pick.'),
};

/**
 * Settings that decide what is read into the index and written to it. In an untrusted workspace
 * only the user's own value (or the default) counts: a cloned repository's .vscode/settings.json
 * must not widen what the extension reads and stores. The manifest lists the same keys under
 * `restrictedConfigurations`; this check does not rely on the host honouring that list.
 */
export const RESTRICTED_KEYS: ReadonlySet<string> = new Set([
  'include',
  'exclude',
  'maxFileBytes',
  'chunkMaxBytes',
  'indexSecretFiles',
  // Where the workspace's text is sent to be embedded, and which key goes with it.
  'semantic.provider',
  'semantic.model',
  'semantic.endpoint',
]);

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
  const valid: Record<string, unknown> = {};
  for (const [key, schema] of Object.entries(SETTINGS)) {
    // VS Code reports a setting set to null as null; like an unset one, it means the default.
    const given = raw(key) ?? undefined;
    if (schema.safeParse(given).success) valid[key] = given;
    else logWarning(`setting ${SECTION}.${key} = ${JSON.stringify(given)} is invalid; using ${JSON.stringify(schema.parse(undefined))}`);
  }
  const value = z.object(SETTINGS).parse(valid);

  return {
    index: {
      include: value.include,
      exclude: value.exclude,
      maxFileBytes: value.maxFileBytes,
      chunkMaxBytes: value.chunkMaxBytes,
      indexSecretFiles: value.indexSecretFiles,
      ...(value.prepareThreads === undefined ? {} : { prepareThreads: value.prepareThreads }),
    },
    search: {
      limit: value.limit,
      rrfK: value.rrfK,
      listWeights: {
        porter: value['weights.porter'],
        trigram: value['weights.trigram'],
        feedback: value['weights.feedback'],
        semantic: value['weights.semantic'],
      },
      semanticStandout: value['semantic.standout'],
      candidateDepth: value.candidateDepth,
      rerankWindow: value.rerankWindow,
      testWeight: value.testWeight,
      changelogWeight: value.changelogWeight,
      buildOutputWeight: value.buildOutputWeight,
      vendoredWeight: value.vendoredWeight,
      fuzzy: value.fuzzy,
    },
    embedding:
      value['semantic.provider'] === 'off' || value['semantic.model'].trim() === ''
        ? undefined
        : {
            provider: value['semantic.provider'],
            model: value['semantic.model'].trim(),
            ...(value['semantic.endpoint'].trim() ? { endpoint: value['semantic.endpoint'].trim() } : {}),
            ...(value['semantic.dimensions'] > 0 ? { dimensions: value['semantic.dimensions'] } : {}),
            batchSize: value['semantic.batchSize'],
          },
    codeLens: { results: value['codeLens.results'], chunks: value['codeLens.chunks'] },
    debounceMs: value.debounceMs,
    agentBudgetBytes: value['agent.budgetBytes'],
  };
}
