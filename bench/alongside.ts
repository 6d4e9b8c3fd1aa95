/**
 * Alongside benchmark: what building the new block during the engine call
 * saves per iteration (coordinator/loop.ts since 2026-11-24, second session)
 * against building it before the call — the loop's own engine steps alone,
 * on all cores, so the figure is not lost in a training run's noise. Shape
 * of the shuttle-sized runs: m = 64 random features, d = 9, B = 192 points.
 *
 * An iteration: the projection of batch t onto block t − 1, the shrink and
 * the append (the new block), and f at batch t + 1.
 * - History (t = 100, 200, 400 blocks at the start):
 *   before = new block, then `evaluate` at batch t + 1;
 *   alongside = `evaluateAppending` at batch t + 1 with the new block as its append.
 * - Rows (n = 50,000 cached rows, 200 blocks at the start):
 *   before = new block, then `updateRows` (adds it at every row), then `cache.read` at batch t + 1;
 *   alongside = `updateRows` with the new block alongside (the cache a block
 *   behind), then `readRows` at batch t + 1 (adds the newest block there).
 * Each run does K iterations from the same starting history (and cache, built
 * untimed); runs of the two ways alternate, R rounds; reported: the median
 * milliseconds per iteration of each way and the saving. The weights, the
 * draw and the bias step are left out: the same in both.
 *
 * Writes bench/results/alongside.json and alongside.svg; prints a table.
 *
 * @example
 * // npx tsx bench/alongside.ts
 */
import { cpus, loadavg } from 'node:os';
import seedrandom from 'seedrandom';
import { availableCores } from '../src/engine/cores.ts';
import { BlockOps } from '../src/engine/block-ops.ts';
import { TRAINING_CHUNK_SIZE } from '../src/engine/chunks.ts';
import { Evaluator } from '../src/engine/evaluator.ts';
import { History } from '../src/engine/history.ts';
import { EvaluatorPool } from '../src/engine/pool.ts';
import type { RandomFeatures } from '../src/engine/random-features.ts';
import { RowCache } from '../src/engine/row-cache.ts';
import { median } from '../src/metrics/index.ts';
import { lineChartSvg, markdownTable, writeBenchOutputs } from './lib/index.ts';

const rf: RandomFeatures = { kernel: { kind: 'rbf', sigma: 1 }, seed: 5, d: 9, m: 64 };
const B = 192;
const N_ROWS = 50_000;
const K = 60;
const R = 15;
const cores = availableCores();
const rng = seedrandom('alongside');
const load0 = loadavg();
const pool = new EvaluatorPool(Math.max(1, cores - 1));
const ops = new BlockOps();
const random = (length: number) => Float64Array.from({ length }, () => rng());
const batches = Array.from({ length: K + 1 }, () => random(B * rf.d));
const weights = Array.from({ length: K }, () => random(B).map((v) => v - 0.5));
const factor = 1 - 1e-4;

/** The new block from batch k (its points and weights), then the shrink and the append. */
function newBlock(history: History, ev: Evaluator, k: number, X: Float64Array): void {
  const alpha = ops.project(rf, history.t, X, B, weights[k], ev.frequencies);
  for (let j = 0; j < alpha.length; j++) alpha[j] *= -0.01;
  history.shrink(factor);
  history.append(alpha);
}

/** Milliseconds per iteration of K iterations evaluating the history from `start` blocks, the new block before the call or alongside it. */
async function historyRun(start: History, alongside: boolean): Promise<number> {
  const history = start.copy(start.t + K);
  const ev = new Evaluator(history, rf, { pool, chunkSize: TRAINING_CHUNK_SIZE });
  const f = new Float64Array(B);
  const t0 = performance.now();
  for (let k = 0; k < K; k++) {
    if (alongside) await ev.evaluateAppending(batches[k + 1], B, f, 1, () => newBlock(history, ev, k, batches[k]));
    else {
      newBlock(history, ev, k, batches[k]);
      await ev.evaluate(batches[k + 1], B, f);
    }
  }
  return (performance.now() - t0) / K;
}

