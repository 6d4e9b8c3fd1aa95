/**
 * Training rows as plain arrays — `{ X, y }`, the way a script often has
 * them — turned into a validated {@link Dataset}: `X` is one array of numbers
 * per row (`number[][]` or `Float64Array[]`), `y` one label per row, where
 * `null`, `undefined` or `NaN` marks an unlabeled row. Labels are numbers
 * (`-1`/`1`, `0`/`1`, ordinal ranks `1..k`) or class names (`'spam'`,
 * `'ham'`, read in sorted order, as a CSV file's are).
 *
 * @example
 * const ds = arraysToDataset({ X: [[0.1, 2], [0.4, 1], [0.9, 0]], y: [1, null, -1] }, 'data');
 * ds.labeled; // Uint8Array [1, 0, 1]
 */
import { UsageError } from '../errors.ts';
import { makeDataset, type Dataset } from './dataset.ts';
import { validateDataset } from './validate.ts';

/** A label of {@link ArrayData}: a number or class name; `null`, `undefined` or `NaN` = unlabeled. */
export type ArrayLabel = number | string | null | undefined;

/** Rows as plain arrays (see the module comment). */
export interface ArrayData {
  /** One row per element, each with the same number of features. */
  X: ReadonlyArray<ArrayLike<number>>;
  /** One label per row; `null` / `undefined` / `NaN` = unlabeled. */
  y: ReadonlyArray<ArrayLabel> | Float64Array;
  /** Names of the feature columns (default `x1`, `x2`, …). */
  featureNames?: readonly string[];
}

/**
 * Whether `data` has the shape of {@link ArrayData} (an object with an array `X`
 * and a `y`), as opposed to a Dataset, a path, a Table or a stream.
 *
 * @example
 * isArrayData({ X: [[1, 2]], y: [1] }); // true
 */
export function isArrayData(data: unknown): data is ArrayData {
  if (data === null || typeof data !== 'object') return false;
  const o = data as { X?: unknown; y?: unknown; labeled?: unknown };
  return Array.isArray(o.X) && o.y !== undefined && !(o.labeled instanceof Uint8Array);
}

/**
 * The rows of `data` as a validated Dataset; `option` names it in messages
 * (`data.X[3] has 4 values, row 0 has 5`). A UsageError for a bad shape, a
 * DataError (file `option`, column, row) for a value that is not finite.
 *
 * @example
 * await train({ learner: 'qsg-s2auc', data: { X: rows, y: labels } }); // calls arraysToDataset(…, 'data')
 */
export function arraysToDataset(data: ArrayData, option: string): Dataset {
  const { X, y } = data;
  const n = X.length;
  if (!(Array.isArray(y) || y instanceof Float64Array)) throw new UsageError(`${option}.y must be an array of labels (numbers or class names; null or NaN = unlabeled)`);
  if (y.length !== n) throw new UsageError(`${option}.y has ${y.length} labels for ${n} rows of ${option}.X`);
  if (n === 0) throw new UsageError(`${option}.X has no rows`);
  const first = X[0];
  if (first === null || typeof first !== 'object' || typeof first.length !== 'number') throw new UsageError(`${option}.X[0] must be an array of numbers (one row), got ${first === null ? 'null' : typeof first}`);
  const d = first.length;
  if (d === 0) throw new UsageError(`${option}.X[0] has no features`);
  const names = data.featureNames;
  if (names !== undefined && names.length !== d) throw new UsageError(`${option}.featureNames has ${names.length} names for ${d} features`);
  const flat = new Float64Array(n * d);
  for (let i = 0; i < n; i++) {
    const row = X[i];
    if (row === null || typeof row !== 'object' || typeof row.length !== 'number') throw new UsageError(`${option}.X[${i}] must be an array of numbers (one row), got ${row === null ? 'null' : typeof row}`);
    if (row.length !== d) throw new UsageError(`${option}.X[${i}] has ${row.length} values, ${option}.X[0] has ${d}; every row needs the same features`);
    for (let k = 0; k < d; k++) {
      const v = row[k];
      if (typeof v !== 'number') throw new UsageError(`${option}.X[${i}][${k}] must be a number, got ${v === null ? 'null' : typeof v} ${String(v)}`);
      flat[i * d + k] = v;
    }
  }
  const missing = (v: ArrayLabel) => v === null || v === undefined || (typeof v === 'number' && Number.isNaN(v));
  const labels = Array.from(y as ArrayLike<ArrayLabel>);
  const kinds = new Set(labels.filter((v) => !missing(v)).map((v) => typeof v));
  if ([...kinds].some((k) => k !== 'number' && k !== 'string')) {
    const i = labels.findIndex((v) => !missing(v) && typeof v !== 'number' && typeof v !== 'string');
    throw new UsageError(`${option}.y[${i}] must be a number, a class name, or null/NaN for unlabeled, got ${typeof labels[i]}`);
  }
  if (kinds.size > 1) throw new UsageError(`${option}.y mixes numbers and class names; use one or the other`);
  const yy = new Float64Array(n);
  let classNames: string[] | undefined;
  if (kinds.has('string')) {
    classNames = [...new Set(labels.filter((v): v is string => typeof v === 'string'))].sort();
    const index = new Map(classNames.map((c, j) => [c, j]));
    labels.forEach((v, i) => (yy[i] = typeof v === 'string' ? index.get(v)! : NaN));
  } else labels.forEach((v, i) => (yy[i] = missing(v) ? NaN : (v as number)));
  const ds = makeDataset({ X: flat, d, y: yy, source: option, ...(names !== undefined ? { featureNames: names } : {}), ...(classNames !== undefined ? { classNames } : {}) });
  validateDataset(ds);
  return ds;
}
