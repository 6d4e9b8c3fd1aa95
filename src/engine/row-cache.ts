/**
 * `f` kept at every training row a learner draws from: the second way to get
 * the batch's values, besides evaluating the whole history at the batch
 * (O(t·B) point-blocks at iteration t). Each iteration adds only the new block
 * at every cached row: O(n) point-blocks per iteration.
 *
 * The cache gives THE SAME BITS as evaluating the history, because it keeps
 * the history's order of summation (chunks.ts): per row, `R` is the sum of the
 * finished chunks' partial sums added in chunk order from 0 (what
 * `reduceChunks` does), and `P` is the current chunk's partial sum, its blocks
 * added in block order from 0 by the same kernel (a point's value never
 * depends on the other points of a call). `f = (R + P) · s/√m`, exactly
 * `finish()` of evaluator.ts. Both are in STORED units (before the history's
 * lazy scale `s`), so the shrink of step 5 costs nothing here.
 *
 * So a run keeping f at its rows is the very model a run evaluating the
 * history is, on any number of threads, and continuing a run (the cache
 * rebuilt from the saved blocks) is the run done at once. When the history
 * folds its scale into the stored values or drops blocks, the cache is rebuilt
 * from the live blocks (Evaluator.updateRows). The rows are copied once into
 * shared memory (shared-rows.ts) that every thread reads in place.
 */
import { SharedRows } from './shared-rows.ts';

/**
 * Whether adding block `i` to sums that started at block `first` opens a new
 * chunk of `chunkSize` blocks: `P` then joins `R` (`R += P`, as
 * `reduceChunks` adds a finished chunk) and restarts from 0. The one rule
 * behind every place that extends cached sums, so they agree bit for bit.
 *
 * @example
 * opensChunk(8, 4, 0); // true: block 8 starts chunk 2
 * opensChunk(8, 4, 8); // false: the sums start there
 */
export function opensChunk(i: number, chunkSize: number, first: number): boolean {
  return i % chunkSize === 0 && i > first;
}

/** The rows a learner draws its batches from (see `SampledRows` in coordinator/learner.ts). */
export interface CachedRowsSource {
  readonly d: number;
  /** Dataset row indices that batches may contain, ascending, no repeats. */
  readonly rows: Int32Array;
  /** Copies the (scaled) features of dataset row `i` into `X` at row `at`. */
  copyRow(i: number, X: Float64Array, at: number): void;
}

/**
 * Cached sums of a random-feature history at a fixed set of rows, in the
 * history's chunk order.
 *
 * @example
 * const cache = new RowCache({ d: ds.d, rows: allRows, copyRow: datasetRows(ds).copyRow });
 * await evaluator.updateRows(cache);            // R, P at every row, over the history as it stands
 * cache.read(batch.rows, batch.nPoints, evaluator.rowFactor(), f); // f at the batch's rows
 */
export class RowCache {
  /** The cached rows' features in shared memory, in slot order. */
  readonly shared: SharedRows;
  /** `R` (slots `0…n−1`) then `P` (slots `n…2n−1`), shared with the workers. */
  readonly values: SharedArrayBuffer;
  /** Cached rows. */
  readonly n: number;
  /** Slot of each dataset row (−1: not cached); undefined when the rows are sparse (few rows of a large file: a binary search in `rows` instead). */
  private readonly slot: Int32Array | undefined;
  /** The cached rows, ascending (slot order). */
  private readonly rows: Int32Array;
  private readonly R: Float64Array;
  private readonly P: Float64Array;
  /** `R + P` covers blocks `[first, upTo)` of the history. */
  private first = 0;
  private upTo = 0;
  /** The history's renormalisation count the sums were built under. */
  private epoch = 0;

