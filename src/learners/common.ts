/**
 * Parameters shared by learners, declared once (see params.ts): the kernel,
 * the random-feature loop's (m, T, seed, batch size) and the regulariser λ,
 * with their defaults and where each default comes from. The papers choose
 * λ, σ ∈ [2⁻³, 2³] and γ ∈ [0, 1] by 5-fold cross-validation on features
 * scaled to [0, 1], with 200 labeled rows; these defaults sit inside those
 * ranges and were checked on the bundled datasets (README § Defaults).
 */
import { AVERAGINGS, type Averaging } from '../coordinator/averaging.ts';
import { DEFAULT_MAX_STEP, defaultStepSize, type StepSize } from '../coordinator/step-size.ts';
import { checkRandomFeatures, type RandomFeatures } from '../engine/random-features.ts';
import { UsageError } from '../errors.ts';
import { KERNEL_KINDS, type KernelSpec } from '../features/kernel-spec.ts';
import { AUTO_SORF_MIN_D, autoFeatureFamily, FEATURE_CHOICES, type FeatureFamily } from '../features/spectral.ts';
import { isDataset, type TrainingRows } from '../data/training-rows.ts';
import type { Dataset } from '../data/dataset.ts';
import type { ParamTable } from './params.ts';
import { kernelStepScale } from './kernel-scale.ts';
import type { StepContext } from './spec.ts';
import { budgetDoc, FIXED_BUDGET, GROWING_BUDGET, type LoopBudget } from './budget.ts';

/** Largest model seed (random features are seeded with a 32-bit integer). */
export const MAX_SEED = 0xffffffff;

/**
 * Largest kernel scale σ accepted. On features in [0, 1] a σ this large makes
 * the Gaussian kernel a spike (k < e⁻¹⁰⁰ beyond a distance of 0.01), and the
 * frequencies `ω ~ N(0, 2σI)` stay well inside the range where the kernel's
 * sincos is accurate (|ω·x| ≲ 6.5e6).
 */
export const MAX_SIGMA = 1e6;

/** θλ of the default step: inside (1, 2), as the convergence theorems of the AUC papers require. */
export const THETA_LAMBDA = 1.5;

/** The kernel and its scale σ. */
export const KERNEL_PARAMS = {
  kernel: { kind: 'choice', choices: KERNEL_KINDS, default: 'rbf', doc: 'kernel: rbf = exp(−σ‖x−x′‖²), laplacian = exp(−σ‖x−x′‖₁)' },
  // Computed from the data when not given (the API fills it before fitting): the median
  // heuristic σ₀ = 1 / median ‖x − x′‖² over a seeded sample of the scaled training rows.
  // Held-out AUC against the old fixed σ = 1: README § Defaults.
  sigma: { kind: 'number', default: undefined, fromData: true, defaultDoc: 'σ₀·2^k by kernel–target alignment', min: 0, openMin: true, max: MAX_SIGMA, symbol: 'σ', doc: 'kernel scale σ (an inverse width) on features scaled to [0, 1]; default σ₀·2^k (k = 0, ½ … 6; σ₀ = 1 / median ‖x − x′‖² of the training rows) whose kernel aligns best with the labeled rows\' labels' },
} as const satisfies ParamTable;

/** Regularisation λ of `R + (λ/2)‖f‖²`. */
export const LAMBDA_PARAM = {
  lambda: {
    kind: 'number',
    default: 0.01,
    min: 0,
    openMin: true,
    symbol: 'λ',
    // Below the papers' grid 2⁻³…2³ (docs/learners.md § Defaults); safe because the default step is shifted.
    doc: 'regularisation λ > 0 of R + (λ/2)‖f‖²',
  },
} as const satisfies ParamTable;

/**
 * How each block's frequencies are drawn (docs/features.md): i.i.d. Gaussian
 * rows, orthogonal rows (ORF) or structured Hadamard rows (SORF); the last two
 * for the rbf kernel only. Default `auto`, chosen by measurement
 * (docs/features.md): `sorf` on wide data with the rbf kernel, else
 * `gaussian` (`autoFeatureFamily`). Training resolves `auto` before the
 * header is written (`withDataDefaults`): a header holds `sorf` or `orf`, or no
 * key for `gaussian`, so Gaussian models keep their bytes.
 */
export const FEATURES_PARAM = {
  features: {
    kind: 'choice',
    choices: FEATURE_CHOICES,
    default: 'auto',
    omitDefault: true,
    doc: `random-feature family: gaussian (i.i.d.), orf (orthogonal rows), sorf (Hadamard-structured rows; orf and sorf need --kernel rbf), or auto: sorf with the rbf kernel from d = ${AUTO_SORF_MIN_D} columns on (at m ≤ N/2, N = d rounded up to a power of two), else gaussian`,
  },
} as const satisfies ParamTable;

