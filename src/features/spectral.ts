/**
 * Seeded spectral samplers: the frequencies of random-feature block `i` are a
 * pure function of `(modelSeed, i)` and the kernel, so any thread can
 * regenerate any block, in any order, and get the same bits.
 */
import seedrandom from 'seedrandom';
import type { KernelSpec } from './kernel-spec.ts';

/**
 * The seed string of block `i`: the generator of a block sees nothing else.
 *
 * @example
 * blockSeed(42, 7); // "dsgkit:42:7"
 */
export function blockSeed(modelSeed: number, i: number): string {
  return `dsgkit:${modelSeed}:${i}`;
}

/**
 * Writes the `m` frequencies of block `i` into `omegaT`, TRANSPOSED:
 * `omegaT[k*m + j]` is component `k` of `ω_j` (SIMD runs over `j`).
 *
 * Draw order is fixed: `ω_1` first, all `d` components, then `ω_2`, …
 * Gaussian kernel: `ω ~ N(0, 2σ I)` by Box–Muller (both outputs used);
 * Laplacian kernel: each component Cauchy(0, σ) by inversion.
 * `omegaT` must hold at least `d*m` values; nothing else is touched.
 *
 * @example
 * const w = new Float64Array(3 * 4);
 * sampleBlockOmega({ kind: 'rbf', sigma: 1 }, 42, 0, 3, 4, w); // w is block 0 of model 42
 */
export function sampleBlockOmega(spec: KernelSpec, modelSeed: number, i: number, d: number, m: number, omegaT: Float64Array): void {
  const rng = seedrandom.alea(blockSeed(modelSeed, i));
  const count = d * m;
  if (spec.kind === 'rbf') {
    const std = Math.sqrt(2 * spec.sigma);
    const TWO_PI = 2 * Math.PI;
    for (let c = 0; c < count; c += 2) {
      // u1 in (0, 1] so the log is finite.
      const u1 = 1 - rng();
      const u2 = rng();
      const r = std * Math.sqrt(-2 * Math.log(u1));
      const th = TWO_PI * u2;
      omegaT[transposedIndex(c, d, m)] = r * Math.cos(th);
      if (c + 1 < count) omegaT[transposedIndex(c + 1, d, m)] = r * Math.sin(th);
    }
  } else {
    const { sigma } = spec;
    for (let c = 0; c < count; c++) omegaT[transposedIndex(c, d, m)] = sigma * Math.tan(Math.PI * (rng() - 0.5));
  }
}

/** Position in the transposed layout of the `c`-th drawn component (`c = j*d + k`). */
function transposedIndex(c: number, d: number, m: number): number {
  const j = (c / d) | 0;
  const k = c - j * d;
  return k * m + j;
}
