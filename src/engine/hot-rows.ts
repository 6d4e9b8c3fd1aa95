/**
 * f at a batch from the history, except at the rows a run draws again and
 * again: a loop that evaluates its history (evaluation `history`) keeps f at
 * those "hot" rows in a {@link RowCache} and evaluates the history only at
 * the batch's other points.
 *
 * Why: QSG-S2AUC draws B positives and B negatives from the labeled rows every
 * iteration. With 200 labeled rows and B = 64, two thirds of each batch are
 * rows already seen, and evaluating the history there costs `2B·(t − 1)`
 * point-blocks at iteration t, where a cache of the 200 rows costs 200 point-
 * blocks an iteration. On 6M × 129 unlabeled rows, T = 1,000, the kernel's work
 * falls from 9.6e7 to 3.2e7 point-blocks.
 *
 * The bits do not change: a point's value never depends on the other points
 * of a call, and the cache gives the bits the history gives at its rows
 * (row-cache.ts). So the model — header included, whose `evaluation` stays
 * `history` — is the one the plain history evaluation writes.
 */
import type { Evaluator } from './evaluator.ts';
import { RowCache, type CachedRowsSource } from './row-cache.ts';

/** The batch of a loop iteration: its points and the dataset row of each. */
export interface RowsBatch {
  readonly X: Float64Array;
  readonly nPoints: number;
  readonly rows: Int32Array;
}

/** A source of a learner's draws: its size and its draws per iteration. */
export interface DrawSource {
  /** Rows the source draws from. */
  readonly size: number;
  /** Points it draws per iteration. */
  readonly draws: number;
  /** Its rows (dataset indices, ascending). */
  indices(): Int32Array;
}

/**
 * Whether a source's rows are worth a cache in a run from iteration
 * `from + 1` to `T` (see {@link hotRowsOf}). `perBlock` is what one
 * point-block of the history costs against one in a cache
 * ({@link historyBlockCost}: less than 1 for `sorf` blocks that share a
 * group's transform, which the history makes once a point and group and a
 * cache, adding one block at a time, once a point and block).
 *
 * @example
 * isHot({ size: 100, draws: 64, indices }, 0, 1000); // true: 2·100·1,000 < 64·499,500
 * isHot({ size: 6352, draws: 64, indices }, 0, 400, 0.073); // false: sorf at d = 1,497 (grants), 5.1e6 > 0.073·64·79,800
 */
export function isHot(source: DrawSource, from: number, T: number, perBlock = 1): boolean {
  const historyWork = (T * (T - 1) - from * (from - 1)) / 2;
  return source.size > 0 && 2 * source.size * T < source.draws * historyWork * perBlock;
}

/**
 * The rows worth a cache in a run from iteration `from + 1` to `T`: those of
 * every source whose cache (every row, every block: `size · T` point-blocks,
 * the blocks before `from` included) costs less than half what evaluating the
 * history at its draws does (`draws · Σ (t − 1)` point-blocks, each priced at
 * `perBlock` of a cache's; see {@link isHot}). Empty when none is.
 *
 * @example
 * hotRowsOf([{ size: 100, draws: 64, indices }, { size: 6e6, draws: 64, indices }], 0, 1000); // the 100 rows
 */
export function hotRowsOf(sources: readonly DrawSource[], from: number, T: number, perBlock = 1): Int32Array {
  const all = sources.filter((s) => isHot(s, from, T, perBlock)).map((s) => s.indices());
  const rows = new Int32Array(all.reduce((n, a) => n + a.length, 0));
  let at = 0;
  for (const a of all) {
    rows.set(a, at);
    at += a.length;
  }
  return rows.sort();
}

/**
 * f at batches, from a cache at the hot rows and the history elsewhere.
 *
 * @example
 * const hot = new HotRows({ d, rows: hotRowsOf(sources, 0, T), copyRow });
 * await hot.evaluate(evaluator, batch, f); // = await evaluator.evaluate(batch.X, batch.nPoints, f), bit for bit
 */
