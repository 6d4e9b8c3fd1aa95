import { mkdtemp, rm } from 'node:fs/promises';
import { PassThrough } from 'node:stream';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { LEARNERS, withDataDefaults } from '../src/api.ts';
import { encodeArrow, MinMaxScaler, readDataset, splitDataset, writeArrow } from '../src/data/index.ts';
import { FIXED_BUDGET, GROWING_BUDGET, loopBudget, type LoopBudget } from '../src/learners/budget.ts';
import { loopLearner } from '../src/learners/loop-fit.ts';
import type { LoopLearnerSpec } from '../src/learners/spec.ts';
import { qsgS2aucSpec } from '../src/learners/qsg-s2auc.ts';
import { taskClasses } from '../src/model/task.ts';
import { resolveParams } from '../src/train/params.ts';
import { trainModel as train } from '../src/train/train.ts';
import { runCli, writeBreastCancerSplit } from './support/cli.ts';

const dir = await mkdtemp(join(tmpdir(), 'dsgkit-budget-'));
afterAll(() => rm(dir, { recursive: true, force: true }));

const loopLearners = LEARNERS.filter((s): s is LoopLearnerSpec => s.kind === 'loop');
/** A rule that grows: T0 at 50 labeled rows, doubling with 4× the rows, at most 1,600. */
const GROWING: LoopBudget = { T0: 400, labeled0: 50, power: 0.5, max: 1600, round: 100 };
const breastCancer = await readDataset('data/breast_cancer.arrow');
// Fast runs: few features a block, small batches; T is what the tests look at.
const small = { m: 4, batchSize: 4, seed: 3, threads: 1 };

describe('the loop learners’ budget rule', () => {
  it('gives T0 at or below labeled0 rows and when n_l is unknown, grows as (n_l/labeled0)^power, rounded, up to max', () => {
    expect(loopBudget(10, GROWING).T).toBe(400);
    expect(loopBudget(50, GROWING).T).toBe(400);
    expect(loopBudget(200, GROWING).T).toBe(800);
    expect(loopBudget(450, GROWING).T).toBe(1200);
    expect(loopBudget(100, GROWING).T).toBe(600); // 565.7 rounded to a multiple of 100
    expect(loopBudget(1_000_000, GROWING).T).toBe(1600);
    expect(loopBudget(undefined, GROWING)).toEqual({ T: 400, why: 'T = 400 (the labeled rows are not known before a stream is read)' });
    expect(loopBudget(800, GROWING).why).toBe('T = 1,600 from n_l = 800 labeled rows');
  });

  it('is declared by every loop learner, and gives T = 400 on the papers’ 200 labeled rows (the benchmark’s T)', () => {
    expect(loopLearners.map((s) => s.name)).toEqual(expect.arrayContaining(['qsg-s2auc', 'dsg', 'tsgs3vm', 'qs3orao', 'sorao']));
    for (const spec of loopLearners) {
      expect(spec.budget, spec.name).toBeDefined();
      expect(loopBudget(200, spec.budget).T, spec.name).toBe(400);
      expect(loopBudget(undefined, spec.budget).T, spec.name).toBe(400);
      expect(spec.params.T.default, spec.name).toBeUndefined();
    }
    // QSG-S2AUC and DSG: 400·√(n_l/200), rounded to 100, up to 1,600; the others 400 whatever n_l.
    const Ts = (rule: LoopBudget) => [100, 200, 300, 500, 1000, 2000, 3200, 100_000].map((n) => loopBudget(n, rule).T);
    expect(Ts(GROWING_BUDGET)).toEqual([400, 400, 500, 600, 900, 1300, 1600, 1600]);
    expect(Ts(FIXED_BUDGET)).toEqual([400, 400, 400, 400, 400, 400, 400, 400]);
    expect(Object.fromEntries(loopLearners.map((s) => [s.name, s.budget]))).toEqual({ 'qsg-s2auc': GROWING_BUDGET, dsg: GROWING_BUDGET, tsgs3vm: FIXED_BUDGET, qs3orao: FIXED_BUDGET, sorao: FIXED_BUDGET });
    expect(loopBudget(1000, FIXED_BUDGET).why).toBe("T = 400 at n_l = 1,000 labeled rows (this learner's budget does not grow with n_l)");
  });

  it('fills T where a given T stands in the parameters (tune’s candidates: withDataDefaults)', () => {
    const scaled = MinMaxScaler.fit(breastCancer).transform(splitDataset(breastCancer, { labeled: 100, seed: 1 }).train);
    const given = resolveParams(qsgS2aucSpec, {});
    expect(given.T).toBeUndefined();
    const filled = withDataDefaults(qsgS2aucSpec, given, scaled);
    expect(filled.T).toBe(400);
    expect(Object.keys(filled)).toEqual(Object.keys(withDataDefaults(qsgS2aucSpec, resolveParams(qsgS2aucSpec, { T: 400 }), scaled)));
  });

  it('is what a fit without T runs, on the rows it is given (a spec.fit caller that did not fill T)', async () => {
    const growing = loopLearner({ ...qsgS2aucSpec, budget: GROWING });
    const scaled = MinMaxScaler.fit(breastCancer).transform(splitDataset(breastCancer, { labeled: 200, seed: 1 }).train);
    const params = withDataDefaults(qsgS2aucSpec, { ...resolveParams(qsgS2aucSpec, { ...small, T: 1 }) }, scaled);
    const { T: _T, ...noT } = params;
    const classes = taskClasses('binary', scaled);
    const fitted = await growing.fit({ rows: scaled, classes, params: noT as unknown as Parameters<typeof growing.fit>[0]['params'], engine: { threads: 1 } });
    expect(fitted.state!.history.t).toBe(800); // 400·√(200/50)
  });
});

