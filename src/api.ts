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
import { Table } from 'apache-arrow';
import { DataError, UsageError } from './errors.ts';
import { MEDIAN_HEURISTIC_SAMPLE, medianHeuristicSigma, sampleRowIndices } from './features/median-heuristic.ts';
import { gatherRows, isDataset, labeledDataset, trainingRows, type TrainingRows } from './data/training-rows.ts';
import { chooseSampleOnRead, readPlannedRows } from './sample-plan.ts';
import { reservoirSample, type ReadProgress } from './data/sample-on-read.ts';
import { isByteStream, openArrowStream, type ByteStream } from './data/arrow.ts';
import { MAX_SIGMA, randomFeaturesFor } from './learners/common.ts';
import type { Dataset } from './data/dataset.ts';
import { readDataset, tableToDataset, type ReadDatasetOptions } from './data/index.ts';
import { MinMaxScaler } from './data/scaler.ts';
import { datasetFingerprint } from './data/fingerprint.ts';
import { TRAINING_CHUNK_SIZE } from './engine/chunks.ts';
import { DEFAULT_CACHE_BYTES, type Evaluator, type EvaluatorOptions } from './engine/evaluator.ts';
import { EvaluatorPool } from './engine/pool.ts';
import { availableCores } from './engine/cores.ts';
export { defaultThreads } from './engine/pool.ts';
import type { RandomFeatures } from './engine/random-features.ts';
import { EVALUATIONS, modelBias, resolveEvaluation, runLoop, type Evaluation, type LoopStart, type LoopState, type Progress, type SamplingState, type Validation } from './coordinator/loop.ts';
import type { LearnerBias } from './coordinator/learner.ts';
import type { History } from './engine/history.ts';
import type { ProfileReport } from './engine/profile.ts';
import { checkStepSize, inverseStepWarning, type StepSize } from './coordinator/step-size.ts';
import { checkParams, withDefaults, type ParamValue } from './learners/params.ts';
import { learnerSpec } from './learners/registry.ts';
import type { FitResult, LearnerSpec, LoopLearnerSpec, Params } from './learners/spec.ts';
import { load, Model } from './model/model.ts';
import type { ModelHeader, ResumeState } from './model/model-file.ts';
import { RandomFeaturePredictor, type Predictor } from './model/predictor.ts';
import { checkEvaluable, fitTask, rankingMetric, taskClasses, type Task, type TaskClasses, type ThresholdRule } from './model/task.ts';
import { BALANCE_ROWS, complementSource, sampleSource } from './learners/sources.ts';

export { Model, load, type PredictOptions, type DataInput } from './model/model.ts';
export type { Progress, Evaluation } from './coordinator/loop.ts';
export { PHASES, PHASE_DOCS, type Phase, type ProfileReport, type WorkerBusy } from './engine/profile.ts';
export { EVALUATIONS } from './coordinator/loop.ts';
export type { StepSize } from './coordinator/step-size.ts';
export { LEARNERS, LEARNER_NAMES, learnerSpec } from './learners/registry.ts';
export type { LearnerSpec, Params } from './learners/spec.ts';
export { checkParam, cliName, defaultText, rangeText, type ParamSpec, type ParamValue } from './learners/params.ts';
export { METRICS, labelName, type Task, type TaskMetrics, type MetricName } from './model/task.ts';
export { DEFAULT_CACHE_BYTES } from './engine/evaluator.ts';
export { defaultStepSize, DEFAULT_MAX_STEP } from './coordinator/step-size.ts';
export { THETA_LAMBDA } from './learners/common.ts';

/**
 * Training data as `train` accepts it: a Dataset (raw features), a file path,
 * an Arrow Table, or an Arrow IPC stream of unknown length (a Node readable
 * such as `process.stdin`, or an async iterable of bytes; loop learners only,
 * read by a seeded reservoir sample).
 */
export type TrainData = Dataset | string | Table | ByteStream;

