/**
 * Where the ordinal learners' gap on a set comes from, at the settings the
 * peers choose there: on the quality benchmark's split (200 labeled rows),
 * side by side,
 *
 * - the RBF SVC (its expected class; the benchmark's best peer on diamonds)
 *   and kernel ridge regression of the class number (one score, C/γ and α/γ
 *   by 5-fold CV on the labeled rows: `kernel-ridge` in bench/peers/run_peers.py);
 * - QS3ORAO at its defaults with min–max feature scaling (`clipQuantile: 0`,
 *   as every run here but one), with the clip quantile 0.005 (the default
 *   scaling), and (γ = 1) at a wide kernel with a tiny λ, with more iterations, random
 *   features, or a larger constant step;
 * - each cut y > j alone, a model of its own scored at its cut: QSG-S2AUC
 *   (γ = 1) on all training rows at QS3ORAO's default σ and λ (one score
 *   against k − 1, the features scaled alike), and on the labeled rows the
 *   exact solution of the cut's supervised pairwise objective (`exact-s2auc`)
 *   beside its SGD (QSG-S2AUC) at those settings and at the wide kernels with
 *   the tiny λ (what the optimiser leaves).
 *
 * docs/learners.md § Which error is left reads it. Writes
 * bench/results/ordinal-gap.json.
 *
 * @example
 * // npx tsx bench/ordinal-gap.ts                        (diamonds, seed 1; about 2 minutes on 2 cores)
 * // npx tsx bench/ordinal-gap.ts --set ames --seeds 1,2
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { train } from '../src/api.ts';
import { makeDataset, readDataset, type Dataset } from '../src/data/index.ts';
import { auc, ordinalMeanAuc } from '../src/metrics/index.ts';
import { markdownTable, writeBenchOutputs } from './lib/index.ts';
import { benchSet, qualitySplit } from './lib/quality.ts';
import { runPythonPeers, type PeerRecord } from './peers/python-peers.ts';

const REPO = fileURLToPath(new URL('..', import.meta.url));
const { values: opt } = parseArgs({
  options: {
    set: { type: 'string', default: 'diamonds' },
    seeds: { type: 'string', default: '1' },
    sigmas: { type: 'string', default: '0.1,0.3' },
    lambda: { type: 'string', default: '1e-5' },
    python: { type: 'string', default: '/usr/bin/python3' },
  },
});
const set = benchSet(opt.set!);
if (set.task !== 'ordinal') throw new Error(`--set: ${set.name} is not an ordinal set`);
const seeds = opt.seeds!.split(',').map(Number);
const sigmas = opt.sigmas!.split(',').map(Number);
const lambda = Number(opt.lambda);

/**
 * `ds` with the label cut at class `cut` (+1 above it, −1 at or below): its
 * labeled rows only, or every row with the unlabeled ones kept unlabeled (so
 * the features are scaled over the same rows as the ordinal learner's).
 */
function cutRows(ds: Dataset, cut: number, labeledOnly: boolean): Dataset {
  const rows: number[] = [];
  for (let i = 0; i < ds.n; i++) if (ds.labeled[i] || !labeledOnly) rows.push(i);
  const X = new Float64Array(rows.length * ds.d);
  const y = new Float64Array(rows.length);
  rows.forEach((i, r) => {
    X.set(ds.X.subarray(i * ds.d, (i + 1) * ds.d), r * ds.d);
    y[r] = ds.labeled[i] ? (ds.y[i] > cut ? 1 : -1) : NaN;
  });
  return makeDataset({ X, y, d: ds.d, featureNames: ds.featureNames });
}

interface Row {
  seed: number;
  what: string;
  /** Mean threshold AUC: of one score (peers, QS3ORAO), or the mean over the cuts of the AUC of each cut's own model. */
  value: number;
  /** The held-out AUC at each cut y > j. */
  perCut?: number[];
  settings?: Record<string, unknown>;
  seconds: number;
}

