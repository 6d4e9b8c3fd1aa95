/**
 * Data larger than memory (issue 12): peak RSS, as the OS measures it
 * (`/usr/bin/time`'s "maximum resident set size"), CPU and wall time of the
 * compiled CLI (`node bin/dsgkit.js`, so run `npm run build` first) on files
 * written by `dsgkit generate` (noisy XOR, d = 20, 200 labeled rows) in the
 * prefix-stable layout (`--labeled-within MID`): the small file IS the first
 * MID rows of the big one, labeled rows included, so the two runs below differ
 * only in the unlabeled rows they may draw.
 *
 * - `train` QSG-S2AUC (T iterations, 2 threads) by sample on read on the big
 *   file (default 20M rows) against `train --in-memory` on its first MID rows
 *   (default 2M), with the same run seed, for each of `--seeds` (default
 *   1,2,3); both models' held-out AUC on one labeled test file (default
 *   10,000 rows, another seed). A run's draws of labeled rows are the same on
 *   both files (same sampling stream, same labeled rows); its unlabeled draws
 *   are other rows of the same distribution (an index into 20M rows, not 2M),
 *   and the median heuristic's σ₀ sample too. So the paired difference per
 *   seed, against the spread between seeds on one file, says whether reading
 *   a sample of the big file changes anything beyond which unlabeled rows are
 *   drawn;
 * - `predict`, streamed and in memory (the whole file read into one matrix,
 *   scored, the same output written), like for like on the big file when the
 *   in-memory path fits in half the available memory (else on the MID file),
 *   `--reps` times each, interleaved; peak RSS, wall and CPU (user + sys)
 *   time. The model has `--predict-T` iterations (default 2) because scoring
 *   costs O(T) a row (20M rows × T = 1,000 would take hours on 2 cores) and
 *   neither memory nor the streaming overhead depends on T (a short model
 *   makes reading and writing, where streaming could lose, the larger share).
 *   `--only predict` runs this comparison alone on a MID-row file
 *   (bigdata-predict.json);
 *   `--sigma V` fixes the kernel σ of every run instead (then the runs differ
 *   in their unlabeled draws alone);
 * - the wall time of `train` on the papers' largest shape (default 5M × 18;
 *   `--paper 0` skips it).
 *
 * Every row records the 1-minute load average when its step started: the
 * machine is shared, and the wall times move with it.
 * Checks the free disk space first, and deletes the generated files at the end.
 * Writes bench/results/bigdata.json and bigdata.svg (held-out AUC by seed),
 * bigdata-predict.json and bigdata-predict.svg (rows/s).
 *
 * @example
 * // npm run build && npm run bench:bigdata
 * // npx tsx bench/bigdata.ts --rows 200000 --mid 20000 --paper 0 --test 2000 -T 50 --seeds 1,2   (a quick check)
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statfsSync, statSync } from 'node:fs';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { mean, median, sampleSd as sd } from '../src/metrics/index.ts';
import { availableMemory } from '../src/sample-plan.ts';
import { dotPlotSvg, markdownTable, writeBenchOutputs, type DotGroup } from './lib/index.ts';

const { values } = parseArgs({
  options: {
    rows: { type: 'string', default: '20000000' },
    mid: { type: 'string', default: '2000000' },
    paper: { type: 'string', default: '5000000' },
    test: { type: 'string', default: '10000' },
    T: { type: 'string', short: 'T', default: '1000' },
    seeds: { type: 'string', default: '1,2,3' },
    sigma: { type: 'string' },
    'predict-T': { type: 'string', default: '2' },
    reps: { type: 'string', default: '2' },
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
const SEEDS = values.seeds.split(',').map(Number);
/** A fixed kernel σ for every training run; default: each file's median heuristic σ₀ (from 1,000 rows of that file, so the two files' σ₀ differ a little). */
const SIGMA = values.sigma;
const PREDICT_T = Number(values['predict-T']);
const REPS = Number(values.reps);
const D = 20;
const THREADS = 2;
const LABELED = 200;
if (!(MID <= N) || SEEDS.some((s) => !Number.isInteger(s)) || !(REPS >= 1)) throw new Error('bench:bigdata: need --mid ≤ --rows, whole --seeds, --reps ≥ 1');

