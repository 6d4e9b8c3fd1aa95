/**
 * The exact-kernel kernel of the engine: `out[p] += Σ_i β_i K(x_{r_i}, x_p)`
 * over a chunk of support-vector entries, in WebAssembly SIMD — the
 * support-vector counterpart of {@link RffKernel}.
 *
 * Wraps the module built from `wasm/assembly/sv.ts` (see there for the
 * numerics: lanes over entries, 4-point register tiles, direct differences,
 * a vector exp). Unlike the random-feature kernel, the module does not own its
 * memory: it imports the shared memory of a {@link SharedRows}, reads the
 * training rows there in place, and claims a private scratch region past them
 * (points, the chunk's row indices and coefficients, sums) by growing that
 * memory — an atomic operation, so every thread gets its own region.
 *
 * Results are a deterministic function of the inputs: a point's value is
 * computed by the same operation sequence whatever other points share the
 * call, and distances are the same bits as `exactKernel`'s (summed over
 * `k = 0..d−1` in order); only exp and the order of the sum over entries
 * differ from the plain reference (`referenceSvAccumulate`). The distances
 * skip the columns that are zero in every row and every point given
 * ({@link SvKernel.setPoints}): their terms are +0, which leave a sum's bits as
 * they are (features/zero-columns.ts), and on images, whose blank border
 * scales to 0, they are four columns in ten.
 *
 * @module
 */
import { checkKernelSpec, type KernelSpec } from '../features/kernel-spec.ts';
import { nonZeroColumns } from '../features/zero-columns.ts';
import type { SharedRows } from './shared-rows.ts';
import { SV_WASM_BASE64 } from './wasm/sv-wasm.generated.ts';
import { instantiate, PAGE, regions, type WasmMemory } from './wasm-host.ts';

interface SvExports {
  heapBase(): number;
  accumulateRbf(X: number, n: number, d: number, R: number, I: number, B: number, E: number, C: number, nc: number, negSigma: number, out: number): void;
  accumulateLaplacian(X: number, n: number, d: number, R: number, I: number, B: number, E: number, C: number, nc: number, negSigma: number, out: number): void;
  expFast(x: number): number;
}

/** Entries per SIMD step in the wasm kernel; a chunk is padded to a multiple of it. */
const LANES = 4;

interface Layout {
  points: number;
  /** The columns the distances run over (Uint32 byte offsets k·8, ascending), set with the points. */
  columns: number;
  /** Row index of each entry of the chunk (Uint32). */
  index: number;
  beta: number;
  out: number;
}

function checkCount(name: string, value: number, min: number): void {
  if (!Number.isInteger(value) || value < min) throw new RangeError(`SvKernel: ${name} must be an integer ≥ ${min}, got ${value}`);
}

/**
 * Exact-kernel evaluation of chunks of up to `maxEntries` support vectors —
 * rows of one {@link SharedRows} — at up to `maxPoints` points, in WebAssembly SIMD.
 *
 * @example
 * const k = SvKernel.create(rows);                // rows: SharedRows, n × d
 * k.reserve(256, 512);                            // 256 points, chunks of up to 512 entries
 * k.points().set(X);                              // 256·d doubles, row-major
 * k.clearOut(256);
 * k.load(history.rows, history.stored, 0, 512);   // entries 0..511: row indices and coefficients
 * k.accumulate({ kind: 'rbf', sigma: 1 }, 256, 512); // out[p] += Σ_i β̃_i exp(-‖x_{r_i} − x_p‖²)
 * const f = k.out().slice(0, 256);
 */
export class SvKernel {
  /** The rows this kernel reads. */
  readonly rows: SharedRows;
  private readonly ex: SvExports;
  private readonly memory: WasmMemory;
  private lay: Layout | undefined;
  /** The views of the chunk being summed (see `chunk()`); undefined after a new layout. */
  private chunkViews: { index: Uint32Array; beta: Float64Array; out: Float64Array } | undefined;
  private cap = 0;
  private stride = 0;
  /** Whether column k is non-zero in some row (scanned once, on the first points set). */
  private rowColumns: Uint8Array | undefined;
  /** The columns zero in every row (the complement of {@link rowColumns}), the only ones the points are scanned for. */
  private rowZeroColumns: Uint32Array | undefined;
  /** Columns listed at `columns` for the points set last. */
  private nc = 0;

  private constructor(rows: SharedRows) {
    this.rows = rows;
    this.memory = rows.memory;
    this.ex = instantiate<SvExports & { memory: WasmMemory }>(SV_WASM_BASE64, rows.memory);
    if (this.ex.heapBase() > rows.offset - 32) throw new Error(`SvKernel: the module's static data (${this.ex.heapBase()} bytes) overlaps the rows`);
  }

