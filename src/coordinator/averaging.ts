/**
 * Suffix (Polyak–Ruppert) averaging of the loop's iterates, derived from the
 * run's own history after the fact.
 *
 * Iteration t shrinks every stored block by `φ_t = 1 − η_t·λ` and appends a
 * new one, so block i (added at iteration i) holds `a_i·Π_{k=i+1..s} φ_k` in
 * the iterate f_s and `r_i = a_i·Π_{k=i+1..T} φ_k` in the last one. The mean
 * of the iterates `f_{s0} … f_T` is therefore the last history with block i
 * multiplied by
 *
 *   W_i = (1/K) · Σ_{s = max(i, s0)}^{T} 1 / G_s,   G_s = Π_{k=s+1..T} φ_k,   K = T − s0 + 1,
 *
 * a number fixed by the step schedule, λ, T and s0 alone. The run keeps the
 * plain history (what continuing needs, bit for bit) and the model carries
 * these weights: a model continued from T to T′ gets the weights a run to T′
 * at once gets, and the same history, so the same bytes.
 */
import { stepAt, type StepSize } from './step-size.ts';

/** What is averaged: `none` (the last iterate) or the iterates of the last half of the run. */
export type Averaging = 'none' | 'suffix';

/** The choices of the `average` parameter. */
export const AVERAGINGS = ['none', 'suffix'] as const satisfies readonly Averaging[];

/**
 * The first iteration a suffix average over a run of T iterations takes in:
 * the last half, `s0 = ⌊T/2⌋ + 1` (T − s0 + 1 = ⌈T/2⌉ iterates).
 *
 * @example
 * suffixStart(400); // 201
 */
export function suffixStart(T: number): number {
  return Math.floor(T / 2) + 1;
}

/**
 * The weight of every block 0…T−1 (0-based: block i − 1 is added at iteration
 * i) that turns the last iterate of a run of T iterations into the mean of
 * iterates s0…T (see the file comment). Throws a RangeError when a shrink
 * factor of the averaged iterations is not positive (a step with η_t·λ ≥ 1
 * there wipes the past, and the mean cannot be derived from the last iterate).
 *
 * @example
 * const W = suffixWeights({ kind: 'decay', eta0: 0.5, eta1: 1 / 300 }, 0.01, 400, suffixStart(400));
 * // W[0] = W[200] ≈ 1.35: blocks from before the suffix gain what they had lost since; W[399] = 1 / 200
 */
export function suffixWeights(step: StepSize, lambda: number, T: number, s0: number): Float64Array {
  if (!Number.isInteger(T) || T < 1 || !Number.isInteger(s0) || s0 < 1 || s0 > T) throw new RangeError(`suffix average: need 1 ≤ s0 ≤ T, got s0 = ${s0}, T = ${T}`);
  const K = T - s0 + 1;
  const W = new Float64Array(T);
  // Backwards from s = T: invG = 1/G_s, sum = Σ_{s'=s..T} 1/G_{s'}.
  let invG = 1;
  let sum = 0;
  for (let s = T; s >= s0; s--) {
    sum += invG;
    W[s - 1] = sum / K;
    const phi = 1 - stepAt(step, s) * lambda;
    if (s > s0 && !(phi > 0)) throw new RangeError(`suffix average: the shrink factor 1 − η·λ at iteration ${s} is ${phi}, not positive (η_t·λ ≥ 1 forgets every earlier iterate); use average none or a smaller step`);
    invG /= phi;
  }
  W.fill(W[s0 - 1], 0, s0 - 1);
  return W;
}
