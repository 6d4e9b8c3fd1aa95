/**
 * `tune`'s fold fits on worker threads, one whole fit per thread: for the
 * rounds of a search that run many short fits (the halving's first rounds:
 * 396 fits of 10 iterations for QSG-S2AUC's 132 settings on 3 folds), where an
 * engine call is too small to split between threads (below
 * `parallelMinWork`) and splitting every call would leave the threads
 * waiting on each other. Each worker runs tune's own fold fit
 * (`runFold`, workers/tune-fit.ts) on one thread, continues from and returns
 * the continuation state as a {@link LoopStateRecord}, so the next round —
 * here or on the calling thread with the engine's threads — continues it.
 *
 * A fit's arithmetic does not depend on the thread it runs on, nor on how
 * many threads its engine calls use, so the CV table, the winner and the
 * refit model are the same bytes whichever way a round runs.
 *
 * The folds' rows go to the workers once (workerData), in shared memory
 * (tune scales the training rows there): a worker maps them, it does not
 * copy them. Each worker keeps a frequency store per feature map within its
 * share of the run's cache budget.
 *
 * On 2 cores, `dsgkit tune` on spam's 200-labeled split: TSGS3VM 0.89× the
 * wall time of splitting every call (96 settings, its first rounds' fits are
 * short), QSG-S2AUC 0.99× (on its former 72 settings), then 0.95× / 0.96× with the defaults' reference
 * beside the last round, at about 50 MiB more peak memory a thread
 * (docs/tuning.md § Threads). Where cores are many the first rounds should
 * gain most: their calls are too small to split, so without this they ran
 * on one core (not yet measured on such a machine).
 */
import { setMaxListeners } from 'node:events';
import { Piscina } from 'piscina';
import type { Dataset } from './data/dataset.ts';
import { DEFAULT_CACHE_BYTES, type EvaluatorOptions } from './engine/evaluator.ts';
import { NO_REQUIRE_ESM } from './engine/pool.ts';
import { workerLocation } from './engine/worker-location.ts';
import { CancelledError } from './errors.ts';
import { reviveError, type SerializedError } from './thread-errors.ts';
import { continuationCost, type HalvingStep } from './coordinator/successive-halving.ts';
import { loopStateRecord, restoreLoopState, type LoopStateRecord } from './coordinator/loop-state-record.ts';
import type { FitState } from './learners/spec.ts';
import type { FitSetup, FoldOutcome, RoundFits, TuneMeter, TunePlan } from './tune.ts';
import type { ShareCounts } from './coordinator/tune-rules.ts';

/**
 * Fits a round must have per thread to run as whole fits on the threads: with
 * at least two each, the last fits to finish leave a thread idle for at most
 * a third of the round, where splitting each short fit's calls costs more.
 * Rounds with fewer (the last round's few settings at T, with or without the
 * defaults' reference) split each fit's engine calls between the threads instead.
 */
export const FITS_PER_THREAD = 2;

/**
 * Whether a round of `fits` fold fits runs them whole on worker threads
 * ({@link FITS_PER_THREAD} or more a thread) rather than one after another
 * with every engine call split between `threads` threads.
 *
 * @example
 * fitsOnThreads(216, 2); // true
 * fitsOnThreads(3, 2);   // false: three fits at T split their calls instead
 */
export function fitsOnThreads(fits: number, threads: number): boolean {
  return threads > 1 && fits >= FITS_PER_THREAD * threads;
}

/** Fold fits run on fit threads by this thread so far: how tests prove a round ran there. */
let fitThreadTasks = 0;

/**
 * Fold fits this thread's `tune` runs have had done on fit threads, since it started.
 *
 * @example
 * const before = fitThreadTasksCompleted();
 * await tune({ learner: 'dsg', data, threads: 2 });
 * fitThreadTasksCompleted() > before; // true: the first rounds' many fits ran on the threads
 */
export function fitThreadTasksCompleted(): number {
  return fitThreadTasks;
}

/** What every fit of a search shares, as the workers get it (workerData): the fold fits' setup with the rows in shared memory, and the engine settings. */
export interface FitThreadsSetup extends FitSetup {
  /** The engine settings tune was given, and each worker's share of the frequency-store budget. */
  readonly engine: Pick<EvaluatorOptions, 'cacheBytes' | 'parallelMinWork'>;
}

/** One fit: candidate `c` on fold `j` to iteration `to`, from `start` (a continuation) or from scratch. */
export interface FitUnit {
  readonly c: number;
  readonly j: number;
  readonly to: number;
  readonly start?: LoopStateRecord;
}

/** A fit's outcome: tune's {@link FoldOutcome} and, for a learner that continues, the state it reached. */
export interface FitUnitResult extends FoldOutcome {
  readonly state?: LoopStateRecord;
}

/** `a` in shared memory: itself when it is there already (the scaled rows, tune.ts), else a copy (once per array: `memo`). */
function shared<A extends Float64Array | Uint8Array>(a: A, memo: Map<unknown, unknown>): A {
  if (a.buffer instanceof SharedArrayBuffer) return a;
  let copy = memo.get(a) as A | undefined;
  if (copy === undefined) {
    const Ctor = a.constructor as new (buffer: SharedArrayBuffer) => A;
    copy = new Ctor(new SharedArrayBuffer(a.byteLength));
    copy.set(a);
    memo.set(a, copy);
  }
  return copy;
}

