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
 * `--T sqrt` also trains each at the T of the √n_l rule (GROWING_BUDGET),
 * whichever rule the learner declares (a separate run, so its time is its own);
 * TSGS3VM's default step depends on T, so it runs once per T. The time of a
 * checkpoint is the time the run took to reach it.
 *
 * Appends one row per (set, protocol, n_l, seed, learner, B, T) to
 * bench/results/budget.json (rows of the same key are replaced).
 *
 * @example
 * // npx tsx bench/budget.ts --sets pima,spam,satellite --seed 1 --T 400,800,1600
 * // npx tsx bench/budget.ts --sets ames,diamonds --labeled 1000 --learners qs3orao,sorao
 * // npx tsx bench/budget.ts --sets spam,letter --T sqrt            (at the T of the √n_l rule)
 * // npx tsx bench/budget.ts --summary                              (the table of docs/learners.md § Budgets)
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import seedrandom from 'seedrandom';
import { readDataset, selectRows, splitDataset, type Dataset } from '../src/data/index.ts';
import { shuffleInPlace } from '../src/data/split.ts';
import { accuracy, auc, ordinalMeanAuc } from '../src/metrics/index.ts';
import type { Model } from '../src/model/model.ts';
import type { RandomFeaturePredictor } from '../src/model/predictor.ts';
import { GROWING_BUDGET, loopBudget } from '../src/learners/budget.ts';
import { trainModel as train } from '../src/train/train.ts';
import { benchSet, HIDE_MAX_ROWS } from './lib/quality.ts';

const isOrdinal = (set: string) => benchSet(set).task === 'ordinal';

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
    summary: { type: 'boolean', default: false },
  },
});
// `sqrt` in --T: a run at the T of the √n_l rule (GROWING_BUDGET, learners/budget.ts) on the split's n_l, recorded with `sqrtRule: true`.
const bySqrt = opt.T!.split(',').includes('sqrt');
const Ts = opt.T!.split(',').filter((t) => t !== 'sqrt').map(Number).sort((a, b) => a - b);
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
  /** T is the √n_l rule's (GROWING_BUDGET) on this split. */
  sqrtRule?: true;
}

