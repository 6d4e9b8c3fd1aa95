/**
 * Shared label handling for the metrics: which rows count (NaN label =
 * unlabeled, skipped), which label is "positive", and input validation.
 */

/**
 * Which labels are positive: a predicate, or a label value (`y === value`).
 * Every metric taking one defaults to `y > 0`, which fits both -1/+1 and 0/1
 * coding, and also decision values (positive score = positive prediction).
 */
export type PositiveClass = number | ((y: number) => boolean);

/**
 * Turns a {@link PositiveClass} into a predicate; `undefined` gives `y > 0`.
 *
 * @example
 * positivePredicate(undefined)(-1); // false
 * positivePredicate(2)(2);          // true
 * positivePredicate((y) => y >= 3)(4); // true
 */
export function positivePredicate(positive: PositiveClass | undefined): (y: number) => boolean {
  if (positive === undefined) return (y) => y > 0;
  if (typeof positive === 'function') return positive;
  if (!Number.isFinite(positive)) throw new RangeError(`positive class value must be a finite number, got ${positive}`);
  return (y) => y === positive;
}

/**
 * Throws a RangeError unless `a` and `b` have the same length.
 *
 * @example
 * checkSameLength('auc', 'y', [1, 0], 'scores', [0.3, 0.1]); // ok
 */
export function checkSameLength(fn: string, aName: string, a: ArrayLike<number>, bName: string, b: ArrayLike<number>): void {
  if (a.length !== b.length) {
    throw new RangeError(`${fn}: ${aName} has ${a.length} entries but ${bName} has ${b.length}`);
  }
}

/**
 * Throws a RangeError naming the index when `values[i]` is NaN or ±Infinity
 * (only checked where `y[i]` is a label, i.e. not NaN).
 *
 * @example
 * checkFiniteWhereLabeled('mae', [1, NaN], 'predictions', [2, NaN]); // ok: row 1 is unlabeled
 */
export function checkFiniteWhereLabeled(fn: string, y: ArrayLike<number>, name: string, values: ArrayLike<number>): void {
  for (let i = 0; i < y.length; i++) {
    if (!Number.isNaN(y[i]) && !Number.isFinite(values[i])) {
      throw new RangeError(`${fn}: ${name}[${i}] is ${values[i]} (row ${i + 1}); every labeled row needs a finite value`);
    }
  }
}

/**
 * Throws a RangeError naming the index when a label is ±Infinity (NaN is
 * allowed: it means unlabeled).
 *
 * @example
 * checkLabels('auc', [1, NaN, -1]); // ok
 */
export function checkLabels(fn: string, y: ArrayLike<number>): void {
  for (let i = 0; i < y.length; i++) {
    const v = y[i];
    if (typeof v !== 'number' || v === Infinity || v === -Infinity) {
      throw new RangeError(`${fn}: y[${i}] is ${v} (row ${i + 1}); a label must be a finite number, or NaN for unlabeled`);
    }
  }
}
