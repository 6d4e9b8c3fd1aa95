/**
 * The public surface of dsgkit for Node scripts: `train`, `Model`, `load`,
 * and the learner registry. Every option is validated here, once, with a
 * {@link UsageError} that names it; the CLI goes through these functions too.
 *
 * @example
 * import { train, load } from 'dsgkit';
 * const model = await train({ learner: LEARNER_NAMES[0], data: 'data/spam-train.arrow', threads: 8 });
 * console.log(await model.score('data/spam-test.arrow'));
 * await model.save('spam.dsg');
 */
import { availableParallelism } from 'node:os';
import { Table } from 'apache-arrow';
import { UsageError } from './errors.ts';
import { selectRows, type Dataset } from './data/dataset.ts';
import { readDataset, tableToDataset, type ReadDatasetOptions } from './data/index.ts';
import { MinMaxScaler } from './data/scaler.ts';
import { chunkSizeFor } from './engine/chunks.ts';
import { DEFAULT_CACHE_BYTES, type EvaluatorOptions } from './engine/evaluator.ts';
import { EvaluatorPool } from './engine/pool.ts';
export { defaultThreads } from './engine/pool.ts';
import { checkRandomFeatures, type RandomFeatures } from './engine/random-features.ts';
import type { KernelSpec } from './features/kernel-spec.ts';
import { runLoop, type Progress, type Validation } from './coordinator/loop.ts';
import { checkStepSize, inverseStepWarning, type StepSize } from './coordinator/step-size.ts';
import { checkParams, withDefaults } from './learners/params.ts';
import { learnerSpec } from './learners/registry.ts';
import type { FitResult, LearnerSpec, Params } from './learners/spec.ts';
import { Model } from './model/model.ts';
import type { ModelHeader } from './model/model-file.ts';
import { RandomFeaturePredictor, type Predictor } from './model/predictor.ts';
import { checkEvaluable, fitTask, rankingMetric, taskClasses, type TaskClasses } from './model/task.ts';

export { Model, load, type PredictOptions, type DataInput } from './model/model.ts';
export type { Progress } from './coordinator/loop.ts';
export type { StepSize } from './coordinator/step-size.ts';
export { LEARNERS, LEARNER_NAMES, learnerSpec } from './learners/registry.ts';
export type { LearnerSpec, Params } from './learners/spec.ts';
export { checkParam, cliName, defaultText, rangeText, type ParamSpec, type ParamValue } from './learners/params.ts';
export { METRICS, labelName, type Task, type TaskMetrics, type MetricName } from './model/task.ts';
export { DEFAULT_CACHE_BYTES } from './engine/evaluator.ts';
export { defaultStepSize, DEFAULT_MAX_STEP } from './coordinator/step-size.ts';
export { THETA_LAMBDA } from './learners/common.ts';

/** Training data as `train` accepts it: a Dataset (raw features), a file path, or an Arrow Table. */
export type TrainData = Dataset | string | Table;

/** The options of `train` that are not learner parameters: data, task, step, and how the run goes. */
export interface RunOptions {
  /** A learner name from the registry (`LEARNER_NAMES`). */
  learner: string;
  data: TrainData;
  /** Reading options when `data` is a path or a Table (label column, feature columns, LIBSVM width). */
  read?: ReadDatasetOptions;
  /**
   * Scale the given Dataset's features to [0, 1] in place instead of in a copy
   * (saves one copy of the features; the Dataset is modified). Default false.
   */
  scaleInPlace?: boolean;
  /** Binary learners: the positive class, as a label value or a class name (default: the larger label, or the last class name). */
  positive?: number | string;
  /** Loop learners: the step schedule (default: the learner's). */
  step?: StepSize;
  /** Loop learners: θ of the papers' η_t = θ/t; given alone it selects that schedule. */
  theta?: number;
  /** Evaluation threads, the calling thread included (default: all cores; more than the cores is clamped, with a warning). Never changes the model. */
  threads?: number;
  /** Shared frequency-store budget in bytes (default 256 MiB; 0 = regenerate, as the papers do). Never changes the model. */
  cacheBytes?: number;
  /** Work (points × blocks × m × (d + 8)) below which an evaluation stays on the calling thread (default: the measured crossover). Never changes the model. */
  parallelMinWork?: number;
  /** Held-out labeled rows whose ranking metric (AUC, mean AUC) is traced every `validateEvery` iterations. */
  validation?: TrainData;
  validateEvery?: number;
  onProgress?: (p: Progress) => void;
  /** Warnings (option combinations outside a theorem's conditions, clamped threads); default `process.emitWarning`. */
  onWarning?: (message: string) => void;
  signal?: AbortSignal;
}

