/**
 * The one wrapper that turns a learner on the shared loop (its parameter
 * table, step schedule and {@link DsgLearner}) into a registered learner with
 * `fit`: random features from (kernel, σ, seed, m) → the learner on the rows
 * → the loop → a random-feature predictor and the state to continue from.
 * Checkpoints, validation, profiling and continuation are the loop's, so they
 * are the same for every loop learner.
 */
import { UsageError } from '../errors.ts';
import { suffixStart, suffixWeights } from '../coordinator/averaging.ts';
import { finalPositions, finalValues, type DsgLearner, type LearnerBias } from '../coordinator/learner.ts';
import { fastestEvaluation, modelBias, resolveEvaluation, runLoop, samplingRng, type LoopOptions } from '../coordinator/loop.ts';
import type { EvaluatorOptions } from '../engine/evaluator.ts';
import type { History } from '../engine/history.ts';
import { TRAINING_CHUNK_SIZE } from '../engine/chunks.ts';
import type { RandomFeatures } from '../engine/random-features.ts';
import { trainingRows } from '../data/training-rows.ts';
import { withLoopBudget, type LoopBudget } from './budget.ts';
import { randomFeaturesFor, type RandomFeatureParamValues } from './common.ts';
import { RandomFeaturePredictor, type PredictOptions } from '../model/predictor.ts';
import type { ParamsOf, ParamTable, ParamValues } from './params.ts';
import type { Capabilities, FitHooks, FitRun, Fitted, LoopLearnerSpec } from './spec.ts';
import { kernelScale0 } from './kernel-scale.ts';

/** Largest random-feature history a run may ask for (bytes): beyond it T·m is a typo, not a model. */
const MAX_HISTORY_BYTES = 16 * 2 ** 30;

/** What every learner on the loop can do. */
const LOOP_CAPABILITIES: Capabilities = { continues: true, steps: true, samplesOnRead: true, profiles: true };

/** The parameters the loop itself reads (RANDOM_FEATURE_PARAMS in common.ts). */
interface LoopParams extends RandomFeatureParamValues {
  readonly T: number;
}

/** A loop learner as its file declares it: everything but what this wrapper adds. */
export type LoopLearnerDeclaration<P extends ParamTable, N extends string> = Omit<LoopLearnerSpec<P, N>, 'fit' | 'capabilities' | 'replayDraws' | 'preflight'>;

/**
 * The registered learner of a loop learner's declaration: `fit` and
 * `replayDraws` from the shared loop, and the loop's capabilities.
 *
 * @example
 * export const dsgSpec = loopLearner({ kind: 'loop', name: 'dsg', params: { ...RANDOM_FEATURE_PARAMS, … }, create(…) { … }, … });
 */
export function loopLearner<P extends ParamTable, N extends string>(declared: LoopLearnerDeclaration<P, N>): LoopLearnerSpec<P, N> {
  const { budget } = declared;
  return {
    ...declared,
    capabilities: LOOP_CAPABILITIES,
    fit: (run) => fitOnLoop(declared, budget, run),
    preflight(params) {
      const { T, m } = loopParams(params);
      // T not given: the budget rule's, at most its max (checked again once n_l fills it).
      const bytes = (T ?? budget.max) * 2 * m * 8;
      if (bytes > MAX_HISTORY_BYTES) throw new UsageError(`T = ${T} iterations of m = ${m} features need a ${(bytes / 2 ** 30).toFixed(0)} GiB history (at most ${MAX_HISTORY_BYTES / 2 ** 30} GiB); lower T or m`);
    },
    replayDraws(rows, classes, params, step, to, from) {
      const learner = declared.create(rows, classes, params, step);
      const rng = samplingRng(loopParams(params).seed, from?.rng);
      for (let t = (from?.t ?? 0) + 1; t <= to; t++) learner.sample(rng, t);
      // The rows its final bias reads after iteration `to` (TSGS3VM's class balance), asked for as the run's end asks.
      const final = learner.bias?.final;
      if (final !== undefined) {
        const x = new Float64Array(final.d);
        for (const p of finalPositions(final, to)) final.copyPoint(p, x, 0);
      }
    },
  };
}

function loopParams(params: object): LoopParams {
  return params as LoopParams;
}

