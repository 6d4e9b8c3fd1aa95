/**
 * Evaluates `f(x) = Σ_i α_i·φ_i(x)` over the whole coefficient history at a
 * batch of points: step 2 of every DSG iteration, the O(t) part.
 *
 * The history is cut into fixed chunks (see chunks.ts); each chunk's partial
 * sum is computed by one thread — a worker or the calling thread, which takes
 * a share of every parallel call and all of a small one — and the partial sums
 * are added in chunk order. The result is the same bits for any thread count.
 */
import { ChunkRunner, type EvalTask } from './chunk-runner.ts';
import { chunkSpan, DEFAULT_CHUNK_SIZE, reduceChunks, splitChunks } from './chunks.ts';
import type { History } from './history.ts';
import { defaultThreads, EvaluatorPool } from './pool.ts';
import { FrequencyStore } from './frequency-store.ts';
import { checkRandomFeatures, type RandomFeatures } from './random-features.ts';

/**
 * Below this much work (blocks × points × m × (d + 8)) a call runs on the
 * calling thread alone: handing a share to the pool costs a message round
 * trip (≈ 0.1–0.3 ms) that the split does not win back. Measured by
 * `bench/crossover.ts` on the 2-core development machine (m = 64, d = 28):
 * from 96 points × 16 blocks (work 3.5e6) on, calling thread + pool beat the
 * calling thread alone (0.51 ms against 0.70 ms); below about 2e6 they do not.
 * A call that covers a single chunk always stays on the calling thread.
 */
export const DEFAULT_PARALLEL_MIN_WORK = 3_000_000;

/**
 * Default frequency-store budget: 256 MiB holds every block of, e.g., T = 2,000
 * blocks of m = 128 features in d = 128 dimensions; beyond it blocks are
 * regenerated, as in the papers. Regenerating costs about as much as a third
 * of the evaluation at d = 30 (bench/scaling.ts measures both).
 */
export const DEFAULT_CACHE_BYTES = 256 * 2 ** 20;

/** How an {@link Evaluator} runs. None of these options changes a result. */
export interface EvaluatorOptions {
  /**
   * Evaluation threads, the calling thread included: a parallel call is split
   * into `threads` runs of chunks, the calling thread computes the first while
   * a pool of `threads − 1` workers computes the others. 1 = the calling thread
   * only. Default: available cores.
   */
  threads?: number;
  /** Blocks per chunk. Part of the model's arithmetic (summation order): keep it fixed for reproducible bits. Default 16. */
  chunkSize?: number;
  /**
   * Shared frequency store, bytes (one copy for all threads); 0 regenerates
   * every block on every call (the papers' way). Default {@link DEFAULT_CACHE_BYTES}.
   */
  cacheBytes?: number;
  /** Work below which a call stays on the calling thread. */
  parallelMinWork?: number;
  /** An existing pool to use (not closed by this evaluator); `threads` is then its size + 1. */
  pool?: EvaluatorPool;
}

/**
 * Parallel, deterministic evaluator of a random-feature history.
 *
 * @example
 * const ev = new Evaluator(history, { kernel: { kind: 'rbf', sigma: 1 }, seed: 1, d: 8, m: 128 }, { threads: 4 });
 * const f = await ev.evaluate(X, nPoints); // f[p] at each row of X
 * await ev.close();
 */
export class Evaluator {
  readonly features: RandomFeatures;
  readonly threads: number;
  readonly chunkSize: number;
  readonly cacheBytes: number;
  readonly parallelMinWork: number;
  private readonly history: History;
  private readonly runner = new ChunkRunner();
  private pool: EvaluatorPool | undefined;
  private readonly ownsPool: boolean;
  /** The shared frequency store all threads read (also filled by the training loop's new blocks). */
  readonly frequencies: FrequencyStore;
  private points = new SharedArrayBuffer(8);
  private results = new SharedArrayBuffer(8);