/** Everything `train` accepts: the run options, plus the learner's parameters by name (see `learnerSpec(name).params`). */
export type TrainOptions = RunOptions & { readonly [param: string]: unknown };

/** {@link TrainOptions} without the callbacks and the signal: what can cross to another thread. */
export type TrainRequest = Omit<RunOptions, 'onProgress' | 'onWarning' | 'signal'> & { readonly [param: string]: unknown };

/** Keys of {@link RunOptions}: every other key of the options is a learner parameter. */
const RUN_KEYS = new Set<string>([
  'learner', 'data', 'read', 'scaleInPlace', 'positive', 'step', 'theta', 'threads', 'cacheBytes', 'parallelMinWork',
  'validation', 'validateEvery', 'onProgress', 'onWarning', 'signal',
]);

/**
 * The learner's parameters from a set of options, validated (UsageError naming
 * the option), with every declared default filled in.
 *
 * @example
 * resolveParams(spec, { lambda: 0.1 }); // { kernel: 'rbf', sigma: 1, …, lambda: 0.1 }
 */
export function resolveParams(spec: LearnerSpec, options: Readonly<Record<string, unknown>>): Params {
  const given: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(options)) if (!RUN_KEYS.has(key)) given[key] = value;
  return withDefaults(checkParams(given, spec.params, { learner: spec.name }), spec.params);
}

/**
 * The step schedule of a loop learner's run: `step` as given, else `θ/t` when
 * `theta` is given, else the learner's default; checked, with a UsageError naming the bad number.
 *
 * @example
 * resolveStep(spec, params, { theta: 150 }); // { kind: 'inverse', theta: 150 }
 */
