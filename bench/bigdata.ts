/**
 * Data larger than memory (issue 12): peak RSS, as the OS measures it
 * (`/usr/bin/time`'s "maximum resident set size"), and wall time of the
 * compiled CLI (`node bin/dsgkit.js`, so run `npm run build` first) on files
 * written by `dsgkit generate` (noisy XOR, d = 20, 200 labeled rows):
 *
 * - `train` QSG-S2AUC (T iterations, 2 threads) by sample on read on the big
 *   file (default 20M rows) against `train --in-memory` on a file a tenth its
 *   size (default 2M rows) from the same generator; both models' held-out AUC
 *   on one labeled test file (default 10,000 rows, another seed);
 * - `predict` streamed on the big file (peak RSS, rows/s), and its rows/s
 *   against the in-memory path (the whole file read into one matrix, scored,
 *   the same output written) on the smaller file, both as process wall time;
 *   the model has `--predict-T` iterations (default 2) because scoring costs
 *   O(T) a row (20M rows × T = 1,000 would take hours on 2 cores) and neither
 *   memory nor the streaming overhead depends on T (a short model makes
 *   reading and writing, where streaming could lose, the larger share);
 *   `--only predict` runs this comparison alone (bigdata-predict.json);
 * - the wall time of `train` on the papers' largest shape (default 5M × 18).
 *
 * Checks the free disk space first, and deletes the generated files at the end.
 * Writes bench/results/bigdata.json and bigdata.svg.
 *
 * @example
 * // npm run build && npm run bench:bigdata
 * // npx tsx bench/bigdata.ts --rows 200000 --mid 20000 --paper 50000 --test 2000 -T 50   (a quick check)
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statfsSync, statSync } from 'node:fs';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { dotPlotSvg, markdownTable, writeBenchOutputs } from './lib/index.ts';

const { values } = parseArgs({
  options: {
    rows: { type: 'string', default: '20000000' },
    mid: { type: 'string', default: '2000000' },
    paper: { type: 'string', default: '5000000' },
    test: { type: 'string', default: '10000' },
    T: { type: 'string', short: 'T', default: '1000' },
    'predict-T': { type: 'string', default: '2' },
    dir: { type: 'string' },
    only: { type: 'string' },
  },
});
/** `--only predict`: the predict comparison alone (no big file), written to bigdata-predict.json. */
const ONLY_PREDICT = values.only === 'predict';
if (values.only !== undefined && !ONLY_PREDICT) throw new Error(`bench:bigdata: --only takes 'predict', got ${values.only}`);
const N = Number(values.rows);
const MID = Number(values.mid);
const PAPER = Number(values.paper);
const TEST = Number(values.test);
const T = Number(values.T);
const PREDICT_T = Number(values['predict-T']);
const D = 20;
const THREADS = 2;

/** Bytes of an Arrow file of n rows × d float64 features and a float64 label, with a margin for metadata. */
const fileBytes = (n: number, d: number) => n * (d + 1) * 8 * 1.02;
const work = values.dir ?? mkdtempSync(join(tmpdir(), 'dsgkit-bigdata-'));
mkdirSync(work, { recursive: true });
const need = (ONLY_PREDICT ? 0 : fileBytes(N, D)) + fileBytes(MID, D) + fileBytes(PAPER, 18) + fileBytes(TEST, D) + 2 * 8 * 4 * Math.max(N, MID); // + score files
const { bavail, bsize } = statfsSync(work);
if (bavail * bsize < need * 1.1) throw new Error(`bench:bigdata: ${work} has ${(bavail * bsize / 1e9).toFixed(1)} GB free, the files need ${(need / 1e9).toFixed(1)} GB`);

interface Measured {
  readonly maxRssMB: number;
  readonly wallS: number;
  readonly out: string;
}

/** Runs `node bin/dsgkit.js …args` (or `node …args` with `script`) under /usr/bin/time: peak RSS (the kernel's figure) and wall time. */
function measure(args: readonly string[], script = false): Measured {
  const timing = join(work, 'time.txt');
  const argv = ['-f', '%M %e', '-o', timing, process.execPath, ...(script ? [] : ['bin/dsgkit.js']), ...args];
  const r = spawnSync('/usr/bin/time', argv, { encoding: 'utf8', maxBuffer: 64 * 2 ** 20 });
  if (r.error) throw new Error(`bench:bigdata: cannot run /usr/bin/time (apt-get install time): ${r.error.message}`);
  if (r.status !== 0) throw new Error(`bench:bigdata: ${args.join(' ')} exited ${r.status}:\n${r.stderr}`);
  const [kb, wall] = readFileSync(timing, 'utf8').trim().split('\n').at(-1)!.split(' ').map(Number);
  return { maxRssMB: kb / 1024, wallS: wall, out: r.stdout };
}

