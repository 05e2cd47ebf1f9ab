// `locate` on real issues: SWE-bench Multilingual, each repository at its instance's base commit,
// the issue text in, ranked files out, scored against the files the gold patch modifies; beside it,
// in the same run on the same files, a plain FTS5 baseline (one row per file, path + text, Porter,
// every distinct issue word quoted and OR-ed, BM25).
//
//   npx node bench/locate.ts [--lang L]... [--repo owner/name]... [--split tune|test] [--max N]
//                            [--max-files N] [--mirrors DIR] [--cache DIR] [--src DIR] [--out FILE] [--keep]
//   npx node bench/locate.ts --report FILE [--write]
//                            (the tables again, from a run's JSON; --write puts them, but for the
//                            per-instance rows, into docs/benchmarks.md between its `locate` markers)
//
// --max N instances per language (default 5; 0 = all), dealt round-robin over that language's
// repositories in a fixed hash order, so a small run still spreads over several repositories.
// --max-files skips base commits with more files than N. --mirrors is where the search tool's `fetch`
// put the snapshots (default /work/.mirror, or FUSED_MIRROR_DIR): the dataset repository
// joyon1104/coding-agent-eval and every instance's repository. Trees and indexes go under --cache
// (default ~/.cache/fused-search-bench/locate) and are deleted after use unless --keep, which keeps
// them for the next run (its index times then measure an up-to-date sync, and say so). --src is the
// source tree whose IndexKeeper and locate are measured (default ./src), so two checkouts can be
// compared on the same instances. The JSON of every instance goes to --out (default bench/out/),
// rewritten after each base commit, so a stopped run can still be reported with --report.
//
// The tables report the tune and test splits apart (bench/lib/swebench.ts, repoSplits): whoever tunes
// locate's weights reads the tune rows only, and quotes the test rows.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { textFiles } from './lib/corpora.ts';
import { Fts5Floor } from './lib/peers.ts';
import {
  checkout,
  filesAt,
  hasCommit,
  hashOrder,
  type Instance,
  languageOf,
  mirrorOf,
  patchedPaths,
  readInstances,
  repoSplits,
  type Split,
} from './lib/swebench.ts';
import { errorMessage } from '../src/core/error-message.ts';

const LIMIT = 20;

/** The locate contract (src/core/locate.ts), restated because --src may point at any checkout. */
interface LocateAnswer {
  files: Array<{ path: string; score: number; why: string[] }>;
  clues: Array<{ kind: string; text: string }>;
  elapsedMs: number;
}
interface Keeper {
  sync(): Promise<unknown>;
  close(): Promise<void>;
}
interface Engine {
  open(config: { root: string; dbFile: string; kind: string }): Promise<Keeper>;
  locate?: (keeper: Keeper, text: string, options?: { limit?: number }) => Promise<LocateAnswer>;
}

interface Ranked {
  /** 1-based rank of the first gold file in the top LIMIT, or null. */
  rank: number | null;
  ms: number;
  top: string[];
}
export interface InstanceRun {
  instance: string;
  repo: string;
  language: string;
  split: Split;
  commit: string;
  files: number;
  gold: string[];
  /** Gold files the crawler kept (a gold file over the size cap or ignored cannot be found by either side). */
  goldIndexed: string[];
  indexSeconds: { ours: number | null; fts5: number };
  indexReused: boolean;
  ours: (Ranked & { why: string[]; clues: number }) | null;
  fts5: Ranked;
}
interface RunFile {
  date: string;
  args: string[];
  src: string;
  skipped: Array<{ what: string; why: string }>;
  /** The split of every repository of the dataset. */
  splits: Record<string, Split>;
  wallSeconds: number;
  instances: InstanceRun[];
}

