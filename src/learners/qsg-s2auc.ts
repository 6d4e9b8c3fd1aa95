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
import { DataError } from '../errors.ts';
import type { Dataset } from '../data/dataset.ts';
import type { Batch, DsgLearner, Rng } from '../coordinator/learner.ts';
import type { StepSize } from '../coordinator/step-size.ts';
import { LAMBDA_PARAM, lambdaDefaultStep, powersOfTwoAround, RANDOM_FEATURE_PARAMS } from './common.ts';
import { binarySources, drawRows, type BinarySources } from './sources.ts';
import type { LoopLearnerSpec } from './spec.ts';

/** Hyperparameters of QSG-S2AUC (the loop's T, m, σ, seed live with the trainer). */
export interface QsgS2aucParams {
  /** Regularisation λ. */
  readonly lambda: number;
  /** Trade-off γ ∈ [0, 1] between the PN risk and the PU + NU risks. */
  readonly gamma: number;
  /** Points drawn per source per iteration (B). */
  readonly batchSize: number;
  readonly step: StepSize;
}

/**
 * Probability masses of the points of P and N in an empirical risk (each sums
 * to 1): the pair `(p, n)` counts `mass.P[p] · mass.N[n]`. Absent, every point
 * of a set has mass `1/|set|`. QS3ORAO uses them to weight class mini-batches
 * by the classes' shares of the labeled rows.
 */
export interface PairMasses {
  readonly P: Float64Array;
  readonly N: Float64Array;
}

/**
 * The closed-form weights `w = ∂R̂/∂f` at every point of three sets for the
 * all-pairs empirical risk over those sets:
 *
 *   w_p = −2γ a_p (1 − f_p + f̄_N) − 2(1−γ) a_p (1 − f_p + f̄_U)
 *   w_n =  2γ b_n (1 − f̄_P + f_n) + 2(1−γ) b_n (1 − f̄_U + f_n)
 *   w_u =  2(1−γ)/|U| ((1 − f̄_P + f_u) − (1 − f_u + f̄_N))
 *
 * with masses `a_p = 1/|P|`, `b_n = 1/|N|` unless `mass` gives them, and
 * `f̄` the mass-weighted means (the per-triplet weights of ALGORITHMS.md
 * summed over all pairs, each pair weighted by its mass). Used on mini-batches
 * by the learners and on the whole training set by the exact solver.
 * `fU`/`wU` may be empty when γ = 1.
 *
 * @example
 * qsgS2aucWeights(0.5, fP, fN, fU, wP, wN, wU);
 */
export function qsgS2aucWeights(
  gamma: number,
  fP: Float64Array,
  fN: Float64Array,
  fU: Float64Array,
  wP: Float64Array,
  wN: Float64Array,
  wU: Float64Array,
  mass?: PairMasses,
): void {
  const nP = fP.length;
  const nN = fN.length;
  const nU = fU.length;
  const meanP = mass ? dot(mass.P, fP) : mean(fP);
  const meanN = mass ? dot(mass.N, fN) : mean(fN);
  const meanU = nU > 0 ? mean(fU) : 0;
  const g1 = 1 - gamma;
  for (let i = 0; i < nP; i++) {
    const fp = fP[i];
    const v = -2 * gamma * (1 - fp + meanN) - (nU > 0 ? 2 * g1 * (1 - fp + meanU) : 0);
    wP[i] = mass ? v * mass.P[i] : v / nP;
  }
  for (let i = 0; i < nN; i++) {
    const fn = fN[i];
    const v = 2 * gamma * (1 - meanP + fn) + (nU > 0 ? 2 * g1 * (1 - meanU + fn) : 0);
    wN[i] = mass ? v * mass.N[i] : v / nN;
  }
  for (let i = 0; i < nU; i++) {
    const fu = fU[i];
    wU[i] = (2 * g1 * (1 - meanP + fu - (1 - fu + meanN))) / nU;
  }
}

/**
 * The all-pairs empirical risk over three sets whose gradient with respect to
 * each `f` value is {@link qsgS2aucWeights}:
 * `γ·mean_{P×N} l(f_p, f_n) + (1−γ)(mean_{P×U} l(f_p, f_u) + mean_{U×N} l(f_u, f_n) − ½)`,
 * `l(u, v) = (1 − u + v)²`, the means weighted by `mass` when given.
 * O(|P|·|N| + …): for tests and the conformance suite.
 *
 * @example
 * qsgS2aucRisk(0.5, fP, fN, fU); // ≥ 0 up to the −½ offset
 */