const path = (name: string) => join(work, name);
const generate = (name: string, rows: number, dim: number, labeled: number, seed: number) =>
  measure(['generate', '--out', path(name), '--rows', String(rows), '--dim', String(dim), '--labeled', String(labeled), '--seed', String(seed)]);
const aucOf = (model: string) => JSON.parse(measure(['evaluate', '--model', path(model), '--data', path('test.arrow'), '--threads', String(THREADS), '--json', '--quiet']).out).auc as number;

const rows: Array<Record<string, string | number>> = [];
const note = (step: string, m: Measured, extra: Record<string, string | number> = {}) => {
  rows.push({ step, 'peak RSS (MB)': Math.round(m.maxRssMB), 'wall (s)': m.wallS, ...extra });
  console.error(`${step}: ${Math.round(m.maxRssMB)} MB, ${m.wallS} s ${JSON.stringify(extra)}`);
};

/** Predict, streamed (the CLI) and in memory (the whole file read into one matrix, scored, written the same way), on one file, process wall times both. */
function predictPair(data: string, rowsIn: number): { streamed: Measured; inMemory: Measured; streamedRate: number; inMemoryRate: number } {
  const streamed = measure(['predict', '--model', path('small.dsg'), '--data', path(data), '--out', path('scores.arrow'), '--threads', String(THREADS), '--quiet']);
  rmSync(path('scores.arrow'), { force: true });
  const script = `
    const { load, readDataset, writeBatchesStreaming } = await import(${JSON.stringify(join(process.cwd(), 'dist/src/index.js'))});
    const { predictionBatches } = await import(${JSON.stringify(join(process.cwd(), 'dist/src/cli/commands/predict.js'))});
    const model = await load(${JSON.stringify(path('small.dsg'))});
    const ds = await readDataset(${JSON.stringify(path(data))}, model.readOptions());
    const f = await model.decisionFunction(ds, { threads: ${THREADS} });
    await writeBatchesStreaming(${JSON.stringify(path('scores.arrow'))}, predictionBatches(f, model.labelsFromScores(f), { name: ds.labelName, values: ds.y }), 'file');`;
  const inMemory = measure(['--input-type=module', '-e', script], true);
  rmSync(path('scores.arrow'), { force: true });
  return { streamed, inMemory, streamedRate: rowsIn / streamed.wallS, inMemoryRate: rowsIn / inMemory.wallS };
}

const trainArgs = (data: string, out: string, t: number, how: string) => ['train', '--learner', 'qsg-s2auc', '--data', path(data), '--out', path(out), '--iterations', String(t), '--threads', String(THREADS), '--seed', '1', '--quiet', how];

