/**
 * Columns that are zero in every row, left out of distances without changing
 * a bit of them.
 *
 * A feature that is constant on the training rows scales to 0 for every row,
 * new ones too (data/scaler.ts): the blank border of an image (326 of
 * MNIST's 784 pixels on the benchmark's split), a one-hot level no training
 * row has. Such a column adds `(±0 − ±0)² = +0` (or `|±0 − ±0| = +0`) to a
 * distance, and a sum that starts at +0 and adds products or squares never
 * holds −0, so adding +0 leaves it as it is: a distance summed in order over
 * the other columns is the same bits, for a fraction of the work. The exact
 * kernel (engine/sv-kernel.ts), the pair distances of σ₀ and the default σ,
 * and the k-NN graph all sum this way.
 *
 * @module
 */

/**
 * Which of the `d` columns of the first `n` rows of the row-major `X` hold a
 * value other than ±0 somewhere (1) or nowhere (0).
 *
 * @example
 * nonZeroColumns(Float64Array.of(0, 1, -0, 0, 2, 0), 2, 3); // Uint8Array [0, 1, 0]
 */
export function nonZeroColumns(X: Float64Array, n: number, d: number): Uint8Array {
  const used = new Uint8Array(d);
  for (let i = 0; i < n; i++) {
    const at = i * d;
    for (let k = 0; k < d; k++) if (X[at + k] !== 0) used[k] = 1;
  }
  return used;
}

/**
 * The first `n` rows of `X` without the columns that are ±0 in all of them,
 * in their order (`X` itself when there is none): distances between these
 * rows, summed in column order, are the same bits on either.
 *
 * @example
 * const { X: Y, d: dy } = withoutZeroColumns(Float64Array.of(0, 1, 3, 0, 2, 4), 2, 3); // Y = [1, 3, 2, 4], dy = 2
 */
export function withoutZeroColumns(X: Float64Array, n: number, d: number): { X: Float64Array; d: number } {
  const used = nonZeroColumns(X, n, d);
  const keep: number[] = [];
  for (let k = 0; k < d; k++) if (used[k]) keep.push(k);
  if (keep.length === d) return { X, d };
  const dk = keep.length;
  const out = new Float64Array(n * dk);
  for (let i = 0; i < n; i++) {
    const from = i * d;
    const to = i * dk;
    for (let j = 0; j < dk; j++) out[to + j] = X[from + keep[j]];
  }
  return { X: out, d: dk };
}
