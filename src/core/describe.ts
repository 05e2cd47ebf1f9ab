// One result's explanation in words, the same in every host: the CLI prints these lines, the
// panel sets them as textContent (drawing the lists' contributions as bars), the agent text
// joins them on its `why:` line. A host chooses layout and colour, never the wording, so a result
// reads the same wherever it is shown.
//
// Pure and free of Node: the webview bundles it for the browser.

import type { ChunkCopy, IndexingSoFar, ListName, SearchResult } from './types.ts';

export interface DescribedLine {
  /** What the line is about; hosts lay lines out by it. */
  topic: 'stage' | ListName | 'rrf' | 'proximity' | 'fuzzy';
  /** Its name as shown: `Stage`, `Porter`, `Trigram`, `Feedback`, `Semantic`, `RRF`, `Proximity`, `Fuzzy`. */
  label: string;
  text: string;
  /** On a list's line: that list's RRF contribution, 0 if it missed the chunk, so hosts can draw the lists to one scale. */
  contribution?: number;
}

const LIST_LABEL: Record<ListName, string> = { porter: 'Porter', trigram: 'Trigram', feedback: 'Feedback', semantic: 'Semantic' };
/** The explanation's field for each kind of chunk the rerank counts less, and what it is called. */
const DISCOUNTED_AS = [
  ['testFactor', 'a test'],
  ['changelogFactor', 'a changelog'],
  ['builtFactor', "a build's output"],
  ['vendoredFactor', "another project's code"],
] as const;

/**
 * The stage and score, each list's rank, BM25 and RRF contribution, the fused score, the
 * proximity rerank's factor with its components, lexical factor, the weight of a test, a changelog,
 * a build's output or another project's code, and the rank before → after, and the corrections —
 * each part that applies to this result, in that order.
 */
export function describe(result: Pick<SearchResult, 'score' | 'explain'>): DescribedLine[] {
  const e = result.explain;
  const lines: DescribedLine[] = [{ topic: 'stage', label: 'Stage', text: `${e.stage} · score ${result.score.toFixed(4)}` }];
  for (const list of ['porter', 'trigram', 'feedback'] as const) {
    const hit = e[list];
    // Feedback runs for some queries only; a line saying "not in it" for every result would be noise.
    if (list === 'feedback' && !hit) continue;
    const contribution = e.rrf.contributions[list] ?? 0;
    const text = hit ? `#${hit.rank} · bm25 ${hit.bm25.toFixed(2)} · rrf +${contribution.toFixed(4)}` : 'not in this list';
    lines.push({ topic: list, label: LIST_LABEL[list], text, contribution });
  }
  // Present only when the search had a semantic list and it held this chunk.
  if (e.semantic) {
    const contribution = e.rrf.contributions.semantic ?? 0;
    lines.push({
      topic: 'semantic',
      label: LIST_LABEL.semantic,
      text: `#${e.semantic.rank} · cosine ${e.semantic.cosine.toFixed(3)} · rrf +${contribution.toFixed(4)}`,
      contribution,
    });
  }
  lines.push({ topic: 'rrf', label: 'RRF', text: `${e.rrf.score.toFixed(4)} (k = ${e.rrf.k})` });
  if (e.proximity) {
    const p = e.proximity;
    const components = `title ${p.titleBoost.toFixed(2)}, span ${p.span === null ? '—' : `${p.span} chars`}, in-order pairs ${p.phrasePairs}`;
    const lexical = `lexical match ${(p.lexical * 100).toFixed(0)}% (×${Math.sqrt(p.lexical).toFixed(2)})`;
    const role = DISCOUNTED_AS.find(([field]) => p[field] !== undefined);
    const discounted = role ? ` · ${role[1]} (×${p[role[0]]!.toFixed(2)})` : '';
    lines.push({
      topic: 'proximity',
      label: 'Proximity',
      text: `×${(1 + p.boost).toFixed(2)} (${components}) · ${lexical}${discounted} · rank ${p.fusedRank} → ${p.finalRank}`,
    });
  }
  if (e.fuzzy && e.fuzzy.corrections.length > 0) {
    lines.push({ topic: 'fuzzy', label: 'Fuzzy', text: e.fuzzy.corrections.map(([typed, corrected]) => `${typed} → ${corrected}`).join(', ') });
  }
  return lines;
}

