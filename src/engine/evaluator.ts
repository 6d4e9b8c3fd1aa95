/**
 * Evaluates `f` over a whole coefficient history at a batch of points: step 2
 * of every iteration, the O(t) part. One engine for both kinds of history
 * (scaled-history.ts): `f(x) = Σ_i α_i·φ_i(x)` over random-feature blocks
 * ({@link Evaluator}) and `f(x) = Σ_e β_e K(x_{r_e}, x)` over support-vector
 * entries ({@link SupportVectorEvaluator} in sv-evaluator.ts).
 *
 * The history is cut into fixed chunks of items (see chunks.ts); each chunk's
 * partial sum is computed by one thread — a worker or the calling thread,
 * which takes a share of every parallel call and all of a small one — and the
 * partial sums are added in chunk order. The result is the same bits for any
 * thread count.
 */
import { ChunkRunner, riderUnits, type EngineTask, type EvalTask, type RffTask, type RowsRider, type RowsTask, type SvTask, type TaskCommon } from './chunk-runner.ts';
import type { RunProfile } from './profile.ts';
import { chunkSpan, DEFAULT_CHUNK_SIZE, reduceChunks, slicesFor } from './chunks.ts';
import type { History } from './history.ts';
import { defaultThreads, EvaluatorPool } from './pool.ts';
import { FrequencyStore, type FrequencyStores } from './frequency-store.ts';
import { checkRandomFeatures, familyOf, sameFeatures, type RandomFeatures } from './random-features.ts';
import { opensChunk, type RowCache } from './row-cache.ts';
import { heldTransformPoints, type RffKernel } from './kernel.ts';
import { shelveKernel, takeKernel } from './kernel-shelf.ts';
import { sorfGroupBlocks } from '../features/spectral.ts';
import type { ScaledHistory } from './scaled-history.ts';
import { MAX_UNITS } from './work-board.ts';

/**
 * Below this much work (items × points × work per item and point; for blocks
 * m·(d + 8)) a call runs on the calling thread alone: handing a share to the
 * pool costs waking the workers and waiting for the last unit (≈ 0.1 ms on
 * the 2-core machine, bench/dispatch.ts) that the split does not win back. Measured by `bench/crossover.ts` on the 2-core development machine
 * (m = 64, d = 28): from 96 points × 16 blocks (work 3.5e6) on, calling thread
 * + pool beat the calling thread alone (0.51 ms against 0.70 ms); below about
 * 2e6 they do not. A call that covers a single chunk stays on the calling
 * thread unless its points can be cut into slices (`slicesFor`, chunks.ts).
 */
export const DEFAULT_PARALLEL_MIN_WORK = 3_000_000;

/**
 * Default frequency-store budget: 256 MiB holds every block of, e.g., T = 2,000
 * blocks of m = 128 features in d = 128 dimensions; beyond it blocks are
 * regenerated, as in the papers. Regenerating costs about as much as a third
 * of the evaluation at d = 30 (bench/scaling.ts measures both).
 */
export const DEFAULT_CACHE_BYTES = 256 * 2 ** 20;

/** Fewest cached rows in one unit of a parallel row-cache update (a unit is one thread's claim on the work board). */
export const MIN_ROWS_PER_UNIT = 64;

/** Units per thread a parallel row-cache update is cut into: enough that a thread left behind is caught up by the others. */
export const ROW_UNITS_PER_THREAD = 16;

/**
 * Rows per unit of a parallel update of `n` cached rows on `parts` threads:
 * about {@link ROW_UNITS_PER_THREAD} units per thread, at least
 * {@link MIN_ROWS_PER_UNIT} rows, a multiple of 4 (the kernel's point tile) —
 * but never so many that a thread would have no unit of its own. Never
 * changes a value (a row's sum does not depend on who computes it).
 *
 * @example
 * rowGrain(50_000, 2); // 1564
 * rowGrain(21, 2);     // 10
 */
export function rowGrain(n: number, parts: number): number {
  const grain = Math.ceil(Math.max(MIN_ROWS_PER_UNIT, Math.ceil(n / (parts * ROW_UNITS_PER_THREAD))) / 4) * 4;
  return Math.max(1, Math.min(grain, Math.floor(n / parts)));
}

/** Range indices (chunks, or point slices) per unit of a parallel call over `chunks` of them: one, unless there are more than a board has units. */
function chunkGrain(chunks: number): number {
  return Math.max(1, Math.ceil(chunks / MAX_UNITS));
}

/**
 * Threads a call of `work` (in {@link DEFAULT_PARALLEL_MIN_WORK} units) that
 * can be cut into `parts` is split over, out of `threads`: 1 below the
 * threshold or with fewer than 2 parts, else as many as there are parts.
 *
 * @example
 * callThreads(5e6, 40, 8);  // 8
 * callThreads(1e6, 40, 8);  // 1 (below the threshold)
 */
