/**
 * Defaults that come from the training data: the median-heuristic kernel
 * scale σ₀ (the default σ and the centre of `tune`'s σ grid).
 */
import { DataError } from '../errors.ts';
import type { Dataset } from '../data/dataset.ts';
import { MinMaxScaler } from '../data/scaler.ts';
import { gatherRows, trainingRows, type TrainingRows } from '../data/training-rows.ts';
import { MEDIAN_HEURISTIC_SAMPLE, medianHeuristicSigma, sampleRowIndices } from '../features/median-heuristic.ts';
import { MAX_SIGMA } from '../learners/common.ts';
import type { LearnerSpec, Params } from '../learners/spec.ts';

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
    return medianHeuristicSigma(gatherRows(rows, picked), picked.length, rows.d, { sample: MEDIAN_HEURISTIC_SAMPLE, seed: 0 });
  } catch (err) {
    throw new DataError(`cannot take the median heuristic for σ (${(err as Error).message}); give sigma`, rows.source !== undefined ? { file: rows.source } : {});
  }
}

/**
 * The σ `train` uses by default on these training rows (unscaled, as given to
 * `train`): σ₀ of the rows scaled as `train` scales them ({@link kernelScale0}).
 *
 * @example
 * defaultSigma(trainSet); // e.g. 3.86 on the spam training split of `npm run main`
 */
export function defaultSigma(data: Dataset): number {
  return Math.min(kernelScale0(MinMaxScaler.fit(data).transform(data)), MAX_SIGMA);
}

/**
 * `params` with the defaults that come from the data filled in: σ = σ₀
 * ({@link kernelScale0}) when the learner has a σ and none was given.
 * `rows` are the training rows scaled as the learner sees them.
 *
 * @example
 * const params = withDataDefaults(spec, resolveParams(spec, { lambda: 0.1 }), scaled); // params.sigma = σ₀
 */
export function withDataDefaults(spec: LearnerSpec, params: Params, rows: Dataset | TrainingRows): Params {
  if ('sigma' in spec.params && params.sigma === undefined) return { ...params, sigma: Math.min(kernelScale0(rows), MAX_SIGMA) };
  return params;
}
