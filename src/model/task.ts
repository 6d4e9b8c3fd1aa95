/**
 * What a model predicts — its task — and everything that depends on the task
 * alone: which classes a dataset holds, the thresholds that turn scores into
 * labels, the labels themselves, and the metrics. A model is a task plus a
 * predictor (see predictor.ts); `score`, `predict`, `evaluate` and `compare`
 * work from the task, never from a hard-wired "binary".
 *
 * - `binary`: one ranking function f; the label is `positive` where
 *   `f(x) > threshold`, else `negative`.
 * - `ordinal`: classes `c_1 < … < c_k` (in rank order) and thresholds
 *   `b_1 ≤ … ≤ b_{k−1}`; `h(x) = c_{1 + #{j : f(x) > b_j}}` (ALGORITHMS.md § QS3ORAO).
 *
 * Labels are the numbers in the dataset's `y`; when the data had string
 * classes (`spam` / `ham`), `y` holds indices into `classNames`, which the task
 * keeps so predictions can be written back as names.
 */
import { DataError, UsageError } from '../errors.ts';
import { classCounts, type Dataset } from '../data/index.ts';
import { accuracy, auc, confusionCounts, f1Score, meanAbsoluteError, ordinalMeanAuc } from '../metrics/index.ts';
import { fitThreshold, priorThreshold } from './thresholds.ts';

/** The kinds of task a learner can declare. */
export const TASK_KINDS = ['binary', 'ordinal'] as const;
export type TaskKind = (typeof TASK_KINDS)[number];

/** A binary task: two classes and one threshold. */
export interface BinaryTask {
  readonly kind: 'binary';
  readonly positive: number;
  readonly negative: number;
  readonly threshold: number;
  /** Names of the label values when the data's classes were strings (`y` = index). */
  readonly classNames?: readonly string[];
}

/** An ordinal task: k ordered classes and k − 1 thresholds. */
export interface OrdinalTask {
  readonly kind: 'ordinal';
  /** Label values in rank order (lowest first). */
  readonly classes: readonly number[];
  /** `b_1 … b_{k−1}`, non-decreasing. */
  readonly thresholds: readonly number[];
  readonly classNames?: readonly string[];
}

export type Task = BinaryTask | OrdinalTask;

/** A task before its thresholds are fitted: the classes found in the training data. */
export type TaskClasses = Omit<BinaryTask, 'threshold'> | Omit<OrdinalTask, 'thresholds'>;

/**
 * How thresholds are set after training: `fit` minimises the one-sided squared
 * loss at the labeled rows, `zero` cuts at 0 (learners with a bias), `prior`
 * matches the labeled rows' class shares on the unlabeled rows (class-mass
 * normalisation, for learners without a bias whose scale is not calibrated).
 */
export type ThresholdRule = 'fit' | 'zero' | 'prior';

/** The metrics a learner can declare as its own (what `score` and `tune` use). */
export const METRICS = {
  auc: { title: 'AUC', higherIsBetter: true, doc: 'area under the ROC curve of f (binary)' },
  'mean-auc': { title: 'mean AUC', higherIsBetter: true, doc: "mean AUC of f over the k − 1 threshold subproblems (the QS3ORAO paper's metric)" },
  accuracy: { title: 'accuracy', higherIsBetter: true, doc: 'fraction of rows labeled right' },
} as const;
export type MetricName = keyof typeof METRICS;

function where(ds: Dataset): { file?: string; column: string } {
  return ds.source !== undefined ? { file: ds.source, column: ds.labelName } : { column: ds.labelName };
}

/**
 * The label value named by `positive` (a label value, or a class name when
 * the data has string classes), or the default: the larger label (+1 of ±1,
 * 1 of 0/1; the last class name in the data's class order).
 *
 * @example
 * positiveLabel(ds, undefined); // 1
 * positiveLabel(spamHam, 'spam'); // index of 'spam' in spamHam.classNames
 */
export function positiveLabel(ds: Dataset, positive: number | string | undefined): number {
  const names = ds.classNames;
  if (positive === undefined) {
    if (names) return names.length - 1;
    let max = -Infinity;
    for (let i = 0; i < ds.n; i++) if (ds.labeled[i] && ds.y[i] > max) max = ds.y[i];
    if (max === -Infinity) throw new DataError('no labeled rows', where(ds));
    return max;
  }
  if (names) {
    const k = names.indexOf(String(positive));
    if (k < 0) throw new UsageError(`positive class '${positive}' is not a class of the data (classes: ${names.join(', ')})`);
    return k;
  }
  const v = typeof positive === 'number' ? positive : Number(positive);
  if (!Number.isFinite(v)) throw new UsageError(`positive must be a label value of the data, got '${positive}'`);
  return v;
}