export function callThreads(work: number, parts: number, threads: number, parallelMinWork = DEFAULT_PARALLEL_MIN_WORK): number {
  return threads === 1 || parts < 2 || work < parallelMinWork ? 1 : Math.min(threads, parts);
}

/** How a history call is split: its threads and the point slices per chunk. */
export interface ChunkSplit {
  readonly parts: number;
  readonly slices: number;
}

/**
 * How a call of `work` over `chunks` chunks at `nPoints` points is split on
 * `threads`: the threads it uses ({@link callThreads}, counting each chunk's
 * point slices as parts, so a short history can still use every thread) and
 * the slices per chunk (`slicesFor`, chunks.ts: more than one where the chunks
 * alone would give the threads too few units). One thread: no slices. The
 * evaluator's policy, and the efficiency model's (bench/efficiency-model.ts).
 *
 * @example
 * chunkSplit(5e6, 2, 192, 8);   // { parts: 8, slices: 4 }
 * chunkSplit(5e6, 100, 192, 2); // { parts: 2, slices: 1 }
 */
export function chunkSplit(work: number, chunks: number, nPoints: number, threads: number, parallelMinWork = DEFAULT_PARALLEL_MIN_WORK): ChunkSplit {
  const most = threads > 1 ? slicesFor(chunks, nPoints, threads) : 1;
  const parts = callThreads(work, chunks * most, threads, parallelMinWork);
  return { parts, slices: parts > 1 ? slicesFor(chunks, nPoints, parts) : 1 };
}

/**
 * Work a call of {@link HistoryEvaluator.evaluateAppending} takes along: a
 * cache of rows brought up to date in the same call ({@link Evaluator.rowsRider}).
 */
export interface TaskRider {
  /** The fields that add, during a call on `parts` threads, the blocks the cache lacks before the append. */
  fields(parts: number): RowsRider;
  /** Run on the calling thread during that call, right after the append. */
  alongside(): void;
  /** After the call: the cache covers the blocks the fields added. */
  done(): void;
  /** Instead of all three, when the call runs on the calling thread alone: after the append. */
  alone(): void;
}

/** How a history evaluator of either kind runs. None of these options changes a result except `chunkSize`. */
export interface EngineOptions {
  /**
   * Evaluation threads, the calling thread included: a parallel call is split
   * into `threads` runs of chunks (work-board.ts), the calling thread computes
   * the first while a pool of `threads − 1` workers computes the others, and
   * each thread then takes chunks the others have not reached. 1 = the
   * calling thread only. Default: available cores.
   */
  threads?: number;
  /** Items (blocks or entries) per chunk. Part of the model's arithmetic (summation order): keep it fixed for reproducible bits. Default: per kind. */
  chunkSize?: number;
  /** Work below which a call stays on the calling thread. */
  parallelMinWork?: number;
  /** An existing pool to use (not closed by this evaluator); `threads` is then its size + 1. */
  pool?: EvaluatorPool;
  /** Where to record the time spent dispatching to and waiting for the pool, each worker's busy time and the point-blocks evaluated (see profile.ts). */
  profile?: RunProfile;
}

/** The kind-specific fields of a task (everything but the chunk range, points and results). */
export type KindFields = Omit<RffTask, keyof TaskCommon> | Omit<SvTask, keyof TaskCommon>;

/**
 * The shared engine: chunking, the pool, the split between the calling thread
 * and the workers, and the ordered reduction. A kind supplies its history, the
 * points' dimension, its task fields, the work of one item at one point and
 * the factor applied after the reduction besides the scale.
 *
 * @example
 * // through a kind:
 * const ev = new Evaluator(history, rf, { threads: 4 });
 * const f = await ev.evaluate(X, n);
 * ev.workerChunks; // chunks the pool's workers computed so far
 */
export abstract class HistoryEvaluator {
  readonly threads: number;
  readonly chunkSize: number;
  readonly parallelMinWork: number;
  /** Dimension of the points. */
  readonly d: number;
  private readonly evaluated: ScaledHistory;
  protected readonly runner = new ChunkRunner();
  /** Where timings go, when the run is profiled. */
  protected readonly profile: RunProfile | undefined;
  private pool: EvaluatorPool | undefined;
  private readonly ownsPool: boolean;
  private points = new SharedArrayBuffer(8);
  private results = new SharedArrayBuffer(8);
  protected readonly calls = { parallel: 0, workerChunks: 0, workerRows: 0 };

