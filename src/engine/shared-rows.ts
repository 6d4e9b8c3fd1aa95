/**
 * The training rows a support-vector history refers to: the (scaled) feature
 * matrix `X`, `n × d` row-major, in ONE `SharedArrayBuffer`. Every thread maps
 * it once and reads it in place; an evaluation call sends only the handle.
 *
 * Layout: `[n, d]` (Float64) then `n·d` Float64 values.
 */

const HEADER = 2;

/**
 * Rows of a feature matrix in shared memory.
 *
 * @example
 * const rows = SharedRows.from(ds.X, ds.n, ds.d); // one copy into shared memory
 * rows.row(3);                                   // a view of row 3 (d values)
 */
export class SharedRows {
  readonly buffer: SharedArrayBuffer;
  /** Number of rows. */
  readonly n: number;
  /** Values per row. */
  readonly d: number;
  /** The matrix, `n × d` row-major (a view of {@link buffer}; writable until shared with workers). */
  readonly X: Float64Array;

  /** Maps an existing buffer (a worker, given the handle) or allocates `n × d` zeros. */
  constructor(opts: { n: number; d: number } | { buffer: SharedArrayBuffer }) {
    if ('buffer' in opts) {
      this.buffer = opts.buffer;
      const head = new Float64Array(this.buffer, 0, HEADER);
      this.n = head[0];
      this.d = head[1];
    } else {
      const { n, d } = opts;
      if (!Number.isInteger(n) || n < 0) throw new RangeError(`rows: n must be a non-negative integer, got ${n}`);
      if (!Number.isInteger(d) || d < 1) throw new RangeError(`rows: d must be a positive integer, got ${d}`);
      this.buffer = new SharedArrayBuffer(8 * (HEADER + n * d));
      const head = new Float64Array(this.buffer, 0, HEADER);
      head[0] = n;
      head[1] = d;
      this.n = n;
      this.d = d;
    }
    this.X = new Float64Array(this.buffer, 8 * HEADER, this.n * this.d);
  }

  /**
   * Copies the first `n` rows of `X` (row-major, `d` per row) into shared memory.
   *
   * @example
   * const rows = SharedRows.from(X, 1000, 28);
   */
  static from(X: Float64Array, n: number, d: number): SharedRows {
    const rows = new SharedRows({ n, d });
    if (X.length < n * d) throw new RangeError(`rows: X holds ${X.length} values, need n*d = ${n * d}`);
    rows.X.set(X.subarray(0, n * d));
    return rows;
  }

  /**
   * Row `i` as a view (no copy).
   *
   * @example
   * const x = rows.row(0);
   */
  row(i: number): Float64Array {
    if (!Number.isInteger(i) || i < 0 || i >= this.n) throw new RangeError(`rows: row ${i} is not in [0, ${this.n})`);
    return this.X.subarray(i * this.d, (i + 1) * this.d);
  }
}
