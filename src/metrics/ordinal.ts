/**
 * Metrics for ordinal regression with labels 1..k: mean absolute error and the
 * QS³ORAO paper's ordinal AUC (mean AUC over the k − 1 threshold subproblems).
 * Rows whose label is `NaN` are unlabeled and are ignored.
 */
import { sortedWins } from './auc.ts';
import { checkFiniteWhereLabeled, checkLabels, checkSameLength } from './labels.ts';

/**
 * Mean absolute error `mean |y − ŷ|` over the labeled rows (NaN labels are
 * skipped). For ordinal labels 1..k this counts how many classes off a
 * prediction is, on average. Throws a RangeError when no row is labeled or a
 * labeled row's prediction is not finite.
 *
 * @example
 * // |1−1| + |2−3| + |3−1| = 3 over 3 labeled rows
 * meanAbsoluteError([1, 2, 3, NaN], [1, 3, 1, 2]); // 1
 */
export function meanAbsoluteError(y: ArrayLike<number>, predicted: ArrayLike<number>): number {
  checkSameLength('meanAbsoluteError', 'y', y, 'predicted', predicted);
  checkLabels('meanAbsoluteError', y);
  checkFiniteWhereLabeled('meanAbsoluteError', y, 'predicted', predicted);
  let sum = 0;
  let n = 0;
  for (let i = 0; i < y.length; i++) {
    if (Number.isNaN(y[i])) continue;
    sum += Math.abs(y[i] - predicted[i]);
    n++;
  }
  if (n === 0) throw new RangeError('meanAbsoluteError: no labeled rows (every label is NaN)');
  return sum / n;
}

/** Options of {@link ordinalMeanAuc}. */
export interface OrdinalAucOptions {
  /**
   * Number of classes k (labels are 1..k). Default: the largest label present.
   * Give it when the evaluation set may lack the top class, so that the
   * thresholds above the largest present class are reported as skipped.
   */
  k?: number;
}

/** Result of {@link ordinalMeanAuc}. */
export interface OrdinalAucResult {
  /** Mean of the defined per-threshold AUCs: `1 − R_α` of the paper's Eq. (2). */
  meanAuc: number;
  /** `perThreshold[j − 1]` is the AUC of subproblem j (positives y > j); NaN where skipped. */
  perThreshold: Float64Array;
  /**
   * Thresholds j (1-based) left out of the mean because subproblem j has no
   * positives (no label > j) or no negatives (no label ≤ j) in the evaluation
   * set. Empty whenever classes 1 and k are both present.
   */
  skippedThresholds: number[];
  /** Number of classes k. */
  k: number;
  /** `classCounts[c − 1]` is the number of labeled rows of class c. */
  classCounts: number[];
}

/**
 * The ordinal AUC used to evaluate QS³ORAO: the mean, over the k − 1 threshold
 * subproblems, of the binary AUC of one ranking function f.
 *
 * In the paper's words: "for the j-th binary classification hyperplane, the
 * first consecutive j categories, 1, …, j, can be regarded as negative, and the
 * rest of the classes, j+1, …, k, can be regarded as positive", the AUC of
 * subproblem j is `1 − E_{x_p ∈ D_p^j} E_{x_n ∈ D_n^j} l01(f(x_p), f(x_n))`
 * with `l01(u, v) = ½(1 − sign(u − v))` (ties count one half), and "the overall
 * AUC risk in S²OR is equivalent to the mean of AUC for k − 1 subproblems",
 * `R_α = (1/(k−1)) Σ_j R_PN^j` (Eq. 2); the experiments report "the average AUC
 * of unlabeled by Equation (2)". So this returns `meanAuc = 1 − R_α`, every
 * subproblem scored by the same `scores = f(x)` (the thresholds b_j do not
 * enter AUC).
 *
 * Labels must be integers 1..k (NaN = unlabeled, ignored); anything else
 * throws a RangeError naming the row. A subproblem with no positives or no
 * negatives in the evaluation set (a class range absent at the bottom or top)
 * is skipped and listed in `skippedThresholds`; the mean is over the rest.
 * When fewer than two classes are present no subproblem is defined and a
 * RangeError is thrown.
 *
 * Cost: one sort of all scores (by class), then O((k − 1)·n) merge passes.
 *
 * @example
 * // y: 1 1 2 3, f: 0.1 0.5 0.5 0.9
 * // j=1: pos {0.5, 0.9} vs neg {0.1, 0.5}: 1 + ½ + 1 + 1 = 3.5/4
 * // j=2: pos {0.9} vs neg {0.1, 0.5, 0.5}: 3/3
 * ordinalMeanAuc([1, 1, 2, 3], [0.1, 0.5, 0.5, 0.9]).meanAuc; // (0.875 + 1) / 2 = 0.9375
 */