const { values } = parseArgs({
  options: {
    lang: { type: 'string', multiple: true },
    repo: { type: 'string', multiple: true },
    split: { type: 'string' },
    max: { type: 'string', default: '5' },
    'max-files': { type: 'string' },
    mirrors: { type: 'string', default: process.env.FUSED_MIRROR_DIR ?? '/work/.mirror' },
    cache: { type: 'string', default: path.join(os.homedir(), '.cache/fused-search-bench/locate') },
    src: { type: 'string', default: 'src' },
    out: { type: 'string' },
    keep: { type: 'boolean', default: false },
    report: { type: 'string' },
    write: { type: 'boolean', default: false },
  },
});

function wholeNumber(flag: string, text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  if (!/^\d+$/.test(text)) throw new Error(`--${flag} must be a whole number, got ${JSON.stringify(text)}`);
  return Number(text);
}

try {
  if (values.report) {
    const saved = JSON.parse(fs.readFileSync(values.report, 'utf8')) as RunFile;
    if (values.write) writeIntoDocs(report(saved, false));
    else console.log(report(saved));
  } else {
    await run();
  }
} catch (error) {
  console.error(`bench/locate.ts: ${errorMessage(error)}`);
  process.exitCode = 1;
}

async function run(): Promise<void> {
  const started = performance.now();
  const max = wholeNumber('max', values.max) ?? 5;
  const maxFiles = wholeNumber('max-files', values['max-files']);
  if (values.split !== undefined && values.split !== 'tune' && values.split !== 'test') throw new Error(`--split must be tune or test, got ${values.split}`);
  const languages = values.lang?.map((l) => l.toLowerCase());
  const repos = values.repo?.map((r) => r.toLowerCase());

  const skipped: RunFile['skipped'] = [];
  const eligible: Array<Instance & { gitDir: string }> = [];
  const missingSnapshot = new Set<string>();
  const dataset = readInstances(values.mirrors);
  const known = [...new Set(dataset.map((i) => languageOf(i.repo)))].sort();
  const unknownLanguage = languages?.find((l) => !known.some((k) => k.toLowerCase() === l));
  if (unknownLanguage) throw new Error(`--lang ${unknownLanguage} is none of the dataset's languages: ${known.join(', ')}`);
  const unknownRepo = repos?.find((r) => !dataset.some((i) => i.repo.toLowerCase() === r));
  if (unknownRepo) throw new Error(`--repo ${unknownRepo} has no instance in the dataset (owner/name, as in the instances)`);
  const src = path.resolve(values.src);
  const engine = await loadEngine(src);
  if (!engine.locate) console.log(`No locate module at ${path.join(src, 'core/locate.ts')}: running the FTS5 baseline only.\n`);
  const splits = repoSplits(dataset);
  const splitOf = (repo: string) => splits.get(repo.toLowerCase())!;
  for (const instance of dataset) {
    const language = languageOf(instance.repo);
    if (languages && !languages.includes(language.toLowerCase())) continue;
    if (repos && !repos.includes(instance.repo.toLowerCase())) continue;
    if (values.split && splitOf(instance.repo) !== values.split) continue;
    const gitDir = mirrorOf(values.mirrors, instance.repo);
    if (!gitDir) {
      missingSnapshot.add(instance.repo);
      continue;
    }
    if (!hasCommit(gitDir, instance.base_commit)) {
      skipped.push({ what: instance.instance_id, why: `base commit ${instance.base_commit.slice(0, 12)} is not in the snapshot` });
      continue;
    }
    eligible.push({ ...instance, gitDir });
  }
  for (const repo of missingSnapshot) skipped.push({ what: repo, why: `no snapshot under ${values.mirrors}` });

  const chosen = choose(eligible, max);
  const byCommit = new Map<string, typeof chosen>();
  for (const instance of chosen) {
    const key = `${instance.repo.replace('/', '+')}@${instance.base_commit.slice(0, 12)}`;
    byCommit.set(key, [...(byCommit.get(key) ?? []), instance]);
  }
  console.log(`${chosen.length} instances at ${byCommit.size} base commits (of ${eligible.length} runnable), --max ${max} per language\n`);

  const runs: InstanceRun[] = [];
  const date = new Date().toISOString();
  const out = path.resolve(values.out ?? `bench/out/locate-${date.replace(/[:.]/g, '-')}.json`);
  fs.mkdirSync(path.dirname(out), { recursive: true });
  // Written after every base commit, so a long run that is stopped still leaves its figures (--report).
  const save = (): RunFile => {
    const result: RunFile = {
      date,
      args: process.argv.slice(2),
      src,
      skipped,
      splits: Object.fromEntries(splits),
      wallSeconds: (performance.now() - started) / 1000,
      instances: runs,
    };
    fs.writeFileSync(out, JSON.stringify(result, null, 2));
    return result;
  };
  for (const [key, group] of byCommit) {
    try {
      runs.push(...(await measureCommit(key, group, { engine, maxFiles, splitOf, skipped })));
    } catch (error) {
      // One broken checkout or a locate that throws costs that commit's instances, not the whole run.
      for (const instance of group) skipped.push({ what: instance.instance_id, why: `failed: ${errorMessage(error)}` });
      console.log(`${key}: failed, ${errorMessage(error)}`);
    }
    save();
  }

  const result = save();
  console.log(`\nPer-instance results: ${out}\n`);
  console.log(report(result));
}

