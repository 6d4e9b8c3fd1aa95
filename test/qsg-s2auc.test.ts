import { describe, expect, it } from 'vitest';
import { readDataset, splitDataset, MinMaxScaler } from '../src/data/index.ts';
import type { Dataset } from '../src/data/dataset.ts';
import { train } from '../src/api.ts';
import { runLoop } from '../src/coordinator/loop.ts';
import { EXACT_THREAD_ROWS, exactProblem, exactQsgS2auc, solveExactCancellable } from '../src/learners/exact.ts';
import { CancelledError } from '../src/errors.ts';
import { evaluateExpansion } from '../src/features/kernel-expansion.ts';
import { QsgS2auc } from '../src/learners/qsg-s2auc.ts';
import { aucWeights } from '../src/learners/auc-risk.ts';
import { auc } from '../src/metrics/auc.ts';
import { logLogSlope } from './support/log-log-slope.ts';

const breastCancer = await readDataset('data/breast_cancer.arrow');

describe('QSG-S2AUC weights', () => {
  it('equal the brute-force all-pairs gradient of the mini-batch risk', () => {
    const fP = new Float64Array([0.3, -0.2, 1.1]);
    const fN = new Float64Array([0.5, -0.7]);
    const fU = new Float64Array([0.1, 0.9, -0.4, 0.2]);
    const gamma = 0.3;
    const risk = (p: Float64Array, n: Float64Array, u: Float64Array) => {
      const l = (a: number, b: number) => (1 - a + b) ** 2;
      let pn = 0;
      let pu = 0;
      let un = 0;
      for (const a of p) for (const b of n) pn += l(a, b) / (p.length * n.length);
      for (const a of p) for (const b of u) pu += l(a, b) / (p.length * u.length);
      for (const a of u) for (const b of n) un += l(a, b) / (u.length * n.length);
      return gamma * pn + (1 - gamma) * (pu + un - 0.5);
    };
    const wP = new Float64Array(3);
    const wN = new Float64Array(2);
    const wU = new Float64Array(4);
    aucWeights(gamma, fP, fN, fU, wP, wN, wU);
    const h = 1e-6;
    for (const [f, w] of [
      [fP, wP],
      [fN, wN],
      [fU, wU],
    ] as const) {
      for (let i = 0; i < f.length; i++) {
        const keep = f[i];
        f[i] = keep + h;
        const up = risk(fP, fN, fU);
        f[i] = keep - h;
        const down = risk(fP, fN, fU);
        f[i] = keep;
        expect(w[i]).toBeCloseTo((up - down) / (2 * h), 6);
      }
    }
  });
});

describe('QSG-S2AUC against the exact O(n³) solution (breast cancer)', () => {
  const { train: tr, test } = splitDataset(breastCancer, { labeled: 100, test: 0.25, seed: 3 });
  const scaler = MinMaxScaler.fit(tr);
  const ds = scaler.transform(tr);
  const te = scaler.transform(test!);
  const params = { lambda: 0.5, gamma: 0.5, kernel: { kind: 'rbf', sigma: 1 } as const };
  const exact = exactQsgS2auc(ds, 1, params);
  const fStar = evaluateExpansion(exact, ds.X, ds.n);
  const aucStar = auc(te.y, evaluateExpansion(exact, te.X, te.n));

  it('solved in a thread of its own (n > EXACT_THREAD_ROWS), the same bits; an abort stops it with CancelledError', async () => {
    const problem = exactProblem(ds, 1, params);
    expect(problem.n).toBeGreaterThan(EXACT_THREAD_ROWS);
    const c = await solveExactCancellable(problem);
    expect(Buffer.from(c.buffer).equals(Buffer.from(exact.c.buffer, exact.c.byteOffset, exact.c.byteLength))).toBe(true);
    const controller = new AbortController();
    const pending = solveExactCancellable(problem, controller.signal);
    controller.abort();
    await expect(pending).rejects.toThrow(CancelledError);
    await expect(pending).rejects.toThrow(`training cancelled during the exact solve (${problem.n} rows), before the model was kept`);
  });

  it('mean |f_T - f*|² falls roughly like 1/T and the AUC of f_T approaches that of f*', async () => {
    const checkpoints = [25, 50, 100, 200, 400];
    const errors = checkpoints.map(() => 0);
    const seeds = [1, 2, 3, 4];
    const aucs: number[] = [];
    for (const seed of seeds) {
      const learner = new QsgS2auc(ds, 1, { lambda: params.lambda, gamma: params.gamma, batchSize: 32, step: { kind: 'inverse', theta: 1.5 / params.lambda } });
      await runLoop(learner, {
        features: { kernel: params.kernel, seed, d: ds.d, m: 32 },
        T: 400,
        engine: { threads: 1 },
        onIteration: async (t, _h, ev) => {
          const c = checkpoints.indexOf(t);
          if (c < 0) return;
          const f = await ev.evaluate(ds.X, ds.n);
          let e = 0;
          for (let i = 0; i < ds.n; i++) e += (f[i] - fStar[i]) ** 2;
          errors[c] += e / ds.n / seeds.length;
          if (t === 400) aucs.push(auc(te.y, await ev.evaluate(te.X, te.n)));
        },
      });
    }
    const slope = logLogSlope(checkpoints, errors);
    console.log(`|f_T - f*|² by T ${checkpoints.map((t, i) => `${t}:${errors[i].toExponential(2)}`).join(' ')}; fitted slope ${slope.toFixed(2)}; AUC f_T ${aucs.map((a) => a.toFixed(4)).join(' ')} vs f* ${aucStar.toFixed(4)}`);
    expect(slope).toBeLessThan(-0.6);
    expect(slope).toBeGreaterThan(-1.6);
    expect(errors[4]).toBeLessThan(errors[0] / 8);
    for (const a of aucs) expect(Math.abs(a - aucStar)).toBeLessThan(0.01);
  });
});

describe('QSG-S2AUC uses the unlabeled rows', () => {
  it('held-out AUC is at least that of supervised DSG on the same 200 labeled rows (mean of 3 seeds)', async () => {
    let qsg = 0;
    let dsg = 0;
    for (const seed of [1, 2, 3]) {
      const { train: tr, test } = splitDataset(breastCancer, { labeled: 200, test: 0.3, seed });
      const common = { data: tr, seed, threads: 1, T: 300, batchSize: 32, m: 48 };
      qsg += (await (await train({ learner: 'qsg-s2auc', ...common })).score(test as Dataset)) / 3;
      dsg += (await (await train({ learner: 'dsg', ...common })).score(test as Dataset)) / 3;
    }
    console.log(`held-out AUC, mean of 3 seeds: QSG-S2AUC ${qsg.toFixed(4)}, supervised DSG ${dsg.toFixed(4)}`);
    expect(qsg).toBeGreaterThanOrEqual(dsg);
    expect(qsg).toBeGreaterThan(0.95);
  });
});