/**
 * The classes of a task of `kind` found in the labeled rows of `ds`, checked:
 * a binary task needs exactly two classes with labeled rows; an ordinal task
 * at least three, each with labeled rows. Errors are DataErrors naming the
 * file and label column.
 *
 * @example
 * taskClasses('binary', ds, { positive: 1 }); // { kind: 'binary', positive: 1, negative: -1 }
 * taskClasses('ordinal', diabetes);            // { kind: 'ordinal', classes: [1, 2, 3, 4, 5] }
 */
export function taskClasses(kind: TaskKind, ds: Dataset, opts: { positive?: number | string } = {}): TaskClasses {
  const counts = classCounts(ds);
  const names = ds.classNames;
  const label = (v: number) => (names ? `'${names[v]}'` : String(v));
  const present = [...counts.keys()];
  const nameField = names ? { classNames: names } : {};
  if (kind === 'binary') {
    if (opts.positive !== undefined && present.length === 0) throw new DataError('no labeled rows', where(ds));
    if (present.length > 2) throw new DataError(`a binary learner needs two classes, found ${present.length} (${present.map(label).join(', ')})`, where(ds));
    const positive = positiveLabel(ds, opts.positive);
    if (!counts.has(positive)) throw new DataError(`no labeled rows of the positive class ${label(positive)}`, where(ds));
    const negative = present.find((c) => c !== positive);
    if (negative === undefined) throw new DataError(`no labeled rows of the negative class (labels other than ${label(positive)})`, where(ds));
    return { kind, positive, negative, ...nameField };
  }
  if (opts.positive !== undefined) throw new UsageError('positive applies to binary learners only');
  // Ordinal: every declared class (string classes) or every integer between the
  // smallest and largest label (numeric classes) must have labeled rows.
  const classes = names ? names.map((_, k) => k) : present;
  if (!names && present.every(Number.isInteger) && present.length > 0) {
    const missing: number[] = [];
    for (let c = present[0]; c <= present[present.length - 1]; c++) if (!counts.has(c)) missing.push(c);
    if (missing.length > 0) throw new DataError(`class ${missing.join(', ')} has no labeled rows (labels ${present.join(', ')} are present; ordinal classes must be consecutive)`, where(ds));
  }
  const empty = classes.filter((c) => !counts.has(c));
  if (empty.length > 0) throw new DataError(`class ${empty.map(label).join(', ')} has no labeled rows`, where(ds));
  if (classes.length < 3) {
    throw new DataError(`an ordinal learner needs at least 3 ordered classes, found ${classes.length} (${classes.map(label).join(', ')}); for two classes use a binary learner ('dsgkit train --help' lists them)`, where(ds));
  }
  return { kind, classes, ...nameField };
}

/**
 * The rank (0-based) of each label value in an ordinal task; NaN for labels outside it.
 *
 * @example
 * ranks({ kind: 'ordinal', classes: [2, 4, 6] }, [4, 6, NaN]); // [1, 2, NaN]
 */
export function ranks(task: Pick<OrdinalTask, 'classes'>, y: ArrayLike<number>): Float64Array {
  const index = new Map(task.classes.map((c, k) => [c, k]));
  return Float64Array.from({ length: y.length }, (_, i) => index.get(y[i]) ?? NaN);
}

/**
 * The minority shares `tune` chooses the class-share cut's among (`minorityShare`
 * of the learners with the `prior` rule), in order of preference on a tie: the
 * labeled rows' class shares, half the minority's, none of it. On a rare class
 * ranked at AUC 0.66–0.75 the labeled rows' share labels more rows wrong than it
 * finds (docs/tuning.md § The cut on a rare class).
 */
export const MINORITY_SHARES: readonly number[] = [1, 0.5, 0];

/**
 * The share of rows the class-share cut puts on the high side: `high`, the
 * labeled rows' high share, when `minorityShare` is 1; else the minority class's
 * share scaled by `minorityShare` (the high class is the minority when its share
 * is at most ½), so 0 labels every row the majority class.
 *
 * @example
 * cutShare(0.12, 0.5); // 0.06  (the high class is the minority)
 * cutShare(0.9, 0.5);  // 0.95  (the low class, 10%, keeps 5%)
 * cutShare(0.3, 0);    // 0
 */