/** The options of `train` that are not learner parameters: data, task, step, and how the run goes. */
export interface RunOptions {
  /** A learner name from the registry (`LEARNER_NAMES`); may be left out with `init` (the model's learner). */
  learner?: string;
  data: TrainData;
  /**
   * Loop learners: a saved model (or its path) to CONTINUE, on the same data,
   * to the iteration count `T` given with it; every other parameter is the
   * model's (giving a different value is a UsageError). Continuing from t to T
   * gives the same model, bit for bit, as training to T at once.
   */
  init?: Model | string;
  /** Loop learners: every `checkpointEvery` iterations (before T) hand a resumable model to `onCheckpoint`. */
  checkpointEvery?: number;
  /** Receives each checkpoint (e.g. `(m) => m.save('run.dsg')`), a model of its own that later iterations leave as it is; the loop waits for it. */
  onCheckpoint?: (model: Model) => void | Promise<void>;
  /**
   * Sample on read (loop learners, `data` an Arrow file path): read the file in
   * two streaming passes and keep in memory only the labeled rows and the rows
   * the run will draw — the same model, byte for byte, as reading it whole.
   * `true` forces it, `false` reads the whole file; left out, it is chosen when
   * the file would take more than half the available memory.
   */
  sampleOnRead?: boolean;
  /** With sample on read: rows read so far in each pass over the file. */
  onReadProgress?: (p: ReadProgress) => void;
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
  /**
   * Loop learners: how f at each batch is obtained — `history` (evaluate the
   * history at the batch, O(t·B) at iteration t), `rows` (keep f at every
   * training row the learner draws from, O(n) an iteration) or `auto` (the
   * cheaper by predicted work; default). Both give the same model, bit for
   * bit, on any number of threads (the model header's `training.evaluation`
   * says which ran): the choice is speed only.
   */
  evaluation?: Evaluation;
  /**
   * Loop learners: profile the run (where the time goes: sampling, evaluation
   * on the calling thread, waiting for workers, new block, shrink/append,
   * validation; each worker's busy fraction; the loop efficiency) and hand the
   * report here when it ends. Never changes the model.
   */
  onProfile?: (report: ProfileReport) => void;
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
export type TrainRequest = Omit<RunOptions, 'onProgress' | 'onReadProgress' | 'onWarning' | 'signal' | 'onCheckpoint' | 'init' | 'onProfile'> & { init?: string; readonly [param: string]: unknown };

/** Keys of {@link RunOptions}: every other key of the options is a learner parameter. */
const RUN_KEYS = new Set<string>([
  'learner', 'data', 'init', 'checkpointEvery', 'onCheckpoint', 'sampleOnRead', 'onReadProgress', 'read', 'scaleInPlace', 'positive', 'step', 'theta', 'threads', 'cacheBytes', 'parallelMinWork', 'evaluation', 'onProfile',
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
 * The task of a trained predictor: its threshold(s) fitted by `rule` from f at
 * the labeled training rows (`labeled`, e.g. {@link labeledDataset} of `rows`)
 * and, for the `prior` rule, at the unlabeled training rows (a seeded sample
 * of at most {@link BALANCE_ROWS}). What `train` stores in the model and
 * `tune` scores a fold's accuracy with.
 *
 * @example
 * const task = await fittedTask(predictor, datasetRows(scaled), labeledDataset(datasetRows(scaled)), classes, 'prior', { threads: 1 }, 1);
 */
export async function fittedTask(
  predictor: Predictor, rows: TrainingRows, labeled: Dataset, classes: TaskClasses, rule: ThresholdRule, engine: EvaluatorOptions, seed: number,
): Promise<Task> {
  const fL = await predictor.evaluate(labeled.X, labeled.n, new Float64Array(labeled.n), engine);
  if (rule !== 'prior') return fitTask(classes, fL, labeled.y, rule);
  const U = sampleSource(complementSource(rows.n, rows.labeledRows), BALANCE_ROWS, `dsgkit-prior:${seed}`);
  const fU = await predictor.evaluate(gatherRows(rows, U), U.length, new Float64Array(U.length), engine);
  return fitTask(classes, fL, labeled.y, rule, fU);
}

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
  const cores = availableCores();
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
  const init = opts.init !== undefined ? await initModel(opts.init) : undefined;
  if (opts.learner === undefined && init === undefined) throw new UsageError('train: learner is required (or init, a model to continue)');
  const spec = learnerSpec(opts.learner ?? init!.header.learner);
  const onWarning = opts.onWarning ?? ((m: string) => process.emitWarning(m));
  const given = init ? continuedParams(spec, init, opts) : resolveParams(spec, opts);
  const step = init ? (init.header.hyperparameters.step as StepSize) : resolveStep(spec, given, opts);
  // The θλ ∈ (1, 2) condition belongs to the λ-regularised learners' theorems.
  if (step && !init && typeof given.lambda === 'number') {
    const warning = inverseStepWarning(step, given.lambda);
    if (warning) onWarning(warning);
  }
  if (init && step && spec.kind === 'loop') {
    // A default step that depends on T (TSGS3VM's θ/T^{3/4}) is kept from the first run.
    const same = (a: StepSize, b: StepSize) => JSON.stringify(a) === JSON.stringify(b);
    const wasT = init.header.hyperparameters.T as number;
    const atNewT = spec.defaultStep(given);
    if (same(step, spec.defaultStep({ ...given, T: wasT })) && !same(step, atNewT)) {
      onWarning(`the step ${JSON.stringify(step)} was ${spec.name}'s default for T = ${wasT}; the continued run keeps it (a run to T = ${String(given.T)} at once would default to ${JSON.stringify(atNewT)})`);
    }
  }
  const threads = resolveThreads(opts.threads, onWarning);
  if (opts.cacheBytes !== undefined && !(typeof opts.cacheBytes === 'number' && opts.cacheBytes >= 0 && Number.isFinite(opts.cacheBytes))) throw new UsageError(`cacheBytes must be a number ≥ 0, got ${String(opts.cacheBytes)}`);
  if (opts.parallelMinWork !== undefined && !(typeof opts.parallelMinWork === 'number' && opts.parallelMinWork >= 0)) throw new UsageError(`parallelMinWork must be a number ≥ 0, got ${String(opts.parallelMinWork)}`);
  if (opts.evaluation !== undefined && !(EVALUATIONS as readonly unknown[]).includes(opts.evaluation)) throw new UsageError(`evaluation must be one of ${EVALUATIONS.join(', ')}, got ${String(opts.evaluation)}`);
  if (opts.evaluation !== undefined && opts.evaluation !== 'auto' && spec.kind !== 'loop') throw new UsageError(`evaluation applies to learners on the stochastic loop only (${spec.name} is not)`);
  if (opts.onProfile !== undefined && (typeof opts.onProfile !== 'function' || spec.kind !== 'loop')) throw new UsageError(typeof opts.onProfile !== 'function' ? 'onProfile must be a function receiving the profile' : `onProfile applies to learners on the stochastic loop only (${spec.name} is not)`);
  if (opts.validateEvery !== undefined && !(Number.isSafeInteger(opts.validateEvery) && opts.validateEvery >= 1)) throw new UsageError(`validateEvery must be a whole number ≥ 1, got ${String(opts.validateEvery)}`);
  if (opts.checkpointEvery !== undefined && !(Number.isSafeInteger(opts.checkpointEvery) && opts.checkpointEvery >= 1)) throw new UsageError(`checkpointEvery must be a whole number ≥ 1, got ${String(opts.checkpointEvery)}`);
  if (opts.checkpointEvery !== undefined && (spec.kind !== 'loop' || typeof opts.onCheckpoint !== 'function')) throw new UsageError(spec.kind !== 'loop' ? `checkpointEvery applies to learners on the stochastic loop only (${spec.name} is not)` : 'checkpointEvery needs onCheckpoint, a function receiving each checkpoint model');
  if (spec.kind === 'loop') {
    const bytes = (given.T as number) * 2 * (given.m as number) * 8;
    if (bytes > MAX_HISTORY_BYTES) throw new UsageError(`T = ${given.T} iterations of m = ${given.m} features need a ${(bytes / 2 ** 30).toFixed(0)} GiB history (at most ${MAX_HISTORY_BYTES / 2 ** 30} GiB); lower T or m`);
  }

  const initTask = init?.header.task;
  const positive = opts.positive ?? (initTask?.kind === 'binary' ? initTask.positive : undefined);
  // The training rows, scaled: the whole data in memory, or the rows the run uses read from
  // an Arrow file (sample on read: the same model bytes, memory following the run).
  let rows: Dataset | TrainingRows;
  let scaler: MinMaxScaler;
  let classes: TaskClasses;
  let fingerprint: string | undefined;
  let rowsRead: number | undefined;
  if (isByteStream(opts.data)) {
    // An Arrow stream of unknown length (a pipe): the labeled rows and a seeded reservoir
    // of T·B unlabeled rows, the scaler fitted on every row. A different, equally valid,
    // deterministic model than training on the whole data.
    if (spec.kind !== 'loop') throw new UsageError(`data from a stream applies to learners on the stochastic loop; ${spec.name} fits on the whole data in memory (write the stream to a file)`);
    if (opts.sampleOnRead === false) throw new UsageError('data from a stream of unknown length is read by a reservoir sample (sampleOnRead cannot be false); write it to a file to read it whole');
    const path = (opts.data as unknown as { path?: unknown }).path;
    const name = typeof path === 'string' ? path : opts.data === process.stdin ? 'stdin' : 'stream';
    const sample = await reservoirSample(await openArrowStream(opts.data, name, opts.read ?? {}), (given.T as number) * (given.batchSize as number), given.seed as number);
    rowsRead = sample.n;
    scaler = sample.scaler;
    classes = taskClasses(spec.task, sample.ds, positive !== undefined ? { positive } : {});
    const ds = (scaler.transformInPlace(sample.ds.X), sample.ds);
    fingerprint = datasetFingerprint(ds);
    rows = ds;
  } else if (await chooseSampleOnRead(spec, opts.data, opts.read ?? {}, opts.sampleOnRead)) {
    const resume = init?.header.resume;
    const planned = await readPlannedRows(opts.data as string, opts.read ?? {}, {
      spec: spec as LoopLearnerSpec,
      params: given,
      step: step!,
      ...(positive !== undefined ? { positive } : {}),
      ...(resume ? { start: { t: resume.t, rng: resume.rng } } : {}),
      ...(opts.onReadProgress ? { onProgress: opts.onReadProgress } : {}),
    });
    ({ rows, classes, fingerprint } = planned);
    scaler = planned.scan.scaler;
  } else {
    const raw = await toDataset(opts.data, 'data', opts.read);
    classes = taskClasses(spec.task, raw, positive !== undefined ? { positive } : {});
    scaler = MinMaxScaler.fit(raw);
    // Rows read from a path are ours: scale them in place (one copy of X fewer, which is a
    // gigabyte at tens of millions of values). A caller's Dataset only when it says so.
    const inPlace = typeof opts.data === 'string' || opts.data instanceof Table || opts.scaleInPlace === true;
    const ds = inPlace ? (scaler.transformInPlace(raw.X), raw) : scaler.transform(raw);
    fingerprint = spec.kind === 'loop' ? datasetFingerprint(ds) : undefined;
    rows = ds;
  }
  // One pool for the whole call (loop and threshold), started once: its workers start now,
  // while this thread computes the defaults (the median heuristic's σ), the validation set
  // and the first, small iterations — not after the data are read, which would add their
  // memory to the peak of a large read.
  const pool = threads > 1 ? new EvaluatorPool(threads - 1) : undefined;
  try {
    const params = withDataDefaults(spec, given, rows);
    if (init && init.header.resume!.data !== fingerprint) throw new UsageError(`init: the training data differ from the data the model was trained on (continue a run on the same file, rows and labels)`);
    const validation = opts.validation !== undefined ? await validationFor(opts, classes, scaler, rows) : undefined;
    const engine: EvaluatorOptions = {
      threads,
      ...(opts.cacheBytes !== undefined ? { cacheBytes: opts.cacheBytes } : {}),
      ...(opts.parallelMinWork !== undefined ? { parallelMinWork: opts.parallelMinWork } : {}),
    };
    const run: EvaluatorOptions = pool ? { ...engine, pool } : engine;
    const training = trainingRows(rows);
    const labeled = labeledDataset(training);
    // The model of a predictor: threshold(s) fitted at the labeled rows, the header assembled.
    const modelOf = async (fitted: FitResult & { predictor: Predictor; evaluation?: 'history' | 'rows' }, at: Params, resume: ResumeState | undefined): Promise<Model> => {
      const task = await fittedTask(fitted.predictor, training, labeled, classes, spec.threshold, run, at.seed as number);
      const header: ModelHeader = {
        format: 'dsgkit-model',
        version: 2,
        learner: spec.name,
        hyperparameters: { ...at, ...(step ? { step } : {}), ...(fitted.computed ?? {}) },
        metric: spec.metric,
        task,
        predictor: fitted.predictor.describe(),
        scaler: scaler.toJSON(),
        featureNames: [...rows.featureNames],
        labelName: rows.labelName,
        training: {
          rows: rowsRead ?? rows.n,
          labeledRows: labeled.n,
          ...(rowsRead !== undefined ? { reservoir: rows.n - labeled.n } : {}),
          ...(fitted.trace?.length ? { validation: fitted.trace } : {}),
          ...(fitted.evaluation !== undefined ? { evaluation: fitted.evaluation } : {}),
          ...(typeof opts.data === 'string' ? { data: opts.data } : rows.source !== undefined ? { data: rows.source } : {}),
        },
        ...(resume ? { resume } : {}),
      };
      return new Model(header, fitted.predictor);
    };
    const checkpoint = opts.checkpointEvery !== undefined && opts.onCheckpoint
      ? { every: opts.checkpointEvery, save: async (predictor: RandomFeaturePredictor, state: LoopState, evaluation: 'history' | 'rows') => {
          const t = predictor.history.t;
          await opts.onCheckpoint!(await modelOf({ predictor, evaluation }, { ...params, T: t }, { t, ...state, data: fingerprint! }));
        } }
      : undefined;
    const fitted = await fit(spec, { rows, classes, params, step, engine: run, opts, validation, init, checkpoint });
    const resume = fitted.resume !== undefined && fitted.predictor instanceof RandomFeaturePredictor ? { t: fitted.predictor.history.t, ...fitted.resume, data: fingerprint! } : undefined;
    return await modelOf(fitted, params, resume);
  } finally {
    await pool?.close();
  }
}

/** A model to continue, loaded and checked: a loop learner's, with its resume state and today's chunk layout. */
async function initModel(init: unknown): Promise<Model> {
  const model = typeof init === 'string' ? await load(init) : init;
  if (!(model instanceof Model)) throw new UsageError(`init must be a Model or a model file path, got ${typeof init}`);
  const where = typeof init === 'string' ? init : 'the init model';
  const spec = learnerSpec(model.header.learner, 'init');
  if (spec.kind !== 'loop' || !(model.predictor instanceof RandomFeaturePredictor)) throw new UsageError(`init: ${where} is a ${spec.name} model; only learners on the stochastic loop can be continued`);
  if (model.header.resume === undefined) throw new UsageError(`init: ${where} carries no resume state (saved by an older dsgkit); it cannot be continued`);
  if (model.predictor.chunkSize !== TRAINING_CHUNK_SIZE) throw new UsageError(`init: ${where} was trained with ${model.predictor.chunkSize}-block chunks (an older dsgkit); continuing it would not match a run trained at once`);
  return model;
}

/**
 * The parameters of a continued run: the model's, with the new `T`; a given
 * parameter that differs from the model's is a UsageError naming it.
 */
function continuedParams(spec: LearnerSpec, init: Model, opts: TrainOptions): Params {
  const saved = init.header.hyperparameters;
  const t = init.header.resume!.t;
  const given = resolveGiven(spec, opts);
  for (const [key, value] of Object.entries(given)) {
    if (key !== 'T' && saved[key] !== value) throw new UsageError(`${key} = ${String(value)} differs from the model's ${key} = ${String(saved[key])}: a continued run keeps its settings (only T changes)`);
  }
  if (opts.step !== undefined || opts.theta !== undefined) throw new UsageError(`${opts.step !== undefined ? 'step' : 'theta'} cannot be given with init: a continued run keeps the model's step schedule`);
  if (given.T === undefined) throw new UsageError(`init: give T, the iteration count to continue to (the model is at t = ${t})`);
  if ((given.T as number) < t) throw new UsageError(`T = ${given.T} is below the ${t} iterations the model already has`);
  const base: Record<string, unknown> = {};
  for (const key of Object.keys(spec.params)) if (saved[key] !== undefined) base[key] = saved[key];
  const resolved: Params = { ...resolveParams(spec, base), T: given.T };
  // In the order the saved header lists them (a data-driven default such as σ₀ was added
  // last), so the continued model's header is the bytes of one trained at once.
  const order = Object.keys(saved).filter((k) => k in resolved);
  return Object.fromEntries([...order, ...Object.keys(resolved).filter((k) => !order.includes(k))].map((k) => [k, resolved[k]]));
}

/** The learner parameters given in `options` (validated), without defaults. */
function resolveGiven(spec: LearnerSpec, options: Readonly<Record<string, unknown>>): Record<string, ParamValue> {
  const given: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(options)) if (!RUN_KEYS.has(key)) given[key] = value;
  return checkParams(given, spec.params, { learner: spec.name });
}

/** The validation set of a run, scaled like the training rows, with the task's ranking metric. */
async function validationFor(opts: TrainOptions, classes: TaskClasses, scaler: MinMaxScaler, train: Pick<TrainingRows, 'classNames' | 'd'>): Promise<Omit<Validation, 'every'>> {
  const read = { ...opts.read, ...(train.classNames ? { classes: train.classNames } : {}) } as ReadDatasetOptions;
  const val = scaler.transform(await toDataset(opts.validation, 'validation', read));
  if (val.d !== train.d) throw new UsageError(`validation has ${val.d} features, the training data ${train.d}`);
  checkEvaluable(classes, val);
  return { X: val.X, nPoints: val.n, name: classes.kind === 'binary' ? 'AUC' : 'mean AUC', metric: (f: Float64Array) => rankingMetric(classes, val.y, f) };
}

/** Runs the learner: the shared loop for loop learners (from scratch or continuing `init`), the learner's own fit otherwise. */
async function fit(
  spec: LearnerSpec,
  run: {
    rows: Dataset | TrainingRows; classes: TaskClasses; params: Params; step: StepSize | undefined; engine: EvaluatorOptions; opts: TrainOptions;
    validation: Omit<Validation, 'every'> | undefined; init: Model | undefined;
    checkpoint: { every: number; save: (predictor: RandomFeaturePredictor, state: LoopState, evaluation: 'history' | 'rows') => Promise<void> } | undefined;
  },
): Promise<FitResult & { predictor: Predictor; resume?: LoopState; evaluation?: 'history' | 'rows' }> {
  const { rows, classes, params, engine, opts } = run;
  const hooks = {
    ...(opts.onProgress ? { onProgress: opts.onProgress } : {}),
    ...(opts.signal ? { signal: opts.signal } : {}),
  };
  if (spec.kind === 'direct') {
    const T = typeof params.T === 'number' ? params.T : 1;
    const validation = run.validation ? { ...run.validation, every: opts.validateEvery ?? Math.max(1, Math.floor(T / 20)) } : undefined;
    // chooseSampleOnRead keeps direct learners in memory.
    if (!isDataset(rows)) throw new Error(`${spec.name} fits on a whole Dataset`);
    return spec.fit({ ds: rows, classes, params, engine, ...hooks, ...(validation ? { validation } : {}) });
  }
  const T = params.T as number;
  const features: RandomFeatures = randomFeaturesFor(params, rows.d);
  const chunkSize = TRAINING_CHUNK_SIZE;
  const learner = spec.create(rows, classes, params, run.step!);
  const saved = run.init?.header.resume;
  const start: LoopStart | undefined = run.init ? { history: (run.init.predictor as RandomFeaturePredictor).history, rng: saved!.rng, ...(saved!.bias !== undefined ? { bias: saved!.bias } : {}) } : undefined;
  const { checkpoint } = run;
  let evaluation: 'history' | 'rows';
  try {
    evaluation = resolveEvaluation(learner, T, opts.evaluation);
  } catch (err) {
    throw new UsageError(`evaluation: ${(err as Error).message}`);
  }
  const result = await runLoop(learner, {
    features,
    T,
    ...(start ? { start } : {}),
    engine: { ...engine, chunkSize },
    evaluation,
    ...(opts.onProfile ? { profile: true } : {}),
    ...hooks,
    ...(checkpoint ? { onIteration: async (t: number, history: History, evaluator: Evaluator, rng: SamplingState, bias: LearnerBias | undefined) => {
      if (t % checkpoint.every !== 0 || t >= T) return;
      // A copy of the blocks so far (not of the run's capacity): the run goes on appending to its history after the callback.
      const predictor = new RandomFeaturePredictor(history.copy(), features, chunkSize, await modelBias(bias, evaluator));
      await checkpoint.save(predictor, { rng, ...(bias ? { bias: bias.value } : {}) }, evaluation);
    } } : {}),
    ...(run.validation ? { validation: { ...run.validation, every: opts.validateEvery ?? Math.max(1, Math.floor(T / 20)) } } : {}),
  });
  if (result.profile) opts.onProfile?.(result.profile);
  const before = (run.init?.header.training.validation as Array<[number, number]> | undefined) ?? [];
  return {
    predictor: new RandomFeaturePredictor(result.history, features, chunkSize, result.bias),
    trace: [...before, ...result.trace],
    resume: { rng: result.rng, ...(result.runningBias !== undefined ? { bias: result.runningBias } : {}) },
    evaluation: result.evaluation,
  };
}

/** Default frequency-store budget, in MiB, for help texts. */
export const DEFAULT_CACHE_MB = DEFAULT_CACHE_BYTES / 2 ** 20;
