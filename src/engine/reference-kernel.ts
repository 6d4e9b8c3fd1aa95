/**
 * Plain TypeScript references for the engine's kernels: the same sums as
 * {@link RffKernel} in `kernel.ts` (with `Math.cos`/`Math.sin`) and as
 * {@link SvKernel} in `sv-kernel.ts` (with `exactKernel`, i.e. `Math.exp`),
 * with no tricks, so they are obviously right. Tests check the fast kernels
 * against them.
 *
 * Shapes (as in ALGORITHMS.md and `rff_native.c`): points `X` row-major, `d`
 * per row; a block's `m` frequencies transposed, `omegaT[k*m + j]` = component
 * `k` of `ω_j`; `alpha` holds `2m` coefficients (`m` cos, then `m` sin).
 * `z_pj = ω_j·x_p` is summed over `k = 0..d-1` in order.
 *
 * @module
 */
import { exactKernel, type KernelSpec } from '../features/kernel-spec.ts';

/**
 * `out[p] += Σ_j alpha[j]·cos(z_pj) + alpha[m+j]·sin(z_pj)` for `p < nPoints`.
 *
 * @example
 * const X = Float64Array.of(1, 2);                 // one point, d = 2
 * const omegaT = Float64Array.of(0.5, 0.25);       // m = 1: ω_0 = (0.5, 0.25)
 * const out = new Float64Array(1);
 * referenceAccumulate(X, 1, 2, omegaT, Float64Array.of(1, 0), 1, out);
 * // out[0] === Math.cos(0.5 * 1 + 0.25 * 2)
 */
export function referenceAccumulate(
  X: Float64Array,
  nPoints: number,
  d: number,
  omegaT: Float64Array,
  alpha: Float64Array,
  m: number,
  out: Float64Array,
): void {
  for (let p = 0; p < nPoints; p++) {
    let sum = 0;
    for (let j = 0; j < m; j++) {
      let z = 0;
      for (let k = 0; k < d; k++) z += omegaT[k * m + j] * X[p * d + k];
      sum += alpha[j] * Math.cos(z) + alpha[m + j] * Math.sin(z);
    }
    out[p] += sum;
  }
}

/**
 * `grad[j] = Σ_p weights[p]·cos(z_pj)`, `grad[m+j] = Σ_p weights[p]·sin(z_pj)`
 * over `p < nPoints` (overwrites `grad[0..2m)`).
 *
 * @example
 * const X = Float64Array.of(1, 2, 3, 4);            // two points, d = 2
 * const omegaT = Float64Array.of(0.5, 0.25);       // m = 1
 * const grad = new Float64Array(2);
 * referenceProject(X, 2, 2, omegaT, Float64Array.of(1, -1), 1, grad);
 * // grad[0] === Math.cos(1) - Math.cos(2.5); grad[1] === Math.sin(1) - Math.sin(2.5)
 */
export function referenceProject(
  X: Float64Array,
  nPoints: number,
  d: number,
  omegaT: Float64Array,
  weights: Float64Array,
  m: number,
  grad: Float64Array,
): void {
  for (let j = 0; j < m; j++) {
    let gc = 0;
    let gs = 0;
    for (let p = 0; p < nPoints; p++) {
      let z = 0;
      for (let k = 0; k < d; k++) z += omegaT[k * m + j] * X[p * d + k];
      gc += weights[p] * Math.cos(z);
      gs += weights[p] * Math.sin(z);
    }
    grad[j] = gc;
    grad[m + j] = gs;
  }
}

/**
 * `out[p] += Σ_i beta[i]·K(c_i, x_p)` for `p < nPoints`, `i < nEntries`, with
 * centres `C` and points `X` row-major (`d` per row), summed over `i` in order.
 *
 * @example
 * const C = Float64Array.of(0, 0);                 // one centre, d = 2
 * const out = new Float64Array(1);
 * referenceSvAccumulate({ kind: 'rbf', sigma: 1 }, C, Float64Array.of(2), 1, Float64Array.of(1, 1), 1, 2, out);
 * // out[0] === 2 * Math.exp(-2)
 */
export function referenceSvAccumulate(
  kernel: KernelSpec,
  C: Float64Array,
  beta: Float64Array,
  nEntries: number,
  X: Float64Array,
  nPoints: number,
  d: number,
  out: Float64Array,
): void {
  for (let p = 0; p < nPoints; p++) {
    let sum = 0;
    for (let i = 0; i < nEntries; i++) sum += beta[i] * exactKernel(kernel, C, i * d, X, p * d, d);
    out[p] += sum;
  }
}
