import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readDataset, splitDataset, selectRows } from '../src/data/index.ts';
import { makeDataset } from '../src/data/dataset.ts';
import { train, load, Model } from '../src/api.ts';
import { CancelledError, ModelError } from '../src/errors.ts';
import type { RandomFeaturePredictor } from '../src/model/predictor.ts';

const spam = await readDataset('data/spam.arrow');
const { train: tr, test } = splitDataset(spam, { labeled: 200, test: 0.2, seed: 5 });
const small = { learner: 'qsg-s2auc' as const, data: tr, T: 60, batchSize: 32, m: 32, seed: 11 };
const bits = (a: Float64Array) => Buffer.from(a.buffer, a.byteOffset, a.byteLength);
const historyOf = (m: Model) => (m.predictor as RandomFeaturePredictor).history;
const coefficients = (m: Model) => historyOf(m).stored.subarray(0, historyOf(m).t * 2 * historyOf(m).m);

describe('models', () => {
  it('are bit-identical when trained with 1 and 2 threads', async () => {
    // At T = 60 the later iterations are above the parallel crossover, so the 2-thread run really uses the pool.
    const one = await train({ ...small, threads: 1 });
    const two = await train({ ...small, threads: 2 });
    expect(bits(coefficients(two)).equals(bits(coefficients(one)))).toBe(true);
    expect(historyOf(two).scale).toBe(historyOf(one).scale);
    expect(two.header.task).toEqual(one.header.task);
    // The whole model file, header included, is the same bytes: `sha256sum model.dsg` agrees across thread counts.
    expect(Buffer.from(two.toBytes()).equals(Buffer.from(one.toBytes()))).toBe(true);
    const f1 = await one.decisionFunction(test!, { threads: 1 });
    const f2 = await two.decisionFunction(test!, { threads: 2, parallelMinWork: 0 });
    expect(bits(f2).equals(bits(f1))).toBe(true);
  });

  it('round-trip through save and load bit for bit', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dsgkit-model-'));
    const model = await train({ ...small, threads: 1 });
    const path = join(dir, 'spam.dsg');
    await model.save(path);
    expect(readdirSync(dir)).toEqual(['spam.dsg']); // no temp file left behind
    const again = await load(path);
    expect(again.header).toEqual(model.header);
    expect(bits(coefficients(again)).equals(bits(coefficients(model)))).toBe(true);
    expect(Buffer.from(again.toBytes()).equals(Buffer.from(model.toBytes()))).toBe(true);
    const f = await model.decisionFunction(test!, { threads: 1 });
    const g = await again.decisionFunction(test!, { threads: 1 });
    expect(bits(g).equals(bits(f))).toBe(true);
    expect(await again.score(test!, { threads: 1 })).toBeGreaterThan(0.85);
    const labels = await again.predict(test!, { threads: 1 });
    expect(new Set(labels)).toEqual(new Set([-1, 1]));
  });

  it('refuse data with other features, naming the mismatch', async () => {
    const model = await train({ ...small, threads: 1 });
    const fewer = makeDataset({ X: new Float64Array(3 * 10), d: 10, y: new Float64Array(3).fill(NaN), labelName: 'label' });
    await expect(model.decisionFunction(fewer)).rejects.toThrow(ModelError);
    await expect(model.decisionFunction(fewer)).rejects.toThrow(/expects 57 features.*has 10/);
    const renamed = makeDataset({ X: test!.X, d: test!.d, y: test!.y, featureNames: test!.featureNames.map((n, k) => (k === 4 ? 'other' : n)) });
    await expect(model.decisionFunction(renamed)).rejects.toThrow(/feature 5 is 'other'/);
  });

  it('loading a truncated, corrupt or foreign file is a clear ModelError', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dsgkit-model-'));
    const model = await train({ ...small, T: 5, threads: 1 });
    const bytes = model.toBytes();
    const cut = join(dir, 'cut.dsg');
    writeFileSync(cut, bytes.subarray(0, bytes.length - 9));
    await expect(load(cut)).rejects.toThrow(/cut\.dsg: truncated model file/);
    const foreign = join(dir, 'foreign.dsg');
    writeFileSync(foreign, readFileSync('data/breast_cancer.arrow'));
    await expect(load(foreign)).rejects.toThrow(/foreign\.dsg: not a dsgkit model file/);
    const header = join(dir, 'header.dsg');
    const broken = Uint8Array.from(bytes);
    broken[14] = 0x7b; // '{' inside the JSON
    writeFileSync(header, broken);
    await expect(load(header)).rejects.toThrow(/header\.dsg: corrupt model file \(checksum mismatch/);
    await expect(load(join(dir, 'missing.dsg'))).rejects.toThrow(/missing\.dsg: cannot read model file \(ENOENT\)/);
  });

  it('training can be cancelled and says where it stopped', async () => {
    const controller = new AbortController();
    const run = train({
      ...small,
      T: 500,
      threads: 1,
      signal: controller.signal,
      onProgress: (p) => {
        if (p.t === 7) controller.abort();
      },
    });
    await expect(run).rejects.toThrow(CancelledError);
    await expect(run).rejects.toThrow(/after 7 of 500 iterations/);
  });

  it('predict uses the fitted threshold, between the two classes on the training rows', async () => {
    const model = await train({ ...small, threads: 1 });
    const labeled = selectRows(tr, Array.from({ length: tr.n }, (_, i) => i).filter((i) => tr.labeled[i] === 1));
    const f = await model.decisionFunction(labeled, { threads: 1 });
    const task = model.header.task;
    if (task.kind !== 'binary') throw new Error('expected a binary model');
    const { threshold } = task;
    let posAbove = 0;
    let negBelow = 0;
    let pos = 0;
    for (let i = 0; i < labeled.n; i++) {
      if (labeled.y[i] === 1) {
        pos++;
        if (f[i] > threshold) posAbove++;
      } else if (f[i] <= threshold) negBelow++;
    }
    expect(posAbove / pos).toBeGreaterThan(0.6);
    expect(negBelow / (labeled.n - pos)).toBeGreaterThan(0.6);
  });
});

