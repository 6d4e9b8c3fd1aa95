import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import seedrandom from 'seedrandom';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// Learners chosen by name at run time: the untyped entry (the typed `train` checks literal options at compile time).
import { trainModel as train } from '../src/train/train.ts';
import { samplingRng } from '../src/coordinator/loop.ts';
import { readArrow, readDataset, splitDataset, type Dataset } from '../src/data/index.ts';
import { MinMaxScaler } from '../src/data/scaler.ts';
import { DataError, UsageError } from '../src/errors.ts';
import { poolTasksCompleted } from '../src/engine/pool.ts';
import { gammaPerThreshold, Qs3orao } from '../src/learners/qs3orao.ts';
import { fitThreshold } from '../src/model/thresholds.ts';
import { fitTask, type OrdinalTask } from '../src/model/task.ts';
import { runCli } from './support/cli.ts';

const diabetes = await readDataset('data/diabetes.arrow');
/** Small runs: seconds, not minutes. */
const TINY = { T: 40, m: 16, batchSize: 16 } as const;

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'dsgkit-qs3orao-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Runs the CLI in-process, capturing what it writes. */
const run = (...argv: string[]) => runCli(argv);

/** The one-sided squared surrogate of ALGORITHMS.md § QS3ORAO at threshold b. */
function surrogate(f: Float64Array, high: Uint8Array, b: number): number {
  let s = 0;
  for (let i = 0; i < f.length; i++) s += high[i] ? Math.max(0, b - f[i]) ** 2 : Math.max(0, f[i] - b) ** 2;
  return s;
}

/** Brute force: ternary search of the convex surrogate over [min f, max f] to machine precision. */
function bruteForceThreshold(f: Float64Array, high: Uint8Array): number {
  let lo = Math.min(...f);
  let hi = Math.max(...f);
  for (let it = 0; it < 400 && hi - lo > 1e-13; it++) {
    const a = lo + (hi - lo) / 3;
    const b = hi - (hi - lo) / 3;
    if (surrogate(f, high, a) <= surrogate(f, high, b)) hi = b;
    else lo = a;
  }
  return (lo + hi) / 2;
}

describe('QS3ORAO thresholds', () => {
  it('each b_j equals a brute-force minimiser of the one-sided squared surrogate, on random scores (ties included)', () => {
    const rng = seedrandom('thresholds');
    for (let trial = 0; trial < 40; trial++) {
      const n = 5 + Math.floor(rng() * 60);
      const k = 3 + Math.floor(rng() * 4);
      const y = Int32Array.from({ length: n }, (_, i) => (i < k ? i : Math.floor(rng() * k)));
      // Scores that rise with the class plus noise; every fifth trial on a coarse grid (ties).
      const f = Float64Array.from(y, (c) => {
        const v = c * 0.5 + (rng() - 0.5) * 2;
        return trial % 5 === 0 ? Math.round(v * 2) / 2 : v;
      });
      for (let j = 0; j < k - 1; j++) {
        const high = Uint8Array.from(y, (c) => (c > j ? 1 : 0));
        const b = fitThreshold(f, high);
        const brute = bruteForceThreshold(f, high);
        expect(surrogate(f, high, b)).toBeLessThanOrEqual(surrogate(f, high, brute) + 1e-12);
        // Strictly convex where any row is on the wrong side, so the minimiser is unique unless
        // the classes are separated (zero loss on an interval: fitThreshold takes its middle).
        if (surrogate(f, high, brute) > 0) expect(Math.abs(b - brute)).toBeLessThan(1e-6);
        else expect(surrogate(f, high, b)).toBeLessThan(1e-24);
      }
    }
  });

  it('are ordered b_1 ≤ … ≤ b_{k−1} for any scores, whatever the label values', () => {
    const rng = seedrandom('order');
    for (let trial = 0; trial < 40; trial++) {
      const n = 10 + Math.floor(rng() * 50);
      const classes = [-2, -1, 0, 1, 2].slice(0, 3 + (trial % 3));
      const y = Float64Array.from({ length: n }, (_, i) => classes[i < classes.length ? i : Math.floor(rng() * classes.length)]);
      const f = Float64Array.from({ length: n }, () => rng() * 4 - 2); // scores unrelated to the classes: the worst case
      const task = fitTask({ kind: 'ordinal', classes }, f, y, 'fit') as OrdinalTask;
      for (let j = 1; j < task.thresholds.length; j++) expect(task.thresholds[j]).toBeGreaterThanOrEqual(task.thresholds[j - 1]);
    }
  });
});

