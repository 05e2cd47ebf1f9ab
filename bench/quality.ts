// `npm run bench:quality [-- --sets scifact,cosqa,cranfield] [-- --eval-dir DIR]`
//
// Scores plain FTS5 Porter, context-mode's ContentStore (searchWithFallback, each document one
// source) and ours (the full pipeline and each ablation, via src/core/eval) on the shared BEIR
// sets, clean and with the typo queries; then runs the golden mixed-workspace cases on all three.
// Prints the tables, writes docs/benchmarks/quality.json and the nDCG@10 plots.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Engine } from '../src/core/engine.ts';
import { loadBeir, type BeirDataset } from '../src/core/eval/beir.ts';
import { mean, score, type Scores } from '../src/core/eval/metrics.ts';
import { ABLATIONS, evaluate, type Ablation } from '../src/core/eval/run.ts';
import { GOLDEN_CASES, GOLDEN_FILES } from '../test/fixtures/golden/corpus.ts';
import { contextModeVersion, Fts5Floor, openContentStore, type ContentStoreLike } from './lib/peers.ts';
import { barChart } from './lib/svg.ts';

const DEPTH = 100;
const OUT = path.resolve('docs/benchmarks');
const ABLATION_NAMES = Object.keys(ABLATIONS) as Ablation[];

type Variant = 'clean' | 'typo';
type System = 'fts5' | 'contentstore' | `ours:${Ablation}`;

interface SetResult {
  set: string;
  queries: number;
  docs: number;
  scores: Record<Variant, Partial<Record<System, Scores>>>;
  seconds: Partial<Record<System | 'contentstore-index' | 'fts5-index', number>>;
  date: string;
}

interface GoldenRow {
  query: string;
  expected: string;
  why: string;
  top: Record<'ours' | 'contentstore' | 'fts5', string | undefined>;
}

const NAME: Record<string, string> = {
  fts5: 'FTS5 Porter',
  contentstore: 'ContentStore',
  ...Object.fromEntries(ABLATION_NAMES.map((a) => [`ours:${a}`, a === 'full' ? 'ours (full)' : `ours: ${a}`])),
};

/** Ranked document ids, each id once, at most DEPTH. */
function ranked(ids: Iterable<string>): string[] {
  const seen = new Set<string>();
  for (const id of ids) {
    seen.add(id);
    if (seen.size === DEPTH) break;
  }
  return [...seen];
}

function scoreAll(dataset: BeirDataset, run: (text: string) => string[]): Scores {
  return mean(dataset.queries.map((query) => score(run(query.text), dataset.qrels.get(query.id)!)));
}

