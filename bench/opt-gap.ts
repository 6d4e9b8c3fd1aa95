/**
 * Which error is left: for each learner on the quality benchmark's sets
 * where n allows, the model at its defaults beside the solution of its own
 * objective at the same settings — the exact O(n³) solution for QSG-S2AUC
 * (exact-s2auc, same σ, λ, γ; training sets of at most `--exact-max` rows),
 * and for every learner a run 10× as long (the long-run stand-in: T = 10 × its
 * default T for the loop and graph learners, at the same B; 10 × the epochs
 * for FRS3VM; the same σ, λ, C, C′ and seed) — and the best scikit-learn peer
 * on the same split (read from bench/results/quality-cells.jsonl). The gap to
 * the best peer splits into the optimiser's share (long run − defaults) and
 * the method's (best peer − long run). Writes bench/results/opt-gap.json,
 * keeping the rows of earlier runs that this one did not measure again (its
 * sets, seeds and learners replace theirs; each row names its src tree), so a
 * run of a few sets adds to the table.
 *
 * Splits: bench/quality.ts's own (`qualitySplit`): the `labeled` protocol (20%
 * held out, 200 labeled training rows) for the loop learners, `hide` (80% of
 * the training labels hidden, at most 6,250 rows) for GKM and LapSVM.
 *
 * @example
 * // npx tsx bench/opt-gap.ts                                         (the default sets, seed 1)
 * // npx tsx bench/opt-gap.ts --sets spam,pima --learners dsg,gkm --seeds 1,2 --long 10
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { readDataset, type Dataset } from '../src/data/index.ts';
import { trainModel as train } from '../src/train/train.ts';
import { mean } from '../src/metrics/index.ts';
import type { Model } from '../src/model/model.ts';
import { markdownTable, writeBenchOutputs } from './lib/index.ts';
import { benchSet, heldOut, measureOf, qualitySplit, SETS, srcTreeOf, type Task } from './lib/quality.ts';

const REPO = fileURLToPath(new URL('..', import.meta.url));
const CELLS = join(REPO, 'bench/results/quality-cells.jsonl');
const OUT = join(REPO, 'bench/results/opt-gap.json');
const BINARY_LEARNERS = ['qsg-s2auc', 'dsg', 'tsgs3vm', 'frs3vm', 'gkm', 'lapsvm'];
const ORDINAL_LEARNERS = ['qs3orao', 'sorao'];
/** Learners benchmarked under the `hide` protocol (80% of the training labels hidden). */
const HIDE_LEARNERS = new Set(['gkm', 'lapsvm']);

/**
 * The settings of a run `factor` times as long as the defaults' model `hp`: 10× the epochs
 * (FRS3VM) or the iterations at the same batch (the rest), every other setting as trained.
 */
function longRun(learner: string, hp: Record<string, unknown>, factor: number): { budget: number; settings: Record<string, unknown> } {
  const same = { sigma: hp.sigma, ...(HIDE_LEARNERS.has(learner) ? { C: hp.C, Cprime: hp.Cprime, batchSize: hp.batchSize } : {}) };
  if (learner === 'frs3vm') {
    const epochs = Math.round(factor * (hp.epochs as number));
    return { budget: epochs, settings: { ...same, epochs } };
  }
  const T = Math.round(factor * (hp.T as number));
  return { budget: T, settings: { ...same, T } };
}

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

/** The measure a learner is judged by on `test` (its own metric: AUC, mean threshold AUC, or accuracy). */
async function measure(model: Model, test: Dataset, learner: string, task: Task): Promise<number> {
  const f = await model.decisionFunction(test);
  return heldOut(task, test, f, model.labelsFromScores(f))[measureOf(learner)];
}

/** The best peer's value on the set and seed, by the learner's measure, from the quality benchmark's cells. */
function bestPeer(set: string, seed: number, learner: string, protocol: 'labeled' | 'hide'): { peer: string; value: number } | undefined {
  if (!existsSync(CELLS)) return undefined;
  const key = measureOf(learner);
  let best: { peer: string; value: number } | undefined;
  for (const line of readFileSync(CELLS, 'utf8').split('\n')) {
    if (!line) continue;
    const c = JSON.parse(line) as { kind: string; set: string; seed: number; protocol: string; method: string; metric: number; accuracy: number };
    if (c.kind !== 'peer' || c.set !== set || c.seed !== seed || c.protocol !== protocol) continue;
    const v = c[key];
    if (Number.isFinite(v) && (!best || v > best.value)) best = { peer: c.method, value: v };
  }
  return best;
}

interface Row {
  set: string;
  seed: number;
  learner: string;
  protocol: 'labeled' | 'hide';
  trainRows: number;
  /** The defaults' budget: T, or FRS3VM's epochs. */
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
  /** `git rev-parse HEAD:src` of the run. */
  srcTree?: string;
}

