// Every option of the engine and of an agent's search, declared once: its type and bounds (a zod
// schema), its default and one line of documentation. The hosts check what they receive against
// these schemas instead of restating them: the extension's settings (src/extension/settings-parse.ts),
// the CLI's flags, the MCP tools' input and the language model tool's. package.json repeats the
// settings and the tool's input schema for VS Code; test/unit/manifest.test.ts holds it to these.
// Engine callers pass partial options; `resolve*Options` merges them over the defaults once.

import { availableParallelism } from 'node:os';
import { z } from 'zod/v4';
import type { EmbedderProvider } from './semantic/embedder.ts';
import type { FuzzyMode } from './types.ts';

/**
 * Each schema's complaint is the end of a sentence the host starts with the option's name
 * ("--limit must be …", "\"limit\" must be …"; the MCP SDK appends "at limit"): every host names
 * the option its own way, and all of them say the same thing about it.
 */
function wholeNumber(min: number, max?: number) {
  return between(z.int, 'a whole number', min, max);
}

function number(min: number, max?: number) {
  return between(z.number, 'a number', min, max);
}

/** `kind`'s schema, at least `min` and at most `max` when given, whose complaint says which `what` it must be. */
function between(kind: (params: { error: string }) => z.ZodNumber, what: string, min: number, max?: number) {
  const error = max === undefined ? `must be ${what}, at least ${min}` : `must be ${what} from ${min} to ${max}`;
  const atLeast = kind({ error }).min(min, { error });
  return max === undefined ? atLeast : atLeast.max(max, { error });
}

/** A string an agent must give, trimmed, at most `max` characters. */
function nonEmptyText(max: number) {
  return z
    .string({ error: 'must be a non-empty string' })
    .trim()
    .min(1, { error: 'must be a non-empty string' })
    .max(max, { error: `must be at most ${max} characters` });
}

function oneOf<const T extends readonly [string, ...string[]]>(values: T) {
  const quoted = values.map((v) => `"${v}"`);
  return z.enum(values, { error: `must be ${quoted.slice(0, -1).join(', ')} or ${quoted.at(-1)}` });
}

/** Each preparing thread loads its own tree-sitter runtime and the grammars it meets, tens of MB. */
const MAX_PREPARE_THREADS = 16;

const globs = z
  .array(z.string({ error: 'must be a list of globs' }), { error: 'must be a list of globs' })
  // A blank entry in a settings list is no glob: dropped, rather than failing the whole list.
  .overwrite((list) => list.filter((glob) => glob.trim() !== ''));

export const INDEX_OPTION_SCHEMAS = {
  maxFileBytes: wholeNumber(1)
    .default(1024 * 1024)
    .describe('Files larger than this many bytes are skipped (`too-large`): minified bundles and data dumps live up there.'),
  chunkMaxBytes: wholeNumber(256)
    .default(4096)
    .describe("Upper bound of one chunk's text in UTF-8 bytes; small enough for a snippet, big enough for a function."),
  include: globs.default([]).describe('Globs (gitignore-style, relative to the root) a file must match to be indexed; empty means everything.'),
  exclude: globs.default([]).describe('Globs (gitignore-style, relative to the root) that are never indexed, on top of ignore files.'),
  indexSecretFiles: z
    .boolean({ error: 'must be true or false' })
    .default(false)
    .describe(
      'Index files that hold credentials (`.env`, private keys, `.ssh/`, `.aws/credentials`, an `.npmrc` with a token, ...; the list is in docs/architecture.md). Off: they are skipped as `secret`.',
    ),
  // Unset, it is one thread when there is a second CPU. The writes, which one thread does, bound a
  // sync: on the kernel's drivers/net/ethernet one preparing thread took indexing from 30–34 s to
  // 22–24 s and a second changed nothing (23–23.5 s) but the peak memory, +70–90 MB for its own
  // grammars. Preparing takes about a third of the writing time, so more CPUs leave the writer the
  // bound and one thread keeps it fed; more pay off only for a slower preparer (a capped CPU).
  prepareThreads: wholeNumber(0, MAX_PREPARE_THREADS)
    .optional()
    .describe('Threads that read and chunk files during a sync while the indexing thread writes them; 0 does it all on the indexing thread.'),
};