interface CommitContext {
  engine: Engine;
  maxFiles: number | undefined;
  splitOf: (repo: string) => Split;
  skipped: RunFile['skipped'];
}

/** One base commit: its tree, both indexes, then every chosen instance at that commit. */
async function measureCommit(key: string, group: Array<Instance & { gitDir: string }>, context: CommitContext): Promise<InstanceRun[]> {
  const { engine, maxFiles, splitOf, skipped } = context;
  const { gitDir, base_commit: commit, repo } = group[0]!;
  const tracked = filesAt(gitDir, commit);
  if (maxFiles !== undefined && tracked.size > maxFiles) {
    for (const instance of group) skipped.push({ what: instance.instance_id, why: `${tracked.size} files at the base commit, over --max-files ${maxFiles}` });
    return [];
  }
  const tree = path.join(values.cache, 'trees', key);
  const marker = `${tree}.done`;
  if (!fs.existsSync(marker)) {
    fs.rmSync(tree, { recursive: true, force: true });
    const { absent } = checkout(gitDir, commit, tree);
    if (absent > 0) console.log(`${key}: ${absent} files of 4 MiB or more are not in the snapshot (over the 1 MiB index cap anyway)`);
    fs.writeFileSync(marker, '');
  }
  const dbDir = path.join(values.cache, 'index');
  fs.mkdirSync(dbDir, { recursive: true });
  const oursDb = path.join(dbDir, `${key}.db`);
  const fts5Db = path.join(dbDir, `${key}.fts5.db`);
  const indexReused = fs.existsSync(oursDb);

  const runs: InstanceRun[] = [];
  let keeper: Keeper | undefined;
  let fts5: Fts5Floor | undefined;
  try {
    let oursSeconds: number | null = null;
    if (engine.locate) {
      const t0 = performance.now();
      keeper = await engine.open({ root: tree, dbFile: oursDb, kind: 'cli' });
      await keeper.sync();
      oursSeconds = (performance.now() - t0) / 1000;
    }

    const t1 = performance.now();
    const files = await textFiles(tree);
    for (const suffix of ['', '-wal', '-shm']) fs.rmSync(fts5Db + suffix, { force: true });
    const floor = new Fts5Floor(fts5Db);
    fts5 = floor;
    floor.db.transaction(() => {
      for (const file of files) floor.replace(file.relPath, [{ title: file.relPath, text: fs.readFileSync(file.absPath, 'utf8') }]);
    })();
    const fts5Seconds = (performance.now() - t1) / 1000;
    const indexed = new Set(files.map((f) => f.relPath));

    for (const instance of group) {
      const gold = patchedPaths(instance.patch).filter((p) => tracked.has(p));
      if (gold.length === 0) {
        skipped.push({ what: instance.instance_id, why: 'the gold patch modifies no file that exists at the base commit' });
        continue;
      }
      const goldSet = new Set(gold);
      const rankOf = (paths: string[]) => {
        const at = paths.findIndex((p) => goldSet.has(p));
        return at < 0 ? null : at + 1;
      };

      const t2 = performance.now();
      const baseline = floor.search(instance.problem_statement, LIMIT).map((r) => r.source);
      const fts5Ms = performance.now() - t2;

      let ours: InstanceRun['ours'] = null;
      if (engine.locate && keeper) {
        const t3 = performance.now();
        const answer = await engine.locate(keeper, instance.problem_statement, { limit: LIMIT });
        const ms = performance.now() - t3;
        const paths = answer.files.map((f) => relative(tree, f.path));
        const rank = rankOf(paths);
        ours = { rank, ms, top: paths.slice(0, 5), why: rank ? answer.files[rank - 1]!.why : [], clues: answer.clues.length };
      }

      const result: InstanceRun = {
        instance: instance.instance_id,
        repo,
        language: languageOf(repo),
        split: splitOf(repo),
        commit,
        files: files.length,
        gold,
        goldIndexed: gold.filter((p) => indexed.has(p)),
        indexSeconds: { ours: oursSeconds, fts5: fts5Seconds },
        indexReused,
        ours,
        fts5: { rank: rankOf(baseline), ms: fts5Ms, top: baseline.slice(0, 5) },
      };
      runs.push(result);
      const show = (r: Ranked | null) => (r ? (r.rank ?? '—') : 'n/a');
      console.log(
        `${result.instance.padEnd(36)} ${result.language.padEnd(5)} ${result.split.padEnd(4)} ${String(files.length).padStart(6)} files  ` +
          `index ${oursSeconds?.toFixed(1) ?? '—'} s / ${fts5Seconds.toFixed(1)} s  rank ours ${show(ours)} fts5 ${show(result.fts5)}`,
      );
    }
  } finally {
    fts5?.close();
    await keeper?.close();
    if (!values.keep) {
      for (const file of [oursDb, fts5Db]) for (const suffix of ['', '-wal', '-shm']) fs.rmSync(file + suffix, { force: true });
      fs.rmSync(tree, { recursive: true, force: true });
      fs.rmSync(marker, { force: true });
    }
  }
  return runs;
}

