/**
 * Summaries of a list of scores (over folds, seeds or repeated runs): the
 * mean, the sample standard deviation, the median.
 */

/**
 * The arithmetic mean of a non-empty list (NaN for an empty one).
 *
 * @example
 * mean([0.9, 0.92, 0.94]); // 0.92
 */
export function mean(values: readonly number[]): number {
  return values.reduce((a, b) => a + b, 0) / values.length;
}

/**
 * The sample standard deviation (n − 1 in the denominator); 0 for fewer than two values.
 *
 * @example
 * sampleSd([0.9, 0.92, 0.94]); // 0.02
 */
export function sampleSd(values: readonly number[]): number {
  if (values.length < 2) return 0;
  const m = mean(values);
  return Math.sqrt(values.reduce((a, x) => a + (x - m) ** 2, 0) / (values.length - 1));
}

/**
 * The median (the mean of the two middle values for an even count); leaves `values` as it is.
 *
 * @example
 * median([3, 1, 2, 10]); // 2.5
 */
export function median(values: readonly number[]): number {
  const s = [...values].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}
