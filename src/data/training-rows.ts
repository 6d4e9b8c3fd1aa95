/**
 * The rows a learner trains on, as one abstraction ({@link TrainingRows}) with
 * three backings:
 * - {@link datasetRows}: a whole {@link Dataset} in memory;
 * - {@link KeptRows}: the labeled rows and the sample of other rows a run will
 *   touch, read from disk (sample on read: memory follows the run, not the file);
 * - {@link RowRecorder}: no feature values at all; it records which rows are
 *   asked for, so a run's draws can be planned before the data is read.
 *
 * Rows keep their dataset index (0-based, over the whole file) in all three,
 * so a learner draws the same rows, bit for bit, whichever backs it.
 */
import { ModelError } from '../errors.ts';
import { labeledCount, makeDataset, type Dataset } from './dataset.ts';

/** Training rows as learners see them: sizes, columns, labels of the labeled rows, and row copies. */
export interface TrainingRows {
  /** Rows of the whole dataset (labeled and unlabeled). */
  readonly n: number;
  readonly d: number;
  readonly featureNames: readonly string[];
  readonly labelName: string;
  /** The file, for messages. */
  readonly source?: string;
  /** Class names when the labels are names (labels are then indices into them). */
  readonly classNames?: readonly string[];
  /** Dataset indices of the labeled rows, ascending. */
  readonly labeledRows: Int32Array;
  /** The label of labeled row `i` (a dataset index listed in {@link labeledRows}). */
  label(i: number): number;
  /** Copies the (scaled) features of dataset row `i` into `X` at row `at`. */
  copyRow(i: number, X: Float64Array, at: number): void;
  /** Every row's features (row-major, n × d) when the whole dataset is in memory ({@link datasetRows}); absent when rows are read on demand. */
  readonly allFeatures?: Float64Array;
}

/** Rows at least this wide are copied by `set` (a memory copy), narrower ones by a plain loop: see {@link copyFeatures}. */
const COPY_BY_SET_FROM = 48;

/**
 * Copies row `r` of the row-major `X` (`d` values a row) into row `at` of
 * `out`. A batch draws rows one at a time, so each copy is one row: a plain
 * loop for narrow rows, where `out.set(X.subarray(…))` costs more in the view
 * it makes than it saves (d = 9: 1.5× the loop's time), and `set` for wide
 * ones, where the memory copy wins (d = 784: 0.4×, 192 rows an iteration).
 *
 * @example
 * copyFeatures(X, 17, d, batchX, 0); // batchX[0..d) = X[17d..18d)
 */
export function copyFeatures(X: Float64Array, r: number, d: number, out: Float64Array, at: number): void {
  const from = r * d;
  const to = at * d;
  if (d >= COPY_BY_SET_FROM) {
    out.set(X.subarray(from, from + d), to);
    return;
  }
  for (let k = 0; k < d; k++) out[to + k] = X[from + k];
}

/**
 * The rows of an in-memory dataset (features as they are in `ds`: pass a scaled one).
 *
 * @example
 * const rows = datasetRows(scaled);
 * rows.copyRow(17, batchX, 0);
 */
export function datasetRows(ds: Dataset): TrainingRows {
  const { d, X, y } = ds;
  const labeledRows = new Int32Array(labeledCount(ds));
  for (let i = 0, r = 0; i < ds.n; i++) if (ds.labeled[i]) labeledRows[r++] = i;
  return {
    n: ds.n,
    d,
    featureNames: ds.featureNames,
    labelName: ds.labelName,
    ...(ds.source !== undefined ? { source: ds.source } : {}),
    ...(ds.classNames !== undefined ? { classNames: ds.classNames } : {}),
    labeledRows,
    label: (i) => y[i],
    copyRow: (i, out, at) => copyFeatures(X, i, d, out, at),
    allFeatures: X,
  };
}

/**
 * Whether `x` is a {@link Dataset} (rather than {@link TrainingRows}).
 *
 * @example
 * const rows = isDataset(input) ? datasetRows(input) : input;
 */
export function isDataset(x: Dataset | TrainingRows): x is Dataset {
  return (x as Dataset).X instanceof Float64Array && (x as Dataset).labeled instanceof Uint8Array;
}

