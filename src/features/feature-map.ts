/**
 * The random-feature map of ALGORITHMS.md, in plain TypeScript (the reference;
 * the engine's hot path uses the wasm kernel):
 * `φ_i(x) = m^{-1/2} [cos(ω_{i,1}·x) … cos(ω_{i,m}·x), sin(ω_{i,1}·x) … sin(ω_{i,m}·x)]`.
 */

/**
 * `φ(x)` for one block, written into `phi` (length `2m`).
 *
 * @example
 * const phi = new Float64Array(2 * m);
 * featureMap(omegaT, d, m, X, row * d, phi); // φ of row `row`
 */
export function featureMap(omegaT: Float64Array, d: number, m: number, X: Float64Array, xOffset: number, phi: Float64Array): Float64Array {
  const scale = 1 / Math.sqrt(m);
  for (let j = 0; j < m; j++) {
    let z = 0;
    for (let k = 0; k < d; k++) z += omegaT[k * m + j] * X[xOffset + k];
    phi[j] = scale * Math.cos(z);
    phi[m + j] = scale * Math.sin(z);
  }
  return phi;
}
