/**
 * Which shift-invariant kernel a model uses, and its width.
 *
 * - `rbf`: Gaussian `k(x,x') = exp(-σ‖x-x'‖²)`, σ an inverse width as in the
 *   AUC and S3VM papers; spectral density `ω ~ N(0, 2σ I_d)`.
 * - `laplacian`: `k(x,x') = exp(-σ‖x-x'‖₁)`; spectral density a product of
 *   Cauchy(0, σ) distributions, one per coordinate.
 */
export type KernelSpec = { readonly kind: 'rbf'; readonly sigma: number } | { readonly kind: 'laplacian'; readonly sigma: number };

/** The kernel kinds dsgkit knows, for `--help` and validation. */
export const KERNEL_KINDS = ['rbf', 'laplacian'] as const;

/**
 * Checks a kernel spec and returns it, throwing a RangeError with a readable message.
 *
 * @example
 * checkKernelSpec({ kind: 'rbf', sigma: 1 }); // returns the spec
 */
export function checkKernelSpec(spec: KernelSpec): KernelSpec {
  if (!KERNEL_KINDS.includes(spec.kind)) throw new RangeError(`unknown kernel '${String(spec.kind)}' (expected one of ${KERNEL_KINDS.join(', ')})`);
  if (!(spec.sigma > 0) || !Number.isFinite(spec.sigma)) throw new RangeError(`kernel sigma must be a positive finite number, got ${spec.sigma}`);
  return spec;
}

/**
 * The exact kernel value `k(x, x')` for rows stored at offsets in flat arrays.
 *
 * @example
 * const x = new Float64Array([0, 0, 1, 1]);
 * exactKernel({ kind: 'rbf', sigma: 0.5 }, x, 0, x, 2, 2); // exp(-0.5 * 2)
 */
export function exactKernel(spec: KernelSpec, a: Float64Array, aOffset: number, b: Float64Array, bOffset: number, d: number): number {
  let dist = 0;
  if (spec.kind === 'rbf') {
    for (let k = 0; k < d; k++) {
      const diff = a[aOffset + k] - b[bOffset + k];
      dist += diff * diff;
    }
  } else {
    for (let k = 0; k < d; k++) dist += Math.abs(a[aOffset + k] - b[bOffset + k]);
  }
  return Math.exp(-spec.sigma * dist);
}

/**
 * The `nA × nB` Gram matrix `K[i][j] = k(A_i, B_j)`, row-major, for small data
 * (exact reference solutions and tests).
 *
 * @example
 * const K = kernelMatrix({ kind: 'rbf', sigma: 1 }, X, n, X, n, d); // n*n values
 */
export function kernelMatrix(spec: KernelSpec, A: Float64Array, nA: number, B: Float64Array, nB: number, d: number): Float64Array {
  const K = new Float64Array(nA * nB);
  for (let i = 0; i < nA; i++) {
    for (let j = 0; j < nB; j++) K[i * nB + j] = exactKernel(spec, A, i * d, B, j * d, d);
  }
  return K;
}
