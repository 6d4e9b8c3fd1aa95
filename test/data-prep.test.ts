import seedrandom from 'seedrandom';
import { describe, expect, it } from 'vitest';
import { DataError, ModelError } from '../src/errors.ts';
import { makeDataset } from '../src/data/dataset.ts';
import { readArrow } from '../src/data/arrow.ts';
import { MinMaxScaler, QuantileRange } from '../src/data/scaler.ts';
import { splitDataset, stratifiedCounts } from '../src/data/split.ts';
import { classCounts, requireClasses, validateDataset } from '../src/data/validate.ts';

const spamPath = new URL('../data/spam.arrow', import.meta.url).pathname;
const diabetesPath = new URL('../data/diabetes.arrow', import.meta.url).pathname;

describe('MinMaxScaler', () => {
  const train = makeDataset({ X: new Float64Array([0, 5, 10, 5, 4, 5]), d: 2, y: new Float64Array([1, NaN, -1]), featureNames: ['a', 'c'] });
  const test = makeDataset({ X: new Float64Array([-10, 5, 20, 6]), d: 2, y: new Float64Array([1, -1]), featureNames: ['a', 'c'] });

  it('maps the training rows onto [0, 1] (all rows, labeled or not), a constant column to 0', () => {
    const s = MinMaxScaler.fit(train);
    expect(Array.from(s.transform(train).X)).toEqual([0, 0, 1, 0, 0.4, 0]);
  });

  it('transforms new data with the training range only, without clipping', () => {
    const s = MinMaxScaler.fit(train);
    expect(Array.from(s.transform(test).X)).toEqual([-1, 0, 2, 0]);
    // Fitting on the test rows would give another map: fit-on-train is what is used.
    expect(Array.from(MinMaxScaler.fit(test).transform(test).X)).not.toEqual([-1, 0, 2, 0]);
  });

  it('writes the scaled rows into a given array (shared memory for worker threads), the same values, the source untouched', () => {
    const s = MinMaxScaler.fit(train);
    const into = new Float64Array(new SharedArrayBuffer(8 * train.X.length));
    const scaled = s.transform(train, into);
    expect(scaled.X).toBe(into);
    expect(Array.from(into)).toEqual(Array.from(s.transform(train).X));
    expect(Array.from(train.X)).toEqual([0, 5, 10, 5, 4, 5]);
    expect(() => s.transform(train, new Float64Array(2))).toThrow(RangeError);
  });

  it('fits on the listed rows only', () => {
    const s = MinMaxScaler.fit(train, [0, 1]);
    expect(Array.from(s.min)).toEqual([0, 5]);
    expect(Array.from(s.max)).toEqual([10, 5]);
  });

  it('round-trips through JSON exactly and rejects malformed JSON with a ModelError', async () => {
    const spam = await readArrow(spamPath);
    const s = MinMaxScaler.fit(spam);
    const back = MinMaxScaler.fromJSON(JSON.parse(JSON.stringify(s)));
    expect(Array.from(back.transform(spam).X)).toEqual(Array.from(s.transform(spam).X));
    expect(back.featureNames).toEqual(spam.featureNames);
    expect(() => MinMaxScaler.fromJSON({ kind: 'minmax', min: [0], max: ['x'], featureNames: ['a'] })).toThrow(ModelError);
  });

  it('with a clip quantile q, spans the q to 1 − q quantiles of each column and clips every value into [0, 1]', () => {
    // 101 rows: 0, 1, …, 99 and one outlier 1,000 in column a; column b constant.
    const n = 101;
    const X = new Float64Array(2 * n);
    for (let i = 0; i < 100; i++) X[2 * i] = i;
    X[200] = 1000;
    const wide = makeDataset({ X, d: 2, y: new Float64Array(n).fill(NaN), featureNames: ['a', 'b'] });
    const s = MinMaxScaler.fit(wide, undefined, { clipQuantile: 0.01 });
    // Sorted column a: positions ⌊0.01·100⌋ = 1 and ⌈0.99·100⌉ = 99 hold 1 and 99.
    expect([s.min[0], s.max[0], s.clipQuantile]).toEqual([1, 99, 0.01]);
    const scaled = s.transform(wide).X;
    expect([scaled[0], scaled[200], scaled[1]]).toEqual([0, 1, 0]);
    expect(scaled[2 * 50]).toBeCloseTo(49 / 98, 15);
    // Without it the outlier sets the range: the bulk of the column lies in [0, 0.1].
    expect(MinMaxScaler.fit(wide).transform(wide).X[2 * 99]).toBeCloseTo(0.099, 12);
    // New data is clipped too; the fitted rows' order does not matter.
    expect(Array.from(s.transform(makeDataset({ X: new Float64Array([-5, 3, 500, 3]), d: 2, y: new Float64Array(2) })).X)).toEqual([0, 0, 1, 0]);
    const reversed = Array.from({ length: n }, (_, i) => n - 1 - i);
    expect(Array.from(MinMaxScaler.fit(wide, reversed, { clipQuantile: 0.01 }).max)).toEqual(Array.from(s.max));
  });

  it('reads the range ends the sorted column would give: many ties, negative values, any order', () => {
    const rng = seedrandom('quantile-ends');
    for (const [n, q] of [[1, 0.25], [2, 0.1], [37, 0.005], [1000, 0.005], [5000, 0.2]] as const) {
      const X = new Float64Array(3 * n);
      for (let i = 0; i < 3 * n; i++) X[i] = i % 3 === 0 ? Math.floor(rng() * 5) - 2 : i % 3 === 1 ? (rng() - 0.5) * 1e6 : 7;
      const s = MinMaxScaler.fit(makeDataset({ X, d: 3, y: new Float64Array(n).fill(NaN) }), undefined, { clipQuantile: q });
      for (let k = 0; k < 3; k++) {
        const sorted = Float64Array.from({ length: n }, (_, r) => X[r * 3 + k]).sort();
        expect([s.min[k], s.max[k]], `n ${n}, column ${k}`).toEqual([sorted[Math.floor(q * (n - 1))], sorted[Math.ceil((1 - q) * (n - 1))]]);
      }
    }
  });

  it('takes the quantiles over a seeded sample of QUANTILE_ROWS rows beyond that many, the same however the rows come in blocks', () => {
    const d = 2;
    const n = 1000;
    const X = new Float64Array(n * d);
    for (let i = 0; i < n * d; i++) X[i] = Math.sin(i * 12.9898) * 43758.5453 - Math.floor(Math.sin(i * 12.9898) * 43758.5453);
    const oneBlock = new QuantileRange(d, 0.05, 100);
    oneBlock.add(X, 0, n);
    const blocks = new QuantileRange(d, 0.05, 100);
    for (let r = 0; r < n; r += 37) blocks.add(X, r * d, Math.min(37, n - r));
    const a = oneBlock.scaler(['a', 'b']);
    const b = blocks.scaler(['a', 'b']);
    expect(Array.from(b.min)).toEqual(Array.from(a.min));
    expect(Array.from(b.max)).toEqual(Array.from(a.max));
    // A sample of 100 rows: near the exact quantiles of all 1,000, not equal to them.
    const exact = MinMaxScaler.fit(makeDataset({ X, d, y: new Float64Array(n) }), undefined, { clipQuantile: 0.05 });
    expect(Math.abs(a.min[0] - exact.min[0])).toBeLessThan(0.05);
    expect(a.min[0]).not.toBe(exact.min[0]);
  });

  it('gives the same quantiles row by row, in blocks across its fill tiles, and grown from no room; below its capacity the exact order statistics', () => {
    const n = 1000;
    const d = 7;
    const X = Float64Array.from({ length: n * d }, (_, i) => Math.sin(i * 7.13) * 1000 - Math.floor(Math.sin(i * 7.13) * 1000));
    const fed = (range: QuantileRange, rows: number, step: number) => {
      for (let r = 0; r < rows; r += step) range.add(X, r * d, Math.min(step, rows - r));
      return range.scaler(['a', 'b', 'c', 'd', 'e', 'f', 'g']);
    };
    for (const rows of [250, n]) {
      const byRow = fed(new QuantileRange(d, 0.05, 300, 1), rows, 1);
      for (const [step, expected] of [[rows, rows], [100, 1], [63, 300]]) {
        const other = fed(new QuantileRange(d, 0.05, 300, expected), rows, step);
        expect(Array.from(other.min)).toEqual(Array.from(byRow.min));
        expect(Array.from(other.max)).toEqual(Array.from(byRow.max));
      }
    }
    // 250 rows ≤ the capacity of 300: every row kept, so the sorted columns' order statistics.
    const kept = fed(new QuantileRange(d, 0.05, 300), 250, 90);
    for (let k = 0; k < d; k++) {
      const column = Array.from({ length: 250 }, (_, r) => X[r * d + k]).sort((a, b) => a - b);
      expect(kept.min[k]).toBe(column[Math.floor(0.05 * 249)]);
      expect(kept.max[k]).toBe(column[Math.ceil(0.95 * 249)]);
    }
  });

  it('keeps its clip quantile through JSON (absent at 0, as before), and refuses an impossible one', () => {
    const s = MinMaxScaler.fit(train, undefined, { clipQuantile: 0.25 });
    const json = JSON.parse(JSON.stringify(s));
    expect(json.clipQuantile).toBe(0.25);
    expect(MinMaxScaler.fromJSON(json).transform(test).X).toEqual(s.transform(test).X);
    expect('clipQuantile' in JSON.parse(JSON.stringify(MinMaxScaler.fit(train)))).toBe(false);
    expect(() => MinMaxScaler.fromJSON({ ...json, clipQuantile: 0.5 })).toThrow(ModelError);
    expect(() => MinMaxScaler.fit(train, undefined, { clipQuantile: 0.3 })).toThrow(RangeError);
  });

  it('refuses data with another number of features (DataError naming the file)', () => {
    const s = MinMaxScaler.fit(train);
    const other = makeDataset({ X: new Float64Array(3), d: 3, y: new Float64Array([1]), source: 'pred.arrow' });
    expect(() => s.transform(other)).toThrow(DataError);
    expect(() => s.transform(other)).toThrow(/pred\.arrow: data has 3 features but the scaling was fitted on 2/);
  });
});

