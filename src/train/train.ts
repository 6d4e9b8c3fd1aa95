/**
 * `train`: validate → read the rows → build the run → `spec.fit` → the model.
 * The same five steps for every learner; what a learner can do beyond them
 * (continue, checkpoint, sample on read, profile) is its capabilities'.
 */
import { DataError, UsageError } from '../errors.ts';
import { labeledDataset, trainingRows } from '../data/training-rows.ts';
import { givenEngineSettings, type EvaluatorOptions } from '../engine/evaluator.ts';
import { EvaluatorPool } from '../engine/pool.ts';
import { inverseStepWarning, type StepSize } from '../coordinator/step-size.ts';
import { learnerSpec } from '../learners/registry.ts';
import type { FitHooks, FitRun, LearnerSpec, Params } from '../learners/spec.ts';
import type { Model } from '../model/model.ts';
import type { TrainingRecord } from '../model/model-file.ts';
import { withBudget } from './budget.ts';
import { clipQuantileFor, dataDefaults, kernelScale0 } from './defaults.ts';
import { loadTrainingRows, validationFor, type LoadedRows } from './data.ts';
import { initModel, initState, modelOf, type ModelContext } from './model-of.ts';
import { checkRunOptions, resolveThreads, type RunOptions } from './options.ts';
import { continuedParams, resolveParams, resolveStep } from './params.ts';

/** `train`'s options, untyped in the learner parameters (api.ts gives the typed form, TrainOptions). */
export type TrainArgs = RunOptions & { readonly learner?: string } & { readonly [param: string]: unknown };

/**
 * Trains a model; resolves when the last iteration is done.
 *
 * @example
 * const model = await trainModel({ learner: 'qsg-s2auc', data: 'train.arrow', threads: 2 });
 */
export async function trainModel(opts: TrainArgs): Promise<Model> {
  if (opts === null || typeof opts !== 'object') throw new UsageError('train: options must be an object with at least learner and data');
  const init = opts.init !== undefined ? await initModel(opts.init) : undefined;
  if (opts.learner === undefined && init === undefined) throw new UsageError('train: learner is required (or init, a model to continue)');
  // A model's learner this dsgkit does not train (a model from another version) is said as the model's, not as a --learner typo.
  const spec = learnerSpec(opts.learner ?? init!.header.learner, opts.learner === undefined ? "init: the model's learner" : 'learner');
  const onWarning = opts.onWarning ?? ((m: string) => process.emitWarning(m));
  const given = init ? continuedParams(spec, init, opts) : resolveParams(spec, opts);
  // A loop learner's T not given comes from the labeled rows (its budget rule, train/budget.ts): known
  // once the data are read, or scanned for a sample on read. Until then the rule's T for an unknown
  // n_l stands in for the checks, and it is the T of a stream (its reservoir is sized by T first).
  const stepOf = (p: Params) => (init ? (init.header.hyperparameters.step as StepSize) : resolveStep(spec, p, opts));
  const budgetFor = (labeledRows: number | undefined) => {
    const b = withBudget(spec, given, labeledRows);
    return { ...b, step: stepOf(b.params) };
  };
  const early = budgetFor(undefined);
  warnAboutSettings(spec, early.params, early.step, init, onWarning);
  const threads = resolveThreads(opts.threads, onWarning);
  checkRunOptions(spec, opts);
  spec.preflight?.(given);
  const initTask = init?.header.task;
  const positive = opts.positive ?? (initTask?.kind === 'binary' ? initTask.positive : undefined);
  const loaded = await loadTrainingRows(opts, {
    spec, params: early.params, step: early.step, positive, resume: init?.header.resume,
    clipQuantile: clipQuantileFor(opts.clipQuantile ?? init?.scaler.clipQuantile),
    ...(early.budget ? { budgetFor } : {}),
  });
  // A stream's run keeps the T its reservoir was sized for; otherwise every labeled row is in `loaded.rows`.
  const { params: budgeted, budget, step } = loaded.rowsRead !== undefined ? early : budgetFor(trainingRows(loaded.rows).labeledRows.length);
  if (budget) spec.preflight?.(budgeted);
  if (loaded.rows.d === 0) {
    const source = typeof opts.data === 'string' ? opts.data : loaded.rows.source;
    throw new DataError('no feature columns to learn from: the data hold the label column only', source !== undefined ? { file: source } : {});
  }
  // One pool for the whole call (fit and threshold), started once: its workers start now,
  // while this thread computes the defaults (σ₀), the validation set and the first, small
  // iterations — not after the data are read, which would add their memory to the peak of a large read.
  const pool = threads > 1 ? new EvaluatorPool(threads - 1) : undefined;
  try {
    const { params, sigma } = dataDefaults(spec, budgeted, loaded.rows, { continued: init !== undefined });
    // The default step may follow the data's kernel scale (the pairwise learners' at σ < σ₀): resolved again
    // now that σ is known; σ₀ is the default σ's, or taken only when the learner asks for it.
    let sigma0: number | undefined = sigma?.sigma0;
    const runStep = init ? step : resolveStep(spec, params, opts, { sigma0: () => (sigma0 ??= kernelScale0(loaded.rows)) });
    // A continued run keeps the record of its first run's default σ: its header is then the bytes of a run to T at once.
    const defaultSigma = sigma ? { sigma0: sigma.sigma0, ratio: sigma.ratio } : init?.header.training.defaultSigma;
    if (init && init.header.resume!.data !== loaded.fingerprint) throw new UsageError('init: the training data differ from the data the model was trained on (continue a run on the same file, rows and labels)');
    const engine: EvaluatorOptions = {
      threads,
      ...givenEngineSettings(opts),
      ...(pool ? { pool } : {}),
    };
    const ctx = modelContext(spec, opts, loaded, runStep, engine, init, defaultSigma, budget?.why);
    const run: FitRun = {
      rows: loaded.rows, classes: loaded.classes, params, engine,
      ...(runStep ? { step: runStep } : {}),
      ...(opts.evaluation !== undefined ? { evaluation: opts.evaluation } : {}),
      ...(init ? { start: initState(init) } : {}),
      hooks: await fitHooks(opts, loaded, params, { ...ctx, traceBefore: [] }),
    };
    return await modelOf(await spec.fit(run), params, ctx);
  } finally {
    await pool?.close();
  }
}