async function runSet(evalDir: string, set: string): Promise<SetResult> {
  const dir = path.join(evalDir, set);
  const clean = await loadBeir(dir);
  const typo = await loadBeir(dir, { queriesFile: path.join(dir, 'queries-typo.jsonl') });
  const result: SetResult = {
    set,
    queries: clean.queries.length,
    docs: clean.documents.length,
    scores: { clean: {}, typo: {} },
    seconds: {},
    date: new Date().toISOString().slice(0, 10),
  };
  const work = fs.mkdtempSync(path.join(os.tmpdir(), `bench-quality-${set}-`));
  const time = <T>(key: keyof SetResult['seconds'], f: () => T): T => {
    const started = performance.now();
    const value = f();
    result.seconds[key] = (performance.now() - started) / 1000;
    return value;
  };
  try {
    // The floor: one row per document, title and text columns, BM25, OR of the quoted words.
    const floor = new Fts5Floor(path.join(work, 'fts5.db'));
    time('fts5-index', () =>
      floor.db.transaction(() => {
        for (const doc of clean.documents) floor.replace(doc.id, [{ title: doc.title, text: doc.text }]);
      })(),
    );
    for (const [variant, dataset] of [
      ['clean', clean],
      ['typo', typo],
    ] as const) {
      result.scores[variant].fts5 = scoreAll(dataset, (text) => ranked(floor.search(text, DEPTH).map((r) => r.source)));
    }
    floor.close();

    // ContentStore: each document one source, its title as the heading its Markdown chunker keys on.
    const store: ContentStoreLike = await openContentStore(path.join(work, 'contentstore.db'));
    // (It refuses empty content; an empty document cannot be found by any engine, so it is skipped.)
    time('contentstore-index', () => {
      for (const doc of clean.documents) {
        const content = doc.title ? `# ${doc.title}\n\n${doc.text}` : doc.text;
        if (content.trim()) store.index({ content, source: doc.id });
      }
    });
    for (const [variant, dataset] of [
      ['clean', clean],
      ['typo', typo],
    ] as const) {
      result.scores[variant].contentstore = time('contentstore', () =>
        scoreAll(dataset, (text) => ranked(store.searchWithFallback(text, DEPTH).map((r) => r.source))),
      );
    }
    store.close();

    // Ours, through the same evaluation the unit tests use.
    for (const [variant, dataset] of [
      ['clean', clean],
      ['typo', typo],
    ] as const) {
      const report = time('ours:full', () => evaluate(dataset, 'test', ABLATION_NAMES));
      for (const ablation of ABLATION_NAMES) result.scores[variant][`ours:${ablation}`] = report.results[ablation];
    }
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
  return result;
}

async function runGolden(): Promise<GoldenRow[]> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-golden-'));
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-golden-db-'));
  try {
    for (const [relPath, text] of Object.entries(GOLDEN_FILES)) {
      fs.mkdirSync(path.dirname(path.join(root, relPath)), { recursive: true });
      fs.writeFileSync(path.join(root, relPath), text);
    }
    const engine = await Engine.open({ root, dbFile: path.join(work, 'ours.db') });
    await engine.sync();
    const store = await openContentStore(path.join(work, 'contentstore.db'));
    const floor = new Fts5Floor(path.join(work, 'fts5.db'));
    for (const [relPath, text] of Object.entries(GOLDEN_FILES)) {
      store.index({ path: path.join(root, relPath), source: relPath });
      floor.replace(relPath, [{ title: relPath, text }]);
    }
    const rows: GoldenRow[] = [];
    for (const golden of GOLDEN_CASES) {
      rows.push({
        query: golden.query,
        expected: golden.top,
        why: golden.why,
        top: {
          ours: (await engine.search(golden.query, { limit: 5 })).results[0]?.path,
          contentstore: store.searchWithFallback(golden.query, 5)[0]?.source,
          fts5: floor.search(golden.query, 5)[0]?.source,
        },
      });
    }
    engine.close();
    store.close();
    floor.close();
    return rows;
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
    fs.rmSync(work, { recursive: true, force: true });
  }
}

const f3 = (v: number | undefined) => (v === undefined ? '—' : v.toFixed(3));

function report(sets: SetResult[], golden: GoldenRow[]): void {
  const systems: System[] = ['fts5', 'contentstore', ...ABLATION_NAMES.map((a) => `ours:${a}` as System)];
  for (const set of sets) {
    console.log(`\n--- ${set.set}: ${set.docs} documents, ${set.queries} test queries`);
    console.log(`${'system'.padEnd(16)}  nDCG@10  MRR@10   R@100 | typo: nDCG@10  MRR@10   R@100`);
    for (const system of systems) {
      const c = set.scores.clean[system];
      const t = set.scores.typo[system];
      console.log(
        `${NAME[system]!.padEnd(16)}  ${f3(c?.ndcg10).padStart(7)} ${f3(c?.mrr10).padStart(7)} ${f3(c?.recall100).padStart(7)} |       ${f3(t?.ndcg10).padStart(7)} ${f3(t?.mrr10).padStart(7)} ${f3(t?.recall100).padStart(7)}`,
      );
    }
    const best = (variant: Variant) => Math.max(set.scores[variant].fts5!.ndcg10, set.scores[variant].contentstore!.ndcg10);
    const ours = (variant: Variant) => set.scores[variant]['ours:full']!.ndcg10;
    console.log(`ours (full) − best peer, nDCG@10: clean ${(ours('clean') - best('clean')).toFixed(3)}, typo ${(ours('typo') - best('typo')).toFixed(3)}`);
    console.log(
      `seconds: ${Object.entries(set.seconds)
        .map(([k, v]) => `${k} ${v.toFixed(1)}`)
        .join(', ')}`,
    );
  }
  console.log(`\n--- golden mixed-workspace cases (${golden.length}): top result per engine`);
  const mark = (got: string | undefined, expected: string) => (got === expected ? 'ok' : `MISS (${got ?? 'nothing'})`);
  for (const row of golden)
    console.log(
      `  ${row.query.padEnd(40)} ${row.expected.padEnd(48)} ours ${mark(row.top.ours, row.expected)}; ContentStore ${mark(row.top.contentstore, row.expected)}; FTS5 ${mark(row.top.fts5, row.expected)}`,
    );
  const count = (e: keyof GoldenRow['top']) => golden.filter((r) => r.top[e] === r.expected).length;
  console.log(
    `  top-1 correct: ours ${count('ours')}/${golden.length}, ContentStore ${count('contentstore')}/${golden.length}, FTS5 Porter ${count('fts5')}/${golden.length}`,
  );
}