const keyOf = (r: Pick<Row, 'set' | 'seed' | 'learner'>) => `${r.set}|${r.seed}|${r.learner}`;
/** Rows in the benchmark's order of sets, then learners, then seeds. */
const setOrder = (set: string) => SETS.findIndex((s) => s.name === set);
const learnerOrder = (l: string) => [...BINARY_LEARNERS, ...ORDINAL_LEARNERS].indexOf(l);
const byOrder = (a: Row, b: Row) => setOrder(a.set) - setOrder(b.set) || learnerOrder(a.learner) - learnerOrder(b.learner) || a.seed - b.seed;
/** The results file's rows and commands before this run. */
const saved = (existsSync(OUT) ? JSON.parse(readFileSync(OUT, 'utf8')) : {}) as { rows?: Row[]; commands?: string[] };
const before = { rows: saved.rows ?? [], commands: saved.commands ?? [] };

const command = `npx tsx bench/opt-gap.ts ${process.argv.slice(2).join(' ')}`.trim();
const commands = [...before.commands.filter((c) => c !== command), command];
const srcTree = srcTreeOf(REPO);
const rows: Row[] = [];
/** This run's rows with the earlier ones it did not measure again. */
const allRows = (): Row[] => {
  const measured = new Set(rows.map(keyOf));
  return [...before.rows.filter((r) => !measured.has(keyOf(r))), ...rows].sort(byOrder);
};
for (const seed of seeds) {
  for (const set of opt.sets!.split(',')) {
    const { path, task } = benchSet(set);
    const raw = await readDataset(join(REPO, path));
    for (const learner of learners.filter((l) => (task === 'ordinal' ? ORDINAL_LEARNERS : BINARY_LEARNERS).includes(l))) {
      const protocol = HIDE_LEARNERS.has(learner) ? 'hide' : 'labeled';
      const { train: tr, test } = qualitySplit(raw, set, protocol, seed);
      const t0 = performance.now();
      const def = await train({ learner, data: tr, seed, onWarning: () => {} });
      const t1 = performance.now();
      const hp = def.header.hyperparameters;
      // The same σ (the default's rule), C and C′ and every other setting: only the budget differs.
      const { budget: longT, settings } = longRun(learner, hp, longFactor);
      const long = await train({ learner, data: tr, seed, ...settings, onWarning: () => {} });
      const t2 = performance.now();
      const row: Row = {
        set,
        seed,
        learner,
        protocol,
        trainRows: tr.n,
        T: (learner === 'frs3vm' ? hp.epochs : hp.T) as number,
        defaults: await measure(def, test, learner, task),
        long: await measure(long, test, learner, task),
        longT,
        optimiser: 0,
        seconds: { defaults: (t1 - t0) / 1000, long: (t2 - t1) / 1000 },
        srcTree,
      };
      row.optimiser = row.long - row.defaults;
      if (learner === 'qsg-s2auc' && tr.n <= exactMax) {
        const e0 = performance.now();
        const exact = await train({ learner: 'exact-s2auc', data: tr, kernel: hp.kernel, sigma: hp.sigma, lambda: hp.lambda, gamma: hp.gamma, onWarning: () => {} });
        row.exact = await measure(exact, test, learner, task);
        row.seconds.exact = (performance.now() - e0) / 1000;
      }
      const peer = bestPeer(set, seed, learner, protocol);
      if (peer) {
        row.peer = peer.peer;
        row.bestPeer = peer.value;
        row.method = peer.value - (row.exact ?? row.long);
      }
      rows.push(row);
      console.log(JSON.stringify(row));
      // Written after every row: a stopped run keeps what it measured.
      writeBenchOutputs('opt-gap', { commands, longFactor, rows: allRows() });
    }
  }
}

const f3 = (v: number | undefined) => (v === undefined ? '—' : v.toFixed(3));
const s3 = (v: number | undefined) => (v === undefined ? '—' : `${v >= 0 ? '+' : '−'}${Math.abs(v).toFixed(3)}`);
const table = allRows();
console.log(
  markdownTable(
    table.map((r) => ({
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
  [...BINARY_LEARNERS, ...ORDINAL_LEARNERS].map((l) => {
    const rs = table.filter((r) => r.learner === l);
    return [l, rs.length ? { sets: rs.length, optimiser: mean(rs.map((r) => r.optimiser)), method: mean(rs.filter((r) => r.method !== undefined).map((r) => r.method!)) } : undefined];
  }),
);
console.log(byLearner);
writeBenchOutputs('opt-gap', { commands, longFactor, rows: table, byLearner });
