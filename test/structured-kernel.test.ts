// The wasm kernel's structured (SORF) path: z = c·Hu·D₁·Hu·D₂·Hu·D₃·x by fast
// Walsh–Hadamard transforms must be the dense SORF frequencies' z (to rounding),
// and a point's value must not depend on the point that shares its vector.
import { describe, expect, it } from 'vitest';
import seedrandom from 'seedrandom';
import { RffKernel } from '../src/engine/kernel.ts';
import { referenceAccumulate, referenceProject } from '../src/engine/reference-kernel.ts';
import { kernelBlockWidth, sampleBlockOmega, sampleKernelBlock } from '../src/features/spectral.ts';

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
});
