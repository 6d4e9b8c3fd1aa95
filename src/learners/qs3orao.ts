/**
 * QS3ORAO: semi-supervised ordinal regression by AUC maximisation with
 * quadruply stochastic gradients, and its supervised baseline on the same
 * loop. See ALGORITHMS.md § QS3ORAO and papers/qs3orao.md.
 *
 * Classes `c_1 < … < c_k` (the task's rank order; label values need not be
 * 1..k). Subproblem `j = 1..k−1` is a binary semi-supervised AUC problem:
 * positives `y > c_j`, negatives `y ≤ c_j`, plus the unlabeled rows, with the
 * QSG-S2AUC risk
 *
 *   R^j = γ_j R^j_PN + (1 − γ_j)(R^j_PU + R^j_NU − ½),   l(u, v) = (1 − u + v)²,
 *
 * and QS3ORAO minimises `(1/(k−1)) Σ_j R^j + (λ/2)‖f‖²` over ONE ranking
 * function f. Every iteration draws B rows from each class and B unlabeled
 * rows, and builds all k − 1 subproblems from them (the paper's Algorithm 1,
 * remark 1). In subproblem j the positives are the batches of classes j+1..k,
 * each weighted by its class's share of the labeled rows with `y > c_j`
 * (negatives likewise), so the mini-batch risk is an unbiased estimate of the
 * risk over all labeled pairs, whatever the class balance.
 *
 * After training the API fits `b_1 < … < b_{k−1}` from the one-sided squared
 * surrogate (model/thresholds.ts, via the task's `threshold: 'fit'`), and
 * `h(x) = c_{1 + #{j : f(x) > b_j}}`.
 *
 * The supervised baseline `sorao` is the same risk with every `γ_j = 1`: the
 * labeled pairs only, no unlabeled batch — what a user compares against to
 * see what the unlabeled rows bring.
 */
import { FIXED_BUDGET } from './budget.ts';
import { loopLearner } from './loop-fit.ts';
import { DataError, UsageError } from '../errors.ts';
import type { Dataset } from '../data/dataset.ts';
import { trainingRows, type TrainingRows } from '../data/training-rows.ts';
import type { Batch, DsgLearner, Rng, SampledRows } from '../coordinator/learner.ts';
import type { StepSize } from '../coordinator/step-size.ts';
import type { TaskClasses } from '../model/task.ts';
import { FIXED_T_PARAM, LAMBDA_PARAM, pairwiseDefaultStep, sigmaLadder, RANDOM_FEATURE_PARAMS } from './common.ts';
import type { ParamTable, ParamValue } from './params.ts';
import { aucRisk, aucWeights, type PairMasses } from './auc-risk.ts';
import { BatchBuffers, classSources, drawRows, type ClassSources } from './sources.ts';
import { sampledRows } from './sampled-rows.ts';

/** Hyperparameters of QS3ORAO (the loop's T, m, σ, seed live with the trainer). */
export interface Qs3oraoParams {
  /** Learner id written in model files (`qs3orao`, or `sorao` for the baseline). */
  readonly name: string;
  /** Regularisation λ. */
  readonly lambda: number;
  /** `γ_1 … γ_{k−1}`, one per threshold subproblem, each in [0, 1]. */
  readonly gamma: readonly number[];
  /** Rows drawn per class and from the unlabeled rows per iteration (B). */
  readonly batchSize: number;
  readonly step: StepSize;
}

/**
 * `γ_1 … γ_{k−1}` from a parameter value: one value for every subproblem, or
 * exactly k − 1 values (lowest threshold first); a UsageError naming the
 * option otherwise.
 *
 * @example
 * gammaPerThreshold(0.5, 5);                  // [0.5, 0.5, 0.5, 0.5]
 * gammaPerThreshold([0.2, 0.4, 0.6, 0.8], 5); // [0.2, 0.4, 0.6, 0.8]
 * gammaPerThreshold([0.2, 0.4], 5);           // UsageError: gamma (--gamma): 2 values for 5 classes …
 */
export function gammaPerThreshold(value: ParamValue, k: number): number[] {
  if (typeof value === 'number') return new Array<number>(k - 1).fill(value);
  if (typeof value === 'string' || value.length !== k - 1) {
    const count = typeof value === 'string' ? `'${value}'` : `${value.length} values`;
    throw new UsageError(`gamma (--gamma): ${count} for ${k} classes; give one value for every threshold or k − 1 = ${k - 1} values, lowest threshold first`);
  }
  return [...value];
}

