/**
 * The sources a learner samples from — the rows of each class (or positive
 * and negative rows) and the unlabeled rows — over {@link TrainingRows}, and
 * the drawing of rows into a batch.
 *
 * A {@link Source} is a list of dataset row indices known by its size and its
 * k-th row; the unlabeled source is the complement of the labeled rows and
 * costs no memory per row. Every loop learner draws through
 * {@link drawRows}, so whatever backs the rows (a Dataset in memory, or the
 * rows a run draws, read from disk: data/training-rows.ts) a learner draws the
 * same rows in the same order from the same sampling stream.
 */
import seedrandom from 'seedrandom';
import { DataError } from '../errors.ts';
import type { Dataset } from '../data/dataset.ts';
import { trainingRows, type TrainingRows } from '../data/training-rows.ts';
import type { Rng } from '../coordinator/learner.ts';
import { sampleIndices } from '../features/median-heuristic.ts';

/**
 * Most unlabeled rows a class-balance computation reads (a seeded sample
 * beyond it): the semi-supervised SVMs' final bias, the `prior` threshold.
 */
export const BALANCE_ROWS = 4096;

/**
 * At most `count` rows of `source`: all of them when it has no more, else a
 * sample of `count` drawn without replacement from the seeded stream named
 * `stream`, in row order (memory O(count), not O(size)). What a learner's
 * final class-balance bias and a `prior` threshold average over.
 *
 * @example
 * sampleSource(U, 4096, 'dsgkit-balance:1').length; // min(U.size, 4096)
 */
export function sampleSource(source: Source, count: number, stream: string): Int32Array {
  if (source.size <= count) return Int32Array.from(source.indices());
  // Positions in the source, ascending; its rows are ascending too, so the rows come out in row order.
  return Int32Array.from(sampleIndices(source.size, count, seedrandom.alea(stream)), (k) => source.row(k));
}

/** Rows a learner draws from: `size` dataset row indices, ascending, the k-th being `row(k)`. */
export interface Source {
  readonly size: number;
  /** The k-th row (0 ≤ k < size), a dataset index. */
  row(k: number): number;
  /** All of them (for learners that use every row; O(size) memory). */
  indices(): Int32Array;
}

/**
 * A source listing `rows` (ascending dataset indices).
 *
 * @example
 * listSource(Int32Array.of(3, 9)).row(1); // 9
 */
export function listSource(rows: Int32Array): Source {
  return { size: rows.length, row: (k) => rows[k], indices: () => rows };
}

/**
 * The rows of `0 … n−1` that are not in `labeled` (ascending), without
 * listing them: `row(k)` is found by a binary search over the labeled rows.
 *
 * @example
 * complementSource(6, Int32Array.of(1, 4)).row(2); // 3 (rows 0, 2, 3, 5)
 */
export function complementSource(n: number, labeled: Int32Array): Source {
  const L = labeled.length;
  const row = (k: number): number => {
    // Largest j with labeled[j] − j ≤ k (labeled[j] − j = unlabeled rows before labeled[j]).
    let lo = 0;
    let hi = L;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (labeled[mid] - mid <= k) lo = mid + 1;
      else hi = mid;
    }
    return k + lo;
  };
  return {
    size: n - L,
    row,
    indices: () => {
      const out = new Int32Array(n - L);
      for (let i = 0, j = 0, r = 0; i < n; i++) {
        if (j < L && labeled[j] === i) j++;
        else out[r++] = i;
      }
      return out;
    },
  };
}

/** Positive, negative and unlabeled rows of a binary semi-supervised dataset. */
export interface BinarySources {
  readonly P: Source;
  readonly N: Source;
  readonly U: Source;
  /** Every labeled row (P and N together, ascending). */
  readonly L: Source;
}

/** The rows of each class of a task (in the order the classes were given) and the unlabeled rows. */
export interface ClassSources {
  readonly byClass: readonly Source[];
  readonly U: Source;
}

