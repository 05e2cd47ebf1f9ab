// An inverted-file partition (IVF) of the semantic lane's int8 vectors: the rows grouped into cells
// around centroids learnt by k-means on a sample, so that a search scores the centroids and scans
// only the rows of the cells nearest the query, a few percent of a big index instead of all of it.
//
// It is approximate: a neighbour filed in a cell the query does not probe is missed.
// `bench:semantic-speed` measures how often, against the exact scan, on a real embedded tree.
//
// The caller stores its rows in cell order (`order`), so a cell is one run of memory: scanning rows
// scattered over a 100 MB copy waits on memory for each, and took four times as long.
//
// Cells are many and small (4√rows: finer cells find more of the true neighbours for the same
// rows scanned), and filing 1.3 M rows against 4,600 centroids one by one would cost minutes of
// JavaScript. So the centroids come in two levels: about √cells groups, each split into its share
// of the cells, and a row is filed in the nearest group's nearest cell, √cells comparisons each
// way. A search still scores every cell, so a row filed next door is found by probing that too.

export interface Partition {
  dimensions: number;
  /** cells × dimensions, unit length. */
  centroids: Float32Array;
  /** Cell c holds rows cellStarts[c] … cellStarts[c + 1] − 1 of the copy in cell order. */
  cellStarts: Int32Array;
}

export interface Partitioned {
  partition: Partition;
  /** The copy's row numbers in cell order: the caller lays its rows out in this order. */
  order: Int32Array;
}

/** Cells per √rows. */
const CELL_FACTOR = 4;

/** Rows of the sample per cell: enough for k-means to place each centroid, few enough to be quick. */
const SAMPLE_PER_CELL = 20;
const ITERATIONS = 8;

/** Multiply-adds between two yields: some 10 ms of work. */
const STEP_WORK = 10_000_000;
/** Sample rows taken between two yields. */
const SAMPLING_SLICE = 5_000;

/**
 * Groups `rows` int8 vectors (each row a direction; its scale does not matter) into about 4√rows
 * cells. Yields the share done every 10 ms or so, so that a caller can let other work in.
 */
export function* partitionSteps(values: Int8Array, dimensions: number, rows: number): Generator<number, Partitioned> {
  const cellCount = Math.max(1, Math.min(rows, Math.round(CELL_FACTOR * Math.sqrt(rows))));
  const groupCount = Math.max(1, Math.round(Math.sqrt(cellCount)));
  const sampleRows = Math.min(rows, SAMPLE_PER_CELL * cellCount);
  const sample = new Float32Array(sampleRows * dimensions);
  for (let i = 0; i < sampleRows; i++) {
    // Evenly spaced: rows are in chunk order, so this samples every part of the tree.
    const row = Math.floor((i * rows) / sampleRows);
    sample.set(unit(values.subarray(row * dimensions, (row + 1) * dimensions)), i * dimensions);
    if ((i + 1) % SAMPLING_SLICE === 0) yield 0;
  }

  const groups = yield* scaled(kMeans(sample, dimensions, Math.min(groupCount, sampleRows)), 0, 0.2);
  const groupCentroids = groups.centroids;
  const centroidParts: Float32Array[] = [];
  /** The first cell of each group, and one past the last group's. */
  const groupCells = new Int32Array(groups.count + 1);
  for (let g = 0; g < groups.count; g++) {
    const inGroup: number[] = [];
    groups.assignment.forEach((group, i) => group === g && inGroup.push(i));
    const points = new Float32Array(inGroup.length * dimensions);
    inGroup.forEach((i, j) => points.set(sample.subarray(i * dimensions, (i + 1) * dimensions), j * dimensions));
    const share = Math.max(1, Math.round((cellCount * inGroup.length) / sampleRows));
    const done = 0.2 + (0.2 * g) / groups.count;
    const cells = inGroup.length === 0 ? undefined : yield* scaled(kMeans(points, dimensions, Math.min(share, inGroup.length)), done, done);
    if (cells) centroidParts.push(cells.centroids);
    groupCells[g + 1] = groupCells[g]! + (cells?.count ?? 0);
  }
  const centroids = new Float32Array(groupCells[groups.count]! * dimensions);
  let at = 0;
  for (const part of centroidParts) {
    centroids.set(part, at);
    at += part.length;
  }

  const cellOf = new Int32Array(rows);
  const filingSlice = Math.ceil(STEP_WORK / ((groups.count + cellCount / groups.count) * dimensions));
  for (let row = 0; row < rows; row++) {
    const vector = values.subarray(row * dimensions, (row + 1) * dimensions);
    let group = nearest(vector, groupCentroids, dimensions, 0, groups.count);
    // A group whose sample rows all left it for others owns no cells: the nearest group that does.
    while (groupCells[group] === groupCells[group + 1]) group = (group + 1) % groups.count;
    cellOf[row] = nearest(vector, centroids, dimensions, groupCells[group]!, groupCells[group + 1]!);
    if ((row + 1) % filingSlice === 0) yield 0.4 + (0.6 * row) / rows;
  }
  const cellCountMade = groupCells[groups.count]!;
  const cellStarts = new Int32Array(cellCountMade + 1);
  for (let row = 0; row < rows; row++) cellStarts[cellOf[row]! + 1]!++;
  for (let c = 0; c < cellCountMade; c++) cellStarts[c + 1]! += cellStarts[c]!;
  const next = cellStarts.slice(0, cellCountMade);
  const order = new Int32Array(rows);
  for (let row = 0; row < rows; row++) order[next[cellOf[row]!]!++] = row;
  return { partition: { dimensions, centroids, cellStarts }, order };
}