  /**
   * Instantiates the embedded wasm module on the shared memory of `rows`.
   *
   * @example
   * const k = SvKernel.create(SharedRows.from(X, n, d));
   */
  static create(rows: SharedRows): SvKernel {
    return new SvKernel(rows);
  }

  /** Dimension of the points (the rows'). */
  get d(): number {
    return this.rows.d;
  }

  /** Points the current views hold room for. */
  get maxPoints(): number {
    return this.cap;
  }

  /** Entries a chunk may hold (a multiple of 4). */
  get maxEntries(): number {
    return this.stride;
  }

  /**
   * Ensures room for `maxPoints` points and chunks of up to `maxEntries`
   * entries. A no-op when the room is already enough; otherwise claims a new
   * scratch region of the shared memory (by growing it), which invalidates
   * every view and their contents.
   *
   * @example
   * k.reserve(1024, 256);
   */
  reserve(maxPoints: number, maxEntries: number): void {
    checkCount('maxPoints', maxPoints, 0);
    checkCount('maxEntries', maxEntries, 1);
    const wanted = Math.ceil(maxEntries / LANES) * LANES;
    if (this.lay && maxPoints <= this.cap && wanted <= this.stride) return;
    // A claimed region is never given back (the memory only grows), so claim geometrically:
    // all regions of a thread together stay under twice its largest.
    const cap = maxPoints > this.cap ? Math.max(maxPoints, 2 * this.cap) : this.cap;
    const stride = wanted > this.stride ? Math.max(wanted, 2 * this.stride) : this.stride;
    const bytes = 8 * (cap * this.d + Math.ceil(this.d / 2) + stride + stride + cap) + 64;
    const pages = Math.ceil(bytes / PAGE);
    let first: number;
    try {
      first = this.memory.grow(pages);
    } catch (err) {
      throw new RangeError(`SvKernel: cannot claim ${(bytes / 2 ** 20).toFixed(0)} MiB for ${cap} points and ${stride} entries in the rows' shared memory (4 GiB at most); use smaller batches`, { cause: err });
    }
    const { take } = regions(first * PAGE);
    this.lay = { points: take(cap * this.d), columns: take(Math.ceil(this.d / 2)), index: take(stride / 2), beta: take(stride), out: take(cap) };
    this.cap = cap;
    this.stride = stride;
    this.chunkViews = undefined;
  }

  /**
   * The views every chunk uses (index, coefficients, accumulators), made once
   * per layout: a chunk is loaded and cleared many times a call, and fresh
   * views each time are garbage (see row-views.ts). The memory is shared, so
   * a view stays valid when it grows.
   */
  private chunk(): { index: Uint32Array; beta: Float64Array; out: Float64Array } {
    return (this.chunkViews ??= { index: this.index(), beta: this.beta(), out: this.out() });
  }

  private layout(): Layout {
    if (!this.lay) throw new RangeError('SvKernel: call reserve() before using the kernel');
    return this.lay;
  }

  private view(offset: number, length: number): Float64Array {
    return new Float64Array(this.memory.buffer, offset, length);
  }

  /**
   * Sets the points, the first `nPoints` rows of `X` (row-major, `d` a row),
   * and the columns the distances at them run over: those non-zero in some
   * row or some of these points.
   *
   * @example
   * k.setPoints(X, n);
   */
  setPoints(X: Float64Array, nPoints: number): void {
    this.checkPoints(nPoints);
    const d = this.d;
    if (X.length < nPoints * d) throw new RangeError(`SvKernel: ${nPoints} points need ${nPoints * d} values, got ${X.length}`);
    const lay = this.layout();
    const points = this.view(lay.points, nPoints * d);
    const used = (this.rowColumns ??= nonZeroColumns(this.rows.X, this.rows.n, d));
    // Only the columns zero in every row are looked up in the points (a training batch, rows themselves, has none there).
    const zeroInRows = (this.rowZeroColumns ??= Uint32Array.from(Array.from(used.keys()).filter((k) => used[k] === 0)));
    const pointColumns = new Uint8Array(d);
    if (zeroInRows.length === 0) {
      points.set(X.subarray(0, nPoints * d));
    } else {
      // A few rows at a time (≤ 32 KiB), each looked up while the copy has it in cache: on wide rows a lookup
      // of a column across all points is a cache miss a point (5 s of a LapSVM search on grants, d = 1,497).
      const step = Math.max(1, Math.floor(4096 / d));
      for (let i0 = 0; i0 < nPoints; i0 += step) {
        const end = Math.min(nPoints, i0 + step) * d;
        points.set(X.subarray(i0 * d, end), i0 * d);
        for (let j = 0; j < zeroInRows.length; j++) {
          const k = zeroInRows[j];
          if (pointColumns[k]) continue;
          for (let at = i0 * d + k; at < end; at += d) {
            if (X[at] !== 0) {
              pointColumns[k] = 1;
              break;
            }
          }
        }
      }
    }
    const columns = new Uint32Array(this.memory.buffer, lay.columns, d);
    let nc = 0;
    for (let k = 0; k < d; k++) if (used[k] || pointColumns[k]) columns[nc++] = 8 * k;
    this.nc = nc;
  }

