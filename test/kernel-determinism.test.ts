// The engine relies on these: the kernel's result for a point is a pure
// function of that point and the block — bit for bit, whatever was computed
// before, whichever other points share the call and wherever the point sits.
import { describe, expect, it } from 'vitest';
import seedrandom from 'seedrandom';
import { RffKernel } from '../src/engine/kernel.ts';

function uniform(rng: () => number, n: number, lo: number, hi: number): Float64Array {
  return new Float64Array(n).map(() => lo + (hi - lo) * rng());
}

/** Bit patterns, so that -0 vs +0 and NaN payloads count as differences. */
function bits(a: Float64Array): bigint[] {
  return Array.from(new BigUint64Array(a.buffer.slice(a.byteOffset, a.byteOffset + a.byteLength)));
}

interface Block {
  omegaT: Float64Array;
  alpha: Float64Array;
}

function blocks(seed: string, count: number, d: number, m: number): Block[] {
  const rng = seedrandom(seed);
  return Array.from({ length: count }, () => ({
    omegaT: uniform(rng, d * m, -4, 4),
    alpha: uniform(rng, 2 * m, -1, 1),
  }));
}

/** Evaluates Σ over blocks for the given points (row-major) in one call per block. */
function evaluate(kernel: RffKernel, X: Float64Array, n: number, d: number, m: number, bs: Block[]): Float64Array {
  kernel.reserve(Math.max(n, 1), d, m);
  kernel.points().set(X.subarray(0, n * d));
  kernel.clearOut(n);
  for (const b of bs) {
    kernel.omega().set(b.omegaT);
    kernel.alpha().set(b.alpha);
    kernel.accumulate(n);
  }
  return kernel.out().slice(0, n);
}

