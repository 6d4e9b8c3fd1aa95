/**
 * Which error is left: for each loop learner on the quality benchmark's sets
 * where n allows, the model at its defaults beside the solution of its own
 * objective at the same settings — the exact O(n³) solution for QSG-S2AUC
 * (exact-s2auc, same σ, λ, γ; training sets of at most `--exact-max` rows),
 * and for every loop learner a run 10× as long (T = 10 × its default T, same
 * σ, λ, B, seed: the long-run stand-in) — and the best scikit-learn peer on
 * the same split (read from bench/results/quality-cells.jsonl). The gap to
 * the best peer splits into the optimiser's share (long run − defaults) and
 * the method's (best peer − long run). Writes bench/results/opt-gap.json.
 *
 * Splits: the `labeled` protocol of bench/quality.ts (20% held out, 200
 * labeled training rows, seeded by the seed).
 *
 * @example
 * // npx tsx bench/opt-gap.ts                                         (the default sets, seed 1)
 * // npx tsx bench/opt-gap.ts --sets spam,pima --learners dsg --seeds 1,2 --long 10
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { learnerSpec } from '../src/api.ts';
import { readDataset, splitDataset, type Dataset } from '../src/data/index.ts';
import { trainModel as train } from '../src/train/train.ts';
import { accuracy, auc, mean, ordinalMeanAuc } from '../src/metrics/index.ts';
import type { Model } from '../src/model/model.ts';
import { markdownTable, writeBenchOutputs } from './lib/index.ts';

const REPO = fileURLToPath(new URL('..', import.meta.url));
const CELLS = join(REPO, 'bench/results/quality-cells.jsonl');
const ORDINAL = new Set(['diabetes', 'boston', 'ames', 'diamonds', 'insteval']);
const BINARY_LEARNERS = ['qsg-s2auc', 'dsg', 'tsgs3vm'];
const ORDINAL_LEARNERS = ['qs3orao', 'sorao'];

const { values: opt } = parseArgs({
  options: {
    sets: { type: 'string', default: 'ionosphere,musk,breast_cancer,pima,cells,spam,dna,diabetes,boston,ames' },
    learners: { type: 'string', default: [...BINARY_LEARNERS, ...ORDINAL_LEARNERS].join(',') },
    seeds: { type: 'string', default: '1' },
    long: { type: 'string', default: '10' },
    'exact-max': { type: 'string', default: '1700' },
  },
});
const longFactor = Number(opt.long);
const exactMax = Number(opt['exact-max']);
const seeds = opt.seeds!.split(',').map(Number);
const learners = opt.learners!.split(',');

const pathOf = (set: string) => (['spam', 'breast_cancer', 'diabetes'].includes(set) ? `data/${set}.arrow` : `bench/data-public/${set}.arrow`);

/** The measure a learner is judged by on `test` (its own metric: AUC, mean threshold AUC, or accuracy). */
async function measure(model: Model, test: Dataset, learner: string): Promise<number> {
  const f = await model.decisionFunction(test);
  if (model.header.task.kind === 'ordinal') return ordinalMeanAuc(test.y, f).meanAuc;
  if (learnerSpec(learner).metric === 'accuracy') return accuracy(test.y, model.labelsFromScores(f));
  let positive = -Infinity;
  for (let i = 0; i < test.n; i++) positive = Math.max(positive, test.y[i]);
  return auc(test.y, f, { positive });
}

/** The best peer's value on the set and seed, by the learner's measure, from the quality benchmark's cells. */
function bestPeer(set: string, seed: number, learner: string): { peer: string; value: number } | undefined {
  if (!existsSync(CELLS)) return undefined;
  const key = learnerSpec(learner).metric === 'accuracy' ? 'accuracy' : 'metric';
  let best: { peer: string; value: number } | undefined;
  for (const line of readFileSync(CELLS, 'utf8').split('\n')) {
    if (!line) continue;
    const c = JSON.parse(line) as { kind: string; set: string; seed: number; protocol: string; method: string; metric: number; accuracy: number };
    if (c.kind !== 'peer' || c.set !== set || c.seed !== seed || c.protocol !== 'labeled') continue;
    const v = c[key];
    if (Number.isFinite(v) && (!best || v > best.value)) best = { peer: c.method, value: v };
  }
  return best;
}

