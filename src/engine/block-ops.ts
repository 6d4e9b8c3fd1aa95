/**
 * Coordinator-side work on ONE block: building the newest block from the
 * batch's weights (step 4 of the loop) and adding one block's contribution to
 * cached values (incremental validation). Both O(points · m · d), on the
 * calling thread, with the same wasm kernel the workers use.
 */
import type { RffKernel } from './kernel.ts';
import { shelveKernel, takeKernel } from './kernel-shelf.ts';
import { sampleKernelBlock } from '../features/spectral.ts';
import type { FrequencyStore } from './frequency-store.ts';
import { familyOf, type RandomFeatures } from './random-features.ts';

/**
 * Single-block operations with a private kernel instance (or, to project at
 * points the evaluator's kernel holds with their transform, that kernel).
 *
 * @example
 * const ops = new BlockOps();
 * const g = ops.project(rf, t - 1, X, n, w); // g = Σ_p w_p φ_{t-1}(x_p), length 2m
 */
export class BlockOps {
  private own: RffKernel | undefined;

  private get kernel(): RffKernel {
    return (this.own ??= takeKernel());
  }

  /**
   * Hands the kernel to the thread's shelf (kernel-shelf.ts) when the run is
   * done; a call after this takes one afresh.
   *
   * @example
   * ops.release();
   */
  release(): void {
    shelveKernel(this.own);
    this.own = undefined;
  }

  /**
   * `Σ_p w_p φ_i(x_p)` (with the `m^{-1/2}` of φ), a new array of length `2m`.
   *
   * @example
   * const alpha = ops.project(rf, i, X, n, w).map((g) => -eta * g);
   */
  project(rf: RandomFeatures, i: number, X: Float64Array, nPoints: number, w: Float64Array, store?: FrequencyStore, donor?: RffKernel): Float64Array {
    return this.projectBlocks(rf, i, i + 1, X, nPoints, w, store, donor)[0];
  }

  /**
   * {@link project} onto blocks `from … to − 1` at the same points and
   * weights, each block's array the bits `project` gives. The points are
   * loaded once, so `sorf` blocks that share a group transform each point
   * once a group instead of once a block (FRS3VM's 16 fixed blocks of 64
   * at d = 784 are one group) — for points that fit the kernel's held
   * transform ({@link RffKernel.tilePoints}), as a batch does. `donor`: a
   * kernel that may hold these points and their transform already, the
   * evaluator's that just evaluated the history at them: it is used instead
   * of this one when it does ({@link RffKernel.holdsPoints}), the same bits
   * either way.
   *
   * @example
   * const grads = ops.projectBlocks(rf, 0, K, batch.X, batch.nPoints, w); // K arrays of 2m
   */
  projectBlocks(rf: RandomFeatures, from: number, to: number, X: Float64Array, nPoints: number, w: Float64Array, store?: FrequencyStore, donor?: RffKernel): Float64Array[] {
    const k = donor?.holdsPoints(X, nPoints, rf.d, rf.m, familyOf(rf)) ? donor : this.loadPoints(rf, X, nPoints);
    k.weights().set(w.subarray(0, nPoints));
    const inv = 1 / Math.sqrt(rf.m);
    const out: Float64Array[] = [];
    for (let i = from; i < to; i++) {
      this.fill(k, rf, i, store);
      k.project(nPoints);
      const g = k.grad().slice(0, 2 * rf.m);
      for (let j = 0; j < g.length; j++) g[j] *= inv;
      out.push(g);
    }
    return out;
  }

  /**
   * `f[p] += α·φ_i(x_p)` for the true coefficients `alpha` (length `2m`) of block `i`.
   *
   * @example
   * ops.accumulate(rf, i, alpha, Xval, nVal, fVal);
   */
  accumulate(rf: RandomFeatures, i: number, alpha: Float64Array, X: Float64Array, nPoints: number, f: Float64Array, store?: FrequencyStore): void {
    const k = this.load(rf, i, X, nPoints, store);
    k.alpha().set(alpha.subarray(0, 2 * rf.m));
    k.clearOut(nPoints);
    k.accumulate(nPoints);
    const out = k.out();
    const inv = 1 / Math.sqrt(rf.m);
    for (let p = 0; p < nPoints; p++) f[p] += inv * out[p];
  }

  private load(rf: RandomFeatures, i: number, X: Float64Array, nPoints: number, store?: FrequencyStore): RffKernel {
    const k = this.loadPoints(rf, X, nPoints);
    this.fill(k, rf, i, store);
    return k;
  }

  private loadPoints(rf: RandomFeatures, X: Float64Array, nPoints: number): RffKernel {
    const k = this.kernel;
    k.reserve(Math.max(1, nPoints), rf.d, rf.m, familyOf(rf));
    k.points().set(X.subarray(0, nPoints * rf.d));
    return k;
  }

  /** Block `i`'s frequencies into kernel `k` (from the store when given, else sampled). */
  private fill(k: RffKernel, rf: RandomFeatures, i: number, store?: FrequencyStore): void {
    if (store !== undefined) k.loadBlock(store, i);
    else sampleKernelBlock(rf.kernel, rf.seed, i, rf.d, rf.m, k.omega(), familyOf(rf));
  }
}