describe('RffKernel determinism', () => {
  for (const [d, m] of [
    [8, 128],
    [28, 3],
    [5, 64],
  ] as const) {
    it(`a point's value does not depend on the batch around it (d=${d}, m=${m})`, () => {
      const n = 23; // five 4-point tiles and a tail of 3
      const X = uniform(seedrandom(`x-${d}-${m}`), n * d, -1, 1);
      const bs = blocks(`b-${d}-${m}`, 3, d, m);
      const kernel = RffKernel.create();
      const all = bits(evaluate(kernel, X, n, d, m, bs));

      // Each point alone (the 1-point tail path).
      for (let p = 0; p < n; p++) {
        const alone = bits(evaluate(kernel, X.subarray(p * d, (p + 1) * d), 1, d, m, bs));
        expect(alone[0], `point ${p} alone`).toBe(all[p]);
      }
      // Reversed order: every point moves to another tile position (or into the tail).
      const rev = new Float64Array(n * d);
      for (let p = 0; p < n; p++) rev.set(X.subarray(p * d, (p + 1) * d), (n - 1 - p) * d);
      const reversed = bits(evaluate(kernel, rev, n, d, m, bs));
      for (let p = 0; p < n; p++) expect(reversed[n - 1 - p], `point ${p} reversed`).toBe(all[p]);
      // Every prefix length (tails of 0..3 points after any number of tiles).
      for (let k = 1; k <= n; k++) {
        expect(bits(evaluate(kernel, X, k, d, m, bs)), `first ${k} points`).toEqual(all.slice(0, k));
      }
    });
  }

  it('sparse rows: a point gets the same bits with its zero columns skipped (alone) or summed (beside a dense point)', () => {
    // Rows with few nonzeros (one-hot columns, an image's blank pixels), +0 and −0 among the
    // zeros, an all-zero row and a NaN: alone, a row's tile packs only its nonzero columns;
    // beside a row with no zero the tile sums every column, its zeros' ±0 products included.
    const d = 37;
    const m = 12;
    const rng = seedrandom('sparse');
    const sparse = Array.from({ length: 9 }, (_, r) => {
      const x = new Float64Array(d);
      for (let k = 0; k < d; k++) x[k] = rng() < 0.15 ? rng() * 2 - 1 : rng() < 0.5 ? -0 : 0;
      if (r === 0) x.fill(0);
      if (r === 1) x.fill(-0);
      if (r === 2) x[5] = NaN;
      return x;
    });
    const dense = uniform(rng, d, 0.1, 1);
    const bs = blocks('sparse-b', 2, d, m);
    const kernel = RffKernel.create();
    for (const x of sparse) {
      const alone = bits(evaluate(kernel, x, 1, d, m, bs))[0];
      const mixed = new Float64Array(4 * d);
      mixed.set(dense, 0);
      mixed.set(x, d);
      mixed.set(dense, 2 * d);
      mixed.set(x, 3 * d);
      const tile = bits(evaluate(kernel, mixed, 4, d, m, bs));
      expect(tile[1]).toBe(alone);
      expect(tile[3]).toBe(alone);
      // After a tile with no zero column the next tiles are packed whole without looking: the same bits.
      const run = new Float64Array(8 * d);
      for (let p = 0; p < 4; p++) run.set(dense, p * d);
      for (let p = 4; p < 8; p++) run.set(x, p * d);
      expect(bits(evaluate(kernel, run, 8, d, m, bs)).slice(4)).toEqual([alone, alone, alone, alone]);
      // project: the point's weighted cos/sin the same either way.
      const proj = (X: Float64Array, n: number, w: number[]) => {
        kernel.reserve(n, d, m);
        kernel.points().set(X);
        kernel.omega().set(bs[0].omegaT);
        kernel.weights().set(w);
        kernel.project(n);
        return bits(kernel.grad().slice(0, 2 * m));
      };
      expect(proj(mixed, 4, [0, 1, 0, 0])).toEqual(proj(x, 1, [1]));
    }
  });

  it('same inputs give bit-identical outputs, whatever ran before and in which instance', () => {
    const d = 28;
    const m = 128;
    const n = 41;
    const X = uniform(seedrandom('det-x'), n * d, -2, 2);
    const bs = blocks('det-b', 4, d, m);
    const a = RffKernel.create();
    const first = bits(evaluate(a, X, n, d, m, bs));
    // Unrelated work of other shapes in between (forces relayout and memory growth).
    evaluate(a, uniform(seedrandom('other'), 3000 * 7, -9, 9), 3000, 7, 5, blocks('o', 2, 7, 5));
    a.reserve(10, 1, 1);
    const again = bits(evaluate(a, X, n, d, m, bs));
    const fresh = bits(evaluate(RffKernel.create(), X, n, d, m, bs));
    expect(again).toEqual(first);
    expect(fresh).toEqual(first);
  });

  it('ignores everything past nPoints (rows, weights and accumulators)', () => {
    const d = 6;
    const m = 10;
    const n = 13;
    const cap = 20;
    const rng = seedrandom('tail');
    const X = uniform(rng, cap * d, -1, 1);
    const bs = blocks('tail-b', 1, d, m);
    const w = uniform(rng, cap, -1, 1);
    const run = (fill: number) => {
      const k = RffKernel.create();
      k.reserve(cap, d, m);
      k.points().set(X);
      k.points().fill(fill, n * d);
      k.omega().set(bs[0].omegaT);
      k.alpha().set(bs[0].alpha);
      k.out().fill(fill);
      k.clearOut(n);
      k.accumulate(n);
      k.weights().set(w);
      k.weights().fill(fill, n);
      k.project(n);
      return { out: k.out().slice(), grad: k.grad().slice() };
    };
    const clean = run(0);
    const dirty = run(NaN);
    expect(bits(dirty.out.subarray(0, n))).toEqual(bits(clean.out.subarray(0, n)));
    expect(Number.isNaN(dirty.out[n])).toBe(true); // untouched past nPoints
    expect(bits(dirty.grad)).toEqual(bits(clean.grad));
  });

  it('project is reproducible and sums points in order, independent of tiling', () => {
    const d = 9;
    const m = 7;
    const n = 11;
    const rng = seedrandom('proj');
    const X = uniform(rng, n * d, -1, 1);
    const omegaT = uniform(rng, d * m, -3, 3);
    const w = uniform(rng, n, -1, 1);
    const k = RffKernel.create();
    k.reserve(n, d, m);
    k.points().set(X);
    k.omega().set(omegaT);
    k.weights().set(w);
    k.project(n);
    const g1 = bits(k.grad());
    k.project(n);
    expect(bits(k.grad())).toEqual(g1);
    // A single-point project is that point's weighted cos/sin; the n-point one is
    // their sum in increasing p. Rebuild it from n one-point calls, summed in
    // order: bit-identical only if the tiled path uses the same per-point ops.
    const sum = new Float64Array(2 * m);
    for (let p = 0; p < n; p++) {
      k.points().set(X.subarray(p * d, (p + 1) * d));
      k.weights()[0] = w[p];
      k.project(1);
      const g = k.grad();
      for (let i = 0; i < 2 * m; i++) sum[i] = p === 0 ? g[i] : sum[i] + g[i];
    }
    expect(bits(sum)).toEqual(g1);
  });

  it('accumulate adds to out and clearOut zeroes exactly the first nPoints', () => {
    const k = RffKernel.create();
    k.reserve(8, 2, 4);
    k.out().fill(5);
    k.clearOut(3);
    expect(Array.from(k.out())).toEqual([0, 0, 0, 5, 5, 5, 5, 5]);
    k.points().fill(0); // z = 0: each point gets Σ_j alpha[j]·cos 0 = Σ cos-coefficients
    k.omega().fill(1);
    k.alpha().set([1, 2, 3, 4, 100, 100, 100, 100]);
    k.accumulate(8);
    expect(Array.from(k.out())).toEqual([10, 10, 10, 15, 15, 15, 15, 15]);
  });

  it('rejects calls outside the reserved capacity', () => {
    const k = RffKernel.create();
    expect(() => k.accumulate(1)).toThrow(/reserve/);
    k.reserve(4, 3, 8);
    expect(() => k.accumulate(5)).toThrow(RangeError);
    expect(() => k.project(-1)).toThrow(RangeError);
    expect(() => k.reserve(4, 0, 8)).toThrow(/d must be/);
    expect(k.maxPoints).toBe(4);
    k.reserve(2, 3, 8); // smaller: kept
    expect(k.maxPoints).toBe(4);
  });
});
