/**
 * The efficiency model of docs/efficiency.md, evaluated: predicted speedup,
 * efficiency and loop efficiency of QSG-S2AUC training on shuttle-sized data
 * (n = 50,000 rows, d = 9, batches of B = 192 points, m = 64) for p threads
 * and T iterations, under both evaluation strategies, from constants FITTED
 * on this machine:
 *
 * - from bench/results/dispatch.json (`npx tsx bench/dispatch.ts`): the cost
 *   of one point-block on one thread (history evaluation, row cache), a
 *   serial call's fixed cost, a parallel call's fixed cost on the work board,
 *   the cost of waking each sleeping worker, the cost of claiming a unit;
 * - from bench/results/scaling-shuttle-T400.json and -T1000.json (`dsgkit
 *   scaling --profile`): the calling thread's serial time per iteration at
 *   1 thread (sampling, weights, new block, shrink and append, the rest of the
 *   loop), for each strategy.
 *
 * Per iteration on p threads, with W the point-blocks of its engine call
 * ((t − 1)·B evaluating the history, n adding the block to the row cache):
 *
 *   time = s + a + c·W / q + [q > 1]·(o + w·(q − 1) + u/2 + h·U/q)
 *
 * where q = the threads the engine uses for that call (evaluator.ts:
 * min(p, units), 1 below DEFAULT_PARALLEL_MIN_WORK), s the serial loop time,
 * a the serial call's fixed cost, c the point-block cost, o the parallel
 * call's fixed cost (one worker), w each further worker's wake-up, u one
 * unit's time (a 4-block chunk at B points, or rowGrain(n, q) rows), U the
 * units and h the cost of claiming one. The table also gives the speedup
 * with w = 0 (the bound the serial part alone sets): w is the least certain
 * constant, measured on 2 cores where a woken thread can take the waker's
 * core. Speedup = time(1)/time(p) summed over
 * the run, efficiency = speedup / p, loop efficiency (what `--profile` reports)
 * = the kernel's share: c·(ΣW + T·B) / (p · Σ time).
 *
 * Writes bench/results/efficiency-model.json; prints the table.
 *
 * @example
 * // npx tsx bench/efficiency-model.ts
 */
import { readFileSync } from 'node:fs';
import { DEFAULT_PARALLEL_MIN_WORK, rowGrain } from '../src/engine/evaluator.ts';
import { TRAINING_CHUNK_SIZE } from '../src/engine/chunks.ts';
import { markdownTable, writeBenchOutputs } from './lib/index.ts';

interface Fitted {
  pointBlockUs: number;
  rowPointBlockUs: number;
  boardCallMs: number;
  rowUnitUs: number;
  chunkUnitUs: number;
  notifyPerThreadUs: number;
}
interface ScalingFile {
  iterations: number;
  evaluation: string;
  rows: Array<{ threads: number; wallMs: number; speedup: number; profile?: { wallMs: number; iterations: number; phases: Record<string, number>; loopEfficiency: number } }>;
}

const results = new URL('./results/', import.meta.url);
const dispatch = JSON.parse(readFileSync(new URL('dispatch.json', results), 'utf8')) as { fitted: Fitted; fixed: { serialMs: number }; machine: unknown; date: string };
const scalingRuns = ['scaling-shuttle-T400.json', 'scaling-shuttle-T1000.json'].map((f) => JSON.parse(readFileSync(new URL(f, results), 'utf8')) as ScalingFile);
const f = dispatch.fitted;

const n = 50_000;
const d = 9;
const m = 64;
const B = 192;
const itemWork = m * (d + 8);

/** Serial loop time per iteration (ms) at 1 thread for a strategy, from the profiled scaling run that used it. */
function serialMs(strategy: 'history' | 'rows'): { ms: number; from: string } {
  const run = scalingRuns.find((r) => r.evaluation === strategy);
  const one = run?.rows.find((r) => r.threads === 1)?.profile;
  if (!run || !one) throw new Error(`no profiled 1-thread scaling run with evaluation ${strategy} in bench/results`);
  const { sampling, weights, newBlock, shrinkAppend, other } = one.phases;
  return { ms: (sampling + weights + newBlock + shrinkAppend + other) / one.iterations, from: `scaling-shuttle-T${run.iterations}.json` };
}
const serial = { history: serialMs('history'), rows: serialMs('rows') };

