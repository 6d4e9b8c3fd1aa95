/**
 * dsgkit: large-scale nonlinear semi-supervised kernel learning with
 * doubly / quadruply stochastic functional gradients, on every core.
 *
 * The user's surface, as the README documents it: training, tuning and
 * scaling (`train`, `tune`, `scaling`, `startTraining`), models (`load`,
 * `Model`), the learner registry (`LEARNERS`, `learnerSpec`), reading,
 * splitting and writing data, metrics, and the error classes — with the
 * types they take and return. Nothing else is exported.
 *
 * @example
 * import { train, readDataset, splitDataset } from 'dsgkit';
 * const { train: trainSet, test } = splitDataset(await readDataset('data/spam.arrow'), { labeled: 200, test: 0.2, seed: 1 });
 * const model = await train({ learner: 'qsg-s2auc', data: trainSet, lambda: 0.01 });
 * console.log(await model.score(test));
 */
export {
  train,
  load,
  Model,
  LEARNERS,
  LEARNER_NAMES,
  learnerSpec,
  METRICS,
  EVALUATIONS,
  defaultSigma,
  type TrainOptions,
  type LearnerOptions,
  type ContinueOptions,
  type TrainRequest,
  type RunOptions,
  type TrainData,
  type DataInput,
  type PredictOptions,
  type LearnerName,
  type RegisteredLearner,
  type LearnerSpec,
  type Capabilities,
  type Params,
  type ParamSpec,
  type ParamValue,
  type ParamInput,
  type ParamsOf,
  type Progress,
  type Evaluation,
  type ProfileReport,
  type StepSize,
  type Task,
  type TaskMetrics,
  type MetricName,
  type Hyperparameters,
  type TrainingRecord,
  type TuneRecord,
} from './api.ts';
export { tune, type TuneOptions, type TuneRunOptions, type TuneResult, type TuneRow, type TuneRound, type TuneProgress, type TuneSelection, TUNE_SELECTIONS, type TuneGuard, TUNE_GUARDS, type OverDefaults } from './tune.ts';
export { scaling, scalingChart, scalingTable, type ScalingOptions, type ScalingResult, type ScalingRow } from './scaling.ts';
export { startTraining, type TrainingHandle, type TrainingHooks } from './trainer-handle.ts';
export { readDataset, formatOf, type ReadDatasetOptions } from './data/index.ts';
export { makeDataset, type Dataset } from './data/dataset.ts';
export { readArrow, writeArrow, datasetToTable, tableToDataset, type ReadOptions } from './data/arrow.ts';
export { readCsv } from './data/csv.ts';
export { readLibsvm, type LibsvmOptions } from './data/libsvm.ts';
export { splitDataset, type SplitOptions, type Split } from './data/split.ts';
export { writeSynthetic, syntheticDataset, type SyntheticOptions, type SyntheticSummary } from './data/synthetic.ts';
export { auc, type AucOptions } from './metrics/auc.ts';
export { accuracy, f1Score, type AccuracyOptions } from './metrics/classification.ts';
export { meanAbsoluteError, ordinalMeanAuc, type OrdinalAucOptions, type OrdinalAucResult } from './metrics/ordinal.ts';
export { DataError, UsageError, ModelError, CancelledError } from './errors.ts';
export type { KernelSpec } from './features/kernel-spec.ts';
