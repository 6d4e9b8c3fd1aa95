/**
 * Defaults that come from the training data: the median-heuristic kernel
 * scale σ₀ (the centre of `tune`'s σ grid) and the default σ chosen from it
 * by the labeled rows' kernel–target alignment ({@link defaultKernelScale}),
 * or the learner's fixed rung (the ordinal learners' σ₀/4: {@link learnerKernelScale}).
 */
import seedrandom from 'seedrandom';
import type { Dataset } from '../data/dataset.ts';
import { DEFAULT_CLIP_QUANTILE, MinMaxScaler } from '../data/scaler.ts';
import { gatherRows, trainingRows, type TrainingRows } from '../data/training-rows.ts';
import { ALIGNMENT_EXPONENTS, ALIGNMENT_SAMPLE, alignedSigma } from '../features/kernel-alignment.ts';
import { sampleIndices } from '../features/median-heuristic.ts';
import { kernelScale0 } from '../learners/kernel-scale.ts';
import { wasmPairDistances } from '../engine/pair-distances.ts';
import { MAX_SIGMA, resolveFeatures } from '../learners/common.ts';
import type { KernelSpec } from '../features/kernel-spec.ts';
import type { FEATURE_CHOICES } from '../features/spectral.ts';
import type { LearnerSpec, Params } from '../learners/spec.ts';
import { withBudget } from './budget.ts';
import { withParamInPlace } from '../learners/params.ts';

export { kernelScale0 };

/**
 * The rungs σ₀·2^k the default σ is chosen among: k = 0, ½, 1, … 6, i.e. σ₀
 * and narrower kernels up to 64σ₀. Not wider than σ₀: as σ → 0 the centred
 * alignment of the Gaussian kernel tends to that of the LINEAR kernel, so on
 * nearly linear labels it keeps rising towards σ₀/16 (breast_cancer, dna,
 * spam and the ordinal sets of bench/quality.ts), where `tune` finds σ₀ as
 * good or better.
 *
 * @example
 * DEFAULT_SIGMA_EXPONENTS.map((k) => 2 ** k); // [1, 1.41, 2, …, 64]: σ/σ₀ of the rungs
 */
export const DEFAULT_SIGMA_EXPONENTS: readonly number[] = ALIGNMENT_EXPONENTS.filter((k) => k >= 0);

/**
 * The default σ leaves σ₀ only for a rung whose alignment is more than 10%
 * above σ₀'s: the alignment of 200 labeled rows is a noisy estimate, and
 * small gains (churn, pima, satellite: 1–9%) moved σ to no benefit. Chosen on
 * bench/quality.ts at defaults, 14 sets × seeds 1–2, against no margin and
 * 20%: 10% gave the smallest mean gap to the best peer for five of the six
 * binary learners, and was 0.002 behind 20% for DSG (docs/learners.md).
 *
 * @example
 * alignedSigma(X, y, n, d, sigma0, { exponents: DEFAULT_SIGMA_EXPONENTS, minGain: DEFAULT_SIGMA_MIN_GAIN });
 */
export const DEFAULT_SIGMA_MIN_GAIN = 0.1;

/** The default σ and where it came from (see {@link defaultKernelScale}). */
export interface KernelScaleChoice {
  /** The σ a run without one uses (capped at MAX_SIGMA). */
  readonly sigma: number;
  /** The median heuristic σ₀ it was chosen around. */
  readonly sigma0: number;
  /** σ/σ₀ as chosen (before the cap): 2^k. */
  readonly ratio: number;
}

