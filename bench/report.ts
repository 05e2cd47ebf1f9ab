// `node bench/report.ts [--write]`: the Markdown tables of docs/benchmarks.md, rendered from the
// JSON that `npm run bench:speed` and `npm run bench:quality` wrote into docs/benchmarks/, so the
// report's figures are copied from one run rather than typed. --write puts them between the
// report's `<!-- BEGIN x -->` / `<!-- END x -->` markers instead of printing them.

import fs from 'node:fs';
import path from 'node:path';
import { percentile } from './lib/corpora.ts';

const OUT = path.resolve('docs/benchmarks');
const LABEL: Record<string, string> = { ours: 'ours', contentstore: 'ContentStore', fts5: 'FTS5 Porter', ripgrep: 'ripgrep' };
const f = (v: number, d = 1) => (Number.isFinite(v) ? v.toFixed(d) : '—');
const row = (cells: Array<string | number>) => `| ${cells.join(' | ')} |`;
const sorted = (v: number[]) => [...v].sort((a, b) => a - b);
const sections: Record<string, string[]> = { machine: [], speed: [], 'speed-plots': [], quality: [] };
let section = 'speed';
const out = (line: string) => sections[section]!.push(line);

interface IndexRun {
  engine: string;
  files: number;
  filesTotal: number;
  textBytes: number;
  seconds: number;
  dbBytes: number;
  peakMb: number;
  capped: boolean;
  tenths: Array<{ msPerFile: number }>;
  reindexMs: number;
  /** Absent from runs before the thirty-fifth session, which timed one re-index. */
  reindexLaterMs?: number;
  reindexPath: string;
}
interface QueryRun {
  engine: string;
  openMs: number;
  cold: number[];
  warm: number[][];
  hits: number[];
}

/** A corpus may be run again on its own (`--only`): each table says its run's date, the machine section all of them. */
const runDates = new Set<string>();
for (const file of fs
  .readdirSync(OUT)
  .filter((n) => /^speed-.*\.json$/.test(n))
  .sort((a, b) => order(a) - order(b))) {
  const r = JSON.parse(fs.readFileSync(path.join(OUT, file), 'utf8')) as {
    corpus: string;
    files: number;
    textBytes: number;
    index: IndexRun[];
    query: QueryRun[];
    queries: Array<{ text: string }>;
    ripgrep: Record<'literal' | 'twoWords', { pattern: string; ms: number[]; files: number }>;
    machine: Record<string, string>;
  };
  if (sections.machine!.length === 0) {
    const m = r.machine;
    sections.machine!.push(
      `- CPU: ${m.cpu}; memory ${m.memory}; ${m.os}`,
      `- Node ${m.node}; context-mode ${m.contextMode}; ${m.ripgrep}; medium corpus ${m.medium}`,
    );
  }
  runDates.add(r.machine.date!);
  sections['speed-plots']!.push(
    `![per-file indexing cost, ${r.corpus}](benchmarks/index-cost-${r.corpus}.svg)`,
    `![query latency, ${r.corpus}](benchmarks/latency-${r.corpus}.svg)`,
  );
  out(`\n#### ${r.corpus} — ${r.files} text files, ${f(r.textBytes / 1e6)} MB (run of ${r.machine.date})\n`);
  out(
    row([
      'engine',
      'files indexed',
      'seconds',
      'MB/s',
      'index MB',
      'index / text',
      'peak RSS MB',
      'ms/file, 1st tenth',
      'ms/file, last tenth',
      'last / 1st',
      '2nd half / 1st half',
      're-index one file, ms: first',
      'later (median of 5)',
    ]),
  );
  out(row(Array<string>(13).fill('---')));
  for (const x of r.index) {
    const first = x.tenths[0]?.msPerFile ?? NaN;
    const last = x.tenths.at(-1)?.msPerFile ?? NaN;
    // Halves average five tenths each: steadier than single tenths when an engine reports progress in samples.
    const half = (tenths: Array<{ msPerFile: number }>) => tenths.reduce((sum, t) => sum + t.msPerFile, 0) / tenths.length;
    const halves = x.tenths.length === 10 ? half(x.tenths.slice(5)) / half(x.tenths.slice(0, 5)) : NaN;
    out(
      row([
        LABEL[x.engine]! + (x.capped ? ` (capped: ${x.files} of ${x.filesTotal})` : ''),
        x.files,
        f(x.seconds),
        f(x.textBytes / 1e6 / x.seconds, 2),
        f(x.dbBytes / 1e6),
        f(x.dbBytes / x.textBytes, 2),
        x.peakMb,
        f(first, 2),
        f(last, 2),
        f(last / first, 2),
        f(halves, 2),
        f(x.reindexMs),
        f(x.reindexLaterMs ?? NaN),
      ]),
    );
  }
  const ours = r.index.find((x) => x.engine === 'ours')!;
  const cs = r.index.find((x) => x.engine === 'contentstore')!;
  out(
    `\nContentStore / ours, time per file indexed: **${f(cs.seconds / cs.files / (ours.seconds / ours.files))}×**; re-index of \`${ours.reindexPath}\`: **${f(cs.reindexMs / ours.reindexMs)}×**${laterReindex(cs, ours)}.\n`,
  );
  out(row(['engine', 'open ms', 'cold p50', 'cold p95', 'cold p99', 'warm p50', 'warm p95', 'warm p99', 'queries with no result']));
  out(row(Array<string>(9).fill('---')));
  const p = (v: number[], q: number) => f(percentile(sorted(v), q), 2);
  for (const x of r.query)
    out(
      row([
        LABEL[x.engine]!,
        x.engine === 'ripgrep' ? '—' : f(x.openMs),
        p(x.cold, 50),
        p(x.cold, 95),
        p(x.cold, 99),
        p(x.warm.flat(), 50),
        p(x.warm.flat(), 95),
        p(x.warm.flat(), 99),
        `${x.hits.filter((h) => h === 0).length} / ${x.hits.length}`,
      ]),
    );
  const warm95 = (e: string) => percentile(sorted(r.query.find((x) => x.engine === e)!.warm.flat()), 95);
  out(`\nWarm p95, ours / ContentStore: **${f(warm95('ours') / warm95('contentstore'), 2)}×**.\n`);
  const med = (v: number[]) => percentile(sorted(v), 50);
  const twoIndex = r.queries.findIndex(
    (q) =>
      q.text.split(' ').length === 2 &&
      r.ripgrep.twoWords.pattern.includes(q.text.split(' ')[0]!) &&
      r.ripgrep.twoWords.pattern.includes(q.text.split(' ')[1]!),
  );
  const oursTwo = twoIndex >= 0 ? med(r.query.find((x) => x.engine === 'ours')!.warm[twoIndex]!) : NaN;
  out(
    `ripgrep over the same tree (median of ${r.ripgrep.literal.ms.length} runs): literal \`${r.ripgrep.literal.pattern}\` ${f(med(r.ripgrep.literal.ms))} ms (${r.ripgrep.literal.files} files); two words, any case, \`${r.ripgrep.twoWords.pattern}\` ${f(med(r.ripgrep.twoWords.ms))} ms (${r.ripgrep.twoWords.files} files)` +
      (twoIndex >= 0
        ? `; ours for "${r.queries[twoIndex]!.text}" ${f(oursTwo, 2)} ms warm median — ripgrep / ours **${f(med(r.ripgrep.twoWords.ms) / oursTwo, 0)}×**.`
        : '.'),
  );
}

