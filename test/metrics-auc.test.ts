import { describe, expect, it } from 'vitest';
import seedrandom from 'seedrandom';
import { auc, sortedWins } from '../src/metrics/index.ts';

/** O(n²) reference straight from the definition: Σ [s_p > s_n] + ½[s_p = s_n] over pairs / (n₊ n₋). */
function bruteAuc(y: ArrayLike<number>, s: ArrayLike<number>, isPositive: (v: number) => boolean = (v) => v > 0): number {
  let wins = 0;
  let pairs = 0;
  for (let i = 0; i < y.length; i++) {
    if (Number.isNaN(y[i]) || !isPositive(y[i])) continue;
    for (let j = 0; j < y.length; j++) {
      if (Number.isNaN(y[j]) || isPositive(y[j])) continue;
      pairs++;
      if (s[i] > s[j]) wins += 1;
      else if (s[i] === s[j]) wins += 0.5;
    }
  }
  return wins / pairs;
}

/** Random binary problem with heavy ties: scores take only `levels` distinct values; ~10% unlabeled. */
function tiedProblem(seed: string, n: number, levels: number): { y: Float64Array; s: Float64Array } {
  const rng = seedrandom(seed);
  const y = new Float64Array(n);
  const s = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const u = rng();
    y[i] = u < 0.1 ? NaN : u < 0.55 ? 1 : -1;
    // informative but noisy, rounded onto a coarse grid so ties are common
    const raw = (Number.isNaN(y[i]) ? 0 : y[i]) * 0.5 + rng() * 2 - 1;
    s[i] = Math.round(raw * (levels / 3)) / (levels / 3);
  }
  // make sure both classes are present in tiny problems
  y[0] = 1;
  y[1] = -1;
  return { y, s };
}

describe('auc: hand-worked cases', () => {
  it('counts a positive–negative tie as one half', () => {
    // positives 0.9, 0.4; negatives 0.4, 0.1
    // (0.9,0.4)=1 (0.9,0.1)=1 (0.4,0.4)=½ (0.4,0.1)=1 → 3.5/4 = 0.875
    expect(auc([1, 1, -1, -1], [0.9, 0.4, 0.4, 0.1])).toBe(0.875);
  });

  it('is 1 for a perfect ranking, 0 for a reversed one, ½ when every score ties', () => {
    expect(auc([0, 0, 1, 1], [1, 2, 3, 4])).toBe(1);
    expect(auc([0, 0, 1, 1], [4, 3, 2, 1])).toBe(0);
    expect(auc([0, 1, 0, 1, 1], [7, 7, 7, 7, 7])).toBe(0.5);
  });

  it('handles a mixed case with groups of ties', () => {
    // y:  +  -  +  -  -  +
    // s:  3  3  2  1  2  1
    // pos {3,2,1} vs neg {3,1,2}:
    //   3: >1,>2, =3 → 2.5 ; 2: >1, =2 → 1.5 ; 1: =1 → 0.5  → 4.5 / 9 = 0.5
    expect(auc([1, -1, 1, -1, -1, 1], [3, 3, 2, 1, 2, 1])).toBe(0.5);
    // y:  +  +  -  -  -
    // s:  5  2  2  1  0   → 5 beats 3 (3), 2: >1,>0, =2 → 2.5 → 5.5/6
    expect(auc([1, 1, -1, -1, -1], [5, 2, 2, 1, 0])).toBe(5.5 / 6);
  });

  it('ignores rows with NaN labels, whatever their score', () => {
    const y = [1, NaN, -1, NaN, 1, -1];
    const s = [0.9, NaN, 0.3, -100, 0.2, 0.5];
    // labeled: pos {0.9, 0.2}, neg {0.3, 0.5} → 0.9 wins 2, 0.2 wins 0 → 2/4
    expect(auc(y, s)).toBe(0.5);
    expect(auc(y, s)).toBe(auc([1, -1, 1, -1], [0.9, 0.3, 0.2, 0.5]));
  });

  it('picks the positive class by value or predicate', () => {
    const y = [1, 2, 3, 2, 1, 3];
    const s = [0.1, 0.8, 0.5, 0.7, 0.2, 0.4];
    // positive = class 2: {0.8, 0.7} above all of {0.1, 0.5, 0.2, 0.4} → 1
    expect(auc(y, s, { positive: 2 })).toBe(1);
    // positive = y ≥ 3: {0.5, 0.4} vs {0.1,0.8,0.7,0.2}: each beats 0.1,0.2 → 4/8
    expect(auc(y, s, { positive: (v) => v >= 3 })).toBe(0.5);
    // default y > 0 on 0/1 labels
    expect(auc(new Float64Array([0, 1, 0, 1]), new Float64Array([0.2, 0.6, 0.4, 0.9]))).toBe(1);
  });
});