export function cutShare(high: number, minorityShare: number): number {
  if (!(minorityShare >= 0 && minorityShare <= 1)) throw new RangeError(`minorityShare must be in [0, 1], got ${minorityShare}`);
  if (minorityShare === 1) return high;
  return high <= 0.5 ? high * minorityShare : 1 - (1 - high) * minorityShare;
}

/**
 * Fits the task's thresholds from `f` at the labeled training rows (labels
 * `y`): with rule `fit`, each threshold is the exact minimiser of the
 * one-sided squared loss (see thresholds.ts); with `zero`, every threshold is
 * 0 (learners with a bias, whose decision rule is the sign of f); with
 * `prior`, each threshold puts on its upper side the share of `fU` (f at
 * unlabeled training rows; the labeled rows' own f when there are none) that
 * the labeled rows above it have (class-mass normalisation), or with
 * `minorityShare` s < 1 (binary) the minority class's labeled share times s
 * ({@link cutShare}).
 *
 * @example
 * const task = fitTask(taskClasses('binary', ds), fLabeled, yLabeled, 'fit');
 * const cmn = fitTask(taskClasses('binary', ds), fLabeled, yLabeled, 'prior', fUnlabeled);
 * const half = fitTask(taskClasses('binary', ds), fLabeled, yLabeled, 'prior', fUnlabeled, 0.5);
 */
export function fitTask(classes: TaskClasses, f: Float64Array, y: ArrayLike<number>, rule: ThresholdRule, fU?: Float64Array, minorityShare = 1): Task {
  for (const scores of fU !== undefined ? [f, fU] : [f]) {
    const i = scores.findIndex((v) => !Number.isFinite(v));
    if (i >= 0) {
      throw new DataError(`training ended with a score of ${scores[i]} at a training row: the run diverged (try a smaller step or a larger λ; a run continued with --init may have started from a damaged model)`);
    }
  }
  if (minorityShare !== 1 && (rule !== 'prior' || classes.kind !== 'binary')) throw new UsageError('minorityShare applies to the class-share cut of a binary learner only');
  const cut = (high: Uint8Array): number => {
    if (rule === 'zero') return 0;
    if (rule === 'fit') return fitThreshold(f, high);
    return priorThreshold(fU !== undefined && fU.length > 0 ? fU : f, cutShare(high.reduce((a, b) => a + b, 0) / high.length, minorityShare));
  };
  if (classes.kind === 'binary') return { ...classes, threshold: cut(Uint8Array.from(y, (v) => (v === classes.positive ? 1 : 0))) };
  const r = ranks(classes, y);
  const thresholds = classes.classes.slice(1).map((_, j) => cut(Uint8Array.from(r, (v) => (v > j ? 1 : 0))));
  return { ...classes, thresholds };
}

/**
 * Predicted label values from scores.
 *
 * @example
 * labelsFromScores({ kind: 'binary', positive: 1, negative: -1, threshold: 0 }, f);
 */
export function labelsFromScores(task: Task, f: ArrayLike<number>): Float64Array {
  // Plain loops: Float64Array.from with a callback cost ~0.25 µs a row, 6% of streaming a row through `predict`.
  const out = new Float64Array(f.length);
  if (task.kind === 'binary') {
    const { threshold, positive, negative } = task;
    for (let i = 0; i < f.length; i++) out[i] = f[i] > threshold ? positive : negative;
    return out;
  }
  const b = task.thresholds;
  for (let i = 0; i < f.length; i++) {
    let above = 0;
    for (let j = 0; j < b.length; j++) if (f[i] > b[j]) above++;
    out[i] = task.classes[above];
  }
  return out;
}

/**
 * The name of a label value: its class name when the task has string classes, else the number.
 *
 * @example
 * labelName(task, 1); // 'spam' or '1'
 */
export function labelName(task: Task | TaskClasses, v: number): string {
  return task.classNames?.[v] ?? String(v);
}

/** Held-out metrics of a task: binary (AUC, accuracy, F1, confusion) or ordinal (mean AUC, MAE, accuracy, confusion matrix). */
export type TaskMetrics =
  | { readonly kind: 'binary'; readonly auc: number; readonly accuracy: number; readonly f1: number; readonly tp: number; readonly fp: number; readonly tn: number; readonly fn: number }
  | {
      readonly kind: 'ordinal';
      readonly meanAuc: number;
      readonly perThreshold: readonly number[];
      readonly mae: number;
      readonly accuracy: number;
      /** `confusion[true rank][predicted rank]`. */
      readonly confusion: readonly (readonly number[])[];
    };

