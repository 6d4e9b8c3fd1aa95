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
  /** The final bias `b` of `f(x) + b`, when the learner has one. */
  readonly bias?: number;
  /** Validation metric trace `[t, value]`. */
  readonly trace: Array<[number, number]>;
  readonly elapsedMs: number;
}

/** How often (ms) the loop lets the event loop run, so cancel messages and progress reach their listeners. */
const YIELD_EVERY_MS = 25;

/**
 * A function that lets the event loop run (one `setImmediate`) when more than
 * {@link YIELD_EVERY_MS} ms have passed since it last did: a serial run never
 * leaves the microtask queue on its own, and an abort sent from another thread
 * (the Comlink handle) or a timer must be seen.
 *
 * @example
 * const breathe = eventLoopYielder();
 * for (let t = 1; t <= T; t++) { await breathe(); … }
 */
export function eventLoopYielder(): () => Promise<void> {
  let last = performance.now();
  return async () => {
    if (performance.now() - last > YIELD_EVERY_MS) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      last = performance.now();
    }
  };
}

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
  const bias = learner.bias;
  const fValBiased = val && bias ? new Float64Array(val.nPoints) : undefined;
  let f = new Float64Array(0);
  let w = new Float64Array(0);
  let metric: Progress['metric'];
  const breathe = eventLoopYielder();
  try {
    for (let t = 1; t <= T; t++) {
      await breathe();
      if (opts.signal?.aborted) throw new CancelledError(`training cancelled after ${t - 1} of ${T} iterations`);
      const batch = learner.sample(rng, t);
      if (f.length < batch.nPoints) {
        f = new Float64Array(batch.nPoints);
        w = new Float64Array(batch.nPoints);
      }
      await evaluator.evaluate(batch.X, batch.nPoints, f);
      if (bias) for (let p = 0; p < batch.nPoints; p++) f[p] += bias.value;
      learner.weights(f, w);
      const eta = stepAt(learner.step, t);
      const alpha = ops.project(rf, t - 1, batch.X, batch.nPoints, w, evaluator.frequencies);
      for (let j = 0; j < alpha.length; j++) alpha[j] *= -eta;
      const factor = 1 - eta * learner.lambda;
      history.shrink(factor);
      history.append(alpha);
      bias?.update(eta, f, w, batch.nPoints);
      if (val && fVal) {
        for (let p = 0; p < val.nPoints; p++) fVal[p] *= factor;
        ops.accumulate(rf, t - 1, alpha, val.X, val.nPoints, fVal, evaluator.frequencies);
        if (t % val.every === 0 || t === T) {
          let values = fVal;
          if (bias && fValBiased) {
            for (let p = 0; p < val.nPoints; p++) fValBiased[p] = fVal[p] + bias.value;
            values = fValBiased;
          }
          const value = val.metric(values);
          trace.push([t, value]);
          metric = { name: val.name, value, t };
        }
      }
      if (opts.onIteration) await opts.onIteration(t, history, evaluator);
      opts.onProgress?.({ t, T, elapsedMs: performance.now() - start, ...(metric ? { metric } : {}) });
    }
    let b = bias?.value;
    if (bias?.final) {
      const { X, nPoints } = bias.final;
      b = bias.final.bias(await evaluator.evaluate(X, nPoints, new Float64Array(nPoints)));
    }
    return { history, trace, elapsedMs: performance.now() - start, ...(b !== undefined ? { bias: b } : {}) };
  } finally {
    await evaluator.close();
  }
}