/**
 * `x` as {@link TrainingRows} (a Dataset is wrapped, rows are returned as they are).
 *
 * @example
 * const rows = trainingRows(ds);
 */
export function trainingRows(x: Dataset | TrainingRows): TrainingRows {
  return isDataset(x) ? datasetRows(x) : x;
}

/**
 * The features of the dataset rows `indices`, in the order given, as one
 * row-major array (`d` values a row): the rows a computation reads at once
 * (a sample, the labeled rows).
 *
 * @example
 * const XU = gatherRows(rows, sample); // sample.length × rows.d
 */
export function gatherRows(rows: TrainingRows, indices: ArrayLike<number>): Float64Array {
  const X = new Float64Array(indices.length * rows.d);
  for (let r = 0; r < indices.length; r++) rows.copyRow(indices[r], X, r);
  return X;
}

/**
 * f at `count` points given by index, into `out` (returned): their features
 * are copied `perCall` points at a time by `copy(p, X, r)` (point `p` into
 * row `r` of `X`) into one buffer reused for every part, and each part
 * evaluated by `evaluate`. What reads many rows by index without copying
 * them all at once (a final bias's points, a threshold's unlabeled rows).
 * The same bits whatever the parts: a point's value never depends on the
 * other points of a call.
 *
 * @example
 * await evaluateGathered(U.length, rows.d, 350, (p, X, r) => rows.copyRow(U[p], X, r), (X, n, o) => ev.evaluate(X, n, o), fU);
 */
export async function evaluateGathered(
  count: number, d: number, perCall: number, copy: (p: number, X: Float64Array, r: number) => void,
  evaluate: (X: Float64Array, nPoints: number, out: Float64Array) => Promise<unknown>, out: Float64Array,
): Promise<Float64Array> {
  const step = Math.max(1, Math.min(count, perCall));
  const X = new Float64Array(step * d);
  for (let p = 0; p < count; p += step) {
    const n = Math.min(step, count - p);
    for (let r = 0; r < n; r++) copy(p + r, X, r);
    await evaluate(X, n, out.subarray(p, p + n));
  }
  return out;
}

/**
 * The labeled rows as a Dataset of their own (features as the rows hold them,
 * e.g. scaled), in row order: what thresholds are fitted on.
 *
 * @example
 * const L = labeledDataset(rows); // L.n === rows.labeledRows.length
 */
export function labeledDataset(rows: TrainingRows): Dataset {
  const { labeledRows, d } = rows;
  return makeDataset({
    X: gatherRows(rows, labeledRows),
    d,
    y: Float64Array.from(labeledRows, (i) => rows.label(i)),
    featureNames: rows.featureNames,
    labelName: rows.labelName,
    ...(rows.source !== undefined ? { source: rows.source } : {}),
    ...(rows.classNames !== undefined ? { classNames: rows.classNames } : {}),
  });
}

/**
 * The labels of the labeled rows as a Dataset without features (d = 0): what
 * checks of the classes need, before any feature is read.
 *
 * @example
 * taskClasses('binary', labelsOnly(scan.meta));
 */
export function labelsOnly(meta: Pick<RowsMeta, 'labeledRows' | 'labels' | 'labelName' | 'source' | 'classNames'>): Dataset {
  return makeDataset({
    X: new Float64Array(0),
    d: 0,
    y: meta.labels,
    featureNames: [],
    labelName: meta.labelName,
    ...(meta.source !== undefined ? { source: meta.source } : {}),
    ...(meta.classNames !== undefined ? { classNames: meta.classNames } : {}),
  });
}

/**
 * Sorts `rows` in place and moves each distinct value to the front once;
 * returns that ascending, repeat-free prefix (a view of `rows`).
 *
 * @example
 * sortedUnique(Int32Array.of(5, 2, 5, 1)); // Int32Array [1, 2, 5]
 */
export function sortedUnique(rows: Int32Array): Int32Array {
  rows.sort();
  let k = 0;
  for (let r = 0; r < rows.length; r++) if (r === 0 || rows[r] !== rows[r - 1]) rows[k++] = rows[r];
  return rows.subarray(0, k);
}