  protected constructor(history: ScaledHistory, d: number, defaultChunkSize: number, opts: EngineOptions) {
    this.evaluated = history;
    this.d = d;
    this.threads = opts.pool !== undefined ? opts.pool.threads + 1 : (opts.threads ?? defaultThreads());
    if (!Number.isInteger(this.threads) || this.threads < 1) throw new RangeError(`threads must be a positive integer, got ${this.threads}`);
    this.chunkSize = opts.chunkSize ?? defaultChunkSize;
    if (!Number.isInteger(this.chunkSize) || this.chunkSize < 1) throw new RangeError(`chunkSize must be a positive integer, got ${this.chunkSize}`);
    this.parallelMinWork = opts.parallelMinWork ?? DEFAULT_PARALLEL_MIN_WORK;
    this.profile = opts.profile;
    this.pool = opts.pool;
    this.ownsPool = opts.pool === undefined;
  }

  /** Calls so far that were split between the calling thread and the pool. */
  get parallelCalls(): number {
    return this.calls.parallel;
  }

  /** Chunks the pool's workers have computed so far (0 when every call stayed on the calling thread; a chunk cut into point slices counts by its slices' share, a rider's group of rows as a chunk). */
  get workerChunks(): number {
    return this.calls.workerChunks;
  }

  /** Cached rows the pool's workers have brought up to date so far (see {@link Evaluator.updateRows}). */
  get workerRows(): number {
    return this.calls.workerRows;
  }

  /** The kind's task fields for a call over the history as it stands. */
  protected abstract kindFields(): KindFields;

  /** Most points {@link evaluate} puts in one engine call (more go in several calls): unbounded but where a kind says otherwise. */
  protected pointsPerCall(): number {
    return Infinity;
  }

  /** Work of one item at one point, in the units of {@link DEFAULT_PARALLEL_MIN_WORK}. */
  protected abstract itemWork(): number;
  /** The factor applied to the reduced sums, from the global scale `s` (e.g. `s/√m`). */
  protected abstract outputFactor(scale: number): number;

  /**
   * `f` at `nPoints` rows of `X` (row-major, `d` per row) over the live items `[firstLive, t)`.
   * Uses the worker pool when the call is large enough and threads > 1.
   * The history must not change while a call is in flight.
   *
   * @example
   * const f = await ev.evaluate(batchX, 768);
   */
  async evaluate(X: Float64Array, nPoints: number, out: Float64Array = new Float64Array(nPoints)): Promise<Float64Array> {
    const step = this.pointsPerCall();
    if (nPoints > step) {
      // In calls of at most `step` points, each the bits the one call gives (a point's sum never depends on the others).
      const { d } = this;
      for (let p = 0; p < nPoints; p += step) {
        const n = Math.min(step, nPoints - p);
        await this.evaluate(X.subarray(p * d, (p + n) * d), n, out.subarray(p, p + n));
      }
      return out;
    }
    const plan = this.plan(X, nPoints);
    if (plan === undefined) return out.fill(0, 0, nPoints);
    const { chunkFrom, chunkTo } = plan.task;
    if (this.profile) this.profile.pointBlocks += (plan.task.lastBlock - plan.task.firstBlock) * nPoints;
    await this.runChunks(plan.task, this.chunkSplit(plan.work, chunkTo - chunkFrom, nPoints));
    return this.finish(plan.task, out);
  }

