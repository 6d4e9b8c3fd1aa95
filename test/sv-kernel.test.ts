import { describe, expect, it } from 'vitest';
import seedrandom from 'seedrandom';
import type { KernelSpec } from '../src/features/kernel-spec.ts';
import { referenceSvAccumulate } from '../src/engine/reference-kernel.ts';
import { SharedRows } from '../src/engine/shared-rows.ts';
import { SvKernel } from '../src/engine/sv-kernel.ts';

const bits = (a: Float64Array) => Buffer.from(a.buffer, a.byteOffset, a.byteLength);

interface Case {
  kernel: KernelSpec;
  n: number;
  E: number;
  d: number;
  /** Spread of the centres around the points: large spreads push exp towards underflow. */
  spread: number;
}

function data(c: Case, seed: string) {
  const rng = seedrandom(seed);
  const X = Float64Array.from({ length: c.n * c.d }, () => rng());
  const C = Float64Array.from({ length: c.E * c.d }, () => c.spread * (rng() - 0.5));
  const beta = Float64Array.from({ length: c.E }, () => rng() - 0.5);
  return { X, C, beta };
}

/** Evaluates centres C (row-major, put in shared rows in reverse order so indices matter) at X. */
function runFast(k: SvKernel | undefined, c: Case, X: Float64Array, C: Float64Array, beta: Float64Array): Float64Array {
  if (k === undefined) {
    const reversed = new Float64Array(C.length);
    for (let i = 0; i < c.E; i++) reversed.set(C.subarray(i * c.d, (i + 1) * c.d), (c.E - 1 - i) * c.d);
    k = SvKernel.create(SharedRows.from(reversed, c.E, c.d));
  }
  k.reserve(c.n, c.E);
  k.setPoints(X, c.n);
  const rowOf = Uint32Array.from({ length: c.E }, (_, i) => c.E - 1 - i);
  k.load(rowOf, beta, 0, c.E);
  k.clearOut(c.n);
  k.accumulate(c.kernel, c.n, c.E);
  return k.out().slice(0, c.n);
}