describe('train without T', () => {
  // 300 of the 455 training rows labeled: T = 400·√1.5 ≈ 490 → 500.
  const { train: tr } = splitDataset(breastCancer, { labeled: 300, test: 0.2, seed: 2 });

  it('records the derived T in the header; a given T wins and keeps the header of a run given that T', async () => {
    for (const [learner, T, why] of [
      ['qsg-s2auc', 500, 'T = 500 from n_l = 300 labeled rows'],
      ['tsgs3vm', 400, "T = 400 at n_l = 300 labeled rows (this learner's budget does not grow with n_l)"],
    ] as const) {
      const derived = await train({ learner, data: tr, ...small });
      expect(derived.header.hyperparameters.T, learner).toBe(T);
      expect(derived.header.training.budget, learner).toBe(why);
      const given = await train({ learner, data: tr, ...small, T });
      expect(given.header.training.budget, learner).toBeUndefined();
      // The same model: the header differs by the budget record alone.
      const { budget: _b, ...record } = derived.header.training;
      expect(JSON.stringify({ ...derived.header, training: record })).toBe(JSON.stringify(given.header));
      expect(Array.from(await derived.decisionFunction(tr, { threads: 1 }))).toEqual(Array.from(await given.decisionFunction(tr, { threads: 1 })));
      const explicit = await train({ learner, data: tr, ...small, T: 30 });
      expect(explicit.header.hyperparameters.T).toBe(30);
      expect(explicit.header.training.budget).toBeUndefined();
    }
  });
});

describe('train without T, on a file', () => {
  it('sample on read derives T from the labeled rows its first pass counts: the bytes of the run in memory', async () => {
    const file = join(dir, 'bc-300.arrow');
    await writeArrow(file, splitDataset(breastCancer, { labeled: 300, test: 0.2, seed: 2 }).train);
    for (const learner of ['dsg', 'qsg-s2auc']) {
      const inMemory = await train({ learner, data: file, ...small, sampleOnRead: false });
      const sampled = await train({ learner, data: file, ...small, sampleOnRead: true });
      expect(sampled.header.training.budget, learner).toBe('T = 500 from n_l = 300 labeled rows');
      expect(Buffer.from(sampled.toBytes()).equals(Buffer.from(inMemory.toBytes())), learner).toBe(true);
    }
  });

  it('a stream, whose reservoir is sized by T before a row is read, keeps T = 400 and says why', async () => {
    const stream = new PassThrough();
    stream.end(encodeArrow(splitDataset(breastCancer, { labeled: 300, test: 0.2, seed: 2 }).train, 'stream'));
    const model = await train({ learner: 'dsg', data: stream, ...small });
    expect(model.header.hyperparameters.T).toBe(400);
    expect(model.header.training.budget).toBe('T = 400 (the labeled rows are not known before a stream is read)');
  });

  it('a run continued from a derived T keeps the bytes of the run to the new T at once', async () => {
    const { trainFile } = await writeBreastCancerSplit(dir);
    const first = await train({ learner: 'qsg-s2auc', data: trainFile, ...small });
    expect(first.header.hyperparameters.T).toBe(400);
    const continued = await train({ init: first, data: trainFile, T: 450, threads: 1 });
    const atOnce = await train({ learner: 'qsg-s2auc', data: trainFile, ...small, T: 450 });
    expect(Buffer.from(continued.toBytes()).equals(Buffer.from(atOnce.toBytes()))).toBe(true);
  });
});

describe('dsgkit train', () => {
  it('says in its summary how T was derived, and --iterations overrides it', async () => {
    const { trainFile } = await writeBreastCancerSplit(dir);
    const out = join(dir, 'm.dsg');
    const derived = await runCli(['train', '--learner', 'dsg', '--data', trainFile, '--out', out, '--random-features', '4', '--batch-size', '4', '--threads', '1', '--quiet']);
    expect(derived.code, derived.err).toBe(0);
    expect(derived.out).toMatch(/iterations\s+400 \(T = 400 from n_l = 100 labeled rows, the learner's budget rule; --iterations sets it\)/);
    const described = await runCli(['describe', out]);
    expect(described.out).toContain('budget:      T = 400 from n_l = 100 labeled rows');
    const given = await runCli(['train', '--learner', 'dsg', '--data', trainFile, '--out', out, '--random-features', '4', '--batch-size', '4', '--threads', '1', '--quiet', '--iterations', '20']);
    expect(given.code, given.err).toBe(0);
    expect(given.out).toMatch(/iterations\s+20\n/);
    expect((await runCli(['describe', out])).out).not.toContain('budget:');
  });

  it('says in its summary that GKM\'s C came from the labeled rows (4·n_l), and --c overrides it', async () => {
    const { trainFile } = await writeBreastCancerSplit(dir);
    const out = join(dir, 'g.dsg');
    const derived = await runCli(['train', '--learner', 'gkm', '--data', trainFile, '--out', out, '--iterations', '50', '--threads', '1', '--quiet']);
    expect(derived.code, derived.err).toBe(0);
    expect(derived.out).toMatch(/\nC\s+400 \(4·n_l from the labeled rows n_l .*; --c sets it\)/);
    const given = await runCli(['train', '--learner', 'gkm', '--data', trainFile, '--out', out, '--iterations', '50', '--threads', '1', '--quiet', '--c', '64']);
    expect(given.code, given.err).toBe(0);
    expect(given.out).not.toMatch(/\nC\s/);
  });
});
