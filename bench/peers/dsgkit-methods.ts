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
import { learnerSpec, resolveParams, train } from '../../src/api.ts';
import { MinMaxScaler, selectRows, type Dataset } from '../../src/data/index.ts';
import { evaluateExpansion } from '../../src/features/kernel-expansion.ts';
import { exactQsgS2auc } from '../../src/learners/exact.ts';
import { fitThreshold } from '../../src/model/thresholds.ts';

const DEFAULTS = resolveParams(learnerSpec('exact-s2auc'), {}) as { lambda: number; gamma: number; sigma: number };
import { accuracy, auc } from '../../src/metrics/index.ts';

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

/**
 * A method that calls today's `train` at its defaults (plus the split's seed).
 *
 * @example
 * const qsg = trainMethod('qsg-s2auc');
 * const r = await qsg.run(trainSet, testSet, 1); // { metric: 0.93…, accuracy: 0.88…, seconds: 6.1 }
 */
export function trainMethod(learner: 'qsg-s2auc' | 'dsg'): DsgkitMethod {
  return {
    name: `dsgkit ${learner}`,
    task: 'binary',
    async run(trainSet, testSet, seed) {
      const positive = positiveLabel(trainSet);
      const t0 = performance.now();
      const model = await train({ learner, data: trainSet, seed });
      const f = await model.decisionFunction(testSet);
      const seconds = (performance.now() - t0) / 1000;
      return { metric: auc(testSet.y, f, { positive }), accuracy: accuracy(testSet.y, model.labelsFromScores(f)), seconds };
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
      const scaler = MinMaxScaler.fit(trainSet);
      const sub = scaler.transform(selectRows(trainSet, [...labeled, ...keep]));
      const expansion = exactQsgS2auc(sub, positive, { lambda: DEFAULTS.lambda, gamma: DEFAULTS.gamma, kernel: { kind: 'rbf', sigma: DEFAULTS.sigma } });
      const L = selectRows(sub, labeled.map((_, r) => r));
      const threshold = fitThreshold(evaluateExpansion(expansion, L.X, L.n), Uint8Array.from(L.y, (v) => (v === positive ? 1 : 0)));
      const te = scaler.transform(testSet);
      const f = evaluateExpansion(expansion, te.X, te.n);
      const seconds = (performance.now() - t0) / 1000;
      let negative = NaN;
      for (let i = 0; i < L.n; i++) if (L.y[i] !== positive) negative = L.y[i];
      const predicted = f.map((v: number) => (v > threshold ? positive : negative));
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
 * The dsgkit rows, in table order. Ordinal learners (QS³ORAO) join with `task: 'ordinal'`.
 *
 * @example
 * for (const m of DSGKIT_METHODS.filter((m) => m.task === 'binary')) console.log(m.name);
 */
export const DSGKIT_METHODS: DsgkitMethod[] = [trainMethod('qsg-s2auc'), trainMethod('dsg'), exactMethod()];
