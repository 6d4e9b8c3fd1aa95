import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import seedrandom from 'seedrandom';
import { describe, expect, it } from 'vitest';
import { load, resolveParams } from '../src/api.ts';
// Learners chosen by name at run time: the untyped entry (the typed `train` checks literal options at compile time).
import { trainModel as train } from '../src/train/train.ts';
import { readDataset, splitDataset, MinMaxScaler } from '../src/data/index.ts';
import type { Dataset } from '../src/data/dataset.ts';
import { poolTasksCompleted } from '../src/engine/pool.ts';
import { DataError } from '../src/errors.ts';
import { learnerSpec } from '../src/learners/registry.ts';
import { paperStep, S3vmObjective, s3vmSettings, UNLABELED_LOSSES, unlabeledLoss, unlabeledLossDerivative, type S3vmParamValues } from '../src/learners/s3vm.ts';

const dir = mkdtempSync(join(tmpdir(), 'dsgkit-s3vm-'));
const breastCancer = await readDataset('data/breast_cancer.arrow');

describe('unlabeled losses', () => {
  it.each(UNLABELED_LOSSES)('%s: the derivative equals finite differences of the loss away from its kinks', (loss) => {
    const kinks = [-1, 0, 1, -0.3, 0.3]; // |r| = 1, r = 0, and the ramp's ±s (s = −0.3)
    const h = 1e-6;
    let checked = 0;
    for (let r = -2.5; r <= 2.5; r += 0.01) {
      if (kinks.some((k) => Math.abs(r - k) < 1e-3)) continue;
      const numeric = (unlabeledLoss(loss, r + h) - unlabeledLoss(loss, r - h)) / (2 * h);
      expect(unlabeledLossDerivative(loss, r), `${loss} at r = ${r}`).toBeCloseTo(numeric, 6);
      checked++;
    }
    expect(checked).toBeGreaterThan(480);
  });

  it('are the functions of the paper: symmetric, largest at the boundary, at their floor far from it', () => {
    for (const loss of UNLABELED_LOSSES) {
      for (const r of [0.1, 0.5, 0.9, 2]) expect(unlabeledLoss(loss, -r)).toBe(unlabeledLoss(loss, r));
      expect(unlabeledLoss(loss, 0)).toBeGreaterThan(unlabeledLoss(loss, 0.5));
      // Far from the boundary: no gradient and the lowest value (0, or 1 − s for the symmetric ramp).
      expect(unlabeledLossDerivative(loss, 4)).toBeCloseTo(0, 6);
      for (let r = -2; r <= 2; r += 0.1) expect(unlabeledLoss(loss, r)).toBeGreaterThanOrEqual(unlabeledLoss(loss, 4) - 1e-6);
    }
    expect(unlabeledLoss('ramp', 4, -0.3)).toBeCloseTo(1.3, 12);
    expect(unlabeledLoss('shg', 0)).toBe(1);
    expect(unlabeledLoss('sshg', 0)).toBe(0.5);
    expect(unlabeledLoss('ramp', 0, -0.3)).toBeCloseTo(2, 12); // R_s(0) + R_s(-0) = 1 + 1
    expect(unlabeledLoss('ramp', -0.5, -0.3)).toBeCloseTo(1.3 + 0.5, 12); // R_s(−0.5) = min(1.3, 1.5) = 1.3, R_s(0.5) = 0.5
    expect(unlabeledLoss('da', 0.2)).toBeCloseTo(Math.exp(-0.2), 12);
  });
});

describe('the S3VM batch objective', () => {
  const ds = MinMaxScaler.fit(breastCancer).transform(splitDataset(breastCancer, { labeled: 60, seed: 2 }).train);
  for (const loss of UNLABELED_LOSSES) {
    for (const balance of ['on', 'off']) {
      it(`${loss}, balance ${balance}: weights are the gradient of the batch risk (finite differences)`, () => {
        const params = resolveParams(learnerSpec('tsgs3vm'), { unlabeledLoss: loss, balance, batchSize: 32, C: 3, Cstar: 2 });
        const objective = new S3vmObjective(ds, 1, s3vmSettings('tsgs3vm', ds, 1, params as S3vmParamValues, paperStep(100)));
        const rng = seedrandom.alea(`fd-${loss}-${balance}`);
        const batch = objective.sample(rng);
        const f = Float64Array.from({ length: batch.nPoints }, () => 3 * rng() - 1.5);
        const w = new Float64Array(batch.nPoints);
        objective.weights(f, w, batch);
        const h = 1e-7;
        for (let p = 0; p < batch.nPoints; p++) {
          const up = f.slice();
          const down = f.slice();
          up[p] += h;
          down[p] -= h;
          expect(w[p], `point ${p}`).toBeCloseTo((objective.risk(up, batch) - objective.risk(down, batch)) / (2 * h), 5);
        }
        // With the balance constraint the bias has no gradient left: Σ w = 0.
        if (balance === 'on') expect(Math.abs(w.reduce((a, b) => a + b, 0))).toBeLessThan(1e-12);
      });
    }
  }

  it('needs unlabeled rows: a DataError naming the label column', () => {
    const labeledOnly = MinMaxScaler.fit(breastCancer).transform(breastCancer);
    const params = resolveParams(learnerSpec('tsgs3vm'), {});
    expect(() => s3vmSettings('tsgs3vm', labeledOnly, 1, params as S3vmParamValues, paperStep(10))).toThrow(DataError);
  });
});