/** Index of `i` in the ascending `sorted`, or -1. */
function indexOf(sorted: Int32Array, i: number): number {
  let lo = 0;
  let hi = sorted.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const v = sorted[mid];
    if (v === i) return mid;
    if (v < i) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

/** What the rows are, besides their values: shared by the backings read from a file. */
export interface RowsMeta extends Pick<TrainingRows, 'n' | 'd' | 'featureNames' | 'labelName' | 'source' | 'classNames' | 'labeledRows'> {
  /** Labels of {@link labeledRows}, in the same order. */
  readonly labels: Float64Array;
}

/**
 * What the backings read from a file share: the rows' metadata and the labels
 * of the labeled rows (looked up by dataset index). Subclasses say how rows
 * are copied.
 */
abstract class RowsFromFile implements TrainingRows {
  readonly n: number;
  readonly d: number;
  readonly featureNames: readonly string[];
  readonly labelName: string;
  readonly source?: string;
  readonly classNames?: readonly string[];
  readonly labeledRows: Int32Array;
  private readonly labels: Float64Array;

  constructor(meta: RowsMeta) {
    this.n = meta.n;
    this.d = meta.d;
    this.featureNames = meta.featureNames;
    this.labelName = meta.labelName;
    if (meta.source !== undefined) this.source = meta.source;
    if (meta.classNames !== undefined) this.classNames = meta.classNames;
    this.labeledRows = meta.labeledRows;
    this.labels = meta.labels;
  }

  label(i: number): number {
    const r = indexOf(this.labeledRows, i);
    if (r < 0) throw new ModelError(`row ${i + 1} is not a labeled row`);
    return this.labels[r];
  }

  abstract copyRow(i: number, X: Float64Array, at: number): void;
}

/**
 * Some rows of a dataset kept in memory (the labeled rows and the ones a run
 * draws), with their dataset indices: memory is `kept × d × 8` bytes whatever
 * `n` is. Asking for a row that was not kept is a bug of the plan (an Error).
 *
 * @example
 * const rows = new KeptRows(meta, keep, Xkept); // Xkept: row r is dataset row keep[r]
 */
export class KeptRows extends RowsFromFile {

  /**
   * @param keep dataset indices of the kept rows, ascending
   * @param X their features, row-major (row r is dataset row keep[r])
   */
  constructor(
    meta: RowsMeta,
    readonly keep: Int32Array,
    readonly X: Float64Array,
  ) {
    super(meta);
    if (X.length !== keep.length * meta.d) throw new RangeError(`KeptRows: ${X.length} values for ${keep.length} rows of ${meta.d}`);
  }

  copyRow(i: number, out: Float64Array, at: number): void {
    const r = indexOf(this.keep, i);
    if (r < 0) throw new Error(`sample on read: row ${i + 1} was drawn but not kept (the plan missed it)`);
    copyFeatures(this.X, r, this.d, out, at);
  }
}

/**
 * Rows without values that record every row asked for: a learner created on
 * it and sampled for a run's iterations tells which rows the run will draw
 * (its draws depend on the sampling stream and the sources' sizes alone).
 *
 * @example
 * const recorder = new RowRecorder(meta);
 * const learner = spec.create(recorder, classes, params, step);
 * for (let t = 1; t <= T; t++) learner.sample(rng, t);
 * recorder.rows(); // ascending dataset indices the run touches
 */
export class RowRecorder extends RowsFromFile {
  /** Rows asked for, in the order asked (with repeats), growing by doubling. */
  private asked: Int32Array = new Int32Array(1024);
  private count = 0;

  copyRow(i: number): void {
    // Full: drop the repeats, and double the room (memory follows the distinct rows).
    if (this.count === this.asked.length) this.asked = this.compact(this.asked.length * 2);
    this.asked[this.count++] = i;
  }

  /** Records rows asked for outside a learner (e.g. the median heuristic's sample). */
  add(rows: ArrayLike<number>): void {
    for (let r = 0; r < rows.length; r++) this.copyRow(rows[r]);
  }

  /** Every row asked for so far, ascending, each once. */
  rows(): Int32Array {
    return this.compact(this.count).slice(0, this.count);
  }

  /** Sorts and de-duplicates the rows asked for (4 bytes a distinct row), in an array of `capacity`. */
  private compact(capacity: number): Int32Array {
    const unique = sortedUnique(this.asked.subarray(0, this.count));
    const out = new Int32Array(Math.max(capacity, unique.length));
    out.set(unique);
    this.count = unique.length;
    return out;
  }
}