/** A call's fixed cost on the calling thread alone: the 2-block, 4-point call of bench/dispatch.ts (the fits' intercepts are within their noise of 0). */
const a = dispatch.fixed.serialMs;

/** Predicted milliseconds of one run to T on p threads (each further woken worker costing `wakeUs`), and its kernel milliseconds. */
function predict(strategy: 'history' | 'rows', T: number, p: number, wakeUs = f.notifyPerThreadUs): { ms: number; kernelMs: number } {
  const c = (strategy === 'history' ? f.pointBlockUs : f.rowPointBlockUs) / 1000;
  const s = serial[strategy].ms;
  let ms = 0;
  let kernelMs = 0;
  for (let t = 1; t <= T; t++) {
    const W = strategy === 'history' ? (t - 1) * B : n;
    kernelMs += c * (W + B);
    if (W === 0) {
      ms += s;
      continue;
    }
    let q: number;
    let unitMs: number;
    let units: number;
    let claimUs: number;
    if (strategy === 'history') {
      const chunks = Math.ceil((t - 1) / TRAINING_CHUNK_SIZE);
      q = chunks < 2 || (t - 1) * B * itemWork < DEFAULT_PARALLEL_MIN_WORK ? 1 : Math.min(p, chunks);
      unitMs = TRAINING_CHUNK_SIZE * B * c;
      units = chunks;
      claimUs = f.chunkUnitUs;
    } else {
      q = n * itemWork < DEFAULT_PARALLEL_MIN_WORK ? 1 : Math.min(p, n);
      const g = rowGrain(n, q);
      unitMs = g * c;
      units = Math.ceil(n / g);
      claimUs = f.rowUnitUs;
    }
    ms += s + a + (c * W) / q;
    if (q > 1) ms += f.boardCallMs + (wakeUs / 1000) * (q - 2) + unitMs / 2 + (Math.max(0, claimUs) / 1000) * (units / q);
  }
  return { ms, kernelMs };
}

const rows: Array<Record<string, string | number>> = [];
for (const strategy of ['history', 'rows'] as const) {
  for (const T of [400, 1000, 10_000]) {
    const one = predict(strategy, T, 1).ms;
    for (const p of [1, 2, 32, 56]) {
      const { ms, kernelMs } = predict(strategy, T, p);
      const auto = B * T * (T - 1) / 2 > n * T ? 'rows' : 'history';
      rows.push({
        strategy: strategy + (strategy === auto ? ' (auto)' : ''), T, threads: p, 'predicted s': ms / 1000, speedup: one / ms, efficiency: one / ms / p, 'loop efficiency': kernelMs / (p * ms),
        'speedup if w = 0': one / predict(strategy, T, p, 0).ms,
      });
    }
  }
}
// The check this machine allows: the 2-thread predictions against the measured scaling runs.
const checks = scalingRuns.map((run) => {
  const strategy = run.evaluation as 'history' | 'rows';
  const measured = run.rows.find((r) => r.threads === 2)?.speedup;
  const predicted = predict(strategy, run.iterations, 1).ms / predict(strategy, run.iterations, 2).ms;
  return { T: run.iterations, strategy, 'measured speedup, 2 threads': measured ?? NaN, 'predicted speedup, 2 threads': predicted };
});
console.log(`constants: c = ${f.pointBlockUs.toFixed(3)} µs (history) / ${f.rowPointBlockUs.toFixed(3)} µs (rows) a point-block; a = ${a.toFixed(3)} ms; o = ${f.boardCallMs.toFixed(3)} ms; w = ${f.notifyPerThreadUs.toFixed(2)} µs; h = ${f.chunkUnitUs.toFixed(2)} / ${f.rowUnitUs.toFixed(2)} µs; s = ${serial.history.ms.toFixed(3)} ms (history, ${serial.history.from}) / ${serial.rows.ms.toFixed(3)} ms (rows, ${serial.rows.from})`);
console.log(markdownTable(rows, { digits: 3 }));
console.log(markdownTable(checks, { digits: 3 }));
const paths = writeBenchOutputs('efficiency-model', { constants: { ...f, serialCallMs: a, serialLoopMs: serial }, dispatchDate: dispatch.date, shape: { n, d, m, B }, predictions: rows, checks, date: new Date().toISOString() });
console.log(`wrote ${paths.json}`);