describe('validation', () => {
  it('names file, column and row for a non-finite feature and an infinite label', () => {
    const bad = makeDataset({ X: new Float64Array([1, 2, 3, NaN]), d: 2, y: new Float64Array([1, 1]), featureNames: ['p', 'q'], source: 'v.arrow' });
    expect(() => validateDataset(bad)).toThrow("v.arrow: column 'q', row 2: value is NaN");
    const badLabel = makeDataset({ X: new Float64Array([1]), d: 1, y: new Float64Array([Infinity]), source: 'v.arrow' });
    expect(() => validateDataset(badLabel)).toThrow("v.arrow: column 'label', row 1: label is Infinity");
  });

  it('requireClasses: a class without labeled rows, or a stray label, is a DataError', () => {
    const ds = makeDataset({ X: new Float64Array(3), d: 1, y: new Float64Array([-1, -1, NaN]), source: 'c.arrow' });
    expect(() => requireClasses(ds, [-1, 1])).toThrow(DataError);
    expect(() => requireClasses(ds, [-1, 1])).toThrow("c.arrow: column 'label': class 1 has no labeled rows (labeled rows per class: -1: 2, 1: 0)");
    const stray = makeDataset({ X: new Float64Array(2), d: 1, y: new Float64Array([1, 0]), source: 'c.arrow' });
    expect(() => requireClasses(stray, [-1, 1])).toThrow("c.arrow: column 'label', row 2: label 0 is not one of the expected classes -1, 1");
    expect(() => requireClasses(makeDataset({ X: new Float64Array(2), d: 1, y: new Float64Array([1, -1]) }), [-1, 1])).not.toThrow();
  });
});