/**
 * Every metric of the task on labeled rows (`y` NaN = unlabeled, skipped).
 * Throws a DataError-free RangeError only for programming errors; callers
 * check the classes first (see {@link checkEvaluable}).
 *
 * @example
 * const m = taskMetrics(model.task, test.y, scores);
 */
export function taskMetrics(task: Task, y: ArrayLike<number>, f: ArrayLike<number>): TaskMetrics {
  const predicted = labelsFromScores(task, f);
  if (task.kind === 'binary') {
    const isPositive = (v: number) => v === task.positive;
    const c = confusionCounts(y, predicted, { positive: isPositive });
    return {
      kind: 'binary',
      auc: auc(y, f, { positive: task.positive }),
      accuracy: accuracy(y, predicted, { positive: isPositive }),
      f1: f1Score(y, predicted, { positive: isPositive }),
      tp: c.tp,
      fp: c.fp,
      tn: c.tn,
      fn: c.fn,
    };
  }
  const k = task.classes.length;
  const r = ranks(task, y);
  const rp = ranks(task, predicted);
  const oneBased = r.map((v) => v + 1);
  const res = ordinalMeanAuc(oneBased, f, { k });
  const confusion = Array.from({ length: k }, () => new Array<number>(k).fill(0));
  for (let i = 0; i < r.length; i++) if (!Number.isNaN(r[i])) confusion[r[i]][rp[i]]++;
  return {
    kind: 'ordinal',
    meanAuc: res.meanAuc,
    perThreshold: [...res.perThreshold],
    mae: meanAbsoluteError(r, rp),
    accuracy: accuracy(r, rp),
    confusion,
  };
}

/**
 * The value of one named metric (see {@link METRICS}).
 *
 * @example
 * metricValue('auc', task, y, f); // 0.93
 */
export function metricValue(name: MetricName, task: Task, y: ArrayLike<number>, f: ArrayLike<number>): number {
  const m = taskMetrics(task, y, f);
  if (name === 'accuracy') return m.accuracy;
  if (name === 'auc' && m.kind === 'binary') return m.auc;
  if (name === 'mean-auc' && m.kind === 'ordinal') return m.meanAuc;
  throw new RangeError(`metric '${name}' is not defined for a ${task.kind} task`);
}

/**
 * The ranking metric of a task from scores alone (no thresholds needed):
 * AUC for binary, mean threshold AUC for ordinal — what training's validation trace shows.
 *
 * @example
 * rankingMetric(classes, val.y, fVal); // 0.95
 */
export function rankingMetric(task: TaskClasses, y: ArrayLike<number>, f: ArrayLike<number>): number {
  if (task.kind === 'binary') return auc(y, f, { positive: task.positive });
  return ordinalMeanAuc(ranks(task, y).map((v) => v + 1), f, { k: task.classes.length }).meanAuc;
}

/**
 * Checks that the labeled rows of `ds` can be scored by the task: some rows
 * labeled, and (binary) both the positive class and another present, or
 * (ordinal) at least two classes present. A DataError naming the file otherwise.
 *
 * @example
 * checkEvaluable(model.task, test);
 */
export function checkEvaluable(task: Task | TaskClasses, ds: Dataset): void {
  const counts = classCounts(ds);
  let labeled = 0;
  for (const c of counts.values()) labeled += c;
  if (labeled === 0) throw new DataError(`no labeled rows to evaluate on (${ds.n} rows, all unlabeled)`, where(ds));
  if (task.kind === 'binary') {
    const nPos = counts.get(task.positive) ?? 0;
    if (nPos === 0 || nPos === labeled) {
      throw new DataError(
        `the labeled rows are of one class only (${[...counts.keys()].map((v) => labelName(task, v)).join(', ')}); AUC needs rows of the model's positive class ${labelName(task, task.positive)} and of another class`,
        where(ds),
      );
    }
    return;
  }
  const known = new Set(task.classes);
  const foreign = [...counts.keys()].filter((c) => !known.has(c));
  if (foreign.length > 0) throw new DataError(`labels ${foreign.map((v) => labelName(task, v)).join(', ')} are not classes of the model (${task.classes.map((v) => labelName(task, v)).join(', ')})`, where(ds));
  if (counts.size < 2) throw new DataError(`the labeled rows are of one class only; the ordinal metrics need at least two classes`, where(ds));
}
