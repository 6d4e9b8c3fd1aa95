/**
 * `tune` on a bundled dataset (default spam; 200 labeled rows, 20% held out,
 * seed 1): the CV table, what successive halving spent against a full grid
 * at T, wall time, the held-out metric of the refit winner, and a chart of the
 * halving rounds (every candidate's pooled out-of-fold score, round by round,
 * against the iterations it had reached; the winner marked).
 *
 * Writes bench/results/tune-<dataset>.json and .svg.
 *
 * @example
 * // npm run bench:tune                          (qsg-s2auc on data/spam.arrow)
 * // npx tsx bench/tune.ts data/breast_cancer.arrow dsg
 */
import { cpus, loadavg } from 'node:os';
import { availableCores } from '../src/engine/cores.ts';
import { basename, extname } from 'node:path';
import { readDataset, splitDataset } from '../src/data/index.ts';
import { tuneModel as tune } from '../src/tune.ts';
import { lineChartSvg, markdownTable, writeBenchOutputs } from './lib/index.ts';
import { tuneChartSpec } from '../src/report/tune-report.ts';

const path = process.argv[2] ?? 'data/spam.arrow';
const learner = process.argv[3] ?? 'qsg-s2auc';
const name = basename(path, extname(path));
const threads = availableCores();
const { train: tr, test } = splitDataset(await readDataset(path), { labeled: 200, test: 0.2, seed: 1 });
const t0 = performance.now();
const r = await tune({ learner, data: tr, seed: 1, threads, onProgress: () => undefined });
const seconds = (performance.now() - t0) / 1000;
const heldOut = await r.model.score(test!, { threads });

// Every setting's pooled out-of-fold score round by round, the winner marked (what `dsgkit tune --report` draws).
const svg = r.rounds.length > 0 ? lineChartSvg(tuneChartSpec(r, learner)) : undefined;

const rows = [...r.table].sort((a, b) => (b.t ?? 0) - (a.t ?? 0) || b.score - a.score).slice(0, 12).map((row) => ({ ...row.params, score: row.score, mean: row.mean, sd: row.sd, t: row.t ?? '—', status: row.status }));
console.log(markdownTable(rows, { digits: 4 }));
console.log(`${r.table.length} candidates × ${r.folds} folds; halving spent ${r.cost.halving} block evaluations per batch point = ${(100 * r.cost.fraction).toFixed(1)}% of a full grid at T (${r.cost.fullGrid}); refit ${r.cost.refit}`);
console.log(`wall ${seconds.toFixed(1)} s on ${threads} threads (load ${loadavg().map((x) => x.toFixed(1)).join(' ')}); held-out ${r.metric} of the refit winner ${heldOut.toFixed(4)}`);
writeBenchOutputs(`tune-${name}`, {
  meta: { dataset: path, learner, labeled: 200, testFraction: 0.2, seed: 1, threads, cpu: cpus()[0]?.model, loadavg: loadavg(), date: new Date().toISOString() },
  seconds, heldOut, best: r.best, sigma0: r.sigma0, cost: r.cost, rounds: r.rounds, table: r.table,
}, svg);
