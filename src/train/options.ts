/**
 * The options of a training run that are not learner parameters — data,
 * task, step, threads, hooks — and their checks: each option is checked
 * once, with a {@link UsageError} that names it, and an option that needs a
 * capability the learner lacks (learners/spec.ts: Capabilities) says so.
 */
import type { Table } from 'apache-arrow';
import { UsageError } from '../errors.ts';
import type { ArrayData } from '../data/arrays.ts';
import type { ByteStream } from '../data/arrow.ts';
import type { Dataset } from '../data/dataset.ts';
import type { ReadDatasetOptions } from '../data/index.ts';
import type { ReadProgress } from '../data/sample-on-read.ts';
import { MAX_CLIP_QUANTILE } from '../data/scaler.ts';
import { availableCores } from '../engine/cores.ts';
import { DEFAULT_CACHE_BYTES } from '../engine/evaluator.ts';
import type { ProfileReport } from '../engine/profile.ts';
import { EVALUATIONS, type Evaluation, type Progress } from '../coordinator/loop.ts';
import type { StepSize } from '../coordinator/step-size.ts';
import type { Capabilities, LearnerSpec } from '../learners/spec.ts';
import type { Model } from '../model/model.ts';

/**
 * Training data as `train` accepts it: a Dataset (raw features), a file path,
 * an Arrow Table, an Arrow IPC stream of unknown length (a Node readable
 * such as `process.stdin`, or an async iterable of bytes; learners that
 * sample on read, read by a seeded reservoir sample), or `{ X, y }` arrays
 * (`null` / `NaN` in `y` = unlabeled; see `arraysToDataset`).
 */
export type TrainData = Dataset | string | Table | ByteStream | ArrayData;

/** The options of `train` that are not learner parameters: data, task, step, and how the run goes. */
export interface RunOptions {
  data: TrainData;
  /**
   * A saved model (or its path) to CONTINUE, on the same data, to the
   * iteration count given with it (learners that continue); every other
   * parameter is the model's (giving a different value is a UsageError).
   * Continuing from t to T gives the same model, bit for bit, as training to T at once.
   */
  init?: Model | string;
  /** Learners that continue: every `checkpointEvery` iterations (before the last) hand a resumable model to `onCheckpoint`. */
  checkpointEvery?: number;
  /** Receives each checkpoint (e.g. `(m) => m.save('run.dsg')`), a model of its own that later iterations leave as it is; the loop waits for it. */
  onCheckpoint?: (model: Model) => void | Promise<void>;
  /**
   * Sample on read (learners that sample on read, `data` an Arrow file path):
   * read the file in two streaming passes and keep in memory only the labeled
   * rows and the rows the run will draw — the same model, byte for byte, as
   * reading it whole. `true` forces it, `false` reads the whole file; left
   * out, it is chosen when the file would take more than half the available memory.
   */
  sampleOnRead?: boolean;
  /** With sample on read: rows read so far in each pass over the file. */
  onReadProgress?: (p: ReadProgress) => void;
  /** Reading options when `data` is a path or a Table (label column, feature columns, LIBSVM width). */
  read?: ReadDatasetOptions;
  /**
   * Clip quantile q of the feature scaling (default 0.02, DEFAULT_CLIP_QUANTILE;
   * 0 is each feature's min and max): each feature's range is
   * its q and 1 − q quantiles over the training rows instead of its minimum and
   * maximum, and values are clipped into [0, 1] (training and prediction alike),
   * so a few extreme values do not squeeze a column's bulk into a sliver of
   * the range. 0 ≤ q ≤ 0.25; fitted in one pass, so a sample on read gives
   * the same model as a whole read (data/scaler.ts QuantileRange).
   * A continued run takes the model's.
   */
  clipQuantile?: number;
  /**
   * Scale the given Dataset's features to [0, 1] in place instead of in a copy
   * (saves one copy of the features; the Dataset is modified). Default false.
   */
  scaleInPlace?: boolean;
  /** Binary learners: the positive class, as a label value or a class name (default: the larger label, or the last class name). */
  positive?: number | string;
  /** Learners with a step schedule: the schedule (default: the learner's). */
  step?: StepSize;
  /** Learners with a step schedule: θ of the papers' η_t = θ/t; given alone it selects that schedule. */
  theta?: number;
  /** Evaluation threads, the calling thread included (default: all cores; more than the cores is clamped, with a warning). Never changes the model. */
  threads?: number;
  /** Shared frequency-store budget in bytes (default 256 MiB; 0 = regenerate, as the papers do). Never changes the model. */
  cacheBytes?: number;
  /** Work (points × blocks × m × (d + 8)) below which an evaluation stays on the calling thread (default: the measured crossover). Never changes the model. */
  parallelMinWork?: number;
  /**
   * Learners on the loop: how f at each batch is obtained — `history`
   * (evaluate the history at the batch, O(t·B) at iteration t), `rows` (keep
   * f at every training row the learner draws from, O(n) an iteration) or
   * `auto` (the cheaper by predicted work; default). Both give the same
   * model, bit for bit, on any number of threads (the model header's
   * `training.evaluation` says which ran): the choice is speed only.
   */
  evaluation?: Evaluation;
  /**
   * Learners on the loop: profile the run (where the time goes: sampling,
   * evaluation on the calling thread, waiting for workers, new block,
   * shrink/append, validation; each worker's busy fraction; the loop
   * efficiency) and hand the report here when it ends. Never changes the model.
   */
  onProfile?: (report: ProfileReport) => void;
  /** Held-out labeled rows whose ranking metric (AUC, mean AUC) is traced every `validateEvery` iterations. */
  validation?: TrainData;
  validateEvery?: number;
  onProgress?: (p: Progress) => void;
  /** Warnings (option combinations outside a theorem's conditions, clamped threads, deprecated names); default `process.emitWarning`. */
  onWarning?: (message: string) => void;
  signal?: AbortSignal;
}

