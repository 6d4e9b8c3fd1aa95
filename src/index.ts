/**
 * dsgkit: large-scale nonlinear semi-supervised kernel learning with
 * doubly / quadruply stochastic functional gradients, on every core.
 *
 * The user's surface: training and models (`train`, `load`, `Model`,
 * `startTraining`), the learner registry (`LEARNERS`, `learnerSpec`), data
 * reading, splitting and writing, metrics, and the error classes.
 */
export {
  train,
  load,
  Model,
  LEARNERS,
  LEARNER_NAMES,
  learnerSpec,
  METRICS,
  defaultSigma,
  EVALUATIONS,
  type Evaluation,
  type TrainOptions,
  type TrainRequest,
  type RunOptions,
  type TrainData,
  type DataInput,
  type LearnerSpec,
  type ParamSpec,
  type ParamValue,
  type PredictOptions,
  type Progress,
  type StepSize,
  type Task,
  type TaskMetrics,
  type MetricName,
} from './api.ts';
export { scaling, scalingChart, scalingTable, type ScalingOptions, type ScalingResult, type ScalingRow } from './scaling.ts';
export { tune, parseGrid, gridCandidates, type TuneOptions, type TuneResult, type TuneRow, type TuneRound, type TuneProgress, type TuneSelection, TUNE_SELECTIONS } from './tune.ts';
export { startTraining, type TrainingHandle, type TrainingHooks } from './trainer-handle.ts';
export * from './data/index.ts';
export * from './metrics/index.ts';
export { DataError, UsageError, ModelError, CancelledError } from './errors.ts';
export { type KernelSpec } from './features/kernel-spec.ts';