  /**
   * `f` at `nPoints` rows of `X` over the history as it will stand after
   * `append()` adds `items` more items: the bits {@link evaluate} gives when
   * called after `append()`. `append` runs exactly once on the calling thread
   * — while the pool's workers sum the chunks no new item falls in, when the
   * pool takes part, and then the calling thread sums the chunks it changed
   * — so a training loop builds its newest block while the workers evaluate
   * the next batch over the rest. `append` must add exactly `items` items and
   * change no stored value (no dropped items, no renormalisation: see
   * `ScaledHistory.shrinkIsLazy`); the call throws, after the workers finish,
   * if it did not or if it threw. `rider`: work the call takes along (the
   * hot rows' blocks, {@link Evaluator.rowsRider}), its rows split between
   * the threads with the chunks when the pool takes part.
   *
   * @example
   * await ev.evaluateAppending(next.X, next.nPoints, fNext, 1, () => { history.shrink(factor); history.append(alpha); });
   */
  async evaluateAppending(X: Float64Array, nPoints: number, out: Float64Array, items: number, append: () => void, rider?: TaskRider): Promise<Float64Array> {
    const h = this.evaluated;
    const { t, firstLive } = h;
    const renormalisations = h.renormalisations;
    if (!(Number.isInteger(items) && items >= 1)) throw new RangeError(`items must be a whole number ≥ 1, got ${items}`);
    let failure: { error: unknown } | undefined;
    const appendChecked = (): void => {
      try {
        append();
        if (h.t !== t + items || h.firstLive !== firstLive || h.renormalisations !== renormalisations) {
          throw new Error(`evaluateAppending: append must add ${items} item(s) and change no stored value (t ${t} → ${h.t}, first live ${firstLive} → ${h.firstLive}, renormalisations ${renormalisations} → ${h.renormalisations})`);
        }
      } catch (error) {
        failure = { error };
      }
    };
    // The calling thread alone: the append, then the cache update the rider stands for, then the whole task.
    const appendAlone = (): void => {
      appendChecked();
      if (!failure) rider?.alone();
      if (failure) throw failure.error;
    };
    const plan = this.plan(X, nPoints, t + items);
    if (plan === undefined) {
      appendAlone();
      return out.fill(0, 0, nPoints);
    }
    const { task } = plan;
    if (this.profile) this.profile.pointBlocks += (task.lastBlock - task.firstBlock) * nPoints;
    // Chunks before `changed` hold none of the new items: the workers sum them while append runs.
    const changed = Math.max(task.chunkFrom, Math.floor(t / this.chunkSize));
    const split = this.chunkSplit(plan.work, changed - task.chunkFrom, nPoints);
    if (split.parts === 1) {
      appendAlone();
      this.runner.run(task);
      return this.finish(task, out);
    }
    const riding = rider?.fields(split.parts);
    const settled: EvalTask = { ...task, chunkTo: changed, lastBlock: Math.min(task.lastBlock, changed * this.chunkSize), ...riding };
    await this.runChunks(settled, split, () => {
      appendChecked();
      if (failure) return;
      rider?.alongside();
      this.runner.run({ ...task, chunkFrom: changed });
    });
    if (riding) rider!.done();
    if (failure) throw failure.error;
    return this.finish(task, out);
  }

  /**
   * Runs a task on `parts` threads: all of it on the calling thread when
   * `parts` is 1, else through the pool's work board — its range (chunks or
   * rows) cut into units of `grain`, one run of units per thread, the calling
   * thread computing its run while the workers compute theirs, and every
   * thread then taking the units others have not reached. `meanwhile` (the
   * calling thread's own work, independent of the task) runs once: after the
   * task on one thread, or while the workers start on it. Returns the units
   * of range (chunks or rows) the workers did.
   */
  protected async runUnits(task: EngineTask, grain: number, parts: number, meanwhile?: () => void): Promise<number> {
    if (parts === 1) {
      this.runner.run(task);
      meanwhile?.();
      return 0;
    }
    const pool = this.ensurePool();
    const profile = this.profile;
    const t0 = profile ? performance.now() : 0;
    const report = await pool.call(task, grain, parts, this.runner, meanwhile);
    this.calls.parallel++;
    if (profile) {
      profile.add('workers', performance.now() - t0 - report.callerMs - report.meanwhileMs);
      for (const r of report.busy) profile.worker(r.thread, r.busyMs);
    }
    return report.workerUnits;
  }

  /** {@link chunkSplit} with this evaluator's threads and threshold. */
  private chunkSplit(work: number, chunks: number, nPoints: number): ChunkSplit {
    return chunkSplit(work, chunks, nPoints, this.threads, this.parallelMinWork);
  }

  /** Runs a task's chunks as {@link chunkSplit} says ({@link runUnits}), and books the workers' share in chunks. */
  private async runChunks(task: EvalTask, split: ChunkSplit, meanwhile?: () => void): Promise<void> {
    const { parts, slices: S } = split;
    const chunks = task.chunkTo - task.chunkFrom;
    // `slices` always set, even to 1, so the task's template does not change when the slicing does.
    const units = await this.runUnits({ ...task, slices: S }, chunkGrain(chunks * S + riderUnits(task)), parts, meanwhile);
    this.calls.workerChunks += units / S;
  }

  /** {@link callThreads} with this evaluator's threads and threshold. */
  protected threadsFor(work: number, parts: number): number {
    return callThreads(work, parts, this.threads, this.parallelMinWork);
  }

  /**
   * Stops the worker pool if this evaluator created it.
   *
   * @example
   * await ev.close();
   */
  async close(): Promise<void> {
    this.runner.release();
    if (this.ownsPool && this.pool !== undefined) await this.pool.close();
    this.pool = undefined;
  }

  private ensurePool(): EvaluatorPool {
    this.pool ??= new EvaluatorPool(this.threads - 1);
    return this.pool;
  }

