/**
 * The in-memory dataset every learner reads: row-major features, labels and a
 * labeled mask. A label of `NaN` (a null in Arrow, an empty cell in CSV, `?`
 * in LIBSVM) means the row is unlabeled.
 */
export interface Dataset {
  /** Number of rows. */
  readonly n: number;
  /** Number of features per row. */
  readonly d: number;
  /** Features, row-major: row `i`, feature `k` is `X[i * d + k]`. */
  readonly X: Float64Array;
  /**
   * Labels as given in the file (e.g. -1/+1, 0/1, or 1..k); `NaN` where
   * unlabeled. When {@link Dataset.classNames} is present, `y[i]` is instead
   * the index of row `i`'s class in `classNames`.
   */
  readonly y: Float64Array;
  /** 1 where the row has a label, 0 where it does not. */
  readonly labeled: Uint8Array;
  /** Names of the `d` feature columns, in order. */
  readonly featureNames: readonly string[];
  /** Name of the label column. */
  readonly labelName: string;
  /** The file the rows came from, for error messages (absent for generated data). */
  readonly source?: string;
  /**
   * Present when the labels are names (`spam`, `ham`; an Arrow string or
   * dictionary column, non-numeric CSV cells, or names given with `classes`):
   * the class names, and `y[i]` is an index into them. Absent for numeric labels.
   */
  readonly classNames?: readonly string[];
}

/**
 * Builds a {@link Dataset}, deriving the labeled mask from `y` (NaN = unlabeled).
 *
 * @example
 * const ds = makeDataset({ X: new Float64Array([0, 1, 1, 0]), d: 2, y: new Float64Array([1, NaN]) });
 * ds.n;          // 2
 * ds.labeled[1]; // 0
 */
export function makeDataset(parts: {
  X: Float64Array;
  d: number;
  y: Float64Array;
  featureNames?: readonly string[];
  labelName?: string;
  source?: string;
  classNames?: readonly string[];
}): Dataset {
  const { X, d, y } = parts;
  const n = y.length;
  if (X.length !== n * d) throw new RangeError(`makeDataset: X has ${X.length} values, expected n*d = ${n}*${d}`);
  const labeled = new Uint8Array(n);
  for (let i = 0; i < n; i++) labeled[i] = Number.isNaN(y[i]) ? 0 : 1;
  const featureNames = parts.featureNames ?? Array.from({ length: d }, (_, k) => `x${k + 1}`);
  if (featureNames.length !== d) throw new RangeError(`makeDataset: ${featureNames.length} feature names for d = ${d}`);
  const { classNames } = parts;
  if (classNames !== undefined) {
    for (let i = 0; i < n; i++) {
      if (labeled[i] && !(Number.isInteger(y[i]) && y[i] >= 0 && y[i] < classNames.length)) {
        throw new RangeError(`makeDataset: y[${i}] = ${y[i]} is not an index into the ${classNames.length} class names`);
      }
    }
  }
  return {
    n,
    d,
    X,
    y,
    labeled,
    featureNames,
    labelName: parts.labelName ?? 'label',
    ...(parts.source !== undefined ? { source: parts.source } : {}),
    ...(classNames !== undefined ? { classNames: [...classNames] } : {}),
  };
}

/**
 * A dataset with the columns, label names, class names and source of `ds`
 * but the rows `X`, `y` (what every row-changing step returns: subsets,
 * splits, scaled copies).
 *
 * @example
 * const relabeled = withRows(ds, ds.X, yWithSomeLabelsDropped);
 */
export function withRows(ds: Dataset, X: Float64Array, y: Float64Array): Dataset {
  return makeDataset({
    X,
    d: ds.d,
    y,
    featureNames: ds.featureNames,
    labelName: ds.labelName,
    ...(ds.source !== undefined ? { source: ds.source } : {}),
    ...(ds.classNames !== undefined ? { classNames: ds.classNames } : {}),
  });
}

/**
 * The label of row `i` as the file wrote it: the class name when the labels
 * are names, else the number; `undefined` when the row is unlabeled.
 *
 * @example
 * labelText(ds, 0); // 'spam' (or '1' for numeric labels)
 */
export function labelText(ds: Dataset, i: number): string | undefined {
  if (!ds.labeled[i]) return undefined;
  return ds.classNames !== undefined ? ds.classNames[ds.y[i]] : String(ds.y[i]);
}

/**
 * How many rows of `ds` are labeled (n_l).
 *
 * @example
 * labeledCount(splitDataset(ds, { labeled: 200, seed: 1 }).train); // 200
 */
export function labeledCount(ds: Pick<Dataset, 'n' | 'labeled'>): number {
  let n = 0;
  for (let i = 0; i < ds.n; i++) n += ds.labeled[i];
  return n;
}

/**
 * Copies of the rows at `indices`, in that order (labels and mask follow).
 *
 * @example
 * const first = selectRows(ds, [0]);
 */
export function selectRows(ds: Dataset, indices: ArrayLike<number>): Dataset {
  const { d } = ds;
  const X = new Float64Array(indices.length * d);
  const y = new Float64Array(indices.length);
  for (let r = 0; r < indices.length; r++) {
    const i = indices[r];
    X.set(ds.X.subarray(i * d, i * d + d), r * d);
    y[r] = ds.y[i];
  }
  return withRows(ds, X, y);
}
