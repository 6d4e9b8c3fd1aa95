/**
 * The edge sets a graph term draws from: every pair of training rows but the
 * labeled–labeled ones ({@link GraphEdges}, the GKM paper's full graph) or the
 * edges of the approximate k-nearest-neighbour graph ({@link KnnEdges}). Used
 * by the graph-based kernel machines (GKM, LapSVM) and the loop learners'
 * graph term (graph-term.ts).
 */
import { knnGraph } from './knn-graph.ts';

/**
 * The graph's edges without storing them: every unordered pair of distinct
 * training rows except labeled–labeled. |E| = l·u + u(u−1)/2; a draw is
 * uniform over E (a labeled–unlabeled pair with probability l·u/|E|, else an
 * unlabeled–unlabeled one), in O(1) with O(n) memory.
 *
 * @example
 * const edges = new GraphEdges(ds.labeled);
 * const [u, v] = edges.sample(rng);
 */
export class GraphEdges implements EdgeSet {
  readonly labeledRows: Int32Array;
  readonly unlabeledRows: Int32Array;
  /** |E|. */
  readonly count: number;
  private readonly mixed: number;

  constructor(labeled: Uint8Array) {
    const L: number[] = [];
    const U: number[] = [];
    for (let i = 0; i < labeled.length; i++) (labeled[i] ? L : U).push(i);
    this.labeledRows = Int32Array.from(L);
    this.unlabeledRows = Int32Array.from(U);
    const l = L.length;
    const u = U.length;
    this.mixed = l * u;
    this.count = this.mixed + (u * (u - 1)) / 2;
  }

  /**
   * One edge, uniformly over E (throws when E is empty: every row labeled, or one unlabeled row and none labeled).
   *
   * @example
   * const [u, v] = edges.sample(rng); // u ≠ v, not both labeled
   */
  sample(rng: () => number): [number, number] {
    if (this.count === 0) throw new RangeError('the graph has no edges (every training row is labeled)');
    const L = this.labeledRows;
    const U = this.unlabeledRows;
    if (rng() * this.count < this.mixed) {
      return [L[Math.floor(rng() * L.length)], U[Math.floor(rng() * U.length)]];
    }
    const a = Math.floor(rng() * U.length);
    let b = Math.floor(rng() * (U.length - 1));
    if (b >= a) b++;
    return [U[a], U[b]];
  }

  forEach(visit: (u: number, v: number) => void): void {
    const n = this.labeledRows.length + this.unlabeledRows.length;
    const labeled = new Uint8Array(n);
    for (const i of this.labeledRows) labeled[i] = 1;
    for (let u = 0; u < n; u++) for (let v = u + 1; v < n; v++) if (!(labeled[u] && labeled[v])) visit(u, v);
  }
}

/**
 * The edges of the approximate k-nearest-neighbour graph (knn-graph.ts: k
 * neighbours a row, {@link KNN_GRAPH_DEFAULTS}'s 4 random-projection trees of
 * leaves of ≤ 32 rows): every directed edge u → v with v among u's k nearest
 * rows found, except labeled–labeled. A draw is uniform over these edges
 * (≤ n·k of them, stored as two O(n·k) arrays); a pair that is a neighbour
 * both ways is two edges, as in the symmetrised k-NN graph's weight 2.
 *
 * @example
 * const edges = new KnnEdges(ds.X, ds.n, ds.d, ds.labeled, 10);
 * const [u, v] = edges.sample(rng); // v is one of u's 10 nearest rows
 */
export class KnnEdges implements EdgeSet {
  readonly labeledRows: Int32Array;
  readonly unlabeledRows: Int32Array;
  readonly count: number;
  private readonly from: Int32Array;
  private readonly to: Int32Array;

  constructor(X: Float64Array, n: number, d: number, labeled: Uint8Array, k: number) {
    const L: number[] = [];
    const U: number[] = [];
    for (let i = 0; i < n; i++) (labeled[i] ? L : U).push(i);
    this.labeledRows = Int32Array.from(L);
    this.unlabeledRows = Int32Array.from(U);
    const graph = knnGraph(X, n, d, { k: Math.min(k, Math.max(1, n - 1)) });
    const from: number[] = [];
    const to: number[] = [];
    for (let u = 0; u < n; u++) {
      for (let j = 0; j < graph.k; j++) {
        const v = graph.neighbours[u * graph.k + j];
        if (v < 0 || (labeled[u] && labeled[v])) continue;
        from.push(u);
        to.push(v);
      }
    }
    this.from = Int32Array.from(from);
    this.to = Int32Array.from(to);
    this.count = from.length;
  }

  /**
   * One edge, uniformly over the graph's edges (throws when there are none).
   *
   * @example
   * const [u, v] = edges.sample(rng);
   */
  sample(rng: () => number): [number, number] {
    if (this.count === 0) throw new RangeError('the graph has no edges (every training row is labeled)');
    const e = Math.floor(rng() * this.count);
    return [this.from[e], this.to[e]];
  }

  forEach(visit: (u: number, v: number) => void): void {
    for (let e = 0; e < this.count; e++) visit(this.from[e], this.to[e]);
  }
}

/** The edges a graph machine samples from, and (for the all-edges objective) enumerates. */
export interface EdgeSet {
  readonly labeledRows: Int32Array;
  readonly unlabeledRows: Int32Array;
  /** |E|. */
  readonly count: number;
  /** One edge, uniformly over E. */
  sample(rng: () => number): [number, number];
  /** Every edge of E once, in a fixed order. */
  forEach(visit: (u: number, v: number) => void): void;
}