/** The split of `set` (see the module comment) and its protocol's name. */
function split(raw: Dataset, set: string): { train: Dataset; test: Dataset; rows: number; protocol: string } {
  let ds = raw;
  if (raw.n > HIDE_MAX_ROWS) {
    const order = shuffleInPlace(Array.from({ length: raw.n }, (_, i) => i), seedrandom(`quality-hide-${set}-${seed}`));
    ds = selectRows(raw, order.slice(0, HIDE_MAX_ROWS).sort((a, b) => a - b));
  }
  if (isOrdinal(set) || opt.protocol === 'labeled') {
    const labeled = Number(opt.labeled);
    // The labeled protocol takes the whole set (as the quality benchmark does) at 200 labeled rows.
    const from = labeled === 200 && !isOrdinal(set) ? raw : ds;
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
const keyOf = (r: Pick<Row, 'set' | 'protocol' | 'seed' | 'learner' | 'B' | 'T' | 'sqrtRule'>) => `${r.set}|${r.protocol}|${r.seed}|${r.learner}|${r.B}|${r.T}${r.sqrtRule ? '|sqrt' : ''}`;
function record(row: Row): void {
  const at = out.findIndex((r) => keyOf(r) === keyOf(row));
  if (at >= 0) out[at] = row;
  else out.push(row);
  console.log(JSON.stringify(row));
  writeFileSync(opt.out!, JSON.stringify({ bench: 'bench/budget.ts', note: 'held-out measure of each loop learner at its defaults but T and B; sqrtRule: T of the √n_l rule (GROWING_BUDGET); seconds: training to T (a checkpoint: the run so far), on a 2-core machine shared with other jobs', rows: out }, null, 1) + '\n');
}

/**
 * The table of docs/learners.md § Budgets from the rows recorded so far: per
 * learner and range of n_l, the held-out measure at T = 800 and 1,600 (and at
 * the √n_l rule's T) minus T = 400 on the same split, mean [min, max] over the
 * (set, seed) pairs, better / tie (±0.005) / worse, and the time ratio.
 */
function summary(): string {
  const at = new Map(out.map((r) => [keyOf(r), r]));
  // The binary sets' labeled protocol (n_l = 200, n_u from 1,415 to 59,800) is a group of its own: there the unlabeled rows vary, not n_l.
  const binaryLabeled = (r: Row) => r.protocol === 'labeled-200' && !isOrdinal(r.set);
  const groups: [string, (r: Row) => boolean][] = [
    ['≤ 323', (r) => r.nl <= 323 && !binaryLabeled(r)],
    ['510 – 1,000', (r) => r.nl > 323],
    ['200, n = 1,615 – 60,000', binaryLabeled],
  ];
  const lines = ['| learner (measure) | n_l | pairs | T = 800 − 400 | T = 1,600 − 400 | √n_l rule − 400 (its T) | better / tie / worse at the √n_l rule | time: √n_l rule / 400 |', '| --- | --- | --- | --- | --- | --- | --- | --- |'];
  const f = (x: number) => `${x >= 0 ? '+' : '−'}${Math.abs(x).toFixed(4)}`;
  const stat = (d: number[]) => (d.length ? `${f(d.reduce((a, b) => a + b, 0) / d.length)} [${f(Math.min(...d))}, ${f(Math.max(...d))}]` : '—');
  for (const learner of ['qsg-s2auc', 'dsg', 'tsgs3vm', 'qs3orao', 'sorao']) {
    for (const [range, inRange] of groups) {
      const bases = out.filter((r) => r.learner === learner && r.T === 400 && r.B === 64 && !r.sqrtRule && inRange(r));
      if (bases.length === 0) continue;
      const diff = (T: number) => bases.flatMap((b) => { const r = at.get(keyOf({ ...b, T })); return r ? [r.metric - b.metric] : []; });
      const rules = bases.flatMap((b) => out.filter((r) => r.sqrtRule && r.set === b.set && r.protocol === b.protocol && r.seed === b.seed && r.learner === learner && r.B === 64).map((r) => ({ r, b })));
      const dr = rules.map(({ r, b }) => r.metric - b.metric);
      const Ts = [...new Set(rules.map(({ r }) => r.T))].sort((a, b) => a - b);
      const tally = `${dr.filter((x) => x > 0.005).length} / ${dr.filter((x) => Math.abs(x) <= 0.005).length} / ${dr.filter((x) => x < -0.005).length}`;
      const time = rules.length ? `${(rules.reduce((a, { r }) => a + r.seconds, 0) / rules.reduce((a, { b }) => a + b.seconds, 0)).toFixed(1)}×` : '—';
      lines.push(`| ${learner} (${bases[0].measure}) | ${range} | ${bases.length} | ${stat(diff(800))} | ${stat(diff(1600))} | ${dr.length ? `${stat(dr)} (${Ts.join(', ')})` : '—'} | ${dr.length ? tally : '—'} | ${time} |`);
    }
  }
  return lines.join('\n');
}

if (opt.summary) {
  console.log(summary());
  process.exit(0);
}

for (const set of opt.sets!.split(',')) {
  const raw = await readDataset(benchSet(set).path);
  const { train: tr, test, rows, protocol } = split(raw, set);
  let nl = 0;
  for (let i = 0; i < tr.n; i++) nl += tr.labeled[i];
  const learners = opt.learners!.split(',').filter((l) => (isOrdinal(set) ? ['qs3orao', 'sorao'] : ['qsg-s2auc', 'dsg', 'tsgs3vm']).includes(l));
  for (const learner of learners) {
    for (const B of Bs) {
      const base = { set, protocol, rows, n: tr.n, nl, d: tr.d, seed, learner, B };
      if (bySqrt) {
        const T = loopBudget(nl, GROWING_BUDGET).T;
        const a = performance.now();
        const model = await train({ learner, data: tr, seed, T, batchSize: B, onWarning: () => {}, ...threads });
        const seconds = (performance.now() - a) / 1000;
        const [metric, name] = await measure(model, test, learner);
        record({ ...base, T, metric, measure: name, seconds, sqrtRule: true });
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
