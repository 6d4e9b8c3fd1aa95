/**
 * A k-nearest-neighbour graph's smoothness term for the semi-supervised
 * learners on the loop (QSG-S2AUC, TSGS3VM): `γ_G · mean_{(u,v) ∈ E} (f(x_u) − f(x_v))²`
 * over the edges of the training rows' approximate k-NN graph (knn-graph.ts),
 * added to the learner's risk — the manifold regulariser of LapSVM and
 * LapRLS (Belkin, Niyogi & Sindhwani, JMLR 2006), drawn stochastically.
 *
 * Why: a learner whose unlabeled risk reads the unlabeled rows only through
 * class-conditional means (QSG-S2AUC's PU and NU risks) or a margin (TSGS3VM)
 * cannot use their clusters; on data whose classes are clusters of their own
 * (letters, digits) a smoothness term over the neighbours is what lets 200
 * labels speak for the rows near them, as LabelSpreading does.
 *
 * How: each iteration draws `E` edges uniformly from the graph (an edge u → v
 * with v among u's k nearest rows, labeled–labeled pairs excluded) after the
 * learner's own points, and appends both ends to the batch; f there gives the
 * weights `±2γ_G (f_u − f_v)/E`. The graph is built once per rows (O(n log n)
 * random-projection trees, cached per feature array) on the calling thread,
 * so it is the same on any thread count; with γ_G = 0 nothing is built or
 * drawn and the run is the learner's own, bit for bit.
 *
 * Off by default and not in `tune`'s grid: it lifts held-out AUC where the
 * classes are clusters (letter, mnist) and costs it where neighbours in
 * feature space are not neighbours in class (one-hot dna, musk), and the
 * cross-validation on 200 labeled rows does not tell the two apart reliably
 * (docs/learners.md § The k-NN graph term).
 *
 * @example
 * const graph = new GraphTerm(rows, 0.5, 64);
 * graph.draw(rng, X, 3 * B, drawn.subarray(3 * B)); // 2·64 points after the learner's 3B
 * graph.weights(f.subarray(3 * B), w.subarray(3 * B));
 */
import { UsageError } from '../errors.ts';
import type { TrainingRows } from '../data/training-rows.ts';
import type { Rng } from '../coordinator/learner.ts';
import { KnnEdges } from './graph-edges.ts';
import { KNN_GRAPH_DEFAULTS } from './knn-graph.ts';
import type { ParamTable } from './params.ts';

/**
 * The graph term's weight γ_G (0: off, the learner as its paper states it).
 *
 * @example
 * GRAPH_PARAM.graphWeight.default; // 0
 */
export const GRAPH_PARAM = {
  graphWeight: {
    kind: 'number',
    default: 0,
    min: 0,
    omitDefault: true,
    symbol: 'γ_G',
    doc: 'weight γ_G ≥ 0 of a smoothness term over the training rows\' 10-nearest-neighbour graph, γ_G·mean over its edges of (f(x_u) − f(x_v))² (tsgs3vm: C·γ_G), which lets unlabeled rows carry labels to their neighbours; 0 = off; needs the rows in memory',
  },
} as const satisfies ParamTable;

/** The graph term of one fit: its edges, weight and edges per iteration. */
export class GraphTerm {
  private readonly edges: KnnEdges;

  /**
   * @param rows the training rows (in memory: the graph reads every row)
   * @param weight γ_G > 0
   * @param perIteration edges drawn per iteration
   */
  constructor(
    private readonly rows: TrainingRows,
    readonly weight: number,
    readonly perIteration: number,
  ) {
    const X = rows.allFeatures;
    if (X === undefined) throw new UsageError('graphWeight (--graph-weight): the graph term needs every training row in memory; it cannot run with sample on read (set it to 0, or train without --sample-on-read)');
    const labeled = new Uint8Array(rows.n);
    for (const i of rows.labeledRows) labeled[i] = 1;
    // The graph the k-NN graph learners draw from (knn-graph.ts defaults: 10 neighbours a row).
    this.edges = new KnnEdges(X, rows.n, rows.d, labeled, KNN_GRAPH_DEFAULTS.k);
    if (this.edges.count === 0) throw new UsageError('graphWeight (--graph-weight): the k-NN graph has no edges (every training row is labeled, or there is one row)');
  }

  /** Points the term adds to a batch (two per edge). */
  get points(): number {
    return 2 * this.perIteration;
  }

  /**
   * Draws the iteration's edges and copies their ends into `X` from row `at`
   * (u then v, edge by edge); their dataset rows go to `drawn`.
   */
  draw(rng: Rng, X: Float64Array, at: number, drawn: Int32Array): void {
    const { rows } = this;
    for (let e = 0; e < this.perIteration; e++) {
      const [u, v] = this.edges.sample(rng);
      drawn[2 * e] = u;
      drawn[2 * e + 1] = v;
      rows.copyRow(u, X, at + 2 * e);
      rows.copyRow(v, X, at + 2 * e + 1);
    }
  }

  /** The term at f over the drawn ends (u, v pairs): γ_G · mean (f_u − f_v)². */
  risk(f: Float64Array): number {
    let s = 0;
    for (let e = 0; e < this.perIteration; e++) s += (f[2 * e] - f[2 * e + 1]) ** 2;
    return (this.weight * s) / this.perIteration;
  }

  /** Its gradient with respect to f at the ends: ±2γ_G (f_u − f_v)/E. */
  weights(f: Float64Array, w: Float64Array): void {
    const c = (2 * this.weight) / this.perIteration;
    for (let e = 0; e < this.perIteration; e++) {
      const g = c * (f[2 * e] - f[2 * e + 1]);
      w[2 * e] = g;
      w[2 * e + 1] = -g;
    }
  }
}
