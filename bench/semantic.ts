// `npm run bench:semantic [-- --sets scifact,cosqa,cranfield] [-- --split test] [-- --eval-dir DIR]`
//
// The semantic lane's quality on the shared BEIR sets with the Universal Sentence Encoder lite
// (512 dimensions, the model npm ships), served over Ollama's protocol by the test server and
// embedded through the lane exactly as an index is:
//
// - the full pipeline without the lane, with it at each candidate weight, and the semantic list
//   alone: nDCG@10, MRR@10, R@100 on the test split; and at the default weight with the vectors
//   partitioned as a large tree's are (an approximate search; these sets are small enough for a
//   full scan otherwise); and at the default weight with the list fused whatever its standout, and
//   at other standouts (`semanticStandout`: a list whose nearest chunk does not stand out is not
//   fused);
// - the default weight by one rule for every set: the largest candidate that lowers nDCG@10 on no
//   set;
// - a vocabulary-gap variant: every query's words are deleted from its relevant documents, so only
//   other words, or meaning, can find them; Recall@10/100 of the lexical pipeline against the same
//   with the lane.
//
// `--split train` (scifact) or `--split dev` (cosqa) measures on the queries the defaults may be
// chosen on, without the vocabulary gap (it would embed other documents anew); cranfield has a
// test split only.
//
// Vectors are kept in bench/out/semantic/<set>.db between runs (keyed by content, so the gap
// variant embeds only the documents it changed). Prints the tables and writes
// docs/benchmarks/semantic.json (semantic-<split>.json for another split).

import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { loadBeir, type BeirDataset } from '../src/core/eval/beir.ts';
import { mean, recallAt, type Scores } from '../src/core/eval/metrics.ts';
import { RECALL_DEPTH, scoreAsAsked } from '../src/core/eval/run.ts';
import { ollamaEmbedder } from '../src/core/semantic/http-embedders.ts';
import { SemanticLane, type SemanticList } from '../src/core/semantic/lane.ts';
import { DEFAULT_SEARCH_OPTIONS, resolveSearchOptions, type SearchOptionsInput } from '../src/core/options.ts';
import { Vocabulary } from '../src/core/search/fuzzy.ts';
import { search, type SearchContext } from '../src/core/search/pipeline.ts';
import { IndexStore } from '../src/core/store/store.ts';
import { VectorStore } from '../src/core/store/vectors.ts';
import { startEmbeddingServer } from '../test/unit/helpers/embedding-server.ts';

const { values } = parseArgs({
  options: {
    sets: { type: 'string', default: 'scifact,cosqa,cranfield' },
    split: { type: 'string', default: 'test' },
    'eval-dir': { type: 'string', default: '../shared/eval' },
  },
});
const WEIGHTS = [0.05, 0.1, 0.15, 0.25, 0.5, 0.75, 1] as const;
const DEFAULT_WEIGHT = resolveSearchOptions().listWeights.semantic;
const DEFAULT_STANDOUT = resolveSearchOptions().semanticStandout;
const STANDOUTS = [0, 2.5, 3.5] as const;
const WITH_GAP = values.split === 'test';
const CACHE = path.resolve('bench/out/semantic');
const OUT = path.resolve('docs/benchmarks');
/** The full pipeline, as a user gets it with fuzzy off (the typo retry is not what is measured here); the limit is scoreAsAsked's. */
const FULL: SearchOptionsInput = { fuzzy: 'off' };
const SEMANTIC_ALONE: SearchOptionsInput = { ...FULL, semanticStandout: 0, stages: { porter: false, trigram: false, proximity: false, feedback: false } };

interface SetReport {
  set: string;
  docs: number;
  queries: number;
  embedSeconds: number;
  embedded: number;
  scores: Record<string, Scores>;
  /** Share of the queries whose semantic list was not fused at the default weight and standout: its nearest chunk did not stand out. */
  unfusedShare: number;
  /** Share of the exact float32 scan's top 10 and top 100 that the lane's int8 scan + rescore returns. */
  int8Overlap: { at10: number; at100: number };
  /** The same for the partitioned search a large tree gets (vector-partition.ts). */
  partitionedOverlap: { at10: number; at100: number };
  gap?: { docsChanged: number; lexical: { r10: number; r100: number }; withLane: { r10: number; r100: number } };
}

