/**
 * `tune`: k-fold CV over the labeled rows with successive halving that
 * continues survivors instead of restarting them. What a user relies on:
 * the same result for any thread count; folds that keep every row (a fold's
 * labels hidden) and a pooled out-of-fold score; a survivor's fold scores at T are
 * exactly those of a full-grid run (continuing = running at once); the saved
 * model is the winner refit on all rows; the cost is what the schedule says;
 * the CLI prints a table / JSON, and Ctrl-C writes nothing.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { train } from '../src/api.ts';
import { labeledFolds, readDataset, repeatedLabeledFolds, splitDataset, writeArrow, type Dataset } from '../src/data/index.ts';
import { auc } from '../src/metrics/index.ts';
import { continuationCost, halvingPlan } from '../src/coordinator/successive-halving.ts';
import { poolTasksCompleted } from '../src/engine/pool.ts';
import { CancelledError, UsageError } from '../src/errors.ts';
import { learnerSpec } from '../src/learners/registry.ts';
import { Model } from '../src/model/model.ts';
import { budgetCut, gridCandidates, parseGrid, tuneModel, type TuneArgs, type TuneResult } from '../src/tune.ts';
import { fitsOnThreads, fitThreadTasksCompleted, FITS_PER_THREAD } from '../src/tune-threads.ts';
import { chooseMinorityShare } from '../src/coordinator/tune-rules.ts';
import { runCli } from './support/cli.ts';
import { rareWeakSplit } from './support/rare-class.ts';

/** tune with its warnings kept off the test log (the few-labeled warning fires on the 22 positives of most runs here); a test that reads them passes its own. */
const tune = (opts: TuneArgs): Promise<TuneResult> => tuneModel({ onWarning: () => {}, ...opts });

const dir = mkdtempSync(join(tmpdir(), 'dsgkit-tune-'));
const loopLearner = 'dsg';
const SMALL = { T: 30, m: 8, batchSize: 8, seed: 2, folds: 3, grid: { lambda: [0.01, 0.1] } } as const;

let data: Dataset | undefined;
async function trainSet(): Promise<Dataset> {
  data ??= splitDataset(await readDataset('data/breast_cancer.arrow'), { labeled: 60, seed: 4 }).train;
  return data;
}

/** The model's bytes without the CV table (what train writes). */
function withoutTune(model: Model): Buffer {
  const { tune: _t, ...training } = model.header.training;
  return Buffer.from(new Model({ ...model.header, training }, model.predictor).toBytes());
}

let oneThread: TuneResult | undefined;
async function tunedOnOneThread(): Promise<TuneResult> {
  oneThread ??= await tune({ learner: loopLearner, data: await trainSet(), ...SMALL, threads: 1 });
  return oneThread;
}

