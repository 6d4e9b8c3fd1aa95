import { describe, expect, it } from 'vitest';
import seedrandom from 'seedrandom';
import { AUTO_SORF_MIN_D, autoFeatureFamily, exactKernel, featureMap, paddedDimension, sampleBlockOmega, walshHadamard, type FeatureFamily, type KernelSpec } from '../src/features/index.ts';
import { logLogSlope } from './support/log-log-slope.ts';

/** Mean absolute error of φ(x)·φ(x') against k(x,x') over fixed pairs, using `blocks` blocks of m features. */
function approximationError(spec: KernelSpec, d: number, m: number, blocks: number, seed: number, family: FeatureFamily = 'gaussian'): number {
  const rng = seedrandom('pairs');
  const pairs = 60;
  const X = Float64Array.from({ length: 2 * pairs * d }, () => rng());
  const omega = new Float64Array(d * m);
  const phiA = new Float64Array(2 * m);
  const phiB = new Float64Array(2 * m);
  const approx = new Float64Array(pairs);
  for (let i = 0; i < blocks; i++) {
    sampleBlockOmega(spec, seed, i, d, m, omega, family);
    for (let p = 0; p < pairs; p++) {
      featureMap(omega, d, m, X, 2 * p * d, phiA);
      featureMap(omega, d, m, X, (2 * p + 1) * d, phiB);
      let dot = 0;
      for (let j = 0; j < 2 * m; j++) dot += phiA[j] * phiB[j];
      approx[p] += dot / blocks;
    }
  }
  let err = 0;
  for (let p = 0; p < pairs; p++) err += Math.abs(approx[p] - exactKernel(spec, X, 2 * p * d, X, (2 * p + 1) * d, d));
  return err / pairs;
}

describe('random features approximate the kernel', () => {
  for (const spec of [{ kind: 'rbf', sigma: 0.8 }, { kind: 'laplacian', sigma: 0.5 }] as const) {
    it(`${spec.kind}: error shrinks like 1/sqrt(features)`, () => {
      const m = 16;
      const blockCounts = [1, 4, 16, 64, 256];
      // Average over a few model seeds so one lucky draw cannot pass or fail the test.
      const errors = blockCounts.map((b) => [1, 2, 3, 4].reduce((s, seed) => s + approximationError(spec, 5, m, b, seed), 0) / 4);
      const slope = logLogSlope(blockCounts.map((b) => b * m), errors);
      expect(slope).toBeGreaterThan(-0.65);
      expect(slope).toBeLessThan(-0.35);
      expect(errors[errors.length - 1]).toBeLessThan(0.02);
    });
  }
});

describe('block regeneration', () => {
  it('block i depends on (modelSeed, i) only and is bit-identical when regenerated', () => {
    const spec = { kind: 'rbf', sigma: 2 } as const;
    const a = new Float64Array(7 * 33);
    const b = new Float64Array(7 * 33);
    sampleBlockOmega(spec, 9, 123, 7, 33, a);
    sampleBlockOmega(spec, 9, 5, 7, 33, b); // another block in between changes nothing
    sampleBlockOmega(spec, 9, 123, 7, 33, b);
    expect(Buffer.from(b.buffer).equals(Buffer.from(a.buffer))).toBe(true);
    sampleBlockOmega(spec, 9, 124, 7, 33, b);
    expect(b[0]).not.toBe(a[0]);
    sampleBlockOmega(spec, 10, 123, 7, 33, b);
    expect(b[0]).not.toBe(a[0]);
  });

  it('gaussian frequencies have variance 2σ per component', () => {
    const sigma = 1.5;
    const d = 4;
    const m = 4096;
    const w = new Float64Array(d * m);
    sampleBlockOmega({ kind: 'rbf', sigma }, 1, 0, d, m, w);
    const mean = w.reduce((s, v) => s + v, 0) / w.length;
    const variance = w.reduce((s, v) => s + (v - mean) ** 2, 0) / w.length;
    expect(Math.abs(mean)).toBeLessThan(0.05);
    expect(variance / (2 * sigma)).toBeGreaterThan(0.95);
    expect(variance / (2 * sigma)).toBeLessThan(1.05);
  });
});

/** Row j of a transposed block (`omegaT[k*m + j]`). */
const rowOf = (omegaT: Float64Array, d: number, m: number, j: number) => Float64Array.from({ length: d }, (_, k) => omegaT[k * m + j]);
const dot = (a: Float64Array, b: Float64Array) => a.reduce((s, v, k) => s + v * b[k], 0);

