/**
 * Where the ordinal learners' gap on a set comes from, at the settings the
 * peers choose there: on the quality benchmark's split (200 labeled rows),
 * side by side,
 *
 * - the RBF SVC (its expected class; the benchmark's best peer on diamonds)
 *   and kernel ridge regression of the class number (one score, C/γ and α/γ
 *   by 5-fold CV on the labeled rows: `kernel-ridge` in bench/peers/run_peers.py);
 * - the exact solution of the supervised pairwise AUC objective at each cut
 *   (`exact-s2auc` on the labeled rows with the labels cut at class j, γ = 1)
 *   at wide kernels and a tiny λ, scored by the held-out AUC at that cut;
 * - QS3ORAO (γ = 1) at the same settings, at its defaults and with more
 *   iterations, random features, batch, or a larger constant step.
 *
 * If one score fitted with almost no regularisation ranks the classes as well
 * as the SVC, and the exact solution of the learner's own objective does too,
 * while its SGD does not, the gap is the optimiser's at those settings, not
 * the model's (docs/learners.md § Which error is left). Writes
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

/** The labeled rows of `ds` with the label cut at class `cut`: +1 above it, −1 at or below. */
function cutLabeled(ds: Dataset, cut: number): Dataset {
  const rows: number[] = [];
  for (let i = 0; i < ds.n; i++) if (ds.labeled[i]) rows.push(i);
  const X = new Float64Array(rows.length * ds.d);
  const y = new Float64Array(rows.length);
  rows.forEach((i, r) => {
    X.set(ds.X.subarray(i * ds.d, (i + 1) * ds.d), r * ds.d);
    y[r] = ds.y[i] > cut ? 1 : -1;
  });
  return makeDataset({ X, y, d: ds.d, featureNames: ds.featureNames });
}

interface Row {
  seed: number;
  what: string;
  /** Mean threshold AUC (peers, QS3ORAO) or the AUC at one cut (exact). */
  value: number;
  cut?: number;
  settings?: Record<string, unknown>;
  seconds: number;
}

const rows: Row[] = [];
const raw = await readDataset(join(REPO, set.path));
for (const seed of seeds) {
  const { train: tr, test } = qualitySplit(raw, set.name, 'labeled', seed);
  const py = await runPythonPeers<PeerRecord>(opt.python!, { dataset: set.path, task: 'ordinal', unlabeledCap: 4000, peers: ['svc', 'kernel-ridge'] }, [{ seed, train: tr, test }]);
  for (const r of py.records) rows.push({ seed, what: r.method, value: r.metric, settings: r.params, seconds: r.seconds });

  const classes = [...new Set(Array.from(test.y))].sort((a, b) => a - b);
  for (const cut of classes.slice(0, -1)) {
    const labeled = cutLabeled(tr, cut);
    const yCut = Float64Array.from(test.y, (v) => (v > cut ? 1 : -1));
    for (const sigma of sigmas) {
      const t0 = performance.now();
      const m = await train({ learner: 'exact-s2auc', data: labeled, sigma, lambda, gamma: 1, onWarning: () => {} });
      const f = await m.decisionFunction(test);
      rows.push({ seed, what: 'exact-s2auc', cut, value: auc(yCut, f, { positive: 1 }), settings: { sigma, lambda }, seconds: (performance.now() - t0) / 1000 });
    }
  }

  const at = { sigma: sigmas[sigmas.length - 1], lambda, gamma: 1 };
  const runs: [string, Record<string, unknown>][] = [
    ['qs3orao defaults', {}],
    ['qs3orao', at],
    ['qs3orao T = 1,600', { ...at, T: 1600 }],
    ['qs3orao m = 256', { ...at, m: 256 }],
    ['qs3orao B = 256', { ...at, batchSize: 256 }],
    ['qs3orao constant η = 4', { ...at, step: { kind: 'constant', eta: 4 } }],
    ['qs3orao constant η = 16', { ...at, step: { kind: 'constant', eta: 16 } }],
  ];
  for (const [what, settings] of runs) {
    const t0 = performance.now();
    const m = await train({ learner: 'qs3orao', data: tr, seed, onWarning: () => {}, ...settings });
    const f = await m.decisionFunction(test);
    rows.push({ seed, what, value: ordinalMeanAuc(test.y, f).meanAuc, settings, seconds: (performance.now() - t0) / 1000 });
  }
}

const command = `npx tsx bench/ordinal-gap.ts ${process.argv.slice(2).join(' ')}`.trim();
writeBenchOutputs('ordinal-gap', { command, set: set.name, seeds, rows });
console.log(
  markdownTable(
    rows.map((r) => ({
      seed: r.seed,
      model: r.what,
      measure: r.cut === undefined ? 'mean threshold AUC' : `AUC at y > ${r.cut}`,
      value: r.value.toFixed(4),
      settings: r.settings ? JSON.stringify(r.settings) : '',
      s: r.seconds.toFixed(1),
    })),
  ),
);
