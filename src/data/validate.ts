/**
 * Checks applied to every dataset at the boundary, in one place. Readers call
 * {@link validateDataset} before handing a {@link Dataset} out; learners call
 * {@link requireClasses} for the task they solve. Every failure is a
 * {@link DataError} naming the file, the column and the 1-based row.
 */
import { DataError } from '../errors.ts';
import type { Dataset } from './dataset.ts';

/**
 * The most feature columns dsgkit reads or writes: features are stored dense
 * (a row of d features is d doubles everywhere: in memory, in the model's
 * scaler and in every kernel evaluation), so a wider file (Arrow schema,
 * LIBSVM index, `generate --dim`) is refused with a clear error before
 * anything is allocated. Sparse data with more features (text; news20 has
 * 1.35 million) needs its features selected or hashed into fewer first.
 */
export const MAX_COLUMNS = 1_000_000;

/**
 * Throws unless every feature value is finite and every label is finite or
 * `NaN` (= unlabeled). Rows are reported 1-based.
 *
 * @example
 * validateDataset(makeDataset({ X: new Float64Array([0, Infinity]), d: 2, y: new Float64Array([1]), source: 'a.csv' }));
 * // DataError: "a.csv: column 'x2', row 1: value is Infinity; features must be finite numbers"
 */
export function validateDataset(ds: Dataset): void {
  validateRows({ X: ds.X, y: ds.y, d: ds.d, row0: 0, featureNames: ds.featureNames, labelName: ds.labelName, ...(ds.source !== undefined ? { file: ds.source } : {}) });
}

/**
 * The checks of {@link validateDataset} on a block of rows (`y.length` rows,
 * row-major `X`) whose first row is dataset row `row0` (0-based): how a
 * streaming reader checks each batch, naming the dataset row.
 *
 * @example
 * validateRows({ X: batch.X, y: batch.y, d: 20, row0: 6553, file: 'big.arrow', featureNames, labelName: 'label' });
 */
export function validateRows(rows: { X: Float64Array; y: Float64Array; d: number; row0: number; file?: string; featureNames: readonly string[]; labelName: string }): void {
  validateFeatures({ ...rows, n: rows.y.length });
  validateLabels(rows);
}

/**
 * The feature half of {@link validateRows}: every value of `X` (`n` rows of
 * `d`, the first dataset row `row0`) finite, else a DataError naming the file,
 * column and 1-based row.
 *
 * @example
 * if (!kernel.toRows(n, false)) validateFeatures({ X: kernel.X.subarray(0, n * d), d, n, row0, file, featureNames }); // throws, naming the value
 */
export function validateFeatures(rows: { X: Float64Array; d: number; n: number; row0: number; file?: string; featureNames: readonly string[] }): void {
  const { d, X, n, row0 } = rows;
  for (let i = 0; i < n; i++) {
    const base = i * d;
    // v·0 is ±0 for a finite v and NaN for ±∞ or NaN: one sum per row finds a row to look into.
    let zero = 0;
    for (let k = 0; k < d; k++) zero += X[base + k] * 0;
    for (let k = 0; zero !== 0 && k < d; k++) {
      const v = X[base + k];
      if (!Number.isFinite(v)) {
        throw new DataError(`value is ${v}; features must be finite numbers`, {
          file: rows.file,
          column: rows.featureNames[k],
          row: row0 + i + 1,
        });
      }
    }
  }
}

/**
 * The label half of {@link validateRows}: every label finite or `NaN`
 * (unlabeled) and at most 2^53 in size, else a DataError naming the row.
 *
 * @example
 * validateLabels({ y, row0: 6553, file: 'big.arrow', labelName: 'label' });
 */
export function validateLabels(rows: { y: Float64Array; row0: number; file?: string; labelName: string }): void {
  const { y, row0 } = rows;
  for (let i = 0; i < y.length; i++) {
    const label = y[i];
    if (Math.abs(label) > Number.MAX_SAFE_INTEGER && Number.isFinite(label)) {
      throw new DataError(`label ${label} is beyond 2^53: labels that large cannot be told apart as numbers (2^53 and 2^53 + 1 read the same); write the classes as names (strings) instead`, {
        file: rows.file,
        column: rows.labelName,
        row: row0 + i + 1,
      });
    }
    if (label === Infinity || label === -Infinity) {
      throw new DataError(`label is ${label}; labels must be finite numbers (or missing for unlabeled rows)`, {
        file: rows.file,
        column: rows.labelName,
        row: row0 + i + 1,
      });
    }
  }
}

/**
 * Throws when `name` is not among `columns`, listing what is there.
 *
 * @example
 * requireLabelColumn(['x1', 'x2'], 'label', 'train.csv');
 * // DataError: "train.csv: column 'label': label column not found (columns: x1, x2); choose one with --label"
 */
export function requireLabelColumn(columns: readonly string[], name: string, file?: string): void {
  if (!columns.includes(name)) {
    const shown = columns.length > 12 ? [...columns.slice(0, 12), '…'] : columns;
    throw new DataError(`label column not found (columns: ${shown.join(', ') || 'none'}); choose one with --label`, {
      file,
      column: name,
    });
  }
}

/**
 * Counts of labeled rows per label value, in ascending label order.
 *
 * @example
 * classCounts(ds); // Map { -1 => 2788, 1 => 1813 }
 */
export function classCounts(ds: Dataset): Map<number, number> {
  const counts = new Map<number, number>();
  for (let i = 0; i < ds.n; i++) {
    if (ds.labeled[i]) counts.set(ds.y[i], (counts.get(ds.y[i]) ?? 0) + 1);
  }
  return new Map([...counts.entries()].sort((a, b) => a[0] - b[0]));
}

/**
 * Throws unless every labeled row carries one of `classes` and every class has
 * at least one labeled row — what a binary (`[-1, 1]`) or ordinal (`[1..k]`)
 * learner needs before it can start.
 *
 * @example
 * requireClasses(ds, [-1, 1]);
 * // DataError: "spam.arrow: column 'label': class 1 has no labeled rows (labeled rows per class: -1: 20, 1: 0)"
 */
export function requireClasses(ds: Dataset, classes: readonly number[]): void {
  const allowed = new Set(classes);
  for (let i = 0; i < ds.n; i++) {
    if (ds.labeled[i] && !allowed.has(ds.y[i])) {
      throw new DataError(`label ${ds.y[i]} is not one of the expected classes ${classes.join(', ')}`, {
        file: ds.source,
        column: ds.labelName,
        row: i + 1,
      });
    }
  }
  const counts = classCounts(ds);
  const missing = classes.filter((c) => !counts.has(c));
  if (missing.length > 0) {
    const summary = classes.map((c) => `${c}: ${counts.get(c) ?? 0}`).join(', ');
    const what = missing.length === 1 ? `class ${missing[0]} has` : `classes ${missing.join(', ')} have`;
    throw new DataError(`${what} no labeled rows (labeled rows per class: ${summary})`, {
      file: ds.source,
      column: ds.labelName,
    });
  }
}
