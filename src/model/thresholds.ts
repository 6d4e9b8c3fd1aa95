/**
 * Thresholds on a ranking function, fitted after training.
 *
 * For a split of labeled rows into "low" (negatives, or `y ≤ j` in QS3ORAO)
 * and "high" (positives, `y > j`), the threshold `b` minimises the one-sided
 * squared loss of ALGORITHMS.md § QS3ORAO:
 *
 *   Σ_{low} max(0, f(x) − b)² + Σ_{high} max(0, b − f(x))²
 *
 * a convex piecewise quadratic in `b`, solved exactly by sorting. Binary
 * models use it too (QS3ORAO with k = 2), so `predict` has a threshold that
 * was fitted, not assumed to be 0.
 */

/**
 * The exact minimiser `b` of the one-sided squared loss; when the two groups
 * are perfectly separated (zero loss on an interval) it returns the middle of
 * that interval.
 *
 * @example
 * // low scores 0, 1; high scores 2, 3 → separated, b = 1.5
 * fitThreshold(new Float64Array([0, 1, 2, 3]), new Uint8Array([0, 0, 1, 1])); // 1.5
 */
export function fitThreshold(f: Float64Array, high: Uint8Array): number {
  const n = f.length;
  if (high.length !== n) throw new RangeError(`fitThreshold: ${n} scores, ${high.length} flags`);
  if (n === 0) throw new RangeError('fitThreshold: no labeled rows');
  // Separated groups (every low score ≤ every high score): zero loss on the whole gap; take its middle.
  let maxLow = -Infinity;
  let minHigh = Infinity;
  for (let i = 0; i < n; i++) {
    if (high[i]) minHigh = Math.min(minHigh, f[i]);
    else maxLow = Math.max(maxLow, f[i]);
  }
  if (maxLow <= minHigh) return Number.isFinite(maxLow) && Number.isFinite(minHigh) ? (maxLow + minHigh) / 2 : Number.isFinite(maxLow) ? maxLow : minHigh;
  const order = Array.from({ length: n }, (_, i) => i).sort((a, b) => f[a] - f[b]);
  // Active set on the interval (v[k-1], v[k]): high rows among the first k (they
  // lie below b) and low rows among the rest (they lie above b).
  let lowCount = 0;
  let lowSum = 0;
  for (let i = 0; i < n; i++) {
    if (!high[i]) {
      lowCount++;
      lowSum += f[i];
    }
  }
  let highCount = 0;
  let highSum = 0;
  for (let k = 0; k <= n; k++) {
    const lo = k === 0 ? -Infinity : f[order[k - 1]];
    const hi = k === n ? Infinity : f[order[k]];
    const count = highCount + lowCount;
    if (count === 0) {
      // Zero loss anywhere in [lo, hi]: take the middle (or the finite end).
      if (Number.isFinite(lo) && Number.isFinite(hi)) return (lo + hi) / 2;
      return Number.isFinite(lo) ? lo : hi;
    }
    const b = (highSum + lowSum) / count;
    if (b >= lo && b <= hi) return b;
    if (k < n) {
      const i = order[k];
      if (high[i]) {
        highCount++;
        highSum += f[i];
      } else {
        lowCount--;
        lowSum -= f[i];
      }
    }
  }
  // Unreachable for a convex objective; kept as a loud failure rather than a silent value.
  throw new Error('fitThreshold: no stationary point found');
}

/**
 * Class-mass normalisation (Zhu, Ghahramani & Lafferty, ICML 2003): the
 * threshold `b` at which the share of `fU` (scores of unlabeled rows) above
 * `b` is the share `highFraction` that the "high" class has among the labeled
 * rows — the transductive class-balance constraint of semi-supervised SVMs,
 * applied to the cut instead of the bias. A model whose ranking is good but
 * whose scale is not calibrated (no bias, as GKM's kernel expansion) gets the
 * cut its class prior implies, from the unlabeled rows rather than from the
 * few labeled ones. The threshold lies halfway between the two scores on
 * either side of the cut, so exactly `round(highFraction · fU.length)` scores
 * are above it (fewer where scores tie across the cut).
 *
 * @example
 * // 40% of the labeled rows are high → 2 of the 5 unlabeled scores above b
 * priorThreshold(new Float64Array([0.3, -1, 2, 0.1, 1]), 0.4); // 0.65
 */
export function priorThreshold(fU: Float64Array, highFraction: number): number {
  const n = fU.length;
  if (n === 0) throw new RangeError('priorThreshold: no scores');
  if (!(highFraction >= 0 && highFraction <= 1)) throw new RangeError(`priorThreshold: highFraction must be in [0, 1], got ${highFraction}`);
  const sorted = Float64Array.from(fU).sort();
  const above = Math.round(highFraction * n);
  if (above === 0) return sorted[n - 1];
  if (above === n) return sorted[0] - Math.max(1, Math.abs(sorted[0]));
  return (sorted[n - above - 1] + sorted[n - above]) / 2;
}