/** The described lines as plain text, `Label: text` each, for hosts that print text. */
export function describeAsText(result: Pick<SearchResult, 'score' | 'explain'>): string[] {
  return describe(result).map((line) => `${line.label}: ${line.text}`);
}

/**
 * Where a result's text is repeated, in one line: `same text also at a.md:45-65, b.md:3-9 and 32
 * more`, with the places of much the same text after the exact ones (`…; much the same at
 * a.html:201-240`), or only their count when `alikeListed` is 0. Every host that prints results
 * says it the same way.
 */
export function copiesNote(copies: readonly ChunkCopy[], listed: number, alikeListed = listed): string {
  const same = copies.filter((copy) => !copy.alike);
  const alike = copies.filter((copy) => copy.alike);
  const parts = same.length > 0 ? [`same text also at ${places(same, listed)}`] : [];
  if (alike.length > 0) {
    const what = same.length > 0 ? 'much the same' : 'much the same text';
    parts.push(alikeListed > 0 ? `${what}${same.length > 0 ? '' : ' also'} at ${places(alike, alikeListed)}` : `${what} in ${morePlaces(alike.length)}`);
  }
  return parts.join('; ');
}

function places(copies: readonly ChunkCopy[], listed: number): string {
  const at = copies.slice(0, listed).map((copy) => `${copy.path}:${copy.startLine}-${copy.endLine}`);
  const more = copies.length - at.length;
  return `${at.join(', ')}${more > 0 ? ` and ${more} more` : ''}`;
}

const morePlaces = (count: number) => `${count} more place${count === 1 ? '' : 's'}`;

/** How many places a result's text is repeated in, where a host has room for a count only: `same text in 3 more places`. */
export function copiesCount(copies: readonly ChunkCopy[]): string {
  const alike = copies.filter((copy) => copy.alike).length;
  const what = alike === 0 ? 'same text' : alike === copies.length ? 'much the same text' : 'same or much the same text';
  return `${what} in ${morePlaces(copies.length)}`;
}

/**
 * What every host says of the files kept out by name for what they may hold (`.env`, private keys):
 * how many, and a few of them. The host says after it how to let them in.
 */
export function secretFilesNote(count: number, examples: readonly string[]): string {
  const more = count > examples.length ? ', …' : '';
  return `Kept out ${count.toLocaleString('en-US')} file${count === 1 ? '' : 's'} that may hold credentials (${examples.join(', ')}${more})`;
}

/** What every host says of results from an index whose first run is not finished. */
export function partialNote(partial: IndexingSoFar): string {
  const { filesDone, filesFound } = partial;
  if (filesDone === undefined || !filesFound) return 'first index not finished — results so far';
  return `indexed ${Math.floor((100 * filesDone) / filesFound)}% (${filesDone.toLocaleString('en-US')} of ${filesFound.toLocaleString('en-US')} files) — results so far`;
}

/** The most missing words a note names; a pasted paragraph can miss dozens. */
const UNMATCHED_NAMED = 8;

/**
 * What every host says of query words no indexed file holds: `no file holds “downtime”`, `… “a”,
 * “b” or 3 more`. A host that does not show the `results` beside it says they were ranked without
 * the words (by the others, or by meaning when the semantic list found them).
 */
export function unmatchedNote(words: readonly string[], results = 0): string {
  const named = words.slice(0, UNMATCHED_NAMED).map((word) => `“${word}”`);
  const rest = words.length - named.length;
  if (rest > 0) named.push(`${rest} more`);
  const list = named.length > 1 ? `${named.slice(0, -1).join(', ')} or ${named.at(-1)!}` : named[0]!;
  return `no file holds ${list}${results > 0 ? `; the results are ranked without ${words.length === 1 ? 'it' : 'them'}` : ''}`;
}
