/**
 * An approximate k-nearest-neighbour graph from random-projection trees, the
 * graph the graph-based kernel machines (GKM, LapSVM) draw their edges from.
 *
 * Why: the edge weight `μ_uv = exp(−σ_s‖x_u − x_v‖²)` is ≈ 0 for almost every
 * pair of a fully connected graph at any useful σ_s, so edges drawn uniformly
 * from all pairs leave the smoothness term inert; a row's nearest neighbours
 * are the pairs whose weight is large.
 *
 * How: `trees` random-projection trees, each splitting its rows at the median
 * of their projections on the direction `x_a − x_b` between two seeded random
 * rows of the node, until a leaf has at most `leafSize` rows. Every pair of
 * rows that share a leaf in some tree is a candidate; each row keeps its `k`
 * nearest candidates (squared Euclidean distance, ties by row index); then one
 * round of neighbour descent offers each row its neighbours' neighbours. Building
 * costs O((trees · (log n + leafSize) + k²) · n · d) time and O(n·k) memory; it runs
 * on the calling thread with a fixed seed, so the graph is a function of the
 * rows alone: the same on any thread count and for any training seed.
 *
 * @example
 * const g = knnGraph(ds.X, ds.n, ds.d);   // k = 10, 4 trees, leaves of ≤ 32 rows
 * g.neighbours.subarray(5 * g.k, 6 * g.k); // row 5's neighbours, nearest first (−1 where it has fewer than k)
 */
import seedrandom from 'seedrandom';
import { withoutZeroColumns } from '../features/zero-columns.ts';

/** The graph's shape: neighbours per row, trees, rows per leaf. */
export interface KnnGraphOptions {
  readonly k: number;
  readonly trees: number;
  readonly leafSize: number;
}

/**
 * k = 10 neighbours (the paper's "k-NN graphs with small k"), 4 trees of leaves
 * of at most 32 rows: every row meets ≥ 4·15 candidates, enough for most of its
 * 10 true nearest neighbours at a cost of about 64 distances a row, and the
 * neighbour-descent round (100 more) finds most of the rest.
 */
export const KNN_GRAPH_DEFAULTS: KnnGraphOptions = { k: 10, trees: 4, leafSize: 32 };

/** A k-NN graph: `neighbours[i·k + j]` is row i's (j+1)-th nearest neighbour found (−1: none), `distances` its squared distance. */
export interface KnnGraph {
  readonly n: number;
  readonly k: number;
  readonly neighbours: Int32Array;
  readonly distances: Float64Array;
}

function squaredDistance(X: Float64Array, a: number, b: number, d: number): number {
  let s = 0;
  const oa = a * d;
  const ob = b * d;
  for (let j = 0; j < d; j++) {
    const t = X[oa + j] - X[ob + j];
    s += t * t;
  }
  return s;
}

/**
 * Graphs already built, per feature array: a Dataset's rows are never written
 * after it is made, and `tune`'s fold fits (every candidate × fold) share the
 * rows of the data they split, so each graph is built once per search instead
 * of once per fit. Weak: a graph goes with its rows.
 */
const built = new WeakMap<Float64Array, Map<string, KnnGraph>>();

/**
 * The approximate k-NN graph of the n rows of `X` (row-major, n × d): a
 * function of the rows and options alone, so a second call with the same
 * (unwritten) `X` returns the graph already built.
 *
 * @example
 * knnGraph(X, n, d, { k: 5, trees: 2, leafSize: 16 }).neighbours;
 */
export function knnGraph(X: Float64Array, n: number, d: number, options: Partial<KnnGraphOptions> = {}): KnnGraph {
  const { k, trees, leafSize } = { ...KNN_GRAPH_DEFAULTS, ...options };
  const key = `${n}×${d}:${k},${trees},${leafSize}`;
  let byOptions = built.get(X);
  if (!byOptions) built.set(X, (byOptions = new Map()));
  const known = byOptions.get(key);
  if (known) return known;
  const graph = buildKnnGraph(X, n, d, { k, trees, leafSize });
  byOptions.set(key, graph);
  return graph;
}

function buildKnnGraph(rows: Float64Array, n: number, dRows: number, { k, trees, leafSize }: KnnGraphOptions): KnnGraph {
  if (!(k >= 1) || !(trees >= 1) || !(leafSize >= 2)) throw new RangeError(`knnGraph: k ≥ 1, trees ≥ 1 and leafSize ≥ 2, got ${k}, ${trees}, ${leafSize}`);
  // Distances and projections over the columns not zero in every row: the same bits (features/zero-columns.ts), so the same graph.
  const { X, d } = withoutZeroColumns(rows, n, dRows);
  const neighbours = new Int32Array(n * k).fill(-1);
  const distances = new Float64Array(n * k).fill(Infinity);
  const offer = (u: number, v: number, dist: number): void => {
    const o = u * k;
    // Worse than the k-th (ties by index), or already there: nothing to do.
    const last = o + k - 1;
    if (dist > distances[last] || (dist === distances[last] && neighbours[last] !== -1 && v > neighbours[last])) return;
    for (let j = o; j <= last; j++) if (neighbours[j] === v) return;
    let j = last;
    while (j > o && (distances[j - 1] > dist || (distances[j - 1] === dist && neighbours[j - 1] > v))) {
      distances[j] = distances[j - 1];
      neighbours[j] = neighbours[j - 1];
      j--;
    }
    distances[j] = dist;
    neighbours[j] = v;
  };
  const rng = seedrandom.alea('dsgkit-knn-graph');
  const idx = new Int32Array(n);
  const proj = new Float64Array(n);
  const dir = new Float64Array(d);
  for (let tree = 0; tree < trees; tree++) {
    for (let i = 0; i < n; i++) idx[i] = i;
    const stack: Array<[number, number]> = [[0, n]];
    while (stack.length > 0) {
      const [lo, hi] = stack.pop()!;
      const m = hi - lo;
      if (m <= leafSize) {
        for (let a = lo; a < hi; a++) {
          for (let b = a + 1; b < hi; b++) {
            const u = idx[a];
            const v = idx[b];
            const dist = squaredDistance(X, u, v, d);
            offer(u, v, dist);
            offer(v, u, dist);
          }
        }
        continue;
      }
      const ra = idx[lo + Math.floor(rng() * m)];
      const rb = idx[lo + Math.floor(rng() * m)];
      for (let j = 0; j < d; j++) dir[j] = X[ra * d + j] - X[rb * d + j];
      for (let a = lo; a < hi; a++) {
        const o = idx[a] * d;
        let s = 0;
        for (let j = 0; j < d; j++) s += dir[j] * X[o + j];
        proj[idx[a]] = s;
      }
      // Median split (ties by row index): halves of equal size whatever the direction, so depth is log₂(n/leafSize).
      const part = Array.from(idx.subarray(lo, hi)).sort((p, q) => proj[p] - proj[q] || p - q);
      idx.set(part, lo);
      const mid = lo + (m >> 1);
      stack.push([mid, hi], [lo, mid]);
    }
  }
  // One round of neighbour descent: a neighbour's neighbour is a candidate too (k² distances a row).
  const found = Int32Array.from(neighbours);
  for (let u = 0; u < n; u++) {
    for (let a = 0; a < k; a++) {
      const v = found[u * k + a];
      if (v < 0) continue;
      for (let b = 0; b < k; b++) {
        const w = found[v * k + b];
        if (w < 0 || w === u) continue;
        offer(u, w, squaredDistance(X, u, w, d));
      }
    }
  }
  return { n, k, neighbours, distances };
}
