import { describe, expect, it } from 'vitest';
import seedrandom from 'seedrandom';
import { accuracy, confusionCounts, f1Score, mean, median, sampleSd } from '../src/metrics/index.ts';

describe('confusionCounts', () => {
  it('counts a hand-worked case and skips unlabeled rows', () => {
    // y:    +  +  -  -  NaN  +
    // pred: +  -  +  -   +   +
    // tp: rows 0,5 = 2; fn: row 1; fp: row 2; tn: row 3; row 4 unlabeled
    expect(confusionCounts([1, 1, -1, -1, NaN, 1], [1, -1, 1, -1, 1, 1])).toEqual({ tp: 2, fp: 1, tn: 1, fn: 1, n: 5, unlabeled: 1 });
  });

  it('treats decision values through the positive predicate (default y > 0)', () => {
    // y 0/1, decision values: 0.3 → +, -0.2 → −, 0 → − (not > 0), 2 → +
    expect(confusionCounts([1, 1, 0, 0], [0.3, -0.2, 0, 2])).toEqual({ tp: 1, fp: 1, tn: 1, fn: 1, n: 4, unlabeled: 0 });
  });

  it('selects the positive class by value', () => {
    // positive = 3; y 1 2 3 3 → pos rows 2,3; pred 3 3 3 1 → tp row 2, fp row 1, fn row 3, tn row 0
    expect(confusionCounts([1, 2, 3, 3], [1, 3, 3, 1], { positive: 3 })).toEqual({ tp: 1, fp: 1, tn: 1, fn: 1, n: 4, unlabeled: 0 });
  });
});

describe('accuracy', () => {
  it('compares labels exactly without a positive class (multi-class)', () => {
    // rows 0,1 right, row 2 wrong, row 3 unlabeled → 2/3
    expect(accuracy([1, 2, 3, NaN], [1, 2, 2, 3])).toBeCloseTo(2 / 3, 15);
  });

  it('is binary through the predicate when a positive class is given', () => {
    // +/+ right, −/− right, +/− wrong → 2/3
    expect(accuracy([1, -1, 1], [0.7, -0.2, -1.5], { positive: (v) => v > 0 })).toBeCloseTo(2 / 3, 15);
    // exact comparison would call all three wrong
    expect(accuracy([1, -1, 1], [0.7, -0.2, -1.5])).toBe(0);
  });

  it('equals (tp + tn) / n on random data', () => {
    const rng = seedrandom('acc');
    const y = Array.from({ length: 500 }, () => (rng() < 0.1 ? NaN : rng() < 0.4 ? 1 : -1));
    const p = Array.from({ length: 500 }, () => (rng() < 0.5 ? 1 : -1));
    const c = confusionCounts(y, p);
    expect(accuracy(y, p)).toBe((c.tp + c.tn) / c.n);
  });

  it('throws when nothing is labeled, or a labeled prediction is NaN', () => {
    expect(() => accuracy([NaN, NaN], [1, 2])).toThrow(/no labeled rows/);
    expect(() => accuracy([1, 2], [1, NaN])).toThrow(/predicted\[1\] is NaN \(row 2\)/);
    expect(() => accuracy([1, 2], [1])).toThrow(/2 entries but predicted has 1/);
  });
});

describe('f1Score', () => {
  it('matches a hand-worked case', () => {
    // tp=2 (rows 0,1), fn=1 (row 2), fp=1 (row 3), tn=1
    // precision 2/3, recall 2/3 → F1 = 2·2/(2·2+1+1) = 4/6
    expect(f1Score([1, 1, 1, -1, -1], [1, 1, -1, 1, -1])).toBeCloseTo(2 / 3, 15);
    // tp=1, fp=3, fn=0: precision ¼, recall 1 → 2·¼·1/(¼+1) = 0.4 = 2/(2+3)
    expect(f1Score([1, -1, -1, -1], [1, 1, 1, 1])).toBeCloseTo(0.4, 15);
  });

  it('is the harmonic mean of precision and recall on random data', () => {
    const rng = seedrandom('f1');
    const y = Array.from({ length: 800 }, () => (rng() < 0.3 ? 1 : 0));
    const p = y.map((v) => (rng() < 0.8 ? v : 1 - v));
    const c = confusionCounts(y, p);
    const precision = c.tp / (c.tp + c.fp);
    const recall = c.tp / (c.tp + c.fn);
    expect(f1Score(y, p)).toBeCloseTo((2 * precision * recall) / (precision + recall), 12);
  });

  it('is 0 when there are positives but none found', () => {
    expect(f1Score([1, 1, -1], [-1, -1, -1])).toBe(0);
  });

  it('defines the no-positives-anywhere case as 1, overridable', () => {
    // tp = fp = fn = 0: nothing to find, nothing claimed
    expect(f1Score([-1, -1, NaN], [-1, -1, 1])).toBe(1);
    expect(f1Score([-1, -1], [-1, -1], { zeroDivision: 0 })).toBe(0);
    expect(f1Score([-1, -1], [-1, -1], { zeroDivision: NaN })).toBeNaN();
  });

  it('throws when nothing is labeled', () => {
    expect(() => f1Score([NaN], [1])).toThrow(/f1Score: no labeled rows/);
  });
});

describe('summaries over folds and seeds', () => {
  it('mean, sample sd (n − 1; 0 for one value) and median on hand-worked lists', () => {
    expect(mean([1, 2, 6])).toBe(3);
    expect(sampleSd([1, 2, 6])).toBeCloseTo(Math.sqrt((4 + 1 + 9) / 2), 15);
    expect(sampleSd([0.7])).toBe(0);
    const odd = [5, 1, 3];
    expect(median(odd)).toBe(3);
    expect(odd).toEqual([5, 1, 3]);
    expect(median([3, 1, 2, 10])).toBe(2.5);
  });
});