describe('stratifiedCounts', () => {
  it('is proportional, sums exactly, and gives each class one pick when it can', () => {
    expect(stratifiedCounts([90, 10], 10)).toEqual([9, 1]);
    expect(stratifiedCounts([99, 1], 2)).toEqual([1, 1]);
    expect(stratifiedCounts([2788, 1813], 100)).toEqual([61, 39]);
    expect(stratifiedCounts([5, 5, 5], 7).reduce((a, b) => a + b)).toBe(7);
  });
});

describe('splitDataset on the spam data', async () => {
  const spam = await readArrow(spamPath);

  it('keeps exactly N labels stratified by class, holds out a stratified labeled test set', () => {
    const { train, test, trainRows, testRows } = splitDataset(spam, { labeled: 100, test: 0.2, seed: 7 });
    expect(test!.n).toBe(920); // round(0.2 · 4601)
    expect(train.n).toBe(4601 - 920);
    expect([...classCounts(test!)]).toEqual([[-1, 557], [1, 363]]); // 2788/4601 and 1813/4601 of 920
    expect([...classCounts(train)]).toEqual([[-1, 61], [1, 39]]);
    let labeled = 0;
    for (const v of train.labeled) labeled += v;
    expect(labeled).toBe(100);
    // Disjoint, and together every row once.
    const all = new Set([...trainRows, ...testRows!]);
    expect(all.size).toBe(4601);
    // Features travel with their rows.
    const i = trainRows[123];
    expect(Array.from(train.X.subarray(123 * 57, 124 * 57))).toEqual(Array.from(spam.X.subarray(i * 57, (i + 1) * 57)));
  });

  it('is deterministic in the seed and changes with it', () => {
    const a = splitDataset(spam, { labeled: 50, test: 300, seed: 1 });
    const b = splitDataset(spam, { labeled: 50, test: 300, seed: 1 });
    const c = splitDataset(spam, { labeled: 50, test: 300, seed: 2 });
    expect(Array.from(a.train.y)).toEqual(Array.from(b.train.y));
    expect(Array.from(a.testRows!)).toEqual(Array.from(b.testRows!));
    expect(Array.from(a.testRows!)).not.toEqual(Array.from(c.testRows!));
    expect(a.test!.n).toBe(300);
  });

  it('keeps every ordinal class among the labeled rows', async () => {
    const diabetes = await readArrow(diabetesPath);
    const { train } = splitDataset(diabetes, { labeled: 10, seed: 3 });
    expect([...classCounts(train)]).toEqual([[1, 2], [2, 2], [3, 2], [4, 2], [5, 2]]);
    expect(train.n).toBe(442);
  });

  it('refuses more labeled rows than remain, naming the file', () => {
    expect(() => splitDataset(spam, { labeled: 4000, test: 0.2 })).toThrow(DataError);
    expect(() => splitDataset(spam, { labeled: 4000, test: 0.2 })).toThrow(/spam\.arrow: asked for 4000 labeled training rows but only 3681 labeled rows remain after holding out 920 test rows/);
  });
});
