// Where the query's pieces occur in a chunk: the shared ground of the proximity rerank and of
// snippets. Text is cut into the same pieces as the query (camelCase humps, snake_case parts)
// and compared by Porter stem, so `pods` in a query finds `Pod` in `horizontalPodAutoscaler`.

import { stem } from './terms.ts';

const TEXT_PIECE = /\p{Lu}+(?=\p{Lu}\p{Ll})|\p{Lu}?[\p{Ll}\p{M}]+|\p{Lu}+|\p{N}+|[\p{L}\p{M}]+/gu;

export interface Occurrence {
  /** Index of the query piece. */
  term: number;
  /** [start, end) in UTF-16 code units of the searched text. */
  start: number;
  end: number;
}

/** Pieces of the query, prepared once per query. */
export interface QueryPieces {
  pieces: string[];
  stems: string[];
  /**
   * The first letters every matching text piece must start with (a stem is a prefix of its
   * word up to its last letters): a cheap test that spares stemming most of the text.
   */
  heads: Set<string>;
}

const HEAD = 2;

export function prepare(pieces: string[]): QueryPieces {
  const stems = pieces.map(stem);
  return { pieces, stems, heads: new Set([...pieces, ...stems].map((s) => s.slice(0, HEAD))) };
}

/**
 * Occurrences in text order. A text piece matches a query piece when their stems agree, or when
 * the query piece (4+ characters) is a prefix of it — what someone typing a word half-way expects.
 */
export function findOccurrences(text: string, query: QueryPieces): Occurrence[] {
  const found: Occurrence[] = [];
  if (query.pieces.length === 0) return found;
  for (const match of text.matchAll(TEXT_PIECE)) {
    if (!query.heads.has(match[0].slice(0, HEAD).toLowerCase())) continue;
    const lower = match[0].toLowerCase();
    const stemmed = stem(lower);
    for (let term = 0; term < query.pieces.length; term++) {
      const piece = query.pieces[term]!;
      if (query.stems[term] === stemmed || (piece.length >= 4 && lower.startsWith(piece))) {
        found.push({ term, start: match.index, end: match.index + match[0].length });
        break;
      }
    }
  }
  return found;
}
