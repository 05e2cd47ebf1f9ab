// Reciprocal Rank Fusion of the lexical lists, keyed by chunk id: two chunks that share a title
// stay two results (the reference keyed by source + title and merged them).

import type { LexicalList, ListHit, ListName, SemanticHit } from '../types.ts';
import type { ListRow } from '../store/store.ts';
import type { NearestChunk } from '../store/vectors.ts';

export interface FusedCandidate {
  id: number;
  score: number;
  lists: Partial<Record<LexicalList, ListHit>> & { semantic?: SemanticHit };
  contributions: Partial<Record<ListName, number>>;
}

/**
 * score = Σ weight / (k + rank), rank 1-based within each list. Ties go to the candidate with the
 * better Porter rank, then the lower id, so the order is deterministic.
 */
export function fuse(
  lists: Partial<Record<LexicalList, ListRow[]>>,
  semantic: readonly NearestChunk[] | undefined,
  k: number,
  listWeights: Record<ListName, number>,
): FusedCandidate[] {
  const byId = new Map<number, FusedCandidate>();
  const add = (id: number, name: ListName, rank: number): FusedCandidate => {
    const contribution = listWeights[name] / (k + rank);
    let candidate = byId.get(id);
    if (!candidate) {
      candidate = { id, score: 0, lists: {}, contributions: {} };
      byId.set(id, candidate);
    }
    candidate.score += contribution;
    candidate.contributions[name] = contribution;
    return candidate;
  };
  for (const name of Object.keys(lists) as LexicalList[]) {
    (lists[name] ?? []).forEach((row, index) => (add(row.id, name, index + 1).lists[name] = { rank: index + 1, bm25: row.bm25 }));
  }
  semantic?.forEach((row, index) => (add(row.id, 'semantic', index + 1).lists.semantic = { rank: index + 1, cosine: row.cosine }));
  return [...byId.values()].sort((a, b) => b.score - a.score || (a.lists.porter?.rank ?? Infinity) - (b.lists.porter?.rank ?? Infinity) || a.id - b.id);
}
