/**
 * The papers' experimental setting as a seeded split:
 *
 * 1. optionally hold out a labeled test set (a fraction or a count of the
 *    labeled rows, stratified by class);
 * 2. of the remaining labeled rows keep exactly `labeled` labels, stratified
 *    by class, and drop the labels of the rest — they join the unlabeled pool.
 *
 * Rows that were unlabeled in the input stay unlabeled training rows. Rows
 * keep their original order in both outputs. Same data and seed → same split.
 *
 * Stratification uses largest-remainder rounding: class `c` with `n_c` of
 * `N` candidate rows gets `⌊k·n_c/N⌋` picks, and the leftover picks go to
 * the classes with the largest fractional parts (ties: smaller label first).
 * When `k` is at least the number of classes, every class gets at least one
 * pick (a learner needs each class present).
 */
import seedrandom from 'seedrandom';
import { DataError } from '../errors.ts';
import { selectRows, withRows, type Dataset } from './dataset.ts';

/** Options of {@link splitDataset}. */
export interface SplitOptions {
  /** Number of labeled training rows to keep (the rest of the training labels are dropped). */
  labeled: number;
  /** Held-out test rows: a fraction in (0, 1) of the labeled rows, or a whole count ≥ 1. Default none. */
  test?: number;
  /** Seed of the shuffles (default 0). */
  seed?: number | string;
}

/** Result of {@link splitDataset}. */
export interface Split {
  /** Training rows: `labeled` of them labeled, the others unlabeled. */
  train: Dataset;
  /** Held-out labeled rows (absent when no test set was asked for). */
  test?: Dataset;
  /** Indices (into the input) of the training and test rows, ascending. */
  trainRows: Uint32Array;
  testRows?: Uint32Array;
}

/**
 * Splits `total` picks over classes of sizes `sizes` (same order), proportionally.
 *
 * @example
 * stratifiedCounts([90, 10], 10); // [9, 1]
 * stratifiedCounts([99, 1], 2);   // [1, 1]  (each class at least one when possible)
 */
export function stratifiedCounts(sizes: readonly number[], total: number): number[] {
  const N = sizes.reduce((a, b) => a + b, 0);
  if (total > N) throw new RangeError(`stratifiedCounts: ${total} picks from ${N} rows`);
  if (N === 0) return sizes.map(() => 0);
  const exact = sizes.map((s) => (total * s) / N);
  const counts = exact.map(Math.floor);
  let left = total - counts.reduce((a, b) => a + b, 0);
  const order = sizes.map((_, c) => c).sort((a, b) => exact[b] - counts[b] - (exact[a] - counts[a]) || a - b);
  for (const c of order) {
    if (left === 0) break;
    counts[c]++;
    left--;
  }
  // Each non-empty class gets at least one pick when there are enough picks to go round.
  const nonEmpty = sizes.filter((s) => s > 0).length;
  if (total >= nonEmpty) {
    for (let c = 0; c < sizes.length; c++) {
      if (sizes[c] > 0 && counts[c] === 0) {
        let donor = -1;
        for (let e = 0; e < sizes.length; e++) if (counts[e] > 1 && (donor < 0 || counts[e] > counts[donor])) donor = e;
        counts[donor]--;
        counts[c]++;
      }
    }
  }
  return counts;
}

/**
 * Fisher–Yates shuffle of `a` in place from `rng` (uniform over orders for a
 * uniform `rng`); returns `a`. The one shuffle of the project: the splits'
 * per-class pools, and the learners' epochs over their labeled rows.
 *
 * @example
 * shuffleInPlace([1, 2, 3, 4], seedrandom('x')); // e.g. [3, 1, 4, 2], the same for the same stream
 */
export function shuffleInPlace<A extends number[] | Int32Array>(a: A, rng: () => number): A {
  for (let i = a.length - 1; i > 0; i--) {
    const j = Math.floor(rng() * (i + 1));
    const t = a[i];
    a[i] = a[j];
    a[j] = t;
  }
  return a;
}