  /**
   * The chunk's row indices, `maxEntries` Uint32 (entry `i` is row `index()[i]` of the rows).
   *
   * @example
   * k.index().set([4, 8, 15]);
   */
  index(): Uint32Array {
    return new Uint32Array(this.memory.buffer, this.layout().index, this.stride);
  }

  /**
   * The chunk's coefficients, `maxEntries` doubles.
   *
   * @example
   * k.beta().set(coefficients);
   */
  beta(): Float64Array {
    return this.view(this.layout().beta, this.stride);
  }

  /**
   * `maxPoints` accumulators that {@link accumulate} adds to.
   *
   * @example
   * const f = k.out().slice(0, n);
   */
  out(): Float64Array {
    return this.view(this.layout().out, this.cap);
  }

  private checkPoints(nPoints: number): void {
    this.layout();
    if (!Number.isInteger(nPoints) || nPoints < 0 || nPoints > this.cap) {
      throw new RangeError(`SvKernel: nPoints must be an integer in [0, ${this.cap}], got ${nPoints}`);
    }
  }

  /**
   * Sets `out[p] = 0` for `p < nPoints`.
   *
   * @example
   * k.clearOut(n);
   */
  clearOut(nPoints: number): void {
    this.checkPoints(nPoints);
    this.chunk().out.fill(0, 0, nPoints);
  }

  /**
   * Loads entries `[from, to)` as the chunk: row index `rowOf[e]` and
   * coefficient `coef[e]` (2 numbers per entry; the rows stay where they are).
   *
   * @example
   * k.load(history.rows, history.stored, c * S, (c + 1) * S);
   */
  load(rowOf: Uint32Array, coef: Float64Array, from: number, to: number): void {
    const count = to - from;
    if (!(count >= 0) || count > this.stride) throw new RangeError(`SvKernel: chunk of ${count} entries does not fit ${this.stride}`);
    const { index, beta } = this.chunk();
    const n = this.rows.n;
    for (let i = 0; i < count; i++) {
      const r = rowOf[from + i];
      if (r >= n) throw new RangeError(`SvKernel: entry ${from + i} refers to row ${r}, beyond the ${n} rows`);
      index[i] = r;
      beta[i] = coef[from + i];
    }
  }

  /**
   * `out[p] += Σ_{i < nEntries} beta[i]·K(x_{index[i]}, x_p)` for
   * `first ≤ p < first + nPoints`, with the chunk as it is now. A point's
   * result does not depend on `nPoints`, on `first` or on the other points.
   *
   * @example
   * k.accumulate({ kind: 'laplacian', sigma: 0.5 }, n, count);
   * k.accumulate({ kind: 'rbf', sigma: 1 }, 48, count, 96); // points 96 … 143 only
   */
  accumulate(kernel: KernelSpec, nPoints: number, nEntries: number, first = 0): void {
    if (!Number.isInteger(first) || first < 0) throw new RangeError(`SvKernel: first must be an integer ≥ 0, got ${first}`);
    this.checkPoints(first + nPoints);
    checkKernelSpec(kernel);
    if (!Number.isInteger(nEntries) || nEntries < 0 || nEntries > this.stride) throw new RangeError(`SvKernel: nEntries must be an integer in [0, ${this.stride}], got ${nEntries}`);
    if (nPoints === 0 || nEntries === 0) return;
    const lay = this.layout();
    // Pad to a multiple of 4 entries: zero coefficients on row 0 add exactly 0.
    const E = Math.ceil(nEntries / LANES) * LANES;
    if (E > nEntries) {
      const { index, beta } = this.chunk();
      index.fill(0, nEntries, E);
      beta.fill(0, nEntries, E);
    }
    const run = kernel.kind === 'rbf' ? this.ex.accumulateRbf : this.ex.accumulateLaplacian;
    run(lay.points + 8 * first * this.d, nPoints, this.d, this.rows.offset, lay.index, lay.beta, E, lay.columns, this.nc, -kernel.sigma, lay.out + 8 * first);
  }

  /**
   * The kernel's own `exp` for `x ≤ 0`, one value at a time (for accuracy checks).
   *
   * @example
   * Math.abs(k.fastExp(-1) - Math.exp(-1)) < 1e-16; // true
   */
  fastExp(x: number): number {
    return this.ex.expFast(x);
  }
}
