// Scores the pipeline and each ablation on a BEIR dataset: every document is one chunk (its
// title and text), indexed into a throwaway database, searched exactly as files are.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DEFAULT_SEARCH_OPTIONS, type SearchOptionsInput } from '../options.ts';
import { search } from '../search/pipeline.ts';
import { Vocabulary } from '../search/fuzzy.ts';
import { IndexStore } from '../store/store.ts';
import type { BeirDataset } from './beir.ts';
import { mean, recallAt, score, type Judgments, type Scores } from './metrics.ts';

export const ABLATIONS = {
  porter: { stages: { trigram: false, proximity: false, feedback: false }, fuzzy: 'off' },
  trigram: { stages: { porter: false, proximity: false, feedback: false }, fuzzy: 'off' },
  rrf: { stages: { proximity: false, feedback: false }, fuzzy: 'off' },
  proximity: { stages: { feedback: false }, fuzzy: 'off' },
  feedback: { fuzzy: 'off' },
  full: {},
} satisfies Record<string, SearchOptionsInput>;

export type Ablation = keyof typeof ABLATIONS;

export interface EvalReport {
  dataset: string;
  split: string;
  queries: number;
  results: Record<Ablation, Scores>;
}

/** Results a search returns for R@100. */
export const RECALL_DEPTH = 100;

/**
 * A query's scores as a person or an agent meets them: nDCG@10 and MRR@10 from a search at the
 * default limit, R@100 from a search of 100. The lists are read deeper for a larger limit, so a
 * search of 100 ranks its first 10 a little differently than the search people run.
 */
export function scoreAsAsked(ranked: (limit: number) => readonly string[], judged: Judgments): Scores {
  return { ...score(ranked(DEFAULT_SEARCH_OPTIONS.limit), judged), recall100: recallAt(ranked(RECALL_DEPTH), judged, RECALL_DEPTH) };
}

/** Scores each ablation on the dataset; `options` apply to every ablation's searches (bench/depth.ts varies the lists' depth). */
export function evaluate(
  dataset: BeirDataset,
  split: string,
  ablations: readonly Ablation[] = Object.keys(ABLATIONS) as Ablation[],
  options: SearchOptionsInput = {},
): EvalReport {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fused-eval-'));
  const store = new IndexStore(path.join(dir, 'eval.db'));
  try {
    store.transaction(() => {
      for (const doc of dataset.documents) {
        store.replaceFile({ path: doc.id, size: doc.text.length, mtimeMs: 0, hash: doc.id, language: 'plaintext' }, [
          { title: doc.title, kind: 'prose', startLine: 1, endLine: 1, text: doc.text },
        ]);
      }
    });
    const { words, docFreq } = store.vocabulary();
    const vocabulary = new Vocabulary(words, docFreq);
    const context = { store, vocabulary: () => vocabulary };
    const results = {} as Record<Ablation, Scores>;
    for (const ablation of ablations) {
      const perQuery = dataset.queries.map((query) =>
        scoreAsAsked(
          (limit) => search(context, query.text, { ...ABLATIONS[ablation], ...options, limit }).results.map((r) => r.path),
          dataset.qrels.get(query.id)!,
        ),
      );
      results[ablation] = mean(perQuery);
    }
    return { dataset: dataset.name, split, queries: dataset.queries.length, results };
  } finally {
    store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
