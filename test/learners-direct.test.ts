/**
 * Direct tests of the pieces every learner leans on: the supervised DSG
 * baseline against a known solution, the threshold solver against brute force,
 * and the step-size schedules.
 */
import seedrandom from 'seedrandom';
import { describe, expect, it } from 'vitest';
import { train } from '../src/api.ts';
import { makeDataset } from '../src/data/index.ts';
import { checkStepSize, defaultStepSize, inverseStepWarning, stepAt } from '../src/coordinator/step-size.ts';
import { kernelMatrix } from '../src/features/kernel-spec.ts';
import { evaluateExpansion } from '../src/features/kernel-expansion.ts';
import { LuDecomposition, Matrix } from 'ml-matrix';
import { fitThreshold, priorThreshold } from '../src/model/thresholds.ts';
import { cutShare, fitTask } from '../src/model/task.ts';
import { ALL_MARGIN_LOSSES, marginLoss, marginLossDerivative } from '../src/learners/margin-losses.ts';

/** Two well-separated clusters in [0, 1]², labels ±1. */
function separable(n: number, seed: string) {
  const rng = seedrandom.alea(seed);
  const X = new Float64Array(2 * n);
  const y = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const pos = i % 2 === 0;
    X[2 * i] = (pos ? 0.75 : 0.25) + 0.1 * (rng() - 0.5);
    X[2 * i + 1] = (pos ? 0.7 : 0.3) + 0.1 * (rng() - 0.5);
    y[i] = pos ? 1 : -1;
  }
  // Corners, each on its class's side, pin the min-max scaler to [0, 1] so scaled = raw.
  X.set([1, 1, 0, 0], 2 * n - 4); // row n − 2 is positive, row n − 1 negative
  return makeDataset({ X, d: 2, y });
}

describe('supervised DSG', () => {
  it('with the square loss converges to the known kernel ridge solution c = (K + (nλ/2) I)⁻¹ y', async () => {
    const ds = separable(60, 'krr');
    const lambda = 0.05;
    const sigma = 2;
    // Objective mean_i (y_i − f(x_i))² + (λ/2)‖f‖² (square margin loss, y = ±1): f* = Σ c_i k(x_i, ·).
    const K = kernelMatrix({ kind: 'rbf', sigma }, ds.X, ds.n, ds.X, ds.n, 2);
    const M = new Matrix(ds.n, ds.n);
    for (let i = 0; i < ds.n; i++) for (let j = 0; j < ds.n; j++) M.set(i, j, K[i * ds.n + j] + (i === j ? (ds.n * lambda) / 2 : 0));
    const c = Float64Array.from(new LuDecomposition(M).solve(Matrix.columnVector(Array.from(ds.y))).getColumn(0));
    const fStar = evaluateExpansion({ kernel: { kind: 'rbf', sigma }, d: 2, centers: ds.X, c }, ds.X, ds.n);
    const errors: number[] = [];
    for (const T of [100, 800]) {
      const model = await train({ learner: 'dsg', data: ds, loss: 'square', lambda, sigma, T, m: 64, batchSize: 32, threads: 1, seed: 4, clipQuantile: 0 });
      const f = await model.decisionFunction(ds);
      let err = 0;
      let scale = 0;
      for (let i = 0; i < ds.n; i++) {
        err += (f[i] - fStar[i]) ** 2;
        scale += fStar[i] ** 2;
      }
      errors.push(err / scale);
    }
    expect(errors[1]).toBeLessThan(0.02);
    expect(errors[1]).toBeLessThan(errors[0]);
  }, 60_000);

  it('with the hinge loss separates separable data exactly (accuracy 1)', async () => {
    const ds = separable(80, 'hinge');
    const model = await train({ learner: 'dsg', data: ds, loss: 'hinge', T: 200, threads: 1 });
    const m = await model.evaluate(ds);
    expect(m.accuracy).toBe(1);
  });

  it('margin losses and their derivatives agree (finite differences)', () => {
    const shape = { tau: 0.5, epsilon: 0.2 };
    for (const loss of ALL_MARGIN_LOSSES) {
      for (const z of [-3, -0.4, 0.3, 0.7, 0.9, 1.1, 1.7, 40, -40]) {
        const h = 1e-6;
        const numeric = (marginLoss(loss, z + h, shape) - marginLoss(loss, z - h, shape)) / (2 * h);
        expect(marginLossDerivative(loss, z, shape), `${loss} at ${z}`).toBeCloseTo(numeric, 5);
      }
    }
  });
});

describe('fitThreshold', () => {
  const objective = (f: Float64Array, high: Uint8Array, b: number) => {
    let s = 0;
    for (let i = 0; i < f.length; i++) s += high[i] ? Math.max(0, b - f[i]) ** 2 : Math.max(0, f[i] - b) ** 2;
    return s;
  };

  it('equals a brute-force minimiser on random scores, ties and separated groups included', () => {
    const rng = seedrandom.alea('thresholds');
    for (let trial = 0; trial < 200; trial++) {
      const n = 2 + Math.floor(rng() * 40);
      const ties = trial % 3 === 0;
      const f = Float64Array.from({ length: n }, () => (ties ? Math.round(rng() * 4) : rng() * 4 - 2));
      const high = Uint8Array.from({ length: n }, () => (rng() < 0.5 ? 1 : 0));
      const b = fitThreshold(f, high);
      // Brute force: a fine grid over the scores' range and every score itself.
      let best = Infinity;
      const lo = Math.min(...f) - 1;
      const hi = Math.max(...f) + 1;
      for (let k = 0; k <= 4000; k++) best = Math.min(best, objective(f, high, lo + ((hi - lo) * k) / 4000));
      for (const v of f) best = Math.min(best, objective(f, high, v));
      expect(objective(f, high, b)).toBeLessThanOrEqual(best + 1e-9);
    }
  });

  it('returns the middle of the zero-loss interval when the groups are separated', () => {
    expect(fitThreshold(new Float64Array([0, 1, 2, 3]), new Uint8Array([0, 0, 1, 1]))).toBe(1.5);
    expect(() => fitThreshold(new Float64Array(0), new Uint8Array(0))).toThrow(/no labeled rows/);
  });
});

