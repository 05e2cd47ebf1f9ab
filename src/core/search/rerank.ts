// The proximity rerank: among the best fused candidates, prefer chunks whose title or path names
// the query, whose text holds the query's pieces close together, and in the order typed. It runs
// over a window deeper than the result limit, so a strong chunk fused just below the cut can
// still be promoted into the results.
//
// Every component is weighted by how informative each query piece is (its IDF): in
// "how to parse the config file", finding `parse` and `config` side by side matters, finding
// `file` next to `the` does not.
//
// RRF keeps the lists' ranks and drops their scores, so neighbouring ranks differ by a percent or
// two even when BM25 put a wide gap between them, and any small boost would swap them. The
// rerank puts that gap back: it also multiplies by the square root of the candidate's BM25
// relative to the best of the search, so a chunk the lexical lists clearly preferred keeps its
// place against one that only lays the same words out a little more neatly.
//
// A test counts less than the code it tests (the `testWeight` option), unless the query asks about
// tests: a question is about the code more often than about its test, and the test says the same
// things in the same words. A changelog's entry counts as little (`changelogWeight`), unless the
// query asks about releases or history, for the same reason: it says what the code does in a line
// of a question's words. So does a build's output (`buildOutputWeight`), unless the query asks
// about builds: a committed bundle repeats every function of the sources. And so does another
// project's code committed into this one (`vendoredWeight`), unless the query asks about it: it
// defines the names a question about the project uses.

import type { ChunkKind, ProximityExplanation } from '../types.ts';
import { isBuildOutput, isChangelog, isTest, isVendored } from '../file-roles.ts';
import { pathTitle } from '../path-title.ts';
import { findOccurrences, type Occurrence, type QueryPieces } from './occurrences.ts';

/**
 * The most a title naming every query piece adds to the boost; a code chunk's title is its symbol
 * path, a stronger statement than a prose heading. Not the title column's BM25 weight, which the
 * lists apply before fusion. The chunk's path counts as part of its title: folders and files are
 * named for what they hold (`semver/functions/satisfies.js`, `commands/ci.js`), and the title of a
 * chunk deep in a file only names its own function.
 */
const TITLE_BOOST: Record<ChunkKind, number> = { code: 0.3, prose: 0.15 };
const SPAN_WEIGHT = 0.25;
const PHRASE_WEIGHT = 0.25;
/** Two pieces this close (characters between them) in query order count as a phrase pair. */
const PHRASE_GAP = 30;
/**
 * Queries of up to this many pieces get the full boost; longer ones proportionally less. A long
 * question describes a topic, and where its words fall in a chunk says little: on the eval sets
 * full-strength proximity helped short queries and hurt long ones.
 */
const PROXIMITY_FULL_STRENGTH_PIECES = 4;
/** Stems of the words that ask about tests themselves, where a test is what is looked for. */
const TEST_WORDS = new Set(['test', 'spec', 'fixtur', 'mock', 'unittest']);
/** Stems of the words that ask about a project's changes, where its changelog is what is looked for. */
const CHANGELOG_WORDS = new Set(['changelog', 'histori', 'releas', 'news']);
/** Stems of the words that ask about a build, where its output is what is looked for. */
const BUILD_WORDS = new Set(['build', 'dist', 'bundl', 'minifi']);
/** Stems of the words that ask about the code a project keeps of others. */
const VENDOR_WORDS = new Set(['vendor', 'dep', 'depend']);

/** The search options that set what share of its score each discounted kind of file keeps. */
export type RoleWeights = Partial<Record<'testWeight' | 'changelogWeight' | 'buildOutputWeight' | 'vendoredWeight', number>>;

/**
 * The kinds of chunk that say what the code says without being it, in the order they are told
 * apart (a test in a `dist/` folder is a test): the option weighing each, the words that ask for
 * it, the explanation's field, and how to tell it.
 */
const DISCOUNTED_ROLES: ReadonlyArray<{
  weight: keyof RoleWeights;
  askedBy: ReadonlySet<string>;
  field: 'testFactor' | 'changelogFactor' | 'builtFactor' | 'vendoredFactor';
  is: (candidate: RerankInput) => boolean;
}> = [
  { weight: 'testWeight', askedBy: TEST_WORDS, field: 'testFactor', is: (c) => isTest(c.path, c.title, c.text) },
  { weight: 'changelogWeight', askedBy: CHANGELOG_WORDS, field: 'changelogFactor', is: (c) => isChangelog(c.path) },
  { weight: 'buildOutputWeight', askedBy: BUILD_WORDS, field: 'builtFactor', is: (c) => isBuildOutput(c.path) },
  { weight: 'vendoredWeight', askedBy: VENDOR_WORDS, field: 'vendoredFactor', is: (c) => isVendored(c.path) },
];

export interface RerankInput {
  id: number;
  /** Fused (RRF) score. */
  score: number;
  /** How strongly the query's own lists matched it, 0–1 (see ProximityExplanation.lexical). */
  lexical: number;
  title: string;
  /** The file's path; its folders and name (not the extension) count as part of the title. */
  path: string;
  kind: ChunkKind;
  text: string;
  /** Where the query's pieces occur in `text`, if a previous ranking already found out. */
  occurrences?: Occurrence[];
}

export interface Reranked<T extends RerankInput> {
  candidate: T;
  score: number;
  occurrences: Occurrence[];
  proximity: ProximityExplanation;
}

