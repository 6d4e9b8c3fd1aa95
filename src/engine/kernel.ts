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
import { kernelBlockWidth, paddedDimension, sorfGroupBlocks, sorfPlace, type FeatureFamily } from '../features/spectral.ts';
import type { FrequencyStore } from './frequency-store.ts';
import { sameBits } from './row-views.ts';

interface RffExports {
  memory: WasmMemory;
  heapBase(): number;
  accumulate(X: number, n: number, d: number, W: number, A: number, m: number, out: number, T: number): void;
  project(X: number, n: number, d: number, W: number, wt: number, m: number, G: number, T: number): void;
  padColumns(src: number, dst: number, rows: number, m: number, mp: number): void;
  accumulateSorf(X: number, n: number, d: number, N: number, S: number, A: number, m: number, out: number, Y: number): void;
  projectSorf(X: number, n: number, d: number, N: number, S: number, wt: number, m: number, G: number, Y: number): void;
  sorfTransform(X: number, n: number, d: number, N: number, S: number, Z: number): void;
  accumulateRows(Z: number, s0: number, n: number, N: number, r0: number, A: number, m: number, out: number): void;
  projectRows(Z: number, s0: number, n: number, N: number, r0: number, wt: number, m: number, G: number): void;
  sameBits(a: number, b: number, bytes: number): number;
  sinFast(x: number): number;
  cosFast(x: number): number;
}

/** Features per SIMD chunk in the wasm kernel; m is padded to a multiple of it. */
const CHUNK = 4;

/**
 * Most bytes of one kernel's held group transform (sorf blocks that share a
 * group, N doubles per point): 4 MiB holds 512 points at N = 1,024 — a
 * training batch (192 points at the defaults) whole, so every block of a
 * group after the first costs no transform; a call on more points goes in
 * tiles of {@link RffKernel.tilePoints}.
 */
export const GROUP_TRANSFORM_BYTES = 4 * 2 ** 20;

/**
 * Points one kernel's held group transform covers at input dimension `d`
 * (`sorf` blocks that share a group): {@link GROUP_TRANSFORM_BYTES} of
 * N-double transforms, never fewer than 2 (a pair is transformed together).
 *
 * @example
 * heldTransformPoints(784);  // 512 (N = 1,024)
 * heldTransformPoints(1497); // 256 (N = 2,048)
 */
export function heldTransformPoints(d: number): number {
  return Math.max(2, Math.floor(GROUP_TRANSFORM_BYTES / (8 * paddedDimension(d))));
}

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
  /** Scratch of a dense block's 4-point tile: packed points and their z (4·d + 4·mp doubles; 0 for sorf), then d u32 of packed-column offsets. */
  tile: number;
  /** Shared-group sorf: the held transform (N rows of each of zPoints points, pair by pair: sorfTransform) and its group's form (0 otherwise). */
  z: number;
  zForm: number;
  end: number;
}