/** Bytes of an Arrow file of n rows × d float64 features and a float64 label, with a margin for metadata. */
const fileBytes = (n: number, d: number) => n * (d + 1) * 8 * 1.02;
/** Peak bytes of the in-memory predict path: the file's matrix, its scaled copy, labels, scores and the output. */
const inMemoryPredictBytes = (n: number, d: number) => n * (2 * d * 8 + 6 * 8);
const work = values.dir ?? mkdtempSync(join(tmpdir(), 'dsgkit-bigdata-'));
mkdirSync(work, { recursive: true });
const need = (ONLY_PREDICT ? 0 : fileBytes(N, D) + fileBytes(PAPER, 18)) + fileBytes(MID, D) + fileBytes(TEST, D) + 2 * 8 * 4 * Math.max(N, MID); // + score files
const { bavail, bsize } = statfsSync(work);
if (bavail * bsize < need * 1.1) throw new Error(`bench:bigdata: ${work} has ${(bavail * bsize / 1e9).toFixed(1)} GB free, the files need ${(need / 1e9).toFixed(1)} GB`);

interface Measured {
  readonly maxRssMB: number;
  readonly wallS: number;
  /** User + system CPU seconds of the process and its threads. */
  readonly cpuS: number;
  /** 1-minute load average when the step started. */
  readonly load: number;
  readonly out: string;
}

/** Runs `node bin/dsgkit.js …args` (or `node …args` with `script`) under /usr/bin/time: peak RSS (the kernel's figure), wall and CPU time. */
function measure(args: readonly string[], script = false): Measured {
  const timing = join(work, 'time.txt');
  const load = loadavg()[0];
  const argv = ['-f', '%M %e %U %S', '-o', timing, process.execPath, ...(script ? [] : ['bin/dsgkit.js']), ...args];
  const r = spawnSync('/usr/bin/time', argv, { encoding: 'utf8', maxBuffer: 64 * 2 ** 20 });
  if (r.error) throw new Error(`bench:bigdata: cannot run /usr/bin/time (apt-get install time): ${r.error.message}`);
  if (r.status !== 0) throw new Error(`bench:bigdata: ${args.join(' ')} exited ${r.status}:\n${r.stderr}`);
  const [kb, wall, user, sys] = readFileSync(timing, 'utf8').trim().split('\n').at(-1)!.split(' ').map(Number);
  return { maxRssMB: kb / 1024, wallS: wall, cpuS: +(user + sys).toFixed(2), load: +load.toFixed(2), out: r.stdout };
}

const path = (name: string) => join(work, name);
/** A generated file: the prefix-stable layout with the labeled rows in the first `within` rows, or (no `within`) a test file, every row labeled. */
const generate = (name: string, rows: number, dim: number, seed: number, within?: number) =>
  measure(['generate', '--out', path(name), '--rows', String(rows), '--dim', String(dim), '--seed', String(seed),
    ...(within !== undefined ? ['--labeled', String(LABELED), '--labeled-within', String(within)] : ['--labeled', String(rows)])]);
const aucOf = (model: string) => JSON.parse(measure(['evaluate', '--model', path(model), '--data', path('test.arrow'), '--threads', String(THREADS), '--json', '--quiet']).out).auc as number;
const sigmaOf = (model: string) => (JSON.parse(measure(['describe', path(model), '--json']).out) as { hyperparameters: { sigma: number } }).hyperparameters.sigma;

const rows: Array<Record<string, string | number>> = [];
const note = (step: string, m: Measured, extra: Record<string, string | number> = {}) => {
  rows.push({ step, 'peak RSS (MB)': Math.round(m.maxRssMB), 'wall (s)': m.wallS, 'CPU (s)': m.cpuS, load: m.load, ...extra });
  console.error(`${step}: ${Math.round(m.maxRssMB)} MB, ${m.wallS} s wall, ${m.cpuS} s CPU, load ${m.load} ${JSON.stringify(extra)}`);
};

