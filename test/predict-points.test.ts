import { describe, expect, it } from 'vitest';
import seedrandom from 'seedrandom';
import { train } from '../src/api.ts';
import { makeDataset } from '../src/data/dataset.ts';
import { datasetRows, gatherRows } from '../src/data/training-rows.ts';
import { SharedRows } from '../src/engine/shared-rows.ts';
import { KernelExpansionPredictor, predictBatch } from '../src/model/predictor.ts';

const bits = (a: Float64Array) => Buffer.from(a.buffer, a.byteOffset, a.byteLength);

/** n rows of d features in [0, 1), columns `blank` zero in every row (an image's border), labels ±1 with a few NaN. */
function wide(n: number, d: number, seed: string, blank: readonly number[] = []) {
  const rng = seedrandom(seed);
  const X = Float64Array.from({ length: n * d }, () => rng());
  for (const k of blank) for (let i = 0; i < n; i++) X[i * d + k] = 0;
  const y = Float64Array.from({ length: n }, (_, i) => (i % 3 === 0 ? (X[i * d] + X[i * d + 1] > 1 ? 1 : -1) : NaN));
  return makeDataset({ X, d, y });
}

describe('f at rows by index (Predictor.evaluateAt)', () => {
  // d = 1,100: 476 rows an engine call, so 1,000 rows take three calls and the rows by index are gathered three times.
  const d = 1100;
  const ds = wide(1000, d, 'wide-rows');
  const rows = datasetRows(ds);
  const order = Int32Array.from({ length: ds.n }, (_, i) => (i * 337) % ds.n);

  it('takes wide rows a few hundred at a time, narrow ones 4,096', () => {
    expect(predictBatch(d)).toBe(476);
    expect(predictBatch(9)).toBe(4096);
    expect(predictBatch(10 ** 7)).toBe(1);
  });

  it.each([1, 2])('random features, %i thread(s): the bits of f at the same rows gathered', async (threads) => {
    const model = await train({ learner: 'dsg', data: ds, T: 30, threads: 1 });
    const gathered = await model.predictor.evaluate(gatherRows(rows, order), order.length, new Float64Array(order.length), { threads });
    const byIndex = await model.predictor.evaluateAt(rows, order, new Float64Array(order.length), { threads });
    expect(bits(byIndex).equals(bits(gathered))).toBe(true);
  });

  it('a kernel expansion: the bits of f at the rows gathered; rows of another width are refused', async () => {
    const centres = gatherRows(rows, order.subarray(0, 40));
    const c = Float64Array.from({ length: 40 }, (_, i) => Math.sin(i));
    const p = new KernelExpansionPredictor({ kernel: { kind: 'rbf', sigma: 0.01 }, d, centers: centres, c });
    const gathered = await p.evaluate(gatherRows(rows, order), order.length, new Float64Array(order.length));
    const byIndex = await p.evaluateAt(rows, order, new Float64Array(order.length));
    expect(bits(byIndex).equals(bits(gathered))).toBe(true);
    await expect(p.evaluateAt(datasetRows(wide(3, 5, 'narrow')), [0, 1], new Float64Array(2))).rejects.toThrow(/5 features, the predictor 1100/);
  });
});

describe('a kernel expansion on the rows its centres came from', () => {
  it('reads its centres as rows of the shared copy with the bits of its own copy, where the other rows are non-zero in columns the centres are not', async () => {
    const d = 40;
    const n = 300;
    const rng = seedrandom('centres-on-rows');
    const X = Float64Array.from({ length: n * d }, () => rng());
    // The centres (even rows) are zero in columns 3 and 17, some other rows are not: the shared rows sum a
    // column the centres alone would skip, whose terms are +0 at points that are zero there.
    const support = Int32Array.from({ length: 60 }, (_, i) => 2 * i);
    for (const r of support) X[r * d + 3] = X[r * d + 17] = 0;
    const centers = new Float64Array(support.length * d);
    support.forEach((r, k) => centers.set(X.subarray(r * d, (r + 1) * d), k * d));
    const c = Float64Array.from(support, (_, i) => Math.cos(i));
    const expansion = { kernel: { kind: 'rbf' as const, sigma: 0.2 }, d, centers, c };
    const points = Float64Array.from({ length: 50 * d }, () => rng());
    for (let p = 0; p < 25; p++) points[p * d + 3] = points[p * d + 17] = 0;
    const alone = new KernelExpansionPredictor(expansion);
    const onRows = new KernelExpansionPredictor(expansion, { rows: SharedRows.of(X, n, d), index: support });
    for (const threads of [1, 2]) {
      const a = await alone.evaluate(points, 50, new Float64Array(50), { threads });
      const b = await onRows.evaluate(points, 50, new Float64Array(50), { threads });
      expect(bits(b).equals(bits(a))).toBe(true);
    }
    await expect(new KernelExpansionPredictor(expansion, { rows: SharedRows.of(X, n, d), index: support.subarray(1) }).evaluate(points, 1, new Float64Array(1))).rejects.toThrow(/60 centres/);
  });

  it('GKM and LapSVM models are the same bytes as models whose centres are copied (their thresholds score unlabeled rows through the fit’s rows)', async () => {
    const ds = wide(400, 30, 'graph-wide', [4, 9]);
    for (const learner of ['gkm', 'lapsvm'] as const) {
      const model = await train({ learner, data: ds, T: 40, threads: 1 });
      const p = model.predictor as KernelExpansionPredictor;
      const copy = new KernelExpansionPredictor(p.expansion);
      const rows = datasetRows(ds);
      const all = Int32Array.from({ length: ds.n }, (_, i) => i);
      const viaFit = await p.evaluateAt(rows, all, new Float64Array(ds.n));
      const viaCopy = await copy.evaluateAt(rows, all, new Float64Array(ds.n));
      expect(bits(viaFit).equals(bits(viaCopy))).toBe(true);
    }
  });
});
