/**
 * QSG-S2AUC: semi-supervised AUC maximisation by quadruply stochastic
 * gradients (positives, negatives, unlabeled points, random features).
 * See ALGORITHMS.md § QSG-S2AUC and papers/qsg-s2auc.md.
 *
 * Risk `R = γ R_PN + (1-γ)(R_PU + R_NU − ½)` with the pairwise square loss
 * `l(u, v) = (1 − u + v)²`; objective `R + (λ/2)‖f‖²`. Every iteration draws
 * `B` points from each of P, N and U and uses ALL pairs inside the batch
 * (an unbiased U-statistic); with the square loss the pair sums have closed
 * forms, so the weights cost O(B), not O(B²).
 */
import { GROWING_BUDGET } from './budget.ts';
import { loopLearner } from './loop-fit.ts';
import { DataError } from '../errors.ts';
import type { Dataset } from '../data/dataset.ts';
import { trainingRows, type TrainingRows } from '../data/training-rows.ts';
import type { Batch, DsgLearner, Rng, SampledRows } from '../coordinator/learner.ts';
import type { StepSize } from '../coordinator/step-size.ts';
import { aucRisk, aucWeights, GAMMA_PARAM } from './auc-risk.ts';
import { LAMBDA_PARAM, pairwiseDefaultStep, sigmaLadder, RANDOM_FEATURE_PARAMS } from './common.ts';
import { BatchBuffers, binarySources, drawRows, type BinarySources } from './sources.ts';
import { sampledRows } from './sampled-rows.ts';
import { GRAPH_PARAM, GraphTerm } from './graph-term.ts';

/** Hyperparameters of QSG-S2AUC (the loop's T, m, σ, seed live with the trainer). */
export interface QsgS2aucParams {
  /** Regularisation λ. */
  readonly lambda: number;
  /** Trade-off γ ∈ [0, 1] between the PN risk and the PU + NU risks. */
  readonly gamma: number;
  /** Points drawn per source per iteration (B). */
  readonly batchSize: number;
  readonly step: StepSize;
  /** Weight γ_G of the k-NN graph term (graph-term.ts); 0 or absent: off. */
  readonly graphWeight?: number;
}

/**
 * The QSG-S2AUC learner on a binary semi-supervised dataset (features already scaled).
 *
 * @example
 * const learner = new QsgS2auc(ds, 1, { lambda: 0.125, gamma: 0.5, batchSize: 256, step: { kind: 'inverse', theta: 12 } });
 */
export class QsgS2auc implements DsgLearner {
  readonly name = 'qsg-s2auc';
  readonly d: number;
  readonly lambda: number;
  readonly step: StepSize;
  readonly gamma: number;
  readonly batchSize: number;
  readonly sources: BinarySources;
  readonly sampledRows: SampledRows;
  private readonly rows: TrainingRows;
  private readonly buffers: BatchBuffers;
  private readonly B: number;
  private readonly BU: number;
  /** Points in every batch: B positives, B negatives, B_U unlabeled points and the graph term's edge ends. */
  private readonly points: number;
  /** The graph term, when γ_G > 0: B edges an iteration, their ends after the unlabeled points. */
  private readonly graph?: GraphTerm;

  constructor(data: Dataset | TrainingRows, positive: number, params: QsgS2aucParams) {
    const rows = trainingRows(data);
    this.rows = rows;
    this.d = rows.d;
    this.lambda = params.lambda;
    this.step = params.step;
    this.gamma = params.gamma;
    this.batchSize = params.batchSize;
    this.sources = binarySources(rows, positive);
    if (this.sources.U.size === 0 && params.gamma < 1) {
      throw new DataError(
        `QSG-S2AUC with γ = ${params.gamma} needs unlabeled rows (a null label), and every row is labeled: hide labels with \`dsgkit split --labeled N\`, or use γ = 1 for labeled-only data`,
        rows.source !== undefined ? { file: rows.source, column: rows.labelName } : { column: rows.labelName },
      );
    }
    this.B = params.batchSize;
    this.BU = params.gamma < 1 ? params.batchSize : 0;
    if (params.graphWeight) this.graph = new GraphTerm(rows, params.graphWeight, params.batchSize);
    this.points = 2 * this.B + this.BU + (this.graph?.points ?? 0);
    this.buffers = new BatchBuffers(this.points, rows.d);
    const { P, N, U } = this.sources;
    // With the graph term a batch also holds edge ends, which may be any row: f is kept at every row then.
    const sources = this.graph || this.BU > 0 ? [P, N, U] : [P, N];
    this.sampledRows = sampledRows(rows, sources, this.points, this.graph ? undefined : this.BU > 0 ? [this.B, this.B, this.BU] : [this.B, this.B]);
  }

