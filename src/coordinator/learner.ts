/**
 * What the shared DSG loop asks of a learner: where points come from, how
 * values at them turn into weights, the step schedule and the regulariser.
 * A learner knows nothing about threads, histories or files.
 */
import { evaluateGathered } from '../data/training-rows.ts';
import type { DrawSource } from '../engine/hot-rows.ts';
import type { StepSize } from './step-size.ts';

/** A random number in [0, 1): the loop's sampling stream. */
export type Rng = () => number;

/** The points of one iteration, row-major. */
export interface Batch {
  readonly X: Float64Array;
  readonly nPoints: number;
  /**
   * The dataset row each point was copied from (`rows[p]` for point p): where
   * a learner finds the points' labels, and where a loop that keeps f at
   * every row (the learner's {@link DsgLearner.sampledRows}) reads f at the
   * batch instead of evaluating the history.
   */
  readonly rows: Int32Array;
}

/**
 * Where a learner's batches come from: rows of its training rows. What a
 * loop that keeps f at every row it may draw needs.
 */
export interface SampledRows {
  /** How many rows `sample()` may draw from (what the cost of a row cache is predicted from). */
  readonly count: number;
  /** The rows to keep f at (dataset indices, ascending, no repeats), built on first use: every row `sample()` may draw. */
  rows(): Int32Array;
  /** Copies the (scaled) features of dataset row `i` into `X` at row `at`. */
  copyRow(i: number, X: Float64Array, at: number): void;
  /** Points in every batch. */
  readonly batchPoints: number;
  /**
   * The sources, each with its draws per iteration, when the learner says
   * them: a loop evaluating its history then keeps f at the rows of the
   * sources drawn again and again (engine/hot-rows.ts; the same bits).
   */
  readonly sources?: readonly DrawSource[];
}

/**
 * An unregularised bias `b` of a model `f(x) + b`, owned by the learner. The
 * loop adds `value` to f at the batch points before {@link DsgLearner.weights}
 * (so weights and risk see `f + b`) and to the validation values, calls
 * `update` after each step, and stores the final `b` in the model.
 */
export interface LearnerBias {
  /** `b` now. */
  readonly value: number;
  /**
   * After iteration t's step `η_t`, with f (bias included) and the weights at
   * the batch points; e.g. `b ← b − η_t Σ_p w_p` (the gradient of the batch risk with respect to b).
   * Reads its arguments only, never the last draw: the loop may have drawn batch t + 1, or t + 2, by then.
   */
  update(eta: number, f: Float64Array, w: Float64Array, nPoints: number): void;
  /** Sets the running `b` (a continued run restores the value it stopped with). */
  restore(value: number): void;
  /**
   * Rows (row-major, scaled) at which the loop evaluates the final `f` (bias
   * excluded) after the last iteration, and the final `b` from those values
   * (e.g. a class-balance constraint on the unlabeled rows). Absent: the last `value`.
   * `rows`: their dataset rows, when they are rows the learner samples — a run
   * that keeps f at those rows (evaluation 'rows') reads f there instead of
   * evaluating the history again.
   */
  readonly final?: FinalBiasRule;
}

/**
 * A bias's final rule ({@link LearnerBias.final}): the rows it reads and the
 * bias from f there. `perIteration`: the rows read grow with the run, at most
 * `perIteration · t` of them after iteration t ({@link finalPositions}) — TSGS3VM
 * reads B/2 unlabeled rows an iteration, so the bias of a short fit (tune's
 * first rounds: 10 iterations) costs no more than the fit's own evaluations
 * of the history at its unlabeled draws. The rows' features are copied when
 * read ({@link finalValues}), only for the rows read: a fit of 10 iterations
 * on grants (1,497 features; TSGS3VM samples 4,096 of its 6,352 unlabeled
 * rows) copies 320 rows, not the 49 MB of all 4,096.
 *
 * @example
 * const final: FinalBiasRule = { nPoints: U.length, d, copyPoint: (i, X, at) => rows.copyRow(U[i], X, at), rows: U, perIteration: 32, bias: (f) => c - mean(f) };
 */
export interface FinalBiasRule {
  /** Points the rule may read (point i is {@link copyPoint}'s). */
  readonly nPoints: number;
  /** Features a point. */
  readonly d: number;
  /** Copies point `i`'s features (scaled, as the loop's batches hold them) into row `at` of `X`. */
  copyPoint(i: number, X: Float64Array, at: number): void;
  /** The points' dataset rows, when they are rows the learner samples. */
  readonly rows?: Int32Array;
  readonly perIteration?: number;
  bias(f: Float64Array): number;
}

/** Fewest rows a final rule that grows with the run reads (fewer only when it has fewer). */
export const FINAL_MIN_ROWS = 256;

