// The wasm kernel's structured (SORF) path: z = c·Hu·D₁·Hu·D₂·Hu·D₃·x by fast
// Walsh–Hadamard transforms must be the dense SORF frequencies' z (to rounding),
// and a point's value must not depend on the point that shares its vector.
import { describe, expect, it } from 'vitest';
import seedrandom from 'seedrandom';
import { heldTransformPoints, RffKernel } from '../src/engine/kernel.ts';
import { referenceAccumulate, referenceProject } from '../src/engine/reference-kernel.ts';
import { kernelBlockWidth, sampleBlockOmega, sampleKernelBlock, sorfGroupBlocks, sorfPlace } from '../src/features/spectral.ts';
import { Evaluator } from '../src/engine/evaluator.ts';
import { History } from '../src/engine/history.ts';
import { BlockOps } from '../src/engine/block-ops.ts';
import { referenceEvaluate } from '../src/engine/reference-evaluator.ts';
import { FrequencyStore } from '../src/engine/frequency-store.ts';

const spec = { kind: 'rbf', sigma: 0.3 } as const;

/** d, m: a power of two, padding, m below N, m across several groups, m not a multiple of 4. */
const SHAPES = [
  [8, 8],
  [13, 5],
  [30, 70],
  [100, 64],
  [1, 3],
] as const;

