/**
 * Computes per-chunk partial sums of `f` over a range of history chunks — and,
 * for a run that keeps `f` at every training row (row-cache.ts), adds history
 * blocks to a range of those rows: the one piece of code that both the worker
 * threads and the coordinator's serial path run, so a chunk's partial sum (or
 * a row's value) is the same bits whoever computes it.
 *
 * A task names a history of either kind (see scaled-history.ts): the chunk
 * loop, the checks and the partial-sum rows are shared; what differs is how
 * one chunk's items are summed — blocks of random features through
 * {@link RffKernel}, support-vector entries through {@link SvKernel}.
 */
import type { KernelSpec } from '../features/kernel-spec.ts';
import type { RffKernel } from './kernel.ts';
import { shelveKernel, shelveSvKernel, takeKernel, takeSvKernel } from './kernel-shelf.ts';
import { FrequencyStore } from './frequency-store.ts';
import { History } from './history.ts';
import { familyOf, type RandomFeatures } from './random-features.ts';
import { sliceStart } from './chunks.ts';
import { opensChunk } from './row-cache.ts';
import { RowViews } from './row-views.ts';
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
  /**
   * Point slices per chunk (default 1): the task's range is then in slices,
   * slice `s` of chunk `c` being range index `c·slices + s` and covering the
   * points `[sliceStart(s), sliceStart(s + 1))` (see chunks.ts, `slicesFor`).
   */
  readonly slices?: number;
}

/** A task over a random-feature {@link History} (the kind a task without `kind` has). */
export interface RffTask extends TaskCommon, Partial<RowsRider> {
  readonly kind?: 'rff';
  /** Frequencies' identity. */
  readonly features: RandomFeatures;
  /** The shared frequency store (see frequency-store.ts); blocks it lacks are regenerated. */
  readonly frequencies: SharedArrayBuffer;
}

/**
 * Blocks added to a cache of rows (row-cache.ts) in the same call as a
 * history's chunks: a loop that keeps f at its hot rows (hot-rows.ts) brings
 * them up to date in the call that evaluates its batch's other points, so one
 * call an iteration does both. The rows are cut into `riderGrain` rows per
 * range index, after the chunks' indices (see {@link taskRange}); the fields
 * are those of a {@link RowsTask} over all the cache's rows, renamed.
 */
export interface RowsRider {
  /** The cached rows' features (see shared-rows.ts). */
  readonly riderRows: WasmMemory;
  /** The cached sums: `R` for every cached row, then `P`. */
  readonly riderValues: SharedArrayBuffer;
  /** Cached rows (0 when the rider adds nothing). */
  readonly riderN: number;
  /** Rows per range index. */
  readonly riderGrain: number;
  /** The block the cache's sums started from. */
  readonly riderCacheFirst: number;
  /** Blocks `[riderFirstBlock, riderLastBlock)` are added at every cached row. */
  readonly riderFirstBlock: number;
  readonly riderLastBlock: number;
}

/** Range indices a task's rider takes after its chunks' (0 without a rider, or one with nothing to add). */
export function riderUnits(task: EngineTask): number {
  if (task.kind === 'rows' || task.kind === 'sv') return 0;
  const { riderN = 0, riderGrain = 1, riderFirstBlock = 0, riderLastBlock = 0 } = task;
  return riderN > 0 && riderLastBlock > riderFirstBlock ? Math.ceil(riderN / riderGrain) : 0;
}

