/**
 * `scaling`: how a training run scales across thread counts, on the caller's
 * own data and learner. The same model is trained at each thread count (any
 * registered learner, through `train`, so learners added later need nothing
 * here); the model bytes must be the same at every count; the result has the
 * wall time, iterations per second, speedup and efficiency per count, and can
 * be printed as a table and drawn as an SVG chart (speedup against threads,
 * with the ideal line).
 */
import { cpus, loadavg } from 'node:os';
import { availableCores } from './engine/cores.ts';
import { createHash } from 'node:crypto';
import seedrandom from 'seedrandom';
import { UsageError } from './errors.ts';
import { toDataset, type ProfileReport, type RunOptions } from './api.ts';
import { trainModel } from './train/train.ts';
import { Evaluator } from './engine/evaluator.ts';
import { History } from './engine/history.ts';
import { EvaluatorPool } from './engine/pool.ts';
import { median } from './metrics/summary.ts';
import { learnerSpec } from './learners/registry.ts';
import { lineChartSvg, type LineChart } from './report/line-chart.ts';
import { dsgkitVersion } from './version.ts';
import { markdownTable } from './report/markdown-table.ts';
import { thousands } from './data/numbers.ts';

/** Options of {@link scaling}: `train`'s options (learner parameters by name), with a list of thread counts. */
export type ScalingOptions = Omit<RunOptions, 'threads' | 'init' | 'checkpointEvery' | 'onCheckpoint' | 'scaleInPlace' | 'onProfile'> & {
  /** Thread counts to train with, e.g. `[1, 2, 4, 8]` (counts above the cores are clamped to them, and a count met twice is run once). */
  readonly threads: readonly number[];
  /** Runs per thread count, in rounds that alternate the counts; the fastest is kept (default 1). */
  readonly repeats?: number;
  /** Profile each run of a loop learner (see `train`'s `onProfile`): each row then has the fastest run's profile. */
  readonly profile?: boolean;
  /** Measure the machine's ceiling at each count too (see {@link ScalingRow.ceiling}; default true). */
  readonly ceiling?: boolean;
  /** Called with each thread count's row once its runs are done (in the last round). */
  readonly onRow?: (row: ScalingRow) => void;
  /** Learner parameters by name (`T`, `m`, `seed`, …), as `train` takes them. */
  readonly [param: string]: unknown;
};

/** One thread count's measurement. */
export interface ScalingRow {
  readonly threads: number;
  /** Wall time of the whole `train` call (scaling, the loop or fit, thresholds), the fastest of the repeats, ms. */
  readonly wallMs: number;
  /** Every training's wall time at this count, in the order the rounds ran, ms (`repeats` of them): how much the machine moved. */
  readonly runsMs: readonly number[];
  /** Iterations T per second of wall time (absent for a learner without T). */
  readonly iterationsPerSecond?: number;
  /** Wall time at the smallest count over this wall time. */
  readonly speedup: number;
  /** Speedup over the ideal one (threads / smallest count). */
  readonly efficiency: number;
  /**
   * The machine's ceiling at this count: the speedup over the smallest count
   * of one long evaluation (a synthetic history of the run's d and m at many
   * points, so the threads never wait for each other), measured just before
   * the run, the two counts in alternating pairs. What the cores,
   * shared caches and neighbours on the machine allow the kernel; a training
   * run pays, on top, each iteration's synchronisation and serial steps.
   */
  readonly ceiling?: number;
  /** SHA-256 of the model file's bytes. */
  readonly sha256: string;
  /** Where the fastest run's loop time went, when profiled. */
  readonly profile?: ProfileReport;
}

/** What {@link scaling} measured. */
export interface ScalingResult {
  readonly learner: string;
  /** The model's hyperparameters (as its header has them). */
  readonly hyperparameters: Readonly<Record<string, unknown>>;
  /** Iterations T, when the learner has them. */
  readonly iterations?: number;
  /** The evaluation strategy a loop learner ran with (see `train`'s `evaluation`). */
  readonly evaluation?: string;
  readonly rows: readonly ScalingRow[];
  /** Whether every thread count produced the same model bytes. */
  readonly identical: boolean;
  /** Training rows. */
  readonly n: number;
  readonly d: number;
  /** The machine: cores available, CPU model, load averages when it started. */
  readonly machine: { readonly cores: number; readonly cpu: string; readonly loadavg: readonly number[] };
  readonly date: string;
}

/**
 * Trains the same model at each thread count and measures it.
 *
 * @example
 * const r = await scaling({ learner: 'qsg-s2auc', data: 'train.arrow', threads: [1, 2, 4], T: 400 });
 * console.log(scalingTable(r)); // threads | wall s | it/s | speedup | efficiency
 * if (!r.identical) throw new Error('models differ across thread counts');
 */
