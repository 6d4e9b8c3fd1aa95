import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import seedrandom from 'seedrandom';
import { learnerSpec, LEARNERS, resolveParams, train } from '../src/api.ts';
import { readDataset, splitDataset } from '../src/data/index.ts';
import { DEFAULT_CLIP_QUANTILE, MinMaxScaler } from '../src/data/scaler.ts';
import { makeDataset, type Dataset } from '../src/data/dataset.ts';
import { writeArrow } from '../src/data/arrow.ts';
import { alignedSigma, centredAlignment, centredAlignments } from '../src/features/kernel-alignment.ts';
import { pairDistances } from '../src/features/pair-distances.ts';
import { DEFAULT_SIGMA_EXPONENTS, dataDefaults, defaultKernelScale, defaultSigma, kernelScale0, withDataDefaults } from '../src/train/defaults.ts';

/** n points uniform in [0, 1]^d, labelled by `label` (row → class 0 or 1); the rows from `labeled` on are unlabeled. */
function generated(n: number, d: number, label: (x: Float64Array) => number, seed: string, labeled = n): Dataset {
  const rng = seedrandom(seed);
  const X = Float64Array.from({ length: n * d }, () => rng());
  const y = Float64Array.from({ length: n }, (_, i) => (i < labeled ? label(X.subarray(i * d, i * d + d)) : NaN));
  return makeDataset({ X, d, y });
}

// Labels that change over short distances (stripes of width 1/6 along the first coordinate)
// against labels that change once (a half-space): the first wants a narrower kernel than σ₀.
const stripes = (x: Float64Array) => (Math.floor(x[0] * 6) % 2 === 0 ? 1 : 0);
const wideStripes = (x: Float64Array) => (Math.floor(x[0] * 4) % 2 === 0 ? 1 : 0);
const halfSpace = (x: Float64Array) => (x[0] + x[1] > 1 ? 1 : 0);

describe('centredAlignment', () => {
  it('is blind to the label coding: 0/1, ±1 and 3/7 give the same value (the centred labels)', () => {
    const ds = generated(60, 3, halfSpace, 'coding');
    const dist = pairDistances(ds.X, ds.n, ds.d);
    const a = centredAlignment(dist, ds.y, ds.n, 2);
    expect(centredAlignment(dist, ds.y.map((v) => 2 * v - 1), ds.n, 2)).toBeCloseTo(a, 12);
    expect(centredAlignment(dist, ds.y.map((v) => 3 + 4 * v), ds.n, 2)).toBeCloseTo(a, 12);
    expect(a).toBeGreaterThan(0);
    expect(a).toBeLessThanOrEqual(1);
  });

  it('equals the definition ⟨HKH, y_c y_cᵀ⟩ / (‖HKH‖ ‖y_c y_cᵀ‖) computed with the full matrices', () => {
    const n = 25;
    const ds = generated(n, 2, stripes, 'definition');
    const sigma = 3;
    const K = Array.from({ length: n }, (_, i) => Array.from({ length: n }, (_, j) => Math.exp(-sigma * ((ds.X[2 * i] - ds.X[2 * j]) ** 2 + (ds.X[2 * i + 1] - ds.X[2 * j + 1]) ** 2))));
    const rowMean = K.map((r) => r.reduce((s, v) => s + v, 0) / n);
    const all = rowMean.reduce((s, v) => s + v, 0) / n;
    const Kc = K.map((r, i) => r.map((v, j) => v - rowMean[i] - rowMean[j] + all));
    const ym = ds.y.reduce((s, v) => s + v, 0) / n;
    const yc = Array.from(ds.y, (v) => v - ym);
    let num = 0;
    let kk = 0;
    for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) {
      num += Kc[i][j] * yc[i] * yc[j];
      kk += Kc[i][j] ** 2;
    }
    const yy = yc.reduce((s, v) => s + v * v, 0);
    expect(centredAlignment(pairDistances(ds.X, n, 2), ds.y, n, sigma)).toBeCloseTo(num / (Math.sqrt(kk) * yy), 12);
  });
});