  /** Copies the points into shared memory and describes the whole call (items up to `lastBlock`) as one task. */
  private plan(X: Float64Array, nPoints: number, lastBlock = this.evaluated.t): { task: EvalTask; work: number } | undefined {
    const { d } = this;
    if (!Number.isInteger(nPoints) || nPoints < 0) throw new RangeError(`nPoints must be a non-negative integer, got ${nPoints}`);
    if (X.length < nPoints * d) throw new RangeError(`X holds ${X.length} values, need nPoints*d = ${nPoints * d}`);
    const firstBlock = this.evaluated.firstLive;
    if (nPoints === 0 || lastBlock <= firstBlock) return undefined;
    const { c0, c1 } = chunkSpan(firstBlock, lastBlock, this.chunkSize);
    if (this.points.byteLength < 8 * nPoints * d) this.points = new SharedArrayBuffer(8 * nPoints * d);
    new Float64Array(this.points, 0, nPoints * d).set(X.subarray(0, nPoints * d));
    if (this.results.byteLength < 8 * (c1 - c0) * nPoints) this.results = new SharedArrayBuffer(8 * Math.ceil((c1 - c0) * 1.5) * nPoints);
    const task = {
      ...this.kindFields(),
      history: this.evaluated.buffer,
      points: this.points,
      nPoints,
      results: this.results,
      resultBase: c0,
      chunkSize: this.chunkSize,
      chunkFrom: c0,
      chunkTo: c1,
      firstBlock,
      lastBlock,
    } as EvalTask;
    return { task, work: (lastBlock - firstBlock) * nPoints * this.itemWork() };
  }

  /** Adds partial sums in chunk order and applies the global scale and the kind's factor. */
  private finish(task: EvalTask, out: Float64Array): Float64Array {
    const nChunks = task.chunkTo - task.chunkFrom;
    reduceChunks(new Float64Array(this.results), nChunks, task.nPoints, out);
    const factor = this.outputFactor(this.evaluated.scale);
    for (let p = 0; p < task.nPoints; p++) out[p] *= factor;
    return out;
  }
}

/**
 * The engine settings a caller gave (`cacheBytes`, `parallelMinWork`), with no
 * key for one not given: what train passes to its evaluators, and tune to its
 * fold fits, its refit and (in the run's setup) a `dsgkit worker`'s units.
 *
 * @example
 * const engine: EvaluatorOptions = { threads: 2, ...givenEngineSettings({ cacheBytes: 0 }) }; // { threads: 2, cacheBytes: 0 }
 */
export function givenEngineSettings(opts: { readonly cacheBytes?: number | undefined; readonly parallelMinWork?: number | undefined }): Pick<EvaluatorOptions, 'cacheBytes' | 'parallelMinWork'> {
  return { ...(opts.cacheBytes !== undefined ? { cacheBytes: opts.cacheBytes } : {}), ...(opts.parallelMinWork !== undefined ? { parallelMinWork: opts.parallelMinWork } : {}) };
}

/** How an {@link Evaluator} of a random-feature history runs. None of these options changes a result. */
export interface EvaluatorOptions extends EngineOptions {
  /** Blocks per chunk. Part of the model's arithmetic (summation order): keep it fixed for reproducible bits. Default 16. */
  chunkSize?: number;
  /**
   * Shared frequency store, bytes (one copy for all threads); 0 regenerates
   * every block on every call (the papers' way). Default {@link DEFAULT_CACHE_BYTES}.
   */
  cacheBytes?: number;
  /**
   * A frequency store of the same feature map to read and fill instead of a
   * new one (ignored for another map): the training run hands its own to the
   * model's first scoring (the threshold at the labeled rows), which then
   * neither generates the frequencies again nor holds a second copy of them
   * beside the run's (on 6M × 129, T = 1,000: 66 MB). Never changes a result:
   * a store holds exactly the bits the generator produces.
   */
  frequencies?: FrequencyStore;
  /**
   * Stores shared by the runs of a search (`tune`'s fold fits): the store of
   * this evaluator's feature map is taken from them when `frequencies` is not
   * one of that map ({@link FrequencyStores}).
   */
  frequencyStores?: FrequencyStores;
}

/**
 * Parallel, deterministic evaluator of a random-feature history.
 *
 * @example
 * const ev = new Evaluator(history, { kernel: { kind: 'rbf', sigma: 1 }, seed: 1, d: 8, m: 128 }, { threads: 4 });
 * const f = await ev.evaluate(X, nPoints); // f[p] at each row of X
 * await ev.close();
 */
export class Evaluator extends HistoryEvaluator {
  readonly features: RandomFeatures;
  private readonly history: History;
  readonly cacheBytes: number;
  /** The shared frequency store all threads read (also filled by the training loop's new blocks). */
  readonly frequencies: FrequencyStore;
  /** The calling thread's kernel and running sums for blocks a row cache does not have yet ({@link readRows}). */
  private pending: RffKernel | undefined;
  private pendingR = new Float64Array(0);
  /** The newest block's values at some points, computed ahead of {@link readRows} ({@link newestAhead}), and where they are kept. */
  private ahead: { block: number; renormalisations: number; X: Float64Array; nPoints: number } | undefined;
  private aheadValues = new Float64Array(0);