/**
 * Seeded stratified split (see the module comment for the exact procedure).
 * Throws a DataError naming the file when more labeled rows are asked for than remain.
 *
 * @example
 * const { train, test } = splitDataset(ds, { labeled: 100, test: 0.2, seed: 7 });
 * // train: 80% of rows, 100 of them labeled (class balance kept); test: 20% of the labeled rows
 */
export function splitDataset(ds: Dataset, opts: SplitOptions): Split {
  const { labeled } = opts;
  const file = ds.source;
  if (!Number.isInteger(labeled) || labeled < 0) throw new RangeError(`splitDataset: labeled must be a whole number ≥ 0, got ${labeled}`);
  const rng = seedrandom(String(opts.seed ?? 0));
  const byClass = new Map<number, number[]>();
  for (let i = 0; i < ds.n; i++) {
    if (!ds.labeled[i]) continue;
    const list = byClass.get(ds.y[i]);
    if (list) list.push(i);
    else byClass.set(ds.y[i], [i]);
  }
  const classes = [...byClass.keys()].sort((a, b) => a - b);
  const pools = classes.map((c) => shuffleInPlace(byClass.get(c)!, rng));
  const totalLabeled = pools.reduce((a, p) => a + p.length, 0);

  let testCount = 0;
  if (opts.test !== undefined) {
    const t = opts.test;
    if (t > 0 && t < 1) testCount = Math.round(t * totalLabeled);
    else if (Number.isInteger(t) && t >= 1) testCount = t;
    else throw new RangeError(`splitDataset: test must be a fraction in (0, 1) or a whole count ≥ 1, got ${t}`);
    if (testCount >= totalLabeled) {
      throw new DataError(`a test set of ${testCount} rows leaves no labeled training rows (${totalLabeled} labeled rows in all)`, { file });
    }
  }
  const testPer = stratifiedCounts(pools.map((p) => p.length), testCount);
  const testIdx: number[] = [];
  const rest = pools.map((p, c) => {
    testIdx.push(...p.slice(0, testPer[c]));
    return p.slice(testPer[c]);
  });
  const available = rest.reduce((a, p) => a + p.length, 0);
  if (labeled > available) {
    const where = testCount > 0 ? ` after holding out ${testCount} test rows` : '';
    throw new DataError(`asked for ${labeled} labeled training rows but only ${available} labeled rows remain${where}`, { file });
  }
  const keepPer = stratifiedCounts(rest.map((p) => p.length), labeled);
  const keep = new Uint8Array(ds.n);
  rest.forEach((p, c) => {
    for (let j = 0; j < keepPer[c]; j++) keep[p[j]] = 1;
  });
  const inTest = new Uint8Array(ds.n);
  for (const i of testIdx) inTest[i] = 1;
  const trainRows: number[] = [];
  for (let i = 0; i < ds.n; i++) if (!inTest[i]) trainRows.push(i);
  const picked = selectRows(ds, trainRows);
  const y = picked.y;
  trainRows.forEach((i, r) => {
    if (!keep[i]) y[r] = NaN;
  });
  const train = withRows(ds, picked.X, y);
  const result: Split = { train, trainRows: Uint32Array.from(trainRows) };
  if (opts.test !== undefined) {
    const testRows = Uint32Array.from(testIdx).sort();
    result.test = selectRows(ds, testRows);
    result.testRows = testRows;
  }
  return result;
}

/** One fold of {@link labeledFolds}. */
export interface LabeledFold {
  /**
   * Every row of the input in its order, the labels of this fold's validation
   * rows hidden (NaN = unlabeled): the other folds' labeled rows and every
   * unlabeled row keep what they had.
   */
  train: Dataset;
  /** This fold's labeled rows, labels kept. */
  validation: Dataset;
  /** Indices (into the input) of this fold's validation rows, ascending (their labels are hidden in `train`). */
  validationRows: Uint32Array;
}

/** Options of {@link labeledFolds}. */
export interface LabeledFoldsOptions {
  /** Number of folds k ≥ 2. */
  k: number;
  /** Seed of the per-class shuffles (default 0). */
  seed?: number | string;
}

