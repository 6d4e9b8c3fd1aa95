/**
 * The shared training loop of every random-feature learner (ALGORITHMS.md):
 * sample → evaluate f on the engine → weights → new block → shrink the past.
 * Learner-agnostic; runs on the calling thread (the coordinator) while the
 * engine's workers evaluate the history. Batch t + 1 is drawn during
 * iteration t (a draw depends on the stream and t alone), and the workers
 * evaluate it over the older blocks — or add block t − 2 to the row cache,
 * which stays a block behind — while the calling thread builds block t − 1
 * and finishes iteration t: the same bits as the steps one after another.
 */
import seedrandom from 'seedrandom';
import { CancelledError } from '../errors.ts';
import { BlockOps } from '../engine/block-ops.ts';
import { Evaluator, type EvaluatorOptions } from '../engine/evaluator.ts';
import { History } from '../engine/history.ts';
import { measureKernelRate, RunProfile, type ProfileReport } from '../engine/profile.ts';
import { RowCache } from '../engine/row-cache.ts';
import { familyOf, type RandomFeatures } from '../engine/random-features.ts';
import type { Batch, DsgLearner, LearnerBias } from './learner.ts';
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

/** The sampling stream's state (seedrandom's alea: three doubles and a counter): with `t`, all a run needs to continue. */
export type SamplingState = seedrandom.State.Alea;

/** The sampling stream of a run, whose state can be saved and restored. */
export type SamplingRng = seedrandom.StatefulPRNG<SamplingState>;

/**
 * What continuing a run needs besides its history: the sampling stream's state
 * after iteration t and, for a learner with a bias, the bias the loop was
 * running with (not the model's final b).
 */
export interface LoopState {
  readonly rng: SamplingState;
  readonly bias?: number;
}

/** Where a continued run starts: its history so far (t = history.t) and the run's state after iteration t. */
export interface LoopStart extends LoopState {
  readonly history: History;
}

/**
 * How the loop gets f at each batch: `history` evaluates the whole history at
 * the batch's points (O(t·B) point-blocks at iteration t, O(T²B) in all);
 * `rows` keeps f at every row the learner draws from and adds each new block
 * there (O(n) an iteration, O(nT) in all; see row-cache.ts); `auto` picks the
 * one with less predicted work. Both sum in the same order, so they give the
 * same model, bit for bit, on any number of threads: the choice is speed only.
 */
export type Evaluation = 'history' | 'rows' | 'auto';

/** The strategies a run can use (what `auto` resolves to). */
export const EVALUATIONS = ['history', 'rows', 'auto'] as const satisfies readonly Evaluation[];

/**
 * Predicted work of a run to T under each strategy, in point-blocks (one
 * block's features at one point): the history evaluates `(t − 1)·B` at
 * iteration t, `B·T(T−1)/2` in all; the row cache adds one block at every
 * sampled row, `n·T` (a continued run rebuilds the first t₀ blocks, so the
 * total is `n·T` from wherever it starts). Both over the whole run 1…T, so a
 * continued run resolves `auto` as the run to T at once does.
 *
 * @example
 * evaluationWork(learner, 400); // { history: 15_321_600, rows: 1_472_400 } on spam
 */
export function evaluationWork(learner: DsgLearner, T: number): { history: number; rows: number | undefined } {
  const sampled = learner.sampledRows;
  const B = sampled?.batchPoints;
  return { history: B !== undefined ? (B * T * (T - 1)) / 2 : Infinity, rows: sampled !== undefined ? sampled.count * T : undefined };
}

/**
 * The strategy a run to T uses: `history` or `rows` as asked (rows needs a
 * learner that declares its sampled rows), or for `auto` the one with less
 * predicted work ({@link evaluationWork}); ties go to the history.
 *
 * @example
 * resolveEvaluation(learner, 400, 'auto'); // 'rows' on spam (n = 3,681 rows, B = 192)
 */
export function resolveEvaluation(learner: DsgLearner, T: number, requested: Evaluation = 'auto'): 'history' | 'rows' {
  if (requested === 'history') return 'history';
  const work = evaluationWork(learner, T);
  if (requested === 'rows') {
    if (work.rows === undefined) throw new RangeError(`${learner.name} does not draw its batches from dataset rows; it cannot keep f at every row (evaluation 'rows')`);
    return 'rows';
  }
  return work.rows !== undefined && work.rows < work.history ? 'rows' : 'history';
}