describe('centredAlignments (every rung in one pass)', () => {
  it('gives each rung\'s centredAlignment: the same bits where the rung takes its own exponential, within 1e-13 where it squares the rung below', () => {
    const ds = generated(120, 3, stripes, 'rungs');
    const exponents = [3, 0, 0.5, 1, 2.5, -2, 1.5];
    for (const diagonal of [true, false]) {
      const dist = pairDistances(ds.X, ds.n, ds.d);
      // A repeated point: distance 0, which the off-diagonal score leaves out at every rung.
      dist[5] = 0;
      const together = centredAlignments(dist, ds.y, ds.n, 0.7, exponents, { diagonal });
      exponents.forEach((k, i) => {
        const alone = centredAlignment(dist, ds.y, ds.n, 0.7 * 2 ** k, { diagonal });
        // k = 0, ½ and −2 have no rung one power of two below them: their own exponential, as alone.
        if (!exponents.includes(k - 1)) expect(together[i], `k = ${k}`).toBe(alone);
        else expect(Math.abs(together[i] - alone) / Math.abs(alone), `k = ${k}`).toBeLessThan(1e-13);
      });
    }
  });
});

describe('the default σ (defaultKernelScale)', () => {
  it('picks a narrower kernel than σ₀ where the labels change over short distances, and σ₀ where they change once', () => {
    const fine = defaultKernelScale(generated(300, 2, stripes, 'fine'));
    expect(fine.ratio).toBeGreaterThanOrEqual(8);
    expect(fine.sigma).toBeCloseTo(fine.sigma0 * fine.ratio, 12);
    const smooth = defaultKernelScale(generated(300, 2, halfSpace, 'smooth'));
    expect(smooth.ratio).toBeLessThanOrEqual(2);
    expect(smooth.sigma0).toBe(kernelScale0(generated(300, 2, halfSpace, 'smooth')));
  });

  it('reads only the labeled rows: unlabeled rows change σ₀ at most, not what the labels say', () => {
    const all = generated(400, 2, stripes, 'partly');
    const part = generated(400, 2, stripes, 'partly', 150);
    expect(defaultKernelScale(part).ratio).toBeGreaterThanOrEqual(8);
    expect(defaultKernelScale(part).sigma0).toBe(defaultKernelScale(all).sigma0);
  });

  it('keeps σ₀ when the labels cannot choose: one label value, or fewer than 2 labeled rows', () => {
    const one = generated(50, 2, () => 1, 'one');
    expect(defaultKernelScale(one)).toEqual({ sigma: kernelScale0(one), sigma0: kernelScale0(one), ratio: 1 });
    const single = generated(50, 2, stripes, 'single', 1);
    expect(defaultKernelScale(single).ratio).toBe(1);
    expect(alignedSigma(new Float64Array(2), [1], 1, 2, 0.5)).toMatchObject({ sigma: 0.5, exponent: 0 });
  });

  it('leaves σ₀ only for a rung whose alignment beats σ₀\'s by more than the minimum gain', () => {
    const ds = generated(150, 2, wideStripes, 'partly');
    const s0 = kernelScale0(ds);
    const free = alignedSigma(ds.X, ds.y, ds.n, ds.d, s0, { exponents: [0, 1, 2, 3] });
    const gain = free.scores[free.scores.length - 1] / free.scores[0] - 1;
    expect(free.exponent).toBe(3);
    expect(gain).toBeGreaterThan(0);
    // σ₀'s alignment is above the identity kernel's here, so σ₀'s is the bar.
    expect(free.scores[0]).toBeGreaterThan(1 / Math.sqrt(ds.n - 1));
    expect(alignedSigma(ds.X, ds.y, ds.n, ds.d, s0, { exponents: [0, 1, 2, 3], minGain: gain * 0.99 }).exponent).toBe(3);
    expect(alignedSigma(ds.X, ds.y, ds.n, ds.d, s0, { exponents: [0, 1, 2, 3], minGain: gain * 1.01 })).toMatchObject({ exponent: 0, sigma: s0 });
  });

  it('keeps σ₀ when no rung aligns better than the identity kernel (labels the features do not predict): the narrowest rung would win by approaching it', () => {
    const rng = seedrandom('noise');
    const ds = generated(200, 3, () => (rng() < 0.5 ? 1 : 0), 'noise');
    const free = alignedSigma(ds.X, ds.y, ds.n, ds.d, kernelScale0(ds), { exponents: DEFAULT_SIGMA_EXPONENTS });
    expect(free.exponent).toBe(6);
    expect(Math.max(...free.scores)).toBeLessThan(1.1 / Math.sqrt(ds.n - 1));
    expect(defaultKernelScale(ds).ratio).toBe(1);
  });

  it('never overrides a σ that was given, for every learner with one', () => {
    const ds = generated(80, 2, stripes, 'given');
    for (const spec of LEARNERS.filter((l) => 'sigma' in l.params)) {
      const given = { ...resolveParams(spec, {}), sigma: 0.125 };
      expect(withDataDefaults(spec, given, ds).sigma, spec.name).toBe(0.125);
      expect(dataDefaults(spec, given, ds).sigma, spec.name).toBeUndefined();
    }
  });

  it('is what train uses and records: σ/σ₀ in the header, the same on 1 and 2 threads; no record when σ is given', async () => {
    const ds = generated(300, 2, stripes, 'train', 120);
    const chosen = defaultKernelScale(ds);
    const runs = await Promise.all([1, 2].map((threads) => train({ learner: 'dsg', data: ds, T: 20, seed: 3, threads })));
    for (const m of runs) {
      // train scales to [0, 1] first: these rows already span about [0, 1], so σ₀ is close, the rung the same.
      expect(m.header.training.defaultSigma?.ratio).toBe(chosen.ratio);
      expect(m.header.hyperparameters.sigma).toBe(m.header.training.defaultSigma!.sigma0 * chosen.ratio);
    }
    expect(Buffer.from(runs[0].toBytes())).toEqual(Buffer.from(runs[1].toBytes()));
    const given = await train({ learner: 'dsg', data: ds, T: 20, seed: 3, threads: 1, sigma: 2 });
    expect(given.header.hyperparameters.sigma).toBe(2);
    expect(given.header.training.defaultSigma).toBeUndefined();
  });

  it('the ordinal learners take their fixed rung σ₀/4 and λ = 10⁻³, whatever the labels align with; the binary ones keep alignment and λ = 0.01', async () => {
    const { train: tr } = splitDataset(await readDataset('data/diabetes.arrow'), { labeled: 100, test: 0.2, seed: 1 });
    // Scaled as train scales by default: over the clip quantile's range.
    const scaled = MinMaxScaler.fit(tr, undefined, { clipQuantile: DEFAULT_CLIP_QUANTILE }).transform(tr);
    const sigma0 = kernelScale0(scaled);
    for (const learner of ['qs3orao', 'sorao'] as const) {
      const m = await train({ learner, data: tr, T: 5, threads: 1 });
      expect(m.header.training.defaultSigma, learner).toEqual({ sigma0, ratio: 0.25 });
      expect(m.header.hyperparameters.sigma, learner).toBe(sigma0 * 0.25);
      expect(m.header.hyperparameters.lambda, learner).toBe(1e-3);
      expect(defaultSigma(tr, 'rbf', learnerSpec(learner)), learner).toBe(sigma0 * 0.25);
    }
    expect(resolveParams(learnerSpec('qsg-s2auc'), {}).lambda).toBe(0.01);
    expect(defaultSigma(tr)).toBe(defaultKernelScale(scaled).sigma);
  });

  it('moves σ the same way when continued (--init) and when sampled on read: the bytes of a run at once, in memory', async () => {
    const ds = generated(600, 2, stripes, 'paths', 150);
    const atOnce = await train({ learner: 'dsg', data: ds, T: 24, seed: 2, threads: 1 });
    expect(atOnce.header.training.defaultSigma!.ratio).toBeGreaterThan(1);
    const first = await train({ learner: 'dsg', data: ds, T: 12, seed: 2, threads: 1 });
    const continued = await train({ init: first, data: ds, T: 24, threads: 2 });
    expect(Buffer.from(continued.toBytes()).equals(Buffer.from(atOnce.toBytes()))).toBe(true);
    const dir = await mkdtemp(join(tmpdir(), 'dsgkit-sigma-'));
    try {
      const file = join(dir, 'stripes.arrow');
      await writeArrow(file, ds);
      const inMemory = await train({ learner: 'dsg', data: file, T: 24, seed: 2, threads: 1, sampleOnRead: false });
      const sampled = await train({ learner: 'dsg', data: file, T: 24, seed: 2, threads: 1, sampleOnRead: true });
      expect(inMemory.header.training.defaultSigma!.ratio).toBeGreaterThan(1);
      expect(Buffer.from(sampled.toBytes()).equals(Buffer.from(inMemory.toBytes()))).toBe(true);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