try {
  if (ONLY_PREDICT) {
    note(`generate ${MID} × ${D}`, generate('mid.arrow', MID, D, 200, 1));
    measure(trainArgs('mid.arrow', 'small.dsg', PREDICT_T, '--in-memory'));
    const p = predictPair('mid.arrow', MID);
    note(`predict streamed, ${MID} rows (model T = ${PREDICT_T})`, p.streamed, { 'rows/s': Math.round(p.streamedRate) });
    note(`predict in memory, ${MID} rows (read, score, write)`, p.inMemory, { 'rows/s': Math.round(p.inMemoryRate) });
    const targets = { predictRateShare: { measured: +(p.streamedRate / p.inMemoryRate).toFixed(3), target: '≥ 0.8 of the in-memory rows/s', met: p.streamedRate >= 0.8 * p.inMemoryRate } };
    console.log(markdownTable(rows, { digits: 4 }));
    console.log(JSON.stringify(targets, null, 2));
    const paths = writeBenchOutputs('bigdata-predict', { mid: MID, d: D, predictT: PREDICT_T, threads: THREADS, cores: cpus().length, cpu: cpus()[0]?.model, loadavg: loadavg(), date: new Date().toISOString(), note: 'process wall times on a shared machine: noisy', targets, rows }, dotPlotSvg({
      title: `predict on ${MID.toLocaleString('en-US')} rows: streamed vs in memory`,
      xLabel: 'rows per second',
      groups: [{ name: 'predict', rows: [{ series: 'streamed', mean: p.streamedRate }, { series: 'in memory', mean: p.inMemoryRate }] }],
    }));
    console.log(`wrote ${paths.json} and ${paths.svg}`);
    process.exit(0);
  }
  note(`generate ${N} × ${D}`, generate('big.arrow', N, D, 200, 1), { 'file (GB)': +(statSync(path('big.arrow')).size / 1e9).toFixed(2) });
  note(`generate ${MID} × ${D}`, generate('mid.arrow', MID, D, 200, 1));
  note(`generate test ${TEST} × ${D}`, generate('test.arrow', TEST, D, TEST, 2));

  const big = measure(trainArgs('big.arrow', 'big.dsg', T, '--sample-on-read'));
  const bigAuc = aucOf('big.dsg');
  note(`train sample on read, ${N} rows, T = ${T}`, big, { 'held-out AUC': bigAuc });
  const mid = measure(trainArgs('mid.arrow', 'mid.dsg', T, '--in-memory'));
  const midAuc = aucOf('mid.dsg');
  note(`train in memory, ${MID} rows, T = ${T}`, mid, { 'held-out AUC': midAuc });

  // Predict: a model of PREDICT_T iterations; streamed on the big file, in memory on the mid one.
  measure(trainArgs('mid.arrow', 'small.dsg', PREDICT_T, '--in-memory'));
  // RSS and rate streamed on the big file; the rate against the in-memory path on the mid file (both written, both process wall).
  const streamed = measure(['predict', '--model', path('small.dsg'), '--data', path('big.arrow'), '--out', path('big-scores.arrow'), '--threads', String(THREADS), '--quiet']);
  rmSync(path('big-scores.arrow'), { force: true });
  note(`predict streamed, ${N} rows (model T = ${PREDICT_T})`, streamed, { 'rows/s': Math.round(N / streamed.wallS) });
  const pair = predictPair('mid.arrow', MID);
  const { inMemory, streamedRate, inMemoryRate } = pair;
  note(`predict streamed, ${MID} rows`, pair.streamed, { 'rows/s': Math.round(streamedRate) });
  note(`predict in memory, ${MID} rows (read, score, write)`, inMemory, { 'rows/s': Math.round(inMemoryRate) });

  rmSync(path('big.arrow'), { force: true });
  note(`generate ${PAPER} × 18`, generate('paper.arrow', PAPER, 18, 200, 1));
  const paper = measure(['train', '--learner', 'qsg-s2auc', '--data', path('paper.arrow'), '--out', path('paper.dsg'), '--iterations', String(T), '--threads', String(THREADS), '--seed', '1', '--quiet']);
  note(`train ${PAPER} × 18 (automatic path), T = ${T}`, paper);

  const targets = {
    trainPeakRssMB: { measured: Math.round(big.maxRssMB), target: '< 400', met: big.maxRssMB < 400 },
    aucDifference: { measured: +Math.abs(bigAuc - midAuc).toFixed(4), target: '≤ 0.003', met: Math.abs(bigAuc - midAuc) <= 0.003 },
    predictPeakRssMB: { measured: Math.round(streamed.maxRssMB), target: '< 300', met: streamed.maxRssMB < 300 },
    predictRateShare: { measured: +(streamedRate / inMemoryRate).toFixed(3), target: '≥ 0.8 of the in-memory rows/s', met: streamedRate >= 0.8 * inMemoryRate },
    paperShapeWallS: { measured: paper.wallS },
  };
  const meta = {
    rows: N, mid: MID, paper: PAPER, test: TEST, d: D, labeled: 200, T, predictT: PREDICT_T, threads: THREADS,
    cores: cpus().length, cpu: cpus()[0]?.model, memoryGB: +(totalmem() / 1e9).toFixed(1), loadavg: loadavg(), date: new Date().toISOString(),
    note: 'peak RSS from /usr/bin/time (%M, the kernel\'s maxrss of the process and its worker threads); timings on a shared machine are noisy',
  };
  console.log(markdownTable(rows, { digits: 4 }));
  console.log(JSON.stringify(targets, null, 2));
  const svg = dotPlotSvg({
    title: `Peak RSS of train / predict: ${N.toLocaleString('en-US')} rows streamed vs ${MID.toLocaleString('en-US')} in memory`,
    xLabel: 'peak RSS (MB)',
    groups: [
      { name: 'train (QSG-S2AUC)', rows: [{ series: `sample on read, ${N / 1e6}M rows`, mean: big.maxRssMB }, { series: `in memory, ${MID / 1e6}M rows`, mean: mid.maxRssMB }] },
      { name: 'predict', rows: [{ series: `sample on read, ${N / 1e6}M rows`, mean: streamed.maxRssMB }, { series: `in memory, ${MID / 1e6}M rows`, mean: inMemory.maxRssMB }] },
    ],
  });
  const paths = writeBenchOutputs('bigdata', { ...meta, targets, rows }, svg);
  console.log(`wrote ${paths.json} and ${paths.svg}`);
} finally {
  if (values.dir === undefined) rmSync(work, { recursive: true, force: true });
  else for (const f of ['big.arrow', 'mid.arrow', 'test.arrow', 'paper.arrow', 'big-scores.arrow', 'time.txt']) rmSync(path(f), { force: true });
}
