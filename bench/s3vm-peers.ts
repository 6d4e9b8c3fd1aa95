/**
 * The semi-supervised SVM against its peers, on the papers' protocol: for each
 * dataset and seed, dsgkit's own split (200 labeled training rows, the other
 * training rows unlabeled, 20% of the rows held out, stratified), then
 *
 * - dsgkit `tsgs3vm` at its defaults (trained at 1 and at 2 threads: wall
 *   times, and the two model files must be the same bytes), `frs3vm` and
 *   supervised `dsg` at their defaults;
 * - scikit-learn's RBF `SVC` on the labeled rows (C and γ by 5-fold CV) and
 *   `SelfTrainingClassifier` around it (bench/peers/run_peers.py, copied from
 *   the peers branch; features scaled exactly as dsgkit scales them).
 *
 * Held-out accuracy, mean ± sd over the seeds. Writes
 * bench/results/s3vm-peers.json and s3vm-peers.svg.
 *
 * @example
 * // npx tsx bench/s3vm-peers.ts ../wt-peers/bench/data-public/{ionosphere,pima,musk,cells}.arrow data/breast_cancer.arrow
 * // options: --seeds 1,2,3  --python /usr/bin/python3
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { parseArgs } from 'node:util';
import { train } from '../src/api.ts';
import { MinMaxScaler, readDataset, splitDataset, type Dataset } from '../src/data/index.ts';
import { lineChartSvg, markdownTable, writeBenchOutputs } from './lib/index.ts';

const { values, positionals } = parseArgs({ allowPositionals: true, options: { seeds: { type: 'string', default: '1,2,3' }, python: { type: 'string', default: '/usr/bin/python3' } } });
const seeds = values.seeds!.split(',').map(Number);
const files = positionals.length > 0 ? positionals : ['data/breast_cancer.arrow'];
const tmp = mkdtempSync(join(tmpdir(), 'dsgkit-s3vm-peers-'));

/** Scaled rows as the CSV run_peers.py reads (empty label = unlabeled). */
function csv(ds: Dataset, scaler: MinMaxScaler, path: string): void {
  const X = scaler.transform(ds).X;
  const lines = [['label', ...Array.from({ length: ds.d }, (_, k) => `f${k + 1}`)].join(',')];
  for (let i = 0; i < ds.n; i++) {
    const row = Array.from(X.subarray(i * ds.d, (i + 1) * ds.d), (v) => String(v));
    lines.push([ds.labeled[i] ? String(ds.y[i]) : '', ...row].join(','));
  }
  writeFileSync(path, lines.join('\n') + '\n');
}

interface Result {
  dataset: string;
  method: string;
  seed: number;
  accuracy: number;
  seconds: number;
}
const results: Result[] = [];
const threadTimes: Array<{ dataset: string; seed: number; oneThread: number; twoThreads: number; sameBytes: boolean }> = [];