  /**
   * Draws B positives, B negatives and B unlabeled points, in that order,
   * then with the graph term B edges (2B points, u then v).
   *
   * @example
   * const { X, nPoints } = learner.sample(samplingRng(seed)); // nPoints = 3B
   */
  sample(rng: Rng): Batch {
    const { B, BU, rows } = this;
    const { X, rows: drawn } = this.buffers.next();
    drawRows(rows, this.sources.P, B, rng, X, 0, drawn.subarray(0, B));
    drawRows(rows, this.sources.N, B, rng, X, B, drawn.subarray(B, 2 * B));
    if (BU > 0) drawRows(rows, this.sources.U, BU, rng, X, 2 * B, drawn.subarray(2 * B, 2 * B + BU));
    this.graph?.draw(rng, X, 2 * B + BU, drawn.subarray(2 * B + BU));
    return { X, nPoints: this.points, rows: drawn };
  }

  /**
   * The batch's all-pairs risk at `f` (see {@link aucRisk}); its gradient is
   * {@link weights}. Only the batch's layout matters: B positives, B
   * negatives, then B unlabeled points.
   *
   * @example
   * learner.risk(fAtBatch, batch);
   */
  risk(f: Float64Array, _batch: Batch): number {
    const { B, BU } = this;
    const risk = aucRisk(this.gamma, f.subarray(0, B), f.subarray(B, 2 * B), f.subarray(2 * B, 2 * B + BU));
    return this.graph ? risk + this.graph.risk(f.subarray(2 * B + BU)) : risk;
  }

  /**
   * Closed-form all-pairs weights of the batch (see {@link aucWeights}).
   *
   * @example
   * learner.weights(fAtBatch, w, batch); // then α_t = −η_t Σ_p w[p] φ_t(x_p)
   */
  weights(f: Float64Array, w: Float64Array, _batch: Batch): void {
    const { B, BU } = this;
    aucWeights(
      this.gamma,
      f.subarray(0, B),
      f.subarray(B, 2 * B),
      f.subarray(2 * B, 2 * B + BU),
      w.subarray(0, B),
      w.subarray(B, 2 * B),
      w.subarray(2 * B, 2 * B + BU),
    );
    this.graph?.weights(f.subarray(2 * B + BU), w.subarray(2 * B + BU));
  }
}

/** QSG-S2AUC in the learner registry. */
export const qsgS2aucSpec = loopLearner({
  kind: 'loop',
  name: 'qsg-s2auc',
  summary: 'semi-supervised AUC maximisation by quadruply stochastic gradients',
  help: 'QSG-S2AUC: maximises AUC from positive, negative and unlabeled rows (the unlabeled rows enter through the PU and NU risks), with random features; the papers\' quadruply stochastic gradients.',
  task: 'binary',
  metric: 'auc',
  params: { ...RANDOM_FEATURE_PARAMS, ...LAMBDA_PARAM, ...GAMMA_PARAM, ...GRAPH_PARAM },
  threshold: 'fit',
  // T when not given: 400·√(n_l/200), 400 to 1,600 (learners/budget.ts; docs/learners.md § Budgets).
  budget: GROWING_BUDGET,
  defaultStep: pairwiseDefaultStep,
  create(ds, classes, params, step) {
    if (classes.kind !== 'binary') throw new Error('qsg-s2auc needs a binary task');
    return new QsgS2auc(ds, classes.positive, { lambda: params.lambda, gamma: params.gamma, batchSize: params.batchSize, step, ...(params.graphWeight ? { graphWeight: params.graphWeight } : {}) });
  },
  supervisedCase: { gamma: 1, graphWeight: 0 },
  // σ on the factor-2 ladder, as DSG's (common.ts sigmaLadder). λ from 10⁻³ to 10⁻¹: with a rare positive
  // class (a few dozen labeled positives) the strongest wins (docs/tuning.md, "λ's range").
  searchSpace: ({ sigma0 }) => ({ sigma: sigmaLadder(sigma0, 1), lambda: [1e-3, 1e-2, 1e-1], gamma: [0.25, 0.5, 0.75, 1] }),
});