/**
 * The masses of the class mini-batches in subproblem j (0-based: negatives are
 * classes 0..j, positives j+1..k−1): a row of class i's batch weighs
 * `n_i / (n_side · B)`, where `n_i` is the class's labeled rows and `n_side`
 * those of its side, so each side's masses sum to 1.
 *
 * @example
 * subproblemMasses([90, 90, 90], 2)[0]; // { N: [0.5, 0.5], P: [0.25, 0.25, 0.25, 0.25] }
 */
export function subproblemMasses(classSizes: readonly number[], B: number): PairMasses[] {
  const k = classSizes.length;
  const side = (from: number, to: number): Float64Array => {
    let total = 0;
    for (let i = from; i < to; i++) total += classSizes[i];
    const out = new Float64Array((to - from) * B);
    for (let i = from; i < to; i++) out.fill(classSizes[i] / (total * B), (i - from) * B, (i - from + 1) * B);
    return out;
  };
  return Array.from({ length: k - 1 }, (_, j) => ({ N: side(0, j + 1), P: side(j + 1, k) }));
}

/**
 * QS3ORAO (or, with every γ_j = 1, its supervised baseline) on an ordinal
 * semi-supervised dataset (features already scaled).
 *
 * @example
 * const learner = new Qs3orao(ds, [1, 2, 3, 4, 5], { name: 'qs3orao', lambda: 0.01, gamma: [0.5, 0.5, 0.5, 0.5], batchSize: 64, step });
 */
export class Qs3orao implements DsgLearner {
  readonly name: string;
  readonly d: number;
  readonly lambda: number;
  readonly step: StepSize;
  /** `γ_1 … γ_{k−1}`. */
  readonly gamma: readonly number[];
  readonly sources: ClassSources;
  readonly sampledRows: SampledRows;
  private readonly rows: TrainingRows;
  private readonly buffers: BatchBuffers;
  private readonly k: number;
  private readonly B: number;
  /** Unlabeled rows per batch: B, or 0 when every γ_j = 1. */
  private readonly BU: number;
  private readonly masses: PairMasses[];
  private readonly tmp: Float64Array;

  constructor(data: Dataset | TrainingRows, classes: readonly number[], params: Qs3oraoParams) {
    const rows = trainingRows(data);
    this.k = classes.length;
    if (params.gamma.length !== this.k - 1) throw new RangeError(`Qs3orao: ${params.gamma.length} values of γ for ${this.k} classes`);
    this.name = params.name;
    this.rows = rows;
    this.d = rows.d;
    this.lambda = params.lambda;
    this.step = params.step;
    this.gamma = params.gamma;
    this.sources = classSources(rows, classes);
    const semi = params.gamma.some((g) => g < 1);
    if (semi && this.sources.U.size === 0) {
      throw new DataError(
        `QS3ORAO with γ = ${params.gamma.join(', ')} needs unlabeled rows (a null label), and every row is labeled: hide labels with \`dsgkit split --labeled N\`, or use γ = 1 for labeled-only data`,
        rows.source !== undefined ? { file: rows.source, column: rows.labelName } : { column: rows.labelName },
      );
    }
    this.B = params.batchSize;
    this.BU = semi ? params.batchSize : 0;
    this.masses = subproblemMasses(
      this.sources.byClass.map((source) => source.size),
      this.B,
    );
    this.buffers = new BatchBuffers(this.k * this.B + this.BU, rows.d);
    this.sampledRows = sampledRows(
      rows,
      this.BU > 0 ? [...this.sources.byClass, this.sources.U] : this.sources.byClass,
      this.k * this.B + this.BU,
      this.BU > 0 ? [...this.sources.byClass.map(() => this.B), this.BU] : this.sources.byClass.map(() => this.B),
    );
    this.tmp = new Float64Array(this.k * this.B + this.BU);
  }