/** Puts the tables between docs/benchmarks.md's `<!-- BEGIN locate -->` and `<!-- END locate -->`. */
function writeIntoDocs(tables: string): void {
  const docs = path.resolve('docs/benchmarks.md');
  const text = fs.readFileSync(docs, 'utf8');
  const [open, close] = ['<!-- BEGIN locate -->', '<!-- END locate -->'];
  const begin = text.indexOf(open);
  const end = text.indexOf(close);
  if (begin < 0 || end < begin) throw new Error(`${docs} has no ${open} … ${close} markers`);
  fs.writeFileSync(docs, `${text.slice(0, begin + open.length)}\n${tables}\n${text.slice(end)}`);
}

/** IndexKeeper and, where the checkout has one, locate, from the source tree `src`. */
async function loadEngine(src: string): Promise<Engine> {
  const keeperModule = path.join(src, 'core/index-keeper.ts');
  if (!fs.existsSync(keeperModule)) throw new Error(`--src ${src} has no core/index-keeper.ts: point it at a Fused Search src/ folder`);
  const { IndexKeeper } = (await import(pathToFileURL(keeperModule).href)) as { IndexKeeper: Engine };
  const locateModule = path.join(src, 'core/locate.ts');
  if (!fs.existsSync(locateModule)) return { open: (config) => IndexKeeper.open(config) };
  const { locate } = (await import(pathToFileURL(locateModule).href)) as Required<Pick<Engine, 'locate'>>;
  return { open: (config) => IndexKeeper.open(config), locate };
}

