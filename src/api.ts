/**
 * The public surface of dsgkit for Node scripts: `train`, `Model`, `load`.
 *
 * @example
 * import { train, load } from 'dsgkit';
 * const model = await train({ learner: 'qsg-s2auc', data: 'data/spam-train.arrow', threads: 8 });
 * console.log(await model.score(test));
 * await model.save('spam.dsg');
 */
import { UsageError } from './errors.ts';
import { selectRows, type Dataset } from './data/dataset.ts';
import { readDataset, type ReadDatasetOptions } from './data/index.ts';
import { MinMaxScaler } from './data/scaler.ts';
import { chunkSizeFor } from './engine/chunks.ts';
import { Evaluator, type EvaluatorOptions } from './engine/evaluator.ts';
import { defaultThreads, EvaluatorPool } from './engine/pool.ts';
import { checkRandomFeatures, type RandomFeatures } from './engine/random-features.ts';
import { checkKernelSpec, type KernelSpec } from './features/kernel-spec.ts';
import { runLoop, type Progress } from './coordinator/loop.ts';
import { DEFAULTS } from './learners/defaults.ts';
import { MARGIN_LOSSES, SupervisedDsg, type MarginLoss } from './learners/dsg.ts';
import type { DsgLearner } from './learners/learner.ts';
import { QsgS2auc } from './learners/qsg-s2auc.ts';
import { binarySources, defaultPositiveLabel } from './learners/sources.ts';
import { checkStepSize, defaultStepSize, inverseStepWarning, type StepSize } from './learners/step-size.ts';
import { fitThreshold } from './learners/thresholds.ts';
import { auc } from './metrics/auc.ts';
import { Model } from './model/model.ts';
import type { ModelHeader } from './model/model-file.ts';

export { Model, load, type PredictOptions } from './model/model.ts';
export type { Progress } from './coordinator/loop.ts';

/** Learners `train` knows. */
export const LEARNERS = ['qsg-s2auc', 'dsg'] as const;
export type LearnerName = (typeof LEARNERS)[number];

/** Everything `train` accepts; only `learner` and `data` are required. */
export interface TrainOptions {
  learner: LearnerName;
  /** A dataset (raw features) or a path to an Arrow / CSV / LIBSVM file. */
  data: Dataset | string;
  /**
   * Scale the given Dataset's features to [0, 1] in place instead of in a copy
   * (saves one copy of the features; the Dataset is modified). Default false.
   */
  scaleInPlace?: boolean;
  /** Reading options when `data` is a path (label column, feature columns). */
  read?: ReadDatasetOptions;
  /** Label value of the positive class (default: the larger label). */
  positive?: number;
  kernel?: KernelSpec['kind'];
  /** Kernel width σ. */
  sigma?: number;
  lambda?: number;
  /** QSG-S2AUC: trade-off γ. */
  gamma?: number;
  /** θ of the papers' η_t = θ/t; given alone it selects that schedule. Ignored when `step` is given. */
  theta?: number;
  /** The step schedule. Default: θ/(t + t₀) with θ = 1.5/λ and η_1 ≤ 0.5 (see `defaultStepSize`). */
  step?: StepSize;
  /** Points per source per iteration. */
  batchSize?: number;
  /** Random features per block. */
  m?: number;
  /** Iterations. */
  T?: number;
  seed?: number;
  /** Supervised DSG: margin loss. */
  loss?: MarginLoss;
  /** Evaluation threads (default: all cores). Never changes the model. */
  threads?: number;
  /** Shared frequency-store budget in bytes (default 256 MiB; 0 = regenerate, as the papers do). Never changes the model. */
  cacheBytes?: number;
  /** Held-out labeled rows scored (AUC) every `validateEvery` iterations. */
  validation?: Dataset;
  validateEvery?: number;
  onProgress?: (p: Progress) => void;
  onWarning?: (message: string) => void;
  signal?: AbortSignal;
}

/**
 * Trains a model; resolves when the last iteration is done.
 *
 * @example
 * const model = await train({ learner: 'qsg-s2auc', data: trainSet, T: 400, threads: 2, seed: 7 });
 */
