/**
 * The hot kernel of the engine: random-feature evaluation in WebAssembly SIMD.
 *
 * Wraps the module built from `wasm/assembly/rff.ts` (see there for the
 * numerics: f64x2 lanes over features, 4-point tiles packed k-major, a fused
 * polynomial sincos reduced by π). Each {@link RffKernel} owns a private
 * wasm memory; the caller writes points, a block's frequencies and
 * coefficients straight into views of it, then calls
 * {@link RffKernel.accumulate} or {@link RffKernel.project}.
 *
 * Results are a deterministic function of the inputs: a point's value is
 * computed by the same operation sequence whatever other points share the call
 * and wherever it sits, and `z_pj = ω_j·x_p` is summed over `k = 0..d-1` in
 * order exactly like `reference-kernel.ts` (so `z` is bit-identical to it).
 *
 * Accuracy: |fast sin/cos − Math.sin/cos| ≤ 4e-16 for |z| ≤ 6.5e6 (π is split
 * so that the reduction is exact there); beyond, the error is about half an
 * ulp of z (graceful: z itself is no more certain); for |z| ≥ 2^51 results are
 * meaningless, as is sin/cos of such a double; NaN/±Infinity give NaN. The
 * engine's arguments (|z| ~ ‖ω‖·‖x‖, ω ~ N(0, 2σI)) sit far inside the exact range.
 *
 * @module
 */
import { RFF_WASM_BASE64 } from './wasm/rff-wasm.generated.ts';
import { instantiate, memoryEnsure, regions, type WasmMemory } from './wasm-host.ts';
import { kernelBlockWidth, paddedDimension, type FeatureFamily } from '../features/spectral.ts';

interface RffExports {
  memory: WasmMemory;
  heapBase(): number;
  accumulate(X: number, n: number, d: number, W: number, A: number, m: number, out: number, T: number): void;
  project(X: number, n: number, d: number, W: number, wt: number, m: number, G: number, T: number): void;
  padColumns(src: number, dst: number, rows: number, m: number, mp: number): void;
  accumulateSorf(X: number, n: number, d: number, N: number, S: number, A: number, m: number, out: number, Y: number): void;
  projectSorf(X: number, n: number, d: number, N: number, S: number, wt: number, m: number, G: number, Y: number): void;
  sinFast(x: number): number;
  cosFast(x: number): number;
}

/** Features per SIMD chunk in the wasm kernel; m is padded to a multiple of it. */
const CHUNK = 4;

/** Byte offsets of the regions in wasm memory for one shape. */
interface Layout {
  points: number;
  omega: number;
  alpha: number;
  out: number;
  weights: number;
  grad: number;
  /** Padded copies used when m is not a multiple of CHUNK (else equal to the above). */
  omegaPad: number;
  alphaPad: number;
  gradPad: number;
  /** Scratch of a structured block's transform (16·N bytes; 0 for dense blocks). */
  scratch: number;
  /** Scratch of a dense block's 4-point tile: packed points and their z (4·d + 4·mp doubles; 0 for sorf). */
  tile: number;
  end: number;
}

function layout(base: number, maxPoints: number, d: number, m: number, mp: number, family: FeatureFamily): Layout {
  const { take, end } = regions(base);
  const points = take(maxPoints * d);
  const omega = take(kernelBlockWidth(d, m, family));
  const alpha = take(2 * m);
  const out = take(maxPoints);
  const weights = take(maxPoints);
  const grad = take(2 * m);
  const padded = mp !== m;
  const omegaPad = padded ? take(d * mp) : omega;
  const alphaPad = padded ? take(2 * mp) : alpha;
  const gradPad = padded ? take(2 * mp) : grad;
  const scratch = family === 'sorf' ? take(2 * paddedDimension(d)) : 0;
  const tile = family === 'sorf' ? 0 : take(4 * d + 4 * mp);
  return { points, omega, alpha, out, weights, grad, omegaPad, alphaPad, gradPad, scratch, tile, end: end() };
}

function checkCount(name: string, value: number, min: number): void {
  if (!Number.isInteger(value) || value < min) {
    throw new RangeError(`RffKernel: ${name} must be an integer ≥ ${min}, got ${value}`);
  }
}

/**
 * Random-feature evaluation for one block of `m` frequencies in `d`
 * dimensions over up to `maxPoints` points, in WebAssembly SIMD.
 *
 * @example
 * const kernel = RffKernel.create();
 * kernel.reserve(256, 8, 128);                 // up to 256 points, d = 8, m = 128
 * kernel.points().set(X);                      // 256·8 doubles, row-major
 * kernel.clearOut(256);
 * for (const block of blocks) {
 *   kernel.omega().set(block.omegaT);          // omegaT[k*m + j]
 *   kernel.alpha().set(block.alpha);           // 2m coefficients
 *   kernel.accumulate(256);                    // out[p] += Σ_j a_j cos z_pj + a_{m+j} sin z_pj
 * }
 * const f = kernel.out().slice(0, 256);
 */
