/**
 * The training options `dsgkit train` and `dsgkit compare` share: their
 * `parseArgs` specs, their help lines (defaults printed from
 * `learners/defaults.ts`, never copied), and their parsing into
 * {@link TrainOptions} fields with a UsageError for every bad value.
 */
import { UsageError } from '../errors.ts';
import type { LearnerName, TrainOptions } from '../api.ts';
import { DEFAULT_CACHE_BYTES } from '../engine/evaluator.ts';
import { defaultThreads } from '../engine/pool.ts';
import { KERNEL_KINDS } from '../features/kernel-spec.ts';
import { DEFAULTS } from '../learners/defaults.ts';
import { MARGIN_LOSSES } from '../learners/dsg.ts';
import { DEFAULT_MAX_STEP, defaultStepSize, type StepSize } from '../learners/step-size.ts';
import { choiceOption, intOption, numberOption, positiveNumberOption, type OptionSpecs, type ParsedArgs } from './args.ts';

/** Step-size schedules `--step` accepts (the kinds of {@link StepSize}). */
export const STEP_KINDS = ['inverse', 'constant', 'decay'] as const satisfies readonly StepSize['kind'][];

/** Largest model seed (random features are seeded with a 32-bit integer). */
const MAX_SEED = 0xffffffff;

/** `parseArgs` specs of every shared training option. */
export const TRAINING_OPTION_SPECS: OptionSpecs = {
  label: { type: 'string' },
  positive: { type: 'string' },
  kernel: { type: 'string' },
  sigma: { type: 'string' },
  lambda: { type: 'string' },
  gamma: { type: 'string' },
  loss: { type: 'string' },
  step: { type: 'string' },
  theta: { type: 'string' },
  eta: { type: 'string' },
  eta0: { type: 'string' },
  eta1: { type: 'string' },
  'batch-size': { type: 'string' },
  features: { type: 'string' },
  iterations: { type: 'string' },
  seed: { type: 'string' },
  threads: { type: 'string' },
  'cache-mb': { type: 'string' },
  'validate-every': { type: 'string' },
  quiet: { type: 'boolean', short: 'q' },
};

/** What the shared options set: fields of {@link TrainOptions} plus how the CLI reads and reports. */
export interface TrainingSettings {
  /** Label column of the input files (default `label`). */
  labelColumn?: string;
  train: Pick<TrainOptions, 'positive' | 'kernel' | 'sigma' | 'lambda' | 'gamma' | 'theta' | 'step' | 'batchSize' | 'm' | 'T' | 'seed' | 'loss' | 'cacheBytes' | 'validateEvery'>;
  /** Evaluation threads, resolved (default: all cores). */
  threads: number;
  /** No progress output. */
  quiet: boolean;
}

function line(option: string, text: string): string {
  const head = `  ${option}`;
  return head.length < 24 ? `${head.padEnd(24)}${text}` : `${head}\n${' '.repeat(24)}${text}`;
}

/**
 * Help lines for the shared training options, each with its default
 * (numbers read from DEFAULTS and the engine, so help never drifts from code).
 * `seedAlsoSplits`: `--seed` also seeds the train/test split (compare).
 *
 * @example
 * io.stdout.write(trainingOptionsHelp({ seedAlsoSplits: true }));
 */
