/**
 * Defaults that come from the training data: the median-heuristic kernel
 * scale σ₀ (the default σ and the centre of `tune`'s σ grid).
 */
import { DataError } from '../errors.ts';
import type { Dataset } from '../data/dataset.ts';
import { MinMaxScaler } from '../data/scaler.ts';
import { gatherRows, trainingRows, type TrainingRows } from '../data/training-rows.ts';
import { MEDIAN_HEURISTIC_SAMPLE, medianHeuristicSigma, sampleRowIndices } from '../features/median-heuristic.ts';
import { MAX_SIGMA, resolveFeatures } from '../learners/common.ts';
import type { KernelSpec } from '../features/kernel-spec.ts';
import type { FEATURE_CHOICES } from '../features/spectral.ts';
import type { LearnerSpec, Params } from '../learners/spec.ts';
import { withBudget } from './budget.ts';

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
 * `params` with the defaults that come from the data filled in: a loop
 * learner's T by its budget rule from the labeled rows (train/budget.ts), σ = σ₀
 * ({@link kernelScale0}) when the learner has a σ and none was given, and the
 * feature family of `features: 'auto'` (or none given) by the number of
 * columns (`resolveFeatures`): `sorf` is then written out, `gaussian` left as
 * no key (a header without the key is a Gaussian model, so its bytes are
 * those of a model trained before `auto` existed). A `continued` run keeps its
 * model's family: no key there is `gaussian`, whatever `auto` would choose.
 * `rows` are the training rows scaled as the learner sees them.
 *
 * @example
 * const params = withDataDefaults(spec, resolveParams(spec, { lambda: 0.1 }), scaled); // params.sigma = σ₀
 */
export function withDataDefaults(spec: LearnerSpec, params: Params, rows: Dataset | TrainingRows, opts: { continued?: boolean } = {}): Params {
  // A loop learner's T not given: its budget rule on these rows' labeled count (train fills it earlier, before a plan of the rows is read).
  let out = withBudget(spec, params, trainingRows(rows).labeledRows.length).params;
  if ('features' in spec.params) out = withFeatureFamily(spec, out, rows.d, opts.continued === true);
  if ('sigma' in spec.params && params.sigma === undefined) out = { ...out, sigma: Math.min(kernelScale0(rows), MAX_SIGMA) };
  return out;
}

/**
 * `params` with `features` resolved on `d` columns (see {@link withDataDefaults}):
 * a family `auto` chose goes where a given one would be (the parameter table's
 * order), so the header is the bytes of a run given that family.
 */
function withFeatureFamily(spec: LearnerSpec, params: Params, d: number, continued: boolean): Params {
  const given = params.features as (typeof FEATURE_CHOICES)[number] | undefined;
  const { features: _given, ...rest } = params;
  if (given === 'gaussian') return rest;
  if (continued || (given !== undefined && given !== 'auto')) return params;
  const family = resolveFeatures(given, params.kernel as KernelSpec['kind'], d, params.m as number);
  if (family === 'gaussian') return rest;
  const order = Object.keys(spec.params);
  const at = order.indexOf('features');
  const entries = Object.entries(rest);
  const before = entries.findIndex(([k]) => order.indexOf(k) > at);
  entries.splice(before < 0 ? entries.length : before, 0, ['features', family]);
  return Object.fromEntries(entries);
}
