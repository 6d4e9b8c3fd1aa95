/**
 * The iteration budget of the loop learners where the number of labeled rows
 * n_l varies: each loop learner at its defaults but T (and optionally B), on
 * splits with many labeled rows, scored on the held-out rows with the
 * learner's own measure (AUC for qsg-s2auc and dsg, accuracy for tsgs3vm,
 * mean threshold AUC for qs3orao and sorao), with the training time.
 *
 * Splits: binary sets by the quality benchmark's `hide` protocol (20% held
 * out, 80% of the training labels hidden, a set of more than 6,250 rows cut
 * to a seeded sample of that many first: n_l up to 1,000), or its `labeled`
 * protocol (200 labeled rows) with `--protocol labeled`; ordinal sets (which
 * have only the labeled protocol there) with `--labeled` labeled rows (200 or
 * 1,000), also on at most 6,250 rows. Learners whose default step does not
 * depend on T run once to the largest T with checkpoints at the others (a
 * checkpoint at T is the model trained to T at once, docs/determinism.md);
 * `--T rule` also trains each without T, at the T its budget rule derives;
 * TSGS3VM's default step depends on T, so it runs once per T. The time of a
 * checkpoint is the time the run took to reach it.
 *
 * Appends one row per (set, protocol, n_l, seed, learner, B, T) to
 * bench/results/budget.json (rows of the same key are replaced).
 *
 * @example
 * // npx tsx bench/budget.ts --sets pima,spam,satellite --seed 1 --T 400,800,1600
 * // npx tsx bench/budget.ts --sets ames,diamonds --labeled 1000 --learners qs3orao,sorao
 * // npx tsx bench/budget.ts --sets spam,letter --T rule            (at the T the rule derives)
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import seedrandom from 'seedrandom';
import { readDataset, selectRows, splitDataset, type Dataset } from '../src/data/index.ts';
import { shuffleInPlace } from '../src/data/split.ts';
import { accuracy, auc, ordinalMeanAuc } from '../src/metrics/index.ts';
import type { Model } from '../src/model/model.ts';
import type { RandomFeaturePredictor } from '../src/model/predictor.ts';
import { trainModel as train } from '../src/train/train.ts';

/** The quality benchmark's cut for the hide protocol (bench/quality.ts HIDE_MAX_ROWS: importing it would run that benchmark). */
const HIDE_MAX_ROWS = 6250;
const ORDINAL = new Set(['diabetes', 'boston', 'ames', 'diamonds', 'insteval']);
const pathOf = (s: string) => (['spam', 'breast_cancer', 'diabetes'].includes(s) ? `data/${s}.arrow` : `bench/data-public/${s}.arrow`);

const { values: opt } = parseArgs({
  options: {
    sets: { type: 'string', default: 'pima,cells,dna,spam,satellite,churn,letter' },
    learners: { type: 'string', default: 'qsg-s2auc,dsg,tsgs3vm,qs3orao,sorao' },
    T: { type: 'string', default: '400,800,1600' },
    B: { type: 'string', default: '64' },
    seed: { type: 'string', default: '1' },
    protocol: { type: 'string', default: 'hide' },
    labeled: { type: 'string', default: '200' },
    threads: { type: 'string' },
    out: { type: 'string', default: 'bench/results/budget.json' },
  },
});
// `rule` in --T: a run without T (the learner's budget rule derives it from n_l), recorded with `derived: true`.
const byRule = opt.T!.split(',').includes('rule');
const Ts = opt.T!.split(',').filter((t) => t !== 'rule').map(Number).sort((a, b) => a - b);
const Bs = opt.B!.split(',').map(Number);
const Tmax = Ts[Ts.length - 1];
const seed = Number(opt.seed);
const threads = opt.threads !== undefined ? { threads: Number(opt.threads) } : {};

interface Row {
  set: string;
  protocol: string;
  rows: number;
  n: number;
  nl: number;
  d: number;
  seed: number;
  learner: string;
  B: number;
  T: number;
  metric: number;
  measure: string;
  seconds: number;
  /** T came from the learner's budget rule (no T given). */
  derived?: true;
}