describe.each(['tsgs3vm', 'frs3vm'])('%s models', (learner) => {
  const { train: tr, test } = splitDataset(breastCancer, { labeled: 100, test: 0.2, seed: 4 });
  const small = learner === 'tsgs3vm' ? { T: 40, m: 16, batchSize: 32, seed: 5 } : { blocks: 8, epochs: 3, m: 16, batchSize: 32, seed: 5 };

  it('are the same bytes on 1 and 2 threads (pool used), and save, load, predict and evaluate', async () => {
    const one = await train({ learner, data: tr, ...small, threads: 1 });
    const before = poolTasksCompleted();
    const two = await train({ learner, data: tr, ...small, threads: 2, parallelMinWork: 0 });
    expect(poolTasksCompleted()).toBeGreaterThan(before);
    expect(Buffer.from(two.toBytes()).equals(Buffer.from(one.toBytes()))).toBe(true);
    expect(two.header.predictor).toHaveProperty('bias');
    expect(two.header.metric).toBe('accuracy');
    const path = join(dir, `${learner}.dsg`);
    await two.save(path);
    const again = await load(path);
    expect(Buffer.from(again.toBytes()).equals(Buffer.from(two.toBytes()))).toBe(true);
    const f = await again.decisionFunction(test!);
    expect(Array.from(f)).toEqual(Array.from(await one.decisionFunction(test!, { threads: 1 })));
    // Labels are the sign of f + b, and score is the accuracy of those labels.
    const labels = await again.predict(test!);
    const task = again.task;
    if (task.kind !== 'binary') throw new Error('binary task expected');
    expect(task.threshold).toBe(0);
    expect(Array.from(labels)).toEqual(Array.from(f, (v) => (v > 0 ? task.positive : task.negative)));
    const m = await again.evaluate(test!);
    expect(await again.score(test!)).toBe(m.accuracy);
    expect(m.accuracy).toBeGreaterThan(0.85);
  }, 60_000);
});

/** Share of the unlabeled training rows a model labels positive. */
async function positiveShareOfUnlabeled(model: Awaited<ReturnType<typeof train>>, tr: Dataset): Promise<number> {
  const f = await model.decisionFunction(tr, { threads: 1 });
  let pos = 0;
  let n = 0;
  for (let i = 0; i < tr.n; i++) {
    if (tr.labeled[i]) continue;
    n++;
    if (f[i] > 0) pos++;
  }
  return pos / n;
}

describe('the class-balance constraint (real data, few labels)', () => {
  // Breast cancer with 10 labeled rows and a strong unlabeled loss: without the
  // constraint the free bias runs to one side and (nearly) every unlabeled row
  // lands in one class; with it the unlabeled rows split about as the labels do.
  const { train: tr } = splitDataset(breastCancer, { labeled: 10, seed: 7 });
  const settings = { T: 100, m: 32, batchSize: 64, C: 100, Cstar: 100, seed: 1, threads: 1 };
  let truePositiveShare = 0;
  let nU = 0;
  for (let i = 0; i < tr.n; i++) if (!tr.labeled[i]) (nU++, (truePositiveShare += breastCancer.y[i] === 1 ? 1 : 0));

  it('tsgs3vm: off, the unlabeled rows collapse into one class; on (the default), they do not', async () => {
    const off = await positiveShareOfUnlabeled(await train({ learner: 'tsgs3vm', data: tr, ...settings, balance: 'off' }), tr);
    const on = await positiveShareOfUnlabeled(await train({ learner: 'tsgs3vm', data: tr, ...settings }), tr);
    expect(Math.min(off, 1 - off), `positive share of unlabeled rows without the constraint: ${off}`).toBeLessThan(0.05);
    expect(Math.abs(on - truePositiveShare / nU), `positive share with the constraint: ${on}, true ${truePositiveShare / nU}`).toBeLessThan(0.15);
  }, 60_000);
});

describe('against supervised DSG on the same labeled rows', () => {
  it('breast cancer, 200 labeled rows: tsgs3vm test accuracy ≥ dsg (mean of 3 seeds)', async () => {
    const run = { T: 150, m: 32, seed: 1, threads: 2 };
    const acc = { tsgs3vm: [] as number[], dsg: [] as number[] };
    for (const seed of [1, 2, 3]) {
      const { train: tr, test } = splitDataset(breastCancer, { labeled: 200, test: 0.2, seed });
      for (const learner of ['tsgs3vm', 'dsg'] as const) {
        const model = await train({ learner, data: tr, ...run, seed, batchSize: 64 });
        acc[learner].push((await model.evaluate(test!)).accuracy);
      }
    }
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    expect(mean(acc.tsgs3vm), `tsgs3vm ${acc.tsgs3vm.join(', ')}; dsg ${acc.dsg.join(', ')}`).toBeGreaterThanOrEqual(mean(acc.dsg));
  }, 120_000);
});