describe('priorThreshold (class-mass normalisation)', () => {
  it('puts exactly round(share · n) distinct scores above the cut, for every share', () => {
    const rng = seedrandom.alea('prior');
    for (let trial = 0; trial < 100; trial++) {
      const n = 1 + Math.floor(rng() * 60);
      const f = Float64Array.from({ length: n }, () => rng() * 10 - 5);
      const share = trial % 10 === 0 ? (trial % 20 === 0 ? 0 : 1) : rng();
      const b = priorThreshold(f, share);
      expect(f.filter((v) => v > b).length).toBe(Math.round(share * n));
    }
  });

  it('fitTask with the prior rule matches the labeled class shares on the unlabeled scores (binary and ordinal)', () => {
    const fU = Float64Array.from({ length: 100 }, (_, i) => i);
    const binary = fitTask({ kind: 'binary', positive: 1, negative: -1 }, new Float64Array([5, 6, 7, 8]), [1, -1, -1, -1], 'prior', fU);
    expect(binary.kind === 'binary' && fU.filter((v) => v > binary.threshold).length).toBe(25);
    const ordinal = fitTask({ kind: 'ordinal', classes: [1, 2, 3] }, new Float64Array(5), [1, 1, 2, 3, 3], 'prior', fU);
    expect(ordinal.kind === 'ordinal' && ordinal.thresholds.map((b) => fU.filter((v) => v > b).length)).toEqual([60, 40]);
    expect(() => priorThreshold(new Float64Array(0), 0.5)).toThrow(/no scores/);
  });

  it('with a minority share s < 1 labels the minority class on s times its labeled share, whichever class it is; refuses it elsewhere', () => {
    const fU = Float64Array.from({ length: 100 }, (_, i) => i);
    const above = (y: number[], s: number) => {
      const t = fitTask({ kind: 'binary', positive: 1, negative: -1 }, new Float64Array(y.length), y, 'prior', fU, s);
      return t.kind === 'binary' ? fU.filter((v) => v > t.threshold).length : NaN;
    };
    // Positives the minority (20%): 20, 10, 0 rows above the cut.
    const rare = [1, -1, -1, -1, -1];
    expect([1, 0.5, 0].map((s) => above(rare, s))).toEqual([20, 10, 0]);
    // Negatives the minority (20%): the negatives' share shrinks, so 80, 90, 100 rows are labeled positive.
    const common = [1, 1, 1, 1, -1];
    expect([1, 0.5, 0].map((s) => above(common, s))).toEqual([80, 90, 100]);
    expect(cutShare(0.12, 0.5)).toBe(0.06);
    expect(cutShare(0.5, 0)).toBe(0);
    expect(() => cutShare(0.5, 1.5)).toThrow(/minorityShare must be in \[0, 1\]/);
    expect(() => fitTask({ kind: 'binary', positive: 1, negative: -1 }, new Float64Array([1, 2]), [1, -1], 'fit', undefined, 0.5)).toThrow(/class-share cut of a binary learner only/);
    expect(() => fitTask({ kind: 'ordinal', classes: [1, 2, 3] }, new Float64Array(3), [1, 2, 3], 'prior', fU, 0.5)).toThrow(/binary learner only/);
  });
});

describe('step sizes', () => {
  it('give θ/t, a constant, and η0/(1 + η1 t)', () => {
    expect(stepAt({ kind: 'inverse', theta: 12 }, 4)).toBe(3);
    expect(stepAt({ kind: 'constant', eta: 0.2 }, 1000)).toBe(0.2);
    expect(stepAt({ kind: 'decay', eta0: 1, eta1: 0.5 }, 2)).toBe(0.5);
  });

  it('default: first step at most 0.5, asymptotically θ/t with θλ = 1.5', () => {
    const s = defaultStepSize(0.01, 1.5);
    expect(stepAt(s, 0)).toBe(0.5);
    const t = 1e7;
    expect(stepAt(s, t) * t * 0.01).toBeCloseTo(1.5, 3);
    // A large λ: θ = 1.5/λ < 0.5 already, so the schedule starts at θ.
    expect(stepAt(defaultStepSize(8, 1.5), 0)).toBeCloseTo(1.5 / 8, 12);
  });

  it('warn when θλ leaves (1, 2), never for constant steps, and refuse non-positive numbers', () => {
    expect(inverseStepWarning({ kind: 'inverse', theta: 1 }, 0.5)).toMatch(/θλ = 0\.5 is outside \(1, 2\)/);
    expect(inverseStepWarning({ kind: 'inverse', theta: 150 }, 0.01)).toBeUndefined();
    expect(inverseStepWarning({ kind: 'inverse', theta: 200 }, 0.01)).toBeUndefined(); // θλ = 2, an integer
    expect(inverseStepWarning({ kind: 'constant', eta: 5 }, 1)).toBeUndefined();
    expect(() => checkStepSize({ kind: 'constant', eta: 0 })).toThrow(/eta must be a positive finite number/);
    expect(() => checkStepSize({ kind: 'decay', eta0: 1, eta1: -1 })).toThrow(/eta1/);
  });
});