for (const file of files) {
  const name = basename(file, '.arrow');
  const raw = await readDataset(file);
  const splits: Array<{ seed: number; train: string; test: string }> = [];
  for (const seed of seeds) {
    const { train: tr, test } = splitDataset(raw, { labeled: 200, test: 0.2, seed });
    if (!test) throw new Error('no test split');
    const scaler = MinMaxScaler.fit(tr);
    const paths = { seed, train: join(tmp, `${name}-train-${seed}.csv`), test: join(tmp, `${name}-test-${seed}.csv`) };
    csv(tr, scaler, paths.train);
    csv(test, scaler, paths.test);
    splits.push(paths);

    const timed: Record<number, { seconds: number; bytes: Buffer }> = {};
    // 1 vs 2 threads on each dataset's first seed (wall time; the model bytes must agree).
    for (const threads of seed === seeds[0] ? [1, 2] : [2]) {
      const t0 = performance.now();
      const model = await train({ learner: 'tsgs3vm', data: tr, seed, threads });
      const seconds = (performance.now() - t0) / 1000;
      timed[threads] = { seconds, bytes: Buffer.from(model.toBytes()) };
      if (threads === 2) results.push({ dataset: name, method: 'dsgkit tsgs3vm', seed, accuracy: (await model.evaluate(test)).accuracy, seconds });
    }
    if (timed[1]) threadTimes.push({ dataset: name, seed, oneThread: timed[1].seconds, twoThreads: timed[2].seconds, sameBytes: timed[1].bytes.equals(timed[2].bytes) });
    for (const learner of ['frs3vm', 'dsg']) {
      const t0 = performance.now();
      const model = await train({ learner, data: tr, seed, threads: 2 });
      const seconds = (performance.now() - t0) / 1000;
      results.push({ dataset: name, method: `dsgkit ${learner}`, seed, accuracy: (await model.evaluate(test)).accuracy, seconds });
    }
    console.error(`${name} seed ${seed}: ${results.filter((r) => r.dataset === name && r.seed === seed).map((r) => `${r.method} ${r.accuracy.toFixed(4)}`).join(', ')}`);
  }
  const manifest = join(tmp, `${name}-manifest.json`);
  const out = join(tmp, `${name}-peers.json`);
  writeFileSync(manifest, JSON.stringify({ dataset: file, task: 'binary', unlabeledCap: 4000, peers: ['svc', 'self-training-svc'], splits }));
  execFileSync(values.python!, ['bench/peers/run_peers.py', manifest, out], { stdio: ['ignore', 'inherit', 'inherit'] });
  const peers = JSON.parse(readFileSync(out, 'utf8')) as { records: Array<{ method: string; seed: number; accuracy: number; seconds: number }> };
  for (const r of peers.records) results.push({ dataset: name, method: `sklearn ${r.method}`, seed: r.seed, accuracy: r.accuracy, seconds: r.seconds });
}

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const sd = (xs: number[]) => (xs.length < 2 ? 0 : Math.sqrt(xs.reduce((a, b) => a + (b - mean(xs)) ** 2, 0) / (xs.length - 1)));
const methods = [...new Set(results.map((r) => r.method))];
const datasets = [...new Set(results.map((r) => r.dataset))];
const summary = datasets.flatMap((dataset) =>
  methods.map((method) => {
    const rs = results.filter((r) => r.dataset === dataset && r.method === method);
    return { dataset, method, accuracy: mean(rs.map((r) => r.accuracy)), sd: sd(rs.map((r) => r.accuracy)), seconds: mean(rs.map((r) => r.seconds)) };
  }),
);
const gaps = datasets.map((dataset) => {
  const acc = (m: string) => summary.find((s) => s.dataset === dataset && s.method === m)!.accuracy;
  return { dataset, 'tsgs3vm − svc': acc('dsgkit tsgs3vm') - acc('sklearn svc'), 'tsgs3vm − self-training': acc('dsgkit tsgs3vm') - acc('sklearn self-training-svc') };
});
console.log(markdownTable(summary.map((s) => ({ dataset: s.dataset, method: s.method, accuracy: `${s.accuracy.toFixed(4)} ± ${s.sd.toFixed(4)}`, 'seconds / seed': s.seconds.toFixed(1) }))));
console.log(markdownTable(gaps.map((g) => Object.fromEntries(Object.entries(g).map(([k, v]) => [k, typeof v === 'number' ? v.toFixed(4) : v])))));
console.log(markdownTable(threadTimes.map((t) => ({ ...t, oneThread: t.oneThread.toFixed(1), twoThreads: t.twoThreads.toFixed(1), speedup: (t.oneThread / t.twoThreads).toFixed(2) }))));
const svg = lineChartSvg({
  title: 'held-out accuracy, 200 labeled rows (mean of seeds)',
  xLabel: 'dataset (index: ' + datasets.map((d, i) => `${i + 1} ${d}`).join(', ') + ')',
  yLabel: 'accuracy',
  series: methods.map((method) => ({ name: method, points: datasets.map((d, i) => [i + 1, summary.find((s) => s.dataset === d && s.method === method)!.accuracy] as const) })),
});
writeBenchOutputs('s3vm-peers', { seeds, labeled: 200, test: 0.2, loadavg: loadavg(), results, summary, gaps, threadTimes }, svg);
