// The proximity rerank: among the best fused candidates, prefer chunks whose title names the
// query, whose text holds all the query's pieces close together, and in the order typed. It runs
// over a window deeper than the result limit, so a strong chunk fused just below the cut can
// still be promoted into the results.

import type { ChunkKind, ProximityExplanation } from '../types.ts';
import { findOccurrences, type Occurrence, type QueryPieces } from './occurrences.ts';

/** A code chunk's title is its symbol path, a stronger statement than a prose heading. */
const TITLE_WEIGHT: Record<ChunkKind, number> = { code: 0.6, prose: 0.3 };
const SPAN_WEIGHT = 0.5;
const PHRASE_WEIGHT = 0.5;
/** Two pieces this close (characters between them) in query order count as a phrase pair. */
const PHRASE_GAP = 30;

export interface RerankInput {
  id: number;
  /** Fused (RRF) score. */
  score: number;
  title: string;
  kind: ChunkKind;
  text: string;
}

export interface Reranked<T extends RerankInput> {
  candidate: T;
  score: number;
  occurrences: Occurrence[];
  proximity: ProximityExplanation;
}

/**
 * Reorders the candidates (already in fused order) by score × (1 + boost). Every candidate gets
 * a proximity explanation with its rank before and after.
 */
export function rerank<T extends RerankInput>(candidates: T[], query: QueryPieces): Array<Reranked<T>> {
  const terms = query.pieces.length;
  const scored = candidates.map((candidate, index): Reranked<T> => {
    const occurrences = findOccurrences(candidate.text, query);
    const titleTerms = new Set(findOccurrences(candidate.title, query).map((o) => o.term)).size;
    const title = terms === 0 ? 0 : TITLE_WEIGHT[candidate.kind] * (titleTerms / terms);
    const span = tightestSpan(occurrences, terms);
    const idealSpan = query.pieces.reduce((sum, piece) => sum + piece.length, 0) + terms - 1;
    const spanScore = span === null ? 0 : SPAN_WEIGHT * Math.min(1, idealSpan / span);
    const phrasePairs = inOrderPairs(occurrences, terms);
    const phrase = terms < 2 ? 0 : PHRASE_WEIGHT * (phrasePairs / (terms - 1));
    const boost = title + spanScore + phrase;
    return {
      candidate,
      score: candidate.score * (1 + boost),
      occurrences,
      proximity: { title, span, phrasePairs, boost, fusedRank: index + 1, finalRank: 0 },
    };
  });
  scored.sort((a, b) => b.score - a.score || a.proximity.fusedRank - b.proximity.fusedRank);
  scored.forEach((entry, index) => (entry.proximity.finalRank = index + 1));
  return scored;
}

/**
 * Length in characters of the shortest stretch of text holding at least one occurrence of every
 * term, or null if some term never occurs. Classic minimum window over occurrences sorted by position.
 */
export function tightestSpan(occurrences: Occurrence[], terms: number): number | null {
  if (terms === 0) return null;
  const counts = new Array<number>(terms).fill(0);
  let covered = 0;
  let best: number | null = null;
  let left = 0;
  for (let right = 0; right < occurrences.length; right++) {
    if (counts[occurrences[right]!.term]!++ === 0) covered++;
    while (covered === terms) {
      const span = occurrences[right]!.end - occurrences[left]!.start;
      if (best === null || span < best) best = span;
      if (--counts[occurrences[left]!.term]! === 0) covered--;
      left++;
    }
  }
  return best;
}

/** How many of the query's consecutive piece pairs (i, i+1) occur in that order, close together. */
export function inOrderPairs(occurrences: Occurrence[], terms: number): number {
  let pairs = 0;
  for (let term = 0; term + 1 < terms; term++) {
    let lastEnd = -Infinity;
    for (const occurrence of occurrences) {
      if (occurrence.term === term) lastEnd = occurrence.end;
      else if (occurrence.term === term + 1 && occurrence.start - lastEnd <= PHRASE_GAP) {
        pairs++;
        break;
      }
    }
  }
  return pairs;
}
