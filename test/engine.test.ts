import { afterAll, describe, expect, it } from 'vitest';
import seedrandom from 'seedrandom';
import { Evaluator } from '../src/engine/evaluator.ts';
import { History } from '../src/engine/history.ts';
import { EvaluatorPool } from '../src/engine/pool.ts';
import { referenceEvaluate } from '../src/engine/reference-evaluator.ts';
import type { RandomFeatures } from '../src/engine/random-features.ts';
import { shrunkHistory } from './support/history.ts';

const rf: RandomFeatures = { kernel: { kind: 'rbf', sigma: 2 }, seed: 1234, d: 9, m: 24 };

const randomHistory = (t: number, seed: string, capacity = t): History => shrunkHistory(rf.m, t, seed, capacity);

function randomPoints(n: number, d: number, seed: string): Float64Array {
  const rng = seedrandom(seed);
  return Float64Array.from({ length: n * d }, () => rng());
}

const bits = (a: Float64Array) => Buffer.from(a.buffer, a.byteOffset, a.byteLength);

describe('Evaluator', () => {
  const history = randomHistory(203, 'hist');
  const X = randomPoints(37, rf.d, 'pts');
  const pools: EvaluatorPool[] = [];
  afterAll(async () => {
    await Promise.all(pools.map((p) => p.close()));
  });

  it('matches the plain reference evaluator', async () => {
    const ev = new Evaluator(history, rf, { threads: 1 });
    const fast = await ev.evaluate(X, 37);
    const ref = referenceEvaluate(history, rf, X, 37);
    let worst = 0;
    for (let p = 0; p < 37; p++) worst = Math.max(worst, Math.abs(fast[p] - ref[p]) / (Math.abs(ref[p]) + 1e-3));
    expect(worst).toBeLessThan(1e-10);
  });

  it('gives bit-identical results with 1, 2, 3 and 4 threads', async () => {
    const results: Float64Array[] = [];
    for (const threads of [1, 2, 3, 4]) {
      const pool = threads > 1 ? new EvaluatorPool(threads - 1) : undefined;
      if (pool) pools.push(pool);
      // parallelMinWork 0: every call goes to the workers when there are any.
      const ev = new Evaluator(history, rf, { threads, parallelMinWork: 0, ...(pool ? { pool } : {}) });
      expect(ev.threads).toBe(threads);
      results.push(await ev.evaluate(X, 37));
    }
    for (const r of results.slice(1)) expect(bits(r).equals(bits(results[0]))).toBe(true);
  });

  it('gives identical results with the frequency cache on, off, and too small', async () => {
    const pool = new EvaluatorPool(2);
    pools.push(pool);
    const plain = await new Evaluator(history, rf, { pool, parallelMinWork: 0, cacheBytes: 0 }).evaluate(X, 37);
    const cachedEv = new Evaluator(history, rf, { pool, parallelMinWork: 0, cacheBytes: 64 << 20 });
    const cold = await cachedEv.evaluate(X, 37);
    const warm = await cachedEv.evaluate(X, 37);
    const partial = await new Evaluator(history, rf, { threads: 1, cacheBytes: 8 * rf.d * rf.m * 10 }).evaluate(X, 37);
    for (const r of [cold, warm, partial]) expect(bits(r).equals(bits(plain))).toBe(true);
  });

  it("reads a given frequency store of the same features (the training run's) instead of a new one, with the same bits; another map's store is not used", async () => {
    const run = new Evaluator(history, rf, { threads: 1 });
    const plain = await run.evaluate(X, 37);
    const shared = new Evaluator(history, { ...rf }, { threads: 1, frequencies: run.frequencies });
    expect(shared.frequencies).toBe(run.frequencies);
    expect(bits(await shared.evaluate(X, 37)).equals(bits(plain))).toBe(true);
    const other = new Evaluator(history, { ...rf, seed: rf.seed + 1 }, { threads: 1, frequencies: run.frequencies });
    expect(other.frequencies).not.toBe(run.frequencies);
  });

  it("a point's value does not depend on the other points in the call", async () => {
    const ev = new Evaluator(history, rf, { threads: 1 });
    const all = await ev.evaluate(X, 37);
    const single = await ev.evaluate(X.subarray(20 * rf.d, 21 * rf.d), 1);
    expect(single[0]).toBe(all[20]);
  });

  it('evaluateAppending gives the bits evaluate gives after the append, on 1, 2 and 3 threads, the workers summing meanwhile', async () => {
    const alpha = Float64Array.from({ length: 2 * rf.m }, (_, j) => Math.sin(j + 1));
    for (const threads of [1, 2, 3]) {
      const pool = threads > 1 ? new EvaluatorPool(threads - 1) : undefined;
      if (pool) pools.push(pool);
      for (const chunkSize of [4, 16]) {
        // Around chunk boundaries: the new block opens a chunk, fills one, or lands mid-chunk; and an empty history.
        for (const t of [0, 3, 4, 5, 31, 32, 33, 202]) {
          const opts = { threads, parallelMinWork: 0, chunkSize, ...(pool ? { pool } : {}) };
          const after = randomHistory(t, 'grow', t + 1);
          after.shrink(0.97);
          after.append(alpha);
          const expected = await new Evaluator(after, rf, opts).evaluate(X, 37);
          const h = randomHistory(t, 'grow', t + 1);
          const ev = new Evaluator(h, rf, opts);
          let appends = 0;
          const got = await ev.evaluateAppending(X, 37, new Float64Array(37), 1, () => {
            appends++;
            h.shrink(0.97);
            h.append(alpha);
          });
          expect(appends).toBe(1);
          expect(bits(got).equals(bits(expected)), `threads ${threads}, chunk ${chunkSize}, t ${t}`).toBe(true);
        }
      }
    }
    // A call long enough that the worker surely takes chunks while append runs on the calling thread.
    const pool = new EvaluatorPool(1);
    pools.push(pool);
    const h = randomHistory(1500, 'long', 1501);
    const ev = new Evaluator(h, rf, { pool, chunkSize: 4 });
    await ev.evaluateAppending(randomPoints(200, rf.d, 'many'), 200, new Float64Array(200), 1, () => h.append(alpha));
    expect(ev.workerChunks).toBeGreaterThan(0);
  });

  it('evaluateAppending rejects an append that changes stored values or throws, after the workers finish, and the engine goes on working', async () => {
    const pool = new EvaluatorPool(1);
    pools.push(pool);
    const h = randomHistory(100, 'grow', 110);
    const ev = new Evaluator(h, rf, { pool, parallelMinWork: 0, chunkSize: 4 });
    const block = new Float64Array(2 * rf.m).fill(0.1);
    // Two blocks where one was announced; a shrink that folds the scale into the stored blocks; an error.
    await expect(ev.evaluateAppending(X, 37, new Float64Array(37), 1, () => { h.append(block); h.append(block); })).rejects.toThrow(/append must add 1 item/);
    await expect(ev.evaluateAppending(X, 37, new Float64Array(37), 1, () => { h.shrink(1e-120); h.append(block); })).rejects.toThrow(/renormalisations 0 → 1/);
    await expect(ev.evaluateAppending(X, 37, new Float64Array(37), 1, () => { throw new Error('no block today'); })).rejects.toThrow('no block today');
    expect(h.shrinkIsLazy(1e-120)).toBe(false);
    expect(h.shrinkIsLazy(0)).toBe(false);
    expect(h.shrinkIsLazy(0.5)).toBe(true);
    const direct = await new Evaluator(h, rf, { threads: 1, chunkSize: 4 }).evaluate(X, 37);
    expect(bits(await ev.evaluate(X, 37)).equals(bits(direct))).toBe(true);
  });

  it('a failing worker rejects the call with a clear error instead of hanging', async () => {
    const pool = new EvaluatorPool(2);
    pools.push(pool);
    const bad = {
      history: history.buffer,
      features: rf,
      points: new SharedArrayBuffer(8),
      nPoints: 37,
      results: new SharedArrayBuffer(8 * 37 * 20),
      resultBase: 0,
      chunkSize: 16,
      chunkFrom: 0,
      chunkTo: 2,
      firstBlock: 0,
      lastBlock: 32,
      frequencies: new SharedArrayBuffer(0),
    };
    await expect(pool.run(bad)).rejects.toThrow(/evaluation worker failed: .*points buffer/);
    // The pool still works afterwards.
    const ev = new Evaluator(history, rf, { pool, parallelMinWork: 0 });
    expect((await ev.evaluate(X, 37)).length).toBe(37);
    await pool.close();
    await expect(pool.run(bad)).rejects.toThrow(/closed/);
  });

  it('a worker that dies (out of memory) rejects the call instead of hanging', async () => {
    const pool = new EvaluatorPool(1, { resourceLimits: { maxOldGenerationSizeMb: 2, maxYoungGenerationSizeMb: 1 } });
    pools.push(pool);
    const ev = new Evaluator(history, rf, { pool, parallelMinWork: 0 });
    await expect(ev.evaluate(X, 37)).rejects.toThrow(/evaluation worker failed: .*memory limit/);
    // Its replacement dies too, with or without a task: the next call says so (and nothing is
    // left as an uncaught exception, which vitest would report).
    await new Promise((resolve) => setTimeout(resolve, 200));
    await expect(ev.evaluate(X, 37)).rejects.toThrow(/evaluation worker failed.*memory limit/);
  });
});

