/**
 * A bias's final rule reads rows in proportion to the run (TSGS3VM's class
 * balance: B/2 unlabeled rows a step), so the bias of a short fit — tune's
 * first rounds — costs no more than the fit, and a run continued to t reads
 * the rows a run to t at once reads.
 */
import { describe, expect, it } from 'vitest';
import { FINAL_GATHER_POINTS, FINAL_MIN_ROWS, finalPositions, finalRows, finalValues, type FinalBiasRule } from '../src/coordinator/learner.ts';
import { trainModel as train } from '../src/train/train.ts';
import { makeDataset } from '../src/data/dataset.ts';

function rule(n: number, d: number, perIteration?: number): FinalBiasRule {
  const X = Float64Array.from({ length: n * d }, (_, i) => i);
  const rows = Int32Array.from({ length: n }, (_, i) => 10 + 3 * i);
  return { nPoints: n, d, copyPoint: (i, out, at) => out.set(X.subarray(i * d, i * d + d), at * d), rows, ...(perIteration !== undefined ? { perIteration } : {}), bias: (f) => -f[0] };
}

/** n rows of d values uniform in [0, 1), row-major, from a linear congruential stream seeded by `seed`. */
function uniformRows(n: number, d: number, seed: number): Float64Array {
  let s = seed;
  return Float64Array.from({ length: n * d }, () => ((s = (s * 1103515245 + 12345) % 2147483648) / 2147483648));
}

/** An "evaluation" that gives each point its first feature, and counts the points it was given. */
function firstFeature(d: number, seen: { points: number; calls: number }) {
  return async (X: Float64Array, n: number, out: Float64Array) => {
    seen.points += n;
    seen.calls++;
    for (let p = 0; p < n; p++) out[p] = X[p * d];
    return out;
  };
}

describe('final bias rows', () => {
  it('reads every row without perIteration, and max(256, B·t) evenly spaced rows with it, each row with its own features', async () => {
    const all = rule(4096, 3);
    expect(finalPositions(all, 1).length).toBe(4096);
    const grows = rule(4096, 3, 64);
    expect(finalPositions(grows, 400).length).toBe(4096);
    expect(finalPositions(grows, 64).length).toBe(4096);
    expect(finalPositions(grows, 2).length).toBe(FINAL_MIN_ROWS);
    const seen = { points: 0, calls: 0 };
    const ten = await finalValues(grows, 10, firstFeature(3, seen));
    expect(ten.length).toBe(640);
    const rows = finalRows(grows, 10)!;
    // Evenly spaced, in row order, and each point's features are its row's.
    for (let i = 0; i < ten.length; i++) {
      const at = Math.floor((i * 4096) / 640);
      expect(rows[i]).toBe(10 + 3 * at);
      expect(ten[i]).toBe(3 * at);
    }
    // Only the rows read are copied and evaluated.
    expect(seen.points).toBe(640);
    // Fewer rows than the minimum: all of them.
    expect(finalPositions(rule(100, 2, 1), 1).length).toBe(100);
  });

  it('gathers the rows in parts of FINAL_GATHER_POINTS, with the values of one call over all of them', async () => {
    const all = rule(2500, 3);
    const parts = { points: 0, calls: 0 };
    const whole = { points: 0, calls: 0 };
    const inParts = await finalValues(all, 1, firstFeature(3, parts));
    const once = await finalValues(all, 1, firstFeature(3, whole), Infinity);
    expect(parts.calls).toBe(Math.ceil(2500 / FINAL_GATHER_POINTS));
    expect(whole.calls).toBe(1);
    expect(Array.from(inParts)).toEqual(Array.from(once));
  });

  it('TSGS3VM: a run continued to T gives the model a run to T at once gives, when the bias reads fewer rows at the first stop', async () => {
    // 3,000 unlabeled rows, B = 8: the first stop (t = 20) reads 256 of them, the second (t = 200) 800.
    const n = 3200;
    const d = 4;
    const X = uniformRows(n, d, 7);
    const y = new Float64Array(n).fill(Number.NaN);
    for (let i = 0; i < 200; i++) y[i] = X[i * d] + X[i * d + 1] > 1 ? 1 : -1;
    const ds = makeDataset({ X, d, y });
    const run = { learner: 'tsgs3vm', data: ds, seed: 3, m: 8, batchSize: 8, threads: 1, step: { kind: 'constant', eta: 0.05 } } as const;
    const first = await train({ ...run, T: 20 });
    const continued = await train({ init: first, data: ds, T: 200 });
    const direct = await train({ ...run, T: 200 });
    expect(Buffer.from(continued.toBytes()).equals(Buffer.from(direct.toBytes()))).toBe(true);
  }, 60_000);

  it('FRS3VM: the class balance holds on B/2 unlabeled rows a step — the whole sample from 2 epochs on, fewer for a part of an epoch', async () => {
    // 200 labeled rows (70 positive), 3,000 unlabeled: fewer than the 4,096 of a sample, so the sample is every one, in row order.
    const [nL, nU, d, B] = [200, 3000, 3, 8];
    const n = nL + nU;
    const X = uniformRows(n, d, 11);
    const y = new Float64Array(n).fill(Number.NaN);
    for (let i = 0; i < nL; i++) y[i] = i < 70 ? 1 : -1;
    const ds = makeDataset({ X, d, y });
    const target = (70 - 130) / 200;
    /** The mean of f + b over the unlabeled rows at these positions of the sample. */
    const meanAt = async (model: Awaited<ReturnType<typeof train>>, positions: Int32Array) => {
      const Xs = new Float64Array(positions.length * d);
      positions.forEach((p, i) => Xs.set(X.subarray((nL + p) * d, (nL + p + 1) * d), i * d));
      const f = await model.decisionFunction(makeDataset({ X: Xs, d, y: new Float64Array(positions.length).fill(Number.NaN) }));
      return f.reduce((a, v) => a + v, 0) / f.length;
    };
    const every = Int32Array.from({ length: nU }, (_, i) => i);
    const run = { learner: 'frs3vm', data: ds, seed: 5, m: 8, blocks: 2, batchSize: B, threads: 1 } as const;
    // 2 epochs: 2·⌈3,000/8⌉ = 750 steps, B/2 = 4 rows a step: all 3,000.
    const full = await train({ ...run, epochs: 2 });
    expect(await meanAt(full, every)).toBeCloseTo(target, 10);
    // A tenth of an epoch: 38 steps, 152 rows, so the least a rule reads (256), evenly spaced.
    const part = await train({ ...run, epochs: 0.1 });
    const read = finalPositions({ nPoints: nU, perIteration: B / 2 }, 38);
    expect(read.length).toBe(FINAL_MIN_ROWS);
    expect(await meanAt(part, read)).toBeCloseTo(target, 10);
    expect(Math.abs((await meanAt(part, every)) - target)).toBeGreaterThan(1e-6);
  }, 60_000);
});
