/**
 * A kernel expansion `f(x) = Σ_i c_i k(x_i, x)`: the form of the exact
 * solution of a kernel objective (and of support-vector models), evaluated
 * with the exact kernel.
 */
import { exactKernel, type KernelSpec } from './kernel-spec.ts';

/** A kernel expansion `f(x) = Σ_i c_i k(x_i, x)` over `n = c.length` centres. */
export interface KernelExpansion {
  readonly kernel: KernelSpec;
  readonly d: number;
  /** Expansion points, row-major (`n × d`). */
  readonly centers: Float64Array;
  readonly c: Float64Array;
}

/**
 * `f` at `nPoints` rows of `X` for a kernel expansion (plain TypeScript, one thread).
 *
 * @example
 * const f = evaluateExpansion(exact, Xtest, nTest);
 */
export function evaluateExpansion(e: KernelExpansion, X: Float64Array, nPoints: number, out: Float64Array = new Float64Array(nPoints)): Float64Array {
  const n = e.c.length;
  for (let p = 0; p < nPoints; p++) {
    let s = 0;
    for (let i = 0; i < n; i++) s += e.c[i] * exactKernel(e.kernel, e.centers, i * e.d, X, p * e.d, e.d);
    out[p] = s;
  }
  return out;
}
