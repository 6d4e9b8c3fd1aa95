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
 *   q = 1:  time = s + a + c·W
 *   q > 1:  time = (s − s∥) + a + (c·W + s∥)/q + o + w·(q − 2) + u/2 + h·U/q + (1 − 1/q)·r·C·B
 *
 * where q = the threads the engine uses for that call (evaluator.ts:
 * min(p, units) counting point slices, 1 below DEFAULT_PARALLEL_MIN_WORK), s the serial loop time,
 * s∥ the part of it the calling thread does while the workers have the call
 * (building the new block, validation and a draw: the batch after next
 * evaluating the history, the next batch with the row cache, which then costs
 * c·B more on the calling thread: the newest block at it, the cache being a
 * block behind — computed during the call too since 2026-11-24, fourth
 * session, so it joins s∥), a the serial call's fixed cost, c the point-block cost, o the
 * parallel call's fixed cost (one worker; measured after a pause on the
 * calling thread, with the worker still spinning or asleep), w each further
 * worker's wake-up,
 * u one unit's time (a 4-block chunk at B points — a quarter or half of one where a
 * call has fewer than UNITS_PER_THREAD chunks a thread (slicesFor) — or
 * rowGrain(n, q) rows), U
 * the units and h the cost of claiming one, and r·C·B the reduction of a
 * history call's C chunks × B points in chunk order on the calling thread
 * (r per chunk and point; 0 with the row cache). Where every thread has a core the
 * workers check for the next call for up to SPIN_BUDGET_MS before they sleep
 * (work-board.ts), longer than the loop's serial time between calls, so
 * w = 0: that is the main prediction. The table also gives the speedup with
 * workers asleep between calls (w as measured: more threads than cores),
 * w being the least certain constant, measured on 2 cores where a woken
 * thread can take the waker's core. Speedup = time(1)/time(p) summed over
 * the run, efficiency = speedup / p, loop efficiency (what `--profile` reports)
 * = the kernel's share: c·(ΣW + T·B) / (p · Σ time). The calling thread's
 * share of a call is at least its own work during it: max(s∥, (c·W + s∥)/q).
 * Evaluating the history, the run keeps f at its H = 1,000 labeled rows (hot
 * rows): W counts the other B/3 points of a batch, and the hot rows' block
 * rides along the call (c·H more work split like the rest, c·2B/3 more in
 * s∥) — or, as the loop did before, takes a call of its own after it (the
 * column "hot rows after the call"). A second table gives the issue's short
 * run with the point-block cost and serial loop time of the build the newest
 * profiled run measured (scaling-shuttle-rider-T400.json), where there is one.
 *
 * The check: every thread count of the two scaling runs (and of a 1M × 18,
 * T = 1,000 run, `scaling-1M-T1000.json`, where the directory has one) against
 * the model's speedup, and against the model's speedup scaled by the run's
 * machine ceiling at that count (`ceiling / p`: what one long kernel evaluation
 * reaches there — clocks that drop as cores wake, shared caches — which the
 * model's constants, measured on one thread, do not see).
 *
 * Reads its inputs from bench/results, or from the directory given (the same
 * file names, e.g. the 16-core machine's bench/results/xeon16/), and writes
 * bench/results/efficiency-model.json, or efficiency-model-<directory>.json;
 * prints the tables.
 *
 * @example
 * // npx tsx bench/efficiency-model.ts
 * // npx tsx bench/efficiency-model.ts bench/results/xeon16
 */
import { existsSync, readFileSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { callThreads, chunkSplit, rowGrain } from '../src/engine/evaluator.ts';
import { TRAINING_CHUNK_SIZE } from '../src/engine/chunks.ts';
import { SPIN_BUDGET_MS } from '../src/engine/work-board.ts';
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
  rows: Array<{ threads: number; wallMs: number; speedup: number; ceiling?: number; profile?: { wallMs: number; iterations: number; phases: Record<string, number>; loopEfficiency: number } }>;
}

const inputDir = process.argv[2];
const results = inputDir === undefined ? new URL('./results/', import.meta.url) : pathToFileURL(resolve(inputDir) + '/');
const dispatch = JSON.parse(readFileSync(new URL('dispatch.json', results), 'utf8')) as {
  fitted: Fitted;
  fixed: { serialMs: number; boardAfterPauseMs?: Record<string, number> };
  machine: unknown;
  date: string;
};
/** A `dsgkit scaling` report of the input directory, with its file name. */
const readRun = (file: string): { file: string; run: ScalingFile } => ({ file, run: JSON.parse(readFileSync(new URL(file, results), 'utf8')) as ScalingFile });
const scalingRuns = ['scaling-shuttle-T400.json', 'scaling-shuttle-T1000.json'].map(readRun);
const f = dispatch.fitted;

/** Rows and dimension of a run's data. */
interface Shape {
  readonly n: number;
  readonly d: number;
}
/** The shuttle-sized runs the constants were measured on. */
const SHUTTLE: Shape = { n: 50_000, d: 9 };
const { n, d } = SHUTTLE;
const m = 64;
const B = 192;
const itemWork = m * (d + 8);

/**
 * Serial loop time per iteration (ms) at 1 thread for a strategy, from the
 * profiled scaling run that used it, and the part of it done while the
 * workers have the call (`alongsideMs`, see coordinator/loop.ts).
 */
function serialMs(strategy: 'history' | 'rows'): { ms: number; alongsideMs: number; from: string } {
  const found = scalingRuns.find(({ run }) => run.evaluation === strategy);
  const one = found?.run.rows.find((r) => r.threads === 1)?.profile;
  if (!found || !one) throw new Error(`no profiled 1-thread scaling run with evaluation ${strategy} in ${results.pathname}`);
  const { sampling, weights, newBlock, shrinkAppend, validation, other } = one.phases;
  // History: the new block (projection, shrink, append), validation and the draw of the batch after next
  // ride along the call that evaluates the next batch. Rows: the same and the draw of the next batch ride
  // along the call that adds the block before it at every row (the next batch then gets the newest block on
  // the calling thread: c·B).
  const alongside = sampling + newBlock + shrinkAppend + (validation ?? 0);
  return { ms: (sampling + weights + newBlock + shrinkAppend + (validation ?? 0) + other) / one.iterations, alongsideMs: alongside / one.iterations, from: found.file };
}
const serial = { history: serialMs('history'), rows: serialMs('rows') };

/** A build's own point-block cost and serial loop time (µs, ms an iteration), where a newer profile gives them. */
interface LoopConstants {
  readonly pointBlockUs: number;
  readonly ms: number;
  readonly alongsideMs: number;
  readonly from: string;
}

/**
 * The point-block cost and serial loop time of the build a profiled scaling
 * run measured: c from its 1-thread profile's kernel rate (one long kernel
 * evaluation in the run's process), s and s∥ from that profile's phases (as
 * {@link serialMs}). The dispatch constants (a, o, w, h) stay those of
 * dispatch.json. Undefined when the file is not there.
 */
function loopConstants(file: string): LoopConstants | undefined {
  if (!existsSync(new URL(file, results))) return undefined;
  const one = readRun(file).run.rows.find((r) => r.threads === 1)?.profile as ({ kernelRate: number; iterations: number; phases: Record<string, number> } | undefined);
  if (!one) return undefined;
  const { sampling, weights, newBlock, shrinkAppend, validation, other } = one.phases;
  const alongside = sampling + newBlock + shrinkAppend + (validation ?? 0);
  return { pointBlockUs: 1e6 / one.kernelRate, ms: (alongside + weights + other) / one.iterations, alongsideMs: alongside / one.iterations, from: file };
}

/**
 * The reduction of a history call's partial sums in chunk order (chunks.ts
 * reduceChunks), per chunk and point: 0.058 ms for 100 chunks × 192 points,
 * timed inside a 2-thread T = 400 run (docs/efficiency.md, *What is left on
 * many threads*), the rows read from both threads' caches. The calling thread
 * does all of it after the call: on q threads the c·W/q term holds only 1/q of it.
 */
const REDUCE_MS_PER_CHUNK_POINT = 0.058 / (100 * 192);

/** A call's fixed cost on the calling thread alone: the 2-block, 4-point call of bench/dispatch.ts (the fits' intercepts are within their noise of 0). */
const a = dispatch.fixed.serialMs;
/**
 * A parallel call's fixed cost beyond `a`, as the loop makes its calls (after
 * serial work on the calling thread): with the worker still spinning (a
 * 0.3 ms pause) or asleep (2 ms); back-to-back calls where bench/dispatch.ts
 * has no paused figures.
 */
const paused = dispatch.fixed.boardAfterPauseMs;
const o = { spinning: (paused?.['0.3 ms'] ?? a + f.boardCallMs) - a, asleep: (paused?.['2 ms'] ?? a + f.boardCallMs) - a };

/**
 * The rows a shuttle-sized history run keeps f at (engine/hot-rows.ts): the
 * 1,000 labeled rows (`dsgkit generate --rows 50000` labels 1,000), from which
 * QSG-S2AUC draws its B/3 positives and B/3 negatives; the B/3 unlabeled
 * points of each batch are evaluated over the history.
 */
const HOT_ROWS = 1000;
const COLD = B / 3;

/**
 * Where a history run's hot rows get their new block: `none` (no hot rows:
 * the whole batch over the history, the loop before the hot rows),
 * `after` (a call of its own after the call over the cold points, on the
 * calling thread alone below the parallel threshold: the loop before
 * `Evaluator.rowsRider`), or `units` (the loop now: the block before added
 * at the hot rows as units of the call over the cold points, the cache a
 * block behind, and the newest block at the batch's hot points computed by
 * the calling thread during the call; on the calling thread alone, the cache
 * brought up to date after the append).
 */
type Hot = 'none' | 'after' | 'units';

/**
 * Predicted milliseconds of one run to T on p threads, and its kernel
 * milliseconds. Each further worker costs the wake-up `w` when the workers
 * are `asleep` between calls, or when the calling thread's serial time between
 * two calls outlasts the workers' spin; else nothing. Without `overlap` the
 * calling thread does all its serial work before the call (the loop before
 * 2026-11-24), so s∥ = 0. The calling thread's own work during a call
 * (s∥, and the hot rows' block `alongside`) cannot be split: a call lasts at
 * least that long, however many threads share the rest.
 */
function predict(strategy: 'history' | 'rows', T: number, p: number, opts: { asleep?: boolean; overlap?: boolean; shape?: Shape; hot?: Hot; loop?: LoopConstants } = {}): { ms: number; kernelMs: number } {
  const { asleep = false, overlap = true, shape = SHUTTLE, loop } = opts;
  const hot = strategy === 'history' ? (opts.hot ?? 'units') : 'none';
  const { n } = shape;
  // A point-block's cost grows with m·(d + 8) (d multiply-adds for ω·x, about 8 flops for the sincos and the sums).
  const work = m * (shape.d + 8);
  const c = ((loop?.pointBlockUs ?? (strategy === 'history' ? f.pointBlockUs : f.rowPointBlockUs)) / 1000) * (work / itemWork);
  const cRow = ((loop?.pointBlockUs ?? f.rowPointBlockUs) / 1000) * (work / itemWork);
  const s = loop?.ms ?? serial[strategy].ms;
  const sAlong = overlap ? (loop?.alongsideMs ?? serial[strategy].alongsideMs) : 0;
  const sleeps = asleep || s - sAlong + a >= SPIN_BUDGET_MS;
  const wakeUs = sleeps ? f.notifyPerThreadUs : 0;
  const oMs = sleeps ? o.asleep : o.spinning;
  // The history's points a call evaluates, and the hot rows' update (its own threads: 1 below the threshold).
  const Bh = hot === 'none' ? B : COLD;
  const H = hot === 'none' ? 0 : HOT_ROWS;
  const qHot = H > 0 ? callThreads(H * work, H, p) : 1;
  const hotMs = H * cRow;
  const hotUnits = hot === 'units' && overlap;
  // A hot-row update that is a call of its own after the cold one.
  const hotCall = H === 0 ? 0 : qHot === 1 ? a + hotMs : a + hotMs / qHot + oMs + (rowGrain(H, qHot) * cRow) / 2;
  // As units of the call: the rows' work joins the call's, and the newest block at the hot points (2B/3) is the calling thread's.
  const hotShared = hotUnits ? hotMs : 0;
  const hotPoints = hotUnits ? c * (B - COLD) : 0;
  let ms = 0;
  let kernelMs = 0;
  for (let t = 1; t <= T; t++) {
    const W = strategy === 'history' ? (t - 1) * Bh : n;
    // With the row cache a block behind, the calling thread computes the newest block at the next batch (t < T),
    // during the call (Evaluator.newestAhead).
    const lookahead = strategy === 'rows' && overlap && t < T ? c * B : 0;
    kernelMs += c * (W + B) + lookahead + (t > 1 ? hotMs : 0);
    if (W === 0) {
      ms += s;
      continue;
    }
    let q: number;
    let unitMs: number;
    let units: number;
    let claimUs: number;
    let reduceMs = 0;
    if (strategy === 'history') {
      const chunks = Math.ceil((t - 1) / TRAINING_CHUNK_SIZE);
      // A call with fewer than UNITS_PER_THREAD chunks a thread cuts them into point slices (slicesFor), and
      // counts the slices as parts when it picks its threads: the evaluator's own policy (chunkSplit).
      const { parts, slices: S } = chunkSplit((t - 1) * Bh * work, chunks, Bh, p);
      q = parts;
      unitMs = (TRAINING_CHUNK_SIZE * Bh * c) / S;
      units = chunks * S;
      reduceMs = q > 1 ? (1 - 1 / q) * chunks * Bh * REDUCE_MS_PER_CHUNK_POINT : 0;
      claimUs = f.chunkUnitUs;
    } else {
      q = callThreads(n * work, n, p);
      const g = rowGrain(n, q);
      unitMs = g * c;
      units = Math.ceil(n / g);
      claimUs = f.rowUnitUs;
    }
    const along = sAlong + lookahead + hotPoints;
    // On one thread the calling thread brings the hot rows up to date after the append (`units`), or in a call of its own (`after`).
    if (q === 1) ms += s + a + c * W + lookahead + (H > 0 ? (hotUnits ? hotMs : hotCall) : 0);
    else ms += s - sAlong + a + Math.max(along, (c * W + hotShared + along) / q) + oMs + (wakeUs / 1000) * (q - 2) + unitMs / 2 + (Math.max(0, claimUs) / 1000) * (units / q) + reduceMs + (hotUnits ? 0 : hotCall);
  }
  return { ms, kernelMs };
}

const rows: Array<Record<string, string | number>> = [];
for (const strategy of ['history', 'rows'] as const) {
  for (const T of [400, 1000, 10_000]) {
    const one = predict(strategy, T, 1).ms;
    for (const p of [1, 2, 16, 32, 56]) {
      const { ms, kernelMs } = predict(strategy, T, p);
      const auto = B * T * (T - 1) / 2 > n * T ? 'rows' : 'history';
      // The same run with the hot rows' block added in a call of its own (the loop before Evaluator.rowsRider), and with no hot rows.
      const other = (hot: Hot) => (strategy === 'history' ? predict(strategy, T, 1, { hot }).ms / predict(strategy, T, p, { hot }).ms : '–');
      rows.push({
        strategy: strategy + (strategy === auto ? ' (auto)' : ''), T, threads: p, 'predicted s': ms / 1000, speedup: one / ms, efficiency: one / ms / p, 'loop efficiency': kernelMs / (p * ms),
        'speedup, workers asleep': one / predict(strategy, T, p, { asleep: true }).ms,
        'speedup, hot rows after the call': other('after'),
        'speedup, no hot rows': other('none'),
      });
    }
  }
}
// The 16-core run: 1M × 18 generated rows, T = 1,000 (auto: the history), at 16 and 56 threads.
const BIG: Shape = { n: 1_000_000, d: 18 };
const bigOne = predict('history', 1000, 1, { shape: BIG }).ms;
const big = [16, 56].map((p) => ({
  run: '1M × 18, T = 1,000, history', threads: p,
  'predicted s': predict('history', 1000, p, { shape: BIG }).ms / 1000,
  speedup: bigOne / predict('history', 1000, p, { shape: BIG }).ms,
  'speedup, hot rows after the call': predict('history', 1000, 1, { shape: BIG, hot: 'after' }).ms / predict('history', 1000, p, { shape: BIG, hot: 'after' }).ms,
}));
// The short run (50,000 × 9, T = 400, the history with hot rows) with the point-block cost and serial loop
// time of the build the newest profiled run measured (its 1-thread profile), where there is one.
const today = loopConstants('scaling-shuttle-rider-T400.json');
const short = today === undefined ? [] : [1, 2, 16, 32, 56].map((p) => {
  const of = (hot: Hot) => predict('history', 400, 1, { hot, loop: today }).ms / predict('history', 400, p, { hot, loop: today }).ms;
  const { ms, kernelMs } = predict('history', 400, p, { loop: today });
  return {
    run: '50,000 × 9, T = 400, history', constants: today.from, threads: p, 'predicted s': ms / 1000, speedup: of('units'), efficiency: of('units') / p,
    'loop efficiency': kernelMs / (p * ms), 'speedup, hot rows after the call': of('after'), 'speedup, no hot rows': of('none'),
  };
});
// The check: every measured thread count of the scaling runs against the model, alone and scaled by the run's
// machine ceiling at that count (the speedup one long kernel evaluation reached there, just before the run),
// each run's file with the loop it measured: before the hot rows, the hot rows' block in a call of its own, or riding along.
const checkedFiles: Array<{ file: string; shape: Shape; hot: Hot }> = [
  { file: 'scaling-shuttle-T400.json', shape: SHUTTLE, hot: 'none' },
  { file: 'scaling-shuttle-T1000.json', shape: SHUTTLE, hot: 'none' },
  { file: 'scaling-shuttle-hot-T400.json', shape: SHUTTLE, hot: 'after' },
  { file: 'scaling-shuttle-hot-base-T400.json', shape: SHUTTLE, hot: 'after' },
  { file: 'scaling-shuttle-rider-T400.json', shape: SHUTTLE, hot: 'units' },
  { file: 'scaling-1M-T1000.json', shape: BIG, hot: 'none' },
];
const checks = checkedFiles.filter(({ file }) => existsSync(new URL(file, results))).flatMap(({ file, shape, hot }) => {
  const { run } = readRun(file);
  const strategy = run.evaluation as 'history' | 'rows';
  const one = predict(strategy, run.iterations, 1, { shape, hot }).ms;
  return run.rows.filter((r) => r.threads > 1).map((r) => {
    const predicted = one / predict(strategy, run.iterations, r.threads, { shape, hot }).ms;
    return {
      run: file, strategy: strategy === 'history' ? `history, hot rows ${hot}` : strategy, threads: r.threads, 'measured speedup': r.speedup, 'predicted speedup': predicted,
      'machine ceiling': r.ceiling ?? '–', 'predicted × ceiling / p': r.ceiling === undefined ? '–' : (predicted * r.ceiling) / r.threads,
    };
  });
});
console.log(`constants: c = ${f.pointBlockUs.toFixed(3)} µs (history) / ${f.rowPointBlockUs.toFixed(3)} µs (rows) a point-block; a = ${a.toFixed(3)} ms; o = ${o.spinning.toFixed(3)} ms (workers spinning) / ${o.asleep.toFixed(3)} ms (asleep); w = ${f.notifyPerThreadUs.toFixed(2)} µs (0 while the workers spin, up to ${SPIN_BUDGET_MS} ms between calls); h = ${f.chunkUnitUs.toFixed(2)} / ${f.rowUnitUs.toFixed(2)} µs; s = ${serial.history.ms.toFixed(3)} ms (history, ${serial.history.from}) / ${serial.rows.ms.toFixed(3)} ms (rows, ${serial.rows.from}, of which s∥ = ${serial.history.alongsideMs.toFixed(3)} / ${serial.rows.alongsideMs.toFixed(3)} ms alongside the workers)`);
console.log(markdownTable(rows, { digits: 3 }));
console.log(markdownTable(big, { digits: 3 }));
if (today) console.log(`with c = ${today.pointBlockUs.toFixed(3)} µs, s = ${today.ms.toFixed(3)} ms, s∥ = ${today.alongsideMs.toFixed(3)} ms from ${today.from}:\n${markdownTable(short, { digits: 3 })}`);
console.log(markdownTable(checks, { digits: 3 }));
const paths = writeBenchOutputs(inputDir === undefined ? 'efficiency-model' : `efficiency-model-${basename(resolve(inputDir))}`, { inputs: inputDir ?? 'bench/results', constants: { ...f, serialCallMs: a, parallelCallMs: o, serialLoopMs: serial }, dispatchDate: dispatch.date, shape: { n, d, m, B }, predictions: rows, bigRun: big, shortRun: { constants: today ?? null, predictions: short }, checks, date: new Date().toISOString() });
console.log(`wrote ${paths.json}`);
