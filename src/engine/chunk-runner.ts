/**
 * Computes per-chunk partial sums of `f` over a range of history chunks: the
 * one piece of code that both the worker threads and the coordinator's serial
 * path run, so a chunk's partial sum is the same bits whoever computes it.
 *
 * A task names a history of either kind (see scaled-history.ts): the chunk
 * loop, the checks and the partial-sum rows are shared; what differs is how
 * one chunk's items are summed — blocks of random features through
 * {@link RffKernel}, support-vector entries through {@link SvKernel}.
 */
import type { KernelSpec } from '../features/kernel-spec.ts';
import { RffKernel } from './kernel.ts';
import { FrequencyStore } from './frequency-store.ts';
import { History } from './history.ts';
import type { RandomFeatures } from './random-features.ts';
import { SharedRows } from './shared-rows.ts';
import { SvKernel } from './sv-kernel.ts';
import { SupportVectorHistory } from './sv-history.ts';
import type { WasmMemory } from './wasm-host.ts';

/**
 * What every task carries: chunks `[chunkFrom, chunkTo)` of a history,
 * evaluated at shared points. An ITEM is a block (random-feature history) or
 * an entry (support-vector history); chunk `c` holds items `[c·chunkSize, (c+1)·chunkSize)`.
 */
export interface TaskCommon {
  /** The history's shared buffer (see scaled-history.ts). */
  readonly history: SharedArrayBuffer;
  /** Shared buffer with the points, row-major, `nPoints × d` Float64 from byte 0. */
  readonly points: SharedArrayBuffer;
  readonly nPoints: number;
  /** Shared buffer receiving partial sums: row `c - resultBase` for chunk `c`, `nPoints` Float64 each. */
  readonly results: SharedArrayBuffer;
  readonly resultBase: number;
  /** Items per chunk. */
  readonly chunkSize: number;
  readonly chunkFrom: number;
  readonly chunkTo: number;
  /** Only items in `[firstBlock, lastBlock)` count (dropped items and items appended after the call began are excluded). */
  readonly firstBlock: number;
  readonly lastBlock: number;
}

/** A task over a random-feature {@link History} (the kind a task without `kind` has). */
export interface RffTask extends TaskCommon {
  readonly kind?: 'rff';
  /** Frequencies' identity. */
  readonly features: RandomFeatures;
  /** The shared frequency store (see frequency-store.ts); blocks it lacks are regenerated. */
  readonly frequencies: SharedArrayBuffer;
}

/** A task over a {@link SupportVectorHistory}. */
export interface SvTask extends TaskCommon {
  readonly kind: 'sv';
  readonly kernel: KernelSpec;
  /** The training rows' shared memory (see shared-rows.ts), mapped once per thread. */
  readonly rows: WasmMemory;
}

/** One unit of work: chunks `[chunkFrom, chunkTo)` of a history of either kind. */
export type EvalTask = RffTask | SvTask;

/** Sums one chunk's items `[from, to)` at the task's points; returns a view of `nPoints` partial sums. */
type ChunkSum = (from: number, to: number) => Float64Array;

/** How one kind of history sums a chunk: prepared once per task (points loaded, buffers mapped). */
interface ItemKernel<T extends EvalTask> {
  /** Dimension of the points. */
  dimension(task: T): number;
  prepare(task: T): ChunkSum;
}

/** Blocks of random features: regenerate (or read) `ω_i`, accumulate `α̃_i·φ_i`. */
class RffItems implements ItemKernel<RffTask> {
  private readonly kernel = RffKernel.create();
  private store: FrequencyStore | undefined;

  dimension(task: RffTask): number {
    return task.features.d;
  }

