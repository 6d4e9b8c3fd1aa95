/**
 * Point slices (chunks.ts `slicesFor`, chunk-runner.ts): a parallel call over
 * a short history on many threads cuts each chunk into slices of its points,
 * so the last unit of a call is small. A slice is the chunk's sum at fewer
 * points, so slicing must never change a bit — on either kind of history,
 * through `evaluate` and through `evaluateAppending` (the loop's call).
 */
import { afterAll, describe, expect, it } from 'vitest';
import seedrandom from 'seedrandom';
import { ChunkRunner, taskRange, type EvalTask } from '../src/engine/chunk-runner.ts';
import { MAX_SLICES, MIN_SLICE_POINTS, sliceStart, slicesFor, UNITS_PER_THREAD } from '../src/engine/chunks.ts';
import { Evaluator } from '../src/engine/evaluator.ts';
import { History } from '../src/engine/history.ts';
import { EvaluatorPool } from '../src/engine/pool.ts';
import type { RandomFeatures } from '../src/engine/random-features.ts';
import { SharedRows } from '../src/engine/shared-rows.ts';
import { SupportVectorEvaluator } from '../src/engine/sv-evaluator.ts';
import { SupportVectorHistory } from '../src/engine/sv-history.ts';
import { shrunkHistory } from './support/history.ts';

const rf: RandomFeatures = { kernel: { kind: 'rbf', sigma: 2 }, seed: 7, d: 5, m: 12 };
const bits = (a: Float64Array) => Buffer.from(a.buffer, a.byteOffset, a.byteLength);
const matrix = (n: number, d: number, seed: string) => {
  const rng = seedrandom(seed);
  return Float64Array.from({ length: n * d }, () => rng());
};

describe('slicesFor and sliceStart', () => {
  it('slices only when the chunks give a thread fewer than UNITS_PER_THREAD units, up to MAX_SLICES, never below MIN_SLICE_POINTS points', () => {
    expect(slicesFor(100, 192, 2)).toBe(1);
    expect(slicesFor(UNITS_PER_THREAD * 56, 192, 56)).toBe(1);
    expect(slicesFor(250, 192, 56)).toBe(2);
    expect(slicesFor(20, 192, 56)).toBe(MAX_SLICES);
    expect(slicesFor(20, 2 * MIN_SLICE_POINTS, 56)).toBe(2);
    expect(slicesFor(20, 2 * MIN_SLICE_POINTS - 1, 56)).toBe(1);
  });

  it('cuts [0, n) into S disjoint spans in order, each starting on a 4-point tile', () => {
    for (const n of [1, 16, 33, 50, 192, 193]) {
      for (const S of [1, 2, 4]) {
        let at = 0;
        for (let s = 0; s < S; s++) {
          const [p0, p1] = [sliceStart(s, S, n), sliceStart(s + 1, S, n)];
          expect(p0).toBe(at);
          expect(p0 % 4 === 0 || p0 === n).toBe(true);
          expect(p1).toBeGreaterThanOrEqual(p0);
          at = p1;
        }
        expect(at).toBe(n);
      }
    }
  });
});

describe('a task cut into point slices', () => {
  it('the runner gives every chunk the same partial sums, run whole or slice by slice in any grouping', () => {
    const history = shrunkHistory(rf.m, 30, 'runner', 30);
    const nPoints = 70;
    const points = new SharedArrayBuffer(8 * nPoints * rf.d);
    new Float64Array(points).set(matrix(nPoints, rf.d, 'pts'));
    const chunks = Math.ceil(30 / 4);
    const task = (slices: number): EvalTask => ({
      history: history.buffer, points, nPoints, results: new SharedArrayBuffer(8 * chunks * nPoints), resultBase: 0,
      chunkSize: 4, chunkFrom: 0, chunkTo: chunks, firstBlock: 0, lastBlock: 30, features: rf, frequencies: new SharedArrayBuffer(8), slices,
    });
    const whole = task(1);
    new ChunkRunner().run(whole);
    const sliced = task(4);
    const part = new ChunkRunner().begin(sliced);
    const [from, to] = taskRange(sliced);
    expect([from, to]).toEqual([0, 4 * chunks]);
    // Uneven groups that start and end inside chunks.
    for (let i = from; i < to; ) {
      const next = Math.min(to, i + 1 + (i % 3) * 2);
      part(i, next);
      i = next;
    }
    expect(bits(new Float64Array(sliced.results)).equals(bits(new Float64Array(whole.results)))).toBe(true);
  });
});

