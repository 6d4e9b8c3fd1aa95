// The wasm SIMD kernel agrees with the plain Math.cos/Math.sin reference.
import { describe, expect, it } from 'vitest';
import seedrandom from 'seedrandom';
import { RffKernel } from '../src/engine/kernel.ts';
import { referenceAccumulate, referenceProject } from '../src/engine/reference-kernel.ts';

/** Standard normals from a seeded generator (Box–Muller). */
function normals(rng: () => number, n: number, scale = 1): Float64Array {
  const a = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    a[i] = scale * Math.sqrt(-2 * Math.log(1 - rng())) * Math.cos(2 * Math.PI * rng());
  }
  return a;
}

interface Case {
  d: number;
  m: number;
  n: number;
  X: Float64Array;
  omegaT: Float64Array;
  alpha: Float64Array;
}

/** Points in [-1, 1]^d and ω ~ N(0, s²) with s chosen so |z| reaches about zMax. */
function makeCase(seed: string, d: number, m: number, n: number, zMax: number): Case {
  const rng = seedrandom(seed);
  const X = new Float64Array(n * d).map(() => 2 * rng() - 1);
  const omegaT = normals(rng, d * m, zMax / (3 * Math.sqrt(d)));
  const alpha = normals(rng, 2 * m);
  return { d, m, n, X, omegaT, alpha };
}

function runFast(kernel: RffKernel, c: Case, out0: Float64Array): Float64Array {
  kernel.reserve(c.n, c.d, c.m);
  kernel.points().set(c.X);
  kernel.omega().set(c.omegaT);
  kernel.alpha().set(c.alpha);
  kernel.out().set(out0);
  kernel.accumulate(c.n);
  return kernel.out().slice(0, c.n);
}

/** Largest |z| over the case (to show the sweep really reached large arguments). */
function maxAbsZ(c: Case): number {
  let zMax = 0;
  for (let p = 0; p < c.n; p++) {
    for (let j = 0; j < c.m; j++) {
      let z = 0;
      for (let k = 0; k < c.d; k++) z += c.omegaT[k * c.m + j] * c.X[p * c.d + k];
      zMax = Math.max(zMax, Math.abs(z));
    }
  }
  return zMax;
}

const EPS = 2 ** -52;

describe('RffKernel.accumulate vs referenceAccumulate', () => {
  const kernel = RffKernel.create();
  for (const d of [1, 8, 28, 128]) {
    for (const m of [1, 3, 64, 128]) {
      it(`agrees to 1e-12 of Σ|a| at d=${d}, m=${m}, 37 points, |z| up to ~1e3`, () => {
        const c = makeCase(`acc-${d}-${m}`, d, m, 37, 1e3);
        const out0 = new Float64Array(c.n).map((_, p) => p - 18); // accumulate adds to what is there
        const expected = out0.slice();
        referenceAccumulate(c.X, c.n, d, c.omegaT, c.alpha, m, expected);
        const got = runFast(kernel, c, out0);
        let scale = 0;
        for (let j = 0; j < 2 * m; j++) scale += Math.abs(c.alpha[j]);
        for (let p = 0; p < c.n; p++) {
          const tol = 1e-12 * scale + 4 * EPS * Math.abs(expected[p]);
          expect(Math.abs(got[p] - expected[p]), `point ${p}`).toBeLessThanOrEqual(tol);
        }
        if (d * m > 8) expect(maxAbsZ(c)).toBeGreaterThan(300);
      });
    }
  }

  it('stays accurate for |z| up to ~5e6, the exact-reduction range', () => {
    const c = makeCase('huge-z', 8, 64, 21, 5e6);
    expect(maxAbsZ(c)).toBeGreaterThan(1e6);
    const expected = new Float64Array(c.n);
    referenceAccumulate(c.X, c.n, c.d, c.omegaT, c.alpha, c.m, expected);
    const got = runFast(RffKernel.create(), c, new Float64Array(c.n));
    let scale = 0;
    for (const a of c.alpha) scale += Math.abs(a);
    for (let p = 0; p < c.n; p++) expect(Math.abs(got[p] - expected[p])).toBeLessThanOrEqual(1e-12 * scale);
  });

  it('gives NaN, not a finite wrong value, for a non-finite point', () => {
    const c = makeCase('nan', 4, 8, 6, 10);
    c.X[2 * 4 + 1] = Infinity;
    const got = runFast(RffKernel.create(), c, new Float64Array(c.n));
    expect(Number.isNaN(got[2])).toBe(true);
    expect(got.filter((v, p) => p !== 2).every(Number.isFinite)).toBe(true);
  });
});