export function trainingOptionsHelp(opts: { seedAlsoSplits?: boolean } = {}): string {
  const cacheMb = DEFAULT_CACHE_BYTES / 2 ** 20;
  return [
    'Model options (the papers pick λ, σ in [2⁻³, 2³] and γ in [0, 1] by',
    'cross-validation; features are scaled to [0, 1] first):',
    line(`--kernel <k>`, `kernel: ${KERNEL_KINDS.join(' | ')} (default: rbf)`),
    line(`--sigma <σ>`, `kernel width σ in exp(-σ‖x−x'‖²) (default: ${DEFAULTS.sigma})`),
    line(`--lambda <λ>`, `regularisation λ > 0 (default: ${DEFAULTS.lambda})`),
    line(`--gamma <γ>`, `qsg-s2auc only: γ in [0, 1] of the risk`),
    line('', `γ·R_PN + (1 − γ)(R_PU + R_NU − ½) (default: ${DEFAULTS.gamma})`),
    line(`--loss <l>`, `dsg only: margin loss ${MARGIN_LOSSES.join(' | ')} (default: ${DEFAULTS.loss})`),
    line(`--step <s>`, `step size η_t: inverse (θ/t) | constant (η) | decay`),
    line('', `(η0/(1 + η1·t)). Default: θ/(t + t0) with θ = ${DEFAULTS.thetaLambda}/λ, the`),
    line('', `papers' θ/t shifted so the first step is at most ${DEFAULT_MAX_STEP}`),
    line(`--theta <θ>`, `inverse step: θ of η_t = θ/t (default: ${DEFAULTS.thetaLambda}/λ, i.e. θλ = ${DEFAULTS.thetaLambda};`),
    line('', `the convergence theorems need θλ in (1, 2)); implies --step inverse`),
    line(`--eta <η>`, `constant step η (required with --step constant)`),
    line(`--eta0 <η0>`, `decay step η0 > 0 (required with --step decay)`),
    line(`--eta1 <η1>`, `decay step η1 ≥ 0 (required with --step decay)`),
    line(`--batch-size <n>`, `points drawn per source per iteration (default: ${DEFAULTS.batchSize})`),
    line(`--features <m>`, `random features per iteration; the model grows by 2m`),
    line('', `coefficients per iteration (default: ${DEFAULTS.m})`),
    line(`--iterations <T>`, `iterations T; time grows as T² (default: ${DEFAULTS.T})`),
    opts.seedAlsoSplits
      ? line(`--seed <s>`, `seed of the split and of every model (default: ${DEFAULTS.seed})`)
      : line(`--seed <s>`, `model seed: random features and sampling (default: ${DEFAULTS.seed})`),
    line(`--positive <label>`, `label of the positive class (default: the larger label)`),
    '',
    'Run options (none of these changes a model):',
    line(`--label <name>`, `label column of the input files (default: label)`),
    line(`--threads <n>`, `evaluation threads (default: all cores, ${defaultThreads()} here)`),
    line(`--cache-mb <MB>`, `shared store of random frequencies, MiB; 0 regenerates`),
    line('', `them on every use, as the papers do (default: ${cacheMb})`),
    line(`--quiet, -q`, `no progress output on stderr`),
  ].join('\n');
}

/**
 * Parses the shared training options. `learners` are the learners that will
 * run: a learner-specific option (`--gamma`, `--loss`) none of them uses is a
 * UsageError, as is every bad number or missing step parameter.
 *
 * @example
 * const s = parseTrainingOptions(values, ['qsg-s2auc']);
 * await train({ learner: 'qsg-s2auc', data, ...s.train, threads: s.threads });
 */
