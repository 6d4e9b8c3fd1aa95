/**
 * Seeded spectral samplers: the frequencies of random-feature block `i` are a
 * pure function of `(modelSeed, i)`, the kernel and the feature family, so any
 * thread can regenerate any block, in any order, and get the same bits.
 *
 * Families (Yu et al., "Orthogonal Random Features", NeurIPS 2016), for the
 * Gaussian kernel `exp(−σ‖x−x′‖²)`:
 * - `gaussian`: i.i.d. rows `ω ~ N(0, 2σ I)` (Rahimi–Recht);
 * - `orf`: each group of up to `d` rows orthogonal (Gaussian vectors
 *   orthonormalised by Gram–Schmidt), each row's length the length of its own
 *   Gaussian vector (χ distributed with `d` degrees of freedom, independent of
 *   the directions), so every row is still `N(0, 2σ I)` but rows in a group
 *   are orthogonal: the same kernel in expectation, lower variance;
 * - `sorf`: `√(2σ)·√N·H·D₁·H·D₂·H·D₃` per group of `N` rows, `N` = d padded
 *   to a power of two, `H` the normalised Walsh–Hadamard matrix and `D_k`
 *   random ±1 diagonals (the padded coordinates are dropped: x is zero there).
 *   When a block is at most half a group (`2m ≤ N`), {@link sorfGroupBlocks}
 *   consecutive blocks share one group: block `i` is rows
 *   `(i mod G)·m … (i mod G)·m + m − 1` of group `⌊i/G⌋`, whose signs are drawn
 *   from the stream of `(modelSeed, ⌊i/G⌋)`; so one transform of a point serves
 *   `G` blocks, and block `i` is still a function of `(modelSeed, i)` alone.
 * Both structured families need a rotation-invariant spectral density, so they
 * apply to the Gaussian kernel only; the Laplacian kernel's density (a product
 * of Cauchy distributions) is not rotation invariant.
 */
import seedrandom from 'seedrandom';
import type { KernelSpec } from './kernel-spec.ts';

/** How a block's frequencies are drawn (see the module comment). */
export type FeatureFamily = 'gaussian' | 'orf' | 'sorf';

/** The feature families dsgkit knows, for `--help` and validation. */
export const FEATURE_FAMILIES = ['gaussian', 'orf', 'sorf'] as const;

/** What `--features` accepts: a family, or `auto` ({@link autoFeatureFamily}), the default. */
export const FEATURE_CHOICES = ['auto', ...FEATURE_FAMILIES] as const;

/**
 * Fewest input columns at which `features auto` takes `sorf`: from there on,
 * at the default m = 64, the kernel is 2.6× faster or more with `sorf` on
 * dense rows, and the benchmark's sets of that width (musk, d = 166; dna,
 * d = 180) keep their held-out quality with every loop learner
 * (docs/features.md, "Choosing").
 */
export const AUTO_SORF_MIN_D = 128;

/**
 * The family `features: 'auto'` resolves to: `sorf` for the rbf kernel on
 * wide data (`d ≥` {@link AUTO_SORF_MIN_D}) when blocks share SORF groups
 * (`2m ≤ N`, {@link sorfGroupBlocks}), else `gaussian` (every kernel, no bias
 * on narrow data). A function of the kernel and the shapes alone.
 *
 * @example
 * autoFeatureFamily('rbf', 784, 64);       // 'sorf'
 * autoFeatureFamily('rbf', 129, 64);       // 'sorf'
 * autoFeatureFamily('rbf', 18, 64);        // 'gaussian'
 * autoFeatureFamily('laplacian', 784, 64); // 'gaussian'
 */
export function autoFeatureFamily(kernel: KernelSpec['kind'], d: number, m: number): FeatureFamily {
  return kernel === 'rbf' && d >= AUTO_SORF_MIN_D && sorfGroupBlocks(d, m) > 1 ? 'sorf' : 'gaussian';
}

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
 * `family` `orf` or `sorf` (rbf only; RangeError otherwise): the structured
 * blocks of the module comment, drawn from the same per-block stream.
 * `omegaT` must hold at least `d*m` values; nothing else is touched.
 *
 * @example
 * const w = new Float64Array(3 * 4);
 * sampleBlockOmega({ kind: 'rbf', sigma: 1 }, 42, 0, 3, 4, w); // w is block 0 of model 42
 * sampleBlockOmega({ kind: 'rbf', sigma: 1 }, 42, 0, 3, 4, w, 'orf'); // the same block, orthogonal rows
 */
