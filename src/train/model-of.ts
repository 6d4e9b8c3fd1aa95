/**
 * A trained predictor made into a model: its threshold(s) fitted on the
 * training rows, and the header — hyperparameters, task, scaler, feature
 * names, how training went and, for learners that continue, the resume
 * state. One place writes the header; its fields are typed in model-file.ts.
 */
import { UsageError } from '../errors.ts';
import type { Dataset } from '../data/dataset.ts';
import type { MinMaxScaler } from '../data/scaler.ts';
import type { TrainingRows } from '../data/training-rows.ts';
import { TRAINING_CHUNK_SIZE } from '../engine/chunks.ts';
import type { EvaluatorOptions } from '../engine/evaluator.ts';
import type { StepSize } from '../coordinator/step-size.ts';
import { learnerSpec } from '../learners/registry.ts';
import { BALANCE_ROWS, complementSource, sampleSource } from '../learners/sources.ts';
import type { Fitted, FitState, LearnerSpec, Params } from '../learners/spec.ts';
import { load, Model } from '../model/model.ts';
import type { ModelHeader, ResumeState, TrainingRecord } from '../model/model-file.ts';
import { RandomFeaturePredictor, type Predictor } from '../model/predictor.ts';
import { fitTask, type Task, type TaskClasses, type ThresholdRule } from '../model/task.ts';

/**
 * The task of a trained predictor: its threshold(s) fitted by `rule` from f at
 * the labeled training rows (`labeled`, e.g. `labeledDataset` of `rows`)
 * and, for the `prior` rule, at the unlabeled training rows (a seeded sample
 * of at most `priorRows`, {@link BALANCE_ROWS} unless `tune`'s early rounds
 * ask for fewer), the cut's minority share scaled by `minorityShare` (`fitTask`).
 * What `train` stores in the model and `tune` scores a fold's accuracy with.
 *
 * @example
 * const task = await fittedTask(predictor, datasetRows(scaled), labeledDataset(datasetRows(scaled)), classes, 'prior', { threads: 1 }, 1);
 */
export async function fittedTask(
  predictor: Predictor, rows: TrainingRows, labeled: Dataset, classes: TaskClasses, rule: ThresholdRule, engine: EvaluatorOptions, seed: number, priorRows = BALANCE_ROWS, minorityShare = 1,
): Promise<Task> {
  return (await fittedTasks(predictor, rows, labeled, classes, rule, engine, seed, priorRows, [minorityShare]))[0];
}

/**
 * {@link fittedTask} at each of several minority shares, from one scoring of
 * the rows: what `tune` scores a fold's cuts with (`MINORITY_SHARES`).
 *
 * @example
 * const [asLabeled, half, none] = await fittedTasks(predictor, rows, labeled, classes, 'prior', engine, 1, BALANCE_ROWS, [1, 0.5, 0]);
 */
export async function fittedTasks(
  predictor: Predictor, rows: TrainingRows, labeled: Dataset, classes: TaskClasses, rule: ThresholdRule, engine: EvaluatorOptions, seed: number, priorRows: number, minorityShares: readonly number[],
): Promise<Task[]> {
  const fL = await predictor.evaluate(labeled.X, labeled.n, new Float64Array(labeled.n), engine);
  if (rule !== 'prior') return minorityShares.map((s) => fitTask(classes, fL, labeled.y, rule, undefined, s));
  const U = sampleSource(complementSource(rows.n, rows.labeledRows), priorRows, `dsgkit-prior:${seed}`);
  const fU = await predictor.evaluateAt(rows, U, new Float64Array(U.length), engine);
  return minorityShares.map((s) => fitTask(classes, fL, labeled.y, rule, fU, s));
}

/** What a model is assembled from besides the fit: the run's learner, rows and data facts. */
export interface ModelContext {
  readonly spec: LearnerSpec;
  readonly rows: TrainingRows;
  readonly labeled: Dataset;
  readonly classes: TaskClasses;
  readonly scaler: MinMaxScaler;
  readonly step: StepSize | undefined;
  readonly engine: EvaluatorOptions;
  /** What the header's `training` records besides the validation trace and the evaluation strategy. */
  readonly training: Pick<TrainingRecord, 'rows' | 'labeledRows' | 'reservoir' | 'budget' | 'data' | 'defaultSigma'>;
  /** The scaled data's fingerprint (learners that continue). */
  readonly fingerprint: string | undefined;
  /** A continued run's trace so far: the continued model's trace starts with it. */
  readonly traceBefore: ReadonlyArray<readonly [number, number]>;
}