  prepare(task: RffTask): ChunkSum {
    const { features: rf, nPoints } = task;
    const { d, m } = rf;
    const history = new History({ buffer: task.history });
    if (history.m !== m) throw new RangeError(`evaluation task: history has m = ${history.m}, features say m = ${m}`);
    if (task.lastBlock > history.t) throw new RangeError(`evaluation task: block range ends at ${task.lastBlock}, history has ${history.t} blocks`);
    if (this.store?.buffer !== task.frequencies) this.store = new FrequencyStore(rf, task.frequencies);
    const store = this.store;
    const kernel = this.kernel;
    kernel.reserve(Math.max(1, nPoints), d, m);
    kernel.points().set(new Float64Array(task.points, 0, nPoints * d));
    const omega = kernel.omega();
    const alpha = kernel.alpha();
    const out = kernel.out().subarray(0, nPoints);
    const width = 2 * m;
    const stored = history.stored;
    return (from, to) => {
      kernel.clearOut(nPoints);
      for (let i = from; i < to; i++) {
        store.fill(i, omega);
        alpha.set(stored.subarray(i * width, (i + 1) * width));
        kernel.accumulate(nPoints);
      }
      return out;
    };
  }
}

/** Support-vector entries: load the chunk's row indices and coefficients, accumulate `β̃_e·K(x_{r_e}, ·)` reading the rows in place. */
class SvItems implements ItemKernel<SvTask> {
  /** The kernel on the rows last used (one instance, and one scratch region, per rows and thread). */
  private kernel: SvKernel | undefined;

  /** The kernel for the task's rows: mapped on first use of those rows and kept (the rows are never copied). */
  private kernelFor(task: SvTask): SvKernel {
    if (this.kernel?.rows.id !== SharedRows.idOf(task.rows)) this.kernel = SvKernel.create(new SharedRows({ memory: task.rows }));
    return this.kernel;
  }

  dimension(task: SvTask): number {
    return this.kernelFor(task).d;
  }

  prepare(task: SvTask): ChunkSum {
    const { nPoints, kernel: spec } = task;
    const kernel = this.kernelFor(task);
    const history = new SupportVectorHistory({ buffer: task.history });
    if (task.lastBlock > history.t) throw new RangeError(`evaluation task: entry range ends at ${task.lastBlock}, history has ${history.t} entries`);
    kernel.reserve(Math.max(1, nPoints), task.chunkSize);
    kernel.points().set(new Float64Array(task.points, 0, nPoints * kernel.d));
    const out = kernel.out().subarray(0, nPoints);
    return (from, to) => {
      kernel.clearOut(nPoints);
      kernel.load(history.rows, history.stored, from, to);
      kernel.accumulate(spec, nPoints, to - from);
      return out;
    };
  }
}

/**
 * A thread's evaluator: one kernel instance per kind (and its frequency source
 * or mapped rows), reused across tasks.
 *
 * @example
 * const runner = new ChunkRunner();
 * runner.run(task); // fills task.results rows for chunks [chunkFrom, chunkTo)
 */
export class ChunkRunner {
  private rffItems: RffItems | undefined;
  private svItems: SvItems | undefined;

  /**
   * Evaluates the task's chunks and writes one row of partial sums per chunk.
   * Each chunk's sum starts from zero and adds its items in order.
   *
   * @example
   * runner.run({ ...task, chunkFrom: 0, chunkTo: 4 });
   */
  run(task: EvalTask): void {
    if (task.kind === 'sv') this.runWith((this.svItems ??= new SvItems()), task);
    else this.runWith((this.rffItems ??= new RffItems()), task);
  }

  private runWith<T extends EvalTask>(items: ItemKernel<T>, task: T): void {
    const { nPoints, chunkSize } = task;
    const d = items.dimension(task);
    if (!(nPoints >= 0) || task.points.byteLength < 8 * nPoints * d) {
      throw new RangeError(`evaluation task: points buffer holds ${task.points.byteLength} bytes, need ${8 * nPoints * d}`);
    }
    const results = new Float64Array(task.results);
    if (results.length < (task.chunkTo - task.resultBase) * nPoints) throw new RangeError('evaluation task: results buffer too small');
    const chunkSum = items.prepare(task);
    for (let c = task.chunkFrom; c < task.chunkTo; c++) {
      const from = Math.max(c * chunkSize, task.firstBlock);
      const to = Math.min((c + 1) * chunkSize, task.lastBlock);
      results.set(chunkSum(from, to), (c - task.resultBase) * nPoints);
    }
  }
}
