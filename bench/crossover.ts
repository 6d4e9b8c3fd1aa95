/**
 * Crossover benchmark: below how much work is a call cheaper on the calling
 * thread alone than split with the worker pool? Times one evaluation on the
 * calling thread and on all cores (calling thread + pool, chunks of one block
 * so that work alone decides), for histories of 1 … 256 blocks and two batch
 * sizes, and reports the smallest work (blocks × points × m × (d + 8), the
 * unit of `DEFAULT_PARALLEL_MIN_WORK` in src/engine/evaluator.ts) from which
 * the pool wins every time.
 *
 * Writes bench/results/crossover.json and crossover.svg; prints a table.
 *
 * @example
 * // npx tsx bench/crossover.ts
 */
import { availableCores } from '../src/engine/cores.ts';
import seedrandom from 'seedrandom';
import { DEFAULT_PARALLEL_MIN_WORK, Evaluator } from '../src/engine/evaluator.ts';
import { History } from '../src/engine/history.ts';
import { EvaluatorPool } from '../src/engine/pool.ts';
import type { RandomFeatures } from '../src/engine/random-features.ts';
import { lineChartSvg, markdownTable, writeBenchOutputs } from './lib/index.ts';

const rf: RandomFeatures = { kernel: { kind: 'rbf', sigma: 1 }, seed: 3, d: 28, m: 64 };
const BLOCKS = [1, 2, 4, 8, 16, 32, 64, 128, 256];
const POINTS = [96, 768];
const REPS = 7;
const cores = availableCores();
const rng = seedrandom('crossover');
const history = History.synthetic(rf.m, 256, rng);
const pool = new EvaluatorPool(Math.max(1, cores - 1)); // with the calling thread: `cores` threads

/** Median seconds of one call with `blocks` live blocks. */
async function time(ev: Evaluator, X: Float64Array, n: number): Promise<number> {
  const times: number[] = [];
  await ev.evaluate(X, n);
  for (let r = 0; r < REPS; r++) {
    const t0 = performance.now();
    await ev.evaluate(X, n);
    times.push((performance.now() - t0) / 1000);
  }
  return times.sort((a, b) => a - b)[REPS >> 1];
}

const rows: Array<{ points: number; blocks: number; work: number; serialMs: number; poolMs: number; poolWins: boolean }> = [];
for (const n of POINTS) {
  const X = Float64Array.from({ length: n * rf.d }, () => rng());
  for (const blocks of BLOCKS) {
    const h = History.restore({ m: rf.m, t: blocks, scale: 1, firstLive: 0, stored: history.stored });
    // Chunks of one block, so the chunk count never keeps a call off the pool: work alone decides.
    const serial = new Evaluator(h, rf, { threads: 1, chunkSize: 1 });
    const parallel = new Evaluator(h, rf, { pool, parallelMinWork: 0, chunkSize: 1 });
    const s = await time(serial, X, n);
    const p = await time(parallel, X, n);
    rows.push({ points: n, blocks, work: blocks * n * rf.m * (rf.d + 8), serialMs: s * 1e3, poolMs: p * 1e3, poolWins: p < s });
  }
}
await pool.close();

// Smallest work from which the pool wins for every larger measured work.
const byWork = [...rows].sort((a, b) => a.work - b.work);
let crossover = Infinity;
for (let i = byWork.length - 1; i >= 0 && byWork[i].poolWins; i--) crossover = byWork[i].work;
console.log(markdownTable(rows.map((r) => ({ points: r.points, blocks: r.blocks, work: r.work, 'serial ms': r.serialMs, 'pool ms': r.poolMs, 'pool wins': r.poolWins ? 'yes' : 'no' })), { digits: 3 }));
console.log(`pool of ${cores} wins from work ≈ ${crossover.toExponential(2)}; DEFAULT_PARALLEL_MIN_WORK is ${DEFAULT_PARALLEL_MIN_WORK.toExponential(2)}`);
const svg = lineChartSvg({
  title: `Serial vs pool of ${cores} threads, one evaluation (m=${rf.m}, d=${rf.d})`,
  xLabel: 'work = blocks × points × m × (d + 8)',
  yLabel: 'milliseconds per call',
  logX: true,
  logY: true,
  series: POINTS.flatMap((n) => [
    { name: `calling thread, ${n} points`, points: rows.filter((r) => r.points === n).map((r) => [r.work, r.serialMs] as [number, number]) },
    { name: `pool, ${n} points`, points: rows.filter((r) => r.points === n).map((r) => [r.work, r.poolMs] as [number, number]) },
  ]),
});
const paths = writeBenchOutputs('crossover', { cores, shape: rf, crossoverWork: crossover, defaultParallelMinWork: DEFAULT_PARALLEL_MIN_WORK, rows }, svg);
console.log(`wrote ${paths.json} and ${paths.svg}`);
