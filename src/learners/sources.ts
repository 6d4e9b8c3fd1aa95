/**
 * The sources a learner samples from (the rows of each class, or positive and
 * negative rows, and the unlabeled rows of a dataset) and the copying of drawn
 * rows into a batch.
 */
import { DataError } from '../errors.ts';
import type { Dataset } from '../data/dataset.ts';
import { classCounts } from '../data/validate.ts';
import type { Rng } from '../coordinator/learner.ts';

/** Row indices of each source of a binary semi-supervised dataset. */
export interface BinarySources {
  readonly P: Int32Array;
  readonly N: Int32Array;
  readonly U: Int32Array;
}

/** Row indices of each class of a task (in the order the classes were given) and of the unlabeled rows. */
export interface ClassSources {
  readonly byClass: readonly Int32Array[];
  readonly U: Int32Array;
}

function labelWhere(ds: Dataset): { file?: string; column: string } {
  return ds.source !== undefined ? { file: ds.source, column: ds.labelName } : { column: ds.labelName };
}

/**
 * Splits rows by label into one source per class of `classes` (label values,
 * in the order given: rank order for an ordinal task) and the unlabeled rows,
 * checking that every labeled row belongs to one of them and that every class
 * has at least one labeled row. Rows keep their order within a source.
 *
 * @example
 * const { byClass, U } = classSources(diabetes, [1, 2, 3, 4, 5]); // byClass[0]: rows labeled 1
 */
export function classSources(ds: Dataset, classes: readonly number[]): ClassSources {
  const index = new Map(classes.map((c, k) => [c, k]));
  const name = (v: number) => (ds.classNames?.[v] !== undefined ? `'${ds.classNames[v]}'` : String(v));
  const rows = classes.map(() => [] as number[]);
  const U: number[] = [];
  for (let i = 0; i < ds.n; i++) {
    if (!ds.labeled[i]) {
      U.push(i);
      continue;
    }
    const k = index.get(ds.y[i]);
    if (k === undefined) throw new DataError(`label ${name(ds.y[i])} is not one of the classes ${classes.map(name).join(', ')}`, { ...labelWhere(ds), row: i + 1 });
    rows[k].push(i);
  }
  const empty = classes.filter((_, k) => rows[k].length === 0);
  if (empty.length > 0) throw new DataError(`no labeled rows of class ${empty.map(name).join(', ')}`, labelWhere(ds));
  return { byClass: rows.map((r) => Int32Array.from(r)), U: Int32Array.from(U) };
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
  const present = [...classCounts(ds).keys()];
  if (present.length > 2) throw new DataError(`a binary learner needs two classes, found ${present.length} (${present.join(', ')})`, labelWhere(ds));
  if (!present.includes(positive)) throw new DataError(`no labeled rows of the positive class ${positive}`, labelWhere(ds));
  const negative = present.find((c) => c !== positive);
  if (negative === undefined) throw new DataError(`no labeled rows of the negative class (labels other than ${positive})`, labelWhere(ds));
  const { byClass, U } = classSources(ds, [negative, positive]);
  return { P: byClass[1], N: byClass[0], U };
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