describe('structured feature families', () => {
  const rbf = { kind: 'rbf', sigma: 0.7 } as const;

  it('the fast Walsh–Hadamard transform is the ±1 Hadamard matrix (Sylvester order)', () => {
    const N = 16;
    const rng = seedrandom('wht');
    const v = Float64Array.from({ length: N }, () => rng() - 0.5);
    const expected = Float64Array.from({ length: N }, (_, i) => v.reduce((s, x, k) => s + (countBits(i & k) % 2 ? -x : x), 0));
    const w = v.slice();
    walshHadamard(w);
    for (let i = 0; i < N; i++) expect(w[i]).toBeCloseTo(expected[i], 12);
    expect(paddedDimension(784)).toBe(1024);
    expect(paddedDimension(8)).toBe(8);
    expect(paddedDimension(1)).toBe(1);
  });

  it('orf: rows in a group of d are orthogonal, and ‖ω‖² has the Gaussian mean 2σd', () => {
    const d = 12;
    const m = 36; // three groups of d
    const w = new Float64Array(d * m);
    let norms = 0;
    const seeds = 40;
    for (let seed = 0; seed < seeds; seed++) {
      sampleBlockOmega(rbf, seed, 3, d, m, w, 'orf');
      for (let j = 0; j < m; j++) {
        const a = rowOf(w, d, m, j);
        norms += dot(a, a) / (seeds * m);
        for (let q = Math.floor(j / d) * d; q < j; q++) {
          const b = rowOf(w, d, m, q);
          expect(Math.abs(dot(a, b)) / Math.sqrt(dot(a, a) * dot(b, b)), `rows ${q}, ${j}`).toBeLessThan(1e-12);
        }
      }
    }
    expect(norms / (2 * rbf.sigma * d)).toBeGreaterThan(0.93);
    expect(norms / (2 * rbf.sigma * d)).toBeLessThan(1.07);
  });

  it('sorf: with d a power of two, rows in a group are orthogonal with length √(2σd)', () => {
    const d = 16;
    const m = 32;
    const w = new Float64Array(d * m);
    sampleBlockOmega(rbf, 5, 0, d, m, w, 'sorf');
    for (let j = 0; j < m; j++) {
      const a = rowOf(w, d, m, j);
      expect(Math.sqrt(dot(a, a))).toBeCloseTo(Math.sqrt(2 * rbf.sigma * d), 12);
      for (let q = Math.floor(j / d) * d; q < j; q++) expect(Math.abs(dot(a, rowOf(w, d, m, q)))).toBeLessThan(1e-12);
    }
  });

  for (const family of ['orf', 'sorf'] as const) {
    it(`${family}: block i depends on (modelSeed, i) only`, () => {
      const a = new Float64Array(7 * 33);
      const b = new Float64Array(7 * 33);
      sampleBlockOmega(rbf, 9, 123, 7, 33, a, family);
      sampleBlockOmega(rbf, 9, 5, 7, 33, b, family);
      sampleBlockOmega(rbf, 9, 123, 7, 33, b, family);
      expect(Buffer.from(b.buffer).equals(Buffer.from(a.buffer))).toBe(true);
      sampleBlockOmega(rbf, 9, 124, 7, 33, b, family);
      expect(b[0]).not.toBe(a[0]);
    });
  }

  /** Mean error over 4 model seeds with `blocks` blocks of m = d features, σ = 4/d (σ‖x − x′‖² ≈ 2/3). */
  const meanError = (family: FeatureFamily, d: number, blocks: number) =>
    [1, 2, 3, 4].reduce((s, seed) => s + approximationError({ kind: 'rbf', sigma: 4 / d }, d, d, blocks, seed, family), 0) / 4;

  it('orf is unbiased: its error shrinks like 1/sqrt(features)', () => {
    const blockCounts = [1, 4, 16, 64];
    const slope = logLogSlope(blockCounts, blockCounts.map((n) => meanError('orf', 8, n)));
    expect(slope).toBeGreaterThan(-0.7);
    expect(slope).toBeLessThan(-0.3);
  });

  it('sorf is biased at small d (Yu et al. 2016), the bias fading as d grows', () => {
    // With many blocks the variance is gone and what is left is the bias: d = 8
    // keeps a floor near 0.026 while i.i.d. rows go on falling; at d = 64 it is 7× lower.
    const small = meanError('sorf', 8, 64);
    expect(small).toBeGreaterThan(1.3 * meanError('gaussian', 8, 64));
    expect(meanError('sorf', 64, 64)).toBeLessThan(0.3 * small);
  });

  it('orf and sorf approximate the Gaussian kernel better than i.i.d. rows at m = d', () => {
    // Yu et al. 2016: orthogonal rows lower the variance of the estimate; with m = d
    // and wide pairs (σ‖x − x′‖² around 1) the gain is large. 40 seeds × 60 pairs.
    const d = 16;
    const spec = { kind: 'rbf', sigma: 0.4 } as const;
    const mean = (family: FeatureFamily) => Array.from({ length: 40 }, (_, s) => approximationError(spec, d, d, 1, s, family)).reduce((a, b) => a + b) / 40;
    const gaussian = mean('gaussian');
    expect(mean('orf')).toBeLessThan(0.8 * gaussian);
    expect(mean('sorf')).toBeLessThan(0.8 * gaussian);
  });

  it('orf and sorf refuse the Laplacian kernel', () => {
    for (const family of ['orf', 'sorf'] as const) {
      expect(() => sampleBlockOmega({ kind: 'laplacian', sigma: 1 }, 1, 0, 4, 4, new Float64Array(16), family)).toThrow(/need the rbf kernel/);
    }
  });
});