/** The same with f kept at N_ROWS cached rows, batches drawn from them. */
async function rowsRun(start: History, X: Float64Array, alongside: boolean): Promise<number> {
  const history = start.copy(start.t + K);
  const ev = new Evaluator(history, rf, { pool, chunkSize: TRAINING_CHUNK_SIZE });
  const cache = new RowCache({ d: rf.d, rows: Int32Array.from({ length: N_ROWS }, (_, i) => i), copyRow: (i, out, at) => out.set(X.subarray(i * rf.d, (i + 1) * rf.d), at * rf.d) });
  await ev.updateRows(cache);
  const picks = Array.from({ length: K + 1 }, () => Int32Array.from({ length: B }, () => Math.floor(rng() * N_ROWS)));
  const points = picks.map((rows) => {
    const P = new Float64Array(B * rf.d);
    rows.forEach((r, p) => P.set(X.subarray(r * rf.d, (r + 1) * rf.d), p * rf.d));
    return P;
  });
  const f = new Float64Array(B);
  const t0 = performance.now();
  for (let k = 0; k < K; k++) {
    if (alongside) {
      await ev.updateRows(cache, () => newBlock(history, ev, k, points[k]));
      ev.readRows(cache, picks[k + 1], points[k + 1], B, f);
    } else {
      newBlock(history, ev, k, points[k]);
      await ev.updateRows(cache);
      cache.read(picks[k + 1], B, ev.rowFactor(), f);
    }
  }
  return (performance.now() - t0) / K;
}

const rows: Array<{ strategy: string; blocks: number; beforeMs: number; alongsideMs: number; savedMs: number; saved: number }> = [];
const cases: Array<{ strategy: 'history' | 'rows'; blocks: number }> = [
  { strategy: 'history', blocks: 100 }, { strategy: 'history', blocks: 200 }, { strategy: 'history', blocks: 400 }, { strategy: 'rows', blocks: 200 },
];
const X = random(N_ROWS * rf.d);
for (const { strategy, blocks } of cases) {
  const start = History.synthetic(rf.m, blocks, rng);
  const run = (alongside: boolean) => (strategy === 'history' ? historyRun(start, alongside) : rowsRun(start, X, alongside));
  await run(false); // warm-up
  await run(true);
  const before: number[] = [];
  const along: number[] = [];
  for (let r = 0; r < R; r++) {
    before.push(await run(false));
    along.push(await run(true));
  }
  const b = median(before);
  const a = median(along);
  rows.push({ strategy, blocks, beforeMs: b, alongsideMs: a, savedMs: b - a, saved: (b - a) / b });
}
await pool.close();

console.log(`${cores} threads (${cpus()[0]?.model}), load ${load0.map((v) => v.toFixed(2)).join(' ')}; m = ${rf.m}, d = ${rf.d}, B = ${B}; ${K} iterations a run, median of ${R} alternating runs`);
console.log(markdownTable(rows.map((r) => ({ strategy: r.strategy, 'blocks at start': r.blocks, 'before, ms/iteration': r.beforeMs, 'alongside, ms/iteration': r.alongsideMs, 'saved, ms': r.savedMs, saved: r.saved })), { digits: 3 }));
const svg = lineChartSvg({
  title: `Milliseconds per iteration on ${cores} threads: new block before the call, or alongside it (history)`,
  xLabel: 'blocks in the history',
  yLabel: 'ms per iteration',
  series: [
    { name: 'before the call', points: rows.filter((r) => r.strategy === 'history').map((r) => [r.blocks, r.beforeMs] as [number, number]) },
    { name: 'alongside the call', points: rows.filter((r) => r.strategy === 'history').map((r) => [r.blocks, r.alongsideMs] as [number, number]) },
  ],
});
const paths = writeBenchOutputs('alongside', { threads: cores, cpu: cpus()[0]?.model, loadavg: load0, shape: { ...rf, B, nRows: N_ROWS }, iterations: K, rounds: R, rows, date: new Date().toISOString() }, svg);
console.log(`wrote ${paths.json} and ${paths.svg}`);
