/**
 * The sources a learner samples from (positive, negative, unlabeled rows of a
 * dataset) and the copying of drawn rows into a batch.
 */
import { DataError } from '../errors.ts';
import type { Dataset } from '../data/dataset.ts';
import type { Rng } from '../coordinator/learner.ts';

/** Row indices of each source of a binary semi-supervised dataset. */
export interface BinarySources {
  readonly P: Int32Array;
  readonly N: Int32Array;
  readonly U: Int32Array;
}

/**
 * Splits rows into positives (`y === positive`), negatives (other labels) and
 * unlabeled, checking there are exactly two classes and at least one labeled
 * row of each.
 *
 * @example
 * const { P, N, U } = binarySources(ds, 1);
 */
export function binarySources(ds: Dataset, positive: number): BinarySources {
  const P: number[] = [];
  const N: number[] = [];
  const U: number[] = [];
  const classes = new Set<number>();
  for (let i = 0; i < ds.n; i++) {
    if (!ds.labeled[i]) U.push(i);
    else {
      classes.add(ds.y[i]);
      (ds.y[i] === positive ? P : N).push(i);
    }
  }
  const where = ds.source !== undefined ? { file: ds.source, column: ds.labelName } : { column: ds.labelName };
  if (classes.size > 2) throw new DataError(`a binary learner needs two classes, found ${classes.size} (${[...classes].sort((a, b) => a - b).join(', ')})`, where);
  if (P.length === 0) throw new DataError(`no labeled rows of the positive class ${positive}`, where);
  if (N.length === 0) throw new DataError(`no labeled rows of the negative class (labels other than ${positive})`, where);
  return { P: Int32Array.from(P), N: Int32Array.from(N), U: Int32Array.from(U) };
}

/**
 * The positive label of a binary dataset when none is given: the larger of the two labels (+1 of ±1, 1 of 0/1).
 *
 * @example
 * defaultPositiveLabel(ds); // 1
 */
export function defaultPositiveLabel(ds: Dataset): number {
  let max = -Infinity;
  for (let i = 0; i < ds.n; i++) if (ds.labeled[i] && ds.y[i] > max) max = ds.y[i];
  if (max === -Infinity) throw new DataError('no labeled rows', ds.source !== undefined ? { file: ds.source, column: ds.labelName } : { column: ds.labelName });
  return max;
}

/**
 * Draws `count` rows uniformly with replacement from `rows` and copies them
 * into `X` starting at row `at`; returns the drawn row indices.
 *
 * @example
 * drawRows(ds, sources.P, 256, rng, batchX, 0);
 */
export function drawRows(ds: Dataset, rows: Int32Array, count: number, rng: Rng, X: Float64Array, at: number, drawn?: Int32Array): Int32Array {
  const { d } = ds;
  const out = drawn ?? new Int32Array(count);
  for (let r = 0; r < count; r++) {
    const i = rows[Math.floor(rng() * rows.length)];
    out[r] = i;
    X.set(ds.X.subarray(i * d, i * d + d), (at + r) * d);
  }
  return out;
}