/** The {@link RowsTask} a task's rider runs. */
function riderTask(task: RffTask & RowsRider): RowsTask {
  return {
    kind: 'rows', history: task.history, features: task.features, frequencies: task.frequencies, rows: task.riderRows, values: task.riderValues,
    rowFrom: 0, rowTo: task.riderN, chunkSize: task.chunkSize, cacheFirst: task.riderCacheFirst, firstBlock: task.riderFirstBlock, lastBlock: task.riderLastBlock,
  };
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

/**
 * Adds blocks `[firstBlock, lastBlock)` of a random-feature history to the
 * cached sums of rows `[rowFrom, rowTo)` (see row-cache.ts): each block is
 * added to `P`, the current chunk's partial sum, and where a new chunk begins
 * `P` is first added to `R` and restarts from 0 — the order in which an
 * evaluation of the history sums f, so a row's value depends on the blocks
 * alone, never on how rows or blocks were split between calls and threads.
 * Values are stored coefficients, without the `s/√m` factor.
 */
export interface RowsTask {
  readonly kind: 'rows';
  readonly history: SharedArrayBuffer;
  readonly features: RandomFeatures;
  readonly frequencies: SharedArrayBuffer;
  /** The cached rows' features (see shared-rows.ts), mapped once per thread. */
  readonly rows: WasmMemory;
  /** The cached sums: `R` for every cached row, then `P` for every cached row. */
  readonly values: SharedArrayBuffer;
  readonly rowFrom: number;
  readonly rowTo: number;
  /** Blocks per chunk of the history's evaluation (its summation order). */
  readonly chunkSize: number;
  /** The block the sums started from (the history's first live block then): no chunk before it is added to `R`. */
  readonly cacheFirst: number;
  readonly firstBlock: number;
  readonly lastBlock: number;
}

/** Anything the engine's threads run: chunks of a history at points, or blocks into cached rows. */
export type EngineTask = EvalTask | RowsTask;

/** What a worker reports for a task: the units done (chunks or rows), its thread, and how long it computed. */
export interface TaskReport {
  readonly units: number;
  readonly thread: number;
  readonly busyMs: number;
}

/** Sums one chunk's items `[from, to)` at the task's points `[p0, p1)`; returns a view of those `p1 − p0` partial sums. */
type ChunkSum = (from: number, to: number, p0: number, p1: number) => Float64Array;

/** How one kind of history sums a chunk: prepared once per task (points loaded, buffers mapped). */
interface ItemKernel<T extends EvalTask> {
  /** Dimension of the points. */
  dimension(task: T): number;
  prepare(task: T): ChunkSum;
}

/**
 * Per-block views of a history's stored coefficients ({@link RowViews}), kept
 * while tasks name the same shared buffer: a thread copies one block's
 * coefficients into its kernel per block, and the views are made once.
 */
class StoredBlocks {
  private buffer: SharedArrayBuffer | undefined;
  private views: RowViews | undefined;

  of(history: History): RowViews {
    if (this.views === undefined || this.buffer !== history.buffer) {
      this.buffer = history.buffer;
      this.views = new RowViews(history.stored, history.width);
    }
    return this.views;
  }
}

/** Blocks of random features: regenerate (or read) `ω_i`, accumulate `α̃_i·φ_i`. */
class RffItems implements ItemKernel<RffTask> {
  readonly kernel = takeKernel();
  private store: FrequencyStore | undefined;
  private readonly blocks = new StoredBlocks();

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
    kernel.reserve(Math.max(1, nPoints), d, m, familyOf(rf));
    kernel.points().set(new Float64Array(task.points, 0, nPoints * d));
    const alpha = kernel.alpha();
    const out = kernel.out().subarray(0, nPoints);
    const blocks = this.blocks.of(history);
    // Points in tiles (one tile unless sorf blocks share groups: kernel.tilePoints), every block per tile: a point's blocks still add in order.
    const tile = kernel.tilePoints;
    return (from, to, p0, p1) => {
      out.fill(0, p0, p1);
      for (let q = p0; q < p1; q += tile) {
        for (let i = from; i < to; i++) {
          kernel.loadBlock(store, i);
          alpha.set(blocks.row(i));
          kernel.accumulate(Math.min(tile, p1 - q), q);
        }
      }
      return out.subarray(p0, p1);
    };
  }
}

/** Support-vector entries: load the chunk's row indices and coefficients, accumulate `β̃_e·K(x_{r_e}, ·)` reading the rows in place. */
class SvItems implements ItemKernel<SvTask> {
  /** The kernel on the rows last used (one instance, and one scratch region, per rows and thread). */
  kernel: SvKernel | undefined;