export function qsgS2aucRisk(gamma: number, fP: Float64Array, fN: Float64Array, fU: Float64Array, mass?: PairMasses): number {
  const uniform = (n: number) => new Float64Array(n).fill(1 / n);
  const a = mass?.P ?? uniform(fP.length);
  const b = mass?.N ?? uniform(fN.length);
  const c = uniform(fU.length);
  const pairMean = (A: Float64Array, wA: Float64Array, Bv: Float64Array, wB: Float64Array) => {
    let s = 0;
    for (let i = 0; i < A.length; i++) for (let j = 0; j < Bv.length; j++) s += wA[i] * wB[j] * (1 - A[i] + Bv[j]) ** 2;
    return s;
  };
  const pn = pairMean(fP, a, fN, b);
  if (fU.length === 0) return gamma * pn;
  return gamma * pn + (1 - gamma) * (pairMean(fP, a, fU, c) + pairMean(fU, c, fN, b) - 0.5);
}

function mean(a: Float64Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i];
  return s / a.length;
}

function dot(a: Float64Array, b: Float64Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * b[i];
  return s;
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
  private readonly ds: Dataset;
  private readonly X: Float64Array;
  private readonly B: number;
  private readonly BU: number;

  constructor(ds: Dataset, positive: number, params: QsgS2aucParams) {
    this.ds = ds;
    this.d = ds.d;
    this.lambda = params.lambda;
    this.step = params.step;
    this.gamma = params.gamma;
    this.batchSize = params.batchSize;
    this.sources = binarySources(ds, positive);
    if (this.sources.U.length === 0 && params.gamma < 1) {
      throw new DataError(
        `QSG-S2AUC with γ = ${params.gamma} needs unlabeled rows (a null label), and every row is labeled: hide labels with \`dsgkit split --labeled N\`, or use γ = 1 for labeled-only data`,
        ds.source !== undefined ? { file: ds.source, column: ds.labelName } : { column: ds.labelName },
      );
    }
    this.B = params.batchSize;
    this.BU = params.gamma < 1 ? params.batchSize : 0;
    this.X = new Float64Array((2 * this.B + this.BU) * ds.d);
  }

  /**
   * Draws B positives, B negatives and B unlabeled points, in that order.
   *
   * @example
   * const { X, nPoints } = learner.sample(samplingRng(seed)); // nPoints = 3B
   */
  sample(rng: Rng): Batch {
    const { B, BU, X, ds } = this;
    drawRows(ds, this.sources.P, B, rng, X, 0);
    drawRows(ds, this.sources.N, B, rng, X, B);
    if (BU > 0) drawRows(ds, this.sources.U, BU, rng, X, 2 * B);
    return { X, nPoints: 2 * B + BU };
  }

  /**
   * The batch's all-pairs risk at `f` (see {@link qsgS2aucRisk}); its gradient is {@link weights}.
   *
   * @example
   * learner.risk(fAtBatch);
   */
  risk(f: Float64Array): number {
    const { B, BU } = this;
    return qsgS2aucRisk(this.gamma, f.subarray(0, B), f.subarray(B, 2 * B), f.subarray(2 * B, 2 * B + BU));
  }

  /**
   * Closed-form all-pairs weights of the batch (see {@link qsgS2aucWeights}).
   *
   * @example
   * learner.weights(fAtBatch, w); // then α_t = −η_t Σ_p w[p] φ_t(x_p)
   */
  weights(f: Float64Array, w: Float64Array): void {
    const { B, BU } = this;
    qsgS2aucWeights(
      this.gamma,
      f.subarray(0, B),
      f.subarray(B, 2 * B),
      f.subarray(2 * B, 2 * B + BU),
      w.subarray(0, B),
      w.subarray(B, 2 * B),
      w.subarray(2 * B, 2 * B + BU),
    );
  }
}

/** The trade-off γ between the PN risk and the PU + NU risks. */
export const GAMMA_PARAM = {
  gamma: { kind: 'number', default: 0.5, min: 0, max: 1, symbol: 'γ', doc: 'γ in [0, 1] of the risk γ·R_PN + (1 − γ)(R_PU + R_NU − ½); 1 = labeled pairs only' },
} as const;

/** QSG-S2AUC in the learner registry. */
export const qsgS2aucSpec: LoopLearnerSpec = {
  kind: 'loop',
  name: 'qsg-s2auc',
  summary: 'semi-supervised AUC maximisation by quadruply stochastic gradients',
  help: 'QSG-S2AUC: maximises AUC from positive, negative and unlabeled rows (the unlabeled rows enter through the PU and NU risks), with random features; the papers\' quadruply stochastic gradients.',
  task: 'binary',
  metric: 'auc',
  params: { ...RANDOM_FEATURE_PARAMS, ...LAMBDA_PARAM, ...GAMMA_PARAM },
  threshold: 'fit',
  defaultStep: lambdaDefaultStep,
  create(ds, classes, params, step) {
    if (classes.kind !== 'binary') throw new Error('qsg-s2auc needs a binary task');
    return new QsgS2auc(ds, classes.positive, { lambda: params.lambda as number, gamma: params.gamma as number, batchSize: params.batchSize as number, step });
  },
  searchSpace: ({ sigma0 }) => ({ sigma: powersOfTwoAround(sigma0, 2), lambda: [1e-3, 1e-2, 1e-1], gamma: [0.25, 0.5, 0.75, 1] }),
};