interface Row {
  set: string;
  seed: number;
  learner: string;
  trainRows: number;
  T: number;
  defaults: number;
  long: number;
  longT: number;
  exact?: number;
  peer?: string;
  bestPeer?: number;
  optimiser: number;
  method?: number;
  seconds: { defaults: number; long: number; exact?: number };
}

const command = `npx tsx bench/opt-gap.ts ${process.argv.slice(2).join(' ')}`.trim();
const rows: Row[] = [];
for (const seed of seeds) {
  for (const set of opt.sets!.split(',')) {
    const raw = await readDataset(join(REPO, pathOf(set)));
    const { train: tr, test: held } = splitDataset(raw, { labeled: 200, test: 0.2, seed });
    const test = held!;
    for (const learner of learners.filter((l) => (ORDINAL.has(set) ? ORDINAL_LEARNERS : BINARY_LEARNERS).includes(l))) {
      const t0 = performance.now();
      const def = await train({ learner, data: tr, seed, onWarning: () => {} });
      const t1 = performance.now();
      const hp = def.header.hyperparameters;
      const T = hp.T as number;
      const longT = Math.round(longFactor * T);
      // The same σ (the default's median heuristic) and every other setting: only T differs.
      const long = await train({ learner, data: tr, seed, sigma: hp.sigma, T: longT, onWarning: () => {} });
      const t2 = performance.now();
      const row: Row = {
        set,
        seed,
        learner,
        trainRows: tr.n,
        T,
        defaults: await measure(def, test, learner),
        long: await measure(long, test, learner),
        longT,
        optimiser: 0,
        seconds: { defaults: (t1 - t0) / 1000, long: (t2 - t1) / 1000 },
      };
      row.optimiser = row.long - row.defaults;
      if (learner === 'qsg-s2auc' && tr.n <= exactMax) {
        const e0 = performance.now();
        const exact = await train({ learner: 'exact-s2auc', data: tr, kernel: hp.kernel, sigma: hp.sigma, lambda: hp.lambda, gamma: hp.gamma, onWarning: () => {} });
        row.exact = await measure(exact, test, learner);
        row.seconds.exact = (performance.now() - e0) / 1000;
      }
      const peer = bestPeer(set, seed, learner);
      if (peer) {
        row.peer = peer.peer;
        row.bestPeer = peer.value;
        row.method = peer.value - (row.exact ?? row.long);
      }
      rows.push(row);
      console.log(JSON.stringify(row));
      // Written after every row: a stopped run keeps what it measured.
      writeBenchOutputs('opt-gap', { command, longFactor, rows });
    }
  }
}

const f3 = (v: number | undefined) => (v === undefined ? '—' : v.toFixed(3));
const s3 = (v: number | undefined) => (v === undefined ? '—' : `${v >= 0 ? '+' : '−'}${Math.abs(v).toFixed(3)}`);
console.log(
  markdownTable(
    rows.map((r) => ({
      set: r.set,
      learner: r.learner,
      [`defaults (T)`]: `${f3(r.defaults)} (${r.T})`,
      [`long run (T)`]: `${f3(r.long)} (${r.longT})`,
      exact: f3(r.exact),
      'best peer': r.peer ? `${f3(r.bestPeer)} ${r.peer}` : '—',
      'optimiser (long − defaults)': s3(r.optimiser),
      'method (peer − long or exact)': s3(r.method),
    })),
  ),
);
const byLearner = Object.fromEntries(
  learners.map((l) => {
    const rs = rows.filter((r) => r.learner === l);
    return [l, rs.length ? { sets: rs.length, optimiser: mean(rs.map((r) => r.optimiser)), method: mean(rs.filter((r) => r.method !== undefined).map((r) => r.method!)) } : undefined];
  }),
);
console.log(byLearner);
writeBenchOutputs('opt-gap', { command, longFactor, rows, byLearner });