describe('History lazy scaling', () => {
  it('equals literal shrinking over a long random run, through renormalisations and exact zeros', () => {
    const m = 3;
    const rng = seedrandom('lazy');
    const lazy = new History({ m, capacity: 3000 });
    const literal: Float64Array[] = [];
    let renormalisations = 0;
    let zeros = 0;
    for (let t = 1; t <= 3000; t++) {
      const alpha = Float64Array.from({ length: 2 * m }, () => rng() - 0.5);
      lazy.append(alpha);
      literal.push(Float64Array.from(alpha));
      // Mostly contracting factors (forcing renormalisation), some negative, and a few exact zeros.
      const u = rng();
      const factor = t % 1000 === 0 && t < 3000 ? 0 : u < 0.05 ? -0.5 : 0.4 + 0.3 * u;
      if (factor === 0) zeros++;
      const before = lazy.scale;
      lazy.shrink(factor);
      if (factor !== 0 && lazy.scale === 1 && before !== 1) renormalisations++;
      for (const a of literal) for (let j = 0; j < 2 * m; j++) a[j] *= factor;
    }
    expect(zeros).toBe(2);
    expect(renormalisations).toBeGreaterThanOrEqual(5);
    // Blocks before the last exact zero are exactly zero; the others agree to rounding
    // wherever the literal product has not underflowed into denormals.
    let worst = 0;
    let compared = 0;
    const lastZero = 2000; // blocks 0..1999 were appended before the zero at t = 2000
    for (let i = 0; i < 3000; i++) {
      const got = lazy.coefficients(i);
      for (let j = 0; j < 2 * m; j++) {
        const want = literal[i][j];
        if (i < lastZero) {
          expect(got[j]).toBe(0);
        } else if (Math.abs(want) > 1e-290) {
          worst = Math.max(worst, Math.abs(got[j] - want) / Math.abs(want));
          compared++;
        }
      }
    }
    expect(compared).toBeGreaterThan(1000);
    expect(worst).toBeLessThan(1e-12);
  });

  it('a factor of exactly 0 (t = θλ) drops every earlier block; a negative factor is kept', () => {
    const h = new History({ m: 1, capacity: 4 });
    h.append([1, 2]);
    h.shrink(-0.5);
    expect(Array.from(h.coefficients(0))).toEqual([-0.5, -1]);
    h.append([3, 4]);
    h.shrink(0);
    expect(h.firstLive).toBe(2);
    expect(Array.from(h.coefficients(1))).toEqual([0, 0]);
    h.append([5, 6]);
    expect(Array.from(h.coefficients(2))).toEqual([5, 6]);
  });
});
