/**
 * Every row a learner's batches may hold, from its sources: what a learner
 * declares as `sampledRows` (coordinator/learner.ts) so that the loop can keep
 * f at those rows instead of evaluating the history at each batch.
 */
import type { SampledRows } from '../coordinator/learner.ts';
import type { Dataset } from '../data/dataset.ts';

/**
 * The rows of several sources together, ascending without repeats.
 *
 * @example
 * sampledRowsOf([sources.P, sources.N, sources.U]); // every row of the dataset
 */
export function sampledRowsOf(sources: readonly Int32Array[]): Int32Array {
  const all = new Int32Array(sources.reduce((n, s) => n + s.length, 0));
  let at = 0;
  for (const s of sources) {
    all.set(s, at);
    at += s.length;
  }
  all.sort();
  let k = 0;
  for (let i = 0; i < all.length; i++) if (i === 0 || all[i] !== all[i - 1]) all[k++] = all[i];
  return all.slice(0, k);
}

/**
 * A learner's {@link SampledRows}: batches of `batchPoints` rows of `ds`, drawn from `sources`.
 *
 * @example
 * this.sampledRows = sampledRows(ds, [P, N, U], 3 * B);
 */
export function sampledRows(ds: Dataset, sources: readonly Int32Array[], batchPoints: number): SampledRows {
  return { X: ds.X, rows: sampledRowsOf(sources), batchPoints };
}