describe('training feedback', () => {
  it('warns when θλ is outside (1, 2) and stays quiet inside it', async () => {
    const warnings: string[] = [];
    await train({ ...small, T: 3, threads: 1, lambda: 0.5, theta: 1, onWarning: (m) => warnings.push(m) });
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/θλ = 0.5 is outside \(1, 2\)/);
    await train({ ...small, T: 3, threads: 1, lambda: 0.5, theta: 3, onWarning: (m) => warnings.push(m) });
    expect(warnings).toHaveLength(1);
  });

  it('the incremental validation AUC equals the AUC of a full evaluation of the final model', async () => {
    const seen: number[] = [];
    const model = await train({ ...small, T: 40, threads: 1, validation: test, validateEvery: 10, onProgress: (p) => p.metric && seen.push(p.metric.t) });
    const trace = model.header.training.validation as Array<[number, number]>;
    expect(trace.map(([t]) => t)).toEqual([10, 20, 30, 40]);
    expect(new Set(seen)).toEqual(new Set([10, 20, 30, 40]));
    expect(trace[3][1]).toBeCloseTo(await model.score(test!, { threads: 1 }), 10);
  });
});

describe('scaling in place', () => {
  it('gives the same model as scaling a copy, modifies only a Dataset that asked for it, and records where the rows came from', async () => {
    const copy = { ...tr, X: Float64Array.from(tr.X) };
    const before = Float64Array.from(tr.X);
    const a = await train({ ...small, threads: 1 });
    expect(bits(tr.X).equals(bits(before))).toBe(true); // the caller's rows are untouched by default
    const b = await train({ ...small, data: copy, threads: 1, scaleInPlace: true });
    expect(bits(coefficients(b)).equals(bits(coefficients(a)))).toBe(true);
    expect(copy.X.reduce((m, v) => Math.max(m, v), -Infinity)).toBeLessThanOrEqual(1); // scaled in place, as asked
    expect(a.header.training.data).toBe('data/spam.arrow');
  });
});