const server = await startEmbeddingServer();
const embedder = ollamaEmbedder({ provider: 'ollama', model: 'use-lite', endpoint: server.url, batchSize: 32, timeoutMs: 120_000 });
fs.mkdirSync(CACHE, { recursive: true });
const reports: SetReport[] = [];
try {
  for (const set of values.sets.split(',')) {
    const dataset = await loadBeir(path.join(values['eval-dir'], set), { split: values.split });
    reports.push(await measure(dataset));
  }
} finally {
  await server.close();
}

/** nDCG@10 gained by a weight on a set: lane minus lexical, negative when the lane costs. */
const gain = (r: SetReport, w: number) => r.scores[`lane ${w}`]!.ndcg10 - r.scores.lexical!.ndcg10;
const chosen = [...WEIGHTS].reverse().find((w) => reports.every((r) => gain(r, w) >= 0));
printTables(reports, chosen);
fs.mkdirSync(OUT, { recursive: true });
fs.writeFileSync(
  path.join(OUT, values.split === 'test' ? 'semantic.json' : `semantic-${values.split}.json`),
  `${JSON.stringify({ date: new Date().toISOString(), model: embedder.modelId, chosenWeight: chosen ?? null, reports }, null, 2)}\n`,
);

async function measure(dataset: BeirDataset): Promise<SetReport> {
  const { store, lane, embedSeconds, embedded } = await indexAndEmbed(`${dataset.name}.db`, dataset.documents);
  const scores: Record<string, Scores> = {};
  let unfusedShare = 0;
  let int8Overlap: SetReport['int8Overlap'];
  let partitionedOverlap: SetReport['int8Overlap'];
  try {
    const vocabulary = vocabularyOf(store);
    const lists = new Map<string, SemanticList>();
    for (const query of dataset.queries) lists.set(query.id, await lane.nearest(query.text, RECALL_DEPTH));
    const run = (name: string, options: SearchOptionsInput, withLane: boolean) => {
      let quiet = 0;
      scores[name] = mean(
        dataset.queries.map((query) => {
          const context = { store, vocabulary: () => vocabulary, ...(withLane ? { semantic: lists.get(query.id)! } : {}) };
          return scoreAsAsked((limit) => {
            const answer = search(context, query.text, { ...options, limit });
            if (limit === DEFAULT_SEARCH_OPTIONS.limit && answer.semantic?.skipped) quiet++;
            return ids(answer.results);
          }, dataset.qrels.get(query.id)!);
        }),
      );
      return quiet / dataset.queries.length;
    };
    run('lexical', FULL, false);
    for (const weight of WEIGHTS) {
      const quiet = run(`lane ${weight}`, { ...FULL, listWeights: { semantic: weight } }, true);
      if (weight === DEFAULT_WEIGHT) unfusedShare = quiet;
    }
    for (const standout of STANDOUTS) run(`lane ${DEFAULT_WEIGHT}, standout ${standout}`, { ...FULL, semanticStandout: standout }, true);
    run('semantic alone', SEMANTIC_ALONE, true);
    int8Overlap = await overlapWithExact(store, dataset, lists);
    // The same at the default weight with the copy partitioned as a large tree's is (each set is
    // small enough for a full scan otherwise): what the approximate search costs in quality.
    const partitionedLane = new SemanticLane(embedder, new VectorStore(store, { partitionFromValues: 1 }), { queryBudgetMs: 120_000 });
    await partitionedLane.prepare();
    for (const query of dataset.queries) lists.set(query.id, await partitionedLane.nearest(query.text, RECALL_DEPTH));
    run(`lane ${DEFAULT_WEIGHT}, partitioned`, { ...FULL, listWeights: { semantic: DEFAULT_WEIGHT } }, true);
    partitionedOverlap = await overlapWithExact(store, dataset, lists);
  } finally {
    store.close();
  }
  return {
    set: dataset.name,
    docs: dataset.documents.length,
    queries: dataset.queries.length,
    embedSeconds,
    embedded,
    scores,
    unfusedShare,
    int8Overlap,
    partitionedOverlap,
    ...(WITH_GAP ? { gap: await vocabularyGap(dataset) } : {}),
  };
}

