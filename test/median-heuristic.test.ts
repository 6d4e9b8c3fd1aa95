import { describe, expect, it } from 'vitest';
import seedrandom from 'seedrandom';
import { medianHeuristicSigma, sampleRowIndices } from '../src/features/index.ts';

/** 1 / median squared distance over ALL pairs, by brute force (the definition). */
function bruteForce(X: Float64Array, n: number, d: number, rows?: ArrayLike<number>): number {
  const idx = rows ? Array.from(rows) : Array.from({ length: n }, (_, i) => i);
  const dist: number[] = [];
  for (let a = 0; a < idx.length; a++) {
    for (let b = a + 1; b < idx.length; b++) {
      let s = 0;
      for (let k = 0; k < d; k++) s += (X[idx[a] * d + k] - X[idx[b] * d + k]) ** 2;
      dist.push(s);
    }
  }
  dist.sort((u, v) => u - v);
  const h = dist.length >> 1;
  return 1 / (dist.length % 2 ? dist[h] : (dist[h - 1] + dist[h]) / 2);
}

function uniform(n: number, d: number, seed: string): Float64Array {
  const rng = seedrandom(seed);
  return Float64Array.from({ length: n * d }, () => rng());
}

describe('medianHeuristicSigma', () => {
  it('matches closed forms: points on a line, and the corners of a unit square', () => {
    // 0, 1, 3: squared distances 1, 9, 4 → median 4.
    expect(medianHeuristicSigma(new Float64Array([0, 1, 3]), 3, 1)).toBe(0.25);
    // Unit square corners: 4 sides of length² 1, 2 diagonals of length² 2 → median of [1,1,1,1,2,2] = 1.
    expect(medianHeuristicSigma(new Float64Array([0, 0, 0, 1, 1, 0, 1, 1]), 4, 2)).toBe(1);
    // Scaling the data by c scales σ by 1/c².
    expect(medianHeuristicSigma(new Float64Array([0, 3, 9]), 3, 1)).toBeCloseTo(0.25 / 9, 15);
  });

  it('uses every pair when n is at most the sample size (equals brute force over all pairs)', () => {
    for (const [n, d] of [[2, 3], [17, 4], [60, 9]] as const) {
      const X = uniform(n, d, `all-${n}`);
      expect(medianHeuristicSigma(X, n, d, { sample: 60, seed: 3 })).toBe(bruteForce(X, n, d));
    }
  });

  it('equals brute force on data with many equal distances (a small integer grid: the median found by selection, not sorting)', () => {
    for (const [n, d, seed] of [[40, 2, 'grid-a'], [41, 3, 'grid-b'], [64, 1, 'grid-c'], [7, 2, 'grid-d']] as const) {
      const rng = seedrandom(seed);
      const X = Float64Array.from({ length: n * d }, () => Math.floor(rng() * 4));
      // Some pairs coincide (distance 0); the median stays positive for these seeds.
      expect(medianHeuristicSigma(X, n, d, { sample: n })).toBe(bruteForce(X, n, d));
    }
  });

  it('with n above the sample size, is the brute-force value on the seeded sample, and the same for the same seed', () => {
    const n = 500;
    const d = 6;
    const X = uniform(n, d, 'sampled');
    const rows = sampleRowIndices(n, 80, 11);
    expect(medianHeuristicSigma(X, n, d, { sample: 80, seed: 11 })).toBe(bruteForce(X, n, d, rows));
    expect(medianHeuristicSigma(X, n, d, { sample: 80, seed: 11 })).toBe(medianHeuristicSigma(X, n, d, { sample: 80, seed: 11 }));
  });

  it('a 300-row sample estimates the all-pairs value of 3,000 rows within 5%', () => {
    const n = 3000;
    const d = 10;
    const X = uniform(n, d, 'estimate');
    const all = medianHeuristicSigma(X, n, d, { sample: n });
    for (const seed of [1, 2, 3]) {
      expect(Math.abs(medianHeuristicSigma(X, n, d, { sample: 300, seed }) / all - 1)).toBeLessThan(0.05);
    }
    // For uniform [0,1]^d, E‖x − x'‖² = d/6, and the median is close to it.
    expect(Math.abs(1 / all / (d / 6) - 1)).toBeLessThan(0.05);
  });

  it('rejects too few rows, mismatched shapes, duplicates-only data and non-finite values', () => {
    expect(() => medianHeuristicSigma(new Float64Array([1, 2]), 1, 2)).toThrow(/at least 2 rows/);
    expect(() => medianHeuristicSigma(new Float64Array([1, 2, 3]), 2, 2)).toThrow(/expected n\*d/);
    expect(() => medianHeuristicSigma(new Float64Array([5, 5, 5, 5, 7]), 5, 1)).toThrow(/median squared distance .* is 0/);
    expect(() => medianHeuristicSigma(new Float64Array([0, NaN, 1]), 3, 1)).toThrow(/rows 1 and 2/);
  });
});

describe('sampleRowIndices', () => {
  it('draws distinct, ascending, in-range rows, deterministic from the seed', () => {
    const a = sampleRowIndices(1000, 50, 'x');
    expect(a.length).toBe(50);
    expect(new Set(a).size).toBe(50);
    for (let i = 1; i < a.length; i++) expect(a[i]).toBeGreaterThan(a[i - 1]);
    expect(a[a.length - 1]).toBeLessThan(1000);
    expect(sampleRowIndices(1000, 50, 'x')).toEqual(a);
    expect(sampleRowIndices(1000, 50, 'y')).not.toEqual(a);
    expect(Array.from(sampleRowIndices(4, 9, 1))).toEqual([0, 1, 2, 3]);
  });
});