describe('QS3ORAO weights', () => {
  /**
   * The mini-batch risk from its definition, by brute force over every pair:
   * for each threshold j, positives are the batch rows of classes above it,
   * negatives those at or below, each row weighted by its class's share of
   * the labeled rows of its side divided by B; unlabeled rows uniformly.
   */
  function bruteForceRisk(batchClass: Int32Array, classSizes: number[], B: number, gamma: number[], f: Float64Array, nU: number): number {
    const k = classSizes.length;
    const l = (u: number, v: number) => (1 - u + v) ** 2;
    const labeledN = batchClass.length;
    let total = 0;
    for (let j = 0; j < k - 1; j++) {
      const side = (c: number) => (c > j ? 1 : 0);
      const sideSize = [0, 0];
      for (let c = 0; c < k; c++) sideSize[side(c)] += classSizes[c];
      const mass = (r: number) => classSizes[batchClass[r]] / (sideSize[side(batchClass[r])] * B);
      let pn = 0;
      let pu = 0;
      let un = 0;
      for (let p = 0; p < labeledN; p++) {
        if (!side(batchClass[p])) continue;
        for (let q = 0; q < labeledN; q++) if (!side(batchClass[q])) pn += mass(p) * mass(q) * l(f[p], f[q]);
        for (let u = 0; u < nU; u++) pu += (mass(p) / nU) * l(f[p], f[labeledN + u]);
      }
      for (let u = 0; u < nU; u++) for (let q = 0; q < labeledN; q++) if (!side(batchClass[q])) un += (mass(q) / nU) * l(f[labeledN + u], f[q]);
      total += gamma[j] < 1 ? gamma[j] * pn + (1 - gamma[j]) * (pu + un - 0.5) : pn;
    }
    return total / (k - 1);
  }

  it('equal finite differences of the brute-force all-pairs risk (unequal classes, one γ_j per threshold, one γ_j = 1)', () => {
    const ds = splitDataset(diabetes, { labeled: 60, seed: 4 }).train;
    // Unequal class sizes, so the class-share masses matter: drop half the labeled rows of class 2.
    let dropped = 0;
    const y = Float64Array.from(ds.y, (v) => (v === 2 && dropped++ % 2 === 0 ? NaN : v));
    const uneven: Dataset = { ...ds, y, labeled: Uint8Array.from(y, (v) => (Number.isNaN(v) ? 0 : 1)) };
    const B = 3;
    const gamma = [0.3, 1, 0.6, 0.8];
    const learner = new Qs3orao(MinMaxScaler.fit(uneven).transform(uneven), [1, 2, 3, 4, 5], { name: 'qs3orao', lambda: 0.1, gamma, batchSize: B, step: { kind: 'constant', eta: 0.1 } });
    const classSizes = learner.sources.byClass.map((r) => r.size);
    expect(new Set(classSizes).size).toBeGreaterThan(1);
    const batch = learner.sample(samplingRng(9));
    const { nPoints } = batch;
    expect(nPoints).toBe(6 * B);
    const batchClass = Int32Array.from({ length: 5 * B }, (_, r) => Math.floor(r / B));
    const rng = seedrandom('f');
    const f = Float64Array.from({ length: nPoints }, () => rng() * 2 - 1);
    const w = new Float64Array(nPoints);
    learner.weights(f, w, batch);
    expect(learner.risk(f, batch)).toBeCloseTo(bruteForceRisk(batchClass, classSizes, B, gamma, f, B), 12);
    const h = 1e-6;
    for (let p = 0; p < nPoints; p++) {
      const keep = f[p];
      f[p] = keep + h;
      const up = bruteForceRisk(batchClass, classSizes, B, gamma, f, B);
      f[p] = keep - h;
      const down = bruteForceRisk(batchClass, classSizes, B, gamma, f, B);
      f[p] = keep;
      expect(w[p]).toBeCloseTo((up - down) / (2 * h), 7);
    }
  });
});

