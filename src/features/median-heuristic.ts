/**
 * The median heuristic for the Gaussian kernel width: σ = 1 / median ‖x − x'‖²
 * over pairs of (scaled) rows, in dsgkit's convention `k(x, x') = exp(−σ‖x − x'‖²)`
 * — so a pair at the median distance has kernel value e⁻¹. A starting point
 * (or the centre of a search grid) for σ that adapts to the dimension and the
 * spread of the data, where a fixed σ = 1 does not.
 *
 * For speed the median is taken over ALL pairs among a seeded sample of at
 * most `sample` rows (default 1,000 rows → 499,500 pairs); with n ≤ `sample`
 * every row is used and the result is the exact all-pairs median heuristic.
 */
import seedrandom from 'seedrandom';
import { selectInPlace } from '../data/order-statistics.ts';
import { pairAt, pairDistances, pairDistancesOf, type PairDistances } from './pair-distances.ts';

/** Options of {@link medianHeuristicSigma}. */
export interface MedianHeuristicOptions {
  /** Rows sampled (without replacement); all pairs among them are used. Default 1000. */
  sample?: number;
  /** Seed of the row sample (default 0). Same data, sample and seed → same σ. */
  seed?: number | string;
  /** How the pair distances are computed (default: {@link pairDistances}; any function with its bits gives the same σ). */
  distances?: PairDistances;
}

/** Default number of sampled rows for {@link medianHeuristicSigma}. */
export const MEDIAN_HEURISTIC_SAMPLE = 1000;

/**
 * `count` distinct indices out of `0 … n−1` drawn from `rng` by a partial
 * Fisher–Yates shuffle, returned ascending; all of them when `count ≥ n`.
 * Only the displaced positions are stored: O(count) memory, not O(n). The
 * one sampler behind {@link sampleRowIndices} and the learners' class-balance
 * samples (`sampleSource` in learners/sources.ts), each with its own stream.
 *
 * @example
 * sampleIndices(10, 3, seedrandom('x')); // e.g. Uint32Array [1, 4, 8], the same for the same stream
 */
export function sampleIndices(n: number, count: number, rng: () => number): Uint32Array {
  if (count >= n) return Uint32Array.from({ length: n }, (_, i) => i);
  const moved = new Map<number, number>();
  const at = (p: number): number => moved.get(p) ?? p;
  const picked = new Uint32Array(count);
  for (let i = 0; i < count; i++) {
    const j = i + Math.floor(rng() * (n - i));
    picked[i] = at(j);
    moved.set(j, at(i));
  }
  return picked.sort();
}

/**
 * `count` distinct row indices out of `n`, drawn by a seeded partial Fisher–Yates
 * shuffle ({@link sampleIndices}) and returned ascending; all of `0 … n−1` when `count ≥ n`.
 *
 * @example
 * sampleRowIndices(10, 3, 7); // e.g. Uint32Array [1, 4, 8], the same for seed 7 every time
 */
export function sampleRowIndices(n: number, count: number, seed: number | string = 0): Uint32Array {
  if (!Number.isInteger(n) || n < 0) throw new RangeError(`sampleRowIndices: n must be a whole number ≥ 0, got ${n}`);
  if (!Number.isInteger(count) || count < 0) throw new RangeError(`sampleRowIndices: count must be a whole number ≥ 0, got ${count}`);
  return sampleIndices(n, count, seedrandom(`median-heuristic:${seed}`));
}

/**
 * Median of a non-empty array of numbers (no NaN): the average of the two
 * middle values when the length is even — the same value sorting gives, in
 * O(n) instead of O(n log n) (half a million distances: ≈ 5 ms instead of
 * ≈ 60 ms, which every `train` call without a σ used to pay). Reorders `values`.
 */
function medianInPlace(values: Float64Array): number {
  const h = values.length >> 1;
  const upper = selectInPlace(values, h);
  if (values.length % 2 === 1) return upper;
  // Selection leaves values[0 … h) ≤ values[h]: the lower middle value is their largest.
  let lower = values[0];
  for (let i = 1; i < h; i++) if (values[i] > lower) lower = values[i];
  return (lower + upper) / 2;
}

/**
 * σ = 1 / median ‖x_i − x_j‖² over all pairs i < j of a seeded sample of rows
 * of the row-major `X` (n rows of d features; pass features scaled as the
 * model will see them, e.g. to [0, 1] by the training scaler).
 *
 * Throws a RangeError when fewer than 2 rows are given, a value is not finite,
 * or the median squared distance is 0 (more than half the sampled pairs are
 * identical rows: no width can be read off such data).
 *
 * @example
 * // three points on a line at 0, 1, 3: squared distances 1, 9, 4 → median 4
 * medianHeuristicSigma(new Float64Array([0, 1, 3]), 3, 1); // 0.25
 * // a sample of 1,000 rows of a large scaled training set, seed 1
 * const sigma = medianHeuristicSigma(scaled.X, scaled.n, scaled.d, { sample: 1000, seed: 1 });
 */
export function medianHeuristicSigma(X: Float64Array, n: number, d: number, opts: MedianHeuristicOptions = {}): number {
  if (X.length !== n * d) throw new RangeError(`medianHeuristicSigma: X has ${X.length} values, expected n*d = ${n}*${d}`);
  const sample = opts.sample ?? MEDIAN_HEURISTIC_SAMPLE;
  if (!Number.isInteger(sample) || sample < 2) throw new RangeError(`medianHeuristicSigma: sample must be a whole number ≥ 2, got ${sample}`);
  if (n < 2) throw new RangeError(`medianHeuristicSigma: needs at least 2 rows, got ${n}`);
  const rows = sampleRowIndices(n, sample, opts.seed ?? 0);
  const s = rows.length;
  // The sampled rows side by side (X itself when every row is sampled).
  const sampled = s === n ? X : new Float64Array(s * d);
  if (sampled !== X) rows.forEach((r, a) => sampled.set(X.subarray(r * d, r * d + d), a * d));
  const dist = pairDistancesOf(opts.distances ?? pairDistances, sampled, s, d);
  for (let p = 0; p < dist.length; p++) {
    if (Number.isFinite(dist[p])) continue;
    const [a, b] = pairAt(p, s);
    throw new RangeError(`medianHeuristicSigma: rows ${rows[a] + 1} and ${rows[b] + 1} have a non-finite squared distance (${dist[p]})`);
  }
  const median = medianInPlace(dist);
  if (!(median > 0)) throw new RangeError(`medianHeuristicSigma: the median squared distance over ${dist.length} pairs of ${s} rows is 0 (mostly duplicate rows)`);
  return 1 / median;
}
