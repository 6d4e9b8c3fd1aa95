/**
 * Supervised doubly stochastic gradients (Dai et al., 2014): the baseline that
 * sees labeled rows only. Objective `mean_L l(y f(x)) + (λ/2)‖f‖²`, labels
 * mapped to ±1, on the same loop as the semi-supervised learners.
 */
import type { Dataset } from '../data/dataset.ts';
import type { Batch, DsgLearner, Rng } from './learner.ts';
import { binarySources, drawRows } from './sources.ts';
import type { StepSize } from './step-size.ts';

/** Margin losses `l(z)`, `z = y f(x)`, of the supervised baseline. */
export const MARGIN_LOSSES = ['hinge', 'logistic', 'square'] as const;
export type MarginLoss = (typeof MARGIN_LOSSES)[number];

/**
 * `dl/dz` of a margin loss at `z = y f(x)`: hinge `max(0, 1−z)`,
 * logistic `log(1 + e^{−z})`, square `(1 − z)²`.
 *
 * @example
 * marginLossDerivative('hinge', 0.5); // -1
 */
export function marginLossDerivative(loss: MarginLoss, z: number): number {
  switch (loss) {
    case 'hinge':
      return z < 1 ? -1 : 0;
    case 'logistic':
      return z > 0 ? -Math.exp(-z) / (1 + Math.exp(-z)) : -1 / (1 + Math.exp(z));
    case 'square':
      return -2 * (1 - z);
  }
}

/** Hyperparameters of the supervised baseline. */
export interface DsgParams {
  readonly lambda: number;
  readonly loss: MarginLoss;
  /** Labeled points drawn per iteration. */
  readonly batchSize: number;
  readonly step: StepSize;
}

/**
 * Supervised DSG on the labeled rows of a binary dataset (unlabeled rows are ignored).
 *
 * @example
 * const learner = new SupervisedDsg(ds, 1, { lambda: 0.125, loss: 'hinge', batchSize: 256, step: { kind: 'inverse', theta: 12 } });
 */
export class SupervisedDsg implements DsgLearner {
  readonly name = 'dsg';
  readonly d: number;
  readonly lambda: number;
  readonly step: StepSize;
  readonly loss: MarginLoss;
  private readonly ds: Dataset;
  private readonly labeledRows: Int32Array;
  private readonly positive: number;
  private readonly X: Float64Array;
  private readonly drawn: Int32Array;
  private readonly B: number;

  constructor(ds: Dataset, positive: number, params: DsgParams) {
    if (!MARGIN_LOSSES.includes(params.loss)) throw new RangeError(`unknown loss '${params.loss}' (expected ${MARGIN_LOSSES.join(', ')})`);
    if (!(params.lambda > 0) || !Number.isFinite(params.lambda)) throw new RangeError(`lambda must be positive, got ${params.lambda}`);
    if (!Number.isInteger(params.batchSize) || params.batchSize < 1) throw new RangeError(`batch size must be a positive integer, got ${params.batchSize}`);
    const { P, N } = binarySources(ds, positive);
    this.ds = ds;
    this.d = ds.d;
    this.lambda = params.lambda;
    this.step = params.step;
    this.loss = params.loss;
    this.positive = positive;
    this.labeledRows = Int32Array.from([...P, ...N]).sort();
    this.B = params.batchSize;
    this.X = new Float64Array(this.B * ds.d);
    this.drawn = new Int32Array(this.B);
  }

  /**
   * Draws B labeled rows uniformly with replacement.
   *
   * @example
   * const { X, nPoints } = learner.sample(samplingRng(seed)); // nPoints = B
   */
  sample(rng: Rng): Batch {
    drawRows(this.ds, this.labeledRows, this.B, rng, this.X, 0, this.drawn);
    return { X: this.X, nPoints: this.B };
  }

  /**
   * `w_i = y_i l'(y_i f_i) / B` for the rows of the last sample.
   *
   * @example
   * learner.weights(fAtBatch, w);
   */
  weights(f: Float64Array, w: Float64Array): void {
    for (let r = 0; r < this.B; r++) {
      const y = this.ds.y[this.drawn[r]] === this.positive ? 1 : -1;
      w[r] = (y * marginLossDerivative(this.loss, y * f[r])) / this.B;
    }
  }
}
