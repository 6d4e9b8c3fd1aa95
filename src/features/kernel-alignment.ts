/**
 * Choosing the Gaussian kernel scale σ from the labeled rows: centred
 * kernel–target alignment (Cortes, Mohri & Rostamizadeh, "Algorithms for
 * learning kernels based on centered alignment", JMLR 2012) over a ladder
 * σ₀·2^k around the median heuristic σ₀ (the alternatives it was measured
 * against are in bench/sigma-rule.ts).
 *
 * Convention `k(x, x') = exp(−σ‖x − x'‖²)`: a LARGER σ is a NARROWER kernel.
 * The squared distances are computed once (O(n²·d)); the rungs are then
 * scored together in one O(n²) pass, with an exponential a pair only for the
 * rungs that are not twice another ({@link centredAlignments}).
 */
import { pairDistances, pairDistancesOf, type PairDistances } from './pair-distances.ts';

/** The powers of two the default σ is chosen among: σ₀·2^k, k = −4, −3.5, … 6. */
export const ALIGNMENT_EXPONENTS: readonly number[] = Array.from({ length: 21 }, (_, i) => -4 + i / 2);

/** Labeled rows the default σ reads at most (a seeded sample beyond). */
export const ALIGNMENT_SAMPLE = 1000;

/**
 * The centred alignment ⟨K_c, y_c y_cᵀ⟩_F / (‖K_c‖_F ‖y_c y_cᵀ‖_F) of the
 * Gaussian kernel `exp(−σ·dist)` with the labels `y` (n values; `dist` from
 * {@link pairDistances}), in [−1, 1]; NaN when the labels or the centred kernel
 * are constant. Centring makes it blind to the label coding (0/1, ±1, class
 * indices give the same value), and the centred ±1 labels are the
 * class-balanced ones: a positive weighs 1/n₊, a negative 1/n₋ (up to scale).
 *
 * @example
 * // two tight pairs far apart, labelled by pair: the narrow kernel aligns better
 * const dist = pairDistances(new Float64Array([0, 0.1, 5, 5.1]), 4, 1);
 * centredAlignment(dist, new Float64Array([0, 0, 1, 1]), 4, 1) > centredAlignment(dist, new Float64Array([0, 0, 1, 1]), 4, 0.001); // true
 */
export function centredAlignment(dist: Float64Array, y: ArrayLike<number>, n: number, sigma: number, opts: { diagonal?: boolean } = {}): number {
  return centredAlignments(dist, y, n, sigma, [0], opts)[0];
}

/**
 * {@link centredAlignment} at every rung σ₀·2^k, k of `exponents`, in one
 * pass over the pairs. A rung one power of two above another (k and k − 1
 * both listed) takes the square of that rung's kernel value,
 * exp(−σd)² = exp(−2σd), instead of an exponential of its own — a few ulps
 * from it — so the default σ's 13 rungs k = 0, ½, … 6 cost 2 exponentials a
 * pair instead of 13, and the distances are read once. The same numbers on
 * any machine: the rungs' sums run over the pairs in one fixed order.
 *
 * @example
 * centredAlignments(dist, y, n, sigma0, [0, 0.5, 1]); // [alignment at σ₀, at √2σ₀, at 2σ₀ (the square of σ₀'s kernel)]
 */
export function centredAlignments(dist: Float64Array, y: ArrayLike<number>, n: number, sigma0: number, exponents: readonly number[], opts: { diagonal?: boolean } = {}): number[] {
  let mean = 0;
  for (let i = 0; i < n; i++) mean += y[i];
  mean /= n;
  const yc = new Float64Array(n);
  let yy = 0;
  for (let i = 0; i < n; i++) {
    yc[i] = y[i] - mean;
    yy += yc[i] * yc[i];
  }
  const diag = opts.diagonal === false ? 0 : 1;
  // The rungs in ascending order, each with the rung it squares (−1: an exponential of its own).
  const order = exponents.map((_, r) => r).sort((a, b) => exponents[a] - exponents[b]);
  const rungs = order.length;
  const sigma = Float64Array.from(order, (r) => sigma0 * 2 ** exponents[r]);
  const squares = Int32Array.from(order, (r) => order.findIndex((q) => exponents[q] === exponents[r] - 1));
  // Per rung: row sums R_i (rung-major), Σ K², y_cᵀ K y_c over the off-diagonal pairs; the diagonal (K_ii = 1) is added after.
  const R = new Float64Array(rungs * n);
  const sq = new Float64Array(rungs);
  const yKy = new Float64Array(rungs);
  // Row i's kernel values k(x_i, x_j), j > i, at each rung (a squaring rung reads its source's).
  const row = new Float64Array(rungs * n);
  let p = 0;
  for (let i = 0; i < n; i++) {
    for (let q = 0; q < rungs; q++) {
      const from = squares[q];
      const s = sigma[q];
      const Rq = q * n;
      const src = from * n;
      let ri = 0;
      let yi = 0;
      let sqq = 0;
      for (let j = i + 1, pj = p; j < n; j++, pj++) {
        let k: number;
        if (from >= 0) {
          const kf = row[src + j];
          k = kf * kf;
        } else {
          const dij = dist[pj];
          // Without the diagonal, pairs at distance 0 (the same point twice) go too: their k is 1 at every σ.
          k = dij === 0 && diag === 0 ? 0 : Math.exp(-s * dij);
        }
        row[Rq + j] = k;
        ri += k;
        R[Rq + j] += k;
        sqq += k * k;
        yi += yc[j] * k;
      }
      R[Rq + i] += ri;
      sq[q] += sqq;
      yKy[q] += yc[i] * yi;
    }
    p += n - i - 1;
  }
  const scores = new Array<number>(exponents.length);
  for (let q = 0; q < rungs; q++) {
    let total = 0;
    let rr = 0;
    for (let i = 0; i < n; i++) {
      const r = R[q * n + i] + diag;
      total += r;
      rr += r * r;
    }
    // ‖HKH‖² = Σ K_ij² − (2/n) Σ R_i² + (Σ R_i)²/n², with H = I − 11ᵀ/n; y_cᵀ K_c y_c = y_cᵀ K y_c.
    const kc2 = 2 * sq[q] + diag * n - (2 / n) * rr + (total * total) / (n * n);
    const num = 2 * yKy[q] + diag * yy;
    scores[order[q]] = !(kc2 > 0) || !(yy > 0) ? NaN : num / (Math.sqrt(kc2) * yy);
  }
  return scores;
}

