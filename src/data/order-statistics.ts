/**
 * Order statistics of a column of numbers without sorting it: the k-th
 * smallest by quickselect (the median heuristic's median distance, the clip
 * quantile's range ends).
 */

/**
 * The `k`-th smallest of `a` (0-based), moving it to `a[k]` with everything
 * before it ≤ it and everything after ≥ it (quickselect, Hoare partition
 * around a median of three). O(n) on average: the median heuristic's half
 * a million distances and the clip quantile's columns are read this way
 * rather than sorted. No NaN in `a`.
 *
 * @example
 * selectInPlace(new Float64Array([5, 1, 4, 2]), 1); // 2
 */
export function selectInPlace(a: Float64Array, k: number): number {
  let lo = 0;
  let hi = a.length - 1;
  while (hi > lo) {
    const mid = (lo + hi) >>> 1;
    if (a[mid] < a[lo]) swap(a, mid, lo);
    if (a[hi] < a[lo]) swap(a, hi, lo);
    if (a[hi] < a[mid]) swap(a, hi, mid);
    const pivot = a[mid];
    let i = lo;
    let j = hi;
    while (i <= j) {
      while (a[i] < pivot) i++;
      while (a[j] > pivot) j--;
      if (i <= j) swap(a, i++, j--);
    }
    if (k <= j) hi = j;
    else if (k >= i) lo = i;
    else break;
  }
  return a[k];
}

function swap(a: Float64Array, i: number, j: number): void {
  const t = a[i];
  a[i] = a[j];
  a[j] = t;
}
