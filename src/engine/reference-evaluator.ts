/**
 * The serial reference evaluators, one per kind of history, straight from the
 * definitions (true coefficients, no chunking, no threads): `f(x) = Σ_i α_i·φ_i(x)`
 * with Math.cos/Math.sin for a random-feature history, `f(x) = Σ_e β_e K(x_{r_e}, x)`
 * with `exactKernel` for a support-vector history. Slow and obviously right;
 * the fast engine is tested against them.
 */
import { featureMap } from '../features/feature-map.ts';
import { sampleBlockOmega } from '../features/spectral.ts';
import { exactKernel, type KernelSpec } from '../features/kernel-spec.ts';
import type { History } from './history.ts';
import type { SharedRows } from './shared-rows.ts';
import type { SupportVectorHistory } from './sv-history.ts';
import { familyOf, type RandomFeatures } from './random-features.ts';

/**
 * `f` at `nPoints` rows of `X` (row-major) using every live block of `history`.
 *
 * @example
 * const f = referenceEvaluate(history, rf, X, n);
 */
export function referenceEvaluate(history: History, rf: RandomFeatures, X: Float64Array, nPoints: number): Float64Array {
  const { d, m } = rf;
  const out = new Float64Array(nPoints);
  const omega = new Float64Array(d * m);
  const phi = new Float64Array(2 * m);
  for (let i = history.firstLive; i < history.t; i++) {
    sampleBlockOmega(rf.kernel, rf.seed, i, d, m, omega, familyOf(rf));
    const alpha = history.coefficients(i);
    for (let p = 0; p < nPoints; p++) {
      featureMap(omega, d, m, X, p * d, phi);
      let dot = 0;
      for (let j = 0; j < 2 * m; j++) dot += alpha[j] * phi[j];
      out[p] += dot;
    }
  }
  return out;
}

/**
 * `f` at `nPoints` rows of `X` (row-major) using every live entry of a support-vector history.
 *
 * @example
 * const f = referenceEvaluateSv(history, { kernel: { kind: 'rbf', sigma: 1 }, rows }, X, n);
 */
export function referenceEvaluateSv(
  history: SupportVectorHistory,
  basis: { readonly kernel: KernelSpec; readonly rows: SharedRows },
  X: Float64Array,
  nPoints: number,
): Float64Array {
  const { d } = basis.rows;
  const out = new Float64Array(nPoints);
  for (let e = history.firstLive; e < history.t; e++) {
    const beta = history.coefficient(e);
    const at = history.rows[e] * d;
    for (let p = 0; p < nPoints; p++) out[p] += beta * exactKernel(basis.kernel, basis.rows.X, at, X, p * d, d);
  }
  return out;
}