const indexOptionsSchema = z.object(INDEX_OPTION_SCHEMAS);
export type IndexOptions = z.output<typeof indexOptionsSchema>;
export const DEFAULT_INDEX_OPTIONS: IndexOptions = indexOptionsSchema.parse({});

const FUZZY_MODES = ['unknown-words', 'empty', 'off'] as const satisfies readonly FuzzyMode[];
const KINDS = ['code', 'prose'] as const;
export type Kind = (typeof KINDS)[number];

const searchFilters = z.strictObject({
  include: z.array(z.string()).optional().describe("Globs a result's path must match (any of them)."),
  exclude: z.array(z.string()).optional().describe("Globs a result's path must not match."),
  kind: oneOf(KINDS).optional().describe('Only code or only prose.'),
  language: z.array(z.string()).optional().describe('Language ids as the chunker names them (`typescript`, `markdown`, ...).'),
});
export type SearchFilters = z.output<typeof searchFilters>;

/** Most results one search returns: a page nobody reads to the end, and the rerank window (3 × limit) grows with it. */
const MAX_LIMIT = 500;
/** Most results an agent may ask for; more would not fit any sensible budget. */
const MAX_AGENT_LIMIT = 50;
/** Most results a later page may skip; past the candidates the lists give (a few hundred), a page is empty anyway. */
const MAX_OFFSET = 1_000;

/**
 * Candidates each lexical list gives the fusion, whatever the limit. A chunk both lists rank 30th
 * outscores one only a list ranks first, so lists cut at twice a small limit lose the answers
 * fusion exists to find: at limit 10, lists 20 deep gave nDCG@10 0.701 / 0.427 / 0.383 on
 * scifact / cosqa / cranfield, 100 deep 0.707 / 0.437 / 0.401, 200 deep 0.709 / 0.441 / 0.402
 * (`npm run bench:depth`). On the Linux tree 100 deep costs a warm query nothing measurable and a
 * first keystroke about a millisecond; from 150 deep a warm query's p95 grows by 6 ms.
 */
const DEFAULT_CANDIDATE_DEPTH = 100;

/**
 * The share of its score a test keeps in the rerank, unless the query asks about tests. A test
 * describes the behaviour it checks in the words a question about that behaviour uses (`describe("when
 * calculating the hashing")`), and its fixtures repeat the code's identifiers: asked of ESLint's
 * package with its repository's tests beside it, the 25 questions of bench/agent-bytes.ts got
 * their answer's lines in full 14 times, against 20 without the tests. At 0.85, 18; at 0.7, 20, as
 * without them; 0.5 printed none more, and put the code above a test the query names word for
 * word (`returns 401 without a header`, test/unit/golden-ranking.test.ts), which 0.7 keeps first.
 * Checked afterwards on npm's package with its tests: 10 of 15 at 1, 11 (as without them) from 0.85.
 */
const DEFAULT_TEST_WEIGHT = 0.7;
/**
 * A changelog's entry is discounted as a test is, and for the same reason; not measured apart: no
 * benchmark tree holds a changelog an answer competes with. On 31 questions over six repositories
 * (docs/benchmarks.md) it took a changelog's entries from 12 of the first ten's places to one.
 */
const DEFAULT_CHANGELOG_WEIGHT = DEFAULT_TEST_WEIGHT;
/**
 * A build's output, likewise, as a copy of the sources: on axios, which commits its builds, eight
 * questions held 27 results from `dist/` in their first ten, and 16 at this weight; the agent
 * bench's trees, whose packages' `dist/` folders are their only builds, kept every verdict.
 */
const DEFAULT_BUILD_OUTPUT_WEIGHT = DEFAULT_TEST_WEIGHT;
/**
 * Another project's code committed into this one, likewise: twelve questions on redis and jq held
 * 34 vendored results in their first ten (`deps/jemalloc`, `deps/fast_float`), 5 of them first,
 * and 24 at this weight, 1 first (docs/benchmarks.md).
 */
const DEFAULT_VENDORED_WEIGHT = DEFAULT_TEST_WEIGHT;

