/**
 * What the shared DSG loop asks of a learner: where points come from, how
 * values at them turn into weights, the step schedule and the regulariser.
 * A learner knows nothing about threads, histories or files.
 */
import type { StepSize } from './step-size.ts';

/** A random number in [0, 1): the loop's sampling stream. */
export type Rng = () => number;

/** The points of one iteration, row-major. */
export interface Batch {
  readonly X: Float64Array;
  readonly nPoints: number;
}

/** A learner on the doubly stochastic loop of ALGORITHMS.md. */
export interface DsgLearner {
  /** Learner id, as written in model files. */
  readonly name: string;
  /** Input dimension. */
  readonly d: number;
  /** Regulariser weight: step 5 shrinks the past by `1 - η_t λ`. */
  readonly lambda: number;
  /** The step schedule `η_t`. */
  readonly step: StepSize;
  /** Step 1: draws iteration `t`'s mini-batch. The returned arrays may be reused next call. */
  sample(rng: Rng, t: number): Batch;
  /**
   * Step 3: per-point weights `w_p` from `f` at the batch points, such that the
   * new block is `α_t = -η_t Σ_p w_p φ_t(x_p)` (the learner's batch means included).
   */
  weights(f: Float64Array, w: Float64Array): void;
  /**
   * The empirical risk of the last sampled batch at values `f` — the function
   * whose gradient with respect to `f` is {@link weights} (the conformance
   * suite checks one against finite differences of the other).
   */
  risk(f: Float64Array): number;
}