describe('tune: safe selection', () => {
  it("includes the learner's supervised special case, runs its defaults to T, and never picks worse than them in CV", async () => {
    // TSGS3VM: C* = 0 is its supervised case; its default C* = C/10 = 30 is not among C* = 0, 1, so the defaults are a row of their own.
    const r = await tune({ learner: 'tsgs3vm', data: await trainSet(), T: 20, m: 8, batchSize: 8, seed: 3, folds: 3, sigma: 0.5, grid: { C: [1, 300], Cstar: [0, 1] }, threads: 1 });
    expect(r.table).toHaveLength(5);
    expect(r.table.some((row) => row.params.Cstar === 0)).toBe(true);
    const defaults = r.table[r.defaultsId];
    expect(r.defaultsId).toBe(4);
    expect(defaults.params.Cstar).toBeUndefined();
    expect(defaults.params.C).toBe(300); // TSGS3VM's default C
    expect(defaults.t).toBe(20);
    const winner = r.table.find((row) => row.status === 'best')!;
    expect(winner.score).toBeGreaterThanOrEqual(defaults.score);
    expect(r.usesUnlabeled).toBe(winner.params.Cstar !== 0);
    expect(r.model.header.training.tune!.usesUnlabeled).toBe(r.usesUnlabeled);
    const ref = r.rounds.filter((round) => round.reference);
    expect(ref.length).toBeLessThanOrEqual(1);
    if (ref.length === 1) expect(ref[0].candidates).toEqual([r.defaultsId]);
  }, 120_000);

  it('judges the unlabeled rows unused exactly when the pick is the supervised special case, a parameter at an omitted default (γ_G = 0) included', async () => {
    const run = { learner: 'qsg-s2auc', data: await trainSet(), T: 20, m: 8, batchSize: 8, seed: 3, folds: 3, sigma: 0.5, lambda: 0.01, threads: 1, fullGrid: true } as const;
    const supervised = await tune({ ...run, gamma: 1 });
    expect(supervised.best.graphWeight).toBeUndefined();
    expect(supervised.usesUnlabeled).toBe(false);
    expect((await tune({ ...run, gamma: 0.5 })).usesUnlabeled).toBe(true);
    expect((await tune({ ...run, gamma: 1, graphWeight: 3 })).usesUnlabeled).toBe(true);
  }, 120_000);

  it('takes a grid value equal to a default written as no key (γ_G = 0) for the defaults: no row of their own', async () => {
    const r = await tune({ learner: 'qsg-s2auc', data: await trainSet(), T: 20, m: 8, batchSize: 8, seed: 3, folds: 3, sigma: 0.5, lambda: 0.01, gamma: 0.9, grid: { graphWeight: [0, 3] }, fullGrid: true, threads: 1 });
    expect(r.table).toHaveLength(2);
    expect(r.table[r.defaultsId].params.graphWeight).toBe(0);
  }, 120_000);

  it('scores defaults that are a grid point in effect as that point: no row and no round of their own', async () => {
    // TSGS3VM's C* unset is C/10: with its default C = 300 the defaults are the grid point C* = 30.
    const s3vm = await tune({ learner: 'tsgs3vm', data: await trainSet(), T: 20, m: 8, batchSize: 8, seed: 3, folds: 3, sigma: 0.5, grid: { C: [1, 300], Cstar: [0, 30] }, threads: 1, fullGrid: true });
    expect(s3vm.table).toHaveLength(4);
    expect(s3vm.table[s3vm.defaultsId].params).toEqual({ C: 300, Cstar: 30 });
    expect(s3vm.rounds.some((round) => round.reference)).toBe(false);
    // GKM's C unset is 4·n_l (600 on 150 labeled rows) and its C′ 1 at p = 1: the defaults are the grid point { C: 600, C′: 1 }; 4 settings × 3 folds, no more.
    const data = splitDataset(await readDataset('data/breast_cancer.arrow'), { labeled: 150, seed: 4 }).train;
    const gkm = await tune({ learner: 'gkm', data, folds: 3, seed: 2, threads: 1, T: 60, sigma: 0.4, grid: { C: [150, 600], Cprime: [0, 1] }, fullGrid: true });
    expect(gkm.table).toHaveLength(4);
    expect(gkm.table[gkm.defaultsId].params).toEqual({ C: 600, Cprime: 1 });
    expect(gkm.rounds.map((round) => round.candidates.length * 3)).toEqual([12]);
    // LapSVM (p = 2): its default C′ = 0.99/8 is the grid point 0.12375 when the grid holds it.
    const lap = await tune({ learner: 'lapsvm', data, folds: 3, seed: 2, threads: 1, T: 60, sigma: 0.4, grid: { C: [600], Cprime: [0, 0.99 / 8] }, fullGrid: true });
    expect(lap.table).toHaveLength(2);
    expect(lap.table[lap.defaultsId].params).toEqual({ C: 600, Cprime: 0.99 / 8 });
  }, 120_000);

  it('reports the pick\'s CV gain over the defaults with its standard error; guard one-se returns the defaults unless the gain exceeds it', async () => {
    const run = { learner: 'tsgs3vm', data: await trainSet(), T: 20, m: 8, batchSize: 8, seed: 3, folds: 3, grid: { C: [1, 10, 100], Cstar: [0, 1] }, threads: 1 } as const;
    const plain = await tune(run);
    const guarded = await tune({ ...run, guard: 'one-se' });
    expect(plain.guard).toBe('cv');
    expect(guarded.guard).toBe('one-se');
    // The same search either way; the gain is the pick's score minus the defaults', its se from the fold-by-fold differences.
    expect(guarded.overDefaults).toEqual(plain.overDefaults);
    const pick = plain.table.find((row) => row.status === 'best')!;
    const d = plain.table[plain.defaultsId];
    expect(plain.overDefaults.gain).toBeCloseTo(pick.score - d.score, 12);
    const diffs = pick.folds.map((v, j) => v - d.folds[j]);
    const m = diffs.reduce((a, b) => a + b, 0) / diffs.length;
    const se = pick.id === d.id ? 0 : Math.sqrt(diffs.reduce((a, v) => a + (v - m) ** 2, 0) / (diffs.length - 1) / diffs.length);
    expect(plain.overDefaults.se).toBeCloseTo(se, 12);
    const chosen = guarded.table.find((row) => row.status === 'best')!.id;
    expect(chosen).toBe(plain.overDefaults.gain > plain.overDefaults.se ? pick.id : plain.defaultsId);
    expect(guarded.model.header.training.tune!.overDefaults).toEqual(plain.overDefaults);
    // Every row's fate reads as one: the halving's own pick, when the guard returns the defaults instead, is `kept`.
    for (const r of [plain, guarded]) for (const row of r.table) expect(row.status).toMatch(/^(best|kept|reference|dropped after round \d+)$/);
    if (chosen !== pick.id) expect(guarded.table[pick.id].status).toBe('kept');
    await expect(tune({ ...run, guard: 'nope' as never })).rejects.toThrow(/guard must be one of cv, one-se/);
  }, 120_000);

  it('warns when a class has fewer than 10 labeled rows a fold, naming the class and the rows a fold validates on; not with enough', async () => {
    // 22 labeled rows of class 1 among 60: 7 or 8 a fold over 3 folds (warned), 11 over 2 (not).
    const warned = async (folds: number, data: Dataset): Promise<string[]> => {
      const warnings: string[] = [];
      await tune({ learner: loopLearner, data, T: 10, m: 8, batchSize: 8, seed: 2, folds, lambda: 0.01, sigma: 0.5, fullGrid: true, threads: 1, onWarning: (w) => warnings.push(w) });
      return warnings.filter((w) => w.includes('labeled rows of class'));
    };
    const few = await warned(3, await trainSet());
    expect(few).toHaveLength(1);
    expect(few[0]).toMatch(/^only 22 labeled rows of class 1 \(7 or 8 in each of the 3 folds' validation rows\)/);
    expect(await warned(2, await trainSet())).toEqual([]);
    // 56 of class 1 among 150: enough for 3 folds, not for 6 (9 or 10 a fold).
    const more = splitDataset(await readDataset('data/breast_cancer.arrow'), { labeled: 150, seed: 4 }).train;
    expect(await warned(3, more)).toEqual([]);
    expect((await warned(6, more))[0]).toMatch(/^only 56 labeled rows of class 1 \(9 or 10 in each of the 6 folds'/);
  }, 120_000);
});

describe('tune: the class-share cut (GKM, LapSVM)', () => {
  const small = { folds: 3, seed: 2, threads: 1, T: 200, grid: { C: [16, 256], Cprime: [0, 1] }, onWarning: () => {} } as const;

  it('chooses the minority share by CV accuracy: on a rare, weakly ranked class it labels fewer rows that class and holds out better; train() with best gives the same bytes', async () => {
    const { train: rows, test } = rareWeakSplit();
    const r = await tune({ learner: 'gkm', data: rows, ...small });
    const choice = r.minorityShare!;
    expect(choice.shares).toEqual([1, 0.5, 0]);
    const at = (s: number) => choice.accuracies[choice.shares.indexOf(s)];
    expect(choice.chosen).toBeLessThan(1);
    expect(at(choice.chosen)).toBeGreaterThan(at(1));
    expect(r.best.minorityShare).toBe(choice.chosen);
    expect(r.model.header.hyperparameters.minorityShare).toBe(choice.chosen);
    expect(r.model.header.training.tune!.minorityShare).toEqual(choice);
    const direct = await train({ learner: 'gkm', data: rows, ...r.best, threads: 1 });
    expect(withoutTune(r.model).equals(Buffer.from(direct.toBytes()))).toBe(true);
    // The same fit with the labeled rows' class shares: the same f (AUC), a worse held-out accuracy.
    const asLabeled = await train({ learner: 'gkm', data: rows, ...r.best, minorityShare: 1, threads: 1 });
    expect(asLabeled.header.hyperparameters.minorityShare).toBeUndefined();
    const [tuned, labeledShares] = [await r.model.evaluate(test), await asLabeled.evaluate(test)];
    expect(tuned.kind === 'binary' && labeledShares.kind === 'binary' && tuned.auc === labeledShares.auc).toBe(true);
    expect(tuned.accuracy).toBeGreaterThan(labeledShares.accuracy);
  }, 120_000);

  it('takes a share other than the labeled rows\' only when its gain in rows right exceeds √(rows it labels otherwise), over all folds', () => {
    // 6 rows gained changing 50 (√50 ≈ 7.07): not enough; 20 changing 60: taken.
    expect(chooseMinorityShare([{ right: [250, 256, 270], changed: [0, 50, 60] }], 300).index).toBe(2);
    expect(chooseMinorityShare([{ right: [250, 256, 255], changed: [0, 50, 60] }], 300).index).toBe(0);
    // Exactly one standard deviation (7 rows changing 49) is not more than it; summed over two folds, 8 is.
    expect(chooseMinorityShare([{ right: [100, 107, 90], changed: [0, 49, 80] }], 200).index).toBe(0);
    const two = chooseMinorityShare([{ right: [100, 104, 90], changed: [0, 25, 80] }, { right: [100, 104, 90], changed: [0, 24, 80] }], 400);
    expect(two).toEqual({ index: 1, accuracies: [0.5, 0.52, 0.45] });
  });

  it('keeps the labeled shares where they label best (balanced, well ranked: no parameter written), and chooses nothing when the caller fixes the share', async () => {
    const r = await tune({ learner: 'lapsvm', data: await trainSet(), ...small });
    expect(r.minorityShare!.chosen).toBe(1);
    expect(r.minorityShare!.accuracies[0]).toBeGreaterThan(r.minorityShare!.accuracies[2]);
    expect('minorityShare' in r.best).toBe(false);
    expect('minorityShare' in r.model.header.hyperparameters).toBe(false);
    const fixed = await tune({ learner: 'gkm', data: rareWeakSplit().train, ...small, minorityShare: 0.5 });
    expect(fixed.minorityShare).toBeUndefined();
    expect(fixed.model.header.hyperparameters.minorityShare).toBe(0.5);
  }, 120_000);

  it('says what it chose under the table, in describe and in the report', async () => {
    const file = join(dir, 'rare.arrow');
    await writeArrow(file, rareWeakSplit().train);
    const out = join(dir, 'rare.dsg');
    const report = join(dir, 'rare-report');
    const r = await runCli(['tune', '--learner', 'gkm', '--data', file, '--out', out, '--iterations', '200', '--folds', '3', '--grid', 'C=16,256;Cprime=0,1', '--report', report, '--quiet']);
    expect(r.code, r.err).toBe(0);
    const cut = /^cut {9}(.*)$/m.exec(r.out)![1];
    expect(readFileSync(`${report}.html`, 'utf8')).toContain(`the one kept labels ${cut.replaceAll("'", '&#39;')}.`);
    expect(r.out).toMatch(/^cut {9}(every row the majority class|the minority class on 0\.5 × its labeled share): CV accuracy 0\.\d+ \(0\.\d+ with the labeled rows' class shares, /m);
    const d = await runCli(['describe', out]);
    expect(d.out).toMatch(/^cut {9}/m);
    expect(d.out).toMatch(/minorityShare\s+(0|0\.5)\n/);
  }, 60_000);
});

describe('tune (script API)', () => {
  it('gives the same table, winner and model bytes on 1 and 2 threads (the fit threads and the pool proven used)', async () => {
    const a = await tunedOnOneThread();
    const before = poolTasksCompleted();
    const fitsBefore = fitThreadTasksCompleted();
    const b = await tune({ learner: loopLearner, data: await trainSet(), ...SMALL, threads: 2, parallelMinWork: 0 });
    // The first rounds' many fits ran whole on the fit threads, the last rounds' few split their calls over the pool.
    expect(fitThreadTasksCompleted()).toBeGreaterThan(fitsBefore);
    expect(poolTasksCompleted()).toBeGreaterThan(before);
    expect(b.table).toEqual(a.table);
    expect(b.best).toEqual(a.best);
    expect(Buffer.from(b.model.toBytes()).equals(Buffer.from(a.model.toBytes()))).toBe(true);
  }, 60_000);

  it('runs a round whole fits on the threads when it has at least two a thread, else splits each fit\'s calls', () => {
    expect(FITS_PER_THREAD).toBe(2);
    expect(fitsOnThreads(216, 2)).toBe(true);
    expect(fitsOnThreads(4, 2)).toBe(true);
    expect(fitsOnThreads(3, 2)).toBe(false); // the last round's three folds at T
    expect(fitsOnThreads(216, 1)).toBe(false); // one thread: nothing to run beside
  });

  it('runs the defaults\' reference beside the last round on the fit threads: the same rounds, table and model bytes as on one thread', async () => {
    // λ = 0.01 (the default) is not on this grid: the defaults run a reference round from scratch.
    const run = { learner: loopLearner, data: await trainSet(), ...SMALL, grid: { lambda: [0.1, 1] } } as const;
    const one = await tune({ ...run, threads: 1 });
    const before = fitThreadTasksCompleted();
    const two = await tune({ ...run, threads: 2 });
    expect(one.rounds.at(-1)!.reference).toBe(true);
    expect(two.rounds).toEqual(one.rounds);
    expect(two.table).toEqual(one.table);
    expect(Buffer.from(two.model.toBytes()).equals(Buffer.from(one.model.toBytes()))).toBe(true);
    // Every fit of every round ran on the threads: the last round's with the reference's, as one round.
    const fits = one.rounds.reduce((sum, r) => sum + r.candidates.length * 3, 0);
    expect(fitThreadTasksCompleted() - before).toBe(fits);
  }, 60_000);

  it('cancelled while its first round runs on the fit threads: rejects with CancelledError, and a later tune runs as before', async () => {
    const controller = new AbortController();
    const run = tune({ learner: loopLearner, data: await trainSet(), ...SMALL, threads: 2, signal: controller.signal, onProgress: (p) => { if (p.done > 0) controller.abort(); } });
    await expect(run).rejects.toBeInstanceOf(CancelledError);
    const again = await tune({ learner: loopLearner, data: await trainSet(), ...SMALL, threads: 2 });
    expect(Buffer.from(again.model.toBytes()).equals(Buffer.from((await tunedOnOneThread()).model.toBytes()))).toBe(true);
  }, 60_000);

  it('halves the field each round, continues survivors to T, and spends what the schedule says (less than a full grid)', async () => {
    const r0 = await tunedOnOneThread();
    // The halving's own rounds (the defaults' reference round, when one ran, is checked below).
    const r = { ...r0, rounds: r0.rounds.filter((round) => !round.reference) };
    const n = learnerSpec(loopLearner).searchSpace({ sigma0: 1, fixed: {} }).sigma!.length * 2 * 3; // σ × λ × loss
    expect(r.table).toHaveLength(n);
    expect(r.table.filter((row) => row.status === 'best')).toHaveLength(1);
    const best = r.table.find((row) => row.status === 'best')!;
    expect(best.t).toBe(SMALL.T);
    for (let i = 1; i < r.rounds.length; i++) {
      expect(r.rounds[i].from).toBe(r.rounds[i - 1].t);
      expect(r.rounds[i].candidates.length).toBeLessThan(r.rounds[i - 1].candidates.length);
      // survivors are the best of the previous round
      const prev = r.rounds[i - 1];
      const cut = Math.min(...r.rounds[i].candidates.map((c) => prev.scores[prev.candidates.indexOf(c)]));
      const droppedBest = Math.max(...prev.candidates.filter((c) => !r.rounds[i].candidates.includes(c)).map((c) => prev.scores[prev.candidates.indexOf(c)]));
      expect(cut).toBeGreaterThanOrEqual(droppedBest);
    }
    const spent = r.rounds.reduce((s, round) => s + round.candidates.length * SMALL.folds * continuationCost(round.from, round.t), 0);
    expect(r.cost.halving).toBe(spent);
    expect(r.cost.fullGrid).toBe(n * SMALL.folds * continuationCost(0, SMALL.T));
    expect(r.cost.fraction).toBeLessThan(0.5);
    expect(r.best).toMatchObject({ ...best.params, T: SMALL.T, m: SMALL.m });
  }, 60_000);

  it('a survivor continued round after round scores exactly what a full-grid run to T scores (no restarts, same bits)', async () => {
    const halving = await tunedOnOneThread();
    const full = await tune({ learner: loopLearner, data: await trainSet(), ...SMALL, threads: 1, t0: SMALL.T });
    expect(full.rounds).toHaveLength(1);
    for (const row of halving.table.filter((x) => x.t === SMALL.T)) expect(full.table[row.id].folds).toEqual(row.folds);
    // and candidates dropped early were scored at fewer iterations, so (some of) their scores differ from the full grid's
    const early = halving.table.filter((x) => x.t! < SMALL.T);
    expect(early.some((x) => JSON.stringify(full.table[x.id].folds) !== JSON.stringify(x.folds))).toBe(true);
  }, 60_000);

  it('scores a candidate transductively: each fold model trains on every row with its fold\'s labels hidden, ranked by the pooled out-of-fold AUC', async () => {
    const r = await tunedOnOneThread();
    const best = r.table.find((row) => row.status === 'best')!;
    const raw = await trainSet();
    const folds = labeledFolds(raw, { k: SMALL.folds, seed: SMALL.seed });
    const y: number[] = [];
    const f: number[] = [];
    for (const [j, fold] of folds.entries()) {
      expect(fold.train.n).toBe(raw.n);
      const model = await train({ learner: loopLearner, data: fold.train, ...r.best, threads: 1 });
      const fj = await model.decisionFunction(fold.validation, { threads: 1 });
      expect(auc(fold.validation.y, fj)).toBe(best.folds[j]);
      y.push(...fold.validation.y);
      f.push(...fj);
    }
    expect(best.score).toBe(auc(y, f));
  }, 60_000);

  it('with repeats, ranks by the mean over repeated fold draws of the pooled out-of-fold AUC, at repeats times the cost', async () => {
    const one = await tunedOnOneThread();
    const r = await tune({ learner: loopLearner, data: await trainSet(), ...SMALL, threads: 1, repeats: 2 });
    expect(r.repeats).toBe(2);
    expect(r.cost.halving).toBe(2 * one.cost.halving);
    expect(r.cost.fullGrid).toBe(2 * one.cost.fullGrid);
    const best = r.table.find((row) => row.status === 'best')!;
    expect(best.folds).toHaveLength(2 * SMALL.folds);
    const splits = repeatedLabeledFolds(await trainSet(), { k: SMALL.folds, seed: SMALL.seed, repeats: 2 });
    expect(splits[0].map((f) => Array.from(f.validationRows))).toEqual(labeledFolds(await trainSet(), { k: SMALL.folds, seed: SMALL.seed }).map((f) => Array.from(f.validationRows)));
    expect(splits[1].map((f) => Array.from(f.validationRows))).not.toEqual(splits[0].map((f) => Array.from(f.validationRows)));
    const pooled: number[] = [];
    for (const folds of splits) {
      const y: number[] = [];
      const f: number[] = [];
      for (const fold of folds) {
        const model = await train({ learner: loopLearner, data: fold.train, ...r.best, threads: 1 });
        y.push(...fold.validation.y);
        f.push(...(await model.decisionFunction(fold.validation, { threads: 1 })));
      }
      pooled.push(auc(y, f));
    }
    expect(best.score).toBe((pooled[0] + pooled[1]) / 2);
    await expect(tune({ learner: loopLearner, data: await trainSet(), ...SMALL, repeats: 0 })).rejects.toThrow(/repeats must be a whole number ≥ 1, got 0/);
  }, 60_000);

  it('saves the winner refit on all training rows: train() with the best settings gives the same bytes', async () => {
    const r = await tunedOnOneThread();
    const direct = await train({ learner: loopLearner, data: await trainSet(), ...r.best, threads: 1 });
    expect(withoutTune(r.model).equals(Buffer.from(direct.toBytes()))).toBe(true);
    expect(r.model.header.training.tune!.table).toHaveLength(r.table.length);
  }, 60_000);

  it('ranks by the ranking metric when asked (AUC for an accuracy learner) or when the learner says so (GKM), and refuses a metric the task has not', async () => {
    const small = { data: await trainSet(), folds: 3, seed: 2, threads: 1, T: 200, grid: { C: [1, 64], Cprime: [1] } } as const;
    const byAuc = await tune({ learner: 'gkm', ...small, metric: 'auc' });
    expect(byAuc.metric).toBe('AUC');
    // GKM's tuneMetric: AUC without being asked; its own metric when asked.
    const byDefault = await tune({ learner: 'gkm', ...small });
    expect(byDefault.metric).toBe('AUC');
    expect(byDefault.table.map((r) => r.score)).toEqual(byAuc.table.map((r) => r.score));
    // GKM's tuneGuard: the defaults unless the pick beats them by more than one standard error in CV.
    expect(byDefault.guard).toBe('one-se');
    const picked = byDefault.table.find((r) => r.status === 'best')!.id;
    if (byDefault.overDefaults.gain <= byDefault.overDefaults.se) expect(picked).toBe(byDefault.defaultsId);
    else expect(byDefault.table[picked].score - byDefault.table[byDefault.defaultsId].score).toBe(byDefault.overDefaults.gain);
    const byAccuracy = await tune({ learner: 'gkm', ...small, metric: 'accuracy' });
    expect(byAccuracy.metric).toBe('accuracy');
    expect(byAccuracy.table.map((r) => r.score)).not.toEqual(byAuc.table.map((r) => r.score));
    const raw = await trainSet();
    const folds = labeledFolds(raw, { k: 3, seed: 2 });
    const y: number[] = [];
    const f: number[] = [];
    for (const fold of folds) {
      const model = await train({ learner: 'gkm', data: fold.train, ...byAuc.best, threads: 1 });
      y.push(...fold.validation.y);
      f.push(...(await model.decisionFunction(fold.validation, { threads: 1 })));
    }
    expect(byAuc.table.find((row) => row.status === 'best')!.score).toBe(auc(y, f));
    await expect(tune({ learner: 'gkm', ...small, metric: 'mean-auc' })).rejects.toThrow(/metric must be accuracy or auc for gkm/);
  }, 60_000);

  it('GKM ranks by the grid neighbourhood by default: the winner has the best mean over its neighbours, not necessarily the best own score', async () => {
    // A full grid, so every setting's final score is in the table (halving ranks by each round's neighbourhoods).
    // Min–max scaling: on these rows the two rules then pick differently among the grid (below).
    const small = { data: await trainSet(), folds: 3, seed: 2, threads: 1, T: 200, grid: { sigma: [0.05, 0.2, 0.8], C: [1, 16, 256], Cprime: [1] }, metric: 'accuracy', fullGrid: true, guard: 'cv', clipQuantile: 0 } as const;
    const byRegion = await tune({ learner: 'gkm', ...small });
    const byOwn = await tune({ learner: 'gkm', ...small, select: 'best' });
    expect(byRegion.select).toBe('neighbourhood');
    expect(byOwn.select).toBe('best');
    // The same CV either way; only the rule that reads it differs.
    expect(byRegion.table.map((r) => r.score)).toEqual(byOwn.table.map((r) => r.score));
    // Each grid row's neighbourhood mean, recomputed from the table: the rows one grid step away in σ and C
    // (the defaults, σ₀ and C = 4·n_l, are not a grid point here: their row comes last, outside the grid).
    const grid = byRegion.table.slice(0, 9);
    expect(byRegion.defaultsId).toBe(9);
    const step = (values: readonly number[], a: number, b: number) => Math.abs(values.indexOf(a) - values.indexOf(b));
    const expected = grid.map((r) => {
      const near = grid.filter((q) => step(small.grid.sigma, r.params.sigma as number, q.params.sigma as number) <= 1 && step(small.grid.C, r.params.C as number, q.params.C as number) <= 1);
      return near.reduce((a, q) => a + q.score, 0) / near.length;
    });
    grid.forEach((r, i) => expect(r.neighbourhood).toBeCloseTo(expected[i], 12));
    const argmax = (v: number[]) => v.indexOf(Math.max(...v)); // first on ties, as tune breaks them
    // The rule's pick among the grid, unless the defaults score at least as well in CV (tune never returns worse).
    const guarded = (pick: number, r: TuneResult) => (r.table[r.defaultsId].score >= r.table[pick].score ? r.defaultsId : pick);
    expect(byRegion.table.find((r) => r.status === 'best')!.id).toBe(guarded(argmax(expected), byRegion));
    expect(byOwn.table.find((r) => r.status === 'best')!.id).toBe(guarded(argmax(grid.map((_, i) => byOwn.table[i].score)), byOwn));
    // On this data the two rules pick differently among the grid (a lone high score against a region), so the test tells them apart.
    expect(argmax(expected)).not.toBe(argmax(grid.map((_, i) => byOwn.table[i].score)));
    expect(byOwn.table[0].neighbourhood).toBeUndefined();
    expect((byRegion.model.header.training.tune as { select: string }).select).toBe('neighbourhood');
    await expect(tune({ learner: 'gkm', ...small, select: 'nope' as never })).rejects.toThrow(/select must be one of best, neighbourhood/);
  }, 60_000);

  it('GKM is halved over its budget with restarts: cheap early fits on the first folds, the last round the settings themselves on every fold, at a fraction of a full grid\'s fits', async () => {
    // 450 labeled rows in 3 folds of 150: the early rounds score on the first 2 folds (≥ the default schedule's earlyRows = 200 rows).
    const data = splitDataset(await readDataset('data/breast_cancer.arrow'), { labeled: 450, seed: 4 }).train;
    const small = { data, folds: 3, seed: 2, threads: 1, T: 200, grid: { sigma: [0.05, 0.2, 0.8], C: [1, 16, 256], Cprime: [1] }, metric: 'accuracy', select: 'best' } as const;
    const halved = await tune({ learner: 'gkm', ...small });
    const full = await tune({ learner: 'gkm', ...small, fullGrid: true });
    const rounds = halved.rounds.filter((r) => !r.reference);
    // 9 settings, η = 3: all 9 at 1/27 of the budget, the best 3 at 3/27, the best one in full (T = 27).
    expect(rounds.map((r) => [r.t, r.candidates.length])).toEqual([[1, 9], [3, 3], [27, 1]]);
    expect(halved.model.header.training.tune!.halving).toEqual({ eta: 3, t0: 1, T: 27, budget: true, cut: 3, earlyFolds: 2 });
    const winner = halved.table.find((r) => r.status === 'best')!;
    for (const row of halved.table) expect(row.folds).toHaveLength(row.t === 27 ? 3 : 2);
    // The winner's last round is its own setting at the full budget (T = 200) on every fold: the full grid's fold scores, bit for bit.
    if (winner.id < 9) expect(winner.folds).toEqual(full.table[winner.id].folds);
    // The defaults (σ₀, C = 4·n_l: not a grid point) are scored at their full budget on every fold, as in the full grid.
    expect(halved.table[halved.defaultsId].folds).toEqual(full.table[full.defaultsId].folds);
    expect(halved.table[halved.defaultsId].score).toBeLessThanOrEqual(halved.table[winner.id].score);
    // Fits weighted by the fraction of the budget they ran: 9·2/27 + 3·2·3/27 + 1·3 + the defaults' 3 = 7.33 full fits, against 10·3.
    const spent = halved.rounds.reduce((n, r) => n + (r.candidates.length * (r.t === 27 ? 3 : 2) * r.t) / 27, 0);
    expect(spent).toBeCloseTo(22 / 3, 12);
    expect(full.rounds.reduce((n, r) => n + r.candidates.length * 3, 0)).toBe(30);
  }, 60_000);

  it('a budget halving takes two or three settings to the full budget (GKM\'s 60 settings, 72, 81), one only when the grid is too large', () => {
    const rounds = (n: number) => halvingPlan(n, { t0: 1, eta: 3, T: 27, cut: budgetCut(n, 3) }).map((r) => [r.t, r.count]);
    expect(rounds(60)).toEqual([[1, 60], [3, 20], [9, 6], [27, 2]]);
    expect(rounds(72)).toEqual([[1, 72], [3, 24], [9, 8], [27, 2]]);
    expect(rounds(81)).toEqual([[1, 81], [3, 27], [9, 9], [27, 3]]);
    expect(budgetCut(100, 3)).toBe(4);
    expect(rounds(100)).toEqual([[1, 100], [3, 25], [9, 6], [27, 1]]);
  });

  it('FRS3VM (fold fits of a whole train each) is halved from 1/81 of its epochs on one fold, one setting in full: under 10 trains with the defaults and the refit', async () => {
    // Its 132 settings (11 σ × 3 C × 4 C*): 132 at 1/81, 22 at 1/27, 3 at 1/9 on the first fold; the survivor (and the defaults) at the full budget on every fold.
    const settings = gridCandidates(learnerSpec('frs3vm').searchSpace({ sigma0: 1, fixed: {} })).length;
    expect(settings).toBe(132);
    const plan = halvingPlan(settings, { t0: 1, eta: 3, T: 81, cut: budgetCut(settings, 3, 1) }).map((r) => [r.t, r.count]);
    expect(plan).toEqual([[1, 132], [3, 22], [9, 3], [81, 1]]);
    const trains = plan.reduce((n, [t, count]) => n + (count * (t === 81 ? 3 : 1) * t) / 81, 0) + 3 + 1; // + the defaults on 3 folds + the refit
    expect(trains).toBeLessThan(10);
    // As it runs: the rounds, the folds each scored on, and the header's record of the schedule.
    const data = splitDataset(await readDataset('data/breast_cancer.arrow'), { labeled: 90, seed: 4 }).train;
    const r = await tune({ learner: 'frs3vm', data, folds: 3, seed: 2, threads: 1, m: 8, blocks: 2, sigma: 0.5, grid: { C: [1, 10, 100], Cstar: [0, 0.1, 1] } });
    const rounds = r.rounds.filter((round) => !round.reference);
    expect(rounds.map((round) => [round.t, round.candidates.length])).toEqual([[1, 9], [3, 3], [81, 1]]);
    expect(r.model.header.training.tune!.halving).toEqual({ eta: 3, t0: 1, T: 81, budget: true, cut: 3, earlyFolds: 1 });
    for (const row of r.table) expect(row.folds).toHaveLength(row.t === 81 ? 3 : 1);
  }, 60_000);

  it('a loop learner\'s grid of more than 81 settings is cut by 4 (96 → 24 → 6 → 1), fewer settings by η', () => {
    expect(budgetCut(96, 3)).toBe(4);
    expect(halvingPlan(96, { t0: 10, eta: 3, T: 400, cut: budgetCut(96, 3) }).map((r) => [r.t, r.count])).toEqual([[10, 96], [30, 24], [90, 6], [400, 1]]);
    for (const n of [54, 72, 81]) expect(budgetCut(n, 3)).toBe(3);
  });

  it('searches σ over σ₀/16 … 64σ₀: factor-2 rungs for DSG, QSG-S2AUC and FRS3VM (2σ₀ among them), factor 4 for the others, each rung of one ladder on the other', () => {
    const ratios = (learner: Parameters<typeof learnerSpec>[0]) => (learnerSpec(learner).searchSpace({ sigma0: 0.5, fixed: {} }).sigma as number[]).map((s) => s / 0.5);
    for (const learner of ['dsg', 'qsg-s2auc', 'frs3vm'] as const) expect(ratios(learner)).toEqual([1 / 16, 1 / 8, 1 / 4, 1 / 2, 1, 2, 4, 8, 16, 32, 64]);
    for (const learner of ['tsgs3vm', 'gkm', 'lapsvm', 'qs3orao', 'sorao'] as const) expect(ratios(learner)).toEqual([1 / 16, 1 / 4, 1, 4, 16, 64]);
  });

  it('refuses a bad grid with a UsageError naming it', () => {
    const spec = learnerSpec(loopLearner);
    expect(() => parseGrid('lambda=0.1,-1', spec)).toThrow(/--grid lambda must be a number in \(0, ∞\), got '-1'/);
    expect(() => parseGrid('nope=1', spec)).toThrow(UsageError);
    expect(() => parseGrid('lambda', spec)).toThrow(/not name=value/);
    expect(parseGrid('sigma=0.5,1; loss=hinge', spec)).toEqual({ sigma: [0.5, 1], loss: ['hinge'] });
  });
});

describe('dsgkit tune (CLI)', () => {
  const run = (args: string[], onErr?: (all: string) => void) => runCli(args, onErr && ((_, all) => onErr(all)));

  it('--json prints best, table and cost; describe shows the CV table of the saved model', async () => {
    const file = join(dir, 'train.arrow');
    await writeArrow(file, await trainSet());
    const out = join(dir, 'best.dsg');
    const r = await run(['tune', '--learner', loopLearner, '--data', file, '--out', out, '--iterations', '30', '--random-features', '8', '--batch-size', '8', '--folds', '3', '--repeats', '2', '--grid', 'sigma=0.5,2;lambda=0.01;loss=hinge,square', '--json', '--quiet']);
    expect(r.code, r.err).toBe(0);
    const j = JSON.parse(r.out) as { best: Record<string, unknown>; table: Array<{ status: string; folds: number[] }>; cost: { fraction: number }; repeats: number };
    expect(j.table).toHaveLength(5); // the grid's 4, and the defaults (σ₀ is not a grid point here)
    expect(j.repeats).toBe(2);
    expect(j.table[0].folds).toHaveLength(6);
    expect(j.table.filter((x) => x.status === 'best')).toHaveLength(1);
    expect(existsSync(out)).toBe(true);
    const d = await run(['describe', out]);
    expect(d.code).toBe(0);
    expect(d.out).toMatch(/cross-validation \(3 folds over the labeled rows, drawn 2 times/);
    expect(d.out).toMatch(/2×3-fold mean ± sd/);
    expect(d.out).toMatch(/best \(refit\)/);
    expect(d.out).toMatch(new RegExp(`sigma\\s+${String(j.best.sigma)}`));
  }, 60_000);

  it('--select: GKM prints and saves the neighbourhood mean it ranked by; a bad rule is a usage error', async () => {
    const file = join(dir, 'train-gkm.arrow');
    await writeArrow(file, await trainSet());
    const out = join(dir, 'gkm.dsg');
    const r = await run(['tune', '--learner', 'gkm', '--data', file, '--out', out, '--iterations', '100', '--folds', '3', '--grid', 'sigma=0.1,0.4;C=1,16', '--quiet']);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toMatch(/neighbourhood mean/);
    expect(r.out).toMatch(/selection\s+neighbourhood/);
    const d = await run(['describe', out]);
    expect(d.out).toMatch(/ranked by the grid neighbourhood's mean/);
    expect(d.out).toMatch(/neighbourhood mean/);
    expect(d.out).toMatch(/AUC \(out of fold\)/); // GKM's tuneMetric
    // The hyperparameters' values start in one column, whatever the length of their names (labeledOrder, supportVectors).
    const block = d.out.split('hyperparameters:\n')[1].split('\n\n')[0].split('\n');
    expect(block.length).toBeGreaterThan(3);
    expect(new Set(block.map((line) => /^ {2}\S+ +/.exec(line)![0].length)).size).toBe(1);
    const own = await run(['tune', '--learner', 'gkm', '--data', file, '--out', join(dir, 'gkm-own.dsg'), '--iterations', '100', '--folds', '3', '--grid', 'sigma=0.1,0.4;C=1,16', '--select', 'best', '--quiet']);
    expect(own.code, own.err).toBe(0);
    expect(own.out).not.toMatch(/neighbourhood/);
    const bad = await run(['tune', '--learner', 'gkm', '--data', file, '--out', join(dir, 'never-gkm.dsg'), '--select', 'median']);
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(/select must be one of best, neighbourhood, got median/);
    expect(existsSync(join(dir, 'never-gkm.dsg'))).toBe(false);
  }, 60_000);

  it('Ctrl-C (SIGINT) stops cleanly: exit 130, nothing written', async () => {
    const file = join(dir, 'train-int.arrow');
    await writeArrow(file, await trainSet());
    const out = join(dir, 'never.dsg');
    const before = readdirSync(dir);
    let sent = false;
    const r = await run(['tune', '--learner', loopLearner, '--data', file, '--out', out, '--iterations', '60', '--random-features', '8', '--batch-size', '8', '--folds', '3'], (s) => {
      if (!sent && / 10% /.test(s)) {
        sent = true;
        process.emit('SIGINT');
      }
    });
    expect(sent).toBe(true);
    expect(r.code).toBe(130);
    expect(existsSync(out)).toBe(false);
    expect(readdirSync(dir)).toEqual(before);
  }, 60_000);
});