export class HotRows {
  readonly cache: RowCache;
  private readonly d: number;
  private coldX = new Float64Array(0);
  private coldF = new Float64Array(0);
  private hotF = new Float64Array(0);
  private hotX = new Float64Array(0);
  private coldAt = new Int32Array(0);
  private hotAt = new Int32Array(0);
  private hotRow = new Int32Array(0);
  private nCold = 0;
  private nHot = 0;
  /** Whether a dataset row is hot (indexed by row; the rows are few, the lookup once a point). */
  private readonly isHot: Set<number>;

  constructor(source: CachedRowsSource) {
    this.cache = new RowCache(source);
    this.d = source.d;
    this.isHot = new Set(source.rows);
  }

  /**
   * f at `batch` over the history as it stands (bits of `evaluator.evaluate`).
   *
   * @example
   * await hot.evaluate(evaluator, batch, f);
   */
  async evaluate(evaluator: Evaluator, batch: RowsBatch, out: Float64Array): Promise<Float64Array> {
    this.split(batch);
    await evaluator.evaluate(this.coldX, this.nCold, this.coldF);
    return this.merge(evaluator, out);
  }

  /**
   * f at `batch` over the history as `append` leaves it (bits of
   * `evaluator.evaluateAppending`): one call evaluates the history at the
   * other points and adds the blocks the cache lacks at the hot rows, while
   * `append` runs; the calling thread then computes the newest block at the
   * batch's hot points and reads them from the cache, a block behind, plus
   * that block (`Evaluator.rowsRider`).
   *
   * @example
   * await hot.evaluateAppending(evaluator, next, fNext, () => { history.shrink(factor); history.append(alpha); });
   */
  async evaluateAppending(evaluator: Evaluator, batch: RowsBatch, out: Float64Array, append: () => void): Promise<Float64Array> {
    this.split(batch);
    const { cache, nHot } = this;
    const rider = nHot > 0 ? evaluator.rowsRider(cache, this.hotX, nHot) : undefined;
    await evaluator.evaluateAppending(this.coldX, this.nCold, this.coldF, 1, append, rider);
    if (nHot > 0) {
      // A cache more than a block behind (too large for the calling thread alone, no call to ride) is brought up to date first.
      if (evaluator.lag(cache) > 1) await evaluator.updateRows(cache);
      evaluator.readRows(cache, this.hotRow, this.hotX, nHot, this.hotF);
    }
    return this.place(out);
  }

  /** The batch's points: the cold ones copied together, in order, and the hot ones, with their rows. */
  private split(batch: RowsBatch): void {
    const { d } = this;
    const { X, nPoints, rows } = batch;
    if (this.coldAt.length < nPoints) {
      this.coldX = new Float64Array(nPoints * d);
      this.coldF = new Float64Array(nPoints);
      this.hotX = new Float64Array(nPoints * d);
      this.hotF = new Float64Array(nPoints);
      this.coldAt = new Int32Array(nPoints);
      this.hotAt = new Int32Array(nPoints);
      this.hotRow = new Int32Array(nPoints);
    }
    let nCold = 0;
    let nHot = 0;
    for (let p = 0; p < nPoints; p++) {
      if (this.isHot.has(rows[p])) {
        this.hotX.set(X.subarray(p * d, p * d + d), nHot * d);
        this.hotAt[nHot] = p;
        this.hotRow[nHot++] = rows[p];
      } else {
        this.coldX.set(X.subarray(p * d, p * d + d), nCold * d);
        this.coldAt[nCold++] = p;
      }
    }
    this.nCold = nCold;
    this.nHot = nHot;
  }

  /** The cache brought up to the history, read at the hot points, and both parts written to `out` in batch order. */
  private async merge(evaluator: Evaluator, out: Float64Array): Promise<Float64Array> {
    if (this.nHot > 0) {
      await evaluator.updateRows(this.cache);
      evaluator.readRows(this.cache, this.hotRow, this.hotX, this.nHot, this.hotF);
    }
    return this.place(out);
  }

  /** The cold and hot points' values written to `out` in batch order. */
  private place(out: Float64Array): Float64Array {
    const { nCold, nHot } = this;
    for (let i = 0; i < nCold; i++) out[this.coldAt[i]] = this.coldF[i];
    for (let i = 0; i < nHot; i++) out[this.hotAt[i]] = this.hotF[i];
    return out;
  }
}
