/**
 * Scaling benchmark: throughput of one full-history evaluation (step 2 of a
 * training iteration, the O(t) part) with 1…N evaluation threads, N = the
 * machine's cores, plus one oversubscribed point (N + 1).
 *
 * Shape: a history of 2,000 blocks of m = 128 features in d = 28 dimensions
 * (HIGGS-like), evaluated at 768 points (B = 256 from each of P, N, U), with
 * the shared frequency store on (default) and off (the papers' pure
 * regeneration). Best of 3 calls after a warm-up; speedup is against the
 * 1-thread figure of the same mode, and every thread count must give the
 * same bits (checked here too).
 *
 * Writes bench/results/scaling.json and scaling.svg; prints a table.
 *
 * @example
 * // npm run bench:scaling
 * // npx tsx bench/scaling.ts 1000     (another history length)
 */
import { cpus, loadavg } from 'node:os';
import { availableCores } from '../src/engine/cores.ts';
import seedrandom from 'seedrandom';
import { Evaluator } from '../src/engine/evaluator.ts';
import { History } from '../src/engine/history.ts';
import { EvaluatorPool } from '../src/engine/pool.ts';
import type { RandomFeatures } from '../src/engine/random-features.ts';
import { lineChartSvg, markdownTable, writeBenchOutputs } from './lib/index.ts';

const BLOCKS = Number(process.argv[2] ?? 2000);
const POINTS = 768;
const REPS = 3;
const rf: RandomFeatures = { kernel: { kind: 'rbf', sigma: 1 }, seed: 7, d: 28, m: 128 };

const rng = seedrandom('scaling');
const history = History.synthetic(rf.m, BLOCKS, rng);
const X = Float64Array.from({ length: POINTS * rf.d }, () => rng());
const cores = availableCores();
const threadCounts = [...Array.from({ length: cores }, (_, i) => i + 1), cores + 1];

interface Row {
  mode: string;
  threads: number;
  seconds: number;
  mfeatPerS: number;
  speedup: number;
  efficiency: number;
}

async function measure(threads: number, cacheBytes: number): Promise<{ seconds: number; f: Float64Array }> {
  const pool = threads > 1 ? new EvaluatorPool(threads - 1) : undefined;
  const ev = new Evaluator(history, rf, { threads, cacheBytes, parallelMinWork: 0, ...(pool ? { pool } : {}) });
  try {
    let f = await ev.evaluate(X, POINTS); // warm-up: starts workers, fills the store
    let best = Infinity;
    for (let r = 0; r < REPS; r++) {
      const t0 = performance.now();
      f = await ev.evaluate(X, POINTS);
      best = Math.min(best, (performance.now() - t0) / 1000);
    }
    return { seconds: best, f };
  } finally {
    await ev.close();
    await pool?.close();
  }
}

const rows: Row[] = [];
for (const [mode, cacheBytes] of [
  ['frequency store', 512 * 2 ** 20],
  ['regenerate (papers)', 0],
] as const) {
  let base = 0;
  let reference: Buffer | undefined;
  for (const threads of threadCounts) {
    const { seconds, f } = await measure(threads, cacheBytes);
    const bits = Buffer.from(f.buffer);
    if (reference === undefined) reference = bits;
    else if (!bits.equals(reference)) throw new Error(`bench:scaling: ${threads} threads gave different bits than 1 thread`);
    if (threads === 1) base = seconds;
    const speedup = base / seconds;
    rows.push({ mode, threads, seconds, mfeatPerS: (BLOCKS * POINTS * rf.m) / seconds / 1e6, speedup, efficiency: speedup / Math.min(threads, cores) });
  }
}

const meta = {
  shape: { blocks: BLOCKS, points: POINTS, ...rf },
  machine: { cores, cpu: cpus()[0]?.model ?? 'unknown', loadavg: loadavg(), node: process.version },
  goal: 'speedup >= 1.8 at 2 threads (2-core machine)',
  date: new Date().toISOString(),
};
console.log(`evaluation of ${BLOCKS} blocks × ${POINTS} points, m = ${rf.m}, d = ${rf.d}; ${cores} cores (${meta.machine.cpu}); load ${meta.machine.loadavg.map((l) => l.toFixed(2)).join(' ')}`);
console.log(markdownTable(rows.map((r) => ({ mode: r.mode, threads: r.threads, 'seconds/call': r.seconds, 'Mfeat/s': r.mfeatPerS, speedup: r.speedup, efficiency: r.efficiency })), { digits: 3 }));
const svg = lineChartSvg({
  title: `Evaluation speedup: ${BLOCKS} blocks × ${POINTS} points, m=${rf.m}, d=${rf.d}, ${cores} cores`,
  xLabel: 'evaluation threads',
  xIntegers: true,
  yLabel: 'speedup over 1 thread',
  series: ['frequency store', 'regenerate (papers)'].map((mode) => ({ name: mode, points: rows.filter((r) => r.mode === mode).map((r) => [r.threads, r.speedup] as [number, number]) })),
  referenceLine: { name: 'ideal (one per core)', points: threadCounts.map((t) => [t, Math.min(t, cores)] as [number, number]) },
});
const paths = writeBenchOutputs('scaling', { ...meta, rows }, svg);
console.log(`wrote ${paths.json} and ${paths.svg}`);