export function ordinalMeanAuc(y: ArrayLike<number>, scores: ArrayLike<number>, options: OrdinalAucOptions = {}): OrdinalAucResult {
  checkSameLength('ordinalMeanAuc', 'y', y, 'scores', scores);
  checkLabels('ordinalMeanAuc', y);
  checkFiniteWhereLabeled('ordinalMeanAuc', y, 'scores', scores);

  let k = options.k;
  if (k !== undefined && !(Number.isInteger(k) && k >= 2)) {
    throw new RangeError(`ordinalMeanAuc: k must be an integer ≥ 2, got ${k}`);
  }
  let maxLabel = 0;
  for (let i = 0; i < y.length; i++) {
    const c = y[i];
    if (Number.isNaN(c)) continue;
    if (!Number.isInteger(c) || c < 1 || (k !== undefined && c > k)) {
      throw new RangeError(
        `ordinalMeanAuc: y[${i}] = ${c} (row ${i + 1}) is not an ordinal label; labels must be integers 1..${k ?? 'k'}`,
      );
    }
    if (c > maxLabel) maxLabel = c;
  }
  if (maxLabel === 0) throw new RangeError('ordinalMeanAuc: no labeled rows (every label is NaN)');
  k ??= Math.max(maxLabel, 2);

  // Per-class sorted scores S_c.
  const classCounts = new Array<number>(k).fill(0);
  for (let i = 0; i < y.length; i++) if (!Number.isNaN(y[i])) classCounts[y[i] - 1]++;
  const S = classCounts.map((count) => new Float64Array(count));
  const fill = new Array<number>(k).fill(0);
  for (let i = 0; i < y.length; i++) {
    if (Number.isNaN(y[i])) continue;
    const c = y[i] - 1;
    S[c][fill[c]++] = scores[i];
  }
  for (const s of S) s.sort();

  // W[a][b] (a < b, 0-based): wins of class b over class a, ties ½.
  const W: number[][] = Array.from({ length: k }, () => new Array<number>(k).fill(0));
  for (let a = 0; a < k; a++) {
    if (classCounts[a] === 0) continue;
    for (let b = a + 1; b < k; b++) {
      if (classCounts[b] !== 0) W[a][b] = sortedWins(S[b], S[a]);
    }
  }

  const perThreshold = new Float64Array(k - 1).fill(NaN);
  const skippedThresholds: number[] = [];
  let sum = 0;
  let defined = 0;
  for (let j = 1; j <= k - 1; j++) {
    // Negatives: classes 1..j (0-based 0..j-1); positives: classes j+1..k.
    let nNeg = 0;
    let nPos = 0;
    for (let c = 0; c < j; c++) nNeg += classCounts[c];
    for (let c = j; c < k; c++) nPos += classCounts[c];
    if (nNeg === 0 || nPos === 0) {
      skippedThresholds.push(j);
      continue;
    }
    let U = 0;
    for (let a = 0; a < j; a++) for (let b = j; b < k; b++) U += W[a][b];
    const aucJ = U / (nPos * nNeg);
    perThreshold[j - 1] = aucJ;
    sum += aucJ;
    defined++;
  }
  if (defined === 0) {
    const present = classCounts.flatMap((count, c) => (count > 0 ? [c + 1] : []));
    throw new RangeError(
      `ordinalMeanAuc: only class ${present.join(', ')} present among the labeled rows; ordinal AUC needs at least two classes`,
    );
  }
  return { meanAuc: sum / defined, perThreshold, skippedThresholds, k, classCounts };
}
