/**
 * The exact-kernel kernel of the engine: `out[p] += Σ_i β_i K(c_i, x_p)` over a
 * chunk of support vectors, in WebAssembly SIMD — the support-vector
 * counterpart of {@link RffKernel}.
 *
 * Wraps the module built from `wasm/assembly/sv.ts` (see there for the
 * numerics: lanes over entries, 4-point register tiles, direct differences,
 * a vector exp). Each {@link SvKernel} owns a private wasm memory; the caller
 * writes points, then loads a chunk of entries ({@link SvKernel.gather} from
 * shared rows, or {@link SvKernel.centres}/{@link SvKernel.beta} directly) and
 * calls {@link SvKernel.accumulate}.
 *
 * Results are a deterministic function of the inputs: a point's value is
 * computed by the same operation sequence whatever other points share the
 * call, and distances are the same bits as `exactKernel`'s (summed over
 * `k = 0..d−1` in order); only exp and the order of the sum over entries
 * differ from the plain reference (`referenceSvAccumulate`).
 *
 * @module
 */
import { checkKernelSpec, type KernelSpec } from '../features/kernel-spec.ts';
import { SV_WASM_BASE64 } from './wasm/sv-wasm.generated.ts';
import { instantiate, memoryEnsure, regions, type WasmMemory } from './wasm-host.ts';

interface SvExports {
  memory: WasmMemory;
  heapBase(): number;
  accumulateRbf(X: number, n: number, d: number, C: number, S: number, B: number, E: number, negSigma: number, out: number): void;
  accumulateLaplacian(X: number, n: number, d: number, C: number, S: number, B: number, E: number, negSigma: number, out: number): void;
  expFast(x: number): number;
}

/** Entries per SIMD step in the wasm kernel; a chunk is padded to a multiple of it. */
const LANES = 4;

interface Layout {
  points: number;
  centres: number;
  beta: number;
  out: number;
  end: number;
}

function checkCount(name: string, value: number, min: number): void {
  if (!Number.isInteger(value) || value < min) throw new RangeError(`SvKernel: ${name} must be an integer ≥ ${min}, got ${value}`);
}

/**
 * Exact-kernel evaluation of up to `maxEntries` support vectors in `d`
 * dimensions at up to `maxPoints` points, in WebAssembly SIMD.
 *
 * @example
 * const k = SvKernel.create();
 * k.reserve(256, 8, 512);                         // 256 points, d = 8, chunks of up to 512 entries
 * k.points().set(X);                              // 256·8 doubles, row-major
 * k.clearOut(256);
 * k.gather(rows.X, history.rows, history.stored, 0, 512);   // entries 0..511
 * k.accumulate({ kind: 'rbf', sigma: 1 }, 256, 512);        // out[p] += Σ_i β̃_i exp(-‖x_{r_i} − x_p‖²)
 * const f = k.out().slice(0, 256);
 */
export class SvKernel {
  private readonly ex: SvExports;
  private readonly base: number;
  private lay: Layout | undefined;
  private cap = 0;
  private dim = 0;
  /** Entry capacity, a multiple of LANES: also the row stride of the transposed centres. */
  private stride = 0;

  private constructor(ex: SvExports) {
    this.ex = ex;
    this.base = ex.heapBase();
  }

  /**
   * Synchronously instantiates the embedded wasm module with its own private memory.
   *
   * @example
   * const k = SvKernel.create();
   */
  static create(): SvKernel {
    return new SvKernel(instantiate<SvExports>(SV_WASM_BASE64));
  }

  /** Dimension of the points (0 before the first {@link reserve}). */
  get d(): number {
    return this.dim;
  }

  /** Points the current views hold room for. */
  get maxPoints(): number {
    return this.cap;
  }

  /** Entries a chunk may hold (a multiple of 4; the row stride of {@link centres}). */
  get maxEntries(): number {
    return this.stride;
  }