/** The lane's nearest chunks against an exact scan of every stored float32 vector, per query. */
async function overlapWithExact(store: IndexStore, dataset: BeirDataset, lists: ReadonlyMap<string, SemanticList>): Promise<SetReport['int8Overlap']> {
  const rows = store.db.prepare('SELECT h.chunk_id AS id, v.vector FROM chunk_hashes h JOIN vectors v ON v.hash = h.hash').all() as Array<{
    id: number;
    vector: Buffer;
  }>;
  const matrix = rows.map((row) => new Float32Array(row.vector.buffer.slice(row.vector.byteOffset, row.vector.byteOffset + row.vector.byteLength)));
  const at10: number[] = [];
  const at100: number[] = [];
  for (const query of dataset.queries) {
    const [vector] = await embedder.embed([query.text.trim()]);
    const exact = matrix.map((v, i) => ({ id: rows[i]!.id, cosine: v.reduce((sum, x, d) => sum + x * vector![d]!, 0) })).sort((a, b) => b.cosine - a.cosine);
    const list = lists.get(query.id)!;
    const lane = new Set('rows' in list ? list.rows.map((row) => row.id) : []);
    const share = (k: number) => exact.slice(0, k).filter((row) => lane.has(row.id)).length / k;
    at10.push(share(10));
    at100.push(share(100));
  }
  return { at10: avg(at10), at100: avg(at100) };
}

/** The set with each query's words cut out of its relevant documents, searched with and without the lane. */
async function vocabularyGap(dataset: BeirDataset): Promise<SetReport['gap']> {
  const cut = new Map<string, Set<string>>();
  for (const query of dataset.queries) {
    for (const [doc, grade] of dataset.qrels.get(query.id) ?? []) {
      if (grade <= 0) continue;
      const words = cut.get(doc) ?? new Set<string>();
      for (const word of wordsOf(query.text)) words.add(stem(word));
      cut.set(doc, words);
    }
  }
  const documents = dataset.documents.map((doc) => {
    const words = cut.get(doc.id);
    if (!words) return doc;
    const strip = (text: string) => text.replace(/[\p{L}\p{N}]+/gu, (word) => (words.has(stem(word.toLowerCase())) ? '' : word));
    return { ...doc, title: strip(doc.title), text: strip(doc.text) };
  });
  // The unchanged documents' vectors are the full set's: copied, not embedded again.
  const { store, lane } = await indexAndEmbed(`${dataset.name}-gap.db`, documents, path.join(CACHE, `${dataset.name}.db`));
  try {
    const vocabulary = vocabularyOf(store);
    const lexical: Array<[number, number]> = [];
    const withLane: Array<[number, number]> = [];
    for (const query of dataset.queries) {
      const judged = dataset.qrels.get(query.id)!;
      const semantic = await lane.nearest(query.text, RECALL_DEPTH);
      // R@10 from a search at the default limit, R@100 from one of 100, as scoreAsAsked scores.
      const recalls = (context: SearchContext): [number, number] => {
        const at = (limit: number) => recallAt(ids(search(context, query.text, { ...FULL, limit }).results), judged, limit);
        return [at(DEFAULT_SEARCH_OPTIONS.limit), at(RECALL_DEPTH)];
      };
      lexical.push(recalls({ store, vocabulary: () => vocabulary }));
      withLane.push(recalls({ store, vocabulary: () => vocabulary, semantic }));
    }
    const average = (rows: Array<[number, number]>) => ({ r10: avg(rows.map((r) => r[0])), r100: avg(rows.map((r) => r[1])) });
    return { docsChanged: cut.size, lexical: average(lexical), withLane: average(withLane) };
  } finally {
    store.close();
  }
}

/** One chunk per document in a cached database, embedded through the lane (only what is missing). */
async function indexAndEmbed(file: string, documents: BeirDataset['documents'], vectorsFrom?: string) {
  const dbFile = path.join(CACHE, file);
  let store = new IndexStore(dbFile);
  // An index of an older schema version was moved aside: its vectors are still good.
  const previous = store.previousVersion;
  if (store.stats().chunks !== documents.length) {
    store.close();
    for (const suffix of ['', '-wal', '-shm']) fs.rmSync(dbFile + suffix, { force: true });
    store = new IndexStore(dbFile);
    store.transaction(() => {
      for (const doc of documents) {
        store.replaceFile({ path: doc.id, size: doc.text.length, mtimeMs: 0, hash: doc.id, language: 'plaintext' }, [
          { title: doc.title, kind: 'prose', startLine: 1, endLine: 1, text: doc.text },
        ]);
      }
    });
  }
  const vectors = new VectorStore(store);
  vectors.ensureSchema();
  if (previous) vectors.carryOverFrom(previous, []);
  if (vectorsFrom && fs.existsSync(vectorsFrom)) vectors.carryOverFrom(vectorsFrom, []);
  const lane = new SemanticLane(embedder, vectors, { queryBudgetMs: 120_000 });
  const started = performance.now();
  const outcome = await lane.embedPending({
    onProgress: ({ done, total }) => process.stderr.write(`\r${file}: embedded ${done}/${total}   `),
  });
  process.stderr.write('\n');
  if (outcome.failed) throw new Error(outcome.failed);
  return { store, lane, embedSeconds: (performance.now() - started) / 1000, embedded: outcome.embedded };
}

