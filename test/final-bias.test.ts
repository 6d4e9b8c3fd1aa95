/**
 * A bias's final rule reads rows in proportion to the run (TSGS3VM's class
 * balance: B/2 unlabeled rows a step), so the bias of a short fit — tune's
 * first rounds — costs no more than the fit, and a run continued to t reads
 * the rows a run to t at once reads.
 */
import { describe, expect, it } from 'vitest';
import { FINAL_MIN_ROWS, finalPoints, type FinalBiasRule } from '../src/coordinator/learner.ts';
import { trainModel as train } from '../src/train/train.ts';
import { makeDataset } from '../src/data/dataset.ts';

function rule(n: number, d: number, perIteration?: number): FinalBiasRule {
  const X = Float64Array.from({ length: n * d }, (_, i) => i);
  const rows = Int32Array.from({ length: n }, (_, i) => 10 + 3 * i);
  return { nPoints: n, d, copyPoint: (i, out, at) => out.set(X.subarray(i * d, i * d + d), at * d), rows, ...(perIteration !== undefined ? { perIteration } : {}), bias: (f) => -f[0] };
}

describe('finalPoints', () => {
  it('reads every row without perIteration, and max(256, B·t) evenly spaced rows with it, each row with its own features', () => {
    const all = rule(4096, 3);
    expect(finalPoints(all, 1).nPoints).toBe(4096);
    const grows = rule(4096, 3, 64);
    expect(finalPoints(grows, 400).nPoints).toBe(4096);
    expect(finalPoints(grows, 64).nPoints).toBe(4096);
    expect(finalPoints(grows, 2).nPoints).toBe(FINAL_MIN_ROWS);
    const ten = finalPoints(grows, 10);
    expect(ten.nPoints).toBe(640);
    // Evenly spaced, in row order, and each point's features are its row's.
    for (let i = 0; i < ten.nPoints; i++) {
      const at = Math.floor((i * 4096) / 640);
      expect(ten.rows![i]).toBe(10 + 3 * at);
      expect(Array.from(ten.X.subarray(i * 3, i * 3 + 3))).toEqual([3 * at, 3 * at + 1, 3 * at + 2]);
    }
    // Fewer rows than the minimum: all of them.
    expect(finalPoints(rule(100, 2, 1), 1).nPoints).toBe(100);
  });

  it('copies the features of the rows it reads only (a short fit of a wide set copies 640 rows, not 4,096)', () => {
    const grows = rule(4096, 3, 64);
    const copied: number[] = [];
    const counting: FinalBiasRule = { ...grows, copyPoint: (i, X, at) => (copied.push(i), grows.copyPoint(i, X, at)) };
    finalPoints(counting, 10);
    expect(copied.length).toBe(640);
    expect(new Set(copied).size).toBe(640);
  });

  it('TSGS3VM: a run continued to T gives the model a run to T at once gives, when the bias reads fewer rows at the first stop', async () => {
    // 3,000 unlabeled rows, B = 8: the first stop (t = 20) reads 256 of them, the second (t = 200) 800.
    const n = 3200;
    const d = 4;
    const X = new Float64Array(n * d);
    const y = new Float64Array(n).fill(Number.NaN);
    let s = 7;
    const rand = () => ((s = (s * 1103515245 + 12345) % 2147483648) / 2147483648);
    for (let i = 0; i < n; i++) {
      for (let j = 0; j < d; j++) X[i * d + j] = rand();
      if (i < 200) y[i] = X[i * d] + X[i * d + 1] > 1 ? 1 : -1;
    }
    const ds = makeDataset({ X, d, y });
    const run = { learner: 'tsgs3vm', data: ds, seed: 3, m: 8, batchSize: 8, threads: 1, step: { kind: 'constant', eta: 0.05 } } as const;
    const first = await train({ ...run, T: 20 });
    const continued = await train({ init: first, data: ds, T: 200 });
    const direct = await train({ ...run, T: 200 });
    expect(Buffer.from(continued.toBytes()).equals(Buffer.from(direct.toBytes()))).toBe(true);
  }, 60_000);
});