function layout(base: number, maxPoints: number, d: number, m: number, mp: number, family: FeatureFamily, zPoints: number): Layout {
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
  // P (4·d), Z (4·mp), then the packed columns' offsets C (d u32 = ⌈d/2⌉ doubles).
  const tile = family === 'sorf' ? 0 : take(4 * d + 4 * mp + Math.ceil(d / 2));
  // Whole pairs: an odd last point still has its pair's N vectors.
  const z = zPoints > 0 ? take(paddedDimension(d) * (zPoints + (zPoints & 1))) : 0;
  const zForm = zPoints > 0 ? take(kernelBlockWidth(d, m, family)) : 0;
  return { points, omega, alpha, out, weights, grad, omegaPad, alphaPad, gradPad, scratch, tile, z, zForm, end: end() };
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
  /** The view of ω that {@link omega} and {@link loadBlock} hand out (undefined after a new layout): one per layout, not one per block. */
  private omegas: Float64Array | undefined;
  private cap = 0;
  private dim = 0;
  private feats = 0;
  private mp = 0;
  private fam: FeatureFamily = 'gaussian';
  /** Shared-group sorf: points the held transform has room for (0: blocks are not of that form), and the points it holds, `[zFrom, zTo)`. */
  private zPoints = 0;
  private zFrom = 0;
  private zTo = 0;
  /**
   * Shared-group sorf: the store (its buffer: every store on one buffer holds
   * one feature map's blocks) and group whose form {@link omega} holds when
   * {@link loadBlock} put it there (every slot but the first row is the
   * group's), and the same for the held transform's form; undefined when
   * unknown (ω written through a view), where the bits are compared instead.
   */
  private formStore: SharedArrayBuffer | undefined;
  private formGroup = -1;
  private zStore: SharedArrayBuffer | undefined;
  private zGroup = -1;

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

  /** Bytes of this kernel's wasm memory (it only grows). */
  get memoryBytes(): number {
    return this.ex.memory.buffer.byteLength;
  }

  /**
   * Drops what the kernel holds between calls (a group transform, which
   * store's block ω holds), keeping its memory and layout: a kernel handed to
   * another owner (kernel-shelf.ts) then starts as after {@link reserve}.
   *
   * @example
   * kernel.forget();
   */
  forget(): void {
    this.zFrom = this.zTo = 0;
    this.formStore = this.zStore = undefined;
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
    const zPoints = family === 'sorf' && sorfGroupBlocks(d, m) > 1 ? Math.max(1, Math.min(cap, heldTransformPoints(d))) : 0;
    const lay = layout(this.base, cap, d, m, mp, family, zPoints);
    memoryEnsure(this.ex.memory, lay.end, () => `RffKernel: ${cap} points × d=${d}, m=${m}`);
    this.lay = lay;
    this.outs = undefined;
    this.omegas = undefined;
    this.cap = cap;
    this.dim = d;
    this.feats = m;
    this.mp = mp;
    this.fam = family;
    this.zPoints = zPoints;
    this.zFrom = this.zTo = 0;
    this.formStore = this.zStore = undefined;
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
    // The caller writes the points through this view: a held group transform no longer holds.
    this.zFrom = this.zTo = 0;
    return this.view(this.layout().points, this.cap * this.dim);
  }

  /**
   * Points per call that get the most from blocks sharing a sorf group: a
   * caller adding several blocks of one group at many points goes over the
   * points in tiles of this many, all blocks per tile, so each point is
   * transformed once per group (Infinity when blocks are not of that form).
   *
   * @example
   * for (let q = 0; q < n; q += kernel.tilePoints) for (const i of blocks) { …; kernel.accumulate(Math.min(kernel.tilePoints, n - q), q); }
   */
  get tilePoints(): number {
    return this.zPoints > 0 ? this.zPoints : Infinity;
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
    // The caller may write any block through this view: what ω holds is no longer known.
    this.formStore = undefined;
    return this.omegaView();
  }

  private omegaView(): Float64Array {
    return (this.omegas ??= this.view(this.layout().omega, kernelBlockWidth(this.dim, this.feats, this.fam)));
  }

  /**
   * Loads block `i` of `store` into {@link omega} (`store.fill`), writing only
   * its first row when ω holds a block of the same `sorf` group of that store
   * already: blocks of a group differ in nothing else, and a group's form is
   * 3·N doubles (24 KiB at d = 784) that a history evaluation would otherwise
   * copy once per block and the held transform compare once per block. The
   * same bits in ω either way. Write ω through a view taken after the last
   * call (`omega()`), never through one taken before it.
   *
   * @example
   * for (let i = from; i < to; i++) { kernel.loadBlock(store, i); kernel.alpha().set(coefficients(i)); kernel.accumulate(n); }
   */
  loadBlock(store: FrequencyStore, i: number): void {
    const omega = this.omegaView();
    // Only blocks that share groups (a held transform) have a form worth keeping track of.
    const place = this.zPoints > 0 ? sorfPlace(this.dim, this.feats, i) : undefined;
    if (place !== undefined && this.formStore === store.buffer && this.formGroup === place.group) {
      omega[1] = place.firstRow;
      return;
    }
    store.fill(i, omega);
    if (place !== undefined) {
      this.formStore = store.buffer;
      this.formGroup = place.group;
    }
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
    if (this.zPoints > 0) {
      for (let q = first; q < first + nPoints; q += this.zPoints) {
        const n = Math.min(this.zPoints, first + nPoints - q);
        this.holdTransform(lay, q, n);
        this.ex.accumulateRows(lay.z, q - this.zFrom, n, paddedDimension(this.dim), this.firstRow(lay), lay.alpha, this.feats, lay.out + 8 * q);
      }
      return;
    }
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
    if (this.zPoints > 0) {
      this.grad().fill(0);
      for (let q = 0; q < nPoints; q += this.zPoints) {
        const n = Math.min(this.zPoints, nPoints - q);
        this.holdTransform(lay, q, n);
        this.ex.projectRows(lay.z, q - this.zFrom, n, paddedDimension(this.dim), this.firstRow(lay), lay.weights + 8 * q, m, lay.grad);
      }
      return;
    }
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

  /**
   * Whether this kernel holds points `[0, nPoints)` equal to `X`'s bit for
   * bit, of dimension `d`, for blocks of `m` frequencies of `family`, with a
   * held `sorf` group transform covering them: a caller about to project a
   * block at `X` may then use this kernel (writing ω, weights) instead of
   * loading the points into its own and transforming them again — the
   * transform is kept when the block is of the held group, and made afresh
   * otherwise, the same bits either way. The loop projects its new block at
   * the batch the history was just evaluated at, FRS3VM its fixed blocks.
   *
   * @example
   * const k = evaluatorKernel.holdsPoints(X, n, d, m, 'sorf') ? evaluatorKernel : ownKernel;
   */
  holdsPoints(X: Float64Array, nPoints: number, d: number, m: number, family: FeatureFamily): boolean {
    const lay = this.lay;
    if (lay === undefined || this.zPoints === 0 || d !== this.dim || m !== this.feats || family !== this.fam) return false;
    if (!(nPoints > 0 && nPoints <= this.cap && this.zFrom === 0 && this.zTo >= nPoints && X.length >= nPoints * d)) return false;
    return sameBits(this.view(lay.points, nPoints * d), X.subarray(0, nPoints * d));
  }

  /**
   * Makes the held transform cover points `[q, q + n)` (n ≤ zPoints) for the
   * group of the block in {@link omega}: kept when it is of that group (same
   * scale and signs) and can grow to cover them, else started afresh; only
   * the points it lacks are transformed. A point's transform is the same bits
   * whichever call computes it, so holding one never changes a value.
   */
  private holdTransform(lay: Layout, q: number, n: number): void {
    const signBytes = 8 * (kernelBlockWidth(this.dim, this.feats, this.fam) - 2);
    const mem = new Float64Array(this.ex.memory.buffer);
    // Of the held group when both forms came from one store's group (loadBlock), else when the scale and signs are the same bits.
    const known = this.formStore !== undefined && this.formStore === this.zStore;
    const same =
      this.zTo > this.zFrom &&
      (known ? this.formGroup === this.zGroup : mem[lay.omega / 8] === mem[lay.zForm / 8] && this.ex.sameBits(lay.omega + 16, lay.zForm + 16, signBytes) !== 0);
    if (!same || q < this.zFrom || q > this.zTo || q + n - this.zFrom > this.zPoints) {
      mem.copyWithin(lay.zForm / 8, lay.omega / 8, lay.omega / 8 + 2 + signBytes / 8);
      this.zFrom = this.zTo = q;
      this.zStore = this.formStore;
      this.zGroup = this.formGroup;
    }
    if (q + n > this.zTo) {
      // From the start of the pair zTo falls in: a pair is transformed together (its other point's bits are the same again).
      const from = this.zFrom + ((this.zTo - this.zFrom) & ~1);
      const N = paddedDimension(this.dim);
      this.ex.sorfTransform(lay.points + 8 * from * this.dim, q + n - from, this.dim, N, lay.omega, lay.z + 16 * N * ((from - this.zFrom) >> 1));
      this.zTo = q + n;
    }
  }

  /** The block's first row in its sorf group (slot 1 of its form). */
  private firstRow(lay: Layout): number {
    return new Float64Array(this.ex.memory.buffer, lay.omega + 8, 1)[0];
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
