/**
 * The file readers' row kernel (WebAssembly SIMD, engine/wasm/assembly/rows.ts):
 * a block of columns read from a file turned into rows, checked for
 * non-finite values and, when asked, scaled, in one pass over the block — the
 * per-value work of a pass over a wide file, about 3× faster than the same
 * loops in JavaScript (bench/results/read-passes.txt), with the same bits.
 *
 * One kernel serves one pass: its buffers live in its own wasm memory, sized
 * once (never grown, so the views handed out stay valid), and the reader reads
 * a block's columns straight into {@link RowKernel.column}.
 *
 * @example
 * const k = new RowKernel(8192, 129, 130);   // 8,192 rows, 129 features, one more column (labels)
 * k.setScaling(scaler);                       // optional
 * // read column j of an n-row block into k.column(j, n), then:
 * const ok = k.toRows(n, true);               // k.X: n rows, scaled as scaler.transformInPlace would
 * const fine = k.finite(n);                   // or only check the columns where they are
 */
import { instantiate, memoryEnsure, regions, type WasmMemory } from '../engine/wasm-host.ts';
import { ROWS_WASM_BASE64 } from '../engine/wasm/rows-wasm.generated.ts';
import type { MinMaxScaler } from './scaler.ts';

interface RowsExports {
  memory: WasmMemory;
  heapBase(): number;
  toRows(V: number, stride: number, n: number, d: number, X: number, lo: number, inv: number, mode: number): number;
  finite(V: number, stride: number, n: number, d: number): number;
}

export class RowKernel {
  /** The block's rows, `d` values a row (what {@link toRows} writes). */
  readonly X: Float64Array;
  /** Doubles from one column's start to the next's: the rows plus 8, so columns do not fall on the same cache sets. */
  private readonly stride: number;
  private readonly values: Float64Array;
  private readonly ex: RowsExports;
  private readonly at: { values: number; X: number; lo: number; inv: number };
  private mode = 0;

  /**
   * @param rows the most rows a block holds
   * @param d features a row
   * @param columns columns read a block (the features first, then e.g. the label column)
   */
  constructor(
    readonly rows: number,
    readonly d: number,
    readonly columns: number,
  ) {
    if (!(Number.isInteger(rows) && rows > 0 && Number.isInteger(d) && d >= 0 && Number.isInteger(columns) && columns >= d)) throw new RangeError(`RowKernel: ${rows} rows, ${d} features, ${columns} columns`);
    this.ex = instantiate<RowsExports>(ROWS_WASM_BASE64);
    this.stride = rows + 8;
    const { take, end } = regions(this.ex.heapBase());
    this.at = { values: take(this.stride * Math.max(1, columns)), X: take(rows * d), lo: take(d), inv: take(d) };
    memoryEnsure(this.ex.memory, end(), () => `RowKernel: ${rows} rows of ${d} features`);
    const buffer = this.ex.memory.buffer;
    this.values = new Float64Array(buffer, this.at.values, this.stride * Math.max(1, columns));
    this.X = new Float64Array(buffer, this.at.X, rows * d);
  }

  /** Where column `j`'s values for an `n`-row block go (and are read from). */
  column(j: number, n: number): Float64Array {
    this.check(n);
    if (!(Number.isInteger(j) && j >= 0 && j < this.columns)) throw new RangeError(`RowKernel: column ${j} of ${this.columns}`);
    return this.values.subarray(j * this.stride, j * this.stride + n);
  }

  /** The scaling {@link toRows} applies when asked: `scaler`'s, as its `transformInPlace` applies it. */
  setScaling(scaler: MinMaxScaler): void {
    if (scaler.d !== this.d) throw new RangeError(`RowKernel: a scaler of ${scaler.d} features for rows of ${this.d}`);
    const buffer = this.ex.memory.buffer;
    new Float64Array(buffer, this.at.lo, this.d).set(scaler.min);
    new Float64Array(buffer, this.at.inv, this.d).set(scaler.factors);
    this.mode = scaler.clipQuantile > 0 ? 2 : 1;
  }

  /**
   * Rows `0 … n − 1` of the first `d` columns into {@link X}, scaled when
   * `scale` (by {@link setScaling}'s scaler); false when a value read was not
   * finite (then X holds the rows as read, unscaled, for the caller to name it).
   */
  toRows(n: number, scale: boolean): boolean {
    this.check(n);
    if (scale && this.mode === 0) throw new RangeError('RowKernel: toRows(…, scale) before setScaling');
    const { values, X, lo, inv } = this.at;
    if (this.ex.toRows(values, this.stride, n, this.d, X, lo, inv, scale ? this.mode : 0) === 1) return true;
    if (scale) this.ex.toRows(values, this.stride, n, this.d, X, lo, inv, 0);
    return false;
  }

  /**
   * Whether rows `0 … n − 1` of the first `d` columns are all finite: the
   * check of {@link toRows} without making rows, for a pass that reads the
   * block column by column (a first pass's per-column statistics).
   */
  finite(n: number): boolean {
    this.check(n);
    return this.ex.finite(this.at.values, this.stride, n, this.d) === 1;
  }

  private check(n: number): void {
    if (!(Number.isInteger(n) && n >= 0 && n <= this.rows)) throw new RangeError(`RowKernel: ${n} rows asked for, it holds ${this.rows}`);
  }
}
