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
  /** Labels as given in the file (e.g. -1/+1, 0/1, or 1..k); `NaN` where unlabeled. */
  readonly y: Float64Array;
  /** 1 where the row has a label, 0 where it does not. */
  readonly labeled: Uint8Array;
  /** Names of the `d` feature columns, in order. */
  readonly featureNames: readonly string[];
  /** Name of the label column. */
  readonly labelName: string;
  /** The file the rows came from, for error messages (absent for generated data). */
  readonly source?: string;
  /** Class names when the labels were strings: `y[i]` is then an index into this list. */
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
}): Dataset {
  const { X, d, y } = parts;
  const n = y.length;
  if (X.length !== n * d) throw new RangeError(`makeDataset: X has ${X.length} values, expected n*d = ${n}*${d}`);
  const labeled = new Uint8Array(n);
  for (let i = 0; i < n; i++) labeled[i] = Number.isNaN(y[i]) ? 0 : 1;
  const featureNames = parts.featureNames ?? Array.from({ length: d }, (_, k) => `x${k + 1}`);
  if (featureNames.length !== d) throw new RangeError(`makeDataset: ${featureNames.length} feature names for d = ${d}`);
  return { n, d, X, y, labeled, featureNames, labelName: parts.labelName ?? 'label', ...(parts.source !== undefined ? { source: parts.source } : {}) };
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
  return makeDataset({ X, d, y, featureNames: ds.featureNames, labelName: ds.labelName, ...(ds.source !== undefined ? { source: ds.source } : {}) });
}