/** Keys of {@link RunOptions} (and `learner`): every other key of `train`'s options is a learner parameter. */
export const RUN_KEYS: ReadonlySet<string> = new Set<string>([
  'learner', 'data', 'init', 'checkpointEvery', 'onCheckpoint', 'sampleOnRead', 'onReadProgress', 'read', 'clipQuantile', 'scaleInPlace', 'positive', 'step', 'theta', 'threads', 'cacheBytes', 'parallelMinWork', 'evaluation', 'onProfile',
  'validation', 'validateEvery', 'onProgress', 'onWarning', 'signal',
]);

/**
 * Options that need a capability of the learner: the option, the capability,
 * and when it counts as given. (`step` and `theta` are checked where the step
 * schedule is resolved: params.ts' resolveStep.)
 */
const NEEDS: ReadonlyArray<{ option: keyof RunOptions; capability: keyof Capabilities; given: (opts: RunOptions) => boolean; message: (name: string) => string }> = [
  { option: 'evaluation', capability: 'profiles', given: (o) => o.evaluation !== undefined && o.evaluation !== 'auto', message: (n) => `evaluation applies to learners on the stochastic loop only (${n} is not)` },
  { option: 'onProfile', capability: 'profiles', given: (o) => o.onProfile !== undefined, message: (n) => `onProfile applies to learners on the stochastic loop only (${n} is not)` },
  { option: 'checkpointEvery', capability: 'continues', given: (o) => o.checkpointEvery !== undefined, message: (n) => `checkpointEvery applies to learners on the stochastic loop only (${n} is not)` },
];

/**
 * A UsageError unless `q` (a `clipQuantile` option) is absent or a number in
 * [0, {@link MAX_CLIP_QUANTILE}].
 *
 * @example
 * checkClipQuantile(0.6); // UsageError: clipQuantile must be a number from 0 to 0.25, got 0.6
 */
export function checkClipQuantile(q: unknown): void {
  if (q !== undefined && !(typeof q === 'number' && q >= 0 && q <= MAX_CLIP_QUANTILE)) {
    throw new UsageError(`clipQuantile must be a number from 0 to ${MAX_CLIP_QUANTILE} (the share of a feature's training values above its range, and below it), got ${String(q)}`);
  }
}

/**
 * Checks the run options of `opts` for `spec` (types, ranges, and that the
 * learner can do what they ask); a UsageError naming the first bad one.
 *
 * @example
 * checkRunOptions(learnerSpec('exact-s2auc'), { data, evaluation: 'rows' }); // UsageError: evaluation applies to …
 */
export function checkRunOptions(spec: LearnerSpec, opts: RunOptions): void {
  const wholeOrNone = (key: 'validateEvery' | 'checkpointEvery') => {
    const v = opts[key];
    if (v !== undefined && !(Number.isSafeInteger(v) && v >= 1)) throw new UsageError(`${key} must be a whole number ≥ 1, got ${String(v)}`);
  };
  if (opts.cacheBytes !== undefined && !(typeof opts.cacheBytes === 'number' && opts.cacheBytes >= 0 && Number.isFinite(opts.cacheBytes))) throw new UsageError(`cacheBytes must be a number ≥ 0, got ${String(opts.cacheBytes)}`);
  if (opts.parallelMinWork !== undefined && !(typeof opts.parallelMinWork === 'number' && opts.parallelMinWork >= 0)) throw new UsageError(`parallelMinWork must be a number ≥ 0, got ${String(opts.parallelMinWork)}`);
  checkClipQuantile(opts.clipQuantile);
  if (opts.evaluation !== undefined && !(EVALUATIONS as readonly unknown[]).includes(opts.evaluation)) throw new UsageError(`evaluation must be one of ${EVALUATIONS.join(', ')}, got ${String(opts.evaluation)}`);
  if (opts.onProfile !== undefined && typeof opts.onProfile !== 'function') throw new UsageError('onProfile must be a function receiving the profile');
  wholeOrNone('validateEvery');
  wholeOrNone('checkpointEvery');
  for (const need of NEEDS) if (need.given(opts) && !spec.capabilities[need.capability]) throw new UsageError(need.message(spec.name));
  if (opts.checkpointEvery !== undefined && typeof opts.onCheckpoint !== 'function') throw new UsageError('checkpointEvery needs onCheckpoint, a function receiving each checkpoint model');
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

/** Default frequency-store budget, in MiB, for help texts. */
export const DEFAULT_CACHE_MB = DEFAULT_CACHE_BYTES / 2 ** 20;
