/**
 * The data's kernel scale and what follows from it for a fit: the
 * median-heuristic σ₀ (the centre of `tune`'s σ grid, the rung the default σ
 * is chosen from) and the first-step scale of the pairwise (AUC) learners,
 * whose step along a pair's kernel difference shrinks with a wide kernel.
 */
import { DataError } from '../errors.ts';
import type { Dataset } from '../data/dataset.ts';
import { gatherRows, trainingRows, type TrainingRows } from '../data/training-rows.ts';
import { MEDIAN_HEURISTIC_SAMPLE, medianHeuristicSigma, sampleRowIndices } from '../features/median-heuristic.ts';
import { wasmPairDistances } from '../engine/pair-distances.ts';

/**
 * The median-heuristic kernel scale σ₀ = 1 / median ‖x − x′‖² over all pairs
 * of a seeded sample of at most 1,000 rows of SCALED training rows (a Dataset,
 * or rows read on demand that hold the sample): the default σ and the centre
 * of `tune`'s σ grid. A DataError when the rows are mostly duplicates.
 *
 * @example
 * kernelScale0(scaledTrain); // e.g. 3.86 on spam (57 features in [0, 1], most near 0)
 */
export function kernelScale0(data: Dataset | TrainingRows): number {
  const rows = trainingRows(data);
  // The sample's rows, in ascending order, are what the heuristic sees of the data.
  const picked = sampleRowIndices(rows.n, MEDIAN_HEURISTIC_SAMPLE, 0);
  try {
    return medianHeuristicSigma(gatherRows(rows, picked), picked.length, rows.d, { sample: MEDIAN_HEURISTIC_SAMPLE, seed: 0, distances: wasmPairDistances });
  } catch (err) {
    throw new DataError(`cannot take the median heuristic for σ (${(err as Error).message}); give sigma`, rows.source !== undefined ? { file: rows.source } : {});
  }
}

/**
 * How much larger the first step of a pairwise learner's default schedule is
 * at σ = r·σ₀ than at σ₀: `max(1, (1 − e^{−1}) / (1 − e^{−r}))`.
 *
 * Why: an AUC learner's functional step moves f along k(x, ·) − k(x′, ·) for
 * a pair (the constant part of the kernel cancels), whose squared norm
 * 2 − 2k(x, x′) is 2(1 − e^{−r}) for the median pair of the Gaussian kernel
 * (σ₀ = 1/median ‖x − x′‖²). At σ₀ that is 1.26; at σ₀/16 it is 0.12, so the
 * same step moves f ten times less and 400 iterations stop far from the
 * optimum: QS3ORAO on diamonds at σ₀/16, λ = 10⁻⁴ held out 0.723 after 400
 * iterations and 0.796 after 4,000, and 0.796 after 400 with this scale.
 * Never below 1, so at σ ≥ σ₀ (every binary learner's default σ) the
 * schedule is unchanged; the ordinal learners' default σ₀/4 takes ×2.86.
 *
 * @example
 * kernelStepScale(1);      // 1
 * kernelStepScale(4);      // 1
 * kernelStepScale(1 / 16); // ≈ 10.4
 */
export function kernelStepScale(ratio: number): number {
  if (!(ratio > 0) || !Number.isFinite(ratio)) return 1;
  return Math.max(1, -Math.expm1(-1) / -Math.expm1(-ratio));
}
