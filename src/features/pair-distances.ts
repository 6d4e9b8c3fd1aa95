/**
 * Distances of all pairs of rows, the O(n²·d) step of the data-driven kernel
 * scales: the median heuristic σ₀ (median-heuristic.ts, 1,000 sampled rows)
 * and the default σ's kernel–target alignment (kernel-alignment.ts, up to
 * 1,000 labeled rows) — half a million pairs each, so on wide data (d = 784
 * or 1,497) the largest part of a run's set-up.
 */

import { withoutZeroColumns } from './zero-columns.ts';

/**
 * A function that gives {@link pairDistances}' values (its bits, its
 * packing): the plain loop here, or the engine's WebAssembly one
 * (engine/pair-distances.ts) that the layers above pass in.
 *
 * @example
 * const distances: PairDistances = pairDistances;
 */
export type PairDistances = (X: Float64Array, n: number, d: number, norm?: 'l2sq' | 'l1') => Float64Array;

/**
 * `distances` of the `n` rows of `X` with the columns that are zero in all of
 * them left out (features/zero-columns.ts): the same values, bit for bit, for
 * the work of the other columns — on images, whose blank border scales to 0,
 * about six in ten.
 *
 * @example
 * pairDistancesOf(pairDistances, new Float64Array([0, 0, 0, 1, 0, 3]), 3, 2); // Float64Array [1, 9, 4]
 */
export function pairDistancesOf(distances: PairDistances, X: Float64Array, n: number, d: number, norm?: 'l2sq' | 'l1'): Float64Array {
  const rows = withoutZeroColumns(X, n, d);
  return distances(rows.X, n, rows.d, norm);
}

/**
 * The squared distances ‖x_i − x_j‖² of all pairs i < j of the `n` rows of
 * the row-major `X` (`d` values a row), packed row after row: pair (i, j) is
 * at `i·n − i(i+1)/2 + j − i − 1`. `norm: 'l1'` gives ‖x_i − x_j‖₁ instead
 * (the Laplacian kernel's `exp(−σ‖x − x'‖₁)`).
 *
 * Each distance is summed over k = 0 … d−1 in order, so its bits are those of
 * the plain double loop; four pairs (i, j … j+3) are summed side by side,
 * which reads x_i once for the four and halves the time on wide rows.
 *
 * @example
 * pairDistances(new Float64Array([0, 1, 3]), 3, 1); // Float64Array [1, 9, 4]
 */
export function pairDistances(X: Float64Array, n: number, d: number, norm: 'l2sq' | 'l1' = 'l2sq'): Float64Array {
  const out = new Float64Array((n * (n - 1)) / 2);
  const l1 = norm === 'l1';
  let p = 0;
  for (let i = 0; i < n; i++) {
    const a = i * d;
    let j = i + 1;
    for (; j + 3 < n; j += 4, p += 4) {
      const b0 = j * d;
      const b1 = b0 + d;
      const b2 = b1 + d;
      const b3 = b2 + d;
      let s0 = 0;
      let s1 = 0;
      let s2 = 0;
      let s3 = 0;
      if (l1) {
        for (let k = 0; k < d; k++) {
          const x = X[a + k];
          s0 += Math.abs(x - X[b0 + k]);
          s1 += Math.abs(x - X[b1 + k]);
          s2 += Math.abs(x - X[b2 + k]);
          s3 += Math.abs(x - X[b3 + k]);
        }
      } else {
        for (let k = 0; k < d; k++) {
          const x = X[a + k];
          const t0 = x - X[b0 + k];
          const t1 = x - X[b1 + k];
          const t2 = x - X[b2 + k];
          const t3 = x - X[b3 + k];
          s0 += t0 * t0;
          s1 += t1 * t1;
          s2 += t2 * t2;
          s3 += t3 * t3;
        }
      }
      out[p] = s0;
      out[p + 1] = s1;
      out[p + 2] = s2;
      out[p + 3] = s3;
    }
    for (; j < n; j++) {
      const b = j * d;
      let s = 0;
      for (let k = 0; k < d; k++) {
        const t = X[a + k] - X[b + k];
        s += l1 ? Math.abs(t) : t * t;
      }
      out[p++] = s;
    }
  }
  return out;
}

/**
 * The pair (i, j), i < j, at index `p` of {@link pairDistances}' packing of `n` rows.
 *
 * @example
 * pairAt(1, 3); // [0, 2]: the pairs of 3 rows are (0,1), (0,2), (1,2)
 */
export function pairAt(p: number, n: number): [number, number] {
  let i = 0;
  while (p >= n - i - 1) p -= n - 1 - i++;
  return [i, i + 1 + p];
}