describe('structured kernel (sorf)', () => {
  for (const [d, m] of SHAPES) {
    it(`d = ${d}, m = ${m}: accumulate and project agree with the dense SORF frequencies within 1e-12`, () => {
      const rng = seedrandom(`sorf-${d}-${m}`);
      const n = 11;
      const X = Float64Array.from({ length: n * d }, () => rng());
      const alpha = Float64Array.from({ length: 2 * m }, () => rng() - 0.5);
      const w = Float64Array.from({ length: n }, () => rng() - 0.5);
      const omegaT = new Float64Array(d * m);
      sampleBlockOmega(spec, 4, 9, d, m, omegaT, 'sorf');
      const k = RffKernel.create();
      k.reserve(n, d, m, 'sorf');
      expect(k.omega().length).toBe(kernelBlockWidth(d, m, 'sorf'));
      sampleKernelBlock(spec, 4, 9, d, m, k.omega(), 'sorf');
      k.points().set(X);
      k.alpha().set(alpha);
      k.clearOut(n);
      k.accumulate(n);
      const expected = new Float64Array(n);
      referenceAccumulate(X, n, d, omegaT, alpha, m, expected);
      const scale = alpha.reduce((s, a) => s + Math.abs(a), 0);
      for (let p = 0; p < n; p++) expect(Math.abs(k.out()[p] - expected[p]) / scale, `point ${p}`).toBeLessThan(1e-12);
      k.weights().set(w);
      k.project(n);
      const g = new Float64Array(2 * m);
      referenceProject(X, n, d, omegaT, w, m, g);
      const wScale = w.reduce((s, a) => s + Math.abs(a), 0);
      for (let j = 0; j < 2 * m; j++) expect(Math.abs(k.grad()[j] - g[j]) / wScale, `feature ${j}`).toBeLessThan(1e-12);
    });
  }

  it("a point's value is the same bits alone, paired with any other point, or at any offset", () => {
    const [d, m] = [30, 70];
    const rng = seedrandom('sorf-pairs');
    const n = 9;
    const X = Float64Array.from({ length: n * d }, () => rng());
    const k = RffKernel.create();
    k.reserve(n, d, m, 'sorf');
    sampleKernelBlock(spec, 1, 2, d, m, k.omega(), 'sorf');
    k.alpha().set(Float64Array.from({ length: 2 * m }, () => rng() - 0.5));
    k.points().set(X);
    k.clearOut(n);
    k.accumulate(n);
    const all = k.out().slice(0, n);
    for (let first = 0; first < n; first++) {
      for (const count of [1, 2, 3]) {
        if (first + count > n) continue;
        k.clearOut(n);
        k.accumulate(count, first);
        for (let p = first; p < first + count; p++) expect(Object.is(k.out()[p], all[p]), `point ${p} in a call of ${count} from ${first}`).toBe(true);
      }
    }
  });

  /** Block i's value at every point, from a fresh kernel (no transform held). */
  function alone(d: number, m: number, i: number, X: Float64Array, n: number, alpha: Float64Array): Float64Array {
    const k = RffKernel.create();
    k.reserve(n, d, m, 'sorf');
    sampleKernelBlock(spec, 6, i, d, m, k.omega(), 'sorf');
    k.points().set(X);
    k.alpha().set(alpha);
    k.clearOut(n);
    k.accumulate(n);
    return k.out().slice(0, n);
  }

  it('blocks with 2m ≤ N share a group: rows (i mod G)·m … of group ⌊i/G⌋, the signs of (seed, group)', () => {
    expect(sorfGroupBlocks(784, 64)).toBe(16);
    expect(sorfGroupBlocks(100, 48)).toBe(2);
    expect(sorfGroupBlocks(100, 65)).toBe(1);
    expect(sorfGroupBlocks(18, 64)).toBe(1);
    expect(sorfPlace(784, 64, 18)).toEqual({ group: 1, firstRow: 128 });
    // Block i's rows are rows of the group's full matrix (m = N, block 0 = group 0 whole, as sampled alone).
    const [d, m] = [20, 8];
    const N = 32;
    const whole = new Float64Array(d * N);
    sampleBlockOmega(spec, 6, 0, d, N, whole, 'sorf');
    for (let i = 0; i < 4; i++) {
      const w = new Float64Array(d * m);
      sampleBlockOmega(spec, 6, i, d, m, w, 'sorf');
      for (let j = 0; j < m; j++) for (let k = 0; k < d; k++) expect(w[k * m + j]).toBe(whole[k * N + i * m + j]);
    }
    const next = new Float64Array(d * m);
    sampleBlockOmega(spec, 6, 4, d, m, next, 'sorf'); // group 1: other signs
    expect(next[0]).not.toBe(whole[0]);
  });

  it('a held transform never changes a value: blocks in any order, groups interleaved, points reloaded, tiles, give the bits of each block alone', () => {
    for (const [d, m, n] of [
      [100, 16, 13],
      [1000, 20, 601], // N = 1024: 512 points per held transform, so two tiles
    ] as const) {
      const rng = seedrandom(`sorf-held-${d}`);
      const X = Float64Array.from({ length: n * d }, () => rng());
      const G = sorfGroupBlocks(d, m);
      expect(G).toBeGreaterThan(2);
      const blocks = [0, 1, 2, G + 1, 3, G, G + 2, 2, 5];
      const alphas = blocks.map(() => Float64Array.from({ length: 2 * m }, () => rng() - 0.5));
      const expected = blocks.map((i, b) => alone(d, m, i, X, n, alphas[b]));
      const k = RffKernel.create();
      k.reserve(n, d, m, 'sorf');
      if (n > 512) expect(k.tilePoints).toBeLessThan(n);
      k.points().set(X);
      blocks.forEach((i, b) => {
        sampleKernelBlock(spec, 6, i, d, m, k.omega(), 'sorf');
        k.alpha().set(alphas[b]);
        if (b === 4) k.points().set(X); // same points written again: the transform is made afresh, same bits
        k.clearOut(n);
        // the points in two calls, the second starting at an odd point
        k.accumulate(5, 0);
        k.accumulate(n - 5, 5);
        for (let p = 0; p < n; p++) expect(Object.is(k.out()[p], expected[b][p]), `block ${i}, point ${p}`).toBe(true);
      });
      // project through the held transform: the dense rows' gradient within 1e-12
      const w = Float64Array.from({ length: n }, () => rng() - 0.5);
      const omegaT = new Float64Array(d * m);
      sampleBlockOmega(spec, 6, G + 1, d, m, omegaT, 'sorf');
      sampleKernelBlock(spec, 6, G + 1, d, m, k.omega(), 'sorf');
      k.weights().set(w);
      k.project(n);
      const g = new Float64Array(2 * m);
      referenceProject(X, n, d, omegaT, w, m, g);
      const wScale = w.reduce((s, a) => s + Math.abs(a), 0);
      for (let j = 0; j < 2 * m; j++) expect(Math.abs(k.grad()[j] - g[j]) / wScale).toBeLessThan(1e-12);
    }
  });

  it('blocks loaded from stores (loadBlock) give the bits of each block alone: groups interleaved, two scales, ω written between', () => {
    const [d, m, n] = [100, 16, 13];
    const rng = seedrandom('sorf-load-block');
    const X = Float64Array.from({ length: n * d }, () => rng());
    const G = sorfGroupBlocks(d, m);
    // Two stores of one seed: the same signs, another scale (σ); a third holding nothing (blocks generated).
    const narrow = FrequencyStore.forBudget({ kernel: spec, seed: 6, d, m, family: 'sorf' }, 1 << 20, 4 * G);
    const wide = FrequencyStore.forBudget({ kernel: { kind: 'rbf', sigma: 0.05 }, seed: 6, d, m, family: 'sorf' }, 1 << 20, 4 * G);
    const none = FrequencyStore.forBudget({ kernel: spec, seed: 6, d, m, family: 'sorf' }, 0, 4 * G);
    // Another store on narrow's buffer (as a thread makes from a task): the same blocks.
    const twin = new FrequencyStore(narrow.features, narrow.buffer);
    const steps: Array<[FrequencyStore | 'view', number]> = [
      [narrow, 0], [narrow, 1], [narrow, G + 1], [narrow, 2], [wide, 2], [wide, 3], [narrow, 3],
      ['view', 4], [narrow, 5], [twin, 4], [none, 6], [narrow, 7], [twin, 6], [narrow, 2 * G], ['view', 2 * G + 1], [narrow, 2 * G + 2],
    ];
    const k = RffKernel.create();
    k.reserve(n, d, m, 'sorf');
    k.points().set(X);
    for (const [source, i] of steps) {
      const sigma = source === wide ? 0.05 : spec.sigma;
      const alpha = Float64Array.from({ length: 2 * m }, () => rng() - 0.5);
      if (source === 'view') sampleKernelBlock(spec, 6, i, d, m, k.omega(), 'sorf');
      else k.loadBlock(source, i);
      const form = new Float64Array(kernelBlockWidth(d, m, 'sorf'));
      sampleKernelBlock({ kind: 'rbf', sigma }, 6, i, d, m, form, 'sorf');
      k.alpha().set(alpha);
      k.clearOut(n);
      k.accumulate(n);
      const own = RffKernel.create();
      own.reserve(n, d, m, 'sorf');
      own.omega().set(form);
      own.points().set(X);
      own.alpha().set(alpha);
      own.clearOut(n);
      own.accumulate(n);
      for (let p = 0; p < n; p++) expect(Object.is(k.out()[p], own.out()[p]), `block ${i} (σ = ${sigma}), point ${p}`).toBe(true);
    }
  });

  it('a block projected at the points another kernel holds with their transform uses that kernel, with the bits of its own', () => {
    const [d, m, n] = [100, 16, 13];
    const rng = seedrandom('sorf-donor');
    const X = Float64Array.from({ length: n * d }, () => rng());
    const w = Float64Array.from({ length: n }, () => rng() - 0.5);
    const G = sorfGroupBlocks(d, m);
    const rf = { kernel: spec, seed: 6, d, m, family: 'sorf' } as const;
    // The donor evaluated block 1 at X: it holds group 0's transform of all n points.
    const donor = RffKernel.create();
    donor.reserve(n, d, m, 'sorf');
    donor.points().set(X);
    sampleKernelBlock(spec, 6, 1, d, m, donor.omega(), 'sorf');
    donor.clearOut(n);
    donor.accumulate(n);
    expect(donor.holdsPoints(X, n, d, m, 'sorf')).toBe(true);
    expect(donor.holdsPoints(X, 7, d, m, 'sorf')).toBe(true);
    // Other points (one value rounded to float32), another shape, or more points than it holds: no.
    const changed = X.slice();
    changed[5 * d + 3] = Math.fround(changed[5 * d + 3]);
    expect(donor.holdsPoints(changed, n, d, m, 'sorf')).toBe(false);
    expect(donor.holdsPoints(X, n, d, 2 * m, 'sorf')).toBe(false);
    expect(donor.holdsPoints(X, n, d, m, 'gaussian')).toBe(false);
    // Blocks of the held group (2), of another (G + 1) and both: each the bits BlockOps gives on its own kernel.
    for (const [from, to] of [[2, 3], [G + 1, G + 2], [0, G + 2]] as const) {
      const alone = new BlockOps().projectBlocks(rf, from, to, X, n, w);
      const withDonor = new BlockOps().projectBlocks(rf, from, to, X, n, w, undefined, donor);
      alone.forEach((g, b) => expect(Buffer.from(withDonor[b].buffer).equals(Buffer.from(g.buffer)), `block ${from + b}`).toBe(true));
    }
    // The points were those it holds: it still does (the projection wrote only ω and weights).
    expect(donor.holdsPoints(X, n, d, m, 'sorf')).toBe(true);
  });

  it('the engine on blocks sharing groups (chunks of 4 starting mid-group): 1 and 2 threads the same bits, the dense rows within 1e-12', async () => {
    const [d, m] = [60, 6]; // N = 64, G = 10: chunk 1 (blocks 4–7) and chunk 2 (8–11) start or end mid-group
    const rf = { kernel: spec, seed: 6, d, m, family: 'sorf' } as const;
    const rng = seedrandom('sorf-engine');
    const h = new History({ m, capacity: 40 });
    for (let i = 0; i < 37; i++) h.append(Float64Array.from({ length: 2 * m }, () => rng() - 0.5));
    const n = 23;
    const X = Float64Array.from({ length: n * d }, () => rng());
    const one = new Evaluator(h, rf, { threads: 1, chunkSize: 4 });
    const two = new Evaluator(h, rf, { threads: 2, chunkSize: 4, parallelMinWork: 0, cacheBytes: 0 });
    try {
      const a = await one.evaluate(X, n);
      const b = await two.evaluate(X, n);
      expect(two.workerChunks).toBeGreaterThan(0);
      expect(Array.from(b)).toEqual(Array.from(a));
      const ref = referenceEvaluate(h, rf, X, n);
      for (let p = 0; p < n; p++) expect(Math.abs(a[p] - ref[p])).toBeLessThan(1e-12 * 37 * 2 * m);
    } finally {
      await one.close();
      await two.close();
    }
  });

  it('a call on more points than a held transform covers goes in calls that fit one: each point the bits it has alone', async () => {
    const [d, m] = [1000, 16]; // N = 1,024: a held transform covers 512 points; 64 blocks a group, 4 a chunk
    expect(heldTransformPoints(d)).toBe(512);
    const rf = { kernel: spec, seed: 3, d, m, family: 'sorf' } as const;
    const rng = seedrandom('sorf-split');
    const h = new History({ m, capacity: 12 });
    for (let i = 0; i < 10; i++) h.append(Float64Array.from({ length: 2 * m }, () => rng() - 0.5));
    const n = 600;
    const X = Float64Array.from({ length: n * d }, () => rng());
    const ev = new Evaluator(h, rf, { threads: 1, chunkSize: 4 });
    try {
      const all = await ev.evaluate(X, n);
      const alone = new Float64Array(n);
      for (const p of [0, 1, 255, 511, 512, 513, 598, 599]) alone[p] = (await ev.evaluate(X.subarray(p * d, (p + 1) * d), 1))[0];
      for (const p of [0, 1, 255, 511, 512, 513, 598, 599]) expect(Object.is(all[p], alone[p])).toBe(true);
      expect(all.every((v) => v !== 0)).toBe(true);
    } finally {
      await ev.close();
    }
  });
});
