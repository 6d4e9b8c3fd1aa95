/**
 * Exact area under the ROC curve (AUC) in O(n log n).
 *
 * AUC is the probability that a randomly drawn positive is scored above a
 * randomly drawn negative, ties counting one half (the papers' zero-one
 * pairwise loss `l01(u, v) = ½(1 − sign(u − v))`, AUC = 1 − mean l01):
 *
 *     AUC = (1 / (n₊ n₋)) · Σ_{p ∈ P} Σ_{q ∈ N} ( [f(p) > f(q)] + ½ [f(p) = f(q)] )
 *
 * This is the Mann–Whitney statistic `U = R₊ − n₊(n₊ + 1)/2` divided by
 * `n₊ n₋`, where `R₊` is the positives' rank sum with average ranks over tied
 * groups. Rather than materialise ranks, we sort the positive and the negative
 * scores (every score is sorted exactly once, with the native numeric sort) and
 * count, in one merge pass, how many negatives sit strictly below and how many
 * tie with each positive — the same count as the rank sum, tie for tie.
 */
import { checkFiniteWhereLabeled, checkLabels, checkSameLength, positivePredicate, type PositiveClass } from './labels.ts';

/** Options of {@link auc}. */
export interface AucOptions {
  /** Which labels are positive (a value or a predicate). Default: `y > 0`. */
  positive?: PositiveClass;
}

/**
 * Exact AUC of `scores` against binary labels `y`.
 *
 * - Rows whose label is `NaN` are unlabeled and are ignored (their score is
 *   not even looked at).
 * - Ties between a positive and a negative count one half.
 * - Throws a RangeError when there are no positive or no negative labeled
 *   rows (AUC is undefined there); the message names the missing class.
 * - Throws a RangeError when a labeled row's score is NaN or infinite, or when
 *   the lengths differ.
 *
 * O(n log n) time, O(n) extra memory.
 *
 * @example
 * // positives score 0.9 and 0.4; negatives 0.4 and 0.1.
 * // pairs: (0.9>0.4)=1, (0.9>0.1)=1, (0.4=0.4)=½, (0.4>0.1)=1 → 3.5 / 4
 * auc([1, 1, -1, -1], [0.9, 0.4, 0.4, 0.1]); // 0.875
 * auc([2, 1, 1], [5, 3, 4], { positive: 2 }); // 1
 */
export function auc(y: ArrayLike<number>, scores: ArrayLike<number>, options: AucOptions = {}): number {
  checkSameLength('auc', 'y', y, 'scores', scores);
  checkLabels('auc', y);
  checkFiniteWhereLabeled('auc', y, 'scores', scores);
  const isPositive = positivePredicate(options.positive);

  let nP = 0;
  let nN = 0;
  for (let i = 0; i < y.length; i++) {
    if (Number.isNaN(y[i])) continue;
    if (isPositive(y[i])) nP++;
    else nN++;
  }
  if (nP === 0 || nN === 0) {
    const missing = nP === 0 ? 'positive' : 'negative';
    throw new RangeError(
      `auc: no ${missing} labeled rows among ${nP + nN} (AUC is undefined without both classes)` +
        (options.positive === undefined ? '; positives are labels > 0 unless options.positive says otherwise' : ''),
    );
  }
  const P = new Float64Array(nP);
  const N = new Float64Array(nN);
  let p = 0;
  let q = 0;
  for (let i = 0; i < y.length; i++) {
    if (Number.isNaN(y[i])) continue;
    if (isPositive(y[i])) P[p++] = scores[i];
    else N[q++] = scores[i];
  }
  P.sort();
  N.sort();
  return sortedWins(P, N) / (nP * nN);
}

/**
 * Pairwise "wins" of sorted sample `P` over sorted sample `N`: the number of
 * pairs `(p, q)` with `p > q`, plus one half for each pair with `p = q`.
 * Both arrays must be sorted ascending and free of NaN. One merge pass,
 * O(|P| + |N|). Exact: the count is a multiple of ½ below 2⁵³.
 *
 * @example
 * sortedWins(new Float64Array([0.4, 0.9]), new Float64Array([0.1, 0.4])); // 3.5
 */
export function sortedWins(P: Float64Array, N: Float64Array): number {
  let below = 0; // count of N strictly below the current p
  let atOrBelow = 0; // count of N at or below the current p
  let wins = 0;
  const nN = N.length;
  for (let i = 0; i < P.length; i++) {
    const v = P[i];
    while (below < nN && N[below] < v) below++;
    if (atOrBelow < below) atOrBelow = below;
    while (atOrBelow < nN && N[atOrBelow] <= v) atOrBelow++;
    wins += below + 0.5 * (atOrBelow - below);
  }
  return wins;
}