export const SEARCH_OPTION_SCHEMAS = {
  limit: wholeNumber(1, MAX_LIMIT).default(10).describe('Results returned.'),
  offset: wholeNumber(0, MAX_OFFSET)
    .default(0)
    .describe(
      'Results skipped before the ones returned: a later page, of the same ranking as the first page of this limit, so that pages neither repeat nor skip a result.',
    ),
  candidateDepth: wholeNumber(0).default(0).describe(`Candidates taken from each lexical list; 0 means max(${DEFAULT_CANDIDATE_DEPTH}, 2 × limit).`),
  rrfK: number(0).default(60).describe("RRF's k: larger values flatten the difference between neighbouring ranks."),
  // The trigram list indexes each chunk's distinct words and matches inside them: it finds what
  // stemming cannot (`alloc` in `kmalloc`, a half-typed word) but ranks less precisely, so by
  // default it counts half as much as the Porter list. The feedback list searches words the
  // query did not say, so it counts half as much too.
  listWeights: z
    .object({
      porter: number(0).default(1).describe('Weight of the Porter (stemmed words) list in the fused score.'),
      trigram: number(0).default(0.5).describe('Weight of the trigram (substring) list in the fused score.'),
      feedback: number(0).default(0.5).describe('Weight of the feedback list (words the best first results share) in the fused score; 0 turns feedback off.'),
      // Chosen by bench/semantic.ts's rule (docs/benchmarks.md, the semantic lane): the largest
      // weight that lowers no shared set's nDCG@10 with USE-lite.
      semantic: number(0)
        .default(0.15)
        .describe("Weight of the semantic list (the chunks nearest the query's meaning, when an embedding model is configured) in the fused score."),
    })
    .prefault({}),
  // Measured by bench/semantic.ts (docs/benchmarks.md, the semantic lane): with USE-lite, 3 leaves
  // 14–23% of the shared sets' queries to the word lists, and the default weight then lowers no
  // set's nDCG@10.
  semanticStandout: number(0)
    .default(3)
    .describe(
      "How far, in standard deviations of the 100 nearest chunks' cosines, the nearest must stand above them for the semantic list to be fused; 0 fuses it always.",
    ),
  rerankWindow: wholeNumber(0).default(0).describe('How many fused candidates the proximity rerank reorders together; 0 means max(30, 3 × limit).'),
  titleColumnWeight: number(0).default(5).describe("BM25 weight of a chunk's title column relative to its text column (1)."),
  testWeight: number(0, 1)
    .default(DEFAULT_TEST_WEIGHT)
    .describe('What share of its score a test keeps against code, unless the query asks about tests (test, spec, fixture, mock); 1 ranks tests as code.'),
  changelogWeight: number(0, 1)
    .default(DEFAULT_CHANGELOG_WEIGHT)
    .describe(
      "What share of its score a changelog's entry keeps against code and documents, unless the query asks about releases or history (changelog, release, history, news); 1 ranks changelogs as documents.",
    ),
  buildOutputWeight: number(0, 1)
    .default(DEFAULT_BUILD_OUTPUT_WEIGHT)
    .describe(
      "What share of its score a build's output (a dist/ folder's files, minified files) keeps against the sources, unless the query asks about builds (build, dist, bundle, minified); 1 ranks it as code.",
    ),
  vendoredWeight: number(0, 1)
    .default(DEFAULT_VENDORED_WEIGHT)
    .describe(
      "What share of its score another project's code committed into this one (vendor/, third_party/, a deps/ folder's projects) keeps against the project's own, unless the query asks about it (vendor, vendored, deps, dependency); 1 ranks it as the project's code.",
    ),
  fuzzy: oneOf(FUZZY_MODES).default('unknown-words').describe('When the typo-correcting retry runs: for unknown words, only for an empty answer, or never.'),
  wordsHeldElsewhere: z
    .array(z.string())
    .default([])
    .describe('Query words the typo retry leaves as typed though this index lacks them: another folder searched beside it holds them.'),
  stages: z
    .object({
      porter: z.boolean().default(true),
      trigram: z.boolean().default(true),
      proximity: z.boolean().default(true),
      feedback: z.boolean().default(true),
      semantic: z.boolean().default(true),
      /** Chunks of the same text as one result with its `copies`; off for `locate`, which ranks each copy's file on its own. */
      copies: z.boolean().default(true),
    })
    .prefault({})
    .describe('Turn single stages off, for ablations and for the UI\'s "why" views.'),
  filters: searchFilters.prefault({}).describe('Which chunks may be results at all.'),
};