/** The split of `set` (see the module comment) and its protocol's name. */
function split(raw: Dataset, set: string): { train: Dataset; test: Dataset; rows: number; protocol: string } {
  let ds = raw;
  if (raw.n > HIDE_MAX_ROWS) {
    const order = shuffleInPlace(Array.from({ length: raw.n }, (_, i) => i), seedrandom(`quality-hide-${set}-${seed}`));
    ds = selectRows(raw, order.slice(0, HIDE_MAX_ROWS).sort((a, b) => a - b));
  }
  if (ORDINAL.has(set) || opt.protocol === 'labeled') {
    const labeled = Number(opt.labeled);
    // The labeled protocol takes the whole set (as the quality benchmark does) at 200 labeled rows.
    const from = labeled === 200 && !ORDINAL.has(set) ? raw : ds;
    const { train: tr, test } = splitDataset(from, { labeled, test: 0.2, seed });
    return { train: tr, test: test!, rows: from.n, protocol: `labeled-${labeled}` };
  }
  const testCount = Math.round(0.2 * ds.n);
  const labeled = Math.round(0.2 * (ds.n - testCount));
  const { train: tr, test } = splitDataset(ds, { labeled, test: 0.2, seed });
  return { train: tr, test: test!, rows: ds.n, protocol: 'hide' };
}

/** The learner's own held-out measure. */
async function measure(model: Model, test: Dataset, learner: string): Promise<[number, string]> {
  const f = await model.decisionFunction(test);
  if (model.header.task.kind === 'ordinal') return [ordinalMeanAuc(test.y, f).meanAuc, 'mean threshold AUC'];
  if (learner === 'tsgs3vm') return [accuracy(test.y, model.labelsFromScores(f)), 'accuracy'];
  let positive = -Infinity;
  for (let i = 0; i < test.n; i++) positive = Math.max(positive, test.y[i]);
  return [auc(test.y, f, { positive }), 'AUC'];
}

const out: Row[] = existsSync(opt.out!) ? (JSON.parse(readFileSync(opt.out!, 'utf8')) as { rows: Row[] }).rows : [];
const keyOf = (r: Pick<Row, 'set' | 'protocol' | 'seed' | 'learner' | 'B' | 'T' | 'derived'>) => `${r.set}|${r.protocol}|${r.seed}|${r.learner}|${r.B}|${r.T}${r.derived ? '|rule' : ''}`;
function record(row: Row): void {
  const at = out.findIndex((r) => keyOf(r) === keyOf(row));
  if (at >= 0) out[at] = row;
  else out.push(row);
  console.log(JSON.stringify(row));
  writeFileSync(opt.out!, JSON.stringify({ bench: 'bench/budget.ts', note: 'held-out measure of each loop learner at its defaults but T and B; seconds: training to T (a checkpoint: the run so far)', rows: out }, null, 1) + '\n');
}

for (const set of opt.sets!.split(',')) {
  const raw = await readDataset(pathOf(set));
  const { train: tr, test, rows, protocol } = split(raw, set);
  let nl = 0;
  for (let i = 0; i < tr.n; i++) nl += tr.labeled[i];
  const learners = opt.learners!.split(',').filter((l) => (ORDINAL.has(set) ? ['qs3orao', 'sorao'] : ['qsg-s2auc', 'dsg', 'tsgs3vm']).includes(l));
  for (const learner of learners) {
    for (const B of Bs) {
      const base = { set, protocol, rows, n: tr.n, nl, d: tr.d, seed, learner, B };
      if (byRule) {
        const a = performance.now();
        const model = await train({ learner, data: tr, seed, batchSize: B, onWarning: () => {}, ...threads });
        const seconds = (performance.now() - a) / 1000;
        const [metric, name] = await measure(model, test, learner);
        record({ ...base, T: model.header.hyperparameters.T as number, metric, measure: name, seconds, derived: true });
      }
      if (Ts.length === 0) continue;
      if (learner === 'tsgs3vm') {
        for (const T of Ts) {
          const a = performance.now();
          const model = await train({ learner, data: tr, seed, T, batchSize: B, onWarning: () => {}, ...threads });
          const seconds = (performance.now() - a) / 1000;
          const [metric, name] = await measure(model, test, learner);
          record({ ...base, T, metric, measure: name, seconds });
        }
        continue;
      }
      const snaps = new Map<number, [Model, number]>();
      const gcd = (a: number, b: number): number => (b ? gcd(b, a % b) : a);
      const a = performance.now();
      const last = await train({
        learner, data: tr, seed, T: Tmax, batchSize: B, onWarning: () => {}, ...threads,
        checkpointEvery: Ts.reduce(gcd),
        onCheckpoint: (c: Model) => {
          const t = (c.predictor as RandomFeaturePredictor).history.t;
          if (Ts.includes(t)) snaps.set(t, [c, (performance.now() - a) / 1000]);
        },
      });
      snaps.set(Tmax, [last, (performance.now() - a) / 1000]);
      for (const T of Ts) {
        const [model, seconds] = snaps.get(T)!;
        const [metric, name] = await measure(model, test, learner);
        record({ ...base, T, metric, measure: name, seconds });
      }
    }
  }
}