  /** The kernel for the task's rows: one shelved on them (kernel-shelf.ts), else mapped on first use of those rows, and kept (the rows are never copied). */
  private kernelFor(task: SvTask): SvKernel {
    if (this.kernel?.rows.id !== SharedRows.idOf(task.rows)) this.kernel = takeSvKernel(task.rows) ?? SvKernel.create(new SharedRows({ memory: task.rows }));
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
    kernel.setPoints(new Float64Array(task.points, 0, nPoints * kernel.d), nPoints);
    const out = kernel.out().subarray(0, nPoints);
    return (from, to, p0, p1) => {
      out.fill(0, p0, p1);
      kernel.load(history.rows, history.stored, from, to);
      kernel.accumulate(spec, p1 - p0, to - from, p0);
      return out.subarray(p0, p1);
    };
  }
}

/**
 * Blocks into cached rows ({@link RowsTask}). Keeps the rows of its thread's
 * home share loaded in one kernel between tasks: a thread that gets the same
 * rows again (every iteration, on a fixed split) does not copy them again;
 * rows it takes from another thread's share go through a second kernel.
 */
class RowBlocks {
  private readonly home = new RowKernel();
  private readonly guest = new RowKernel();
  private store: FrequencyStore | undefined;
  private rows: SharedRows | undefined;
  private readonly blocks = new StoredBlocks();

  /** Hands both kernels to the thread's shelf (kernel-shelf.ts): this object is not used again. */
  release(): void {
    shelveKernel(this.home.kernel);
    shelveKernel(this.guest.kernel);
  }

  /** Checks a task and returns a function that adds its blocks at rows `[from, to)` of its range; `home`: the rows this thread keeps loaded. */
  begin(task: RowsTask, home: readonly [number, number] = [task.rowFrom, task.rowTo]): (from: number, to: number) => void {
    const { features: rf, rowFrom, rowTo } = task;
    const { d, m } = rf;
    if (this.rows?.id !== SharedRows.idOf(task.rows)) this.rows = new SharedRows({ memory: task.rows });
    const rows = this.rows;
    if (rows.d !== d) throw new RangeError(`rows task: rows have d = ${rows.d}, features say d = ${d}`);
    if (!(rowFrom >= 0 && rowTo <= rows.n && rowTo - rowFrom >= 0)) throw new RangeError(`rows task: rows [${rowFrom}, ${rowTo}) are not in [0, ${rows.n})`);
    const values = new Float64Array(task.values);
    if (values.length < 2 * rows.n) throw new RangeError(`rows task: values hold ${values.length} doubles, need 2n = ${2 * rows.n}`);
    if (!(Number.isInteger(task.chunkSize) && task.chunkSize >= 1)) throw new RangeError(`rows task: chunkSize must be a positive integer, got ${task.chunkSize}`);
    if (!(task.cacheFirst <= task.firstBlock)) throw new RangeError(`rows task: blocks from ${task.firstBlock} cannot extend sums that start at ${task.cacheFirst}`);
    const history = new History({ buffer: task.history });
    if (history.m !== m) throw new RangeError(`rows task: history has m = ${history.m}, features say m = ${m}`);
    if (task.lastBlock > history.t) throw new RangeError(`rows task: block range ends at ${task.lastBlock}, history has ${history.t} blocks`);
    if (this.store?.buffer !== task.frequencies) this.store = new FrequencyStore(rf, task.frequencies);
    const store = this.store;
    const [h0, h1] = home;
    if (h1 > h0) this.home.load(rows, h0, h1, rf);
    // The block each kernel's ω and α hold during this task (the history does not change while it runs).
    const held = new Map<RowKernel, number>();
    const blocks = this.blocks.of(history);
    return (from, to) => {
      const n = to - from;
      if (n <= 0 || task.lastBlock <= task.firstBlock) return;
      const inHome = from >= h0 && to <= h1;
      const rk = inHome ? this.home : this.guest;
      if (!inHome) {
        rk.load(rows, from, to, rf);
        held.delete(rk);
      }
      const kernel = rk.kernel;
      const first = from - rk.from;
      // out holds P; where block i opens a new chunk, P joins R (R += P, as reduceChunks adds a chunk) and restarts from 0.
      const R = values.subarray(from, to);
      const out = kernel.out().subarray(first, first + n);
      out.set(values.subarray(rows.n + from, rows.n + to));
      const alpha = kernel.alpha();
      // Rows in tiles (one tile unless sorf blocks share groups: kernel.tilePoints), every block per tile: a row's blocks still add in order.
      const tile = kernel.tilePoints;
      for (let q = 0; q < n; q += tile) {
        const nq = Math.min(tile, n - q);
        for (let i = task.firstBlock; i < task.lastBlock; i++) {
          if (opensChunk(i, task.chunkSize, task.cacheFirst)) {
            for (let r = q; r < q + nq; r++) R[r] += out[r];
            out.fill(0, q, q + nq);
          }
          if (held.get(rk) !== i) {
            kernel.loadBlock(store, i);
            alpha.set(blocks.row(i));
            held.set(rk, i);
          }
          kernel.accumulate(nq, first + q);
        }
      }
      values.set(out, rows.n + from);
    };
  }
}

