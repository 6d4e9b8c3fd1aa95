/**
 * Exact reference solution of the QSG-S2AUC objective (small n only).
 *
 * With the square pairwise loss the objective is quadratic in the expansion
 * `f = Σ_i c_i k(x_i, ·)` over all training rows, so its minimiser solves one
 * `n × n` linear system — what the SAMULT baseline of the paper computes, in
 * O(n³). It is the oracle that shows the stochastic learners converge.
 *
 * Derivation: let `F = Kc` be f at the training rows and `w(F)` the gradient
 * of the empirical risk with respect to F (the closed-form weights of
 * {@link qsgS2aucWeights} over the whole sets). `w` is affine, `w(F) = A F + w₀`;
 * the functional gradient `Σ_i w_i k(x_i,·) + λ f` vanishes when
 * `w(Kc) + λ c = 0`, i.e. `(A K + λ I) c = −w₀`.
 */
import { LuDecomposition, Matrix } from 'ml-matrix';
import type { Dataset } from '../data/dataset.ts';
import { kernelMatrix, exactKernel, type KernelSpec } from '../features/kernel-spec.ts';
import { qsgS2aucWeights } from './qsg-s2auc.ts';
import { binarySources } from './sources.ts';

/** Largest training set the exact solver accepts (an n×n dense solve). */
export const EXACT_MAX_ROWS = 4000;

/** A kernel expansion `f(x) = Σ_i c_i k(x_i, x)`. */
export interface KernelExpansion {
  readonly kernel: KernelSpec;
  readonly d: number;
  /** Expansion points, row-major. */
  readonly centers: Float64Array;
  readonly c: Float64Array;
}

/**
 * `f` at `nPoints` rows of `X` for a kernel expansion.
 *
 * @example
 * const f = evaluateExpansion(exact, Xtest, nTest);
 */
export function evaluateExpansion(e: KernelExpansion, X: Float64Array, nPoints: number): Float64Array {
  const n = e.c.length;
  const out = new Float64Array(nPoints);
  for (let p = 0; p < nPoints; p++) {
    let s = 0;
    for (let i = 0; i < n; i++) s += e.c[i] * exactKernel(e.kernel, e.centers, i * e.d, X, p * e.d, e.d);
    out[p] = s;
  }
  return out;
}

/**
 * The exact minimiser of `γ R_PN + (1−γ)(R_PU + R_NU − ½) + (λ/2)‖f‖²` over
 * the RKHS, with empirical risks over ALL pairs of the training rows.
 *
 * @example
 * const exact = exactQsgS2auc(train, 1, { lambda: 0.125, gamma: 0.5, kernel: { kind: 'rbf', sigma: 1 } });
 * const f = evaluateExpansion(exact, test.X, test.n);
 */
export function exactQsgS2auc(ds: Dataset, positive: number, params: { lambda: number; gamma: number; kernel: KernelSpec }): KernelExpansion {
  const { P, N, U } = binarySources(ds, positive);
  const nU = params.gamma < 1 ? U.length : 0;
  const rows = [...P, ...N, ...U.subarray(0, nU)];
  const n = rows.length;
  if (n > EXACT_MAX_ROWS) throw new RangeError(`the exact solver is O(n³): ${n} training rows is more than ${EXACT_MAX_ROWS}; subsample first`);
  const { d } = ds;
  const centers = new Float64Array(n * d);
  rows.forEach((i, r) => centers.set(ds.X.subarray(i * d, i * d + d), r * d));

  const nP = P.length;
  const nN = N.length;
  const w = new Float64Array(n);
  const F = new Float64Array(n);
  const gradient = (): Float64Array => {
    qsgS2aucWeights(params.gamma, F.subarray(0, nP), F.subarray(nP, nP + nN), F.subarray(nP + nN), w.subarray(0, nP), w.subarray(nP, nP + nN), w.subarray(nP + nN));
    return w;
  };
  const w0 = Float64Array.from(gradient());
  // Columns of A by linearity: A e_j = w(e_j) − w₀.
  const A = new Matrix(n, n);
  for (let j = 0; j < n; j++) {
    F[j] = 1;
    const wj = gradient();
    for (let i = 0; i < n; i++) A.set(i, j, wj[i] - w0[i]);
    F[j] = 0;
  }
  const Kflat = kernelMatrix(params.kernel, centers, n, centers, n, d);
  const K = new Matrix(n, n);
  for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) K.set(i, j, Kflat[i * n + j]);
  const M = A.mmul(K);
  for (let i = 0; i < n; i++) M.set(i, i, M.get(i, i) + params.lambda);
  const rhs = Matrix.columnVector(Array.from(w0, (v) => -v));
  const c = new LuDecomposition(M).solve(rhs).getColumn(0);
  return { kernel: params.kernel, d, centers, c: Float64Array.from(c) };
}
