/**
 * The dsgkit rows of `npm run bench:peers`: ONE list, {@link DSGKIT_METHODS},
 * of functions `(trainSet, testSet, seed) → {metric, accuracy, seconds}`.
 * A new learner (or a tuned one) joins the comparison by adding one entry
 * here; bench/peers.ts runs every entry whose `task` matches, on the very
 * same splits the scikit-learn peers see.
 *
 * `trainSet` and `testSet` hold RAW features (each method scales as a user
 * would: `train` fits its min-max scaler on the training rows); `trainSet`'s
 * unlabeled rows have `NaN` labels. `seconds` covers training plus scoring
 * the test rows, as the peers' times do.
 */
import seedrandom from 'seedrandom';
import { LEARNERS, learnerSpec, type Model } from '../../src/api.ts';
// Learners chosen by name at run time: the untyped entry (the typed `train` checks literal options at compile time).
import { trainModel as train } from '../../src/train/train.ts';
import { selectRows, type Dataset } from '../../src/data/index.ts';
import { accuracy, auc, meanAbsoluteError, ordinalMeanAuc } from '../../src/metrics/index.ts';
import { tuneModel as tune } from '../../src/tune.ts';

/** The task a dataset is benchmarked as. */
export type Task = 'binary' | 'ordinal';

/** What one method reports for one split. */
export interface MethodResult {
  /** Held-out AUC (binary) or mean threshold AUC (ordinal). */
  metric: number;
  /** Held-out accuracy of the predicted labels. */
  accuracy: number;
  /** Wall time of training + scoring the test rows, seconds. */
  seconds: number;
  /** Ordinal only: mean absolute error of the predicted labels. */
  mae?: number;
  /** Anything a reader must know about this run (e.g. a subsample). */
  note?: string;
}

/** One dsgkit row of the comparison. */
export interface DsgkitMethod {
  /** Name in the table and the chart. */
  name: string;
  /** Which datasets it runs on. */
  task: Task;
  /** Trains on `trainSet` and scores `testSet` (both raw features). */
  run(trainSet: Dataset, testSet: Dataset, seed: number): Promise<MethodResult>;
}

/** Largest training set handed to the O(n³) exact solver (about 17 s at n = 1,500 on 2 cores). */
export const EXACT_BENCH_ROWS = 1500;

/** The larger label is positive, as `train` decides by default. */
function positiveLabel(ds: Dataset): number {
  let p = -Infinity;
  for (let i = 0; i < ds.n; i++) if (ds.labeled[i] && ds.y[i] > p) p = ds.y[i];
  return p;
}

/** Held-out metric, accuracy and (ordinal) MAE of a model's scores on `testSet`, as bench/peers.ts reports them. */
function heldOut(model: Model, testSet: Dataset, f: Float64Array): Pick<MethodResult, 'metric' | 'accuracy' | 'mae'> {
  const predicted = model.labelsFromScores(f);
  if (model.task.kind === 'ordinal') return { metric: ordinalMeanAuc(testSet.y, f).meanAuc, accuracy: accuracy(testSet.y, predicted), mae: meanAbsoluteError(testSet.y, predicted) };
  return { metric: auc(testSet.y, f, { positive: model.task.positive }), accuracy: accuracy(testSet.y, predicted) };
}

/** ` --iterations T` as a method's name ends with it, when T is given (the CLI's flag for T). */
function iterationsSuffix(T: number | undefined): string {
  return T === undefined ? '' : ` --iterations ${T}`;
}

/**
 * A method that calls today's `train` at its defaults (plus the split's seed;
 * T when given, as `--iterations T` would), for any registered learner; its
 * task (binary or ordinal) comes from the registry.
 *
 * @example
 * const qsg = trainMethod('qsg-s2auc');
 * const r = await qsg.run(trainSet, testSet, 1); // { metric: 0.93…, accuracy: 0.88…, seconds: 6.1 }
 */
export function trainMethod(learner: string, T?: number): DsgkitMethod {
  return {
    name: `dsgkit ${learner}${iterationsSuffix(T)}`,
    task: learnerSpec(learner).task as Task,
    async run(trainSet, testSet, seed) {
      const t0 = performance.now();
      const model = await train({ learner, data: trainSet, seed, ...(T !== undefined ? { T } : {}) });
      const f = await model.decisionFunction(testSet);
      const seconds = (performance.now() - t0) / 1000;
      return { ...heldOut(model, testSet, f), seconds };
    },
  };
}

/**
 * The exact O(n³) QSG-S2AUC solution at the default λ, γ, σ: all labeled rows
 * plus a seeded sample of unlabeled rows up to `maxRows` training rows; the
 * threshold for accuracy is fitted on the labeled rows as `train` does.
 *
 * @example
 * const r = await exactMethod(1500).run(trainSet, testSet, 1);
 */
