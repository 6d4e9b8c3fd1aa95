/**
 * The shared training loop of every random-feature learner (ALGORITHMS.md):
 * sample → evaluate f on the engine → weights → new block → shrink the past.
 * Learner-agnostic; runs on the calling thread (the coordinator) while the
 * engine's workers evaluate the history.
 */
import seedrandom from 'seedrandom';
import { CancelledError } from '../errors.ts';
import { BlockOps } from '../engine/block-ops.ts';
import { Evaluator, type EvaluatorOptions } from '../engine/evaluator.ts';
import { History } from '../engine/history.ts';
import type { RandomFeatures } from '../engine/random-features.ts';
import type { DsgLearner } from './learner.ts';
import { stepAt } from './step-size.ts';

/** Progress of a run, reported after every iteration (callers throttle as they like). */
export interface Progress {
  /** Iterations done. */
  readonly t: number;
  readonly T: number;
  readonly elapsedMs: number;
  /** Latest validation metric, once one has been computed. */
  readonly metric?: { readonly name: string; readonly value: number; readonly t: number };
}

/** A held-out set scored every `every` iterations from values kept up to date incrementally. */
export interface Validation {
  readonly X: Float64Array;
  readonly nPoints: number;
  readonly every: number;
  readonly name: string;
  /** Metric from `f` at the validation points. */
  readonly metric: (f: Float64Array) => number;
}

/** Options of {@link runLoop}. */
export interface LoopOptions {
  readonly features: RandomFeatures;
  /** Iterations (blocks) T. */
  readonly T: number;
  readonly engine?: EvaluatorOptions;
  readonly onProgress?: (p: Progress) => void;
  /** Called after iteration t with the history as it stands (convergence studies). */
  readonly onIteration?: (t: number, history: History, evaluator: Evaluator) => void | Promise<void>;
  readonly signal?: AbortSignal;
  readonly validation?: Validation;
}

/** What a run produced. */
export interface LoopResult {
  readonly history: History;
  /** Validation metric trace `[t, value]`. */
  readonly trace: Array<[number, number]>;
  readonly elapsedMs: number;
}

/** How often (ms) the loop lets the event loop run, so cancel messages and progress reach their listeners. */
const YIELD_EVERY_MS = 25;

/**
 * The sampling stream of a run: seeded by the model seed, separate from the feature seeds.
 *
 * @example
 * const rng = samplingRng(42);
 */
export function samplingRng(seed: number): () => number {
  return seedrandom.alea(`dsgkit-sampling:${seed}`);
}

/**
 * Runs `T` iterations of the doubly stochastic loop for `learner`.
 * Iteration `t` (1-based) adds block `t − 1` (0-based in the history).
 *
 * @example
 * const { history } = await runLoop(new QsgS2auc(ds, 1, params), { features: rf, T: 500, engine: { threads: 4 } });
 */
export async function runLoop(learner: DsgLearner, opts: LoopOptions): Promise<LoopResult> {
  const { features: rf, T } = opts;
  if (!Number.isInteger(T) || T < 1) throw new RangeError(`T (iterations) must be a positive integer, got ${T}`);
  if (learner.d !== rf.d) throw new RangeError(`learner has d = ${learner.d}, features have d = ${rf.d}`);
  const history = new History({ m: rf.m, capacity: T });
  const evaluator = new Evaluator(history, rf, opts.engine);
  const ops = new BlockOps();
  const rng = samplingRng(rf.seed);
  const start = performance.now();
  const trace: Array<[number, number]> = [];
  const val = opts.validation;
  const fVal = val ? new Float64Array(val.nPoints) : undefined;
  let f = new Float64Array(0);
  let w = new Float64Array(0);
  let metric: Progress['metric'];
  let lastYield = start;
  try {
    for (let t = 1; t <= T; t++) {
      // A serial run never leaves the microtask queue on its own; yield now and then so
      // an abort sent from another thread (the Comlink handle) or a timer can be seen.
      if (performance.now() - lastYield > YIELD_EVERY_MS) {
        await new Promise<void>((resolve) => setImmediate(resolve));
        lastYield = performance.now();
      }
      if (opts.signal?.aborted) throw new CancelledError(`training cancelled after ${t - 1} of ${T} iterations`);
      const batch = learner.sample(rng, t);
      if (f.length < batch.nPoints) {
        f = new Float64Array(batch.nPoints);
        w = new Float64Array(batch.nPoints);
      }
      await evaluator.evaluate(batch.X, batch.nPoints, f);
      learner.weights(f, w);
      const eta = stepAt(learner.step, t);
      const alpha = ops.project(rf, t - 1, batch.X, batch.nPoints, w, evaluator.frequencies);
      for (let j = 0; j < alpha.length; j++) alpha[j] *= -eta;
      const factor = 1 - eta * learner.lambda;
      history.shrink(factor);
      history.append(alpha);
      if (val && fVal) {
        for (let p = 0; p < val.nPoints; p++) fVal[p] *= factor;
        ops.accumulate(rf, t - 1, alpha, val.X, val.nPoints, fVal, evaluator.frequencies);
        if (t % val.every === 0 || t === T) {
          const value = val.metric(fVal);
          trace.push([t, value]);
          metric = { name: val.name, value, t };
        }
      }
      if (opts.onIteration) await opts.onIteration(t, history, evaluator);
      opts.onProgress?.({ t, T, elapsedMs: performance.now() - start, ...(metric ? { metric } : {}) });
    }
  } finally {
    await evaluator.close();
  }
  return { history, trace, elapsedMs: performance.now() - start };
}
