/**
 * Training benchmark: QSG-S2AUC end to end on the largest bundled dataset
 * (spam, 4,601 × 57; 200 labeled rows, 20% held out) with 1 … N+1 evaluation
 * threads. Reports wall time, speedup over 1 thread, held-out AUC, and checks
 * every thread count produced the same model bits. Also trains the supervised
 * DSG baseline and, on a 1,500-row subsample, the exact O(n³) solution, so the
 * table reads as "what you get, and what it costs".
 *
 * Writes bench/results/train-scaling.json and train-scaling.svg.
 *
 * @example
 * // npm run bench:train            (defaults: T = 400, B = 64, m = 64)
 * // npx tsx bench/train-scaling.ts 800
 */
import { cpus, loadavg } from 'node:os';
import { availableCores } from '../src/engine/cores.ts';
import { readDataset, splitDataset, MinMaxScaler, selectRows } from '../src/data/index.ts';
import { train } from '../src/api.ts';
import { exactQsgS2auc } from '../src/learners/exact.ts';
import { evaluateExpansion } from '../src/features/kernel-expansion.ts';
import { kernelScale0, resolveParams } from '../src/api.ts';
import { learnerSpec } from '../src/learners/registry.ts';

const DEFAULTS = resolveParams(learnerSpec('qsg-s2auc'), {}) as { T: number; lambda: number; gamma: number; sigma?: number; batchSize: number; m: number };
import { auc } from '../src/metrics/auc.ts';
import { lineChartSvg, markdownTable, writeBenchOutputs } from './lib/index.ts';

const T = Number(process.argv[2] ?? DEFAULTS.T);
const cores = availableCores();
const raw = await readDataset('data/spam.arrow');
const { train: tr, test } = splitDataset(raw, { labeled: 200, test: 0.2, seed: 1 });
if (!test) throw new Error('no test split');
const common = { data: tr, T, seed: 1 } as const;

const rows: Array<Record<string, string | number>> = [];
let reference: Buffer | undefined;
let base = 0;
for (const threads of [...Array.from({ length: cores }, (_, i) => i + 1), cores + 1]) {
  const t0 = performance.now();
  const model = await train({ learner: 'qsg-s2auc', ...common, threads });
  const seconds = (performance.now() - t0) / 1000;
  const bits = Buffer.from(model.toBytes());
  if (reference === undefined) reference = Buffer.from(bits);
  else if (!bits.equals(reference)) throw new Error(`bench:train: ${threads} threads trained a different model than 1 thread`);
  if (threads === 1) base = seconds;
  rows.push({ learner: 'qsg-s2auc', threads, seconds, speedup: base / seconds, 'held-out AUC': await model.score(test, { threads }) });
}
{
  const t0 = performance.now();
  const model = await train({ learner: 'dsg', ...common, threads: cores });
  rows.push({ learner: 'dsg (labeled only)', threads: cores, seconds: (performance.now() - t0) / 1000, speedup: NaN, 'held-out AUC': await model.score(test, { threads: cores }) });
}
{
  // The exact solution is O(n³): all 200 labeled rows plus 1,300 unlabeled ones.
  const labeled: number[] = [];
  const unlabeled: number[] = [];
  for (let i = 0; i < tr.n; i++) (tr.labeled[i] ? labeled : unlabeled).push(i);
  const sub = selectRows(tr, [...labeled, ...unlabeled.slice(0, 1300)]);
  const scaler = MinMaxScaler.fit(tr);
  const t0 = performance.now();
  // σ as train's default picks it: the median heuristic over the scaled training rows.
  const exact = exactQsgS2auc(scaler.transform(sub), 1, { lambda: DEFAULTS.lambda, gamma: DEFAULTS.gamma, kernel: { kind: 'rbf', sigma: DEFAULTS.sigma ?? kernelScale0(scaler.transform(tr)) } });
  const te = scaler.transform(test);
  const value = auc(te.y, evaluateExpansion(exact, te.X, te.n));
  rows.push({ learner: 'exact O(n³), n = 1500', threads: 1, seconds: (performance.now() - t0) / 1000, speedup: NaN, 'held-out AUC': value });
}

const meta = { dataset: 'data/spam.arrow', labeled: 200, testFraction: 0.2, T, batchSize: DEFAULTS.batchSize, m: DEFAULTS.m, cores, cpu: cpus()[0]?.model, loadavg: loadavg(), date: new Date().toISOString() };
console.log(`spam: ${tr.n} training rows (200 labeled), ${test.n} held out; T = ${T}, B = ${DEFAULTS.batchSize}, m = ${DEFAULTS.m}; ${cores} cores`);
console.log(markdownTable(rows, { digits: 4 }));
const q = rows.filter((r) => r.learner === 'qsg-s2auc');
const svg = lineChartSvg({
  title: `QSG-S2AUC training on spam (T=${T}), wall time by threads`,
  xLabel: 'evaluation threads',
  yLabel: 'speedup over 1 thread',
  xIntegers: true,
  series: [{ name: 'training speedup', points: q.map((r) => [Number(r.threads), Number(r.speedup)] as [number, number]) }],
  referenceLine: { name: 'ideal (one per core)', points: q.map((r) => [Number(r.threads), Math.min(Number(r.threads), cores)] as [number, number]) },
});
const paths = writeBenchOutputs('train-scaling', { ...meta, rows }, svg);
console.log(`wrote ${paths.json} and ${paths.svg}`);