describe('parallel calls over a short history on more threads than its chunks serve', () => {
  const pools: EvaluatorPool[] = [];
  afterAll(async () => {
    await Promise.all(pools.map((p) => p.close()));
  });
  const pool = (workers: number) => {
    const p = new EvaluatorPool(workers);
    pools.push(p);
    return p;
  };
  const nPoints = 96;
  const X = matrix(nPoints, rf.d, 'batch');

  it('random features: sliced calls on 4 threads give the bits of 1 thread, through evaluate and evaluateAppending', async () => {
    expect(slicesFor(Math.ceil(22 / 4), nPoints, 4)).toBe(MAX_SLICES);
    const source = shrunkHistory(rf.m, 24, 'short', 24);
    const run = async (threads: number) => {
      const h = History.restore({ m: rf.m, t: 22, scale: source.scale, firstLive: 0, stored: source.stored.subarray(0, 22 * 2 * rf.m), capacity: 24 });
      const ev = new Evaluator(h, rf, { threads, chunkSize: 4, parallelMinWork: 0, ...(threads > 1 ? { pool: pool(threads - 1) } : {}) });
      const f = await ev.evaluate(X, nPoints);
      const g = await ev.evaluateAppending(X, nPoints, new Float64Array(nPoints), 1, () => {
        h.shrink(0.97);
        h.append(source.stored.subarray(22 * 2 * rf.m, 23 * 2 * rf.m));
      });
      return { f, g, workerChunks: ev.workerChunks };
    };
    const one = await run(1);
    const four = await run(4);
    expect(four.workerChunks).toBeGreaterThan(0);
    expect(bits(four.f).equals(bits(one.f))).toBe(true);
    expect(bits(four.g).equals(bits(one.g))).toBe(true);
  });

  it('a call over one chunk, which no longer stays on the calling thread, is shared by slices with the same bits', async () => {
    const h = shrunkHistory(rf.m, 4, 'one chunk', 4);
    const one = await new Evaluator(h, rf, { threads: 1, chunkSize: 4 }).evaluate(X, nPoints);
    const ev = new Evaluator(h, rf, { threads: 4, chunkSize: 4, parallelMinWork: 0, pool: pool(3) });
    const four = await ev.evaluate(X, nPoints);
    expect(ev.parallelCalls).toBe(1);
    expect(ev.workerChunks).toBeGreaterThan(0);
    expect(ev.workerChunks).toBeLessThan(1);
    expect(bits(four).equals(bits(one))).toBe(true);
  });

  it('support vectors: sliced calls on 4 threads give the bits of 1 thread', async () => {
    const rows = SharedRows.from(matrix(200, rf.d, 'sv rows'), 200, rf.d);
    const rng = seedrandom('sv');
    const h = new SupportVectorHistory({ capacity: 300 });
    for (let t = 1; t <= 100; t++) {
      h.shrink((t - 1 + 1e-3) / (t + 1));
      for (let k = 0; k < 3; k++) h.add(Math.floor(rng() * 200), (rng() - 0.5) / t);
    }
    const chunkSize = 32;
    expect(slicesFor(Math.ceil(h.t / chunkSize), nPoints, 4)).toBeGreaterThan(1);
    const results: Float64Array[] = [];
    for (const threads of [1, 4]) {
      const ev = new SupportVectorEvaluator(h, { kernel: { kind: 'rbf', sigma: 1.3 }, rows }, { threads, chunkSize, parallelMinWork: 0, ...(threads > 1 ? { pool: pool(threads - 1) } : {}) });
      results.push(await ev.evaluate(X, nPoints));
      if (threads > 1) expect(ev.workerChunks).toBeGreaterThan(0);
    }
    expect(bits(results[1]).equals(bits(results[0]))).toBe(true);
  });
});