function relative(root: string, file: string): string {
  return (path.isAbsolute(file) ? path.relative(root, file) : file).split(path.sep).join('/');
}

/**
 * Up to `max` instances per language (0: all), one repository at a time in a fixed hash order, each
 * repository's instances in a fixed hash order too: a small run covers as many repositories as it can.
 */
function choose<T extends Instance>(instances: T[], max: number): T[] {
  const byLanguage = new Map<string, Map<string, T[]>>();
  for (const instance of instances) {
    const language = languageOf(instance.repo);
    const repos = byLanguage.get(language) ?? new Map<string, T[]>();
    repos.set(instance.repo, [...(repos.get(instance.repo) ?? []), instance]);
    byLanguage.set(language, repos);
  }
  const chosen: T[] = [];
  for (const [, repos] of [...byLanguage].sort(([a], [b]) => a.localeCompare(b))) {
    const queues = hashOrder([...repos.keys()], (r) => r).map((r) => hashOrder(repos.get(r)!, (i) => i.instance_id));
    const total = queues.reduce((sum, q) => sum + q.length, 0);
    const wanted = max === 0 ? total : Math.min(max, total);
    for (let taken = 0, turn = 0; taken < wanted; turn++) {
      const next = queues[turn % queues.length]!.shift();
      if (next) {
        chosen.push(next);
        taken++;
      }
    }
  }
  return chosen;
}

interface Scores {
  n: number;
  hit1: number;
  hit5: number;
  hit10: number;
  mrr: number;
}

function scores(ranks: Array<number | null>): Scores {
  const n = ranks.length;
  const share = (k: number) => ranks.filter((r) => r !== null && r <= k).length / n;
  return { n, hit1: share(1), hit5: share(5), hit10: share(10), mrr: ranks.reduce<number>((sum, r) => sum + (r ? 1 / r : 0), 0) / n };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length === 0 ? NaN : sorted[Math.floor((sorted.length - 1) / 2)]!;
}

