import { afterAll, describe, expect, it } from 'vitest';
import seedrandom from 'seedrandom';
import type { KernelSpec } from '../src/features/kernel-spec.ts';
import { EvaluatorPool } from '../src/engine/pool.ts';
import { referenceEvaluateSv } from '../src/engine/reference-evaluator.ts';
import { SharedRows } from '../src/engine/shared-rows.ts';
import { SupportVectorEvaluator } from '../src/engine/sv-evaluator.ts';
import { SupportVectorHistory } from '../src/engine/sv-history.ts';
import { evaluateExpansion, type KernelExpansion } from '../src/features/kernel-expansion.ts';

const bits = (a: Float64Array) => Buffer.from(a.buffer, a.byteOffset, a.byteLength);

function randomMatrix(n: number, d: number, seed: string): Float64Array {
  const rng = seedrandom(seed);
  return Float64Array.from({ length: n * d }, () => rng());
}

const d = 6;
const nRows = 500;
const rows = SharedRows.from(randomMatrix(nRows, d, 'rows'), nRows, d);

/**
 * A history grown the way an SGD loop grows one: a few coefficients per step,
 * rows drawn with repeats (so entries merge), the past shrunk by (t−1)/(t+1).
 */
function grownHistory(steps: number, seed: string): SupportVectorHistory {
  const rng = seedrandom(seed);
  const h = new SupportVectorHistory({ capacity: 3 * steps });
  for (let t = 1; t <= steps; t++) {
    h.shrink((t - 1 + 1e-3) / (t + 1));
    for (let k = 0; k < 3; k++) h.add(Math.floor(rng() * nRows), (rng() - 0.5) / t);
  }
  return h;
}

describe('SupportVectorHistory', () => {
  it('merges a repeated row into its entry and appends new rows in first-seen order', () => {
    const h = new SupportVectorHistory({ capacity: 8 });
    expect(h.add(40, 1)).toBe(0);
    expect(h.add(7, 2)).toBe(1);
    h.shrink(0.5);
    expect(h.add(40, 0.25)).toBe(0); // merged: 0.5·1 + 0.25
    expect(h.add(9, -1)).toBe(2);
    expect(h.t).toBe(3);
    expect(Array.from(h.rows.subarray(0, 3))).toEqual([40, 7, 9]);
    expect([h.coefficient(0), h.coefficient(1), h.coefficient(2)]).toEqual([0.75, 1, -1]);
    expect(h.entryOfRow(7)).toBe(1);
    expect(h.entryOfRow(8)).toBeUndefined();
  });

  it('lazy scaling with merges equals literal shrinking over a long run, through renormalisations and exact zeros', () => {
    const rng = seedrandom('lazy-sv');
    const lazy = new SupportVectorHistory({ capacity: 20_000 });
    // The literal model: row → true coefficient, every one multiplied at each shrink.
    let literal = new Map<number, number>();
    let renormalisations = 0;
    let zeros = 0;
    let merges = 0;
    for (let t = 1; t <= 3000; t++) {
      for (let k = 0; k < 3; k++) {
        const row = Math.floor(rng() * 400);
        const beta = rng() - 0.5;
        if (lazy.entryOfRow(row) !== undefined) merges++;
        lazy.add(row, beta);
        literal.set(row, (literal.get(row) ?? 0) + beta);
      }
      const u = rng();
      const factor = t % 1000 === 0 && t < 3000 ? 0 : u < 0.05 ? -0.5 : 0.4 + 0.3 * u;
      const before = lazy.scale;
      lazy.shrink(factor);
      if (factor === 0) {
        zeros++;
        literal = new Map();
      } else if (lazy.scale === 1 && before !== 1) renormalisations++;
      for (const [row, v] of literal) literal.set(row, v * factor);
    }
    expect(zeros).toBe(2);
    expect(renormalisations).toBeGreaterThanOrEqual(5);
    expect(merges).toBeGreaterThan(1000);
    // Entries before the last zero are dropped; each live row has exactly one live entry.
    expect(lazy.firstLive).toBeGreaterThan(0);
    for (let e = 0; e < lazy.firstLive; e++) expect(lazy.coefficient(e)).toBe(0);
    const liveRows = new Set<number>();
    let worst = 0;
    let compared = 0;
    for (let e = lazy.firstLive; e < lazy.t; e++) {
      const row = lazy.rows[e];
      expect(liveRows.has(row)).toBe(false);
      liveRows.add(row);
      const want = literal.get(row) ?? 0;
      if (Math.abs(want) > 1e-290) {
        worst = Math.max(worst, Math.abs(lazy.coefficient(e) - want) / Math.abs(want));
        compared++;
      }
    }
    expect(liveRows.size).toBe(literal.size);
    expect(compared).toBeGreaterThan(100);
    expect(worst).toBeLessThan(1e-9);
  });

  it('an exact-zero factor drops every entry; a dropped row comes back as a new entry', () => {
    const h = new SupportVectorHistory({ capacity: 4 });
    h.add(3, 1);
    h.shrink(0);
    expect(h.firstLive).toBe(1);
    expect(h.add(3, 2)).toBe(1);
    expect([h.coefficient(0), h.coefficient(1)]).toEqual([0, 2]);
  });

  it('restore rebuilds the same history and refuses two live entries for one row', () => {
    const h = grownHistory(50, 'restore');
    const r = SupportVectorHistory.restore({ t: h.t, scale: h.scale, firstLive: h.firstLive, rows: h.rows.subarray(0, h.t), stored: h.stored.subarray(0, h.t) });
    for (let e = 0; e < h.t; e++) expect(r.coefficient(e)).toBe(h.coefficient(e));
    const row = h.rows[h.t - 1];
    expect(r.add(row, 0)).toBe(h.t - 1); // the merge map is rebuilt too
    expect(() => SupportVectorHistory.restore({ t: 2, scale: 1, firstLive: 0, rows: [5, 5], stored: Float64Array.of(1, 2) })).toThrow(/both hold row 5/);
  });
});