/**
 * Seeded stratified k-fold cross-validation over the LABELED rows only, for
 * tuning a semi-supervised learner: the unlabeled rows are training data in
 * every fold and are never held out.
 *
 * Procedure: the labeled rows of each class (ascending label order) are
 * shuffled with one seeded generator, then dealt round-robin to folds 0, 1, …,
 * k−1, each class continuing where the previous one stopped — so every fold
 * holds ⌊n_c/k⌋ or ⌈n_c/k⌉ rows of class c, and the fold sizes differ by at
 * most one. Fold j's validation set is its labeled rows. Its training set is
 * transductive: every row of `ds`, with fold j's labels hidden — the held-out
 * rows stay in as unlabeled rows, as they are when the winner is refit on all
 * rows and as in the papers' transductive protocol (a graph learner keeps them
 * in its graph; a semi-supervised learner draws them as unlabeled points).
 * Rows keep their original order. Same data and seed → same folds.
 *
 * Throws a RangeError when k is not a whole number ≥ 2, and a DataError (naming
 * the file) when there are fewer labeled rows than folds. A class with fewer
 * than k labeled rows is absent from some validation folds.
 *
 * @example
 * const folds = labeledFolds(train, { k: 5, seed: 1 });
 * for (const { train: tr, validation: va } of folds) {
 *   // fit on tr (its unlabeled rows included), score on va
 * }
 */
export function labeledFolds(ds: Dataset, opts: LabeledFoldsOptions): LabeledFold[] {
  const { k } = opts;
  if (!Number.isInteger(k) || k < 2) throw new RangeError(`labeledFolds: k must be a whole number ≥ 2, got ${k}`);
  const byClass = new Map<number, number[]>();
  let nLabeled = 0;
  for (let i = 0; i < ds.n; i++) {
    if (!ds.labeled[i]) continue;
    nLabeled++;
    const list = byClass.get(ds.y[i]);
    if (list) list.push(i);
    else byClass.set(ds.y[i], [i]);
  }
  if (nLabeled < k) throw new DataError(`${k}-fold cross-validation needs at least ${k} labeled rows, found ${nLabeled}`, { file: ds.source });
  const rng = seedrandom(`folds:${opts.seed ?? 0}`);
  const foldOf = new Int32Array(ds.n).fill(-1);
  let next = 0;
  for (const c of [...byClass.keys()].sort((a, b) => a - b)) {
    for (const i of shuffleInPlace(byClass.get(c)!, rng)) {
      foldOf[i] = next;
      next = (next + 1) % k;
    }
  }
  return Array.from({ length: k }, (_, j) => {
    const validationRows: number[] = [];
    const y = Float64Array.from(ds.y);
    for (let i = 0; i < ds.n; i++) {
      if (foldOf[i] !== j) continue;
      validationRows.push(i);
      y[i] = NaN;
    }
    return {
      train: withRows(ds, ds.X, y),
      validation: selectRows(ds, validationRows),
      validationRows: Uint32Array.from(validationRows),
    };
  });
}

/**
 * Repeated stratified k-fold CV over the labeled rows: `repeats` independent
 * draws of {@link labeledFolds}, one list of k folds per repeat. The first
 * repeat is `labeledFolds(ds, { k, seed })` itself; repeat r ≥ 1 shuffles
 * with its own seed derived from `seed` and r.
 *
 * @example
 * const splits = repeatedLabeledFolds(train, { k: 5, seed: 1, repeats: 3 }); // 3 lists of 5 folds
 */
export function repeatedLabeledFolds(ds: Dataset, opts: LabeledFoldsOptions & { repeats: number }): LabeledFold[][] {
  const { repeats, seed = 0 } = opts;
  if (!Number.isSafeInteger(repeats) || repeats < 1) throw new RangeError(`repeatedLabeledFolds: repeats must be a whole number ≥ 1, got ${repeats}`);
  return Array.from({ length: repeats }, (_, r) => labeledFolds(ds, { k: opts.k, seed: r === 0 ? seed : `${seed}:repeat ${r}` }));
}