/** A fit on the loop: to `run.to` (default T), from `run.start` when given. */
async function fitOnLoop<P extends ParamTable, N extends string>(spec: LoopLearnerDeclaration<P, N>, budget: LoopBudget, run: FitRun<ParamsOf<P>>): Promise<Fitted> {
  // A caller that did not fill T (train and tune do) gets the budget rule's T on these rows, where a given T would stand.
  const all = withLoopBudget(spec.params, budget, run.params as ParamsOf<P> & ParamValues, trainingRows(run.rows).labeledRows.length).params;
  const params = loopParams(all);
  const hooks = run.hooks ?? {};
  const T = run.to ?? params.T;
  const features = randomFeaturesFor(params, run.rows.d);
  // No step given: the default on these rows, which may follow their kernel scale (as train's and tune's do).
  const learner = spec.create(run.rows, run.classes, all, run.step ?? spec.defaultStep(all, { sigma0: () => kernelScale0(run.rows) }));
  let evaluation: 'history' | 'rows';
  try {
    evaluation = run.evaluation === 'fastest' ? fastestEvaluation(learner, run.start?.history.t ?? 0, T, features) : resolveEvaluation(learner, T, run.evaluation, features);
  } catch (err) {
    throw new UsageError(`evaluation: ${(err as Error).message}`);
  }
  const result = await runLoop(learner, {
    features,
    T,
    ...(run.start ? { start: run.start } : {}),
    engine: { ...run.engine, chunkSize: TRAINING_CHUNK_SIZE },
    evaluation,
    ...(hooks.onProfile ? { profile: true } : {}),
    ...(hooks.onProgress ? { onProgress: hooks.onProgress } : {}),
    ...(hooks.signal ? { signal: hooks.signal } : {}),
    ...(hooks.validation ? { validation: hooks.validation } : {}),
    ...(hooks.checkpoint ? { onIteration: checkpointer(hooks.checkpoint, features, T, evaluation, learner, params.average, run.engine) } : {}),
  });
  if (result.profile) hooks.onProfile?.(result.profile);
  return {
    predictor: await loopPredictor(result.history, features, learner, params.average, learner.bias, result.bias, { ...run.engine, frequencies: result.frequencies }),
    trace: result.trace,
    state: { history: result.history, rng: result.rng, ...(result.runningBias !== undefined ? { bias: result.runningBias } : {}) },
    evaluation: result.evaluation,
    frequencies: result.frequencies,
  };
}

/** The loop's per-iteration hook that hands a snapshot to `checkpoint.save` every `every` iterations before T. */
function checkpointer(checkpoint: NonNullable<FitHooks['checkpoint']>, features: RandomFeatures, T: number, evaluation: 'history' | 'rows', learner: DsgLearner, average: LoopParams['average'], engine: EvaluatorOptions): NonNullable<LoopOptions['onIteration']> {
  return async (t, history, evaluator, rng, bias) => {
    if (t % checkpoint.every !== 0 || t >= T) return;
    // A copy of the blocks so far (not of the run's capacity): the run goes on appending to its history after the callback.
    const snapshot = history.copy();
    const predictor = await loopPredictor(snapshot, features, learner, average, bias, average === 'none' ? await modelBias(bias, evaluator, t) : undefined, engine);
    await checkpoint.save({ predictor, state: { history: snapshot, rng, ...(bias ? { bias: bias.value } : {}) }, evaluation });
  };
}

/**
 * The model of a run whose history stands at t = history.t: the last iterate
 * (`average` none), or the mean of the iterates of the last half (suffix,
 * coordinator/averaging.ts) — the same history with a weight per block, so a
 * run continued from it is the run to t at once. A bias with a `final` rule
 * (e.g. TSGS3VM's class balance) is taken on the averaged f; a running bias
 * is its value after iteration t (`lastBias`).
 *
 * @example
 * const predictor = await loopPredictor(result.history, features, learner, 'suffix', learner.bias, result.bias);
 */
async function loopPredictor(history: History, features: RandomFeatures, learner: DsgLearner, average: LoopParams['average'], bias: LearnerBias | undefined, lastBias: number | undefined, engine: EvaluatorOptions): Promise<RandomFeaturePredictor> {
  if (average === 'none' || average === undefined) return new RandomFeaturePredictor(history, features, TRAINING_CHUNK_SIZE, lastBias);
  const from = suffixStart(history.t);
  let weights: Float64Array;
  try {
    weights = suffixWeights(learner.step, learner.lambda, history.t, from);
  } catch (err) {
    throw new UsageError(`average suffix: ${(err as Error).message}`);
  }
  const averaged = new RandomFeaturePredictor(history, features, TRAINING_CHUNK_SIZE, undefined, { from, weights });
  if (bias === undefined) return averaged;
  let b = bias.value;
  if (bias.final !== undefined) {
    // One call: each call of a predictor sets up an evaluator of its own.
    b = bias.final.bias(await finalValues(bias.final, history.t, (X, n, out) => averaged.evaluate(X, n, out, predictOptions(engine)), Infinity));
  } else if (lastBias !== undefined) b = lastBias;
  return new RandomFeaturePredictor(history, features, TRAINING_CHUNK_SIZE, b, { from, weights });
}

/** The engine options a prediction takes of a run's. */
function predictOptions(engine: EvaluatorOptions): PredictOptions {
  const { threads, cacheBytes, parallelMinWork, pool, frequencies } = engine;
  return { ...(threads !== undefined ? { threads } : {}), ...(cacheBytes !== undefined ? { cacheBytes } : {}), ...(parallelMinWork !== undefined ? { parallelMinWork } : {}), ...(pool !== undefined ? { pool } : {}), ...(frequencies !== undefined ? { frequencies } : {}) };
}