/** The `probes` cells whose centroids are nearest `query`. */
export function cellsNear(partition: Partition, query: Float32Array, probes: number): number[] {
  const { centroids, dimensions } = partition;
  const scores = new Float32Array(partition.cellStarts.length - 1);
  for (let c = 0; c < scores.length; c++) scores[c] = dot(query, centroids, c * dimensions, dimensions);
  return Array.from(scores.keys())
    .sort((a, b) => scores[b]! - scores[a]!)
    .slice(0, probes);
}

/**
 * Spherical k-means (cosine): `count` unit centroids for unit points, seeded with evenly spaced
 * points. Yields the share of its work done, every STEP_WORK multiply-adds.
 */
function* kMeans(
  points: Float32Array,
  dimensions: number,
  count: number,
): Generator<number, { centroids: Float32Array; assignment: Int32Array; count: number }> {
  const n = points.length / dimensions;
  const centroids = new Float32Array(count * dimensions);
  for (let c = 0; c < count; c++) {
    const seed = Math.floor((c * n) / count);
    centroids.set(points.subarray(seed * dimensions, (seed + 1) * dimensions), c * dimensions);
  }
  const assignment = new Int32Array(n);
  const sums = new Float32Array(count * dimensions);
  const slice = Math.ceil(STEP_WORK / (count * dimensions));
  for (let iteration = 0; iteration < ITERATIONS; iteration++) {
    sums.fill(0);
    for (let i = 0; i < n; i++) {
      if ((i + 1) % slice === 0) yield (iteration + i / n) / ITERATIONS;
      const point = points.subarray(i * dimensions, (i + 1) * dimensions);
      const c = nearest(point, centroids, dimensions, 0, count);
      assignment[i] = c;
      for (let d = 0; d < dimensions; d++) sums[c * dimensions + d]! += point[d]!;
    }
    for (let c = 0; c < count; c++) {
      const sum = sums.subarray(c * dimensions, (c + 1) * dimensions);
      // A centroid that drew no point keeps its place rather than becoming zero.
      if (sum.some((value) => value !== 0)) centroids.set(unit(sum), c * dimensions);
    }
    yield (iteration + 1) / ITERATIONS;
  }
  return { centroids, assignment, count };
}

/** Runs `steps`, yielding each share it yields mapped onto [from, to]; returns what it returns. */
function* scaled<T>(steps: Generator<number, T>, from: number, to: number): Generator<number, T> {
  for (let step = steps.next(); ; step = steps.next()) {
    if (step.done) return step.value;
    yield from + (to - from) * step.value;
  }
}

/** The centroid among [from, to) with the largest dot product with `vector`. */
function nearest(vector: ArrayLike<number>, centroids: Float32Array, dimensions: number, from: number, to: number): number {
  let best = from;
  let bestScore = -Infinity;
  for (let c = from; c < to; c++) {
    const score = dot(vector, centroids, c * dimensions, dimensions);
    if (score > bestScore) {
      bestScore = score;
      best = c;
    }
  }
  return best;
}

function dot(vector: ArrayLike<number>, matrix: Float32Array, offset: number, dimensions: number): number {
  let sum = 0;
  for (let d = 0; d < dimensions; d++) sum += vector[d]! * matrix[offset + d]!;
  return sum;
}

function unit(vector: ArrayLike<number>): Float32Array {
  const copy = Float32Array.from(vector);
  let norm = 0;
  for (const value of copy) norm += value * value;
  norm = Math.sqrt(norm);
  return norm > 0 ? copy.map((value) => value / norm) : copy;
}
