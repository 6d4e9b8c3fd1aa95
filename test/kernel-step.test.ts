/**
 * The pairwise learners' default step at a wide kernel (learners/kernel-scale.ts):
 * its first step grows as σ falls below σ₀, nothing changes at σ ≥ σ₀, for the
 * pointwise learners or for a step the user gives, and `train`, `tune` and a
 * bare `fit` without a step take the same schedule.
 */
import { describe, expect, it } from 'vitest';
import { learnerSpec, train } from '../src/api.ts';
import { tune } from '../src/tune.ts';
import { readDataset, splitDataset, type Dataset } from '../src/data/index.ts';
import { DEFAULT_CLIP_QUANTILE, MinMaxScaler } from '../src/data/scaler.ts';
import { kernelScale0, kernelStepScale } from '../src/learners/kernel-scale.ts';
import { taskClasses } from '../src/model/task.ts';
import { auc } from '../src/metrics/index.ts';

const quiet = { onWarning: () => {} };
/** The scaling train applies by default (QSG-S2AUC, DSG and the ordinal learners). */
const DEFAULT_SCALING = { clipQuantile: DEFAULT_CLIP_QUANTILE };

async function spamSplit(): Promise<{ train: Dataset; test: Dataset; sigma0: number }> {
  const { train: tr, test } = splitDataset(await readDataset('data/spam.arrow'), { labeled: 100, test: 0.2, seed: 1 });
  return { train: tr, test: test!, sigma0: kernelScale0(MinMaxScaler.fit(tr, undefined, DEFAULT_SCALING).transform(tr)) };
}

function firstStep(step: unknown): number {
  const s = step as { kind: string; eta0?: number };
  expect(s.kind).toBe('decay');
  return s.eta0!;
}

describe('the kernel-scaled first step', () => {
  it('is 1 at σ ≥ σ₀ and grows as (1 − e⁻¹)/(1 − e^{−σ/σ₀}) below', () => {
    for (const r of [1, 1.5, 4, 64]) expect(kernelStepScale(r)).toBe(1);
    expect(kernelStepScale(1 / 4)).toBeCloseTo(0.63212 / 0.22120, 3);
    expect(kernelStepScale(1 / 16)).toBeCloseTo(10.43, 2);
    let last = 1;
    for (const r of [0.9, 0.5, 0.25, 0.1, 0.01]) {
      const s = kernelStepScale(r);
      expect(s).toBeGreaterThan(last);
      last = s;
    }
    for (const bad of [0, -1, NaN, Infinity]) expect(kernelStepScale(bad)).toBe(1);
  });

  it('raises the first step of QSG-S2AUC at σ₀/16 only: not at the default σ, not for DSG, the Laplacian kernel or a given step', async () => {
    const { train: tr, sigma0 } = await spamSplit();
    const base = { data: tr, T: 5, threads: 1, ...quiet };
    const wide = await train({ learner: 'qsg-s2auc', ...base, sigma: sigma0 / 16, lambda: 1e-4 });
    expect(firstStep(wide.header.hyperparameters.step)).toBeCloseTo(0.5 * kernelStepScale(1 / 16), 12);
    const byDefault = await train({ learner: 'qsg-s2auc', ...base, lambda: 1e-4 });
    expect(firstStep(byDefault.header.hyperparameters.step)).toBe(0.5);
    const narrow = await train({ learner: 'qsg-s2auc', ...base, sigma: sigma0 * 4, lambda: 1e-4 });
    expect(firstStep(narrow.header.hyperparameters.step)).toBe(0.5);
    const dsg = await train({ learner: 'dsg', ...base, sigma: sigma0 / 16, lambda: 1e-4 });
    expect(firstStep(dsg.header.hyperparameters.step)).toBe(0.5);
    const laplacian = await train({ learner: 'qsg-s2auc', ...base, kernel: 'laplacian', sigma: sigma0 / 16, lambda: 1e-4 });
    expect(firstStep(laplacian.header.hyperparameters.step)).toBe(0.5);
    const given = await train({ learner: 'qsg-s2auc', ...base, sigma: sigma0 / 16, lambda: 1e-4, step: { kind: 'constant', eta: 0.3 } });
    expect(given.header.hyperparameters.step).toEqual({ kind: 'constant', eta: 0.3 });
    // The ordinal learners are pairwise too.
    const { train: otr } = splitDataset(await readDataset('data/diabetes.arrow'), { labeled: 100, test: 0.2, seed: 1 });
    const s0 = kernelScale0(MinMaxScaler.fit(otr, undefined, DEFAULT_SCALING).transform(otr));
    const ordinal = await train({ learner: 'qs3orao', data: otr, T: 5, threads: 1, sigma: s0 / 4, lambda: 1e-3, ...quiet });
    expect(firstStep(ordinal.header.hyperparameters.step)).toBeCloseTo(0.5 * kernelStepScale(1 / 4), 12);
  }, 60_000);

  it('stays stable three decades below σ₀, where the first step is 316: finite scores that still rank spam', async () => {
    const { train: tr, test, sigma0 } = await spamSplit();
    const m = await train({ learner: 'qsg-s2auc', data: tr, threads: 1, sigma: sigma0 / 1000, lambda: 1e-4, ...quiet });
    expect(firstStep(m.header.hyperparameters.step)).toBeGreaterThan(300);
    const f = await m.decisionFunction(test);
    expect(f.every(Number.isFinite)).toBe(true);
    expect(auc(test.y, f, { positive: 1 })).toBeGreaterThan(0.85);
  }, 60_000);

  it('a fit without a step takes the schedule train gives: the same scores', async () => {
    const { train: tr, test, sigma0 } = await spamSplit();
    const params = { sigma: sigma0 / 16, lambda: 1e-4, T: 20, seed: 3 };
    const model = await train({ learner: 'qsg-s2auc', data: tr, threads: 1, ...params, ...quiet });
    const spec = learnerSpec('qsg-s2auc');
    const scaler = MinMaxScaler.fit(tr, undefined, DEFAULT_SCALING);
    const rows = scaler.transform(tr);
    const fitted = await spec.fit({ rows, classes: taskClasses('binary', rows), params: { ...model.header.hyperparameters, step: undefined } as never, engine: { threads: 1 } });
    const X = scaler.transform(test);
    const f = await fitted.predictor.evaluate(X.X, X.n, new Float64Array(X.n), { threads: 1 });
    expect(Array.from(f)).toEqual(Array.from(await model.decisionFunction(test)));
  }, 60_000);

  it("tune's σ₀/16 candidates carry the raised step into their fold fits and the refit", async () => {
    const { train: tr, sigma0 } = await spamSplit();
    // σ fixed: the grid's points and the defaults (with what the caller fixed) are all at σ₀/16.
    const r = await tune({ learner: 'qsg-s2auc', data: tr, T: 9, sigma: sigma0 / 16, grid: { lambda: [1e-3, 1e-4], gamma: [0.5] }, threads: 1, ...quiet });
    expect(r.best.sigma).toBeCloseTo(sigma0 / 16, 12);
    expect(firstStep(r.model.header.hyperparameters.step)).toBeCloseTo(0.5 * kernelStepScale(1 / 16), 12);
  }, 60_000);
});
