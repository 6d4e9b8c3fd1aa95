import { describe, expect, it } from 'vitest';
import seedrandom from 'seedrandom';
import { DataError } from '../src/errors.ts';
import { labeledFolds, makeDataset, splitDataset, type Dataset } from '../src/data/index.ts';

/** n rows, d = 2; labels drawn from `classes` with the given weights; `unlabeled` fraction NaN. */
function data(n: number, classes: number[], weights: number[], unlabeled: number, seed: string): Dataset {
  const rng = seedrandom(seed);
  const total = weights.reduce((a, b) => a + b, 0);
  const y = Float64Array.from({ length: n }, () => {
    if (rng() < unlabeled) return NaN;
    let u = rng() * total;
    for (let c = 0; c < classes.length; c++) if ((u -= weights[c]) < 0) return classes[c];
    return classes[classes.length - 1];
  });
  return makeDataset({ X: Float64Array.from({ length: n * 2 }, (_, i) => i), d: 2, y, source: 'mem.arrow' });
}

/** Row index of each row of a fold dataset: X's first column is 2·(original row). */
const origin = (ds: Dataset) => Array.from({ length: ds.n }, (_, r) => ds.X[r * 2] / 2);

describe('labeledFolds', () => {
  const ds = data(700, [-1, 1], [0.7, 0.3], 0.6, 'folds');
  const folds = labeledFolds(ds, { k: 5, seed: 3 });
  const labeledRows = origin(ds).filter((i) => ds.labeled[i]);

  it('the validation folds partition the labeled rows, and hold only labeled rows', () => {
    const seen = folds.flatMap((f) => Array.from(f.validationRows));
    expect(seen.length).toBe(labeledRows.length);
    expect(new Set(seen)).toEqual(new Set(labeledRows));
    for (const f of folds) {
      expect(Array.from(f.validation.labeled).every((v) => v === 1)).toBe(true);
      expect(origin(f.validation)).toEqual(Array.from(f.validationRows));
    }
  });

  it('every training fold holds every row in order, the validation rows unlabeled and every other label intact (transductive)', () => {
    for (const f of folds) {
      expect(origin(f.train)).toEqual(origin(ds));
      const held = new Set(f.validationRows);
      for (let i = 0; i < ds.n; i++) {
        if (held.has(i)) expect([f.train.labeled[i], Number.isNaN(f.train.y[i])]).toEqual([0, true]);
        else expect([f.train.labeled[i], Object.is(f.train.y[i], ds.y[i])]).toEqual([ds.labeled[i], true]);
      }
      expect(f.train.classNames).toBe(ds.classNames);
    }
  });

  it('stratifies: each class within ±1 across folds, fold sizes within ±1 (also for 5 ordinal classes)', () => {
    const ordinal = data(400, [1, 2, 3, 4, 5], [5, 1, 2, 3, 9], 0.3, 'ordinal');
    for (const [set, k] of [[ds, 5], [ds, 3], [ordinal, 4], [ordinal, 7]] as const) {
      const fs = labeledFolds(set, { k, seed: 9 });
      const sizes = fs.map((f) => f.validation.n);
      expect(Math.max(...sizes) - Math.min(...sizes)).toBeLessThanOrEqual(1);
      for (const c of new Set(Array.from(set.y).filter((v) => !Number.isNaN(v)))) {
        const perFold = fs.map((f) => Array.from(f.validation.y).filter((v) => v === c).length);
        expect(Math.max(...perFold) - Math.min(...perFold)).toBeLessThanOrEqual(1);
      }
    }
  });

  it('is deterministic from the seed, and another seed deals other folds', () => {
    const again = labeledFolds(ds, { k: 5, seed: 3 });
    expect(again.map((f) => Array.from(f.validationRows))).toEqual(folds.map((f) => Array.from(f.validationRows)));
    const other = labeledFolds(ds, { k: 5, seed: 4 });
    expect(other.map((f) => Array.from(f.validationRows))).not.toEqual(folds.map((f) => Array.from(f.validationRows)));
  });

  it('works on the training set of a papers-protocol split (200 labeled rows, 5 folds of 40)', () => {
    const big = data(2000, [0, 1], [1, 1], 0, 'protocol');
    const { train } = splitDataset(big, { labeled: 200, test: 0.2, seed: 1 });
    const fs = labeledFolds(train, { k: 5, seed: 1 });
    expect(fs.map((f) => f.validation.n)).toEqual([40, 40, 40, 40, 40]);
    for (const f of fs) {
      expect(f.train.n).toBe(train.n);
      expect(f.train.labeled.reduce((a, b) => a + b, 0)).toBe(160);
    }
  });

  it('refuses k < 2 and fewer labeled rows than folds, naming the file', () => {
    expect(() => labeledFolds(ds, { k: 1 })).toThrow(RangeError);
    const tiny = makeDataset({ X: new Float64Array(8), d: 2, y: new Float64Array([1, -1, NaN, NaN]), source: 'tiny.csv' });
    expect(() => labeledFolds(tiny, { k: 3 })).toThrow(DataError);
    expect(() => labeledFolds(tiny, { k: 3 })).toThrow(/tiny\.csv/);
  });
});