describe('QS3ORAO training', () => {
  const { train: tr, test } = splitDataset(diabetes, { labeled: 100, test: 0.2, seed: 2 });

  it('gives the same model bytes on 1 and 2 threads (the pool proven used), thresholds strictly ordered on real data', async () => {
    const opts = { learner: 'qs3orao', data: tr, T: 60, m: 16, batchSize: 16, seed: 3 };
    const one = await train({ ...opts, threads: 1 });
    const before = poolTasksCompleted();
    const two = await train({ ...opts, threads: 2, parallelMinWork: 0 });
    expect(poolTasksCompleted()).toBeGreaterThan(before);
    expect(Buffer.from(two.toBytes()).equals(Buffer.from(one.toBytes()))).toBe(true);
    const task = one.header.task as OrdinalTask;
    expect(task.classes).toEqual([1, 2, 3, 4, 5]);
    for (let j = 1; j < task.thresholds.length; j++) expect(task.thresholds[j]).toBeGreaterThan(task.thresholds[j - 1]);
    const m = await one.evaluate(test!, { threads: 1 });
    expect(m.kind).toBe('ordinal');
    if (m.kind === 'ordinal') {
      expect(m.perThreshold).toHaveLength(4);
      expect(m.meanAuc).toBeGreaterThan(0.7);
    }
  });

  it('depends on the classes’ rank order, not on their values: labels 0..4 give the same scores and thresholds as 1..5', async () => {
    const shifted: Dataset = { ...tr, y: tr.y.map((v) => v - 1) };
    const opts = { T: 30, m: 16, batchSize: 8, seed: 5, threads: 1 };
    const a = await train({ learner: 'qs3orao', data: tr, ...opts });
    const b = await train({ learner: 'qs3orao', data: shifted, ...opts });
    expect((b.header.task as OrdinalTask).classes).toEqual([0, 1, 2, 3, 4]);
    expect((b.header.task as OrdinalTask).thresholds).toEqual((a.header.task as OrdinalTask).thresholds);
    expect(Array.from(await b.decisionFunction(test!, { threads: 1 }))).toEqual(Array.from(await a.decisionFunction(test!, { threads: 1 })));
    expect(Array.from(await b.predict(test!, { threads: 1 }))).toEqual(Array.from(await a.predict(test!, { threads: 1 })).map((v) => v - 1));
  });

  it('takes one γ or one per threshold; other lengths and bad values are UsageErrors naming gamma', async () => {
    expect(gammaPerThreshold(0.25, 4)).toEqual([0.25, 0.25, 0.25]);
    const listed = await train({ learner: 'qs3orao', data: tr, ...TINY, threads: 1, gamma: [0.2, 0.4, 0.6, 0.8] });
    expect(listed.header.hyperparameters.gamma).toEqual([0.2, 0.4, 0.6, 0.8]);
    await expect(train({ learner: 'qs3orao', data: tr, ...TINY, gamma: [0.2, 0.4] })).rejects.toThrow(/gamma \(--gamma\): 2 values for 5 classes.*k − 1 = 4/);
    await expect(train({ learner: 'qs3orao', data: tr, ...TINY, gamma: [0.2, 1.5, 0.3, 0.3] })).rejects.toThrow(UsageError);
    await expect(train({ learner: 'qs3orao', data: tr, ...TINY, gamma: '0.5,x' })).rejects.toThrow(/gamma must be a number in \[0, 1\] or a comma-separated list/);
    await expect(train({ learner: 'sorao', data: tr, ...TINY, gamma: 0.5 })).rejects.toThrow(/gamma is not a parameter of sorao/);
  });

  it('refuses data it cannot fit with located DataErrors: a class without labeled rows, two classes (suggesting a binary learner), no unlabeled rows with γ < 1', async () => {
    const noClass3: Dataset = { ...tr, y: tr.y.map((v) => (v === 3 ? NaN : v)), labeled: Uint8Array.from(tr.y, (v) => (v === 3 || Number.isNaN(v) ? 0 : 1)) };
    await expect(train({ learner: 'qs3orao', data: { ...noClass3, source: 'd.arrow' }, ...TINY })).rejects.toThrow(/d\.arrow: column 'label': class 3 has no labeled rows/);
    const twoClasses: Dataset = { ...tr, y: tr.y.map((v) => (v > 3 ? 2 : Number.isNaN(v) ? v : 1)) };
    const err = await train({ learner: 'qs3orao', data: twoClasses, ...TINY }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DataError);
    expect((err as Error).message).toMatch(/at least 3 ordered classes, found 2.*use a binary learner/);
    const allLabeled = splitDataset(diabetes, { labeled: 442, seed: 1 }).train;
    await expect(train({ learner: 'qs3orao', data: allLabeled, ...TINY })).rejects.toThrow(/needs unlabeled rows.*γ = 1/);
    await expect(train({ learner: 'sorao', data: allLabeled, ...TINY, threads: 1 })).resolves.toBeDefined();
  });
});