const r4 = (x: number) => +x.toFixed(4);

/**
 * Predict on one file, streamed (the CLI) and in memory (the whole file read
 * into one matrix, scored, written the same way), `REPS` times each,
 * interleaved; rates from the median wall time of each.
 */
function predictComparison(data: string, n: number): { streamed: Measured[]; inMemory: Measured[]; streamedRate: number; inMemoryRate: number } {
  const script = `
    const { load, readDataset, writeBatchesStreaming } = await import(${JSON.stringify(join(process.cwd(), 'dist/src/index.js'))});
    const { predictionBatches } = await import(${JSON.stringify(join(process.cwd(), 'dist/src/cli/commands/predict.js'))});
    const model = await load(${JSON.stringify(path('small.dsg'))});
    const ds = await readDataset(${JSON.stringify(path(data))}, model.readOptions());
    const f = await model.decisionFunction(ds, { threads: ${THREADS} });
    await writeBatchesStreaming(${JSON.stringify(path('scores.arrow'))}, predictionBatches(f, model.labelsFromScores(f), { name: ds.labelName, values: ds.y }), 'file');`;
  const streamed: Measured[] = [];
  const inMemory: Measured[] = [];
  for (let rep = 1; rep <= REPS; rep++) {
    const s = measure(['predict', '--model', path('small.dsg'), '--data', path(data), '--out', path('scores.arrow'), '--threads', String(THREADS), '--quiet']);
    rmSync(path('scores.arrow'), { force: true });
    note(`predict streamed, ${n} rows, run ${rep} (model T = ${PREDICT_T})`, s, { 'rows/s': Math.round(n / s.wallS) });
    const m = measure(['--input-type=module', '-e', script], true);
    rmSync(path('scores.arrow'), { force: true });
    note(`predict in memory, ${n} rows, run ${rep} (read, score, write)`, m, { 'rows/s': Math.round(n / m.wallS) });
    streamed.push(s);
    inMemory.push(m);
  }
  return { streamed, inMemory, streamedRate: n / median(streamed.map((m) => m.wallS)), inMemoryRate: n / median(inMemory.map((m) => m.wallS)) };
}

/** The predict part of the results: targets, JSON and the rows/s chart. */
function predictResults(p: ReturnType<typeof predictComparison>, n: number) {
  const rate = (ms: readonly Measured[]) => ms.map((m) => n / m.wallS);
  const cpuShare = median(p.inMemory.map((m) => m.cpuS)) / median(p.streamed.map((m) => m.cpuS));
  const targets = {
    predictPeakRssMB: { measured: Math.round(Math.max(...p.streamed.map((m) => m.maxRssMB))), target: '< 300', met: Math.max(...p.streamed.map((m) => m.maxRssMB)) < 300 },
    predictRateShare: { measured: +(p.streamedRate / p.inMemoryRate).toFixed(3), target: '≥ 0.8 of the in-memory rows/s (median wall of each, same file)', met: p.streamedRate >= 0.8 * p.inMemoryRate },
    predictCpuShare: { measured: +cpuShare.toFixed(3), note: 'in-memory CPU seconds over streamed CPU seconds (medians): the rate share with the other jobs on the machine taken out' },
  };
  const svg = dotPlotSvg({
    title: `predict on ${n.toLocaleString('en-US')} rows (T = ${PREDICT_T} model): streamed vs in memory, mean ± sd of ${REPS}`,
    xLabel: 'rows per second (wall)',
    groups: [{ name: 'predict', rows: [{ series: 'streamed', mean: mean(rate(p.streamed)), sd: sd(rate(p.streamed)) }, { series: 'in memory', mean: mean(rate(p.inMemory)), sd: sd(rate(p.inMemory)) }] }],
  });
  return { targets, svg };
}

const trainArgs = (data: string, out: string, t: number, seed: number, how: string) =>
  ['train', '--learner', 'qsg-s2auc', '--data', path(data), '--out', path(out), '--iterations', String(t), '--threads', String(THREADS), '--seed', String(seed), '--quiet', how, ...(SIGMA !== undefined ? ['--sigma', SIGMA] : [])];