function labelWhere(rows: TrainingRows): { file?: string; column: string } {
  return rows.source !== undefined ? { file: rows.source, column: rows.labelName } : { column: rows.labelName };
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
export function classSources(data: Dataset | TrainingRows, classes: readonly number[]): ClassSources {
  const rows = trainingRows(data);
  const index = new Map(classes.map((c, k) => [c, k]));
  const name = (v: number) => (rows.classNames?.[v] !== undefined ? `'${rows.classNames[v]}'` : String(v));
  const lists = classes.map(() => [] as number[]);
  for (const i of rows.labeledRows) {
    const y = rows.label(i);
    const k = index.get(y);
    if (k === undefined) throw new DataError(`label ${name(y)} is not one of the classes ${classes.map(name).join(', ')}`, { ...labelWhere(rows), row: i + 1 });
    lists[k].push(i);
  }
  const empty = classes.filter((_, k) => lists[k].length === 0);
  if (empty.length > 0) throw new DataError(`no labeled rows of class ${empty.map(name).join(', ')}`, labelWhere(rows));
  return { byClass: lists.map((r) => listSource(Int32Array.from(r))), U: complementSource(rows.n, rows.labeledRows) };
}

/**
 * Splits rows into positives (`y === positive`), negatives (other labels) and
 * unlabeled, checking there are exactly two classes and at least one labeled
 * row of each.
 *
 * @example
 * const { P, N, U } = binarySources(ds, 1);
 */
export function binarySources(data: Dataset | TrainingRows, positive: number): BinarySources {
  const rows = trainingRows(data);
  const present = new Set<number>();
  for (const i of rows.labeledRows) present.add(rows.label(i));
  const labels = [...present].sort((a, b) => a - b);
  if (labels.length > 2) throw new DataError(`a binary learner needs two classes, found ${labels.length} (${labels.join(', ')})`, labelWhere(rows));
  if (!present.has(positive)) throw new DataError(`no labeled rows of the positive class ${positive}`, labelWhere(rows));
  const negative = labels.find((c) => c !== positive);
  if (negative === undefined) throw new DataError(`no labeled rows of the negative class (labels other than ${positive})`, labelWhere(rows));
  const { byClass, U } = classSources(rows, [negative, positive]);
  return { P: byClass[1], N: byClass[0], U, L: listSource(rows.labeledRows) };
}

/**
 * A learner's batch arrays — the points (`points × d`, row-major) and their
 * dataset rows — in two sets used in turn, so the batch a draw returns stays
 * valid through the next draw (the contract of `DsgLearner.sample`: the loop
 * draws batch t + 1 while it still builds block t from batch t).
 *
 * @example
 * const buffers = new BatchBuffers(3 * B, d);
 * const { X, rows } = buffers.next(); // the other set than last time
 */
export class BatchBuffers {
  private readonly sets: ReadonlyArray<{ readonly X: Float64Array; readonly rows: Int32Array }>;
  private turn = 0;

  constructor(points: number, d: number) {
    this.sets = [0, 1].map(() => ({ X: new Float64Array(points * d), rows: new Int32Array(points) }));
  }

  /** The set to draw the next batch into. */
  next(): { readonly X: Float64Array; readonly rows: Int32Array } {
    const set = this.sets[this.turn];
    this.turn ^= 1;
    return set;
  }
}

/**
 * Draws `count` rows uniformly with replacement from `source` and copies them
 * into `X` starting at row `at`; returns the drawn dataset row indices.
 *
 * @example
 * drawRows(rows, sources.P, 256, rng, batchX, 0);
 */
export function drawRows(rows: TrainingRows, source: Source, count: number, rng: Rng, X: Float64Array, at: number, drawn?: Int32Array): Int32Array {
  const out = drawn ?? new Int32Array(count);
  for (let r = 0; r < count; r++) {
    const i = source.row(Math.floor(rng() * source.size));
    out[r] = i;
    rows.copyRow(i, X, at + r);
  }
  return out;
}