/** What {@link alignedSigma} chose, and the score of every rung. */
export interface AlignedSigma {
  /** The chosen σ = σ₀·2^exponent. */
  readonly sigma: number;
  /** log2(σ/σ₀) of the choice (0: σ₀ itself). */
  readonly exponent: number;
  /** The score of each exponent of {@link ALIGNMENT_EXPONENTS}, in that order. */
  readonly scores: readonly number[];
}

/**
 * The σ among σ₀·2^k (k of `exponents`, default {@link ALIGNMENT_EXPONENTS})
 * whose Gaussian kernel on the `n` labeled rows `X` has the largest centred
 * alignment with their labels `y` ({@link centredAlignment}); ties go to the
 * rung nearest σ₀. σ₀ itself when no rung has a score (fewer than 2 rows, one
 * label value), and with `minGain` g σ₀ itself unless the best rung's score
 * exceeds by the factor 1 + g both σ₀'s (0 must be among the exponents) and
 * the identity kernel's, 1/√(n − 1): a kernel that only tells each point from
 * the others. As σ grows every Gaussian tends to the identity, so on labels
 * the features barely predict — where every rung aligns worse than it — the
 * narrowest rung would win by approaching it, not by fitting the labels
 * (fertility, diamonds: 64σ₀, 0.17 lower held-out mean threshold AUC). `norm:
 * 'l1'` scores the Laplacian kernel `exp(−σ‖x − x'‖₁)`;
 * `score` replaces the alignment by another score to maximise (a benchmark's
 * alternative, e.g. a negated leave-one-out error); `distances` computes the
 * pair distances (default {@link pairDistances}; the engine's WebAssembly one
 * gives the same bits, faster).
 *
 * @example
 * alignedSigma(labeledX, labels, n, d, 3.86).sigma; // e.g. 3.86·2^k for the k that fits the labels best
 */
export function alignedSigma(
  X: Float64Array,
  y: ArrayLike<number>,
  n: number,
  d: number,
  sigma0: number,
  opts: { exponents?: readonly number[]; norm?: 'l2sq' | 'l1'; minGain?: number; score?: (dist: Float64Array, y: ArrayLike<number>, n: number, sigma: number) => number; distances?: PairDistances } = {},
): AlignedSigma {
  const exponents = opts.exponents ?? ALIGNMENT_EXPONENTS;
  if (n < 2) return { sigma: sigma0, exponent: 0, scores: exponents.map(() => NaN) };
  const dist = pairDistancesOf(opts.distances ?? pairDistances, X, n, d, opts.norm);
  const { score } = opts;
  const scores = score ? exponents.map((k) => score(dist, y, n, sigma0 * 2 ** k)) : centredAlignments(dist, y, n, sigma0, exponents);
  let best = -1;
  for (let i = 0; i < exponents.length; i++) {
    if (!Number.isFinite(scores[i])) continue;
    if (best < 0 || scores[i] > scores[best] || (scores[i] === scores[best] && Math.abs(exponents[i]) < Math.abs(exponents[best]))) best = i;
  }
  if (best < 0) return { sigma: sigma0, exponent: 0, scores };
  // σ₀ stays unless the best rung beats it by the factor 1 + minGain (σ₀'s own score must be a number).
  const at0 = exponents.indexOf(0);
  if (opts.minGain !== undefined && at0 >= 0 && Number.isFinite(scores[at0]) && !(scores[best] > (1 + opts.minGain) * Math.max(scores[at0], 1 / Math.sqrt(n - 1)))) return { sigma: sigma0, exponent: 0, scores };
  return { sigma: sigma0 * 2 ** exponents[best], exponent: exponents[best], scores };
}