const machine = () => ({ cores: cpus().length, cpu: cpus()[0]?.model, memoryGB: +(totalmem() / 1e9).toFixed(1), loadavg: loadavg(), date: new Date().toISOString() });

try {
  if (ONLY_PREDICT) {
    note(`generate ${MID} × ${D}`, generate('mid.arrow', MID, D, 1, MID));
    measure(trainArgs('mid.arrow', 'small.dsg', PREDICT_T, 1, '--in-memory'));
    const p = predictComparison('mid.arrow', MID);
    const { targets, svg } = predictResults(p, MID);
    console.log(markdownTable(rows, { digits: 4 }));
    console.log(JSON.stringify(targets, null, 2));
    const paths = writeBenchOutputs('bigdata-predict', { rows: MID, d: D, predictT: PREDICT_T, threads: THREADS, reps: REPS, ...machine(), note: 'process wall and CPU times on a shared machine: noisy; load = 1-minute load average at the start of each step', targets, steps: rows }, svg);
    console.log(`wrote ${paths.json} and ${paths.svg}`);
  } else fullRun();
} finally {
  if (values.dir === undefined) rmSync(work, { recursive: true, force: true });
  else for (const f of ['big.arrow', 'mid.arrow', 'test.arrow', 'paper.arrow', 'scores.arrow', 'time.txt']) rmSync(path(f), { force: true });
}