describe('QS3ORAO against its supervised baseline on the bundled ordinal data (diabetes, 200 labeled rows, 3 seeds)', () => {
  it('ranks held-out rows as well as sorao on the same labeled rows, within 0.01 mean threshold AUC, and well above chance', async () => {
    // Measured (README § Ordinal regression): on diabetes the unlabeled rows do not help — at the defaults
    // (T = 400) QS3ORAO 0.840 vs SORAO 0.845, mean of 3 seeds; the "at least the baseline" does not hold
    // here. This guards the measured relation at small T: a gap beyond 0.01 would be a regression.
    const mean: Record<string, number> = { qs3orao: 0, sorao: 0 };
    for (const seed of [1, 2, 3]) {
      const { train: tr, test } = splitDataset(diabetes, { labeled: 200, test: 0.2, seed });
      for (const learner of ['qs3orao', 'sorao']) {
        const model = await train({ learner, data: tr, T: 100, m: 32, batchSize: 16, seed, threads: 1 });
        const m = await model.evaluate(test!, { threads: 1 });
        if (m.kind === 'ordinal') mean[learner] += m.meanAuc / 3;
      }
    }
    expect(mean.sorao).toBeGreaterThan(0.8);
    expect(mean.qs3orao).toBeGreaterThan(0.8);
    expect(mean.qs3orao).toBeGreaterThan(mean.sorao - 0.01);
  });
});