export function parseTrainingOptions(values: ParsedArgs['values'], learners: readonly LearnerName[]): TrainingSettings {
  const train: TrainingSettings['train'] = {};
  const only = (option: string, learner: LearnerName) => {
    if (values[option] !== undefined && !learners.includes(learner)) {
      throw new UsageError(`--${option} applies to the ${learner} learner only (training: ${learners.join(', ')})`);
    }
  };

  if (values.positive !== undefined) train.positive = numberOption(values, 'positive');
  const kernel = choiceOption(values, 'kernel', KERNEL_KINDS);
  if (kernel !== undefined) train.kernel = kernel;
  const sigma = positiveNumberOption(values, 'sigma');
  if (sigma !== undefined) train.sigma = sigma;
  const lambda = positiveNumberOption(values, 'lambda');
  if (lambda !== undefined) train.lambda = lambda;
  only('gamma', 'qsg-s2auc');
  const gamma = numberOption(values, 'gamma', { min: 0, max: 1 });
  if (gamma !== undefined) train.gamma = gamma;
  only('loss', 'dsg');
  const loss = choiceOption(values, 'loss', MARGIN_LOSSES);
  if (loss !== undefined) train.loss = loss;

  // No --step: --theta alone selects the papers' θ/t; otherwise the API's default schedule.
  const stepKind = choiceOption(values, 'step', STEP_KINDS) ?? (values.theta !== undefined ? 'inverse' : undefined);
  const wrongStep = (option: string, kind: StepSize['kind']) => {
    if (values[option] !== undefined && stepKind !== kind) throw new UsageError(`--${option} applies to --step ${kind} only (the step is ${stepKind ?? 'the default'})`);
  };
  wrongStep('theta', 'inverse');
  wrongStep('eta', 'constant');
  wrongStep('eta0', 'decay');
  wrongStep('eta1', 'decay');
  const needs = (option: string) => {
    if (values[option] === undefined) throw new UsageError(`--step ${stepKind} needs --${option}`);
  };
  if (stepKind === 'inverse') {
    const theta = positiveNumberOption(values, 'theta');
    if (theta !== undefined) train.theta = theta;
  } else if (stepKind === undefined) {
    // the API's default schedule (defaultStepSize)
  } else if (stepKind === 'constant') {
    needs('eta');
    train.step = { kind: 'constant', eta: positiveNumberOption(values, 'eta')! };
  } else {
    needs('eta0');
    needs('eta1');
    train.step = { kind: 'decay', eta0: positiveNumberOption(values, 'eta0')!, eta1: numberOption(values, 'eta1', { min: 0 })! };
  }

  const batchSize = intOption(values, 'batch-size', { min: 1 });
  if (batchSize !== undefined) train.batchSize = batchSize;
  const m = intOption(values, 'features', { min: 1 });
  if (m !== undefined) train.m = m;
  const T = intOption(values, 'iterations', { min: 1 });
  if (T !== undefined) train.T = T;
  const seed = intOption(values, 'seed', { min: 0 });
  if (seed !== undefined) {
    if (seed > MAX_SEED) throw new UsageError(`--seed must be a whole number in [0, ${MAX_SEED}], got '${values.seed}'`);
    train.seed = seed;
  }
  const cacheMb = numberOption(values, 'cache-mb', { min: 0 });
  if (cacheMb !== undefined) train.cacheBytes = Math.round(cacheMb * 2 ** 20);
  const every = intOption(values, 'validate-every', { min: 1 });
  if (every !== undefined) train.validateEvery = every;

  return {
    ...(typeof values.label === 'string' ? { labelColumn: values.label } : {}),
    train,
    threads: intOption(values, 'threads', { min: 1 }) ?? defaultThreads(),
    quiet: values.quiet === true,
  };
}

/**
 * One line naming the effective hyperparameters of a run (defaults filled in).
 *
 * @example
 * describeHyperparameters(settings.train, ['qsg-s2auc', 'dsg']);
 * // "rbf kernel σ = 1, λ = 0.5, γ = 0.5 (qsg-s2auc), hinge loss (dsg), η_t = 3/t, batch 64, m = 64, T = 400, seed 1"
 */
export function describeHyperparameters(t: TrainingSettings['train'], learners: readonly LearnerName[]): string {
  const lambda = t.lambda ?? DEFAULTS.lambda;
  const step = t.step;
  const stepText =
    step === undefined && t.theta !== undefined
      ? `η_t = ${fmt(t.theta)}/t`
      : step === undefined
        ? `η_t = ${fmt(DEFAULTS.thetaLambda / lambda)}/(t + ${fmt((DEFAULTS.thetaLambda / lambda) / defaultStepFirst(lambda))})`
        : step.kind === 'constant'
        ? `η_t = ${fmt(step.eta)}`
        : step.kind === 'decay'
          ? `η_t = ${fmt(step.eta0)}/(1 + ${fmt(step.eta1)}·t)`
          : `η_t = ${fmt(step.theta)}/t`;
  const parts = [`${t.kernel ?? 'rbf'} kernel σ = ${fmt(t.sigma ?? DEFAULTS.sigma)}`, `λ = ${fmt(lambda)}`];
  if (learners.includes('qsg-s2auc')) parts.push(`γ = ${fmt(t.gamma ?? DEFAULTS.gamma)}${learners.length > 1 ? ' (qsg-s2auc)' : ''}`);
  if (learners.includes('dsg')) parts.push(`${t.loss ?? DEFAULTS.loss} loss${learners.length > 1 ? ' (dsg)' : ''}`);
  parts.push(stepText, `batch ${t.batchSize ?? DEFAULTS.batchSize}`, `m = ${t.m ?? DEFAULTS.m}`, `T = ${t.T ?? DEFAULTS.T}`, `seed ${t.seed ?? DEFAULTS.seed}`);
  return parts.join(', ');
}

function fmt(x: number): string {
  return String(Number(x.toPrecision(6)));
}

/** First step η_1 ≈ η_0 of the default schedule at this λ. */
function defaultStepFirst(lambda: number): number {
  const step = defaultStepSize(lambda, DEFAULTS.thetaLambda);
  return step.kind === 'decay' ? step.eta0 : NaN;
}
