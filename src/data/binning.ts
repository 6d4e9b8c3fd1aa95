/**
 * Equal-frequency binning of a real-valued target into k ordered classes: the
 * ordinal-regression papers' preprocessing of regression data ("we discretize
 * the regression datasets into equal-frequency bins"). The cut points are the
 * quantiles `q_{i/k}`, `i = 1..k−1`, of the labeled values, by linear
 * interpolation between order statistics (numpy's default `percentile`
 * method, R's type 7); a value `v` gets class `1 + #{cuts c : v > c}` (a value
 * equal to a cut goes to the lower class). Unlabeled rows stay unlabeled.
 */
import { DataError } from '../errors.ts';
import type { Dataset } from './dataset.ts';

/**
 * The `p`-quantile of ascending `sorted` values by linear interpolation
 * (numpy's default): position `p·(n − 1)` between order statistics.
 *
 * @example
 * quantileSorted([1, 2, 3, 4], 0.5); // 2.5
 * quantileSorted([1, 2, 3, 4], 0.2); // 1.6
 */
export function quantileSorted(sorted: ArrayLike<number>, p: number): number {
  const n = sorted.length;
  if (n === 0) throw new RangeError('quantileSorted: no values');
  const h = p * (n - 1);
  const lo = Math.floor(h);
  const hi = Math.min(lo + 1, n - 1);
  return sorted[lo] + (h - lo) * (sorted[hi] - sorted[lo]);
}

/** What {@link binLabels} produced. */
export interface Binned {
  /** The dataset with `y` = class 1..k (NaN where unlabeled). */
  readonly ds: Dataset;
  /** The k − 1 cut points, ascending. */
  readonly cuts: readonly number[];
  /** Labeled rows per class, class 1 first. */
  readonly counts: readonly number[];
}

/**
 * Bins the labels of `ds` (real values, NaN = unlabeled) into `k`
 * equal-frequency ordered classes 1..k, named `labelName`. A DataError naming
 * the file and column when it cannot: fewer than k labeled rows, or so many
 * equal values that a class would be empty.
 *
 * @example
 * const { ds: binned, cuts, counts } = binLabels(houses, 5, 'label'); // counts ≈ n/5 each
 */
export function binLabels(ds: Dataset, k: number, labelName: string): Binned {
  if (!Number.isSafeInteger(k) || k < 2) throw new RangeError(`binLabels: k must be a whole number ≥ 2, got ${k}`);
  const where = { ...(ds.source !== undefined ? { file: ds.source } : {}), column: ds.labelName };
  if (ds.classNames) throw new DataError(`the column holds class names (${ds.classNames.slice(0, 3).join(', ')}, …), not numbers; binning needs a real-valued column`, where);
  const values: number[] = [];
  for (let i = 0; i < ds.n; i++) if (ds.labeled[i]) values.push(ds.y[i]);
  if (values.length < k) throw new DataError(`${values.length} rows have a value; ${k} equal-frequency classes need at least ${k}`, where);
  const sorted = Float64Array.from(values).sort();
  const cuts = Array.from({ length: k - 1 }, (_, i) => quantileSorted(sorted, (i + 1) / k));
  const y = new Float64Array(ds.n);
  const counts = new Array<number>(k).fill(0);
  for (let i = 0; i < ds.n; i++) {
    if (!ds.labeled[i]) {
      y[i] = NaN;
      continue;
    }
    let c = 1;
    for (const cut of cuts) if (ds.y[i] > cut) c++;
    y[i] = c;
    counts[c - 1]++;
  }
  const empty = counts.flatMap((count, c) => (count === 0 ? [c + 1] : []));
  if (empty.length > 0) {
    throw new DataError(
      `${k} equal-frequency classes would leave class ${empty.join(', ')} empty: too many equal values (cut points ${cuts.map((c) => Number(c.toPrecision(6))).join(', ')}); use a smaller k`,
      where,
    );
  }
  const { classNames: _names, ...rest } = ds;
  return { ds: { ...rest, y, labelName }, cuts, counts };
}