function countBits(x: number): number {
  let c = 0;
  for (let y = x; y; y &= y - 1) c++;
  return c;
}

describe('features auto (the default)', () => {
  it('is sorf for the rbf kernel on wide data with blocks that share groups, else gaussian', () => {
    expect(autoFeatureFamily('rbf', 784, 64)).toBe('sorf');
    expect(autoFeatureFamily('rbf', AUTO_SORF_MIN_D, 64)).toBe('sorf');
    expect(autoFeatureFamily('rbf', AUTO_SORF_MIN_D - 1, 64)).toBe('gaussian');
    expect(autoFeatureFamily('rbf', 18, 64)).toBe('gaussian');
    expect(autoFeatureFamily('rbf', 784, 600)).toBe('gaussian'); // 2m > N = 1024: no shared groups
    expect(autoFeatureFamily('laplacian', 784, 64)).toBe('gaussian');
  });

  it('train resolves it into the header: sorf on wide data, no key (the Gaussian bytes) on narrow data; a continued Gaussian run stays Gaussian', async () => {
    const { trainModel: train } = await import('../src/train/train.ts');
    const { syntheticDataset } = await import('../src/data/synthetic.ts');
    const { splitDataset } = await import('../src/data/index.ts');
    const quiet = { onWarning: () => {} };
    const small = { T: 12, m: 16, batchSize: 8, seed: 2, threads: 1, ...quiet };
    const wide = splitDataset(syntheticDataset({ rows: 240, dim: AUTO_SORF_MIN_D, labeled: 240, seed: 3 }), { labeled: 60, seed: 1 }).train;
    const narrow = splitDataset(syntheticDataset({ rows: 240, dim: 10, labeled: 240, seed: 3 }), { labeled: 60, seed: 1 }).train;
    const bytes = (m: { toBytes(): Uint8Array }) => Buffer.from(m.toBytes());
    const wideAuto = await train({ learner: 'qsg-s2auc', data: wide, ...small });
    expect(wideAuto.header.hyperparameters.features).toBe('sorf');
    expect(bytes(wideAuto).equals(bytes(await train({ learner: 'qsg-s2auc', data: wide, ...small, features: 'sorf' })))).toBe(true);
    const narrowAuto = await train({ learner: 'qsg-s2auc', data: narrow, ...small, features: 'auto' });
    expect('features' in narrowAuto.header.hyperparameters).toBe(false);
    expect(bytes(narrowAuto).equals(bytes(await train({ learner: 'qsg-s2auc', data: narrow, ...small, features: 'gaussian' })))).toBe(true);
    // A Gaussian model of wide data (no features key) continues as Gaussian, not as what auto would choose.
    const first = await train({ learner: 'qsg-s2auc', data: wide, ...small, T: 5, features: 'gaussian' });
    const direct = await train({ learner: 'qsg-s2auc', data: wide, ...small, features: 'gaussian', step: first.header.hyperparameters.step as never });
    expect('features' in first.header.hyperparameters).toBe(false);
    const continued = await train({ init: first, data: wide, T: 12, threads: 1, features: 'gaussian', ...quiet });
    expect(bytes(continued).equals(bytes(direct))).toBe(true);
  }, 60_000);
});