export type SearchOptions = z.output<z.ZodObject<typeof SEARCH_OPTION_SCHEMAS>>;
/** What a search given no options runs with: the defaults, each `0` ("from the limit") resolved. */
export const DEFAULT_SEARCH_OPTIONS: SearchOptions = resolveSearchOptions();

export type SearchOptionsInput = Partial<Omit<SearchOptions, 'stages' | 'listWeights'>> & {
  stages?: Partial<SearchOptions['stages']>;
  listWeights?: Partial<SearchOptions['listWeights']>;
};

const EMBEDDING_PROVIDERS = ['ollama', 'openai', 'static', 'onnx'] as const satisfies readonly EmbedderProvider[];

/** The semantic lane's embedding model, as the CLI's flags and the settings name it (src/core/semantic/embedder.ts). */
export const EMBEDDING_OPTION_SCHEMAS = {
  provider: oneOf(EMBEDDING_PROVIDERS).describe(
    'Who embeds: a local Ollama, an OpenAI-compatible /v1/embeddings endpoint, or a model2vec or ONNX model folder run in-process.',
  ),
  dimensions: wholeNumber(1, 8192).describe('Vector size to ask the endpoint for, and to check every answer against.'),
  batchSize: wholeNumber(1, 2048).describe('Texts per embedding request.'),
};

/** A whole embedding configuration as a host hands it to the engine (the worker checks it with this). */
export const EMBEDDER_CONFIG = z.strictObject({
  provider: EMBEDDING_OPTION_SCHEMAS.provider,
  model: z.string().min(1),
  endpoint: z.string().min(1).optional(),
  apiKey: z.string().min(1).optional(),
  dimensions: EMBEDDING_OPTION_SCHEMAS.dimensions.optional(),
  batchSize: EMBEDDING_OPTION_SCHEMAS.batchSize.optional(),
});

/** Default total size of one answer to an agent, in UTF-8 bytes: about 2,000 tokens. */
export const DEFAULT_AGENT_BUDGET_BYTES = 8 * 1024;
/** Smallest budget accepted: below this not even a location and its notices fit. */
export const MIN_AGENT_BUDGET_BYTES = 512;
/** Largest budget accepted: about 64,000 tokens, a large share of any model's context. */
const MAX_AGENT_BUDGET_BYTES = 256 * 1024;
const budgetBytes = wholeNumber(MIN_AGENT_BUDGET_BYTES, MAX_AGENT_BUDGET_BYTES);

/**
 * The options above a person sets in VS Code, by setting name under `fusedSearch.`. Those missing
 * here (stages, filters, the title column's weight) are for code, benchmarks and the CLI.
 */
export const OPTION_SETTINGS = {
  include: INDEX_OPTION_SCHEMAS.include,
  exclude: INDEX_OPTION_SCHEMAS.exclude,
  maxFileBytes: INDEX_OPTION_SCHEMAS.maxFileBytes,
  chunkMaxBytes: INDEX_OPTION_SCHEMAS.chunkMaxBytes,
  indexSecretFiles: INDEX_OPTION_SCHEMAS.indexSecretFiles,
  prepareThreads: INDEX_OPTION_SCHEMAS.prepareThreads,
  limit: SEARCH_OPTION_SCHEMAS.limit,
  rrfK: SEARCH_OPTION_SCHEMAS.rrfK,
  'weights.porter': SEARCH_OPTION_SCHEMAS.listWeights.unwrap().shape.porter,
  'weights.trigram': SEARCH_OPTION_SCHEMAS.listWeights.unwrap().shape.trigram,
  'weights.feedback': SEARCH_OPTION_SCHEMAS.listWeights.unwrap().shape.feedback,
  'weights.semantic': SEARCH_OPTION_SCHEMAS.listWeights.unwrap().shape.semantic,
  'semantic.standout': SEARCH_OPTION_SCHEMAS.semanticStandout,
  'semantic.provider': oneOf(['off', ...EMBEDDING_PROVIDERS])
    .default('off')
    .describe('The embedding model behind the semantic lane: off, a local Ollama, an OpenAI-compatible endpoint, or a model2vec or ONNX model folder.'),
  'semantic.model': z.string({ error: 'must be a string' }).default('').describe("The model's name at the endpoint, or the model folder's path."),
  'semantic.endpoint': z
    .string({ error: 'must be a string' })
    .default('')
    .describe("Base URL of the endpoint; empty: the provider's usual one (Ollama on 127.0.0.1:11434, OpenAI's /v1)."),
  'semantic.dimensions': wholeNumber(0, 8192).default(0).describe("Vector size to ask for; 0: the model's own."),
  'semantic.batchSize': EMBEDDING_OPTION_SCHEMAS.batchSize.default(32),
  candidateDepth: SEARCH_OPTION_SCHEMAS.candidateDepth,
  rerankWindow: SEARCH_OPTION_SCHEMAS.rerankWindow,
  testWeight: SEARCH_OPTION_SCHEMAS.testWeight,
  changelogWeight: SEARCH_OPTION_SCHEMAS.changelogWeight,
  buildOutputWeight: SEARCH_OPTION_SCHEMAS.buildOutputWeight,
  vendoredWeight: SEARCH_OPTION_SCHEMAS.vendoredWeight,
  fuzzy: SEARCH_OPTION_SCHEMAS.fuzzy,
  'agent.budgetBytes': budgetBytes.default(DEFAULT_AGENT_BUDGET_BYTES).describe('UTF-8 bytes one answer of the language model tool may take.'),
};