export class RffKernel {
  private readonly ex: RffExports;
  private readonly base: number;
  private lay: Layout | undefined;
  /** The accumulators' view {@link clearOut} reuses (undefined after a new layout). */
  private outs: Float64Array | undefined;
  private cap = 0;
  private dim = 0;
  private feats = 0;
  private mp = 0;
  private fam: FeatureFamily = 'gaussian';

  private constructor(ex: RffExports) {
    this.ex = ex;
    this.base = ex.heapBase();
  }

  /**
   * Synchronously instantiates the embedded wasm module with its own private
   * memory (the module is compiled once per thread and shared).
   *
   * @example
   * const kernel = RffKernel.create();
   */
  static create(): RffKernel {
    return new RffKernel(instantiate<RffExports>(RFF_WASM_BASE64));
  }

  /** Dimension of the points (0 before the first {@link reserve}). */
  get d(): number {
    return this.dim;
  }

  /** Frequencies per block (0 before the first {@link reserve}). */
  get m(): number {
    return this.feats;
  }

  /** Points the current views hold room for. */
  get maxPoints(): number {
    return this.cap;
  }

  /**
   * Ensures room for up to `maxPoints` points of dimension `d` and blocks of
   * `m` frequencies of `family` (`sorf` blocks are the structured form of
   * `sampleKernelBlock`, evaluated by fast Walsh–Hadamard transforms). A no-op
   * when the shape is unchanged and the capacity is already enough; otherwise
   * lays memory out afresh (growing it if needed), which invalidates every
   * view and their contents.
   *
   * @example
   * kernel.reserve(1024, 28, 128);
   * kernel.reserve(256, 784, 64, 'sorf');
   */
  reserve(maxPoints: number, d: number, m: number, family: FeatureFamily = 'gaussian'): void {
    checkCount('maxPoints', maxPoints, 0);
    checkCount('d', d, 1);
    checkCount('m', m, 1);
    const same = d === this.dim && m === this.feats && family === this.fam;
    if (this.lay && same && maxPoints <= this.cap) return;
    const cap = Math.max(maxPoints, same ? this.cap : 0);
    const mp = family === 'sorf' ? m : Math.ceil(m / CHUNK) * CHUNK;
    const lay = layout(this.base, cap, d, m, mp, family);
    memoryEnsure(this.ex.memory, lay.end, () => `RffKernel: ${cap} points × d=${d}, m=${m}`);
    this.lay = lay;
    this.outs = undefined;
    this.cap = cap;
    this.dim = d;
    this.feats = m;
    this.mp = mp;
    this.fam = family;
    // Padding columns of the padded copies stay zero: padColumns rewrites them
    // on every call, but grad's padding is never read.
  }

  private layout(): Layout {
    if (!this.lay) throw new RangeError('RffKernel: call reserve() before using the kernel');
    return this.lay;
  }

  private view(offset: number, length: number): Float64Array {
    return new Float64Array(this.ex.memory.buffer, offset, length);
  }

  /**
   * Points, `maxPoints·d` doubles row-major (valid until the next {@link reserve}).
   *
   * @example
   * kernel.points().set(X.subarray(0, n * kernel.d));
   */
  points(): Float64Array {
    return this.view(this.layout().points, this.cap * this.dim);
  }

  /** The family of the blocks {@link omega} holds. */
  get family(): FeatureFamily {
    return this.fam;
  }

  /**
   * The block's frequencies, `d·m` doubles transposed: `omega()[k*m + j]` is
   * component `k` of `ω_j`; for `sorf` the structured block of
   * `sampleKernelBlock` (`kernelBlockWidth` doubles).
   *
   * @example
   * kernel.omega().set(omegaT);
   */
  omega(): Float64Array {
    return this.view(this.layout().omega, kernelBlockWidth(this.dim, this.feats, this.fam));
  }

  /**
   * The block's `2m` coefficients: `m` for cos, then `m` for sin.
   *
   * @example
   * kernel.alpha().set(alpha);
   */
  alpha(): Float64Array {
    return this.view(this.layout().alpha, 2 * this.feats);
  }

  /**
   * `maxPoints` accumulators that {@link accumulate} adds to.
   *
   * @example
   * const f = kernel.out().slice(0, n);
   */
  out(): Float64Array {
    return this.view(this.layout().out, this.cap);
  }