/**
 * The concrete family of a fresh fit's `features` value on `d` columns:
 * `auto` (or no value) by {@link autoFeatureFamily}, anything else as given.
 *
 * @example
 * resolveFeatures(undefined, 'rbf', 784, 64); // 'sorf'
 * resolveFeatures('gaussian', 'rbf', 784, 64); // 'gaussian'
 */
export function resolveFeatures(given: (typeof FEATURE_CHOICES)[number] | undefined, kernel: KernelSpec['kind'], d: number, m: number): FeatureFamily {
  return given === undefined || given === 'auto' ? autoFeatureFamily(kernel, d, m) : given;
}

/**
 * The declaration of T (`--iterations`) of a loop learner whose budget rule
 * is `rule` (learners/budget.ts): no fixed default, filled from the labeled
 * rows before a fit; `--help` says the rule. {@link FIXED_T_PARAM} is the
 * one of the learners on {@link FIXED_BUDGET}.
 *
 * @example
 * const params = { ...RANDOM_FEATURE_PARAMS, T: FIXED_T_PARAM }; // T = 400 whatever n_l
 */
export function iterationsParam(rule: LoopBudget) {
  return { kind: 'number', default: undefined, fromData: true, defaultDoc: budgetDoc(rule), min: 1, max: 10_000_000, integer: true, cli: 'iterations', doc: 'iterations T; training time grows as T²' } as const;
}

/** T of the loop learners on {@link FIXED_BUDGET} (one declaration, so `--help` lists it once for them). */
export const FIXED_T_PARAM = iterationsParam(FIXED_BUDGET);

/** The random-feature loop: features per block, iterations, seed, batch size. */
export const RANDOM_FEATURE_PARAMS = {
  ...KERNEL_PARAMS,
  m: { kind: 'number', default: 64, min: 1, max: 65_536, integer: true, cli: 'random-features', doc: 'random features per iteration m; the model grows by 2m coefficients an iteration' },
  // From the data when not given: the learner's budget rule (`budget` in its file, learners/budget.ts), filled before a fit like σ₀.
  T: iterationsParam(GROWING_BUDGET),
  seed: { kind: 'number', default: 1, min: 0, max: MAX_SEED, integer: true, doc: 'model seed: random features and sampling' },
  batchSize: { kind: 'number', default: 64, min: 1, max: 1_000_000, integer: true, symbol: 'B', doc: 'points drawn per source per iteration' },
  // The mean of the last half of the iterates (docs/learners.md § Averaging), derived from the run's history at no
  // training cost. Default none: at equal T it did not beat the last iterate on the benchmark (bench/results/averaging.jsonl).
  average: { kind: 'choice', choices: AVERAGINGS, default: 'none', omitDefault: true, doc: 'the model: none = the last iterate; suffix = the mean of the iterates of the last half of the run (Polyak–Ruppert), from the same run at no training cost' },
  ...FEATURES_PARAM,
} as const satisfies ParamTable;

/**
 * The random features a fit on `d` columns uses: kernel, σ, seed, m and the
 * feature family from validated params (the family key only when it is not
 * `gaussian`, so Gaussian models keep their bytes). A structured family with
 * the Laplacian kernel is a UsageError naming `features`.
 *
 * @example
 * randomFeaturesFor({ kernel: 'rbf', sigma: 1, seed: 1, m: 64, features: 'orf' }, 784);
 * // { kernel: { kind: 'rbf', sigma: 1 }, seed: 1, d: 784, m: 64, family: 'orf' }
 */
export function randomFeaturesFor(params: RandomFeatureParamValues, d: number): RandomFeatures {
  const kernel: KernelSpec = { kind: params.kernel, sigma: params.sigma };
  // `auto` is resolved before a fit (withDataDefaults); a value that reaches here unresolved is gaussian, as a header without the key says.
  const family = params.features === undefined || params.features === 'auto' ? 'gaussian' : params.features;
  if (family !== 'gaussian' && kernel.kind !== 'rbf') {
    throw new UsageError(`features ${family} needs the rbf kernel: the ${kernel.kind} kernel's spectral density is not rotation invariant, so its frequencies cannot be orthogonalised (use features gaussian)`);
  }
  return checkRandomFeatures({ kernel, seed: params.seed, d, m: params.m, ...(family !== 'gaussian' ? { family } : {}) });
}

/** What {@link randomFeaturesFor} reads of a learner's validated parameters. */
export interface RandomFeatureParamValues {
  readonly kernel: KernelSpec['kind'];
  readonly sigma: number;
  readonly seed: number;
  readonly m: number;
  readonly features?: (typeof FEATURE_CHOICES)[number];
  readonly average?: Averaging;
}