/**
 * How many points a final rule reads after iteration `t` ({@link finalPositions}).
 *
 * @example
 * finalPointCount({ nPoints: 4096, perIteration: 64 }, 10); // 640
 */
export function finalPointCount(final: Pick<FinalBiasRule, 'nPoints' | 'perIteration'>, t: number): number {
  const { nPoints: n, perIteration } = final;
  return perIteration === undefined ? n : Math.min(n, Math.max(FINAL_MIN_ROWS, Math.ceil(perIteration * t)));
}

/**
 * Which of a final rule's points it reads after iteration `t`: all of them,
 * or with `perIteration` an evenly spaced subset of
 * `max(FINAL_MIN_ROWS, perIteration·t)` of them (positions ⌊i·n/k⌋, in row
 * order). A function of the rule and `t` alone, so a run continued to t reads
 * what a run to t at once reads.
 *
 * @example
 * finalPositions({ nPoints: 4096, perIteration: 64, … }, 10); // 640 positions: 0, 6, 12, 19, …
 */
export function finalPositions(final: Pick<FinalBiasRule, 'nPoints' | 'perIteration'>, t: number): Int32Array {
  const n = final.nPoints;
  const k = finalPointCount(final, t);
  const at = new Int32Array(k);
  for (let i = 0; i < k; i++) at[i] = Math.floor((i * n) / k);
  return at;
}

/**
 * Points whose features {@link finalValues} copies at a time: 12 MB at
 * d = 1,497, where the 4,096 rows of TSGS3VM's sample take 49 MB (and
 * FRS3VM reads all of them at the end of every fit).
 */
export const FINAL_GATHER_POINTS = 1024;

/**
 * f at the points a final rule reads after iteration `t`
 * ({@link finalPositions}), in their order: their features are copied
 * `pointsPerCall` points at a time into one buffer and each part evaluated
 * by `evaluate` (the same bits whatever the parts: a point's value never
 * depends on the other points of a call).
 *
 * @example
 * const b = final.bias(await finalValues(final, t, (X, n, out) => evaluator.evaluate(X, n, out)));
 */
export async function finalValues(final: FinalBiasRule, t: number, evaluate: (X: Float64Array, nPoints: number, out: Float64Array) => Promise<unknown>, pointsPerCall = FINAL_GATHER_POINTS): Promise<Float64Array> {
  const at = finalPositions(final, t);
  return evaluateGathered(at.length, final.d, pointsPerCall, (p, X, r) => final.copyPoint(at[p], X, r), evaluate, new Float64Array(at.length));
}

/**
 * The dataset rows of the points a final rule reads after iteration `t`
 * ({@link finalPositions}); undefined when the rule does not say its rows.
 * A run keeping f at those rows reads it there, without copying features.
 *
 * @example
 * cache.read(finalRows(rule, t)!, …);
 */
export function finalRows(final: FinalBiasRule, t: number): Int32Array | undefined {
  const { rows } = final;
  if (rows === undefined) return undefined;
  const at = finalPositions(final, t);
  return at.length === rows.length ? rows : Int32Array.from(at, (p) => rows[p]);
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
  /**
   * Step 1: draws iteration `t`'s mini-batch. The draw depends on `rng` and `t`
   * alone (no state of the learner's own between calls): a saved run is
   * continued by restoring the stream's state and t only. The returned arrays
   * stay valid through the NEXT call and may be reused by the one after (two
   * sets in turn: `BatchBuffers`, learners/sources.ts): the loop draws batch t + 1 while it
   * still needs batch t (the conformance suite checks this).
   */
  sample(rng: Rng, t: number): Batch;
  /**
   * Step 3: per-point weights `w_p` from `f` at the points of `batch` (a batch
   * this learner drew; its labels come from `batch.rows`), such that the new
   * block is `α_t = -η_t Σ_p w_p φ_t(x_p)` (the learner's batch means
   * included). Reads `batch`, never the last draw: the loop may have drawn
   * batch t + 1 already.
   */
  weights(f: Float64Array, w: Float64Array, batch: Batch): void;
  /**
   * The empirical risk of `batch` at values `f` — the function whose gradient
   * with respect to `f` is {@link weights} (the conformance suite checks one
   * against finite differences of the other).
   */
  risk(f: Float64Array, batch: Batch): number;
  /** The model's bias, when the learner has one (absent: `f` has no bias). */
  readonly bias?: LearnerBias;
  /**
   * The rows the batches are drawn from, when they are rows of a dataset; then
   * every batch carries its {@link Batch.rows}. Absent: f at a batch always
   * comes from the history.
   */
  readonly sampledRows?: SampledRows;
}
