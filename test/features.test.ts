import { describe, expect, it } from 'vitest';
import seedrandom from 'seedrandom';
import { exactKernel, featureMap, sampleBlockOmega, type KernelSpec } from '../src/features/index.ts';
import { logLogSlope } from './support/log-log-slope.ts';

/** Mean absolute error of φ(x)·φ(x') against k(x,x') over fixed pairs, using `blocks` blocks of m features. */
function approximationError(spec: KernelSpec, d: number, m: number, blocks: number, seed: number): number {
  const rng = seedrandom('pairs');
  const pairs = 60;
  const X = Float64Array.from({ length: 2 * pairs * d }, () => rng());
  const omega = new Float64Array(d * m);
  const phiA = new Float64Array(2 * m);
  const phiB = new Float64Array(2 * m);
  const approx = new Float64Array(pairs);
  for (let i = 0; i < blocks; i++) {
    sampleBlockOmega(spec, seed, i, d, m, omega);
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
