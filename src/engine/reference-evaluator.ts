/**
 * The serial reference evaluator: `f(x) = Σ_i α_i·φ_i(x)` straight from the
 * definition (Math.cos/Math.sin, true coefficients, no chunking, no threads).
 * Slow and obviously right; the fast engine is tested against it.
 */
import { featureMap } from '../features/feature-map.ts';
import { sampleBlockOmega } from '../features/spectral.ts';
import type { History } from './history.ts';
import type { RandomFeatures } from './random-features.ts';

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
    sampleBlockOmega(rf.kernel, rf.seed, i, d, m, omega);
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