describe('RffKernel.project vs referenceProject', () => {
  const kernel = RffKernel.create();
  for (const [d, m, n] of [
    [1, 1, 5],
    [8, 3, 37],
    [28, 64, 37],
    [128, 128, 19],
    [8, 128, 1],
  ] as const) {
    it(`agrees to 1e-12 of Σ|w| at d=${d}, m=${m}, ${n} points`, () => {
      const c = makeCase(`proj-${d}-${m}-${n}`, d, m, n, 1e3);
      const rng = seedrandom(`w-${d}-${m}`);
      const weights = normals(rng, n);
      const expected = new Float64Array(2 * m);
      referenceProject(c.X, n, d, c.omegaT, weights, m, expected);
      kernel.reserve(n, d, m);
      kernel.points().set(c.X);
      kernel.omega().set(c.omegaT);
      kernel.weights().set(weights);
      kernel.grad().fill(123); // overwritten, not added to
      kernel.project(n);
      const got = kernel.grad();
      let scale = 0;
      for (const w of weights) scale += Math.abs(w);
      for (let i = 0; i < 2 * m; i++) expect(Math.abs(got[i] - expected[i]), `grad ${i}`).toBeLessThanOrEqual(1e-12 * scale);
    });
  }

  it('gives zeros for zero points', () => {
    const kernel2 = RffKernel.create();
    kernel2.reserve(4, 3, 5);
    kernel2.grad().fill(7);
    kernel2.project(0);
    expect(Array.from(kernel2.grad())).toEqual(new Array(10).fill(0));
  });
});

describe('fast sin/cos', () => {
  const kernel = RffKernel.create();

  it('is within 4e-16 of Math.sin/Math.cos over |x| ≤ 6.5e6, including near multiples of π/2', () => {
    let worst = 0;
    const check = (x: number) => {
      worst = Math.max(worst, Math.abs(kernel.fastSin(x) - Math.sin(x)), Math.abs(kernel.fastCos(x) - Math.cos(x)));
    };
    for (const R of [4, 1e3, 6.5e6]) {
      for (let i = 0; i <= 50_000; i++) check(-R + (2 * R * i) / 50_000 + (i % 7) * 1e-3);
    }
    for (let q = -2000; q <= 2000; q++) {
      for (const dx of [0, 1e-9, -1e-9, 1e-3]) check((q * Math.PI) / 2 + dx);
    }
    check(0);
    check(-0);
    expect(worst).toBeLessThanOrEqual(4e-16);
  });

  it('degrades to about half an ulp of x beyond 6.5e6, never worse', () => {
    for (const R of [1e8, 1e10]) {
      for (let i = 0; i <= 2000; i++) {
        const x = R * (1 + i / 2000);
        const ulp = 2 ** (Math.floor(Math.log2(x)) - 52);
        expect(Math.abs(kernel.fastSin(x) - Math.sin(x))).toBeLessThanOrEqual(ulp);
        expect(Math.abs(kernel.fastCos(x) - Math.cos(x))).toBeLessThanOrEqual(ulp);
      }
    }
  });

  it('keeps sin odd and cos even exactly', () => {
    for (let i = 1; i < 1000; i++) {
      const x = i * 0.7311;
      expect(kernel.fastSin(-x)).toBe(-kernel.fastSin(x));
      expect(kernel.fastCos(-x)).toBe(kernel.fastCos(x));
    }
  });
});