  constructor(history: History, features: RandomFeatures, opts: EvaluatorOptions = {}) {
    this.features = checkRandomFeatures(features);
    if (history.m !== features.m) throw new RangeError(`history has m = ${history.m}, features have m = ${features.m}`);
    this.history = history;
    this.threads = opts.pool !== undefined ? opts.pool.threads + 1 : (opts.threads ?? defaultThreads());
    if (!Number.isInteger(this.threads) || this.threads < 1) throw new RangeError(`threads must be a positive integer, got ${this.threads}`);
    this.chunkSize = opts.chunkSize ?? DEFAULT_CHUNK_SIZE;
    if (!Number.isInteger(this.chunkSize) || this.chunkSize < 1) throw new RangeError(`chunkSize must be a positive integer, got ${this.chunkSize}`);
    this.cacheBytes = opts.cacheBytes ?? DEFAULT_CACHE_BYTES;
    this.frequencies = FrequencyStore.forBudget(features, this.cacheBytes, history.capacity);
    this.parallelMinWork = opts.parallelMinWork ?? DEFAULT_PARALLEL_MIN_WORK;
    this.pool = opts.pool;
    this.ownsPool = opts.pool === undefined;
  }

  /**
   * `f` at `nPoints` rows of `X` (row-major, `d` per row) over blocks `[firstLive, t)`.
   * Uses the worker pool when the call is large enough and threads > 1.
   *
   * @example
   * const f = await ev.evaluate(batchX, 768);
   */
  async evaluate(X: Float64Array, nPoints: number, out: Float64Array = new Float64Array(nPoints)): Promise<Float64Array> {
    const plan = this.plan(X, nPoints);
    if (plan === undefined) return out.fill(0, 0, nPoints);
    const chunks = plan.task.chunkTo - plan.task.chunkFrom;
    if (this.threads === 1 || chunks < 2 || plan.work < this.parallelMinWork) {
      this.runner.run(plan.task);
    } else {
      const pool = this.ensurePool();
      const [mine, ...theirs] = splitChunks(plan.task.chunkFrom, plan.task.chunkTo, pool.threads + 1);
      // Dispatch the workers' runs first, then compute this thread's run while they work.
      const pending = Promise.all(theirs.map(([from, to]) => pool.run({ ...plan.task, chunkFrom: from, chunkTo: to })));
      try {
        this.runner.run({ ...plan.task, chunkFrom: mine[0], chunkTo: mine[1] });
      } catch (err) {
        await pending.catch(() => undefined);
        throw err;
      }
      await pending;
    }
    return this.finish(plan.task, out);
  }

  /**
   * Stops the worker pool if this evaluator created it.
   *
   * @example
   * await ev.close();
   */
  async close(): Promise<void> {
    if (this.ownsPool && this.pool !== undefined) await this.pool.close();
    this.pool = undefined;
  }

  private ensurePool(): EvaluatorPool {
    this.pool ??= new EvaluatorPool(this.threads - 1);
    return this.pool;
  }

  /** Copies the points into shared memory and describes the whole call as one task. */
  private plan(X: Float64Array, nPoints: number): { task: EvalTask; work: number } | undefined {
    const { d, m } = this.features;
    if (!Number.isInteger(nPoints) || nPoints < 0) throw new RangeError(`nPoints must be a non-negative integer, got ${nPoints}`);
    if (X.length < nPoints * d) throw new RangeError(`X holds ${X.length} values, need nPoints*d = ${nPoints * d}`);
    const firstBlock = this.history.firstLive;
    const lastBlock = this.history.t;
    if (nPoints === 0 || lastBlock <= firstBlock) return undefined;
    const { c0, c1 } = chunkSpan(firstBlock, lastBlock, this.chunkSize);
    if (this.points.byteLength < 8 * nPoints * d) this.points = new SharedArrayBuffer(8 * nPoints * d);
    new Float64Array(this.points, 0, nPoints * d).set(X.subarray(0, nPoints * d));
    if (this.results.byteLength < 8 * (c1 - c0) * nPoints) this.results = new SharedArrayBuffer(8 * Math.ceil((c1 - c0) * 1.5) * nPoints);
    const task: EvalTask = {
      history: this.history.buffer,
      features: this.features,
      points: this.points,
      nPoints,
      results: this.results,
      resultBase: c0,
      chunkSize: this.chunkSize,
      chunkFrom: c0,
      chunkTo: c1,
      firstBlock,
      lastBlock,
      frequencies: this.frequencies.buffer,
    };
    return { task, work: (lastBlock - firstBlock) * nPoints * m * (d + 8) };
  }

  /** Adds partial sums in chunk order and applies the global scale and `m^{-1/2}`. */
  private finish(task: EvalTask, out: Float64Array): Float64Array {
    const nChunks = task.chunkTo - task.chunkFrom;
    reduceChunks(new Float64Array(this.results), nChunks, task.nPoints, out);
    const factor = this.history.scale / Math.sqrt(this.features.m);
    for (let p = 0; p < task.nPoints; p++) out[p] *= factor;
    return out;
  }
}