/** `ds` with its arrays in shared memory (the folds share their training rows' X: one copy). */
function sharedDataset(ds: Dataset, memo: Map<unknown, unknown>): Dataset {
  return { ...ds, X: shared(ds.X, memo), y: shared(ds.y, memo), labeled: shared(ds.labeled, memo) };
}

/**
 * A pool of threads that each run whole fold fits of one search.
 *
 * @example
 * const threads = FitThreads.start(plan, fitSetupOf(plan));
 * const { scores, outOfFold } = await threads.round(plan, step, roundFolds(plan, step.t), states, meter);
 * await threads.close();
 */
export class FitThreads {
  private constructor(private readonly piscina: Piscina) {}

  /** Starts `plan.threads` workers with the search's fold fits (`fits`: tune.ts `fitSetupOf(plan)`). */
  static start(plan: Pick<TunePlan, 'threads' | 'opts'>, fits: FitSetup): FitThreads {
    const memo = new Map<unknown, unknown>();
    const o = plan.opts;
    const setup: FitThreadsSetup = {
      ...fits,
      folds: fits.folds.map((f) => ({ train: sharedDataset(f.train, memo), validation: sharedDataset(f.validation, memo) })),
      engine: {
        cacheBytes: Math.floor((o.cacheBytes ?? DEFAULT_CACHE_BYTES) / plan.threads),
        ...(o.parallelMinWork !== undefined ? { parallelMinWork: o.parallelMinWork } : {}),
      },
    };
    const { url, execArgv } = workerLocation('tune-fit');
    const piscina = new Piscina({
      filename: url.href,
      execArgv: [...execArgv, ...NO_REQUIRE_ESM],
      minThreads: plan.threads,
      maxThreads: plan.threads,
      concurrentTasksPerWorker: 1,
      idleTimeout: 60_000,
      workerData: setup,
    });
    // A worker that dies between tasks: the next task on it rejects; the event must not be an uncaught exception.
    piscina.on('error', () => {});
    return new FitThreads(piscina);
  }

  /**
   * Runs a round's (candidate, fold) fits on the threads; each candidate's
   * fold scores and out-of-fold values as tune's own round gives them, and
   * the states reached in `states` (a learner that continues).
   */
  async round(plan: TunePlan, current: HalvingStep, used: readonly number[], states: Array<Array<FitState | undefined>>, meter: Pick<TuneMeter, 'done' | 'report'>): Promise<RoundFits> {
    const { folds, spec, opts } = plan;
    const continues = spec.capabilities.continues;
    const scores = current.run.map(() => new Array<number>(folds.length).fill(NaN));
    const outOfFold = current.run.map(() => folds.map((): Float64Array => new Float64Array(0)));
    const shares = current.run.map(() => folds.map((): ShareCounts | undefined => undefined));
    // The first fit that fails stops the round's others (queued ones never start, running ones' threads end).
    const stop = new AbortController();
    // Each of the round's fits listens on it while queued or running (Piscina): not a leak.
    setMaxListeners(current.run.length * used.length + 1, stop.signal);
    const cancel = () => stop.abort();
    opts.signal?.addEventListener('abort', cancel, { once: true });
    let failure: { error: unknown } | undefined;
    const fits = current.run.flatMap((c, i) => used.map(async (j) => {
      const start = states[c][j];
      const unit: FitUnit = { c, j, to: current.t, ...(start ? { start: loopStateRecord(start) } : {}) };
      let outcome: FitUnitResult | { error: SerializedError };
      try {
        outcome = (await this.piscina.run(unit, { signal: stop.signal, ...(unit.start ? { transferList: [unit.start.stored.buffer as ArrayBuffer] } : {}) })) as FitUnitResult | { error: SerializedError };
      } catch (err) {
        if (stop.signal.aborted) return; // cancelled, or stopped by another fit's failure
        // The thread died (out of memory, killed): the fit's own errors come back as records.
        failure ??= { error: new Error(`tune: the thread of candidate ${c}'s fit on fold ${j} failed: ${err instanceof Error ? err.message : String(err)}`, { cause: err }) };
        stop.abort();
        return;
      }
      if ('error' in outcome) {
        failure ??= { error: reviveError(outcome.error) };
        stop.abort();
        return;
      }
      fitThreadTasks++;
      scores[i][j] = outcome.score;
      outOfFold[i][j] = outcome.f;
      shares[i][j] = outcome.shares;
      if (continues) states[c][j] = outcome.state ? restoreLoopState(outcome.state) : undefined;
      meter.done += continues ? continuationCost(start?.history.t ?? 0, current.t) : 1;
      meter.report();
    }));
    try {
      // Every fit settles before the round ends, so none runs on into the next round.
      await Promise.all(fits);
    } finally {
      opts.signal?.removeEventListener('abort', cancel);
    }
    if (failure) throw failure.error;
    if (opts.signal?.aborted) throw new CancelledError(`tuning cancelled in round ${current.round}`);
    return { scores, outOfFold, shares };
  }

  /** Stops the workers. */
  async close(): Promise<void> {
    await this.piscina.destroy();
  }
}