describe('SvKernel.accumulate vs referenceSvAccumulate', () => {
  const cases: Case[] = [];
  for (const kernel of [{ kind: 'rbf', sigma: 1.3 }, { kind: 'laplacian', sigma: 0.7 }] as KernelSpec[]) {
    for (const [n, E, d] of [
      [1, 1, 1],
      [3, 5, 2],
      [37, 101, 9],
      [64, 256, 28],
      [5, 7, 130],
    ]) {
      for (const spread of [1, 40]) cases.push({ kernel, n, E, d, spread });
    }
  }

  it.each(cases)('$kernel.kind n=$n E=$E d=$d spread=$spread agrees within 1e-12 of Σ|β|', (c) => {
    const { X, C, beta } = data(c, `case-${c.kernel.kind}-${c.n}-${c.E}-${c.d}-${c.spread}`);
    const got = runFast(undefined, c, X, C, beta);
    const ref = new Float64Array(c.n);
    referenceSvAccumulate(c.kernel, C, beta, c.E, X, c.n, c.d, ref);
    let mag = 0;
    for (const b of beta) mag += Math.abs(b);
    let worst = 0;
    for (let p = 0; p < c.n; p++) worst = Math.max(worst, Math.abs(got[p] - ref[p]) / mag);
    expect(worst).toBeLessThan(1e-12);
  });

  it("a point's value is the same bits alone or in any batch, and entries beyond the chunk never leak in", () => {
    const c: Case = { kernel: { kind: 'rbf', sigma: 2 }, n: 23, E: 61, d: 7, spread: 2 };
    const { X, C, beta } = data(c, 'batch');
    const rows = SharedRows.from(C, c.E, c.d);
    const k = SvKernel.create(rows);
    const run = (kernel: SvKernel, points: Float64Array, n: number, E: number, coef: Float64Array) => {
      kernel.reserve(n, 128);
      kernel.setPoints(points, n);
      kernel.load(Uint32Array.from({ length: E }, (_, i) => i % c.E), coef, 0, E);
      kernel.clearOut(n);
      kernel.accumulate(c.kernel, n, E);
      return kernel.out().slice(0, n);
    };
    const all = run(k, X, c.n, c.E, beta);
    // A longer chunk first leaves indices and coefficients beyond E = 61 in memory.
    run(k, X, c.n, 128, Float64Array.from({ length: 128 }, (_, i) => i + 1));
    const again = run(k, X, c.n, c.E, beta);
    expect(bits(again).equals(bits(all))).toBe(true);
    for (const p of [0, 3, 4, 22]) {
      const single = run(SvKernel.create(rows), X.subarray(p * c.d, (p + 1) * c.d), 1, c.E, beta);
      expect(single[0]).toBe(all[p]);
    }
  });

  it('wide points are looked up a few rows at a time: a column non-zero only in a late point, or in an early and a late one, is summed', () => {
    // d = 2,500: one point a lookup. Columns 7, 8 and 9 are zero in every row; column 7 is non-zero at point 5 only,
    // column 8 at points 0 and 2, column 9 nowhere. Missing a column would move f by far more than rounding.
    const c: Case = { kernel: { kind: 'rbf', sigma: 0.002 }, n: 6, E: 9, d: 2500, spread: 1 };
    const { X, C, beta } = data(c, 'wide-zero-columns');
    for (const k of [7, 8, 9]) {
      for (let i = 0; i < c.E; i++) C[i * c.d + k] = 0;
      for (let p = 0; p < c.n; p++) X[p * c.d + k] = 0;
    }
    X[5 * c.d + 7] = 3;
    X[0 * c.d + 8] = X[2 * c.d + 8] = 2;
    const k = SvKernel.create(SharedRows.from(C, c.E, c.d));
    k.reserve(c.n, c.E);
    k.setPoints(X, c.n);
    k.load(Uint32Array.from({ length: c.E }, (_, i) => i), beta, 0, c.E);
    k.clearOut(c.n);
    k.accumulate(c.kernel, c.n, c.E);
    const ref = new Float64Array(c.n);
    referenceSvAccumulate(c.kernel, C, beta, c.E, X, c.n, c.d, ref);
    for (let p = 0; p < c.n; p++) expect(k.out()[p]).toBeCloseTo(ref[p], 12);
  });

  it.each(['rbf', 'laplacian'] as const)('%s: columns that are zero in every row and point are skipped without changing a bit of the result', (kind) => {
    // d = 12: columns 0, 5, 6 and 11 zero in every row (some −0, as a scaled constant column holds), column 3 zero in the
    // rows but not in every point; an image's blank border is such columns.
    const c: Case = { kernel: { kind, sigma: 0.9 }, n: 7, E: 33, d: 12, spread: 3 };
    const { X, C, beta } = data(c, `zero-columns-${kind}`);
    for (const k of [0, 3, 5, 6, 11]) for (let i = 0; i < c.E; i++) C[i * c.d + k] = i % 2 ? -0 : 0;
    for (const k of [0, 5, 6, 11]) for (let p = 0; p < c.n; p++) X[p * c.d + k] = p % 3 ? 0 : -0;
    for (let p = 0; p < c.n; p++) X[p * c.d + 3] = p === 4 ? 0.5 : 0;
    const rows = SharedRows.from(C, c.E, c.d);
    const run = (points: Float64Array, n: number) => {
      const k = SvKernel.create(rows);
      k.reserve(n, c.E);
      k.setPoints(points, n);
      k.load(Uint32Array.from({ length: c.E }, (_, i) => i), beta, 0, c.E);
      k.clearOut(n);
      k.accumulate(c.kernel, n, c.E);
      return k.out().slice(0, n);
    };
    // Points 0–3 alone skip columns 0, 3, 5, 6 and 11; with point 4 column 3 is summed (its terms +0 at points 0–3);
    // a point that is non-zero in every column makes every column summed.
    const dense = Float64Array.from({ length: c.d }, (_, k) => 0.01 * (k + 1));
    const withDense = new Float64Array((c.n + 1) * c.d);
    withDense.set(X);
    withDense.set(dense, c.n * c.d);
    const few = run(X, 4);
    const all = run(X, c.n);
    const everyColumn = run(withDense, c.n + 1);
    expect(bits(all.slice(0, 4)).equals(bits(few))).toBe(true);
    expect(bits(everyColumn.slice(0, c.n)).equals(bits(all))).toBe(true);
    const ref = new Float64Array(c.n);
    referenceSvAccumulate(c.kernel, C, beta, c.E, X, c.n, c.d, ref);
    for (let p = 0; p < c.n; p++) expect(all[p]).toBeCloseTo(ref[p], 12);
  });

  it('two kernels on the same rows (as two threads have) use separate scratch and read the same rows', () => {
    const c: Case = { kernel: { kind: 'laplacian', sigma: 1 }, n: 9, E: 30, d: 5, spread: 1 };
    const { X, C, beta } = data(c, 'two');
    const rows = SharedRows.from(C, c.E, c.d);
    const [a, b] = [SvKernel.create(rows), SvKernel.create(new SharedRows({ memory: rows.memory }))];
    for (const k of [a, b]) {
      k.reserve(c.n, c.E);
      k.setPoints(X, c.n);
      k.load(Uint32Array.from({ length: c.E }, (_, i) => i), beta, 0, c.E);
      k.clearOut(c.n);
    }
    b.setPoints(new Float64Array(c.n * c.d).fill(0.25), c.n); // must not touch a's points
    a.accumulate(c.kernel, c.n, c.E);
    const ref = new Float64Array(c.n);
    referenceSvAccumulate(c.kernel, C, beta, c.E, X, c.n, c.d, ref);
    for (let p = 0; p < c.n; p++) expect(a.out()[p]).toBeCloseTo(ref[p], 12);
  });

  it('growing batches claim scratch geometrically: the shared memory stays within a few times the largest need', () => {
    const d = 64;
    const rows = SharedRows.from(new Float64Array(10 * d), 10, d);
    const k = SvKernel.create(rows);
    const before = rows.memory.buffer.byteLength;
    for (let n = 1; n <= 4000; n += 7) k.reserve(n, 256);
    const claimed = rows.memory.buffer.byteLength - before;
    const largest = 8 * (4000 * d + 4000 + 2 * 256);
    expect(claimed).toBeLessThan(4 * largest + 2 ** 20);
  });

  it('load rejects an entry whose row is beyond the rows', () => {
    const k = SvKernel.create(SharedRows.from(new Float64Array(6), 3, 2));
    k.reserve(1, 4);
    expect(() => k.load(Uint32Array.of(0, 3), new Float64Array(2), 0, 2)).toThrow(/row 3, beyond the 3 rows/);
  });
});

describe('SvKernel exp', () => {
  const k = SvKernel.create(SharedRows.from(new Float64Array(1), 1, 1));

  it('is within 1 ulp-ish (3e-16 relative) of Math.exp on [−708.39, 0]', () => {
    const rng = seedrandom('exp');
    let worst = 0;
    for (let i = 0; i < 200_000; i++) {
      const x = i < 1000 ? -i * 1e-3 : -708.39 * rng();
      const want = Math.exp(x);
      worst = Math.max(worst, Math.abs(k.fastExp(x) - want) / want);
    }
    expect(worst).toBeLessThan(3e-16);
  });

  it('gives 0 below ln(2^−1022), 1 at 0, NaN for NaN', () => {
    expect(k.fastExp(-709)).toBe(0);
    expect(k.fastExp(-Infinity)).toBe(0);
    expect(k.fastExp(0)).toBe(1);
    expect(k.fastExp(NaN)).toBeNaN();
  });
});