function plots(sets: SetResult[]): void {
  for (const variant of ['clean', 'typo'] as const) {
    fs.writeFileSync(
      path.join(OUT, `ndcg-${variant}.svg`),
      barChart({
        title: `nDCG@10 per set — ${variant === 'clean' ? 'clean queries' : 'queries with one misspelled word'}`,
        yLabel: 'nDCG@10',
        yMax: 1,
        groups: sets.map((set) => ({
          label: set.set,
          bars: [
            { name: 'FTS5 Porter', value: set.scores[variant].fts5!.ndcg10 },
            { name: 'ContentStore', value: set.scores[variant].contentstore!.ndcg10 },
            { name: 'ours (full)', value: set.scores[variant]['ours:full']!.ndcg10 },
          ],
        })),
      }),
    );
  }
  fs.writeFileSync(
    path.join(OUT, 'ndcg-ablations.svg'),
    barChart({
      title: 'nDCG@10 of ours per ablation, clean and typo',
      yLabel: 'nDCG@10',
      yMax: 1,
      groups: sets.flatMap((set) =>
        (['clean', 'typo'] as const).map((variant) => ({
          label: `${set.set} ${variant}`,
          bars: ABLATION_NAMES.map((a) => ({ name: a, value: set.scores[variant][`ours:${a}`]!.ndcg10 })),
        })),
      ),
    }),
  );
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const value = (flag: string) => {
    const i = args.indexOf(flag);
    return i === -1 ? undefined : args[i + 1];
  };
  const evalDir = path.resolve(value('--eval-dir') ?? process.env.FUSED_EVAL_DIR ?? '../shared/eval');
  const names = value('--sets')?.split(',') ?? ['scifact', 'cosqa', 'cranfield'];
  if (!fs.existsSync(evalDir)) throw new Error(`${evalDir} does not exist: pass --eval-dir or set FUSED_EVAL_DIR`);
  console.log(`Eval sets from ${evalDir}; context-mode ${contextModeVersion()}; ${process.version}`);
  const sets: SetResult[] = [];
  for (const name of names) {
    process.stdout.write(`scoring ${name}…`);
    sets.push(await runSet(evalDir, name));
    console.log(' done');
  }
  const golden = await runGolden();
  report(sets, golden);
  fs.mkdirSync(OUT, { recursive: true });
  // A run of some sets replaces those sets in quality.json and keeps the others, so the plots
  // always show every set scored so far; each set records the date it was scored.
  const file = path.join(OUT, 'quality.json');
  const previous = fs.existsSync(file) ? (JSON.parse(fs.readFileSync(file, 'utf8')) as { sets: SetResult[] }).sets : [];
  const order = ['scifact', 'cosqa', 'cranfield'];
  const merged = [...previous.filter((p) => !names.includes(p.set)), ...sets].sort((a, b) => order.indexOf(a.set) - order.indexOf(b.set));
  fs.writeFileSync(file, JSON.stringify({ node: process.version, contextMode: contextModeVersion(), sets: merged, golden }, null, 1) + '\n');
  plots(merged);
  console.log(`\nWrote ${path.relative(process.cwd(), OUT)}/quality.json and the nDCG plots.`);
}

await main();