sections.machine!.push(`- Runs of ${[...runDates].sort().join(' and ')}`);

/** `, 2.2× later ones`, when the run timed later re-indexes (from the thirty-fifth session on). */
function laterReindex(cs: IndexRun, ours: IndexRun): string {
  const ratio = (cs.reindexLaterMs ?? NaN) / (ours.reindexLaterMs ?? NaN);
  return Number.isFinite(ratio) ? ` the first, **${f(ratio)}×** later ones` : '';
}

const qualityFile = path.join(OUT, 'quality.json');
if (fs.existsSync(qualityFile)) {
  section = 'quality';
  const q = JSON.parse(fs.readFileSync(qualityFile, 'utf8')) as {
    sets: Array<{
      set: string;
      docs: number;
      queries: number;
      scores: Record<'clean' | 'typo', Record<string, { ndcg10: number; mrr10: number; recall100: number }>>;
    }>;
    golden: Array<{ query: string; expected: string; why: string; top: Record<string, string | undefined> }>;
  };
  const names: Record<string, string> = {
    fts5: 'FTS5 Porter',
    contentstore: 'ContentStore',
    'ours:porter': 'ours: Porter list only',
    'ours:trigram': 'ours: trigram list only',
    'ours:rrf': 'ours: RRF of both',
    'ours:proximity': 'ours: + proximity rerank',
    'ours:feedback': 'ours: + feedback list',
    'ours:full': '**ours: full (+ typo retry)**',
  };
  for (const set of q.sets) {
    out(`\n#### ${set.set} — ${set.docs} documents, ${set.queries} test queries\n`);
    out(row(['system', 'nDCG@10', 'MRR@10', 'R@100', 'typo nDCG@10', 'typo MRR@10', 'typo R@100']));
    out(row(Array<string>(7).fill('---')));
    for (const [key, name] of Object.entries(names)) {
      const c = set.scores.clean[key]!;
      const t = set.scores.typo[key]!;
      out(row([name, f(c.ndcg10, 3), f(c.mrr10, 3), f(c.recall100, 3), f(t.ndcg10, 3), f(t.mrr10, 3), f(t.recall100, 3)]));
    }
  }
  out('\n#### Golden mixed-workspace cases: top result\n');
  out(row(['query', 'expected first', 'ours', 'ContentStore', 'FTS5 Porter']));
  out(row(Array<string>(5).fill('---')));
  const mark = (got: string | undefined, expected: string) => (got === expected ? '✓' : `✗ ${got ?? '(nothing)'}`);
  for (const g of q.golden)
    out(row([`\`${g.query}\``, `\`${g.expected}\``, mark(g.top.ours, g.expected), mark(g.top.contentstore, g.expected), mark(g.top.fts5, g.expected)]));
}

function order(file: string): number {
  return ['speed-npm.json', 'speed-rxjs.json', 'speed-linux.json'].indexOf(file) + 1 || 99;
}

if (process.argv.includes('--write')) {
  const doc = path.resolve('docs/benchmarks.md');
  let text = fs.readFileSync(doc, 'utf8');
  for (const [name, lines] of Object.entries(sections)) {
    const pattern = new RegExp(`(<!-- BEGIN ${name} -->\\n)[\\s\\S]*?(<!-- END ${name} -->)`);
    text = text.replace(pattern, (_, begin: string, end: string) => `${begin}${lines.join('\n').trim()}\n${end}`);
  }
  fs.writeFileSync(doc, text);
} else {
  for (const [name, lines] of Object.entries(sections)) console.log(`<!-- ${name} -->\n${lines.join('\n')}\n`);
}