const MAX_QUERY_CHARS = 1000;

/**
 * What an agent may pass to a search, over MCP or as VS Code's language model tool. `limit` and
 * `budget_bytes` have no default here: each host fills in its own (the user's settings, the
 * server's `--budget`) and says which in the parameter's description.
 */
export const AGENT_SEARCH_INPUT = {
  query: nonEmptyText(MAX_QUERY_CHARS).describe('Words to find, e.g. "retry policy backoff" or an identifier such as parseConfig.'),
  limit: wholeNumber(1, MAX_AGENT_LIMIT).optional().describe('Results wanted.'),
  offset: wholeNumber(0, MAX_OFFSET).optional().describe('Results to skip, for the next page: an answer that left results out says which offset gives them.'),
  path: z
    .union([z.string().trim().min(1), z.array(z.string().trim().min(1)).min(1)], { error: 'must be a glob such as "src/**/*.ts", or a list of globs' })
    .optional()
    .describe(
      'Glob(s) a result path must match, relative to its folder, e.g. "src/**/*.ts" or ["*.md", "docs/**"]; one starting with "!" excludes, e.g. ["src/**", "!**/*.test.ts"].',
    ),
  kind: oneOf(KINDS).optional().describe('Only source code or only prose (Markdown, text).'),
  explain: z.boolean({ error: 'must be true or false' }).optional().describe('Add a line per result saying which lists found it and what the rerank did.'),
  budget_bytes: budgetBytes.optional().describe('Most UTF-8 bytes of text to return.'),
};

/**
 * Characters of pasted text `locate` accepts: a long CI log still goes in whole; the clues are
 * read from its first MAX_INPUT_CHARS (src/core/clues.ts).
 */
export const MAX_LOCATE_CHARS = 1_000_000;

/** What an agent may pass to `locate` over MCP; `limit` and `budget_bytes` default as for a search. */
export const AGENT_LOCATE_INPUT = {
  text: nonEmptyText(MAX_LOCATE_CHARS).describe(
    'An issue text, an error message or a stack trace, pasted as it is: frames, paths, names and quoted messages are read from it.',
  ),
  limit: wholeNumber(1, MAX_AGENT_LIMIT).optional().describe('Files wanted.'),
  budget_bytes: budgetBytes.optional().describe('Most UTF-8 bytes of text to return.'),
};

/** Globs typed in one field, as VS Code's "files to include" takes them: comma-separated, except inside braces (`*.{ts,js}`). */
export function globsOf(text: string): string[] {
  const globs = [''];
  let depth = 0;
  for (const ch of text) {
    if (ch === '{') depth++;
    if (ch === '}') depth = Math.max(0, depth - 1);
    if (ch === ',' && depth === 0) globs.push('');
    else globs[globs.length - 1] += ch;
  }
  return globs.map((glob) => glob.trim()).filter(Boolean);
}

/**
 * The filters `path` and `kind` ask for, as agents, the CLI and the panel pass them: a result's path
 * must match one of the globs, and none of those written `!glob` (as ripgrep's `-g '!glob'` reads
 * them), so that `!test/**` alone means everything but the tests.
 */