  constructor(history: History, features: RandomFeatures, opts: EvaluatorOptions = {}) {
    checkRandomFeatures(features);
    if (history.m !== features.m) throw new RangeError(`history has m = ${history.m}, features have m = ${features.m}`);
    super(history, features.d, DEFAULT_CHUNK_SIZE, opts);
    this.history = history;
    this.features = features;
    this.cacheBytes = opts.cacheBytes ?? DEFAULT_CACHE_BYTES;
    this.frequencies =
      opts.frequencies !== undefined && sameFeatures(opts.frequencies.features, features)
        ? opts.frequencies
        : (opts.frequencyStores?.storeFor(features) ?? FrequencyStore.forBudget(features, this.cacheBytes, history.capacity));
  }

  /**
   * The calling thread's evaluation kernel: it holds the points of its last
   * call and their sorf group transform, which a block projected at the same
   * points uses instead of transforming them again (block-ops.ts, kernel.ts
   * `holdsPoints`): the loop's new block at the batch, FRS3VM's fixed blocks
   * at the batch. Undefined before the first call.
   *
   * @example
   * ops.project(rf, t - 1, batch.X, n, w, evaluator.frequencies, evaluator.callingKernel);
   */
  get callingKernel(): RffKernel | undefined {
    return this.runner.rffKernel;
  }

  /**
   * Also hands the calling thread's kernels to its shelf (kernel-shelf.ts):
   * the next run on this thread takes them instead of new ones.
   *
   * @example
   * await ev.close();
   */
  override async close(): Promise<void> {
    shelveKernel(this.pending);
    this.pending = undefined;
    await super.close();
  }

  protected kindFields(): KindFields {
    return { kind: 'rff', features: this.features, frequencies: this.frequencies.buffer };
  }

  /**
   * Where `sorf` groups span several chunks (at d = 784, m = 64: 16 blocks a
   * group, 4 a chunk), the points a kernel's held group transform covers
   * ({@link heldTransformPoints}): a call on more points goes over them in
   * tiles, chunk by chunk, and each chunk would transform every tile again;
   * a call that fits one tile transforms a point once a group on each
   * thread. Else unbounded.
   */
  protected override pointsPerCall(): number {
    const { d, m } = this.features;
    return familyOf(this.features) === 'sorf' && sorfGroupBlocks(d, m) > this.chunkSize ? heldTransformPoints(d) : Infinity;
  }

  /**
   * Brings a row cache up to date with the history: adds the blocks appended
   * since its last update to every cached row, or — when the history dropped
   * blocks or folded its scale into the stored values, or for a fresh cache of
   * a history that already has blocks (a continued run) — rebuilds it from the
   * live blocks. Sums follow this evaluator's chunks, so `cache.read` gives
   * the bits {@link evaluate} gives at those rows. The rows are cut into units
   * of {@link rowGrain} rows, one run of units per thread (the calling thread
   * computes the first; each thread keeps its run's rows loaded from call to
   * call and then takes units the others have not reached); a row's value is
   * the same bits for any split. `meanwhile`: the calling thread's own work,
   * which must not touch the cache or the history; it runs exactly once,
   * while the workers add the blocks when the pool takes part (see
   * `PoolSession.call`), else after.
   *
   * @example
   * history.append(alpha);
   * await ev.updateRows(cache, () => learner.sample(rng, t + 1)); // cache now covers block t − 1 too
   */
  async updateRows(cache: RowCache, meanwhile?: () => void): Promise<void> {
    const update = this.rowsUpdate(cache);
    if (update === undefined) {
      meanwhile?.();
      return;
    }
    const { task, parts } = update;
    if (this.profile) this.profile.pointBlocks += (task.lastBlock - task.firstBlock) * cache.n;
    this.calls.workerRows += await this.runUnits(task, rowGrain(cache.n, parts), parts, meanwhile);
    cache.covered(task.lastBlock);
  }

  /**
   * Brings a row cache up to date on the calling thread, now, when the update
   * is too small to be split ({@link updateRows} would run it on this thread
   * alone: its work is below `parallelMinWork`); otherwise leaves the cache
   * as it is. Returns whether the cache is up to date. The same bits as
   * {@link updateRows}. A loop that evaluates its history calls it where its
   * call over the next batch's other points runs on the calling thread alone
   * ({@link rowsRider}): the hot rows then need no call of their own.
   *
   * @example
   * history.append(alpha);
   * ev.updateRowsHere(cache); // true: 1,000 hot rows × 1 block of m = 64, d = 9 is below the threshold
   */
  updateRowsHere(cache: RowCache): boolean {
    const update = this.rowsUpdate(cache);
    if (update === undefined) return true;
    if (update.parts > 1) return false;
    if (this.profile) this.profile.pointBlocks += (update.task.lastBlock - update.task.firstBlock) * cache.n;
    this.runner.run(update.task);
    cache.covered(update.task.lastBlock);
    return true;
  }

