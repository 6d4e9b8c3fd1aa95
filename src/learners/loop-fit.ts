/**
 * The one wrapper that turns a learner on the shared loop (its parameter
 * table, step schedule and {@link DsgLearner}) into a registered learner with
 * `fit`: random features from (kernel, σ, seed, m) → the learner on the rows
 * → the loop → a random-feature predictor and the state to continue from.
 * Checkpoints, validation, profiling and continuation are the loop's, so they
 * are the same for every loop learner.
 */
import { UsageError } from '../errors.ts';
import { modelBias, resolveEvaluation, runLoop, samplingRng, type LoopOptions } from '../coordinator/loop.ts';
import { TRAINING_CHUNK_SIZE } from '../engine/chunks.ts';
import { checkRandomFeatures, type RandomFeatures } from '../engine/random-features.ts';
import type { KernelSpec } from '../features/kernel-spec.ts';
import { RandomFeaturePredictor } from '../model/predictor.ts';
import type { ParamsOf, ParamTable } from './params.ts';
import type { Capabilities, FitHooks, FitRun, Fitted, LoopLearnerSpec } from './spec.ts';

/** Largest random-feature history a run may ask for (bytes): beyond it T·m is a typo, not a model. */
const MAX_HISTORY_BYTES = 16 * 2 ** 30;

/** What every learner on the loop can do. */
const LOOP_CAPABILITIES: Capabilities = { continues: true, steps: true, samplesOnRead: true, profiles: true };

/** The parameters the loop itself reads (RANDOM_FEATURE_PARAMS in common.ts). */
interface LoopParams {
  readonly kernel: KernelSpec['kind'];
  readonly sigma: number;
  readonly seed: number;
  readonly m: number;
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
  return {
    ...declared,
    capabilities: LOOP_CAPABILITIES,
    fit: (run) => fitOnLoop(declared, run),
    preflight(params) {
      const { T, m } = loopParams(params);
      const bytes = T * 2 * m * 8;
      if (bytes > MAX_HISTORY_BYTES) throw new UsageError(`T = ${T} iterations of m = ${m} features need a ${(bytes / 2 ** 30).toFixed(0)} GiB history (at most ${MAX_HISTORY_BYTES / 2 ** 30} GiB); lower T or m`);
    },
    replayDraws(rows, classes, params, step, to, from) {
      const learner = declared.create(rows, classes, params, step);
      const rng = samplingRng(loopParams(params).seed, from?.rng);
      for (let t = (from?.t ?? 0) + 1; t <= to; t++) learner.sample(rng, t);
    },
  };
}

function loopParams(params: object): LoopParams {
  return params as LoopParams;
}

/** A fit on the loop: to `run.to` (default T), from `run.start` when given. */
async function fitOnLoop<P extends ParamTable, N extends string>(spec: LoopLearnerDeclaration<P, N>, run: FitRun<ParamsOf<P>>): Promise<Fitted> {
  const params = loopParams(run.params);
  const hooks = run.hooks ?? {};
  const T = run.to ?? params.T;
  const features = checkRandomFeatures({ kernel: { kind: params.kernel, sigma: params.sigma }, seed: params.seed, d: run.rows.d, m: params.m });
  const learner = spec.create(run.rows, run.classes, run.params, run.step ?? spec.defaultStep(run.params));
  let evaluation: 'history' | 'rows';
  try {
    evaluation = resolveEvaluation(learner, T, run.evaluation);
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
    ...(hooks.checkpoint ? { onIteration: checkpointer(hooks.checkpoint, features, T, evaluation) } : {}),
  });
  if (result.profile) hooks.onProfile?.(result.profile);
  return {
    predictor: new RandomFeaturePredictor(result.history, features, TRAINING_CHUNK_SIZE, result.bias),
    trace: result.trace,
    state: { history: result.history, rng: result.rng, ...(result.runningBias !== undefined ? { bias: result.runningBias } : {}) },
    evaluation: result.evaluation,
  };
}

/** The loop's per-iteration hook that hands a snapshot to `checkpoint.save` every `every` iterations before T. */
function checkpointer(checkpoint: NonNullable<FitHooks['checkpoint']>, features: RandomFeatures, T: number, evaluation: 'history' | 'rows'): NonNullable<LoopOptions['onIteration']> {
  return async (t, history, evaluator, rng, bias) => {
    if (t % checkpoint.every !== 0 || t >= T) return;
    // A copy of the blocks so far (not of the run's capacity): the run goes on appending to its history after the callback.
    const snapshot = history.copy();
    const predictor = new RandomFeaturePredictor(snapshot, features, TRAINING_CHUNK_SIZE, await modelBias(bias, evaluator));
    await checkpoint.save({ predictor, state: { history: snapshot, rng, ...(bias ? { bias: bias.value } : {}) }, evaluation });
  };
}
