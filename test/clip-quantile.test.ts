/**
 * The feature scaling's clip quantile (`clipQuantile`, `--clip-quantile`):
 * what it buys on heavy-tailed bundled data, that the model applies it to new
 * rows, that a continued run keeps it, that `tune` passes it to the folds and
 * the model, that a sample on read fits the same scaling, and the refusals.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { trainModel as train } from '../src/train/train.ts';
import { tune } from '../src/tune.ts';
import { makeDataset, readDataset, splitDataset, type Dataset } from '../src/data/index.ts';
import { writeArrow } from '../src/data/arrow.ts';
import { auc } from '../src/metrics/index.ts';
import { defaultSigma } from '../src/train/defaults.ts';
import { UsageError } from '../src/errors.ts';
import { DEFAULT_CLIP_QUANTILE } from '../src/data/scaler.ts';
import { main } from '../src/cli/main.ts';
import { load } from '../src/api.ts';

const dir = mkdtempSync(join(tmpdir(), 'dsgkit-clip-'));

let split: { train: Dataset; test: Dataset } | undefined;
/** Spam's 200-labeled split (word frequencies and capital-run lengths: long right tails). */
async function spam(): Promise<{ train: Dataset; test: Dataset }> {
  if (!split) {
    const s = splitDataset(await readDataset('data/spam.arrow'), { labeled: 200, test: 0.2, seed: 1 });
    split = { train: s.train, test: s.test! };
  }
  return split;
}

describe('clipQuantile', () => {
  it('is the default: it raises the held-out AUC on spam, whose columns a few extreme values stretch, over min–max scaling, and the model records it', async () => {
    const { train: tr, test } = await spam();
    const run = { learner: 'qsg-s2auc', data: tr, T: 200, seed: 1, threads: 1 } as const;
    const plain = await train({ ...run, clipQuantile: 0 });
    const clipped = await train(run);
    const score = async (m: typeof plain) => auc(test.y, await m.decisionFunction(test), { positive: 1 });
    expect(await score(clipped)).toBeGreaterThan((await score(plain)) + 0.005);
    expect(clipped.scaler.clipQuantile).toBe(DEFAULT_CLIP_QUANTILE);
    expect(plain.scaler.clipQuantile).toBe(0);
    // The public default-σ helper scales as train did.
    expect(defaultSigma(tr)).toBe(clipped.header.hyperparameters.sigma);
    expect(defaultSigma(tr, 'rbf', {}, 0)).toBe(plain.header.hyperparameters.sigma);
    // Every learner's, the support-vector ones included.
    const gkm = await train({ learner: 'gkm', data: tr, T: 20, seed: 1, threads: 1 });
    expect(gkm.scaler.clipQuantile).toBe(DEFAULT_CLIP_QUANTILE);
  });

  it('clips new rows at prediction: a value far past the training range scores as the range end does', async () => {
    const { train: tr, test } = await spam();
    const model = await train({ learner: 'dsg', data: tr, T: 50, seed: 2, threads: 1, clipQuantile: 0.01 });
    const d = test.d;
    // Two copies of a test row, feature 1 at the end of its clipped range, then a million times past it.
    const X = new Float64Array(2 * d);
    X.set(test.X.subarray(0, d), 0);
    X.set(test.X.subarray(0, d), d);
    X[0] = model.scaler.max[0];
    X[d] = 1e6 * (Math.abs(model.scaler.max[0]) + 1);
    const f = await model.decisionFunction(makeDataset({ X, d, y: new Float64Array(2), featureNames: test.featureNames }));
    expect(f[1]).toBe(f[0]);
  });

  it('a continued run takes the model’s clip quantile: to 60 then to 120 gives the bytes of 120 at once', async () => {
    const { train: tr } = await spam();
    const run = { learner: 'qsg-s2auc', data: tr, m: 16, batchSize: 16, seed: 3, threads: 1 } as const;
    const first = await train({ ...run, T: 60, clipQuantile: 0.005 });
    const continued = await train({ data: tr, init: first, T: 120, threads: 1 });
    const atOnce = await train({ ...run, T: 120, clipQuantile: 0.005 });
    expect(Buffer.from(continued.toBytes()).equals(Buffer.from(atOnce.toBytes()))).toBe(true);
  });

  it('tune scales the folds and the model with it', async () => {
    const { train: tr } = await spam();
    const r = await tune({ learner: 'dsg', data: tr, T: 30, m: 8, batchSize: 8, seed: 2, folds: 3, grid: { lambda: [0.01, 0.1] }, threads: 1, clipQuantile: 0.005 });
    expect(r.model.scaler.clipQuantile).toBe(0.005);
    const plain = await tune({ learner: 'dsg', data: tr, T: 30, m: 8, batchSize: 8, seed: 2, folds: 3, grid: { lambda: [0.01, 0.1] }, threads: 1, clipQuantile: 0 });
    expect(plain.model.scaler.clipQuantile).toBe(0);
    expect(r.table.map((row) => row.score)).not.toEqual(plain.table.map((row) => row.score));
  });

  it('--clip-quantile on the command line reaches the model file; a value outside [0, 0.25] is a usage error naming it', async () => {
    const { train: tr } = await spam();
    const file = join(dir, 'spam-cli.arrow');
    await writeArrow(file, tr);
    const out = join(dir, 'cli.dsg');
    let err = '';
    const io = { stdout: { write: () => true }, stderr: { write: (t: string) => ((err += t), true) } } as never;
    expect(await main(['train', '--learner', 'dsg', '--data', file, '--iterations', '20', '--clip-quantile', '0.01', '--out', out, '--quiet'], io)).toBe(0);
    expect((await load(out)).scaler.clipQuantile).toBe(0.01);
    expect(await main(['train', '--learner', 'dsg', '--data', file, '--clip-quantile', '0.5', '--out', out, '--quiet'], io)).toBe(2);
    expect(err).toMatch(/--clip-quantile/);
  });

  it('a sample on read fits the same clipped scaling as a whole read: the same model bytes; and an impossible quantile is refused', async () => {
    const { train: tr } = await spam();
    const file = join(dir, 'spam-train.arrow');
    await writeArrow(file, tr);
    const run = { learner: 'qsg-s2auc', data: file, T: 40, m: 16, batchSize: 16, seed: 1, threads: 1, clipQuantile: 0.01 } as const;
    const whole = await train({ ...run, sampleOnRead: false });
    const sampled = await train({ ...run, sampleOnRead: true });
    expect(whole.scaler.clipQuantile).toBe(0.01);
    expect(Buffer.from(sampled.toBytes()).equals(Buffer.from(whole.toBytes()))).toBe(true);
    await expect(train({ learner: 'dsg', data: tr, T: 10, threads: 1, clipQuantile: 0.3 })).rejects.toThrow(UsageError);
    await expect(tune({ learner: 'dsg', data: tr, T: 10, folds: 2, grid: { lambda: [0.01] }, threads: 1, clipQuantile: -1 })).rejects.toThrow(/clipQuantile must be a number from 0 to 0\.25/);
  });
});
