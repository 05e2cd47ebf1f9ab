// Reciprocal Rank Fusion of the lexical lists, keyed by chunk id: two chunks that share a title
// stay two results (the reference keyed by source + title and merged them).

import type { ListHit, ListName } from '../types.ts';
import type { ListRow } from '../store/store.ts';

export interface FusedCandidate {
  id: number;
  score: number;
  lists: Partial<Record<ListName, ListHit>>;
  contributions: Partial<Record<ListName, number>>;
}

/**
 * score = Σ weight / (k + rank), rank 1-based within each list. Ties go to the candidate with the
 * better Porter rank, then the lower id, so the order is deterministic.
 */
export function fuse(lists: Partial<Record<ListName, ListRow[]>>, k: number, listWeights: Record<ListName, number>): FusedCandidate[] {
  const byId = new Map<number, FusedCandidate>();
  for (const name of Object.keys(lists) as ListName[]) {
    const rows = lists[name] ?? [];
    rows.forEach((row, index) => {
      const rank = index + 1;
      const contribution = listWeights[name] / (k + rank);
      let candidate = byId.get(row.id);
      if (!candidate) {
        candidate = { id: row.id, score: 0, lists: {}, contributions: {} };
        byId.set(row.id, candidate);
      }
      candidate.score += contribution;
      candidate.lists[name] = { rank, bm25: row.bm25 };
      candidate.contributions[name] = contribution;
    });
  }
  return [...byId.values()].sort((a, b) => b.score - a.score || (a.lists.porter?.rank ?? Infinity) - (b.lists.porter?.rank ?? Infinity) || a.id - b.id);
}