describe('SupportVectorEvaluator', () => {
  const pools: EvaluatorPool[] = [];
  afterAll(async () => {
    await Promise.all(pools.map((p) => p.close()));
  });
  const history = grownHistory(400, 'eval'); // 1,200 additions over 500 rows: 457 entries, the rest merged
  const X = randomMatrix(29, d, 'points');

  for (const kernel of [{ kind: 'rbf', sigma: 1.7 }, { kind: 'laplacian', sigma: 0.6 }] as KernelSpec[]) {
    it(`${kernel.kind}: matches the plain reference evaluator within 1e-12`, async () => {
      const ev = new SupportVectorEvaluator(history, { kernel, rows }, { threads: 1, chunkSize: 64 });
      const fast = await ev.evaluate(X, 29);
      const ref = referenceEvaluateSv(history, { kernel, rows }, X, 29);
      let mag = 0;
      for (let e = history.firstLive; e < history.t; e++) mag += Math.abs(history.coefficient(e));
      let worst = 0;
      for (let p = 0; p < 29; p++) worst = Math.max(worst, Math.abs(fast[p] - ref[p]) / mag);
      expect(worst).toBeLessThan(1e-12);
    });

    it(`${kernel.kind}: bit-identical on 1, 2 and 3 threads, with the pool's workers computing chunks`, async () => {
      expect(history.t).toBeGreaterThan(10 * 32);
      const results: Float64Array[] = [];
      for (const threads of [1, 2, 3]) {
        const pool = threads > 1 ? new EvaluatorPool(threads - 1) : undefined;
        if (pool) pools.push(pool);
        const ev = new SupportVectorEvaluator(history, { kernel, rows }, { threads, chunkSize: 32, parallelMinWork: 0, ...(pool ? { pool } : {}) });
        results.push(await ev.evaluate(X, 29));
        if (threads > 1) {
          expect(ev.parallelCalls).toBe(1);
          expect(ev.workerChunks).toBeGreaterThan(0);
        } else {
          expect(ev.workerChunks).toBe(0);
        }
      }
      for (const r of results.slice(1)) expect(bits(r).equals(bits(results[0]))).toBe(true);
    });
  }

  it('workers read the shared rows in place: a row changed after the first call is seen by the next', async () => {
    const own = SharedRows.from(rows.X, nRows, d);
    const pool = new EvaluatorPool(1);
    pools.push(pool);
    const kernel: KernelSpec = { kind: 'rbf', sigma: 1 };
    const ev = new SupportVectorEvaluator(history, { kernel, rows: own }, { pool, chunkSize: 64, parallelMinWork: 0 });
    await ev.evaluate(X, 29);
    // Move every row (the worker's chunks included) and evaluate again.
    own.X.fill(0.5);
    const after = await ev.evaluate(X, 29);
    expect(ev.workerChunks).toBeGreaterThan(0);
    const ref = referenceEvaluateSv(history, { kernel, rows: own }, X, 29);
    for (let p = 0; p < 29; p++) expect(after[p]).toBeCloseTo(ref[p], 12);
  });

  it('evaluates a fixed kernel expansion (the exact solver’s KernelExpansion) like evaluateExpansion', async () => {
    const n = 300;
    const rng = seedrandom('expansion');
    const e: KernelExpansion = { kernel: { kind: 'rbf', sigma: 2 }, d, centers: randomMatrix(n, d, 'centres'), c: Float64Array.from({ length: n }, () => rng() - 0.5) };
    const built = SupportVectorHistory.fromExpansion(e);
    expect(built.history.t).toBe(n);
    const pool = new EvaluatorPool(1);
    pools.push(pool);
    const ev = new SupportVectorEvaluator(built.history, { kernel: e.kernel, rows: built.rows }, { pool, chunkSize: 32, parallelMinWork: 0 });
    const got = await ev.evaluate(X, 29);
    const want = evaluateExpansion(e, X, 29);
    for (let p = 0; p < 29; p++) expect(Math.abs(got[p] - want[p])).toBeLessThan(1e-12 * n);
    expect(ev.workerChunks).toBeGreaterThan(0);
  });

  it('a worker that fails (an entry refers to a row that does not exist) rejects the call', async () => {
    const bad = new SupportVectorHistory({ capacity: 200 });
    // 13 chunks of 16 in two runs, [0, 7) and [7, 13): the bad row sits in chunk 7, the first of the worker's run, which
    // the worker always computes itself (the calling thread may take any other chunk of that run).
    for (let e = 0; e < 200; e++) bad.add(e === 7 * 16 ? nRows + 5 : e, 1);
    const pool = new EvaluatorPool(1);
    pools.push(pool);
    const ev = new SupportVectorEvaluator(bad, { kernel: { kind: 'rbf', sigma: 1 }, rows }, { pool, chunkSize: 16, parallelMinWork: 0 });
    await expect(ev.evaluate(X, 29)).rejects.toThrow(/evaluation worker failed: .*entry 112 refers to row 505, beyond the 500 rows/);
    // The pool still works afterwards.
    const good = new SupportVectorEvaluator(history, { kernel: { kind: 'rbf', sigma: 1 }, rows }, { pool, chunkSize: 64, parallelMinWork: 0 });
    expect((await good.evaluate(X, 29)).length).toBe(29);
  });
});