  /**
   * `maxPoints` per-point weights read by {@link project}.
   *
   * @example
   * kernel.weights().set(residuals);
   */
  weights(): Float64Array {
    return this.view(this.layout().weights, this.cap);
  }

  /**
   * The `2m` outputs of {@link project}: `m` cos sums, then `m` sin sums.
   *
   * @example
   * const g = kernel.grad().slice();
   */
  grad(): Float64Array {
    return this.view(this.layout().grad, 2 * this.feats);
  }

  private checkPoints(nPoints: number): void {
    this.layout();
    if (!Number.isInteger(nPoints) || nPoints < 0 || nPoints > this.cap) {
      throw new RangeError(`RffKernel: nPoints must be an integer in [0, ${this.cap}], got ${nPoints}`);
    }
  }

  /**
   * Sets `out[p] = 0` for `p < nPoints`.
   *
   * @example
   * kernel.clearOut(n);
   */
  clearOut(nPoints: number): void {
    this.checkPoints(nPoints);
    // One view of the accumulators per layout (the memory grows only in reserve(), which drops it): called once per chunk.
    (this.outs ??= this.out()).fill(0, 0, nPoints);
  }

  /**
   * `out[p] += Σ_j alpha[j]·cos(z_pj) + alpha[m+j]·sin(z_pj)` for
   * `first ≤ p < first + nPoints`, with `z_pj = ω_j·x_p`, using {@link omega}
   * and {@link alpha} as they are now. A point's result does not depend on
   * `nPoints`, on `first` or on the other points.
   *
   * @example
   * kernel.accumulate(n);        // points 0 … n−1
   * kernel.accumulate(64, 128);  // points 128 … 191 only
   */
  accumulate(nPoints: number, first = 0): void {
    if (!Number.isInteger(first) || first < 0) throw new RangeError(`RffKernel: first must be an integer ≥ 0, got ${first}`);
    this.checkPoints(first + nPoints);
    if (nPoints === 0) return;
    const lay = this.layout();
    if (this.fam === 'sorf') {
      this.ex.accumulateSorf(lay.points + 8 * first * this.dim, nPoints, this.dim, paddedDimension(this.dim), lay.omega, lay.alpha, this.feats, lay.out + 8 * first, lay.scratch);
      return;
    }
    this.pad(lay);
    this.ex.accumulate(lay.points + 8 * first * this.dim, nPoints, this.dim, lay.omegaPad, lay.alphaPad, this.mp, lay.out + 8 * first, lay.tile);
  }

  /**
   * `grad[j] = Σ_p weights[p]·cos(z_pj)` and `grad[m+j] = Σ_p weights[p]·sin(z_pj)`
   * over `p < nPoints`, summed in increasing `p` (overwrites {@link grad}).
   *
   * @example
   * kernel.weights().set(w);
   * kernel.project(n);
   * const g = kernel.grad();
   */
  project(nPoints: number): void {
    this.checkPoints(nPoints);
    const lay = this.layout();
    const m = this.feats;
    const mp = this.mp;
    if (this.fam === 'sorf') {
      this.ex.projectSorf(lay.points, nPoints, this.dim, paddedDimension(this.dim), lay.omega, lay.weights, m, lay.grad, lay.scratch);
      return;
    }
    if (mp === m) {
      this.ex.project(lay.points, nPoints, this.dim, lay.omega, lay.weights, m, lay.grad, lay.tile);
      return;
    }
    this.ex.padColumns(lay.omega, lay.omegaPad, this.dim, m, mp);
    this.ex.project(lay.points, nPoints, this.dim, lay.omegaPad, lay.weights, mp, lay.gradPad, lay.tile);
    const padded = this.view(lay.gradPad, 2 * mp);
    const grad = this.grad();
    grad.set(padded.subarray(0, m), 0);
    grad.set(padded.subarray(mp, mp + m), m);
  }

  private pad(lay: Layout): void {
    if (this.mp === this.feats) return;
    this.ex.padColumns(lay.omega, lay.omegaPad, this.dim, this.feats, this.mp);
    this.ex.padColumns(lay.alpha, lay.alphaPad, 2, this.feats, this.mp);
  }

  /**
   * The kernel's own `sin`, one value at a time (for accuracy checks).
   *
   * @example
   * Math.abs(kernel.fastSin(1) - Math.sin(1)) < 1e-15; // true
   */
  fastSin(x: number): number {
    return this.ex.sinFast(x);
  }

  /**
   * The kernel's own `cos`, one value at a time (for accuracy checks).
   *
   * @example
   * Math.abs(kernel.fastCos(1) - Math.cos(1)) < 1e-15; // true
   */
  fastCos(x: number): number {
    return this.ex.cosFast(x);
  }
}
