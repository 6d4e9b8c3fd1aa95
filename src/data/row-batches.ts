/**
 * Rows in blocks, as the text readers produce them while streaming a file:
 * a {@link RowBuffer} fills one block of at most `capacity` rows; full blocks
 * are either written out at once (`dsgkit convert`: flat memory) or joined
 * into one {@link Dataset} matrix at the end ({@link concatBatches}). Every
 * allocation whose size the input decides goes through
 * {@link allocateFloat64}, so a file that asks for too much memory is a
 * DataError naming it, not a crash.
 */
import { DataError, type DataLocation } from '../errors.ts';

/**
 * A block of rows: `n` rows, row-major features `X` (`n × d`), labels `y`
 * (NaN = unlabeled) — or, where a file reader was asked for columns and
 * reads the block column by column (`columns` in data/arrow.ts's
 * BatchOptions), the features as `columns` and `X` empty.
 */
export interface RowBatch {
  readonly n: number;
  readonly X: Float64Array;
  readonly y: Float64Array;
  /** Feature k's `n` values at `columns[k]`, when the block was handed out by column (then `X` is empty). */
  readonly columns?: readonly Float64Array[];
}

/**
 * A zeroed Float64Array of `length` values, or a DataError located at
 * `where` saying how much memory the input asked for.
 *
 * @example
 * const X = allocateFloat64(n * d, `${n} rows × ${d} features`, { file: 'a.libsvm' });
 */
export function allocateFloat64(length: number, what: string, where: DataLocation): Float64Array {
  try {
    if (!Number.isSafeInteger(length) || length < 0) throw new RangeError(`invalid length ${length}`);
    return new Float64Array(length);
  } catch (err) {
    const gib = ((length * 8) / 2 ** 30).toPrecision(3);
    throw new DataError(`${what} need ${gib} GiB of memory, more than can be allocated`, where, { cause: err });
  }
}

/**
 * One block of rows being filled.
 *
 * @example
 * const buf = new RowBuffer(3, 65536);
 * const base = buf.add(1); // then write the row's features to buf.X[base …]
 * if (buf.full) write(buf.take()!);
 */
export class RowBuffer {
  X: Float64Array;
  y: Float64Array;
  n = 0;

  constructor(
    readonly d: number,
    readonly capacity: number,
    where: DataLocation = {},
  ) {
    this.X = allocateFloat64(d * capacity, `blocks of ${capacity} rows × ${d} features`, where);
    this.y = new Float64Array(capacity);
  }

  /** True when no more rows fit. */
  get full(): boolean {
    return this.n === this.capacity;
  }

  /** Starts a row labelled `label`; returns the offset of its features in `X`. */
  add(label: number): number {
    this.y[this.n] = label;
    return this.n++ * this.d;
  }

  /** The rows so far as a batch (undefined when none), and a fresh empty buffer. */
  take(): RowBatch | undefined {
    if (this.n === 0) return undefined;
    const batch = { n: this.n, X: this.X.subarray(0, this.n * this.d), y: this.y.subarray(0, this.n) };
    this.X = new Float64Array(this.d * this.capacity);
    this.y = new Float64Array(this.capacity);
    this.n = 0;
    return batch;
  }
}

/**
 * The rows of all `batches` as one matrix and label vector.
 *
 * @example
 * const { X, y } = concatBatches(batches, d, { file: 'big.csv' });
 */
export function concatBatches(batches: readonly RowBatch[], d: number, where: DataLocation): { X: Float64Array; y: Float64Array } {
  const n = batches.reduce((a, b) => a + b.n, 0);
  const X = allocateFloat64(n * d, `${n} rows × ${d} features`, where);
  const y = new Float64Array(n);
  let row = 0;
  for (const b of batches) {
    X.set(b.X, row * d);
    y.set(b.y, row);
    row += b.n;
  }
  return { X, y };
}