/**
 * The default kernel scale on SCALED training rows: among σ₀·2^k, k = 0, ½, …
 * 6 ({@link DEFAULT_SIGMA_EXPONENTS}, σ₀ from {@link kernelScale0}), the σ
 * whose kernel has the largest centred kernel–target alignment (Cortes et al.
 * 2012; features/kernel-alignment.ts) with the labels of the labeled rows — a
 * seeded sample of at most 1,000 of them; centred labels, which for two
 * classes weigh each class by the inverse of its size, and for ordinal ones
 * are the centred class ranks. σ₀ stays unless the best rung aligns more than
 * 10% better ({@link DEFAULT_SIGMA_MIN_GAIN}; `minGain` another margin, for a
 * study of the rule); ties go to the rung nearest σ₀;
 * fewer than 2 labeled rows or one label value keep σ₀. `kernel: 'laplacian'` scores
 * exp(−σ‖x − x′‖₁). Cost: O(n_l²·d) once plus O(n_l²) per rung, on this
 * thread: the same σ on any thread count.
 *
 * Labels that change over short distances want a narrower kernel than the
 * median heuristic's: on the quality benchmark's splits it picks 4σ₀ on
 * ionosphere and 5.7–8σ₀ on musk, σ₀ on breast_cancer, dna, spam and the
 * ordinal sets (docs/learners.md § The default kernel scale σ).
 *
 * @example
 * defaultKernelScale(scaledTrain); // e.g. { sigma: 0.94, sigma0: 0.234, ratio: 4 } on an ionosphere split
 */
export function defaultKernelScale(data: Dataset | TrainingRows, kernel: 'rbf' | 'laplacian' = 'rbf', minGain = DEFAULT_SIGMA_MIN_GAIN): KernelScaleChoice {
  const rows = trainingRows(data);
  const sigma0 = kernelScale0(rows);
  const picked = sampleIndices(rows.labeledRows.length, ALIGNMENT_SAMPLE, seedrandom('default-sigma:0'));
  const idx = Array.from(picked, (i) => rows.labeledRows[i]);
  const y = Float64Array.from(idx, (i) => rows.label(i));
  const chosen = alignedSigma(gatherRows(rows, idx), y, idx.length, rows.d, sigma0, { exponents: DEFAULT_SIGMA_EXPONENTS, minGain, norm: kernel === 'laplacian' ? 'l1' : 'l2sq', distances: wasmPairDistances });
  return { sigma: Math.min(chosen.sigma, MAX_SIGMA), sigma0, ratio: 2 ** chosen.exponent };
}

/**
 * The feature scaling's clip quantile of a run: `given` (a `clipQuantile`
 * option) when there is one, else DEFAULT_CLIP_QUANTILE — the same for
 * every learner. `train`, `tune` and `compare` all resolve it here, so a
 * tuned model scales as its search did.
 *
 * @example
 * clipQuantileFor(undefined); // 0.02
 * clipQuantileFor(0);         // 0: min and max
 */
export function clipQuantileFor(given: number | undefined): number {
  return given ?? DEFAULT_CLIP_QUANTILE;
}

/**
 * The feature scaling a run fits on `data` (its raw training rows): each
 * feature over its q to 1 − q quantiles, q = {@link clipQuantileFor}`(clipQuantile)`,
 * or its min and max at 0.
 *
 * @example
 * const scaled = scalerFor(trainSet).transform(trainSet); // the rows as `train` scales them
 */
export function scalerFor(data: Dataset, clipQuantile?: number): MinMaxScaler {
  return MinMaxScaler.fit(data, undefined, { clipQuantile: clipQuantileFor(clipQuantile) });
}

/**
 * The σ `train` uses by default on these training rows (unscaled, as given to
 * `train`) for `learner` (default: a learner whose σ is chosen by alignment
 * and whose features are scaled over the default clip quantile):
 * {@link learnerKernelScale} of the rows scaled as `train` scales them — with
 * `clipQuantile` as `train` was given it ({@link clipQuantileFor} when not).
 *
 * @example
 * defaultSigma(trainSet); // σ of `train({ learner: 'qsg-s2auc', data: trainSet })`
 * defaultSigma(ordinalTrain, 'rbf', qs3oraoSpec); // σ₀/4
 * defaultSigma(trainSet, 'rbf', {}, 0); // σ of `train({ …, clipQuantile: 0 })` (min–max scaling)
 */