export function resolveStep(spec: LearnerSpec, params: Params, opts: Pick<RunOptions, 'step' | 'theta'>): StepSize | undefined {
  if (spec.kind !== 'loop') {
    if (opts.step !== undefined || opts.theta !== undefined) throw new UsageError(`${opts.step !== undefined ? 'step' : 'theta'} does not apply to ${spec.name} (it has no step schedule)`);
    return undefined;
  }
  if (opts.theta !== undefined && (typeof opts.theta !== 'number' || !(opts.theta > 0) || !Number.isFinite(opts.theta))) {
    throw new UsageError(`theta must be a positive finite number, got ${String(opts.theta)}`);
  }
  const step = opts.step ?? (opts.theta !== undefined ? { kind: 'inverse' as const, theta: opts.theta } : spec.defaultStep(params));
  if (step === null || typeof step !== 'object' || !['inverse', 'constant', 'decay'].includes((step as StepSize).kind)) {
    throw new UsageError(`step must be { kind: 'inverse', theta } | { kind: 'constant', eta } | { kind: 'decay', eta0, eta1 }, got ${JSON.stringify(step)}`);
  }
  try {
    return checkStepSize(step);
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}

/**
 * Evaluation threads for a run: `requested` (default: all cores), clamped to
 * the cores available with a warning — more threads than cores only adds
 * memory and context switches, never speed.
 *
 * @example
 * resolveThreads(1000, console.warn); // 2 on a 2-core machine, after a warning
 */
export function resolveThreads(requested: unknown, onWarning: (message: string) => void): number {
  const cores = availableParallelism();
  if (requested === undefined) return cores;
  if (typeof requested !== 'number' || !Number.isSafeInteger(requested) || requested < 1) throw new UsageError(`threads must be a whole number ≥ 1, got ${String(requested)}`);
  if (requested > cores) {
    onWarning(`threads = ${requested} is more than the ${cores} cores available; using ${cores}`);
    return cores;
  }
  return requested;
}

/** Largest random-feature history a run may ask for (bytes): beyond it T·m is a typo, not a model. */
const MAX_HISTORY_BYTES = 16 * 2 ** 30;

/**
 * A Dataset from any form `train` accepts; a UsageError naming `option` otherwise.
 *
 * @example
 * const ds = await toDataset('train.arrow', 'data', {});
 */
export async function toDataset(data: unknown, option: string, read: ReadDatasetOptions = {}): Promise<Dataset> {
  if (typeof data === 'string') return readDataset(data, read);
  if (data instanceof Table) return tableToDataset(data, 'table', read);
  const ds = data as Dataset | null;
  if (ds !== null && typeof ds === 'object' && ds.X instanceof Float64Array && ds.y instanceof Float64Array && ds.labeled instanceof Uint8Array) return ds;
  throw new UsageError(`${option} must be a Dataset, a file path or an Arrow Table, got ${data === null ? 'null' : typeof data === 'object' ? 'another object' : `${typeof data} ${String(data)}`}`);
}

/**
 * Trains a model; resolves when the last iteration is done.
 *
 * @example
 * for (const learner of LEARNER_NAMES) {
 *   const model = await train({ learner, data: trainSet, threads: 2, seed: 7 });
 *   console.log(learner, await model.score(testSet));
 * }
 */
export async function train(opts: TrainOptions): Promise<Model> {
  if (opts === null || typeof opts !== 'object') throw new UsageError('train: options must be an object with at least learner and data');
  const spec = learnerSpec(opts.learner);
  const onWarning = opts.onWarning ?? ((m: string) => process.emitWarning(m));
  const params = resolveParams(spec, opts);
  const step = resolveStep(spec, params, opts);
  if (step) {
    const warning = inverseStepWarning(step, params.lambda as number);
    if (warning) onWarning(warning);
  }
  const threads = resolveThreads(opts.threads, onWarning);
  if (opts.cacheBytes !== undefined && !(typeof opts.cacheBytes === 'number' && opts.cacheBytes >= 0 && Number.isFinite(opts.cacheBytes))) throw new UsageError(`cacheBytes must be a number ≥ 0, got ${String(opts.cacheBytes)}`);
  if (opts.parallelMinWork !== undefined && !(typeof opts.parallelMinWork === 'number' && opts.parallelMinWork >= 0)) throw new UsageError(`parallelMinWork must be a number ≥ 0, got ${String(opts.parallelMinWork)}`);
  if (opts.validateEvery !== undefined && !(Number.isSafeInteger(opts.validateEvery) && opts.validateEvery >= 1)) throw new UsageError(`validateEvery must be a whole number ≥ 1, got ${String(opts.validateEvery)}`);
  if (spec.kind === 'loop') {
    const bytes = (params.T as number) * 2 * (params.m as number) * 8;
    if (bytes > MAX_HISTORY_BYTES) throw new UsageError(`T = ${params.T} iterations of m = ${params.m} features need a ${(bytes / 2 ** 30).toFixed(0)} GiB history (at most ${MAX_HISTORY_BYTES / 2 ** 30} GiB); lower T or m`);
  }

  const raw = await toDataset(opts.data, 'data', opts.read);
  const classes = taskClasses(spec.task, raw, opts.positive !== undefined ? { positive: opts.positive } : {});
  const scaler = MinMaxScaler.fit(raw);
  // Rows read from a path are ours: scale them in place (one copy of X fewer, which is a
  // gigabyte at tens of millions of values). A caller's Dataset only when it says so.
  const inPlace = typeof opts.data === 'string' || opts.data instanceof Table || opts.scaleInPlace === true;
  const ds = inPlace ? (scaler.transformInPlace(raw.X), raw) : scaler.transform(raw);
  const validation = opts.validation !== undefined ? await validationFor(opts, classes, scaler, raw) : undefined;

  const engine: EvaluatorOptions = {
    threads,
    ...(opts.cacheBytes !== undefined ? { cacheBytes: opts.cacheBytes } : {}),
    ...(opts.parallelMinWork !== undefined ? { parallelMinWork: opts.parallelMinWork } : {}),
  };
  // One pool for the whole call (loop and threshold): its workers start now, while the
  // first, small iterations run on this thread, and start only once.
  const pool = threads > 1 ? new EvaluatorPool(threads - 1) : undefined;
  try {
    const run: EvaluatorOptions = pool ? { ...engine, pool } : engine;
    const fitted = await fit(spec, { ds, classes, params, step, engine: run, opts, validation });
    const labeledRows: number[] = [];
    for (let i = 0; i < ds.n; i++) if (ds.labeled[i]) labeledRows.push(i);
    const labeled = selectRows(ds, labeledRows);
    const fL = await fitted.predictor.evaluate(labeled.X, labeled.n, new Float64Array(labeled.n), run);
    const task = fitTask(classes, fL, labeled.y, spec.threshold);
    const header: ModelHeader = {
      format: 'dsgkit-model',
      version: 2,
      learner: spec.name,
      hyperparameters: { ...params, ...(step ? { step } : {}), ...(fitted.computed ?? {}) },
      metric: spec.metric,
      task,
      predictor: fitted.predictor.describe(),
      scaler: scaler.toJSON(),
      featureNames: [...raw.featureNames],
      labelName: raw.labelName,
      training: {
        rows: raw.n,
        labeledRows: labeledRows.length,
        ...(fitted.trace?.length ? { validation: fitted.trace } : {}),
        ...(typeof opts.data === 'string' ? { data: opts.data } : raw.source !== undefined ? { data: raw.source } : {}),
      },
    };
    return new Model(header, fitted.predictor);
  } finally {
    await pool?.close();
  }
}

/** The validation set of a run, scaled like the training rows, with the task's ranking metric. */
async function validationFor(opts: TrainOptions, classes: TaskClasses, scaler: MinMaxScaler, raw: Dataset): Promise<Omit<Validation, 'every'>> {
  const read = { ...opts.read, ...(raw.classNames ? { classes: raw.classNames } : {}) } as ReadDatasetOptions;
  const val = scaler.transform(await toDataset(opts.validation, 'validation', read));
  if (val.d !== raw.d) throw new UsageError(`validation has ${val.d} features, the training data ${raw.d}`);
  checkEvaluable(classes, val);
  return { X: val.X, nPoints: val.n, name: classes.kind === 'binary' ? 'AUC' : 'mean AUC', metric: (f: Float64Array) => rankingMetric(classes, val.y, f) };
}

/** Runs the learner: the shared loop for loop learners, the learner's own fit otherwise. */
async function fit(
  spec: LearnerSpec,
  run: { ds: Dataset; classes: TaskClasses; params: Params; step: StepSize | undefined; engine: EvaluatorOptions; opts: TrainOptions; validation: Omit<Validation, 'every'> | undefined },
): Promise<FitResult & { predictor: Predictor }> {
  const { ds, classes, params, engine, opts } = run;
  const hooks = {
    ...(opts.onProgress ? { onProgress: opts.onProgress } : {}),
    ...(opts.signal ? { signal: opts.signal } : {}),
  };
  if (spec.kind === 'direct') {
    const T = typeof params.T === 'number' ? params.T : 1;
    const validation = run.validation ? { ...run.validation, every: opts.validateEvery ?? Math.max(1, Math.floor(T / 20)) } : undefined;
    return spec.fit({ ds, classes, params, engine, ...hooks, ...(validation ? { validation } : {}) });
  }
  const T = params.T as number;
  const kernel = { kind: params.kernel, sigma: params.sigma } as KernelSpec;
  const features: RandomFeatures = checkRandomFeatures({ kernel, seed: params.seed as number, d: ds.d, m: params.m as number });
  const chunkSize = chunkSizeFor(T);
  const learner = spec.create(ds, classes, params, run.step!);
  const result = await runLoop(learner, {
    features,
    T,
    engine: { ...engine, chunkSize },
    ...hooks,
    ...(run.validation ? { validation: { ...run.validation, every: opts.validateEvery ?? Math.max(1, Math.floor(T / 20)) } } : {}),
  });
  return { predictor: new RandomFeaturePredictor(result.history, features, chunkSize), trace: result.trace };
}

/** Default frequency-store budget, in MiB, for help texts. */
export const DEFAULT_CACHE_MB = DEFAULT_CACHE_BYTES / 2 ** 20;