/** Train (sample on read against in memory, by seed), predict and the paper's shape: bigdata.json and bigdata-predict.json. */
function fullRun(): void {
  note(`generate ${N} × ${D} (labeled rows within the first ${MID})`, generate('big.arrow', N, D, 1, MID), { 'file (GB)': +(statSync(path('big.arrow')).size / 1e9).toFixed(2) });
  note(`generate ${MID} × ${D} (= the first ${MID} rows of the big file)`, generate('mid.arrow', MID, D, 1, MID));
  note(`generate test ${TEST} × ${D}`, generate('test.arrow', TEST, D, 2));

  const runs: Array<{ seed: number; big: Measured; mid: Measured; bigAuc: number; midAuc: number; bigSigma: number; midSigma: number }> = [];
  for (const seed of SEEDS) {
    const big = measure(trainArgs('big.arrow', 'big.dsg', T, seed, '--sample-on-read'));
    const bigAuc = aucOf('big.dsg');
    const bigSigma = sigmaOf('big.dsg');
    note(`train sample on read, ${N} rows, T = ${T}, seed ${seed}`, big, { 'held-out AUC': r4(bigAuc), σ: r4(bigSigma) });
    const mid = measure(trainArgs('mid.arrow', 'mid.dsg', T, seed, '--in-memory'));
    const midAuc = aucOf('mid.dsg');
    const midSigma = sigmaOf('mid.dsg');
    note(`train in memory, first ${MID} rows, T = ${T}, seed ${seed}`, mid, { 'held-out AUC': r4(midAuc), σ: r4(midSigma) });
    runs.push({ seed, big, mid, bigAuc, midAuc, bigSigma, midSigma });
  }
  const bigAucs = runs.map((r) => r.bigAuc);
  const midAucs = runs.map((r) => r.midAuc);
  const diffs = runs.map((r) => r.bigAuc - r.midAuc);
  const first = runs[0];

  // Predict: a model of PREDICT_T iterations, like for like on the big file when the in-memory path fits.
  measure(trainArgs('mid.arrow', 'small.dsg', PREDICT_T, 1, '--in-memory'));
  const likeForLike = inMemoryPredictBytes(N, D) < 0.5 * availableMemory();
  const predictRows = likeForLike ? N : MID;
  const p = predictComparison(likeForLike ? 'big.arrow' : 'mid.arrow', predictRows);
  const predict = predictResults(p, predictRows);

  rmSync(path('big.arrow'), { force: true });
  let paper: Measured | undefined;
  if (PAPER > 0) {
    note(`generate ${PAPER} × 18`, generate('paper.arrow', PAPER, 18, 1, PAPER));
    paper = measure(['train', '--learner', 'qsg-s2auc', '--data', path('paper.arrow'), '--out', path('paper.dsg'), '--iterations', String(T), '--threads', String(THREADS), '--seed', '1', '--quiet']);
    note(`train ${PAPER} × 18 (automatic path), T = ${T}`, paper);
  }

  const targets = {
    trainPeakRssMB: { measured: Math.round(Math.max(...runs.map((r) => r.big.maxRssMB))), target: '< 400', met: runs.every((r) => r.big.maxRssMB < 400) },
    aucDifference: {
      measured: r4(Math.abs(first.bigAuc - first.midAuc)),
      target: `≤ 0.003 (run seed ${first.seed}: sample on read on ${N} rows vs in memory on their first ${MID})`,
      met: Math.abs(first.bigAuc - first.midAuc) <= 0.003,
    },
    aucBySeed: {
      seeds: SEEDS,
      sampleOnRead: bigAucs.map(r4),
      inMemory: midAucs.map(r4),
      difference: diffs.map(r4),
      sampleOnReadMeanSd: [r4(mean(bigAucs)), r4(sd(bigAucs))],
      inMemoryMeanSd: [r4(mean(midAucs)), r4(sd(midAucs))],
      differenceMeanSd: [r4(mean(diffs)), r4(sd(diffs))],
      /** Paired t statistic of the differences (|t| well under 2 at 2 degrees of freedom: no evidence of a difference). */
      pairedT: diffs.length > 1 && sd(diffs) > 0 ? +(mean(diffs) / (sd(diffs) / Math.sqrt(diffs.length))).toFixed(2) : null,
    },
    ...predict.targets,
    predictOn: likeForLike ? `the ${N}-row file, both paths` : `the ${MID}-row file, both paths (the in-memory path on ${N} rows needs more than half the available memory)`,
    ...(paper ? { paperShapeWallS: { measured: paper.wallS } } : {}),
  };
  const meta = {
    rows: N, mid: MID, paper: PAPER, test: TEST, d: D, labeled: LABELED, labeledWithin: MID, T, seeds: SEEDS, sigma: SIGMA ?? 'median heuristic of each file', predictT: PREDICT_T, reps: REPS, threads: THREADS, ...machine(),
    note: 'peak RSS from /usr/bin/time (%M, the kernel\'s maxrss of the process and its worker threads), CPU = user + sys; timings on a shared machine are noisy; load = 1-minute load average at the start of each step',
  };
  console.log(markdownTable(rows, { digits: 4 }));
  console.log(JSON.stringify(targets, null, 2));
  const series = [`sample on read, ${N / 1e6}M rows`, `in memory, first ${MID / 1e6}M rows`];
  const groups: DotGroup[] = [
    { name: `mean ± sd, ${SEEDS.length} seeds`, rows: [{ series: series[0], mean: mean(bigAucs), sd: sd(bigAucs) }, { series: series[1], mean: mean(midAucs), sd: sd(midAucs) }] },
    ...runs.map((r) => ({ name: `run seed ${r.seed}`, rows: [{ series: series[0], mean: r.bigAuc }, { series: series[1], mean: r.midAuc }] })),
  ];
  const svg = dotPlotSvg({ title: `QSG-S2AUC, T = ${T}: held-out AUC, ${N.toLocaleString('en-US')} rows by sample on read vs their first ${MID.toLocaleString('en-US')} in memory`, xLabel: 'held-out AUC', groups });
  const paths = writeBenchOutputs('bigdata', { ...meta, targets, steps: rows }, svg);
  const pPaths = writeBenchOutputs('bigdata-predict', { rows: predictRows, d: D, predictT: PREDICT_T, threads: THREADS, reps: REPS, ...machine(), note: meta.note, targets: predict.targets, steps: rows.filter((r) => String(r.step).startsWith('predict')) }, predict.svg);
  console.log(`wrote ${paths.json}, ${paths.svg}, ${pPaths.json} and ${pPaths.svg}`);
}
