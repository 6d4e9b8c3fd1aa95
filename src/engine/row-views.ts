/**
 * Views of the fixed-width rows of a Float64Array — a history's stored
 * blocks, a frequency store's blocks — each made once and then reused. The
 * engine's hot loops copy one row per block into a kernel; a fresh
 * `subarray` per block per call is garbage that grows with the history, and
 * the scavenges it causes stall whichever call the thread is in (on many
 * threads, nearly every call has a worker in one).
 *
 * @example
 * const views = new RowViews(history.stored, history.width);
 * kernel.alpha().set(views.row(i)); // block i's coefficients, the same view every call
 */
export class RowViews {
  private readonly views: Float64Array[] = [];

  /**
   * @example
   * const rows = new RowViews(history.stored, 2 * m);
   * kernel.alpha().set(rows.row(i)); // block i's coefficients
   */
  constructor(
    readonly source: Float64Array,
    readonly width: number,
  ) {}

  /**
   * Row `i`: `source[i·width, (i + 1)·width)`, the same view every time.
   *
   * @example
   * target.set(rows.row(12));
   */
  row(i: number): Float64Array {
    return (this.views[i] ??= this.source.subarray(i * this.width, (i + 1) * this.width));
  }
}

/**
 * Whether two runs of doubles are the same bits: a memcmp, so −0 and 0 differ
 * and a NaN equals itself, as a model's bytes would. How the engine checks
 * that rows it holds are the rows it is given (a kernel's points, a shared
 * copy of a matrix) before it reuses what it made of them.
 *
 * @example
 * sameBits(Float64Array.of(0, NaN), Float64Array.of(0, NaN)); // true
 * sameBits(Float64Array.of(0), Float64Array.of(-0));          // false
 */
export function sameBits(a: Float64Array, b: Float64Array): boolean {
  return a.length === b.length && Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(Buffer.from(b.buffer, b.byteOffset, b.byteLength));
}