  /**
   * The task that brings a row cache up to date with the history (resetting
   * the cache first when it no longer matches the history; see
   * {@link updateRows}) and the threads it is split over; undefined when the
   * cache is up to date already.
   */
  private rowsUpdate(cache: RowCache): { task: RowsTask; parts: number } | undefined {
    const h = this.history;
    if (cache.shared.d !== this.features.d) throw new RangeError(`row cache has d = ${cache.shared.d}, features have d = ${this.features.d}`);
    if (!this.matches(cache)) cache.reset(h.firstLive, h.renormalisations);
    const firstBlock = cache.blocks;
    const lastBlock = h.t;
    if (lastBlock <= firstBlock) return undefined;
    const parts = this.threadsFor((lastBlock - firstBlock) * cache.n * this.itemWork(), cache.n);
    const task: RowsTask = {
      kind: 'rows', history: h.buffer, features: this.features, frequencies: this.frequencies.buffer,
      rows: cache.shared.memory, values: cache.values, rowFrom: 0, rowTo: cache.n, chunkSize: this.chunkSize, cacheFirst: cache.firstBlock, firstBlock, lastBlock,
    };
    return { task, parts };
  }

  /**
   * Hot rows brought up to date in the call that evaluates a batch's other
   * points (`evaluateAppending`'s rider; hot-rows.ts): one call an iteration
   * instead of two, the rows' blocks split between the threads like the
   * chunks. The call is published before the append, so it adds the blocks
   * the cache lacks then and the cache stays a block behind; right after the
   * append the calling thread computes the newest block at the batch's hot
   * points `X` ({@link newestAhead}), which {@link readRows} then adds: the
   * bits of the cache brought up to date and read. On the calling thread
   * alone, the cache is brought up to date after the append where that is
   * below the parallel threshold ({@link updateRowsHere}).
   *
   * @example
   * await ev.evaluateAppending(coldX, nCold, coldF, 1, append, ev.rowsRider(cache, hotX, nHot));
   * ev.readRows(cache, hotRows, hotX, nHot, hotF);
   */
  rowsRider(cache: RowCache, X: Float64Array, nPoints: number): TaskRider {
    let upTo = -1;
    return {
      fields: (parts) => {
        const update = this.rowsUpdate(cache);
        const first = update?.task.firstBlock ?? cache.blocks;
        upTo = update?.task.lastBlock ?? cache.blocks;
        if (this.profile) this.profile.pointBlocks += (upTo - first) * cache.n;
        return {
          riderRows: cache.shared.memory, riderValues: cache.values, riderN: cache.n, riderGrain: rowGrain(cache.n, parts),
          riderCacheFirst: cache.firstBlock, riderFirstBlock: first, riderLastBlock: upTo,
        };
      },
      alongside: () => this.newestAhead(X, nPoints),
      done: () => cache.covered(upTo),
      alone: () => void this.updateRowsHere(cache),
    };
  }

  /**
   * Blocks of the history a row cache lacks (what {@link readRows} would add
   * on the calling thread); Infinity when the cache no longer matches the
   * history (dropped blocks, a renormalisation: {@link updateRows} rebuilds it).
   *
   * @example
   * if (ev.lag(cache) > 1) await ev.updateRows(cache);
   */
  lag(cache: RowCache): number {
    return this.matches(cache) ? this.history.t - cache.blocks : Infinity;
  }

  /** Whether a row cache's sums are a prefix of the history as it stands: same first live block and renormalisations, no block past its end. */
  private matches(cache: RowCache): boolean {
    const h = this.history;
    return cache.firstBlock === h.firstLive && cache.renormalisations === h.renormalisations && cache.blocks <= h.t && cache.blocks >= h.firstLive;
  }