/**
 * Reorders the candidates (already in fused order) by fused score × (1 + boost) × √lexical; the
 * boost is at most TITLE_BOOST + SPAN_WEIGHT + PHRASE_WEIGHT, so the rerank reorders neighbours and lifts
 * strong chunks from below the cut without letting the text layout outvote the lexical evidence.
 * `pieceIdf[i]` is the importance of query piece i; every candidate gets an explanation, whose
 * ranks count from `ranksAbove` + 1 (the candidates of a window below the first). A test's score
 * is multiplied by `testWeight` unless the query asks about tests (TEST_WORDS), a changelog's by
 * `changelogWeight` unless it asks about changes (CHANGELOG_WORDS), a build's output by
 * `buildOutputWeight` unless it asks about builds (BUILD_WORDS), another project's code by
 * `vendoredWeight` unless it asks about it (VENDOR_WORDS).
 */
export function rerank<T extends RerankInput>(
  candidates: T[],
  query: QueryPieces,
  pieceIdf: readonly number[],
  { ranksAbove = 0, ...weights }: { ranksAbove?: number } & RoleWeights = {},
): Array<Reranked<T>> {
  const terms = query.pieces.length;
  const totalWeight = pieceIdf.reduce((sum, w) => sum + w, 0) || 1;
  const pairWeights = pieceIdf.slice(1).map((w, i) => Math.min(w, pieceIdf[i]!));
  const totalPairWeight = pairWeights.reduce((sum, w) => sum + w, 0);
  const strength = Math.min(1, PROXIMITY_FULL_STRENGTH_PIECES / Math.max(1, terms));
  const factors = DISCOUNTED_ROLES.map((role) => (query.stems.some((s) => role.askedBy.has(s)) ? 1 : (weights[role.weight] ?? 1)));
  const scored = candidates.map((candidate, index): Reranked<T> => {
    const occurrences = candidate.occurrences ?? findOccurrences(candidate.text, query);
    const inTitle = new Set(findOccurrences(`${candidate.title} ${pathTitle(candidate.path)}`, query).map((o) => o.term));
    const titleBoost = TITLE_BOOST[candidate.kind] * (sumOver(inTitle, pieceIdf) / totalWeight);

    const present = new Set(occurrences.map((o) => o.term));
    const span = present.size >= 2 ? tightestSpan(occurrences, present) : null;
    const idealSpan = [...present].reduce((sum, term) => sum + query.pieces[term]!.length + 1, -1);
    const coverage = sumOver(present, pieceIdf) / totalWeight;
    const spanScore = span === null ? 0 : SPAN_WEIGHT * coverage * Math.min(1, idealSpan / span);

    const pairs = inOrderPairs(occurrences, terms);
    const phrase = totalPairWeight === 0 ? 0 : PHRASE_WEIGHT * (pairs.reduce((sum, i) => sum + pairWeights[i]!, 0) / totalPairWeight);
    const boost = strength * (titleBoost + spanScore + phrase);
    // A kind is told only when it would count less: not for `locate`, nor a query asking for it.
    const discounted = DISCOUNTED_ROLES.findIndex((role, i) => factors[i] !== 1 && role.is(candidate));
    const discount = discounted < 0 ? 1 : factors[discounted]!;
    return {
      candidate,
      score: candidate.score * (1 + boost) * Math.sqrt(candidate.lexical) * discount,
      occurrences,
      proximity: {
        titleBoost,
        span,
        phrasePairs: pairs.length,
        boost,
        lexical: candidate.lexical,
        ...(discounted < 0 ? {} : { [DISCOUNTED_ROLES[discounted]!.field]: discount }),
        fusedRank: ranksAbove + index + 1,
        finalRank: 0,
      },
    };
  });
  scored.sort((a, b) => b.score - a.score || a.proximity.fusedRank - b.proximity.fusedRank);
  scored.forEach((entry, index) => (entry.proximity.finalRank = ranksAbove + index + 1));
  return scored;
}

function sumOver(terms: Set<number>, pieceIdf: readonly number[]): number {
  let sum = 0;
  for (const term of terms) sum += pieceIdf[term] ?? 0;
  return sum;
}

/**
 * Length in characters of the shortest stretch of text holding at least one occurrence of each
 * of `terms`, or null if there is none. Classic minimum window over occurrences in text order.
 */
function tightestSpan(occurrences: Occurrence[], terms: Set<number>): number | null {
  const relevant = occurrences.filter((o) => terms.has(o.term));
  const counts = new Map<number, number>();
  let best: number | null = null;
  let left = 0;
  for (let right = 0; right < relevant.length; right++) {
    const added = relevant[right]!.term;
    counts.set(added, (counts.get(added) ?? 0) + 1);
    while (counts.size === terms.size) {
      const span = relevant[right]!.end - relevant[left]!.start;
      if (best === null || span < best) best = span;
      const removed = relevant[left]!.term;
      const remaining = counts.get(removed)! - 1;
      if (remaining === 0) counts.delete(removed);
      else counts.set(removed, remaining);
      left++;
    }
  }
  return best;
}

/** Which of the query's consecutive piece pairs (i, i+1) occur in that order, close together. */
function inOrderPairs(occurrences: Occurrence[], terms: number): number[] {
  const found: number[] = [];
  for (let term = 0; term + 1 < terms; term++) {
    let lastEnd = -Infinity;
    for (const occurrence of occurrences) {
      if (occurrence.term === term) lastEnd = occurrence.end;
      else if (occurrence.term === term + 1 && occurrence.start - lastEnd <= PHRASE_GAP) {
        found.push(term);
        break;
      }
    }
  }
  return found;
}