describe('the CLI on ordinal data', () => {
  it('dsgkit bin turns a real column into k equal-frequency classes (numpy percentile cuts), missing values stay unlabeled', async () => {
    const csv = join(dir, 'houses.csv');
    const rows = ['rooms,price,age'];
    for (let i = 1; i <= 10; i++) rows.push(`${i % 4},${i * 10},${20 - i}`);
    rows.push('3,,7');
    await writeFile(csv, rows.join('\n') + '\n');
    const out = join(dir, 'houses.arrow');
    const r = await run('bin', csv, '--column', 'price', '--k', '3', '--out', out);
    expect(r).toMatchObject({ code: 0, err: '' });
    // np.percentile([10..100], [100/3, 200/3]) = 40, 70.
    expect(r.out).toContain('cut points  40, 70');
    expect(r.out).toContain('classes     1: 4, 2: 3, 3: 3');
    const ds = await readArrow(out);
    expect(ds.featureNames).toEqual(['rooms', 'age']);
    expect(Array.from(ds.y)).toEqual([1, 1, 1, 1, 2, 2, 2, 3, 3, 3, NaN]);
  });

  it('dsgkit bin refuses a column with too many equal values, naming file and column, and writes nothing', async () => {
    const csv = join(dir, 'ties.csv');
    await writeFile(csv, 'x,y\n' + [1, 1, 1, 1, 1, 1, 2, 3].map((v, i) => `${i},${v}`).join('\n') + '\n');
    const out = join(dir, 'ties.arrow');
    const r = await run('bin', csv, '--column', 'y', '--k', '4', '--out', out);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/ties\.csv: column 'y': 4 equal-frequency classes would leave class 2, 3 empty: too many equal values/);
    await expect(readArrow(out)).rejects.toThrow();
  });

  it('trains with --gamma as a list, evaluates (mean AUC, MAE, accuracy, confusion; --json) and predicts class and score', async () => {
    const split = await run('split', 'data/diabetes.arrow', '--labeled', '100', '--test', '0.2', '--seed', '1', '--out-train', join(dir, 'tr.arrow'), '--out-test', join(dir, 'te.arrow'));
    expect(split.code).toBe(0);
    const model = join(dir, 'd.dsg');
    const t = await run('train', '--learner', 'qs3orao', '--data', join(dir, 'tr.arrow'), '--out', model, '--quiet', '--gamma', '0.4,0.5,0.6,0.7', '--iterations', '40', '--random-features', '16', '--batch-size', '16', '--threads', '1');
    expect(t).toMatchObject({ code: 0, err: '' });
    const bad = await run('train', '--learner', 'qs3orao', '--data', join(dir, 'tr.arrow'), '--out', model, '--gamma', '0.4,2');
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(/--gamma must be a number in \[0, 1\] or a comma-separated list of them, got '0\.4,2'/);
    const e = await run('evaluate', '--model', model, '--data', join(dir, 'te.arrow'));
    expect(e.code).toBe(0);
    expect(e.out).toMatch(/mean AUC\s+0\.\d{4}\s+\(per threshold: /);
    expect(e.out).toMatch(/MAE\s+\d\.\d{4}/);
    expect(e.out).toMatch(/accuracy\s+0\.\d{4}/);
    expect(e.out).toMatch(/true \\ predicted\s+1\s+2\s+3\s+4\s+5/);
    const j = JSON.parse((await run('evaluate', '--model', model, '--data', join(dir, 'te.arrow'), '--json')).out);
    expect(j.confusion).toHaveLength(5);
    expect(j.confusion.flat().reduce((a: number, b: number) => a + b, 0)).toBe(j.labeled);
    const pred = join(dir, 'pred.arrow');
    expect((await run('predict', '--model', model, '--data', join(dir, 'te.arrow'), '--out', pred)).code).toBe(0);
    const { tableFromIPC } = await import('apache-arrow');
    const { readFile } = await import('node:fs/promises');
    const table = tableFromIPC(await readFile(pred));
    const names = table.schema.fields.map((f) => f.name);
    expect(names).toEqual(['score', 'predicted', 'label']);
    const predicted = table.getChild('predicted')!.toArray() as ArrayLike<number | string>;
    const scores = table.getChild('score')!.toArray() as Float64Array;
    const { load } = await import('../src/api.ts');
    const m = await load(model);
    const task = m.header.task as OrdinalTask;
    // The predicted class is 1 + #{j : score > b_j}.
    for (let i = 0; i < scores.length; i++) expect(Number(predicted[i])).toBe(1 + task.thresholds.filter((b) => scores[i] > b).length);
  });
});