/**
 * Warnings about the settings (θλ outside the theorems' (1, 2)), and the
 * refusal of a continued run that cannot give the bytes of a run to its T at
 * once: its step was the default of a learner whose default depends on T
 * (TSGS3VM's θ/T^{3/4}) for another T, so every step of the run at once differs.
 */
function warnAboutSettings(spec: LearnerSpec, given: Params, step: StepSize | undefined, init: Model | undefined, onWarning: (m: string) => void): void {
  // The θλ ∈ (1, 2) condition belongs to the λ-regularised learners' theorems.
  if (step && !init && typeof given.lambda === 'number') {
    const warning = inverseStepWarning(step, given.lambda);
    if (warning) onWarning(warning);
  }
  if (init && step && 'defaultStepHorizon' in spec && spec.defaultStepHorizon) {
    const horizon = spec.defaultStepHorizon(step);
    if (horizon !== undefined && horizon !== given.T) {
      const atOnce = JSON.stringify(spec.defaultStep({ ...given }));
      throw new UsageError(
        `init: the model's step ${JSON.stringify(step)} is ${spec.name}'s default for T = ${horizon}, and that default depends on T ` +
          `(a run to T = ${String(given.T)} at once steps with ${atOnce} from the first iteration), so continuing it cannot give the model trained to T = ${String(given.T)} at once. ` +
          `Train to T = ${String(given.T)} at once, or give the step explicitly (e.g. --step constant --eta ${(step as { eta?: number }).eta ?? '<η>'}) to the first run so that it can be continued`,
      );
    }
  }
}

/** What the model of this run is assembled from besides its fit. */
function modelContext(spec: LearnerSpec, opts: RunOptions, loaded: LoadedRows, step: StepSize | undefined, engine: EvaluatorOptions, init: Model | undefined, defaultSigma: TrainingRecord['defaultSigma'], budget: string | undefined): ModelContext {
  const rows = trainingRows(loaded.rows);
  const labeled = labeledDataset(rows);
  const data = typeof opts.data === 'string' ? opts.data : loaded.rows.source;
  return {
    spec, rows, labeled, classes: loaded.classes, scaler: loaded.scaler, step, engine,
    training: {
      rows: loaded.rowsRead ?? loaded.rows.n,
      labeledRows: labeled.n,
      ...(loaded.rowsRead !== undefined ? { reservoir: loaded.rows.n - labeled.n } : {}),
      ...(budget !== undefined ? { budget } : {}),
      ...(defaultSigma !== undefined ? { defaultSigma } : {}),
      ...(data !== undefined ? { data } : {}),
    },
    fingerprint: loaded.fingerprint,
    traceBefore: (init?.header.training.validation as Array<[number, number]> | undefined) ?? [],
  };
}

/** The fit's hooks from the options: progress, cancellation, validation, profile, and checkpoints made into models. */
async function fitHooks(opts: RunOptions, loaded: LoadedRows, params: Params, checkpointCtx: ModelContext): Promise<FitHooks> {
  // Learners whose iteration count comes from the data (GKM's budget, FRS3VM's epochs) trace every T/20 of their own T.
  const every = opts.validateEvery ?? (typeof params.T === 'number' ? Math.max(1, Math.floor(params.T / 20)) : undefined);
  const validation = opts.validation !== undefined ? await validationFor(opts, loaded.classes, loaded.scaler, loaded.rows, every) : undefined;
  const { onCheckpoint, checkpointEvery } = opts;
  return {
    ...(opts.onProgress ? { onProgress: opts.onProgress } : {}),
    ...(opts.signal ? { signal: opts.signal } : {}),
    ...(validation ? { validation } : {}),
    ...(opts.onProfile ? { onProfile: opts.onProfile } : {}),
    ...(checkpointEvery !== undefined && onCheckpoint
      ? { checkpoint: { every: checkpointEvery, save: async (snapshot) => onCheckpoint(await modelOf(snapshot, { ...params, T: snapshot.state!.history.t }, checkpointCtx)) } }
      : {}),
  };
}