  /**
   * `f` at cached rows over the whole history as it stands: the cache's sums
   * at `rows` plus the blocks appended since its last update, added here on
   * the calling thread — the same kernel and chunk order as
   * {@link updateRows}, so the bits `cache.read` gives once the cache has
   * them. `X` holds the rows' features (the learner's copy, row-major). With
   * the cache up to date it is `cache.read`; a training loop reads its next
   * batch this way while the cache lags a block behind (the block being added
   * at every row during the call that built the next one).
   *
   * @example
   * ev.readRows(cache, next.rows, next.X, next.nPoints, f);
   */
  readRows(cache: RowCache, rows: Int32Array, X: Float64Array, nPoints: number, out: Float64Array): Float64Array {
    const h = this.history;
    if (!this.matches(cache)) {
      throw new RangeError(`readRows: the row cache (blocks ${cache.firstBlock}…${cache.blocks}) no longer matches the history (${h.firstLive}…${h.t}): update it first`);
    }
    const factor = this.rowFactor();
    if (cache.blocks === h.t) return cache.read(rows, nPoints, factor, out);
    const { d, m } = this.features;
    if (X.length < nPoints * d) throw new RangeError(`readRows: X holds ${X.length} values, need nPoints*d = ${nPoints * d}`);
    const k = (this.pending ??= takeKernel());
    k.reserve(Math.max(1, nPoints), d, m, familyOf(this.features));
    k.points().set(X.subarray(0, nPoints * d));
    const R = (this.pendingR = this.pendingR.length >= nPoints ? this.pendingR : new Float64Array(nPoints));
    const P = k.out();
    cache.sumsAt(rows, nPoints, R, P);
    const ahead = this.ahead;
    this.ahead = undefined;
    for (let i = cache.blocks; i < h.t; i++) {
      if (opensChunk(i, this.chunkSize, cache.firstBlock)) {
        for (let p = 0; p < nPoints; p++) R[p] += P[p];
        P.fill(0, 0, nPoints);
      }
      if (ahead !== undefined && ahead.block === i && ahead.renormalisations === h.renormalisations && ahead.X === X && ahead.nPoints === nPoints) {
        // The kernel adds a block's sum at a point to P in one addition (P + Σ); the values ahead are that Σ exactly.
        const values = this.aheadValues;
        for (let p = 0; p < nPoints; p++) P[p] += values[p];
        continue;
      }
      this.addStoredBlock(k, i, nPoints);
    }
    for (let p = 0; p < nPoints; p++) out[p] = (R[p] + P[p]) * factor;
    return out;
  }

  /**
   * Computes the newest block's values at `nPoints` rows of `X` now, for the
   * {@link readRows} that will read those rows (same `X`) while the row cache
   * lacks that block: a training loop does it while the workers add the block
   * before it at every row, so the read after the call does not. The values
   * are the block's sum at each point, which the kernel adds to the running
   * chunk sum in one addition, so the read gives the same bits either way.
   * Kept until the next `readRows`; ignored if the history changed meanwhile.
   *
   * @example
   * history.append(alpha);
   * await ev.updateRows(cache, () => ev.newestAhead(next.X, next.nPoints));
   * ev.readRows(cache, next.rows, next.X, next.nPoints, f); // block t − 1 at next from the values ahead
   */
  newestAhead(X: Float64Array, nPoints: number): void {
    const h = this.history;
    const { d, m } = this.features;
    if (h.t === 0 || nPoints === 0) return;
    if (X.length < nPoints * d) throw new RangeError(`newestAhead: X holds ${X.length} values, need nPoints*d = ${nPoints * d}`);
    const i = h.t - 1;
    const k = (this.pending ??= takeKernel());
    k.reserve(nPoints, d, m, familyOf(this.features));
    k.points().set(X.subarray(0, nPoints * d));
    // −0 + Σ is Σ exactly, for every Σ (+0 + −0 would be +0).
    k.out().fill(-0, 0, nPoints);
    this.addStoredBlock(k, i, nPoints);
    if (this.aheadValues.length < nPoints) this.aheadValues = new Float64Array(nPoints);
    this.aheadValues.set(k.out().subarray(0, nPoints));
    this.ahead = { block: i, renormalisations: h.renormalisations, X, nPoints };
  }

  /** Adds stored block `i`'s sum at the first `nPoints` of `k`'s points to `k.out()` — the one step {@link readRows} and {@link newestAhead} share, so their bits agree. */
  private addStoredBlock(k: RffKernel, i: number, nPoints: number): void {
    const h = this.history;
    k.loadBlock(this.frequencies, i);
    k.alpha().set(h.stored.subarray(i * h.width, (i + 1) * h.width));
    k.accumulate(nPoints);
    if (this.profile) this.profile.pointBlocks += nPoints;
  }

  /**
   * The factor from a row cache's sums to `f`: `s/√m` of the history as it stands.
   *
   * @example
   * cache.read(batch.rows, n, ev.rowFactor(), f);
   */
  rowFactor(): number {
    return this.outputFactor(this.history.scale);
  }

  protected itemWork(): number {
    return this.features.m * (this.features.d + 8);
  }

  protected outputFactor(scale: number): number {
    return scale / Math.sqrt(this.features.m);
  }
}
