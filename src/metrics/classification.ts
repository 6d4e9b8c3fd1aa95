/**
 * Classification metrics: confusion counts, accuracy, F1 for the positive
 * class. Rows whose true label is `NaN` are unlabeled and are ignored.
 *
 * `predicted` holds predicted labels in the same coding as `y`, or decision
 * values: with the default positive class (`y > 0`), a decision value above
 * zero counts as a positive prediction, so `f(x)` can be passed as is.
 */
import { checkFiniteWhereLabeled, checkLabels, checkSameLength, positivePredicate, type PositiveClass } from './labels.ts';

/** Counts of a binary confusion matrix over the labeled rows. */
export interface ConfusionCounts {
  /** True positives: labeled positive, predicted positive. */
  tp: number;
  /** False positives: labeled negative, predicted positive. */
  fp: number;
  /** True negatives: labeled negative, predicted negative. */
  tn: number;
  /** False negatives: labeled positive, predicted negative. */
  fn: number;
  /** Labeled rows counted (`tp + fp + tn + fn`). */
  n: number;
  /** Rows skipped because their label is NaN (unlabeled). */
  unlabeled: number;
}

/** Options of {@link confusionCounts}. */
export interface ConfusionOptions {
  /** Which labels (and predictions) are positive. Default: `y > 0`. */
  positive?: PositiveClass;
}

/**
 * Binary confusion counts of `predicted` against `y`, the positive predicate
 * applied to both. NaN labels are skipped and counted in `unlabeled`; a
 * non-finite prediction on a labeled row throws a RangeError naming the row.
 *
 * @example
 * confusionCounts([1, 1, -1, -1, NaN], [1, -1, 1, -1, 1]);
 * // { tp: 1, fp: 1, tn: 1, fn: 1, n: 4, unlabeled: 1 }
 */
export function confusionCounts(y: ArrayLike<number>, predicted: ArrayLike<number>, options: ConfusionOptions = {}): ConfusionCounts {
  checkSameLength('confusionCounts', 'y', y, 'predicted', predicted);
  checkLabels('confusionCounts', y);
  checkFiniteWhereLabeled('confusionCounts', y, 'predicted', predicted);
  const isPositive = positivePredicate(options.positive);
  let tp = 0;
  let fp = 0;
  let tn = 0;
  let fn = 0;
  let unlabeled = 0;
  for (let i = 0; i < y.length; i++) {
    if (Number.isNaN(y[i])) {
      unlabeled++;
      continue;
    }
    const truth = isPositive(y[i]);
    const guess = isPositive(predicted[i]);
    if (truth) {
      if (guess) tp++;
      else fn++;
    } else if (guess) fp++;
    else tn++;
  }
  return { tp, fp, tn, fn, n: tp + fp + tn + fn, unlabeled };
}

/** Options of {@link accuracy}. */
export interface AccuracyOptions {
  /**
   * When given, accuracy is binary: a row is right when the positive predicate
   * agrees on label and prediction (so decision values can be passed). When
   * absent, a row is right when `predicted[i] === y[i]` (any number of classes).
   */
  positive?: PositiveClass;
}

/**
 * Fraction of labeled rows predicted right. NaN labels are skipped. Without
 * `options.positive` labels are compared exactly (multi-class, ordinal); with
 * it, through the positive predicate (binary, decision values allowed).
 * Throws a RangeError when no row is labeled.
 *
 * @example
 * accuracy([1, 2, 3, NaN], [1, 2, 2, 3]);                  // 2/3
 * accuracy([1, -1, 1], [0.7, -0.2, -1.5], { positive: (v) => v > 0 }); // 2/3
 */
export function accuracy(y: ArrayLike<number>, predicted: ArrayLike<number>, options: AccuracyOptions = {}): number {
  if (options.positive !== undefined) {
    const c = confusionCounts(y, predicted, { positive: options.positive });
    if (c.n === 0) throw new RangeError('accuracy: no labeled rows (every label is NaN)');
    return (c.tp + c.tn) / c.n;
  }
  checkSameLength('accuracy', 'y', y, 'predicted', predicted);
  checkLabels('accuracy', y);
  checkFiniteWhereLabeled('accuracy', y, 'predicted', predicted);
  let right = 0;
  let n = 0;
  for (let i = 0; i < y.length; i++) {
    if (Number.isNaN(y[i])) continue;
    n++;
    if (predicted[i] === y[i]) right++;
  }
  if (n === 0) throw new RangeError('accuracy: no labeled rows (every label is NaN)');
  return right / n;
}

/** Options of {@link f1Score}. */
export interface F1Options extends ConfusionOptions {
  /**
   * Value returned when `tp + fp + fn = 0` — no positive labels and no positive
   * predictions, where precision and recall are both 0/0. Default 1: the
   * classifier made no error on the positive class. (scikit-learn's
   * `zero_division` default gives 0; pass 0 or NaN to match it.)
   */
  zeroDivision?: number;
}

/**
 * F1 score of the positive class: `2·tp / (2·tp + fp + fn)`, the harmonic mean
 * of precision and recall. NaN labels are skipped. When there are no positive
 * labels and no positive predictions (`tp + fp + fn = 0`) the score is
 * `options.zeroDivision` (default 1). Throws a RangeError when no row is labeled.
 *
 * @example
 * // tp=2 (rows 0,1), fn=1 (row 2), fp=1 (row 3): 2·2 / (4 + 1 + 1)
 * f1Score([1, 1, 1, -1, -1], [1, 1, -1, 1, -1]); // 0.6667
 */
export function f1Score(y: ArrayLike<number>, predicted: ArrayLike<number>, options: F1Options = {}): number {
  const c = confusionCounts(y, predicted, options.positive === undefined ? {} : { positive: options.positive });
  if (c.n === 0) throw new RangeError('f1Score: no labeled rows (every label is NaN)');
  const denominator = 2 * c.tp + c.fp + c.fn;
  if (denominator === 0) return options.zeroDivision ?? 1;
  return (2 * c.tp) / denominator;
}
