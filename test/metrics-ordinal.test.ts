import { describe, expect, it } from 'vitest';
import seedrandom from 'seedrandom';
import { auc, meanAbsoluteError, ordinalMeanAuc } from '../src/metrics/index.ts';

/** Brute-force AUC of subproblem j (positives y > j, negatives y ≤ j), pairwise; NaN if undefined. */
function bruteThresholdAuc(y: ArrayLike<number>, s: ArrayLike<number>, j: number): number {
  let wins = 0;
  let pairs = 0;
  for (let p = 0; p < y.length; p++) {
    if (Number.isNaN(y[p]) || !(y[p] > j)) continue;
    for (let q = 0; q < y.length; q++) {
      if (Number.isNaN(y[q]) || !(y[q] <= j)) continue;
      pairs++;
      wins += s[p] > s[q] ? 1 : s[p] === s[q] ? 0.5 : 0;
    }
  }
  return pairs === 0 ? NaN : wins / pairs;
}

/** Ordinal problem: labels 1..k (some NaN), scores = label + noise rounded to a coarse grid (many ties). */
function ordinalProblem(seed: string, n: number, k: number): { y: Float64Array; s: Float64Array } {
  const rng = seedrandom(seed);
  const y = new Float64Array(n);
  const s = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    y[i] = rng() < 0.1 ? NaN : 1 + Math.floor(rng() * k);
    s[i] = Math.round(((Number.isNaN(y[i]) ? 0 : y[i]) + 3 * rng()) * 2) / 2;
  }
  for (let c = 1; c <= k && c <= n; c++) y[c - 1] = c; // every class present
  return { y, s };
}

describe('meanAbsoluteError', () => {
  it('matches a hand-worked case and skips unlabeled rows', () => {
    // |1−1| + |2−3| + |3−1| = 0 + 1 + 2 = 3 over 3 labeled rows
    expect(meanAbsoluteError([1, 2, 3, NaN], [1, 3, 1, 2])).toBe(1);
    // |4−2.5| + |1−1| = 1.5 over 2
    expect(meanAbsoluteError(new Float64Array([4, 1]), new Float64Array([2.5, 1]))).toBe(0.75);
  });

  it('throws when nothing is labeled or a prediction is missing', () => {
    expect(() => meanAbsoluteError([NaN], [1])).toThrow(/no labeled rows/);
    expect(() => meanAbsoluteError([1, 2], [1, NaN])).toThrow(/predicted\[1\] is NaN/);
  });
});

describe('ordinalMeanAuc: hand-worked', () => {
  it('averages the k − 1 threshold AUCs, ties ½', () => {
    // y: 1 1 2 3, f: 0.1 0.5 0.5 0.9
    // j=1: pos {0.5(c2), 0.9} vs neg {0.1, 0.5}: 0.5→1+½, 0.9→2 → 3.5/4 = 0.875
    // j=2: pos {0.9} vs neg {0.1, 0.5, 0.5}: 3/3 = 1
    const r = ordinalMeanAuc([1, 1, 2, 3], [0.1, 0.5, 0.5, 0.9]);
    expect(Array.from(r.perThreshold)).toEqual([0.875, 1]);
    expect(r.meanAuc).toBe(0.9375);
    expect(r.k).toBe(3);
    expect(r.classCounts).toEqual([2, 1, 1]);
    expect(r.skippedThresholds).toEqual([]);
  });

  it('with k = 2 equals binary AUC with class 2 positive', () => {
    const y = [1, 2, 2, 1, 1, NaN, 2];
    const s = [0.3, 0.3, 0.8, 0.1, 0.9, 5, 0.2];
    expect(ordinalMeanAuc(y, s).meanAuc).toBe(auc(y, s, { positive: 2 }));
  });
});

describe('ordinalMeanAuc: against brute force', () => {
  for (const [n, k] of [
    [5, 3],
    [60, 4],
    [700, 5],
    [1500, 8],
  ] as const) {
    it(`n=${n}, k=${k}`, () => {
      const { y, s } = ordinalProblem(`ord-${n}-${k}`, n, k);
      const r = ordinalMeanAuc(y, s);
      expect(r.k).toBe(k);
      let sum = 0;
      for (let j = 1; j < k; j++) {
        const b = bruteThresholdAuc(y, s, j);
        expect(r.perThreshold[j - 1]).toBe(b);
        sum += b;
      }
      expect(r.meanAuc).toBeCloseTo(sum / (k - 1), 14);
    });
  }

  it('is unchanged by a strictly increasing transform of f', () => {
    const { y, s } = ordinalProblem('ord-monotone', 900, 5);
    const a = ordinalMeanAuc(y, s);
    const b = ordinalMeanAuc(y, s.map((v) => Math.exp(2 * v) - 4));
    expect(Array.from(b.perThreshold)).toEqual(Array.from(a.perThreshold));
  });
});

describe('ordinalMeanAuc: absent classes', () => {
  it('skips thresholds above the largest present class when k is given', () => {
    // classes 1,2,3 of k=5: j=3 (pos y>3) and j=4 have no positives
    const y = [1, 2, 3, 1, 3];
    const s = [0, 1, 2, 0.5, 3];
    const r = ordinalMeanAuc(y, s, { k: 5 });
    expect(r.skippedThresholds).toEqual([3, 4]);
    expect(Number.isNaN(r.perThreshold[2]) && Number.isNaN(r.perThreshold[3])).toBe(true);
    // j=1: pos {1,2,3} vs neg {0,0.5} → 1; j=2: pos {2,3} vs neg {0,1,0.5} → 1
    expect(r.meanAuc).toBe(1);
  });

  it('keeps both thresholds around a missing middle class (they coincide)', () => {
    // classes 1 and 3 only: j=1 and j=2 both split {1} | {3}
    const y = [1, 3, 1, 3];
    const s = [0.2, 0.1, 0.0, 0.9];
    const r = ordinalMeanAuc(y, s);
    expect(r.skippedThresholds).toEqual([]);
    // pos {0.1, 0.9} vs neg {0.2, 0.0}: 0.1→1, 0.9→2 → 3/4
    expect(Array.from(r.perThreshold)).toEqual([0.75, 0.75]);
  });

  it('throws when fewer than two classes are labeled', () => {
    expect(() => ordinalMeanAuc([2, 2, NaN], [1, 2, 3], { k: 4 })).toThrow(/only class 2 present/);
    expect(() => ordinalMeanAuc([1, 1], [1, 2])).toThrow(RangeError);
    expect(() => ordinalMeanAuc([NaN], [1])).toThrow(/no labeled rows/);
  });

  it('rejects labels that are not integers 1..k, naming the row', () => {
    expect(() => ordinalMeanAuc([1, 2.5, 3], [0, 1, 2])).toThrow(/y\[1\] = 2.5 \(row 2\)/);
    expect(() => ordinalMeanAuc([1, 0, 3], [0, 1, 2])).toThrow(/y\[1\] = 0/);
    expect(() => ordinalMeanAuc([1, 2, 6], [0, 1, 2], { k: 5 })).toThrow(/y\[2\] = 6 .*integers 1\.\.5/);
    expect(() => ordinalMeanAuc([1, 2], [0, 1], { k: 1 })).toThrow(/k must be an integer ≥ 2/);
  });
});