function vocabularyOf(store: IndexStore): Vocabulary {
  const { words, docFreq } = store.vocabulary();
  return new Vocabulary(words, docFreq);
}

function ids(results: ReadonlyArray<{ path: string }>): string[] {
  return results.map((result) => result.path);
}

function wordsOf(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}

/** A light suffix strip, so that a query's `throttling` also cuts `throttled` and `throttles`. */
function stem(word: string): string {
  return word.replace(/(ingly|edly|ings|ing|ies|ied|ed|es|s|ly)$/u, '') || word;
}

function avg(values: number[]): number {
  return values.reduce((sum, v) => sum + v, 0) / Math.max(1, values.length);
}

function printTables(all: SetReport[], weight: number | undefined): void {
  const f = (n: number) => n.toFixed(3);
  const names = Object.keys(all[0]?.scores ?? {});
  console.log(`\nQuality with ${embedder.modelId} (${values.split} split; fuzzy off), nDCG@10 | MRR@10 | R@100\n`);
  console.log(`| pipeline | ${all.map((r) => r.set).join(' | ')} |`);
  console.log(`|---|${all.map(() => '---|').join('')}`);
  for (const name of names) {
    console.log(
      `| ${name} | ${all.map((r) => `${f(r.scores[name]!.ndcg10)} \\| ${f(r.scores[name]!.mrr10)} \\| ${f(r.scores[name]!.recall100)}`).join(' | ')} |`,
    );
  }
  console.log(
    `\nEvery "lane" row fuses the list only when its nearest chunk stands ${DEFAULT_STANDOUT} standard deviations above the others, unless its standout says otherwise (0: always).`,
  );
  console.log(`Queries whose list was not fused at ${DEFAULT_WEIGHT}: ${all.map((r) => `${r.set} ${(100 * r.unfusedShare).toFixed(1)}%`).join(', ')}`);
  console.log(`Default weight, the largest of ${WEIGHTS.join(', ')} that lowers nDCG@10 on no set: ${weight ?? 'none'}`);
  const gained = (w: number) => all.map((r) => `${r.set} ${gain(r, w) >= 0 ? '+' : ''}${gain(r, w).toFixed(5)}`).join(', ');
  console.log(`nDCG@10 gained, lane − lexical: ${WEIGHTS.map((w) => `at ${w}: ${gained(w)}`).join('; ')}\n`);
  if (WITH_GAP) {
    console.log("Vocabulary gap (each query's words cut from its relevant documents), Recall@10 | Recall@100\n");
    console.log('| set | documents changed | lexical | lexical + semantic |');
    console.log('|---|---|---|---|');
    for (const { set, gap } of all)
      console.log(
        `| ${set} | ${gap!.docsChanged} | ${f(gap!.lexical.r10)} \\| ${f(gap!.lexical.r100)} | ${f(gap!.withLane.r10)} \\| ${f(gap!.withLane.r100)} |`,
      );
  }
  const overlap = (o: SetReport['int8Overlap']) => `top 10 ${(100 * o.at10).toFixed(1)}%, top 100 ${(100 * o.at100).toFixed(1)}%`;
  console.log(`\nThe int8 scan + float32 rescore against an exact float32 scan: ${all.map((r) => `${r.set} ${overlap(r.int8Overlap)}`).join('; ')}`);
  console.log(`The partitioned search against an exact float32 scan: ${all.map((r) => `${r.set} ${overlap(r.partitionedOverlap)}`).join('; ')}`);
  console.log(`\nEmbedding: ${all.map((r) => `${r.set} ${r.embedded} documents in ${r.embedSeconds.toFixed(0)} s`).join(', ')} (0 when cached)`);
}