export async function scaling(opts: ScalingOptions): Promise<ScalingResult> {
  const { threads: requested, repeats = 1, onRow, profile, ceiling = true, ...trainOptions } = opts;
  if (!Array.isArray(requested) || requested.length === 0) throw new UsageError('threads must be a non-empty list of thread counts');
  for (const k of requested) if (!(Number.isSafeInteger(k) && k >= 1)) throw new UsageError(`threads: every count must be a whole number ≥ 1, got ${String(k)}`);
  if (!(Number.isSafeInteger(repeats) && repeats >= 1)) throw new UsageError(`repeats must be a whole number ≥ 1, got ${String(repeats)}`);
  if (trainOptions.learner === undefined) throw new UsageError('learner is required');
  const spec = learnerSpec(trainOptions.learner);
  if (profile && !spec.capabilities.profiles) throw new UsageError(`profile applies to learners on the stochastic loop only (${spec.name} is not)`);
  const cores = availableCores();
  const counts: number[] = [];
  for (const k of requested) {
    const used = Math.min(k, cores);
    if (used < k) trainOptions.onWarning?.(`threads = ${k} is more than the ${cores} cores available; measuring ${used}`);
    if (!counts.includes(used)) counts.push(used);
  }
  counts.sort((a, b) => a - b);
  // Read once: every run trains on the same rows (each scales its own copy).
  const data = await toDataset(trainOptions.data, 'data', trainOptions.read);
  const machine = { cores, cpu: cpus()[0]?.model ?? 'unknown', loadavg: loadavg() };
  const date = new Date().toISOString();
  const rows: ScalingRow[] = [];
  let identical = true;
  const probe = ceiling ? new CeilingProbe(data.d, typeof trainOptions.m === 'number' ? trainOptions.m : undefined) : undefined;
  const runs = [];
  for (const threads of counts) {
    const machineCeiling = threads === counts[0] ? (probe ? 1 : undefined) : await probe?.speedup(counts[0], threads);
    runs.push({ threads, machineCeiling, runsMs: [] as number[], hash: '', header: {} as Record<string, unknown>, kept: undefined as ProfileReport | undefined });
  }
  // Rounds alternate the counts (1, 2, 1, 2, …): a machine whose speed drifts slows every count alike.
  for (let r = 0; r < repeats; r++) {
    for (const run of runs) {
      let report: ProfileReport | undefined;
      const t0 = performance.now();
      const model = await trainModel({ ...trainOptions, data, threads: run.threads, ...(profile ? { onProfile: (p: ProfileReport) => (report = p) } : {}) });
      const ms = performance.now() - t0;
      // The profile of the count's fastest run so far.
      if (ms < Math.min(...run.runsMs)) run.kept = report;
      run.runsMs.push(ms);
      const h = createHash('sha256').update(model.toBytes()).digest('hex');
      if (run.hash !== '' && h !== run.hash) identical = false;
      run.hash = h;
      run.header = { hyperparameters: model.header.hyperparameters, evaluation: model.header.training.evaluation };
      if (r < repeats - 1) continue;
      // The last round: this count's fastest run is known (the smallest count's first).
      const first = runs[0];
      if (run.hash !== first.hash) identical = false;
      const T = (run.header.hyperparameters as Record<string, unknown>).T;
      const wallMs = Math.min(...run.runsMs);
      const speedup = Math.min(...first.runsMs) / wallMs;
      const row: ScalingRow = {
        threads: run.threads,
        wallMs,
        runsMs: run.runsMs,
        ...(typeof T === 'number' ? { iterationsPerSecond: T / (wallMs / 1000) } : {}),
        speedup,
        efficiency: speedup / (run.threads / first.threads),
        ...(run.machineCeiling !== undefined ? { ceiling: run.machineCeiling } : {}),
        sha256: run.hash,
        ...(run.kept ? { profile: run.kept } : {}),
      };
      rows.push(row);
      onRow?.(row);
    }
  }
  const first = runs[0];
  const hyperparameters = first.header.hyperparameters as Record<string, unknown>;
  const evaluation = first.header.evaluation;
  return {
    learner: spec.name,
    hyperparameters,
    ...(typeof hyperparameters.T === 'number' ? { iterations: hyperparameters.T } : {}),
    ...(typeof evaluation === 'string' ? { evaluation } : {}),
    rows,
    identical,
    n: data.n,
    d: data.d,
    machine,
    date,
  };
}

/**
 * The result as a Markdown table: threads, wall time (s; the fastest run, and
 * the slowest when a count ran more than once), iterations/s, speedup, efficiency.
 *
 * @example
 * process.stdout.write(scalingTable(result));
 */
