// Optimal string alignment distance (restricted Damerau-Levenshtein): insertions, deletions,
// substitutions and transpositions of two adjacent characters each cost 1, and no substring is
// edited twice. Typo correction only ever asks "is it within k?", so the work is bounded by k: a
// band of 2k + 1 diagonals and an exit as soon as no path can come back under k.
//
// The DP compares characters for equality only, so it runs on small integer ids rather than on
// strings: one id per code point (an astral letter is one character, not two UTF-16 units), stored
// in a Uint16Array so that a vocabulary of millions of words can keep them all in one flat buffer.

/** OSA distance between `a` and `b` in code points, or `max + 1` when it exceeds `max`. */
export function editDistance(a: string, b: string, max: number): number {
  // Ids only need to agree between the two strings; 65,536 distinct characters is beyond any word.
  const ids = new Map<number, number>();
  const ca = toIds(a, ids);
  const cb = toIds(b, ids);
  return boundedOsa(ca, 0, ca.length, cb, 0, cb.length, max);
}

function toIds(s: string, ids: Map<number, number>): Uint16Array {
  const out: number[] = [];
  for (const ch of s) {
    const cp = ch.codePointAt(0)!;
    let id = ids.get(cp);
    if (id === undefined) {
      id = ids.size;
      ids.set(cp, id);
    }
    out.push(id);
  }
  return Uint16Array.from(out);
}

// Three DP rows reused across calls: a vocabulary lookup runs this for thousands of candidates, and
// allocating rows each time would dominate the cost of comparing short words.
let rowA = new Int32Array(64);
let rowB = new Int32Array(64);
let rowC = new Int32Array(64);

/**
 * OSA distance between the character ids `a[aStart, aStart + aLen)` and `b[bStart, bStart + bLen)`,
 * or `max + 1` when it exceeds `max`. Takes slices of flat arrays so a vocabulary can keep all its
 * words in one buffer.
 */
export function boundedOsa(a: Uint16Array, aStart: number, aLen: number, b: Uint16Array, bStart: number, bLen: number, max: number): number {
  if (!(max >= 0)) throw new RangeError(`max must be a non-negative number, got ${max}`);
  // A shared prefix or suffix never needs an edit, and OSA cannot gain by editing across it.
  while (aLen > 0 && bLen > 0 && a[aStart] === b[bStart]) {
    aStart++;
    bStart++;
    aLen--;
    bLen--;
  }
  while (aLen > 0 && bLen > 0 && a[aStart + aLen - 1] === b[bStart + bLen - 1]) {
    aLen--;
    bLen--;
  }
  if (aLen > bLen) {
    const s = a;
    const sStart = aStart;
    const sLen = aLen;
    a = b;
    aStart = bStart;
    aLen = bLen;
    b = s;
    bStart = sStart;
    bLen = sLen;
  }
  // The distance never exceeds the longer length, so a larger (or infinite) max changes nothing
  // but would make the band and the "too far" sentinel meaningless.
  const k = Math.min(Math.floor(max), bLen);
  if (bLen - aLen > k) return max + 1;
  if (aLen === 0) return bLen;

  const n = aLen;
  const m = bLen;
  const inf = k + 1;
  if (rowA.length < m + 2) {
    rowA = new Int32Array(m + 2);
    rowB = new Int32Array(m + 2);
    rowC = new Int32Array(m + 2);
  }
  let before = rowA; // row i - 2, for transpositions
  let prev = rowB; // row i - 1
  let cur = rowC; // row i

  const top = Math.min(m, k);
  for (let j = 0; j <= top; j++) prev[j] = j;
  if (top < m) prev[top + 1] = inf;

  for (let i = 1; i <= n; i++) {
    const lo = Math.max(1, i - k);
    const hi = Math.min(m, i + k);
    // Cells just outside the band are read by the next rows, so they must hold "too far".
    cur[lo - 1] = lo === 1 ? Math.min(i, inf) : inf;
    const ai = a[aStart + i - 1]!;
    const aiPrev = i > 1 ? a[aStart + i - 2]! : -1;
    // Lower bound on the final distance through any cell of this row: its value plus the length
    // difference still to cover. Rows never get cheaper (a transposition that skips row i costs at
    // least the diagonal cell it jumps over), so once every cell is past k, the answer is too.
    let bound = lo === 1 ? i + Math.abs(m - n + i) : inf;
    for (let j = lo; j <= hi; j++) {
      const bj = b[bStart + j - 1]!;
      let v = prev[j - 1]! + (ai === bj ? 0 : 1);
      const del = prev[j]! + 1;
      if (del < v) v = del;
      const ins = cur[j - 1]! + 1;
      if (ins < v) v = ins;
      if (j > 1 && ai === b[bStart + j - 2] && aiPrev === bj) {
        const t = before[j - 2]! + 1;
        if (t < v) v = t;
      }
      if (v > inf) v = inf;
      cur[j] = v;
      const rest = m - j - (n - i);
      const lower = v + (rest < 0 ? -rest : rest);
      if (lower < bound) bound = lower;
    }
    if (hi < m) cur[hi + 1] = inf;
    if (bound > k) return max + 1;
    const t = before;
    before = prev;
    prev = cur;
    cur = t;
  }
  const d = prev[m]!;
  return d > k ? max + 1 : d;
}
