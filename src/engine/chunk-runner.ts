/**
 * Computes per-chunk partial sums of `f` over a range of history chunks: the
 * one piece of code that both the worker threads and the coordinator's serial
 * path run, so a chunk's partial sum is the same bits whoever computes it.
 */
import { RffKernel } from './kernel.ts';
import { FrequencyStore } from './frequency-store.ts';
import { History } from './history.ts';
import type { RandomFeatures } from './random-features.ts';

/** One unit of work: chunks `[chunkFrom, chunkTo)` of the history, evaluated at the shared points. */
export interface EvalTask {
  /** The history's shared buffer (see {@link History}). */
  readonly history: SharedArrayBuffer;
  /** Frequencies' identity. */
  readonly features: RandomFeatures;
  /** Shared buffer with the points, row-major, `nPoints × d` Float64 from byte 0. */
  readonly points: SharedArrayBuffer;
  readonly nPoints: number;
  /** Shared buffer receiving partial sums: row `c - resultBase` for chunk `c`, `nPoints` Float64 each. */
  readonly results: SharedArrayBuffer;
  readonly resultBase: number;
  readonly chunkSize: number;
  readonly chunkFrom: number;
  readonly chunkTo: number;
  /** Only blocks in `[firstBlock, lastBlock)` count (dropped blocks and blocks appended after the call began are excluded). */
  readonly firstBlock: number;
  readonly lastBlock: number;
  /** The shared frequency store (see frequency-store.ts); blocks it lacks are regenerated. */
  readonly frequencies: SharedArrayBuffer;
}

/**
 * A thread's evaluator: one wasm kernel instance and one frequency source, reused across tasks.
 *
 * @example
 * const runner = new ChunkRunner();
 * runner.run(task); // fills task.results rows for chunks [chunkFrom, chunkTo)
 */
export class ChunkRunner {
  private readonly kernel = RffKernel.create();
  private store: FrequencyStore | undefined;

  /**
   * Evaluates the task's chunks and writes one row of partial sums per chunk.
   * Each chunk's sum starts from zero and adds its blocks in order.
   *
   * @example
   * runner.run({ ...task, chunkFrom: 0, chunkTo: 4 });
   */
  run(task: EvalTask): void {
    const { features: rf, nPoints, chunkSize } = task;
    const { d, m } = rf;
    if (!(nPoints >= 0) || task.points.byteLength < 8 * nPoints * d) {
      throw new RangeError(`evaluation task: points buffer holds ${task.points.byteLength} bytes, need ${8 * nPoints * d}`);
    }
    const history = new History({ buffer: task.history });
    if (history.m !== m) throw new RangeError(`evaluation task: history has m = ${history.m}, features say m = ${m}`);
    if (task.lastBlock > history.t) throw new RangeError(`evaluation task: block range ends at ${task.lastBlock}, history has ${history.t} blocks`);
    const results = new Float64Array(task.results);
    if (results.length < (task.chunkTo - task.resultBase) * nPoints) throw new RangeError('evaluation task: results buffer too small');

    if (this.store?.buffer !== task.frequencies) this.store = new FrequencyStore(rf, task.frequencies);
    const store = this.store;
    const kernel = this.kernel;
    kernel.reserve(Math.max(1, nPoints), d, m);
    kernel.points().set(new Float64Array(task.points, 0, nPoints * d));
    const omega = kernel.omega();
    const alpha = kernel.alpha();
    const out = kernel.out();
    const width = 2 * m;
    const stored = history.stored;

    for (let c = task.chunkFrom; c < task.chunkTo; c++) {
      const from = Math.max(c * chunkSize, task.firstBlock);
      const to = Math.min((c + 1) * chunkSize, task.lastBlock);
      kernel.clearOut(nPoints);
      for (let i = from; i < to; i++) {
        store.fill(i, omega);
        alpha.set(stored.subarray(i * width, (i + 1) * width));
        kernel.accumulate(nPoints);
      }
      results.set(out.subarray(0, nPoints), (c - task.resultBase) * nPoints);
    }
  }
}
