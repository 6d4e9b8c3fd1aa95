/**
 * dsgkit: large-scale nonlinear semi-supervised kernel learning with
 * doubly / quadruply stochastic functional gradients, on every core.
 */
export { train, load, Model, LEARNERS, type TrainOptions, type LearnerName, type PredictOptions, type Progress } from './api.ts';
export { startTraining, type TrainingHandle, type TrainingHooks } from './trainer-handle.ts';
export * from './data/index.ts';
export * from './metrics/index.ts';
export { DataError, UsageError, ModelError, CancelledError } from './errors.ts';
export { type KernelSpec } from './features/kernel-spec.ts';
export { type StepSize } from './learners/step-size.ts';
export { exactQsgS2auc, evaluateExpansion, type KernelExpansion } from './learners/exact.ts';
export { Evaluator, type EvaluatorOptions } from './engine/evaluator.ts';
export { History } from './engine/history.ts';