/**
 * The default step of the λ-regularised loop learners: the papers' `θ/t` with
 * `θλ = 1.5`, shifted so the first step is at most 0.5 (see `defaultStepSize`).
 *
 * @example
 * lambdaDefaultStep({ lambda: 0.01 }); // { kind: 'decay', eta0: 0.5, eta1: 1/300 }
 */
export function lambdaDefaultStep(params: { readonly lambda: number }): StepSize {
  return defaultStepSize(params.lambda, THETA_LAMBDA);
}

/**
 * The default step of the pairwise (AUC) loop learners: {@link lambdaDefaultStep}
 * with its first-step cap 0.5 raised by `kernelStepScale(σ/σ₀)` for the
 * Gaussian kernel wider than the median heuristic's (σ < σ₀), where a pair's
 * kernel difference is short (learners/kernel-scale.ts); at σ ≥ σ₀, with the
 * Laplacian kernel, or without σ₀ in `context`, the same schedule.
 *
 * @example
 * pairwiseDefaultStep({ lambda: 1e-4, sigma: 0.25, kernel: 'rbf' }, { sigma0: () => 4 }); // eta0 ≈ 5.2 (0.5 · 10.4)
 * pairwiseDefaultStep({ lambda: 0.01, sigma: 4, kernel: 'rbf' }, { sigma0: () => 4 });    // = lambdaDefaultStep({ lambda: 0.01 })
 */
export function pairwiseDefaultStep(params: { readonly lambda: number; readonly sigma?: number | undefined; readonly kernel?: string | undefined }, context: StepContext = {}): StepSize {
  const { sigma } = params;
  const { sigma0 } = context;
  const scale = params.kernel !== 'laplacian' && sigma !== undefined && sigma0 !== undefined ? kernelStepScale(sigma / sigma0()) : 1;
  return defaultStepSize(params.lambda, THETA_LAMBDA, DEFAULT_MAX_STEP * scale);
}

/**
 * The kernel scales `tune` searches: σ₀·2^k for k = −4 … 6, i.e. σ₀/16 …
 * 64σ₀ — three decades (2¹⁰ ≈ 10³) log-spaced around the median heuristic
 * σ₀, reaching further towards larger σ (narrower kernels): on a held-back
 * 12,000-row set GKM was best at 16–64σ₀ (issue 33). The rungs are a factor
 * `2^step` apart: 4 by default (6 rungs); 2 (11 rungs) for DSG, QSG-S2AUC
 * and FRS3VM, whose extra settings cost only their first rounds' short fits
 * and whose tuned models held out more on the quality benchmark with them —
 * on mnist DSG's best σ, 2σ₀, lies between the factor-4 rungs
 * (docs/tuning.md, **Factor-2 rungs**). Every rung of the
 * factor-4 ladder is one of the factor-2 ladder, so the tuned σ/σ₀
 * (`TuneResult.sigmaRatio`) reads the same across learners.
 *
 * @example
 * sigmaLadder(1);    // [0.0625, 0.25, 1, 4, 16, 64]
 * sigmaLadder(1, 1); // [0.0625, 0.125, 0.25, 0.5, 1, 2, 4, 8, 16, 32, 64]
 */
export function sigmaLadder(sigma0: number, step: SigmaLadderStep = 2): number[] {
  const exponents: number[] = [];
  for (let k = SIGMA_LADDER_SPAN[0]; k <= SIGMA_LADDER_SPAN[1]; k += step) exponents.push(k);
  // Capped where random features stop being accurate (MAX_SIGMA): a huge σ₀ keeps the rungs below it.
  return [...new Set(exponents.map((k) => Math.min(MAX_SIGMA, sigma0 * 2 ** k)))];
}

/** The powers of two {@link sigmaLadder} spans: σ₀·2^−4 … σ₀·2^6. */
export const SIGMA_LADDER_SPAN: readonly [number, number] = [-4, 6];

/** The spacing of {@link sigmaLadder}'s rungs, as a power of two: 1 (factor 2) or 2 (factor 4). */
export type SigmaLadderStep = 1 | 2;

/**
 * The rows of a fit as a Dataset in memory: what learners that cannot sample
 * on read fit on (the API reads their data whole; see Capabilities.samplesOnRead).
 *
 * @example
 * const ds = inMemory(run.rows, 'frs3vm');
 */
export function inMemory(rows: Dataset | TrainingRows, learner: string): Dataset {
  if (!isDataset(rows)) throw new Error(`${learner} fits on a whole Dataset in memory`);
  return rows;
}