  constructor(source: CachedRowsSource) {
    const { d, rows } = source;
    const n = rows.length;
    let max = -1;
    for (let s = 0; s < n; s++) {
      if (!(rows[s] > max)) throw new RangeError(`row cache: rows must be ascending without repeats (row ${rows[s]} at slot ${s})`);
      max = rows[s];
    }
    this.n = n;
    this.shared = new SharedRows({ n, d });
    for (let s = 0; s < n; s++) source.copyRow(rows[s], this.shared.X, s);
    this.rows = rows;
    // A table by row when it is not much larger than the rows (a few hundred labeled rows of a 6M-row file would take 24 MB).
    if (max < 4 * n + 4096) {
      const slot = (this.slot = new Int32Array(max + 1).fill(-1));
      for (let s = 0; s < n; s++) slot[rows[s]] = s;
    }
    this.values = new SharedArrayBuffer(8 * Math.max(1, 2 * n));
    this.R = new Float64Array(this.values, 0, n);
    this.P = new Float64Array(this.values, 8 * n, n);
  }

  /** First block the sums cover (the history's first live block when they were reset). */
  get firstBlock(): number {
    return this.first;
  }

  /** Blocks `[firstBlock, blocks)` are in the sums. */
  get blocks(): number {
    return this.upTo;
  }

  /** The history renormalisation count the sums were built under. */
  get renormalisations(): number {
    return this.epoch;
  }

  /**
   * Empties the sums to cover no block, starting at `firstBlock`, under the history's renormalisation count `epoch`.
   *
   * @example
   * cache.reset(history.firstLive, history.renormalisations);
   */
  reset(firstBlock: number, epoch: number): void {
    this.R.fill(0);
    this.P.fill(0);
    this.first = firstBlock;
    this.upTo = firstBlock;
    this.epoch = epoch;
  }

  /**
   * Records that blocks up to `upTo` have been added at every row.
   *
   * @example
   * cache.covered(history.t);
   */
  covered(upTo: number): void {
    if (!(upTo >= this.upTo)) throw new RangeError(`row cache: cannot go back from ${this.upTo} blocks to ${upTo}`);
    this.upTo = upTo;
  }

  /**
   * `out[p] = (R + P) · factor` at the slot of `rows[p]`, for `p < nPoints`
   * (factor = `s/√m` of the history); 0 while the sums cover no block, as
   * the history's evaluation gives. A row that is not cached is a RangeError naming it.
   *
   * @example
   * cache.read(batch.rows, batch.nPoints, s / Math.sqrt(m), f);
   */
  read(rows: Int32Array, nPoints: number, factor: number, out: Float64Array): Float64Array {
    const { R, P } = this;
    const empty = this.upTo <= this.first;
    for (let p = 0; p < nPoints; p++) {
      const s = this.slotOf(rows[p]);
      out[p] = empty ? 0 : (R[s] + P[s]) * factor;
    }
    return out;
  }

  /**
   * Copies the sums `R` and `P` at the slots of `rows[p]`, `p < nPoints`, into
   * `r` and `q`: for extending them by blocks the cache has not added yet
   * (`Evaluator.readRows`). A row that is not cached is a RangeError naming it.
   *
   * @example
   * cache.sumsAt(batch.rows, n, r, q);
   */
  sumsAt(rows: Int32Array, nPoints: number, r: Float64Array, q: Float64Array): void {
    for (let p = 0; p < nPoints; p++) {
      const s = this.slotOf(rows[p]);
      r[p] = this.R[s];
      q[p] = this.P[s];
    }
  }

  private slotOf(row: number): number {
    const s = this.slot !== undefined ? this.slot[row] : searchSorted(this.rows, row);
    if (s === undefined || s < 0) throw new RangeError(`row cache: row ${row} of the batch is not one of the cached rows`);
    return s;
  }
}

/** The index of `row` in the ascending `rows`, −1 when it is not there. */
function searchSorted(rows: Int32Array, row: number): number {
  let lo = 0;
  let hi = rows.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    if (rows[mid] < row) lo = mid + 1;
    else if (rows[mid] > row) hi = mid - 1;
    else return mid;
  }
  return -1;
}