export function filtersFor(path: string | readonly string[] | undefined, kind: Kind | undefined): SearchFilters {
  const globs = path === undefined ? [] : typeof path === 'string' ? [path] : [...path];
  const include = globs.filter((glob) => !glob.startsWith('!'));
  const exclude = globs.filter((glob) => glob.startsWith('!') && glob.length > 1).map((glob) => glob.slice(1));
  return { ...(include.length > 0 ? { include } : {}), ...(exclude.length > 0 ? { exclude } : {}), ...(kind ? { kind } : {}) };
}

/** A schema's value if `value` is valid, else its default: lenient, for callers that already checked. */
function validOrDefault<T extends z.ZodType>(schema: T, value: unknown): z.output<T> {
  const parsed = schema.safeParse(value);
  return parsed.success ? parsed.data : schema.parse(undefined);
}

export function resolveIndexOptions(input: Partial<IndexOptions> = {}): IndexOptions {
  const s = INDEX_OPTION_SCHEMAS;
  return {
    maxFileBytes: validOrDefault(s.maxFileBytes, input.maxFileBytes),
    chunkMaxBytes: validOrDefault(s.chunkMaxBytes, input.chunkMaxBytes),
    include: validOrDefault(s.include, input.include),
    exclude: validOrDefault(s.exclude, input.exclude),
    indexSecretFiles: validOrDefault(s.indexSecretFiles, input.indexSecretFiles),
    prepareThreads: validOrDefault(s.prepareThreads, input.prepareThreads) ?? Math.min(1, availableParallelism() - 1),
  };
}

export function resolveSearchOptions(input: SearchOptionsInput = {}): SearchOptions {
  const s = SEARCH_OPTION_SCHEMAS;
  const weights = s.listWeights.unwrap().shape;
  const stages = s.stages.unwrap().shape;
  // More than the most gives the most, not the default: "find similar" asks for one more than the user's limit.
  const limit = validOrDefault(s.limit, input.limit === undefined ? undefined : Math.min(input.limit, MAX_LIMIT));
  const offset = validOrDefault(s.offset, input.offset === undefined ? undefined : Math.min(input.offset, MAX_OFFSET));
  return {
    limit,
    offset,
    candidateDepth: validOrDefault(s.candidateDepth, input.candidateDepth) || Math.max(DEFAULT_CANDIDATE_DEPTH, 2 * limit),
    rrfK: validOrDefault(s.rrfK, input.rrfK),
    listWeights: {
      porter: validOrDefault(weights.porter, input.listWeights?.porter),
      trigram: validOrDefault(weights.trigram, input.listWeights?.trigram),
      feedback: validOrDefault(weights.feedback, input.listWeights?.feedback),
      semantic: validOrDefault(weights.semantic, input.listWeights?.semantic),
    },
    semanticStandout: validOrDefault(s.semanticStandout, input.semanticStandout),
    rerankWindow: validOrDefault(s.rerankWindow, input.rerankWindow) || Math.max(30, 3 * limit),
    titleColumnWeight: validOrDefault(s.titleColumnWeight, input.titleColumnWeight),
    testWeight: validOrDefault(s.testWeight, input.testWeight),
    changelogWeight: validOrDefault(s.changelogWeight, input.changelogWeight),
    buildOutputWeight: validOrDefault(s.buildOutputWeight, input.buildOutputWeight),
    vendoredWeight: validOrDefault(s.vendoredWeight, input.vendoredWeight),
    fuzzy: validOrDefault(s.fuzzy, input.fuzzy),
    wordsHeldElsewhere: validOrDefault(s.wordsHeldElsewhere, input.wordsHeldElsewhere),
    stages: {
      porter: validOrDefault(stages.porter, input.stages?.porter),
      trigram: validOrDefault(stages.trigram, input.stages?.trigram),
      proximity: validOrDefault(stages.proximity, input.stages?.proximity),
      feedback: validOrDefault(stages.feedback, input.stages?.feedback),
      semantic: validOrDefault(stages.semantic, input.stages?.semantic),
      copies: validOrDefault(stages.copies, input.stages?.copies),
    },
    filters: input.filters ?? {},
  };
}
