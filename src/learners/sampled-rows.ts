/**
 * Every row a learner's batches may hold, from its sources: what a learner
 * declares as `sampledRows` (coordinator/learner.ts) so that the loop can keep
 * f at those rows instead of evaluating the history at each batch.
 */
import type { SampledRows } from '../coordinator/learner.ts';
import { KeptRows, sortedUnique, type TrainingRows } from '../data/training-rows.ts';
import type { Source } from './sources.ts';

/**
 * The rows of several sources together, ascending without repeats.
 *
 * @example
 * sampledRowsOf([P.indices(), N.indices(), U.indices()]); // every row of the dataset
 */
export function sampledRowsOf(sources: readonly Int32Array[]): Int32Array {
  const all = new Int32Array(sources.reduce((n, s) => n + s.length, 0));
  let at = 0;
  for (const s of sources) {
    all.set(s, at);
    at += s.length;
  }
  return sortedUnique(all).slice();
}

/**
 * A learner's {@link SampledRows}: batches of `batchPoints` rows of `rows`,
 * drawn from `sources` (disjoint). The predicted cost counts every row of the
 * sources whatever backs them, so in memory and sample on read choose the same
 * strategy (and write the same model); the rows kept f at are the sources'
 * rows in memory, and the rows read from disk (every row the run draws) on
 * sample on read. Nothing is listed until the loop asks. `draws` (each
 * source's points per iteration, when given) lets a loop evaluating its
 * history keep f at the rows of the sources it draws again and again.
 *
 * @example
 * this.sampledRows = sampledRows(rows, [P, N, U], 3 * B, [B, B, B]);
 */
export function sampledRows(rows: TrainingRows, sources: readonly Source[], batchPoints: number, draws?: readonly number[]): SampledRows {
  let list: Int32Array | undefined;
  if (draws !== undefined && draws.length !== sources.length) throw new RangeError(`sampledRows: ${draws.length} draw counts for ${sources.length} sources`);
  return {
    count: sources.reduce((n, s) => n + s.size, 0),
    batchPoints,
    ...(draws !== undefined ? { sources: sources.map((s, i) => ({ size: s.size, draws: draws[i], indices: () => s.indices() })) } : {}),
    copyRow: (i, X, at) => rows.copyRow(i, X, at),
    rows: () => (list ??= rows instanceof KeptRows ? rows.keep : sampledRowsOf(sources.map((s) => s.indices()))),
  };
}