  /**
   * Draws B rows of each class (in rank order) and then B unlabeled rows.
   *
   * @example
   * const { X, nPoints } = learner.sample(samplingRng(seed)); // nPoints = (k + 1)·B
   */
  sample(rng: Rng): Batch {
    const { B, BU, rows, k } = this;
    const { X, rows: drawn } = this.buffers.next();
    for (let i = 0; i < k; i++) drawRows(rows, this.sources.byClass[i], B, rng, X, i * B, drawn.subarray(i * B, (i + 1) * B));
    if (BU > 0) drawRows(rows, this.sources.U, BU, rng, X, k * B, drawn.subarray(k * B));
    return { X, nPoints: k * B + BU, rows: drawn };
  }

  /** The batch's values of subproblem j (0-based): negatives, positives, unlabeled (empty when γ_j = 1). */
  private split(v: Float64Array, j: number): [Float64Array, Float64Array, Float64Array] {
    const { B, BU, k } = this;
    const cut = (j + 1) * B;
    return [v.subarray(0, cut), v.subarray(cut, k * B), this.gamma[j] < 1 ? v.subarray(k * B, k * B + BU) : v.subarray(0, 0)];
  }

  /**
   * The batch's risk at `f`: the mean over the k − 1 subproblems of their
   * mass-weighted all-pairs QSG-S2AUC risks; its gradient is {@link weights}.
   *
   * @example
   * learner.risk(fAtBatch, batch);
   */
  risk(f: Float64Array, _batch: Batch): number {
    let s = 0;
    for (let j = 0; j < this.k - 1; j++) {
      const [fN, fP, fU] = this.split(f, j);
      s += aucRisk(this.gamma[j], fP, fN, fU, this.masses[j]);
    }
    return s / (this.k - 1);
  }

  /**
   * Closed-form weights of the batch: the mean over the subproblems of their
   * QSG-S2AUC weights (see {@link aucWeights}), O(k·(k + 1)·B).
   *
   * @example
   * learner.weights(fAtBatch, w, batch); // then α_t = −η_t Σ_p w[p] φ_t(x_p)
   */
  weights(f: Float64Array, w: Float64Array, _batch: Batch): void {
    const n = this.k * this.B + this.BU;
    w.fill(0, 0, n);
    const { tmp } = this;
    const scale = 1 / (this.k - 1);
    for (let j = 0; j < this.k - 1; j++) {
      const [fN, fP, fU] = this.split(f, j);
      const [tN, tP, tU] = this.split(tmp, j);
      aucWeights(this.gamma[j], fP, fN, fU, tP, tN, tU, this.masses[j]);
      const used = this.gamma[j] < 1 ? n : this.k * this.B;
      for (let p = 0; p < used; p++) w[p] += scale * tmp[p];
    }
  }
}

/**
 * γ_j of each threshold subproblem: one value, or a list; 0.9 by default, the
 * rule of QSG-S2AUC's γ (`GAMMA_PARAM` in auc-risk.ts), which the ordinal
 * benchmark sets agree with (docs/learners.md § What the unlabeled rows buy at
 * the defaults).
 *
 * @example
 * GAMMA_LIST_PARAM.gamma.default; // 0.9: every threshold γ_j = 0.9
 */
const GAMMA_LIST_PARAM = {
  gamma: {
    kind: 'numbers',
    default: 0.9,
    min: 0,
    max: 1,
    symbol: 'γ',
    doc: 'γ_j of each threshold subproblem γ_j·R_PN + (1 − γ_j)(R_PU + R_NU − ½), lowest threshold first (one value = the same for all k − 1); 1 = labeled pairs only',
  },
} as const satisfies ParamTable;

/**
 * The ordinal learners' defaults of σ and λ: σ = σ₀/4 ({@link ORDINAL_SIGMA_RATIO}),
 * λ = 10⁻³, where the loop learners of two classes take σ by kernel–target
 * alignment (σ₀ or narrower) and λ = 0.01. Ordered targets (a price bin, a
 * grade, a rating) are smooth in the features: on the benchmark's four
 * ordinal sets the SVC's CV picks γ from σ₀/1.7 to σ₀/1,100, and once the wide
 * kernel's step was scaled (learners/kernel-scale.ts) QS3ORAO and SORAO at
 * σ₀/4, λ = 10⁻³ held out a higher mean threshold AUC than at their former
 * defaults on 14 of 16 splits each (seeds 1–4, docs/learners.md § Ordinal defaults).
 */
