/**
 * Suffix averaging and the iteration budget of the loop learners, at equal
 * time: one run per learner and set at `average none`, and from its
 * checkpoints at each T of `--T` the held-out measure of the last iterate
 * (what the model is by default) beside the mean of the iterates of the last
 * half (`average suffix`, `avg0.5`) and of the last three quarters (`avg0.75`),
 * derived from the same history with coordinator/averaging.ts's weights — so
 * averaging costs no training time, and the rows at larger T say what a larger
 * budget buys. TSGS3VM's default step depends on T, so it runs once per T
 * (400 and the largest), and its class-balance bias is re-taken for the
 * averaged f on the first 2,000 unlabeled training rows (the learner's own
 * rule takes it on a seeded sample of them).
 *
 * Splits: the `labeled` protocol of bench/quality.ts (20% held out, 200
 * labeled training rows), seed 1. Appends one JSON line per (set, learner, T)
 * to the output file.
 *
 * @example
 * // npx tsx bench/averaging.ts --sets ionosphere,pima --learners dsg --T 200,400,800,1600 --out /tmp/averaging.jsonl
 */
import { appendFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { suffixWeights } from '../src/coordinator/averaging.ts';
import type { StepSize } from '../src/coordinator/step-size.ts';
import { readDataset, selectRows, splitDataset, type Dataset } from '../src/data/index.ts';
import { accuracy, auc, ordinalMeanAuc } from '../src/metrics/index.ts';
import { Model } from '../src/model/model.ts';
import { RandomFeaturePredictor } from '../src/model/predictor.ts';
import { trainModel as train } from '../src/train/train.ts';
import { benchSet } from './lib/quality.ts';

const { values: opt } = parseArgs({
  options: {
    sets: { type: 'string', default: 'ionosphere,musk,breast_cancer,pima,cells,spam,dna,satellite,churn,letter,diabetes,boston,ames' },
    learners: { type: 'string', default: 'qsg-s2auc,dsg,tsgs3vm,qs3orao,sorao' },
    T: { type: 'string', default: '400,800' },
    seed: { type: 'string', default: '1' },
    out: { type: 'string', default: 'bench/results/averaging.jsonl' },
  },
});
const Ts = opt.T!.split(',').map(Number);
const Tmax = Math.max(...Ts);
const seed = Number(opt.seed);

/** The model whose f is the mean of the iterates of the last `frac` of the run that ended in `model` (at average none). */
function averaged(model: Model, lambda: number, step: StepSize, frac: number): Model {
  const p = model.predictor as RandomFeaturePredictor;
  const T = p.history.t;
  const from = Math.floor(T * (1 - frac)) + 1;
  return new Model(model.header, new RandomFeaturePredictor(p.history, p.features, p.chunkSize, p.bias, { from, weights: suffixWeights(step, lambda, T, from) }));
}

/** The learner's measure on `test`; for accuracy with a class-balance bias, `reference` (the last iterate) moves the bias by the change of mean f on U. */
async function measure(model: Model, test: Dataset, learner: string, U: Dataset, reference?: Model): Promise<{ metric: number; auc?: number }> {
  const f = await model.decisionFunction(test);
  if (model.header.task.kind === 'ordinal') return { metric: ordinalMeanAuc(test.y, f).meanAuc };
  let positive = -Infinity;
  for (let i = 0; i < test.n; i++) positive = Math.max(positive, test.y[i]);
  const a = auc(test.y, f, { positive });
  if (learner !== 'tsgs3vm') return { metric: a };
  let shift = 0;
  if (reference) {
    const [fr, fa] = [await reference.decisionFunction(U), await model.decisionFunction(U)];
    for (let i = 0; i < U.n; i++) shift += (fr[i] - fa[i]) / U.n;
  }
  return { metric: accuracy(test.y, model.labelsFromScores(f.map((v) => v + shift))), auc: a };
}

for (const set of opt.sets!.split(',')) {
  const raw = await readDataset(benchSet(set).path);
  const { train: tr, test: held } = splitDataset(raw, { labeled: 200, test: 0.2, seed });
  const test = held!;
  const unlabeled: number[] = [];
  for (let i = 0; i < tr.n && unlabeled.length < 2000; i++) if (!tr.labeled[i]) unlabeled.push(i);
  const U = selectRows(tr, unlabeled);
  const learners = opt.learners!.split(',').filter((l) => (benchSet(set).task === 'ordinal' ? ['qs3orao', 'sorao'] : ['qsg-s2auc', 'dsg', 'tsgs3vm']).includes(l));
  for (const learner of learners) {
    const runs: [number, Model, number][] = [];
    if (learner === 'tsgs3vm') {
      for (const T of Ts.filter((x) => x === 400 || x === Tmax)) {
        const a = performance.now();
        runs.push([T, await train({ learner, data: tr, seed, T, average: 'none', onWarning: () => {} }), (performance.now() - a) / 1000]);
      }
    } else {
      const snaps = new Map<number, Model>();
      const gcd = (a: number, b: number): number => (b ? gcd(b, a % b) : a);
      const a = performance.now();
      const last = await train({
        learner, data: tr, seed, T: Tmax, average: 'none', onWarning: () => {},
        checkpointEvery: Ts.reduce(gcd),
        onCheckpoint: (c: Model) => {
          const t = (c.predictor as RandomFeaturePredictor).history.t;
          if (Ts.includes(t)) snaps.set(t, c);
        },
      });
      snaps.set(Tmax, last);
      for (const T of Ts) runs.push([T, snaps.get(T)!, (performance.now() - a) / 1000]);
    }
    for (const [T, model, secs] of runs) {
      const hp = model.header.hyperparameters;
      const lambda = learner === 'tsgs3vm' ? 1 : (hp.lambda as number);
      const r = await measure(model, test, learner, U);
      const row: Record<string, unknown> = { set, learner, T, n: tr.n, raw: r.metric, ...(r.auc !== undefined ? { rawAuc: r.auc } : {}) };
      for (const frac of [0.5, 0.75]) {
        const q = await measure(averaged(model, lambda, hp.step as StepSize, frac), test, learner, U, model);
        row[`avg${frac}`] = q.metric;
        if (q.auc !== undefined) row[`avgAuc${frac}`] = q.auc;
      }
      row.secs = secs;
      console.log(JSON.stringify(row));
      appendFileSync(opt.out!, JSON.stringify(row) + '\n');
    }
  }
}