export async function train(opts: TrainOptions): Promise<Model> {
  if (!LEARNERS.includes(opts.learner)) throw new UsageError(`unknown learner '${opts.learner}' (expected one of ${LEARNERS.join(', ')})`);
  const raw = typeof opts.data === 'string' ? await readDataset(opts.data, opts.read) : opts.data;
  const scaler = MinMaxScaler.fit(raw);
  // Rows read from a path are ours: scale them in place (one copy of X fewer, which is a
  // gigabyte at tens of millions of values). A caller's Dataset only when it says so.
  const inPlace = typeof opts.data === 'string' || opts.scaleInPlace === true;
  const ds = inPlace ? (scaler.transformInPlace(raw.X), raw) : scaler.transform(raw);
  const positive = opts.positive ?? defaultPositiveLabel(raw);
  const negative = raw.y[binarySources(raw, positive).N[0]];

  const lambda = opts.lambda ?? DEFAULTS.lambda;
  const step = checkStepSize(opts.step ?? (opts.theta !== undefined ? { kind: 'inverse', theta: opts.theta } : defaultStepSize(lambda, DEFAULTS.thetaLambda)));
  const warning = inverseStepWarning(step, lambda);
  if (warning) (opts.onWarning ?? ((m: string) => process.emitWarning(m)))(warning);
  const kernel = checkKernelSpec({ kind: opts.kernel ?? 'rbf', sigma: opts.sigma ?? DEFAULTS.sigma });
  const features: RandomFeatures = checkRandomFeatures({ kernel, seed: opts.seed ?? DEFAULTS.seed, d: ds.d, m: opts.m ?? DEFAULTS.m });
  const T = opts.T ?? DEFAULTS.T;
  const batchSize = opts.batchSize ?? DEFAULTS.batchSize;

  let learner: DsgLearner;
  let hyperparameters: Record<string, unknown>;
  if (opts.learner === 'qsg-s2auc') {
    const gamma = opts.gamma ?? DEFAULTS.gamma;
    learner = new QsgS2auc(ds, positive, { lambda, gamma, batchSize, step });
    hyperparameters = { lambda, gamma, batchSize, step, T };
  } else {
    const loss = opts.loss ?? DEFAULTS.loss;
    if (!MARGIN_LOSSES.includes(loss)) throw new UsageError(`unknown loss '${loss}' (expected one of ${MARGIN_LOSSES.join(', ')})`);
    learner = new SupervisedDsg(ds, positive, { lambda, loss, batchSize, step });
    hyperparameters = { lambda, loss, batchSize, step, T };
  }

  // One pool for the whole call (loop and threshold): its workers start now, while the
  // first, small iterations run on this thread, and start only once.
  const threads = opts.threads ?? defaultThreads();
  const pool = threads > 1 ? new EvaluatorPool(threads - 1) : undefined;
  try {
    return await trainWith(opts, { ds, raw, scaler, positive, negative, learner, hyperparameters, features, T, engine: { threads, cacheBytes: opts.cacheBytes, chunkSize: chunkSizeFor(T), ...(pool ? { pool } : {}) } });
  } finally {
    await pool?.close();
  }
}

/** The part of {@link train} that runs on the engine, given everything prepared. */
async function trainWith(
  opts: TrainOptions,
  prep: {
    ds: Dataset;
    raw: Dataset;
    scaler: MinMaxScaler;
    positive: number;
    negative: number;
    learner: DsgLearner;
    hyperparameters: Record<string, unknown>;
    features: RandomFeatures;
    T: number;
    engine: EvaluatorOptions;
  },
): Promise<Model> {
  const { ds, raw, scaler, positive, negative, learner, hyperparameters, features, T, engine } = prep;
  const val = opts.validation ? scaler.transform(opts.validation) : undefined;
  const result = await runLoop(learner, {
    features,
    T,
    engine,
    ...(opts.onProgress ? { onProgress: opts.onProgress } : {}),
    ...(opts.signal ? { signal: opts.signal } : {}),
    ...(val
      ? {
          validation: {
            X: val.X,
            nPoints: val.n,
            every: opts.validateEvery ?? Math.max(1, Math.floor(T / 20)),
            name: 'AUC',
            metric: (f: Float64Array) => auc(val.y, f, { positive }),
          },
        }
      : {}),
  });

  // Threshold for predict(): fitted on the labeled training rows (QS3ORAO's one-sided squared loss, k = 2).
  const labeledRows: number[] = [];
  for (let i = 0; i < ds.n; i++) if (ds.labeled[i]) labeledRows.push(i);
  const labeled = selectRows(ds, labeledRows);
  const evaluator = new Evaluator(result.history, features, engine);
  let fL: Float64Array;
  try {
    fL = await evaluator.evaluate(labeled.X, labeled.n);
  } finally {
    await evaluator.close();
  }
  const threshold = fitThreshold(fL, Uint8Array.from(labeled.y, (y) => (y === positive ? 1 : 0)));

  const header: ModelHeader = {
    format: 'dsgkit-model',
    version: 1,
    learner: opts.learner,
    hyperparameters,
    features,
    chunkSize: engine.chunkSize ?? chunkSizeFor(T),
    task: { kind: 'binary', positive, negative, threshold },
    scaler: scaler.toJSON(),
    featureNames: [...raw.featureNames],
    labelName: raw.labelName,
    history: { t: result.history.t, firstLive: result.history.firstLive, scale: result.history.scale },
    training: {
      rows: raw.n,
      labeledRows: labeledRows.length,
      ...(result.trace.length ? { validation: result.trace } : {}),
      ...(typeof opts.data === 'string' ? { data: opts.data } : raw.source !== undefined ? { data: raw.source } : {}),
    },
  };
  return new Model(header, result.history);
}