/** Options of {@link runLoop}. */
export interface LoopOptions {
  readonly features: RandomFeatures;
  /** Iterations (blocks) T. */
  readonly T: number;
  /** Continue a run from here (iteration history.t + 1 on) instead of starting from nothing. */
  readonly start?: LoopStart;
  readonly engine?: EvaluatorOptions;
  readonly onProgress?: (p: Progress) => void;
  /**
   * Called after iteration t with the history as it stands and the sampling
   * stream's state after iteration t (what continuing from t needs: the
   * run has usually drawn batch t + 1 by then); convergence studies,
   * checkpoints. The history is the run's own, which goes on growing: copy
   * what must outlive the call. `bias` is the learner's.
   */
  readonly onIteration?: (t: number, history: History, evaluator: Evaluator, rng: SamplingState, bias: LearnerBias | undefined) => void | Promise<void>;
  readonly signal?: AbortSignal;
  readonly validation?: Validation;
  /** How f at each batch is obtained (default `auto`, see {@link resolveEvaluation}); never changes the model. */
  readonly evaluation?: Evaluation;
  /** Record where the time goes (see profile.ts); the result then has its report. Never changes the model. */
  readonly profile?: boolean;
}

/** What a run produced. */
export interface LoopResult {
  readonly history: History;
  /** The final bias `b` of `f(x) + b`, when the learner has one. */
  readonly bias?: number;
  /** The bias the loop was running with after the last iteration (what continuing needs), when the learner has one. */
  readonly runningBias?: number;
  /** Validation metric trace `[t, value]`. */
  readonly trace: Array<[number, number]>;
  readonly elapsedMs: number;
  /** The sampling stream's state after the last iteration (what continuing needs, with history.t). */
  readonly rng: SamplingState;
  /** The strategy the run used for f at the batches. */
  readonly evaluation: 'history' | 'rows';
  /** Where the time went, when asked for. */
  readonly profile?: ProfileReport;
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
 * The sampling stream of a run: seeded by the model seed, separate from the
 * feature seeds; or, given a saved state, the stream continued from it.
 *
 * @example
 * const rng = samplingRng(42);
 * const again = samplingRng(42, rng.state()); // draws what rng draws next
 */
export function samplingRng(seed: number, state?: SamplingState): SamplingRng {
  return state !== undefined ? seedrandom.alea('', { state }) : seedrandom.alea(`dsgkit-sampling:${seed}`, { state: true });
}

/**
 * The model's bias `b` from a learner's bias as the run stands: the bias's
 * `final` rule applied to f at its rows (e.g. the class balance over
 * unlabeled rows) — read from `cache` when the run keeps f there, else
 * evaluated on the history — else its running value; undefined without a bias.
 *
 * @example
 * const b = await modelBias(learner.bias, evaluator);
 */
export async function modelBias(bias: LearnerBias | undefined, evaluator: Evaluator, cache?: RowCache): Promise<number | undefined> {
  if (bias?.final === undefined) return bias?.value;
  const { X, nPoints, rows } = bias.final;
  // The cache holds f at the learner's rows, up to date, the same bits as the history gives.
  if (cache && rows) return bias.final.bias(cache.read(rows, nPoints, evaluator.rowFactor(), new Float64Array(nPoints)));
  return bias.final.bias(await evaluator.evaluate(X, nPoints, new Float64Array(nPoints)));
}

/**
 * Runs the doubly stochastic loop for `learner` up to iteration `T`: from
 * nothing, or from `start` (a run stopped at t = start.history.t, continued to
 * T with its sampling stream restored — the same bits as running to T at once,
 * because the chunk layout does not depend on T, see chunks.ts).
 * Iteration `t` (1-based) adds block `t − 1` (0-based in the history).
 *
 * @example
 * const { history, rng } = await runLoop(learner, { features: rf, T: 500, engine: { threads: 4 } });
 * const more = await runLoop(learner, { features: rf, T: 800, start: { history, rng } });
 */
export async function runLoop(learner: DsgLearner, opts: LoopOptions): Promise<LoopResult> {
  const { features: rf, T } = opts;
  if (!Number.isInteger(T) || T < 1) throw new RangeError(`T (iterations) must be a positive integer, got ${T}`);
  if (learner.d !== rf.d) throw new RangeError(`learner has d = ${learner.d}, features have d = ${rf.d}`);
  const from = opts.start?.history;
  if (from !== undefined && (from.m !== rf.m || from.t > T)) throw new RangeError(`cannot continue a history of ${from.t} blocks of m = ${from.m} to T = ${T} with m = ${rf.m}`);
  const history = from !== undefined ? from.copy(T) : new History({ m: rf.m, capacity: T });
  const profile = opts.profile ? new RunProfile() : undefined;
  const evaluator = new Evaluator(history, rf, { ...opts.engine, ...(profile ? { profile } : {}) });
  // Timing marks: free when the run is not profiled.
  const now = profile ? () => performance.now() : () => 0;
  const ops = new BlockOps();
  const rng = samplingRng(rf.seed, opts.start?.rng);
  if (opts.start?.bias !== undefined) {
    if (!learner.bias) throw new RangeError('a start with a bias needs a learner with one');
    learner.bias.restore(opts.start.bias);
  } else if (opts.start && learner.bias) throw new RangeError("continuing a learner with a bias needs the run's bias");
  const evaluation = resolveEvaluation(learner, T, opts.evaluation);
  const cache = evaluation === 'rows' ? new RowCache({ d: rf.d, rows: learner.sampledRows!.rows(), copyRow: learner.sampledRows!.copyRow }) : undefined;
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
  /**
   * Batches drawn ahead, oldest first, each with the stream's state before its draw: during
   * iteration t, batch t + 1 (while the workers add a block to the row cache, or before the call
   * that evaluates it over the history) and, evaluating the history, batch t + 2 during that call.
   * A learner's batch stays valid through its next draw (DsgLearner.sample), and no batch is drawn
   * while one two draws older is still needed.
   */
  const ahead: Array<{ batch: Batch; before: SamplingState | undefined }> = [];
  /** f at batch t + 1, and whether `f` already holds f at batch t (evaluated during iteration t − 1). */
  let fNext = new Float64Array(0);
  let ready = false;
  try {
    // A continued run's validation values start from f over the blocks it already has.
    if (val && fVal && history.t > 0) await evaluator.evaluate(val.X, val.nPoints, fVal);
    // A continued run's cache starts as the sum of the blocks it already has.
    if (cache) await evaluator.updateRows(cache);
    for (let t = history.t + 1; t <= T; t++) {
      await breathe();
      if (opts.signal?.aborted) throw new CancelledError(`training cancelled after ${t - 1} of ${T} iterations`);
      let t0 = now();
      const batch = ahead.shift()?.batch ?? learner.sample(rng, t);
      if (f.length < batch.nPoints) f = new Float64Array(batch.nPoints);
      if (w.length < batch.nPoints) w = new Float64Array(batch.nPoints);
      let t1 = now();
      profile?.add('sampling', t1 - t0);
      let waited = profile?.phase('workers') ?? 0;
      if (!ready) {
        if (cache) evaluator.readRows(cache, batch.rows, batch.X, batch.nPoints, f);
        else await evaluator.evaluate(batch.X, batch.nPoints, f);
      }
      ready = false;
      if (bias) for (let p = 0; p < batch.nPoints; p++) f[p] += bias.value;
      t0 = now();
      // The evaluator records its waits on the pool; the rest of the step is the calling thread's.
      profile?.add('evaluation', t0 - t1 - (profile.phase('workers') - waited));
      learner.weights(f, w, batch);
      const eta = stepAt(learner.step, t);
      const factor = 1 - eta * learner.lambda;
      profile?.add('weights', now() - t0);
      let alpha: Float64Array = new Float64Array(0);
      /** Block t − 1 from batch t's points `X` and weights, then the past shrunk and the block appended. */
      const addBlock = (X: Float64Array): void => {
        const b0 = now();
        alpha = ops.project(rf, t - 1, X, batch.nPoints, w, evaluator.frequencies);
        for (let j = 0; j < alpha.length; j++) alpha[j] *= -eta;
        if (profile) profile.pointBlocks += batch.nPoints;
        const b1 = now();
        profile?.add('newBlock', b1 - b0);
        history.shrink(factor);
        history.append(alpha);
        profile?.add('shrinkAppend', now() - b1);
      };
      /** The rest of iteration t: it needs neither the row cache nor the history's stored blocks. */
      const alongside = (): void => {
        const a0 = now();
        bias?.update(eta, f, w, batch.nPoints);
        const mark = now();
        profile?.add('weights', mark - a0);
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
          if (profile) profile.pointBlocks += val.nPoints;
          profile?.add('validation', now() - mark);
        }
        // Batch t's points and weights are used up; a draw depends on the stream and its t alone.
        if (cache && t < T) drawTo(t + 1);
      };
      /** Draws the batches up to `k` not drawn yet, each with the stream's state before it; returns batch `k`. */
      const drawTo = (k: number): Batch => {
        const d0 = now();
        while (t + ahead.length < k) ahead.push({ before: opts.onIteration ? rng.state() : undefined, batch: learner.sample(rng, t + ahead.length + 1) });
        profile?.add('sampling', now() - d0);
        return ahead[k - t - 1].batch;
      };
      /** Runs `work` on the calling thread during an engine call and books that call's own time as evaluation. */
      const during = async (call: (work: () => void) => Promise<unknown>, work: () => void): Promise<void> => {
        const c0 = now();
        waited = profile?.phase('workers') ?? 0;
        let workMs = 0;
        await call(() => {
          const w0 = now();
          work();
          workMs = now() - w0;
        });
        profile?.add('evaluation', now() - c0 - (profile.phase('workers') - waited) - workMs);
      };
      // Overlap the new block with the call unless it is the last iteration or the shrink rewrites the stored blocks.
      const alongsideCall = t < T && history.shrinkIsLazy(factor);
      if (cache && alongsideCall) {
        // The workers add the block before (t − 2) at every row while the calling thread builds block t − 1,
        // finishes iteration t, draws batch t + 1 and computes block t − 1 there; then it reads f at batch
        // t + 1 from the cache plus those values. The cache stays a block behind until the last iteration.
        await during((work) => evaluator.updateRows(cache, work), () => {
          addBlock(batch.X);
          alongside();
          // Block t − 1 at batch t + 1 now, not after the call: the read below then only adds it.
          const e0 = now();
          evaluator.newestAhead(ahead[0].batch.X, ahead[0].batch.nPoints);
          profile?.add('evaluation', now() - e0);
        });
        const drawn = ahead[0].batch;
        if (fNext.length < drawn.nPoints) fNext = new Float64Array(drawn.nPoints);
        t0 = now();
        evaluator.readRows(cache, drawn.rows, drawn.X, drawn.nPoints, fNext);
        profile?.add('evaluation', now() - t0);
        [f, fNext] = [fNext, f];
        ready = true;
      } else if (cache) {
        // The calling thread finishes iteration t, and draws batch t + 1, while the workers add block t − 1 at every row.
        addBlock(batch.X);
        await during((work) => evaluator.updateRows(cache, work), alongside);
      } else if (alongsideCall) {
        // The workers evaluate batch t + 1 (drawn during the last call, or now) over the blocks
        // before t − 1 while the calling thread builds block t − 1 from batch t, finishes iteration
        // t and draws batch t + 2 (batch t is then used up); then it adds the chunk block t − 1 falls in.
        const drawn = drawTo(t + 1);
        if (fNext.length < drawn.nPoints) fNext = new Float64Array(drawn.nPoints);
        await during((work) => evaluator.evaluateAppending(drawn.X, drawn.nPoints, fNext, 1, work), () => {
          addBlock(batch.X);
          alongside();
          if (t + 2 <= T) drawTo(t + 2);
        });
        [f, fNext] = [fNext, f];
        ready = true;
      } else {
        addBlock(batch.X);
        alongside();
      }
      // The stream's state after iteration t: before batch t + 1 was drawn.
      if (opts.onIteration) await opts.onIteration(t, history, evaluator, ahead.length > 0 ? ahead[0].before! : rng.state(), bias);
      opts.onProgress?.({ t, T, elapsedMs: performance.now() - start, ...(metric ? { metric } : {}) });
    }
    const loopMs = performance.now() - start;
    const b = await modelBias(bias, evaluator, cache);
    return {
      history,
      trace,
      elapsedMs: performance.now() - start,
      rng: rng.state(),
      ...(profile ? { profile: profile.report(loopMs, evaluator.threads, T - (from?.t ?? 0), measureKernelRate(rf.d, rf.m, undefined, familyOf(rf))) } : {}),
      evaluation,
      ...(b !== undefined ? { bias: b, runningBias: bias!.value } : {}),
    };
  } finally {
    await evaluator.close();
  }
}