export function defaultSigma(data: Dataset, kernel: 'rbf' | 'laplacian' = 'rbf', learner: Pick<LearnerSpec, 'defaultSigmaRatio'> = {}, clipQuantile?: number): number {
  return learnerKernelScale(learner, scalerFor(data, clipQuantile).transform(data), kernel).sigma;
}

/**
 * How `learner`'s default σ/σ₀ was chosen, as the run summary and `describe` say it.
 *
 * @example
 * defaultSigmaRule(qsgS2aucSpec); // 'by kernel–target alignment on the labeled rows'
 * defaultSigmaRule(qs3oraoSpec);  // 'fixed by the learner (ordered targets want a wide kernel)'
 */
export function defaultSigmaRule(learner: Pick<LearnerSpec, 'defaultSigmaRatio'> | undefined): string {
  return learner?.defaultSigmaRatio !== undefined ? 'fixed by the learner (ordered targets want a wide kernel)' : 'by kernel–target alignment on the labeled rows';
}

/**
 * The default σ of `learner` on SCALED training rows: its fixed rung σ₀·r
 * when it declares one (`defaultSigmaRatio`, the ordinal learners' σ₀/4),
 * else {@link defaultKernelScale}'s rung by alignment.
 *
 * @example
 * learnerKernelScale(qs3oraoSpec, scaled); // { sigma: σ₀/4, sigma0, ratio: 0.25 }
 */
export function learnerKernelScale(learner: Pick<LearnerSpec, 'defaultSigmaRatio'>, rows: Dataset | TrainingRows, kernel: 'rbf' | 'laplacian' = 'rbf'): KernelScaleChoice {
  const ratio = learner.defaultSigmaRatio;
  if (ratio === undefined) return defaultKernelScale(rows, kernel);
  const sigma0 = kernelScale0(rows);
  return { sigma: Math.min(sigma0 * ratio, MAX_SIGMA), sigma0, ratio };
}

/**
 * `params` with the defaults that come from the data filled in: a loop
 * learner's T by its budget rule from the labeled rows (train/budget.ts), σ
 * ({@link defaultKernelScale}) when the learner has a σ and none was given, and the
 * feature family of `features: 'auto'` (or none given) by the number of
 * columns (`resolveFeatures`): `sorf` is then written out, `gaussian` left as
 * no key (a header without the key is a Gaussian model, so its bytes are
 * those of a model trained before `auto` existed). A `continued` run keeps its
 * model's family: no key there is `gaussian`, whatever `auto` would choose.
 * `rows` are the training rows scaled as the learner sees them.
 *
 * @example
 * const params = withDataDefaults(spec, resolveParams(spec, { lambda: 0.1 }), scaled); // params.sigma = σ₀·2^k by alignment
 */
export function withDataDefaults(spec: LearnerSpec, params: Params, rows: Dataset | TrainingRows, opts: { continued?: boolean } = {}): Params {
  return dataDefaults(spec, params, rows, opts).params;
}

/**
 * {@link withDataDefaults}, and the σ choice when σ was filled in (what the
 * run summary and the model header's training record show).
 *
 * @example
 * const { params, sigma } = dataDefaults(spec, given, scaled); // sigma?.ratio: e.g. 4
 */
export function dataDefaults(spec: LearnerSpec, params: Params, rows: Dataset | TrainingRows, opts: { continued?: boolean } = {}): { params: Params; sigma?: KernelScaleChoice } {
  // A loop learner's T not given: its budget rule on these rows' labeled count (train fills it earlier, before a plan of the rows is read).
  let out = withBudget(spec, params, trainingRows(rows).labeledRows.length).params;
  if ('features' in spec.params) out = withFeatureFamily(spec, out, rows.d, opts.continued === true);
  if (!('sigma' in spec.params) || params.sigma !== undefined) return { params: out };
  const sigma = learnerKernelScale(spec, rows, params.kernel === 'laplacian' ? 'laplacian' : 'rbf');
  return { params: { ...out, sigma: sigma.sigma }, sigma };
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
  return withParamInPlace(spec.params, params, 'features', family);
}