export function exactMethod(maxRows = EXACT_BENCH_ROWS): DsgkitMethod {
  return {
    name: 'dsgkit exact O(n³)',
    task: 'binary',
    async run(trainSet, testSet, seed) {
      const positive = positiveLabel(trainSet);
      const labeled: number[] = [];
      const unlabeled: number[] = [];
      for (let i = 0; i < trainSet.n; i++) (trainSet.labeled[i] ? labeled : unlabeled).push(i);
      const rng = seedrandom(`exact-${seed}`);
      for (let i = unlabeled.length - 1; i > 0; i--) {
        const j = Math.floor(rng() * (i + 1));
        [unlabeled[i], unlabeled[j]] = [unlabeled[j], unlabeled[i]];
      }
      const keep = unlabeled.slice(0, Math.max(0, maxRows - labeled.length)).sort((a, b) => a - b);
      const t0 = performance.now();
      const model = await train({ learner: 'exact-s2auc', data: selectRows(trainSet, [...labeled, ...keep].sort((a, b) => a - b)), seed });
      const f = await model.decisionFunction(testSet);
      const seconds = (performance.now() - t0) / 1000;
      const predicted = model.labelsFromScores(f);
      const n = labeled.length + keep.length;
      return {
        metric: auc(testSet.y, f, { positive }),
        accuracy: accuracy(testSet.y, predicted),
        seconds,
        ...(n < trainSet.n ? { note: `n = ${n} of ${trainSet.n} training rows (all labeled + seeded sample of unlabeled)` } : {}),
      };
    },
  };
}

/**
 * `tune` as a user runs it, for any registered learner: 5-fold CV over the
 * split's labeled training rows with successive halving over the learner's
 * search space (σ around the median heuristic σ₀), the winner refit on all
 * training rows (to T iterations when given, as `--iterations T` would); the
 * time covers the whole search, the refit and scoring the test rows.
 *
 * @example
 * const r = await tuneMethod('qsg-s2auc').run(trainSet, testSet, 1);
 * methodByName('dsgkit tune tsgs3vm --iterations 1000'); // tuneMethod('tsgs3vm', 1000)
 */
export function tuneMethod(learner: string, T?: number): DsgkitMethod {
  return {
    name: `dsgkit tune ${learner}${iterationsSuffix(T)}`,
    task: learnerSpec(learner).task as Task,
    async run(trainSet, testSet, seed) {
      const t0 = performance.now();
      const { model, best } = await tune({ learner, data: trainSet, seed, ...(T !== undefined ? { T } : {}) });
      const f = await model.decisionFunction(testSet);
      const seconds = (performance.now() - t0) / 1000;
      const fmt = (v: unknown) => (typeof v === 'number' ? Number(v.toPrecision(3)) : Array.isArray(v) ? v.join('/') : v);
      const chosen = Object.entries(best).map(([k, v]) => `${k}=${fmt(v)}`).join(' ');
      return { ...heldOut(model, testSet, f), seconds, note: chosen };
    },
  };
}

/**
 * The dsgkit rows, in table order: every registered learner at its defaults
 * that `compare` runs by default (the others — e.g. accuracy-metric learners
 * — by name through `--dsgkit 'dsgkit <learner>'`, see {@link methodByName}),
 * the exact solution, and `tune` for the binary and the ordinal flagship.
 *
 * @example
 * for (const m of DSGKIT_METHODS.filter((m) => m.task === 'binary')) console.log(m.name);
 */
export const DSGKIT_METHODS: DsgkitMethod[] = [
  ...LEARNERS.filter((l) => l.compareByDefault !== false && l.name !== 'exact-s2auc').map((l) => trainMethod(l.name)),
  exactMethod(),
  tuneMethod('qsg-s2auc'),
  tuneMethod('qs3orao'),
];

/**
 * The method a `--dsgkit` name asks for: a row of {@link DSGKIT_METHODS}, or
 * `dsgkit <learner>` / `dsgkit tune <learner>` for any registered learner,
 * either followed by `--iterations T`.
 *
 * @example
 * methodByName('dsgkit tune tsgs3vm').task; // 'binary'
 * methodByName('dsgkit tune tsgs3vm --iterations 1000'); // tune to T = 1,000
 */
export function methodByName(name: string): DsgkitMethod | undefined {
  const listed = DSGKIT_METHODS.find((m) => m.name === name);
  if (listed) return listed;
  const m = /^dsgkit (tune )?(\S+)(?: --iterations ([1-9]\d*))?$/.exec(name);
  if (!m || !LEARNERS.some((l) => l.name === m[2])) return undefined;
  const T = m[3] !== undefined ? Number(m[3]) : undefined;
  return m[1] ? tuneMethod(m[2], T) : trainMethod(m[2], T);
}