  /**
   * Ensures room for `maxPoints` points of dimension `d` and chunks of up to
   * `maxEntries` entries. A no-op when the shape is unchanged and the room
   * already enough; otherwise lays memory out afresh (growing it if needed),
   * which invalidates every view and their contents.
   *
   * @example
   * k.reserve(1024, 28, 256);
   */
  reserve(maxPoints: number, d: number, maxEntries: number): void {
    checkCount('maxPoints', maxPoints, 0);
    checkCount('d', d, 1);
    checkCount('maxEntries', maxEntries, 1);
    const wanted = Math.ceil(maxEntries / LANES) * LANES;
    if (this.lay && d === this.dim && maxPoints <= this.cap && wanted <= this.stride) return;
    const same = d === this.dim;
    const cap = Math.max(maxPoints, same ? this.cap : 0);
    const stride = Math.max(wanted, same ? this.stride : 0);
    const { take, end } = regions(this.base);
    const lay: Layout = { points: take(cap * d), centres: take(d * stride), beta: take(stride), out: take(cap), end: 0 };
    lay.end = end();
    memoryEnsure(this.ex.memory, lay.end, () => `SvKernel: ${cap} points × d=${d}, ${stride} entries`);
    this.lay = lay;
    this.cap = cap;
    this.dim = d;
    this.stride = stride;
  }

  private layout(): Layout {
    if (!this.lay) throw new RangeError('SvKernel: call reserve() before using the kernel');
    return this.lay;
  }

  private view(offset: number, length: number): Float64Array {
    return new Float64Array(this.ex.memory.buffer, offset, length);
  }

  /**
   * Points, `maxPoints·d` doubles row-major (valid until the next {@link reserve}).
   *
   * @example
   * k.points().set(X.subarray(0, n * k.d));
   */
  points(): Float64Array {
    return this.view(this.layout().points, this.cap * this.dim);
  }

  /**
   * The chunk's centres, transposed: `centres()[k*maxEntries + i]` is component `k` of centre `i`.
   *
   * @example
   * k.centres()[2 * k.maxEntries + 5] = x5[2];
   */
  centres(): Float64Array {
    return this.view(this.layout().centres, this.dim * this.stride);
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
    this.view(this.layout().out, nPoints).fill(0);
  }

  /**
   * Loads entries `[from, to)` as the chunk: centre `i` = row `rowOf[from+i]`
   * of `X` (row-major, `d` per row), coefficient `coef[from+i]`.
   *
   * @example
   * k.gather(rows.X, history.rows, history.stored, c * S, (c + 1) * S);
   */
  gather(X: Float64Array, rowOf: Uint32Array, coef: Float64Array, from: number, to: number): void {
    const count = to - from;
    if (!(count >= 0) || count > this.stride) throw new RangeError(`SvKernel: chunk of ${count} entries does not fit ${this.stride}`);
    const d = this.dim;
    const S = this.stride;
    const C = this.centres();
    const B = this.beta();
    for (let i = 0; i < count; i++) {
      const r = rowOf[from + i] * d;
      if (r + d > X.length) throw new RangeError(`SvKernel: entry ${from + i} refers to row ${rowOf[from + i]}, beyond the ${X.length / d} rows`);
      for (let k = 0; k < d; k++) C[k * S + i] = X[r + k];
      B[i] = coef[from + i];
    }
  }

  /**
   * `out[p] += Σ_{i < nEntries} beta[i]·K(c_i, x_p)` for `p < nPoints`, with
   * the centres and coefficients as they are now. A point's result does not
   * depend on `nPoints` or on the other points.
   *
   * @example
   * k.accumulate({ kind: 'laplacian', sigma: 0.5 }, n, count);
   */
  accumulate(kernel: KernelSpec, nPoints: number, nEntries: number): void {
    this.checkPoints(nPoints);
    checkKernelSpec(kernel);
    if (!Number.isInteger(nEntries) || nEntries < 0 || nEntries > this.stride) throw new RangeError(`SvKernel: nEntries must be an integer in [0, ${this.stride}], got ${nEntries}`);
    if (nPoints === 0 || nEntries === 0) return;
    const lay = this.layout();
    // Pad to a multiple of 4 entries: zero coefficients at zero centres add exactly 0.
    const E = Math.ceil(nEntries / LANES) * LANES;
    if (E > nEntries) {
      const C = this.centres();
      const S = this.stride;
      for (let k = 0; k < this.dim; k++) C.fill(0, k * S + nEntries, k * S + E);
      this.beta().fill(0, nEntries, E);
    }
    const run = kernel.kind === 'rbf' ? this.ex.accumulateRbf : this.ex.accumulateLaplacian;
    run(lay.points, nPoints, this.dim, lay.centres, this.stride, lay.beta, E, -kernel.sigma, lay.out);
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