/** A kernel holding rows `[from, to)` of a {@link SharedRows} as its points. */
class RowKernel {
  readonly kernel = takeKernel();
  /** Which rows the kernel's points hold: `[id, from, to]` of the shared rows. */
  private loaded: [number, number, number] = [0, 0, 0];

  get from(): number {
    return this.loaded[1];
  }

  /** Loads rows `[from, to)` (for blocks of `rf`'s features) unless they are the rows it holds. */
  load(rows: SharedRows, from: number, to: number, rf: RandomFeatures): void {
    const [id, f, t] = this.loaded;
    const { d } = rows;
    const { m } = rf;
    if (this.kernel.d === d && this.kernel.m === m && this.kernel.family === familyOf(rf) && id === rows.id && f === from && t === to) return;
    this.kernel.reserve(to - from, d, m, familyOf(rf));
    this.kernel.points().set(rows.X.subarray(from * d, to * d));
    this.loaded = [rows.id, from, to];
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
  private rowBlocks: RowBlocks | undefined;

  /**
   * The kernel this thread evaluates random-feature chunks with (undefined
   * before its first such task): after a call it holds the sorf group
   * transform of the last chunk it summed, which a block projected at the
   * same points may use ({@link RffKernel.holdsPoints}).
   */
  get rffKernel(): RffKernel | undefined {
    return this.rffItems?.kernel;
  }

  /**
   * Hands this runner's random-feature kernels to the thread's shelf
   * (kernel-shelf.ts) when the run that owns it is done: a task after this
   * takes kernels afresh, so the runner stays usable.
   *
   * @example
   * runner.release(); // in an evaluator's close()
   */
  release(): void {
    shelveKernel(this.rffItems?.kernel);
    shelveSvKernel(this.svItems?.kernel);
    this.rowBlocks?.release();
    this.rffItems = undefined;
    this.svItems = undefined;
    this.rowBlocks = undefined;
  }

  /**
   * Runs one task: evaluates a history's chunks and writes one row of partial
   * sums per chunk (each chunk's sum starts from zero and adds its items in
   * order), or adds blocks to cached rows. Returns the units done: chunks, or rows.
   *
   * @example
   * runner.run({ ...task, chunkFrom: 0, chunkTo: 4 }); // 4
   */
  run(task: EngineTask): number {
    const [from, to] = taskRange(task);
    this.begin(task)(from, to);
    return to - from;
  }

  /**
   * Checks and prepares a task on this thread once (points loaded, buffers
   * mapped) and returns a function that runs a part `[from, to)` of its range
   * ({@link taskRange}: chunks, or rows): how a thread that takes a call's
   * units one at a time (work-board.ts) runs them. `home`, for blocks into
   * cached rows: the rows this thread takes call after call, kept loaded.
   *
   * @example
   * const part = runner.begin(task);
   * part(0, 4); part(4, 8); // the same sums as runner.run(task) over chunks [0, 8)
   */
  begin(task: EngineTask, home?: readonly [number, number]): (from: number, to: number) => void {
    if (task.kind === 'rows') return (this.rowBlocks ??= new RowBlocks()).begin(task, home);
    if (task.kind === 'sv') return this.beginWith((this.svItems ??= new SvItems()), task);
    if (riderUnits(task) === 0) return this.beginWith((this.rffItems ??= new RffItems()), task);
    // Chunks first, then the rider's rows: each part prepared the first time this thread gets some of it.
    const end = task.chunkTo * (task.slices ?? 1);
    const rider = task as RffTask & RowsRider;
    let chunks: ((from: number, to: number) => void) | undefined;
    let rows: ((from: number, to: number) => void) | undefined;
    return (i0, i1) => {
      if (i0 < end) (chunks ??= this.beginWith((this.rffItems ??= new RffItems()), task))(i0, Math.min(i1, end));
      if (i1 > end) {
        rows ??= (this.rowBlocks ??= new RowBlocks()).begin(riderTask(rider));
        rows((Math.max(i0, end) - end) * rider.riderGrain, Math.min(rider.riderN, (i1 - end) * rider.riderGrain));
      }
    };
  }

  private beginWith<T extends EvalTask>(items: ItemKernel<T>, task: T): (from: number, to: number) => void {
    const { nPoints, chunkSize } = task;
    const d = items.dimension(task);
    if (!(nPoints >= 0) || task.points.byteLength < 8 * nPoints * d) {
      throw new RangeError(`evaluation task: points buffer holds ${task.points.byteLength} bytes, need ${8 * nPoints * d}`);
    }
    const results = new Float64Array(task.results);
    if (results.length < (task.chunkTo - task.resultBase) * nPoints) throw new RangeError('evaluation task: results buffer too small');
    const chunkSum = items.prepare(task);
    const S = task.slices ?? 1;
    // Range indices [i0, i1) are slices: chunk c's slices s0 … s1 − 1 sum its items at those slices' points.
    return (i0, i1) => {
      for (let c = Math.floor(i0 / S); c * S < i1; c++) {
        const p0 = sliceStart(Math.max(i0, c * S) - c * S, S, nPoints);
        const p1 = sliceStart(Math.min(i1, (c + 1) * S) - c * S, S, nPoints);
        if (p1 <= p0) continue;
        const from = Math.max(c * chunkSize, task.firstBlock);
        const to = Math.min((c + 1) * chunkSize, task.lastBlock);
        results.set(chunkSum(from, to, p0, p1), (c - task.resultBase) * nPoints + p0);
      }
    };
  }
}

/**
 * The range a task's work is cut along: its chunks `[chunkFrom, chunkTo)` (in
 * slices when the task cuts its chunks into point slices), then its rider's
 * rows in groups of `riderGrain` ({@link RowsRider}); or for blocks into
 * cached rows its rows `[rowFrom, rowTo)`.
 *
 * @example
 * taskRange({ ...evalTask, chunkFrom: 3, chunkTo: 9 });            // [3, 9]
 * taskRange({ ...evalTask, chunkFrom: 3, chunkTo: 9, slices: 4 }); // [12, 36]
 * taskRange({ ...evalTask, chunkFrom: 3, chunkTo: 9, ...rider });   // [3, 25]: 1,000 rows of a rider in 16 indices of 64
 */
export function taskRange(task: EngineTask): [number, number] {
  if (task.kind === 'rows') return [task.rowFrom, task.rowTo];
  const S = task.slices ?? 1;
  return [task.chunkFrom * S, task.chunkTo * S + riderUnits(task)];
}