export function scalingTable(result: ScalingResult): string {
  return markdownTable(
    result.rows.map((r) => ({
      threads: r.threads,
      'wall s': r.wallMs / 1000,
      ...(r.runsMs.length > 1 ? { 'slowest s': Math.max(...r.runsMs) / 1000 } : {}),
      ...(r.iterationsPerSecond !== undefined ? { 'it/s': r.iterationsPerSecond } : {}),
      speedup: r.speedup,
      efficiency: r.efficiency,
      ...(r.ceiling !== undefined ? { 'machine ceiling': r.ceiling, 'of ceiling': r.speedup / r.ceiling } : {}),
    })),
    { digits: 3 },
  );
}

/** Blocks and points of the ceiling probe's evaluation: about 0.1–0.3 s on one thread at m = 64. */
const PROBE_BLOCKS = 256;
const PROBE_POINTS = 2048;
/** Paired rounds of the probe; the median ratio is kept. */
const PROBE_ROUNDS = 5;

/**
 * Measures {@link ScalingRow.ceiling}: one evaluation of a seeded synthetic
 * history (PROBE_BLOCKS blocks, d and m of the run) at PROBE_POINTS points.
 * The base count and the count measured run back to back, round after round,
 * and the median of the rounds' time ratios is kept: a machine whose speed
 * drifts over seconds (a shared VM, turbo) moves both sides of a pair alike.
 */
class CeilingProbe {
  private readonly history: History;
  private readonly X: Float64Array;

  constructor(
    private readonly d: number,
    private readonly m = 64,
  ) {
    const rng = seedrandom('scaling ceiling');
    this.history = History.synthetic(m, PROBE_BLOCKS, rng);
    this.X = Float64Array.from({ length: PROBE_POINTS * d }, () => rng());
  }

  /** Speedup of `threads` over `base` threads on the probe's evaluation (median of paired rounds). */
  async speedup(base: number, threads: number): Promise<number> {
    const rf = { kernel: { kind: 'rbf' as const, sigma: 1 }, seed: 1, d: this.d, m: this.m };
    const pools = [base, threads].map((k) => (k > 1 ? new EvaluatorPool(k - 1) : undefined));
    const evaluators = [base, threads].map((k, i) => new Evaluator(this.history, rf, { threads: k, parallelMinWork: 0, ...(pools[i] ? { pool: pools[i] } : {}) }));
    try {
      const time = async (ev: Evaluator) => {
        const t0 = performance.now();
        await ev.evaluate(this.X, PROBE_POINTS);
        return performance.now() - t0;
      };
      for (const ev of evaluators) await time(ev); // warm-up: workers started, frequencies stored
      const ratios: number[] = [];
      for (let r = 0; r < PROBE_ROUNDS; r++) ratios.push((await time(evaluators[0])) / (await time(evaluators[1])));
      return median(ratios);
    } finally {
      for (const ev of evaluators) await ev.close();
      for (const pool of pools) await pool?.close();
    }
  }
}

/**
 * The chart of the result as data: speedup against threads, the ideal line,
 * and what the machine allows (the ceiling) when measured. What
 * {@link scalingChart} draws, and what `dsgkit scaling --out r` writes as
 * `r.chart.json` for anyone who wants to plot it their own way.
 *
 * @example
 * const spec = scalingChartSpec(result); // { title, xLabel, yLabel, series: [{ name: 'measured', points: [[1, 1], [2, 1.7]] }, …] }
 */
export function scalingChartSpec(result: ScalingResult): LineChart {
  const base = result.rows[0].threads;
  const T = result.iterations !== undefined ? `, T = ${result.iterations}` : '';
  return {
    title: `${result.learner} training on ${thousands(result.n)} rows × ${result.d}${T}: speedup by threads`,
    subtitle: `${result.rows.map((r) => `${r.threads} thread${r.threads === 1 ? '' : 's'} ${Number((r.wallMs / 1000).toPrecision(3))} s`).join(', ')} · ${result.machine.cores} cores of ${result.machine.cpu} · Node ${process.version} · dsgkit ${dsgkitVersion()} · ${result.date.slice(0, 10)}`,
    xLabel: 'threads',
    yLabel: base === 1 ? 'speedup over 1 thread' : `speedup over ${base} threads`,
    xIntegers: true,
    series: [
      { name: 'training (measured)', points: result.rows.map((r) => [r.threads, r.speedup] as const) },
      ...(result.rows.every((r) => r.ceiling !== undefined) ? [{ name: 'what the machine allows (machine ceiling)', points: result.rows.map((r) => [r.threads, r.ceiling!] as const) }] : []),
    ],
    referenceLine: { name: 'ideal (threads × speed of one)', points: result.rows.map((r) => [r.threads, r.threads / base] as const) },
  };
}

/**
 * The result as an SVG chart: speedup against threads, with the ideal line.
 *
 * @example
 * await writeFile('scaling.svg', scalingChart(result));
 */
export function scalingChart(result: ScalingResult): string {
  return lineChartSvg(scalingChartSpec(result));
}