export const ORDINAL_SIGMA_RATIO = 1 / 4;

const ORDINAL_PARAMS = {
  sigma: { ...RANDOM_FEATURE_PARAMS.sigma, defaultDoc: 'σ₀/4', doc: "kernel scale σ (an inverse width) on features scaled to [0, 1]; default σ₀/4 (σ₀ = 1 / median ‖x − x′‖² of the training rows): ordered targets want a wide kernel" },
  lambda: { ...LAMBDA_PARAM.lambda, default: 1e-3 },
} as const satisfies ParamTable;

function ordinalClasses(name: string, classes: TaskClasses): readonly number[] {
  if (classes.kind !== 'ordinal') throw new Error(`${name} needs an ordinal task`);
  return classes.classes;
}

function loopParams(params: { readonly lambda: number; readonly batchSize: number }): { lambda: number; batchSize: number } {
  return { lambda: params.lambda, batchSize: params.batchSize };
}

/** QS3ORAO in the learner registry. */
export const qs3oraoSpec = loopLearner({
  kind: 'loop',
  name: 'qs3orao',
  summary: 'semi-supervised ordinal regression by AUC (k − 1 threshold subproblems, one ranking function)',
  help:
    'QS3ORAO: ordinal regression for k ≥ 3 ordered classes. One ranking function f maximises the mean AUC of the k − 1 threshold subproblems (y > c_j against y ≤ c_j), each a semi-supervised AUC risk that also uses the unlabeled rows, weighted by its γ_j; then thresholds b_1 < … < b_{k−1} are fitted on the labeled rows. For two classes use qsg-s2auc.',
  task: 'ordinal',
  metric: 'mean-auc',
  params: { ...RANDOM_FEATURE_PARAMS, sigma: ORDINAL_PARAMS.sigma, T: FIXED_T_PARAM, lambda: ORDINAL_PARAMS.lambda, ...GAMMA_LIST_PARAM },
  threshold: 'fit',
  // T when not given: 400 whatever n_l; the √n_l rule did not help it (learners/budget.ts; docs/learners.md § Budgets).
  budget: FIXED_BUDGET,
  defaultStep: pairwiseDefaultStep,
  defaultSigmaRatio: ORDINAL_SIGMA_RATIO,
  create(ds, classes, params, step) {
    const c = ordinalClasses('qs3orao', classes);
    return new Qs3orao(ds, c, { name: 'qs3orao', ...loopParams(params), gamma: gammaPerThreshold(params.gamma, c.length), step });
  },
  supervisedCase: { gamma: 1 },
  searchSpace: ({ sigma0 }) => ({ sigma: sigmaLadder(sigma0), lambda: [1e-4, 1e-3, 1e-2], gamma: [0.25, 0.5, 0.75, 1] }),
});

/** The supervised baseline of QS3ORAO (every γ_j = 1: labeled rows only) in the learner registry. */
export const soraoSpec = loopLearner({
  kind: 'loop',
  name: 'sorao',
  summary: 'supervised ordinal regression by AUC (labeled rows only): the baseline of qs3orao',
  help: "SORAO: QS3ORAO's risk with every γ_j = 1, on the labeled rows only (no unlabeled batch), on the same loop and features; the baseline that shows what the unlabeled rows bring to qs3orao.",
  task: 'ordinal',
  metric: 'mean-auc',
  params: { ...RANDOM_FEATURE_PARAMS, sigma: ORDINAL_PARAMS.sigma, T: FIXED_T_PARAM, lambda: ORDINAL_PARAMS.lambda },
  threshold: 'fit',
  // T when not given: 400 whatever n_l; the √n_l rule did not help it (learners/budget.ts; docs/learners.md § Budgets).
  budget: FIXED_BUDGET,
  defaultStep: pairwiseDefaultStep,
  defaultSigmaRatio: ORDINAL_SIGMA_RATIO,
  create(ds, classes, params, step) {
    const c = ordinalClasses('sorao', classes);
    return new Qs3orao(ds, c, { name: 'sorao', ...loopParams(params), gamma: new Array<number>(c.length - 1).fill(1), step });
  },
  searchSpace: ({ sigma0 }) => ({ sigma: sigmaLadder(sigma0), lambda: [1e-4, 1e-3, 1e-2] }),
});