const rows: Row[] = [];
const raw = await readDataset(join(REPO, set.path));
for (const seed of seeds) {
  const { train: tr, test } = qualitySplit(raw, set.name, 'labeled', seed);
  const py = await runPythonPeers<PeerRecord>(opt.python!, { dataset: set.path, task: 'ordinal', unlabeledCap: 4000, peers: ['svc', 'kernel-ridge'] }, [{ seed, train: tr, test }]);
  for (const r of py.records) rows.push({ seed, what: r.method, value: r.metric, settings: r.params, seconds: r.seconds });

  // The experiment scales features over min and max (--clip-quantile 0), as the gap was found, except the one row at the quantile range.
  const wide = { sigma: sigmas[sigmas.length - 1], lambda, gamma: 1 };
  const runs: [string, Record<string, unknown>][] = [
    ['qs3orao min–max', {}],
    ['qs3orao clipQuantile 0.005', { clipQuantile: 0.005 }],
    ['qs3orao', wide],
    ['qs3orao T = 1,600', { ...wide, T: 1600 }],
    ['qs3orao m = 256', { ...wide, m: 256 }],
    ['qs3orao constant η = 4', { ...wide, step: { kind: 'constant', eta: 4 } }],
    ['qs3orao constant η = 16', { ...wide, step: { kind: 'constant', eta: 16 } }],
  ];
  let defaults: { sigma: number; lambda: number } | undefined;
  for (const [what, settings] of runs) {
    const t0 = performance.now();
    const m = await train({ learner: 'qs3orao', data: tr, seed, onWarning: () => {}, clipQuantile: 0, ...settings });
    const f = await m.decisionFunction(test);
    const { meanAuc, perThreshold } = ordinalMeanAuc(test.y, f);
    defaults ??= { sigma: m.header.hyperparameters.sigma as number, lambda: m.header.hyperparameters.lambda as number };
    rows.push({ seed, what, value: meanAuc, perCut: Object.values(perThreshold), settings, seconds: (performance.now() - t0) / 1000 });
  }

  // Each cut alone, the AUC at that cut of a model of its own.
  const classes = [...new Set(Array.from(test.y))].sort((x, y) => x - y);
  const perCut = async (what: string, learner: 'exact-s2auc' | 'qsg-s2auc', labeledOnly: boolean, settings: Record<string, unknown>) => {
    const values: number[] = [];
    const t0 = performance.now();
    for (const cut of classes.slice(0, -1)) {
      const yCut = Float64Array.from(test.y, (v) => (v > cut ? 1 : -1));
      const m = await train({ learner, data: cutRows(tr, cut, labeledOnly), clipQuantile: 0, ...settings, gamma: 1, ...(learner === 'qsg-s2auc' ? { seed } : {}), onWarning: () => {} });
      values.push(auc(yCut, await m.decisionFunction(test), { positive: 1 }));
    }
    rows.push({ seed, what, value: values.reduce((x, y) => x + y, 0) / values.length, perCut: values, settings, seconds: (performance.now() - t0) / 1000 });
  };
  // One score against the cuts' own models, the features scaled over the same rows (all training rows).
  await perCut('qsg-s2auc at each cut, all rows', 'qsg-s2auc', false, defaults!);
  // The exact solution of each cut's objective against its SGD, on the labeled rows (the exact solver's n ≤ 4,000; scaled over those rows).
  for (const settings of [defaults!, ...sigmas.map((sigma) => ({ sigma, lambda }))]) {
    await perCut('exact-s2auc at each cut, labeled rows', 'exact-s2auc', true, settings);
    await perCut('qsg-s2auc at each cut, labeled rows', 'qsg-s2auc', true, settings);
  }
}

const command = `npx tsx bench/ordinal-gap.ts ${process.argv.slice(2).join(' ')}`.trim();
writeBenchOutputs('ordinal-gap', { command, set: set.name, seeds, rows });
console.log(
  markdownTable(
    rows.map((r) => ({
      seed: r.seed,
      model: r.what,
      'mean threshold AUC': r.value.toFixed(4),
      'AUC at each cut': r.perCut ? r.perCut.map((v) => v.toFixed(3)).join(' ') : '',
      settings: r.settings ? JSON.stringify(r.settings) : '',
      s: r.seconds.toFixed(1),
    })),
  ),
);