/**
 * The model of a fit at parameters `params`: threshold(s) fitted at the
 * labeled rows, the header assembled (with the resume state when the fit has one).
 *
 * @example
 * const model = await modelOf(fitted, params, ctx);
 */
export async function modelOf(fitted: Fitted, params: Params, ctx: ModelContext): Promise<Model> {
  const { spec, rows, step } = ctx;
  // The run's frequency store, when it has one, serves the threshold's scoring: no second copy of the frequencies.
  const engine = fitted.frequencies ? { ...ctx.engine, frequencies: fitted.frequencies } : ctx.engine;
  const task = await fittedTask(fitted.predictor, rows, ctx.labeled, ctx.classes, spec.threshold, engine, params.seed as number, BALANCE_ROWS, (params.minorityShare as number | undefined) ?? 1);
  const trace = [...ctx.traceBefore, ...(fitted.trace ?? [])];
  const header: ModelHeader = {
    format: 'dsgkit-model',
    version: 2,
    learner: spec.name,
    hyperparameters: { ...params, ...(step ? { step } : {}), ...(fitted.computed ?? {}) },
    metric: spec.metric,
    task,
    predictor: fitted.predictor.describe(),
    scaler: ctx.scaler.toJSON(),
    featureNames: [...rows.featureNames],
    labelName: rows.labelName,
    training: {
      rows: ctx.training.rows,
      labeledRows: ctx.training.labeledRows,
      ...(ctx.training.reservoir !== undefined ? { reservoir: ctx.training.reservoir } : {}),
      ...(ctx.training.budget !== undefined ? { budget: ctx.training.budget } : {}),
      ...(ctx.training.defaultSigma !== undefined ? { defaultSigma: ctx.training.defaultSigma } : {}),
      ...(trace.length ? { validation: trace } : {}),
      ...(fitted.evaluation !== undefined ? { evaluation: fitted.evaluation } : {}),
      ...(ctx.training.data !== undefined ? { data: ctx.training.data } : {}),
    },
    ...(fitted.state && ctx.fingerprint !== undefined ? { resume: resumeState(fitted.state, ctx.fingerprint) } : {}),
  };
  return new Model(header, fitted.predictor);
}

/** The header's resume state of a fit's state: iterations done, the stream's state, the running bias, the data's fingerprint. */
function resumeState(state: FitState, data: string): ResumeState {
  return { t: state.history.t, rng: state.rng, ...(state.bias !== undefined ? { bias: state.bias } : {}), data };
}

/**
 * A model to continue, loaded and checked: a learner that continues, with its
 * resume state and today's chunk layout; a UsageError saying why not otherwise.
 *
 * @example
 * const init = await initModel('run.dsg');
 */
export async function initModel(init: unknown): Promise<Model> {
  const model = typeof init === 'string' ? await load(init) : init;
  if (!(model instanceof Model)) throw new UsageError(`init must be a Model or a model file path, got ${typeof init}`);
  const where = typeof init === 'string' ? init : 'the init model';
  const spec = learnerSpec(model.header.learner, 'init');
  if (!spec.capabilities.continues || !(model.predictor instanceof RandomFeaturePredictor)) throw new UsageError(`init: ${where} is a ${spec.name} model; only learners on the stochastic loop can be continued`);
  if (model.header.resume === undefined) throw new UsageError(`init: ${where} carries no resume state (saved by an older dsgkit); it cannot be continued`);
  if (model.predictor.chunkSize !== TRAINING_CHUNK_SIZE) throw new UsageError(`init: ${where} was trained with ${model.predictor.chunkSize}-block chunks (an older dsgkit); continuing it would not match a run trained at once`);
  return model;
}

/**
 * Where a continued run starts: the saved model's history, stream and running bias.
 *
 * @example
 * const start = initState(await initModel('run.dsg'));
 */
export function initState(init: Model): FitState {
  const saved = init.header.resume!;
  return { history: (init.predictor as RandomFeaturePredictor).history, rng: saved.rng, ...(saved.bias !== undefined ? { bias: saved.bias } : {}) };
}