export function sampleBlockOmega(spec: KernelSpec, modelSeed: number, i: number, d: number, m: number, omegaT: Float64Array, family: FeatureFamily = 'gaussian'): void {
  const count = d * m;
  if (family !== 'gaussian') {
    if (spec.kind !== 'rbf') throw new RangeError(`${family} features need the rbf kernel (the ${spec.kind} kernel's spectral density is not rotation invariant)`);
    if (family === 'orf') orthogonalBlock(seedrandom.alea(blockSeed(modelSeed, i)), Math.sqrt(2 * spec.sigma), d, m, omegaT);
    else if (family === 'sorf') {
      const { group, firstRow } = sorfPlace(d, m, i);
      structuredBlock(seedrandom.alea(blockSeed(modelSeed, group)), Math.sqrt(2 * spec.sigma), d, m, omegaT, firstRow);
    } else throw new RangeError(`unknown feature family '${String(family)}' (expected one of ${FEATURE_FAMILIES.join(', ')})`);
    return;
  }
  const rng = seedrandom.alea(blockSeed(modelSeed, i));
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

/**
 * ORF: rows in groups of up to `d`; in a group, row `j` is Gaussian vector
 * `g_j` (drawn component by component, Box–Muller, both outputs used)
 * orthonormalised against the group's earlier rows (Gram–Schmidt, two passes
 * so the rows stay orthogonal to rounding), then scaled to `std·‖g_j‖`.
 */
function orthogonalBlock(rng: () => number, std: number, d: number, m: number, omegaT: Float64Array): void {
  const normal = normals(rng);
  const rows = new Float64Array(Math.min(m, d) * d);
  const v = new Float64Array(d);
  for (let j = 0; j < m; j++) {
    const r = j % d; // row within its group
    let norm2 = 0;
    for (let k = 0; k < d; k++) {
      v[k] = normal();
      norm2 += v[k] * v[k];
    }
    const length = Math.sqrt(norm2);
    for (let pass = 0; pass < 2; pass++) {
      for (let q = 0; q < r; q++) {
        let dot = 0;
        for (let k = 0; k < d; k++) dot += rows[q * d + k] * v[k];
        for (let k = 0; k < d; k++) v[k] -= dot * rows[q * d + k];
      }
    }
    let n2 = 0;
    for (let k = 0; k < d; k++) n2 += v[k] * v[k];
    const inv = 1 / Math.sqrt(n2);
    const scale = std * length;
    for (let k = 0; k < d; k++) {
      const unit = v[k] * inv;
      rows[r * d + k] = unit;
      omegaT[k * m + j] = scale * unit;
    }
  }
}

/**
 * SORF: rows in groups of `N` (d padded to a power of two); a group draws
 * `D₁, D₂, D₃` (3N signs, in that order) and its row `r` is
 * `(std/N)·D₃·Hu·D₂·Hu·D₁·Hu·e_r` (`Hu` the ±1 Hadamard matrix), the first `d`
 * coordinates kept. The block's row `j` is group row `firstRow + j` (a block
 * that shares its group starts inside it; `firstRow + m ≤ N` then). Before the
 * final scaling every value is an integer, so the frequencies are exact up to
 * one rounding.
 */
function structuredBlock(rng: () => number, std: number, d: number, m: number, omegaT: Float64Array, firstRow = 0): void {
  const N = paddedDimension(d);
  const signs = new Float64Array(3 * N);
  const v = new Float64Array(N);
  const scale = std / N;
  for (let j = 0; j < m; j++) {
    const r = (firstRow + j) % N;
    if (j === 0 || r === 0) for (let k = 0; k < 3 * N; k++) signs[k] = rng() < 0.5 ? -1 : 1;
    for (let k = 0; k < N; k++) v[k] = (popcount(r & k) & 1 ? -1 : 1) * signs[k];
    walshHadamard(v);
    for (let k = 0; k < N; k++) v[k] *= signs[N + k];
    walshHadamard(v);
    for (let k = 0; k < d; k++) omegaT[k * m + j] = scale * (v[k] * signs[2 * N + k]);
  }
}

/**
 * Doubles in block `i`'s kernel form ({@link sampleKernelBlock}): the dense
 * `d·m` frequencies, or for `sorf` the structured block (its scale, its first
 * row in its group, then three sign diagonals of N per group of N rows).
 *
 * @example
 * kernelBlockWidth(784, 64, 'sorf'); // 2 + 3·1024 = 3074 (against 50,176 dense)
 */
export function kernelBlockWidth(d: number, m: number, family: FeatureFamily = 'gaussian'): number {
  if (family !== 'sorf') return d * m;
  const N = paddedDimension(d);
  return 2 + 3 * N * Math.ceil(m / N);
}

/**
 * Blocks of `m` SORF rows that share one group of `N` rows (`N` = d padded to
 * a power of two): `⌊N/m⌋` when a block is at most half a group, else 1 (a
 * block then has groups of its own, `⌈m/N⌉` of them). One transform of a point
 * serves every block of a group, which is what makes `sorf` pay when `m ≪ d`.
 *
 * @example
 * sorfGroupBlocks(784, 64); // 16: N = 1024 rows, 16 blocks of 64
 * sorfGroupBlocks(18, 64);  // 1: N = 32 < m
 */
export function sorfGroupBlocks(d: number, m: number): number {
  const N = paddedDimension(d);
  return 2 * m <= N ? Math.floor(N / m) : 1;
}

/**
 * Where SORF block `i` sits: its group (whose signs come from the stream of
 * `(modelSeed, group)`) and its first row in it.
 *
 * @example
 * sorfPlace(784, 64, 18); // { group: 1, firstRow: 128 }
 */
export function sorfPlace(d: number, m: number, i: number): { group: number; firstRow: number } {
  const G = sorfGroupBlocks(d, m);
  const group = Math.floor(i / G);
  return { group, firstRow: (i - group * G) * m };
}

/**
 * Block `i` in the form the engine's kernel evaluates: the transposed dense
 * frequencies of {@link sampleBlockOmega}, except for `sorf`, where it is
 * `[std/N, firstRow, D₁, D₂, D₃ of group 0, D₁, D₂, D₃ of group 1, …]` (±1
 * values, the same draws as the dense rows; one group when blocks share groups,
 * {@link sorfPlace}), so the kernel applies `x ↦ c·Hu·D₁·Hu·D₂·Hu·D₃·x`
 * in `O(N log N)` instead of multiplying by a `d × m` matrix, and blocks of one
 * group have the same form but for `firstRow`.
 * `target` must hold {@link kernelBlockWidth} values.
 *
 * @example
 * const s = new Float64Array(kernelBlockWidth(784, 64, 'sorf'));
 * sampleKernelBlock({ kind: 'rbf', sigma: 0.01 }, 1, 0, 784, 64, s, 'sorf');
 */
export function sampleKernelBlock(spec: KernelSpec, modelSeed: number, i: number, d: number, m: number, target: Float64Array, family: FeatureFamily = 'gaussian'): void {
  if (family !== 'sorf') {
    sampleBlockOmega(spec, modelSeed, i, d, m, target, family);
    return;
  }
  if (spec.kind !== 'rbf') throw new RangeError(`sorf features need the rbf kernel (the ${spec.kind} kernel's spectral density is not rotation invariant)`);
  const { group, firstRow } = sorfPlace(d, m, i);
  const rng = seedrandom.alea(blockSeed(modelSeed, group));
  const N = paddedDimension(d);
  target[0] = Math.sqrt(2 * spec.sigma) / N;
  target[1] = firstRow;
  const groups = Math.ceil(m / N);
  for (let k = 2; k < 2 + 3 * N * groups; k++) target[k] = rng() < 0.5 ? -1 : 1;
}

/**
 * The smallest power of two ≥ d (the dimension SORF works in).
 *
 * @example
 * paddedDimension(784); // 1024
 */
export function paddedDimension(d: number): number {
  let N = 1;
  while (N < d) N *= 2;
  return N;
}

/**
 * In-place unnormalised fast Walsh–Hadamard transform (`v ← Hu·v`, Sylvester
 * order) of a vector whose length is a power of two: `N·log₂N` additions.
 *
 * @example
 * const v = Float64Array.of(1, 0, 0, 0);
 * walshHadamard(v); // [1, 1, 1, 1]
 */
export function walshHadamard(v: Float64Array): void {
  const N = v.length;
  for (let h = 1; h < N; h *= 2) {
    for (let i = 0; i < N; i += 2 * h) {
      for (let k = i; k < i + h; k++) {
        const a = v[k];
        const b = v[k + h];
        v[k] = a + b;
        v[k + h] = a - b;
      }
    }
  }
}

function popcount(x: number): number {
  let c = 0;
  for (let y = x; y !== 0; y &= y - 1) c++;
  return c;
}

/** Standard normals from a uniform stream, Box–Muller, both outputs used in turn. */
function normals(rng: () => number): () => number {
  const TWO_PI = 2 * Math.PI;
  let spare = NaN;
  return () => {
    if (!Number.isNaN(spare)) {
      const s = spare;
      spare = NaN;
      return s;
    }
    const r = Math.sqrt(-2 * Math.log(1 - rng()));
    const th = TWO_PI * rng();
    spare = r * Math.sin(th);
    return r * Math.cos(th);
  };
}

/** Position in the transposed layout of the `c`-th drawn component (`c = j*d + k`). */
function transposedIndex(c: number, d: number, m: number): number {
  const j = (c / d) | 0;
  const k = c - j * d;
  return k * m + j;
}
