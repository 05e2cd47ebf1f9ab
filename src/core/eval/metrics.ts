// Ranking metrics as the eval README defines them (trec_eval conventions, linear gains).

/** Relevance grades of one query's judged documents; absent means not relevant. */
export type Judgments = Map<string, number>;

export interface Scores {
  ndcg10: number;
  mrr10: number;
  recall100: number;
}

function ndcgAt(ranked: readonly string[], judged: Judgments, k: number): number {
  const dcg = ranked.slice(0, k).reduce((sum, id, i) => sum + (judged.get(id) ?? 0) / Math.log2(i + 2), 0);
  const ideal = [...judged.values()]
    .filter((g) => g > 0)
    .sort((a, b) => b - a)
    .slice(0, k);
  const idcg = ideal.reduce((sum, grade, i) => sum + grade / Math.log2(i + 2), 0);
  return idcg === 0 ? 0 : dcg / idcg;
}

function mrrAt(ranked: readonly string[], judged: Judgments, k: number): number {
  const index = ranked.slice(0, k).findIndex((id) => (judged.get(id) ?? 0) > 0);
  return index === -1 ? 0 : 1 / (index + 1);
}

export function recallAt(ranked: readonly string[], judged: Judgments, k: number): number {
  const relevant = [...judged.values()].filter((g) => g > 0).length;
  if (relevant === 0) return 0;
  return ranked.slice(0, k).filter((id) => (judged.get(id) ?? 0) > 0).length / relevant;
}

export function score(ranked: readonly string[], judged: Judgments): Scores {
  return { ndcg10: ndcgAt(ranked, judged, 10), mrr10: mrrAt(ranked, judged, 10), recall100: recallAt(ranked, judged, 100) };
}

export function mean(all: readonly Scores[]): Scores {
  const n = Math.max(1, all.length);
  const sum = (pick: (s: Scores) => number) => all.reduce((total, s) => total + pick(s), 0) / n;
  return { ndcg10: sum((s) => s.ndcg10), mrr10: sum((s) => s.mrr10), recall100: sum((s) => s.recall100) };
}