describe('auc: against the O(n²) pairwise count, heavy ties', () => {
  for (const n of [2, 7, 50, 400, 2500]) {
    for (const levels of [2, 5, 40]) {
      it(`n=${n}, ${levels} score levels`, () => {
        const { y, s } = tiedProblem(`auc-${n}-${levels}`, n, levels);
        const ties = new Set(s).size;
        if (n >= 400) expect(ties).toBeLessThan(n / 5); // the data really are tied
        expect(auc(y, s)).toBe(bruteAuc(y, s));
      });
    }
  }

  it('also with a value-selected positive class among several', () => {
    const rng = seedrandom('multi');
    const y = Array.from({ length: 600 }, () => 1 + Math.floor(rng() * 4));
    const s = y.map((c) => Math.round(c + rng() * 4));
    expect(auc(y, s, { positive: 3 })).toBe(bruteAuc(y, s, (v) => v === 3));
  });
});

describe('auc: invariances', () => {
  const { y, s } = tiedProblem('invariance', 1500, 12);

  it('is unchanged by strictly increasing transforms of the scores', () => {
    const a = auc(y, s);
    const transforms: Array<(v: number) => number> = [
      (v) => 3 * v - 7,
      (v) => Math.exp(v),
      (v) => v * v * v,
      (v) => 1 / (1 + Math.exp(-v)),
      (v) => Math.atan(v) + 1e6,
    ];
    for (const g of transforms) expect(auc(y, s.map(g))).toBe(a);
  });

  it('flips to 1 − AUC when the scores are negated', () => {
    expect(auc(y, s.map((v) => -v))).toBeCloseTo(1 - auc(y, s), 14);
  });

  it('does not depend on row order', () => {
    const rng = seedrandom('shuffle');
    const order = Array.from({ length: y.length }, (_, i) => i);
    for (let i = order.length - 1; i > 0; i--) {
      const j = Math.floor(rng() * (i + 1));
      [order[i], order[j]] = [order[j], order[i]];
    }
    expect(auc(order.map((i) => y[i]), order.map((i) => s[i]))).toBe(auc(y, s));
  });
});

describe('auc: degenerate inputs', () => {
  it('throws a RangeError naming the missing class', () => {
    expect(() => auc([1, 1, NaN], [0.1, 0.2, 0.3])).toThrow(RangeError);
    expect(() => auc([1, 1, NaN], [0.1, 0.2, 0.3])).toThrow(/no negative/);
    expect(() => auc([-1, 0, -1], [0.1, 0.2, 0.3])).toThrow(/no positive/);
    expect(() => auc([NaN, NaN], [0.1, 0.2])).toThrow(/no positive labeled rows among 0/);
    expect(() => auc([], [])).toThrow(RangeError);
  });

  it('rejects a non-finite score on a labeled row, naming the index', () => {
    expect(() => auc([1, -1, 1], [0.1, NaN, 0.3])).toThrow(/scores\[1\] is NaN \(row 2\)/);
    expect(() => auc([1, -1, 1], [0.1, 0.2, Infinity])).toThrow(/scores\[2\] is Infinity/);
  });

  it('rejects mismatched lengths and infinite labels', () => {
    expect(() => auc([1, -1], [0.1])).toThrow(/y has 2 entries but scores has 1/);
    expect(() => auc([1, -Infinity], [0.1, 0.2])).toThrow(/y\[1\]/);
  });
});

describe('sortedWins', () => {
  it('counts strict wins and half ties of one sorted sample over another', () => {
    // P {1,2,2,5} vs N {0,2,6}: 1→1, 2→1.5, 2→1.5, 5→2 = 6
    expect(sortedWins(new Float64Array([1, 2, 2, 5]), new Float64Array([0, 2, 6]))).toBe(6);
    expect(sortedWins(new Float64Array([]), new Float64Array([1]))).toBe(0);
  });
});