/** The Markdown tables of a run; `perInstance` adds a row per instance (the JSON has them all the same). */
function report(run: RunFile, perInstance = true): string {
  const lines: string[] = [];
  const say = (text: string) => lines.push(text);
  const f = (v: number, d = 2) => (Number.isFinite(v) ? v.toFixed(d) : '—');
  const row = (cells: Array<string | number>) => say(`| ${cells.join(' | ')} |`);
  const withOurs = run.instances.some((i) => i.ours);
  say(
    `Run of ${run.date}: ${run.instances.length} instances, ${f(run.wallSeconds / 60, 1)} minutes; args: ${run.args.join(' ') || '(none)'}; src ${run.src}\n`,
  );

  const bothSplits = new Set(run.instances.map((i) => i.split)).size > 1;
  for (const split of ['test', 'tune', 'all'] as const) {
    const rows = run.instances.filter((i) => split === 'all' || i.split === split);
    if (rows.length === 0 || (split === 'all' && !bothSplits)) continue;
    say(`#### ${split === 'all' ? 'Both splits' : `The ${split} split`} — Hit@k and MRR@${LIMIT}, locate against FTS5 (one row per file)\n`);
    row([
      'language',
      'instances',
      'repositories',
      'ours Hit@1',
      'Hit@5',
      'Hit@10',
      `MRR@${LIMIT}`,
      'FTS5 Hit@1',
      'Hit@5',
      'Hit@10',
      `MRR@${LIMIT}`,
      'MRR ours / FTS5',
    ]);
    row(Array<string>(12).fill('---'));
    const languages = [...new Set(rows.map((i) => i.language))].sort();
    const behind: string[] = [];
    for (const language of [...languages, 'all']) {
      const group = rows.filter((i) => language === 'all' || i.language === language);
      const ours = withOurs ? scores(group.map((i) => i.ours?.rank ?? null)) : undefined;
      const fts5 = scores(group.map((i) => i.fts5.rank));
      const cells = (s: Scores | undefined) => (s ? [f(s.hit1), f(s.hit5), f(s.hit10), f(s.mrr, 3)] : ['—', '—', '—', '—']);
      const name = language === 'all' ? '**all**' : language;
      row([name, group.length, new Set(group.map((i) => i.repo)).size, ...cells(ours), ...cells(fts5), ours ? f(ours.mrr / fts5.mrr) : '—']);
      if (ours && language !== 'all' && ours.mrr < fts5.mrr) behind.push(language);
      if (ours && language === 'all') {
        const goals = [
          `MRR@${LIMIT} ${f(ours.mrr / fts5.mrr)}× the baseline's (goal ≥ 1.5×)`,
          `Hit@10 ${f(ours.hit10)} (goal ≥ 0.70)`,
          behind.length === 0 ? 'every language at least at the baseline' : `behind the baseline: ${behind.join(', ')}`,
        ];
        say(`\n${goals.join('; ')}.`);
      }
    }
    say('');
  }

  say('#### Time per base commit (medians; index seconds include the crawl)\n');
  row(['language', 'base commits', 'files', 'ours index s', 'FTS5 index s', 'locate ms', 'locate ms, slowest', 'FTS5 query ms']);
  row(Array<string>(8).fill('---'));
  for (const language of [...new Set(run.instances.map((i) => i.language))].sort()) {
    const group = run.instances.filter((i) => i.language === language);
    const commits = [...new Map(group.map((i) => [`${i.repo}@${i.commit}`, i])).values()];
    const locateMs = group.flatMap((i) => (i.ours ? [i.ours.ms] : []));
    row([
      language,
      commits.length,
      f(median(commits.map((i) => i.files)), 0),
      f(median(commits.flatMap((i) => (i.indexSeconds.ours === null ? [] : [i.indexSeconds.ours]))), 1),
      f(median(commits.map((i) => i.indexSeconds.fts5)), 1),
      f(median(locateMs), 0),
      f(Math.max(...locateMs), 0),
      f(median(group.map((i) => i.fts5.ms)), 0),
    ]);
  }
  if (run.instances.some((i) => i.indexReused)) say('\nSome indexes were kept from an earlier run (--keep): their index seconds are an up-to-date sync.');
  const unreachable = run.instances.filter((i) => i.goldIndexed.length === 0).map((i) => i.instance);
  if (unreachable.length > 0) say(`\nNo gold file was indexed (ignored or over the size cap) for: ${unreachable.join(', ')}.`);

  if (perInstance) say('\n#### Per instance (rank of the first gold file, — when not in the top 20)\n');
  if (perInstance) row(['instance', 'language', 'split', 'gold files', 'ours', 'FTS5', 'why ours ranked it']);
  if (perInstance) row(Array<string>(7).fill('---'));
  for (const i of perInstance ? run.instances : []) {
    row([
      i.instance,
      i.language,
      i.split,
      i.gold.join(', '),
      i.ours ? (i.ours.rank ?? '—') : 'n/a',
      i.fts5.rank ?? '—',
      i.ours?.why.join('; ').replaceAll('|', '\\|') ?? '',
    ]);
  }
  say('\n#### The splits, by repository\n');
  for (const split of ['test', 'tune'] as const) {
    const repos = Object.keys(run.splits).filter((r) => run.splits[r] === split);
    say(
      `- ${split}: ${repos
        .sort((a, b) => languageOf(a).localeCompare(languageOf(b)) || a.localeCompare(b))
        .map((r) => `${r} (${languageOf(r)})`)
        .join(', ')}`,
    );
  }
  if (run.skipped.length > 0) {
    say('\n#### Not run\n');
    for (const s of run.skipped) say(`- ${s.what}: ${s.why}`);
  }
  return lines.join('\n');
}
