/**
 * The public surface of dsgkit for Node scripts: `train`, `Model`, `load`,
 * and the learner registry, with options typed per learner (a misspelt or
 * wrongly typed parameter is a compile error; the same checks run at run
 * time). The work is done in src/train/ (options, data, the fit, the model);
 * the CLI goes through these functions too.
 *
 * @example
 * import { train, load } from 'dsgkit';
 * const model = await train({ learner: 'qsg-s2auc', data: 'data/spam-train.arrow', lambda: 0.01, threads: 8 });
 * console.log(await model.score('data/spam-test.arrow'));
 * await model.save('spam.dsg');
 */
import type { ParamInput } from './learners/params.ts';
import type { RegisteredLearner } from './learners/registry.ts';
import type { LearnerBase } from './learners/spec.ts';
import type { Model } from './model/model.ts';
import type { RunOptions } from './train/options.ts';
import { trainModel } from './train/train.ts';

export { Model, load, type PredictOptions, type DataInput } from './model/model.ts';
export type { Progress, Evaluation } from './coordinator/loop.ts';
export { PHASES, PHASE_DOCS, type Phase, type ProfileReport, type WorkerBusy } from './engine/profile.ts';
export { EVALUATIONS } from './coordinator/loop.ts';
export type { StepSize } from './coordinator/step-size.ts';
export { LEARNERS, LEARNER_NAMES, learnerSpec, type LearnerName, type RegisteredLearner } from './learners/registry.ts';
export type { Capabilities, LearnerSpec, Params } from './learners/spec.ts';
export { checkParam, cliName, defaultText, rangeText, type ParamSpec, type ParamValue, type ParamInput, type ParamsOf } from './learners/params.ts';
export { METRICS, labelName, type Task, type TaskMetrics, type MetricName } from './model/task.ts';
export type { Hyperparameters, TrainingRecord, TuneRecord } from './model/model-file.ts';
export { DEFAULT_CACHE_BYTES } from './engine/evaluator.ts';
export { defaultStepSize, DEFAULT_MAX_STEP } from './coordinator/step-size.ts';
export { THETA_LAMBDA } from './learners/common.ts';
export { defaultThreads } from './engine/pool.ts';
// The service layer's entry points, for the CLI, `tune`, `scaling` and tests.
export { defaultSigma, kernelScale0, withDataDefaults } from './train/defaults.ts';
export { toDataset } from './train/data.ts';
export { fittedTask } from './train/model-of.ts';
export { resolveThreads, type RunOptions, type TrainData } from './train/options.ts';
export { resolveParams, resolveStep } from './train/params.ts';

/** `iterations`, the command line's name for `T`, for learners with an iteration count. */
type IterationsAlias<P> = 'T' extends keyof P ? { readonly iterations?: number } : unknown;

/** A learner's name and its parameters, typed from its table. */
type LearnerOptionsOf<S> = S extends LearnerBase<infer P, infer N> ? { readonly learner: N } & ParamInput<P> & IterationsAlias<P> : never;

/**
 * The learner and its parameters, one member per registered learner (a
 * discriminated union on `learner`): editors complete a learner's
 * parameters, and a misspelt or wrongly typed one is a compile error.
 *
 * @example
 * const opts: LearnerOptions = { learner: 'qsg-s2auc', lambda: 0.1, gamma: 0.5 };
 */
export type LearnerOptions = LearnerOptionsOf<RegisteredLearner>;

/** Continuing a saved run: the model (or its path) and the iteration count to continue to; every other parameter is the model's. */
export interface ContinueOptions {
  readonly learner?: undefined;
  readonly init: Model | string;
  readonly T?: number;
  readonly iterations?: number;
}

/** Everything `train` accepts: the run options, and the learner with its parameters (or `init`, a run to continue). */
export type TrainOptions = RunOptions & (LearnerOptions | ContinueOptions);

/** {@link TrainOptions} without the callbacks and the signal: what can cross to another thread. */
export type TrainRequest = Omit<RunOptions, 'onProgress' | 'onReadProgress' | 'onWarning' | 'signal' | 'onCheckpoint' | 'init' | 'onProfile'> & { init?: string; learner?: string; readonly [param: string]: unknown };

/**
 * Trains a model; resolves when the last iteration is done.
 *
 * @example
 * for (const learner of ['qsg-s2auc', 'dsg'] as const) {
 *   const model = await train({ learner, data: trainSet, threads: 2, seed: 7 });
 *   console.log(learner, await model.score(testSet));
 * }
 */
export async function train(opts: TrainOptions): Promise<Model> {
  return trainModel(opts as Parameters<typeof trainModel>[0]);
}

/** Default frequency-store budget, in MiB, for help texts. */
export { DEFAULT_CACHE_MB } from './train/options.ts';
