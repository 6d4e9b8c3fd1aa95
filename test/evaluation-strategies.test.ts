/**
 * The two ways the loop gets f at a batch — evaluating the history, or keeping
 * f at every training row (row-cache.ts) — give the same bits: at the engine
 * (through renormalisation and dropped blocks, on 1 and 2 threads) and as
 * trained models of every loop learner, continued runs included; `auto`
 * chooses by predicted work and the model header says which ran.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import seedrandom from 'seedrandom';
import { LEARNERS, learnerSpec, load, Model, resolveParams } from '../src/api.ts';
// Learners chosen by name at run time: the untyped entry (the typed `train` checks literal options at compile time).
import { trainModel as train } from '../src/train/train.ts';
import { main } from '../src/cli/main.ts';
import { UsageError } from '../src/errors.ts';
import { evaluationWork, fastestEvaluation, resolveEvaluation } from '../src/coordinator/loop.ts';
import { historyBlockCost } from '../src/engine/random-features.ts';
import { finalPointCount } from '../src/coordinator/learner.ts';
import { readDataset, splitDataset, type Dataset } from '../src/data/index.ts';
import { MinMaxScaler } from '../src/data/scaler.ts';
import { Evaluator } from '../src/engine/evaluator.ts';
import { History } from '../src/engine/history.ts';
import { EvaluatorPool, poolTasksCompleted } from '../src/engine/pool.ts';
import type { RandomFeatures } from '../src/engine/random-features.ts';
import { RowCache } from '../src/engine/row-cache.ts';
import { auc } from '../src/metrics/index.ts';
import { taskClasses } from '../src/model/task.ts';

const bits = (a: Float64Array) => Buffer.from(a.buffer, a.byteOffset, a.byteLength);

describe('RowCache', () => {
  const rf: RandomFeatures = { kernel: { kind: 'rbf', sigma: 1.5 }, seed: 77, d: 5, m: 12 };
  const pools: EvaluatorPool[] = [];
  afterAll(async () => {
    await Promise.all(pools.map((p) => p.close()));
  });

  it('reads the bits evaluating the history gives, through renormalisation and dropped blocks, on 1 and 2 threads', async () => {
    const rng = seedrandom('rows');
    const nData = 41;
    const X = Float64Array.from({ length: nData * rf.d }, () => rng());
    // Every other row, and the last: the cache maps dataset rows to its slots.
    const rows = Int32Array.from({ length: 21 }, (_, i) => Math.min(2 * i, nData - 1));
    const Xrows = new Float64Array(rows.length * rf.d);
    rows.forEach((r, s) => Xrows.set(X.subarray(r * rf.d, (r + 1) * rf.d), s * rf.d));
    for (const threads of [1, 2]) {
      const pool = threads > 1 ? new EvaluatorPool(threads - 1) : undefined;
      if (pool) pools.push(pool);
      const history = new History({ m: rf.m, capacity: 60 });
      const opts = { threads, parallelMinWork: 0, chunkSize: 4, ...(pool ? { pool } : {}) };
      const ev = new Evaluator(history, rf, opts);
      const cache = new RowCache({ d: rf.d, rows, copyRow: (i, out, at) => out.set(X.subarray(i * rf.d, (i + 1) * rf.d), at * rf.d) });
      const f = new Float64Array(rows.length);
      const before = ev.workerRows;
      for (let t = 1; t <= 60; t++) {
        // Step 5 as the loop does it, with a scale forced below 1e-100 (renormalised) at t = 20 and 21 and every block dropped at t = 37.
        history.shrink(t === 37 ? 0 : t === 20 || t === 21 ? 1e-60 : 1 - 0.7 / (t + 2));
        history.append(Float64Array.from({ length: 2 * rf.m }, () => rng() - 0.5));
        await ev.updateRows(cache);
        cache.read(rows, rows.length, ev.rowFactor(), f);
        const expected = await ev.evaluate(Xrows, rows.length);
        expect(bits(f).equals(bits(expected)), `t = ${t}, ${threads} thread(s)`).toBe(true);
        if (t === 45) {
          // A fresh cache of a history that already has blocks (a continued run) reads the same bits.
          const fresh = new RowCache({ d: rf.d, rows, copyRow: (i, out, at) => out.set(X.subarray(i * rf.d, (i + 1) * rf.d), at * rf.d) });
          await ev.updateRows(fresh);
          expect(bits(fresh.read(rows, rows.length, ev.rowFactor(), new Float64Array(rows.length))).equals(bits(f))).toBe(true);
        }
      }
      expect(history.renormalisations).toBeGreaterThan(0);
      expect(history.firstLive).toBe(36);
      if (threads > 1) expect(ev.workerRows).toBeGreaterThan(before);
      await ev.close();
    }
  });

  it('readRows adds the blocks a lagging cache lacks, on the calling thread or from values computed ahead: the bits of evaluating the history, across chunk boundaries', async () => {
    const rng = seedrandom('lag');
    const nData = 30;
    const X = Float64Array.from({ length: nData * rf.d }, () => rng());
    const rows = Int32Array.from({ length: nData }, (_, i) => i);
    // A batch in any order, with a row twice.
    const batch = Int32Array.of(7, 3, 29, 3, 0, 18);
    const Xb = new Float64Array(batch.length * rf.d);
    batch.forEach((r, p) => Xb.set(X.subarray(r * rf.d, (r + 1) * rf.d), p * rf.d));
    const history = new History({ m: rf.m, capacity: 40 });
    const ev = new Evaluator(history, rf, { threads: 1, chunkSize: 4 });
    const cache = new RowCache({ d: rf.d, rows, copyRow: (i, out, at) => out.set(X.subarray(i * rf.d, (i + 1) * rf.d), at * rf.d) });
    for (let t = 1; t <= 40; t++) {
      history.shrink(1 - 0.7 / (t + 2));
      history.append(Float64Array.from({ length: 2 * rf.m }, () => rng() - 0.5));
      // The cache 0, 1 or 2 blocks behind; the newest block's values computed ahead on two iterations of three (on the
      // third, ahead at other points, which the read must ignore).
      if (t % 3 === 0) await ev.updateRows(cache);
      if (t % 3 !== 2) ev.newestAhead(Xb, batch.length);
      else ev.newestAhead(Xb.slice(), batch.length);
      const got = ev.readRows(cache, batch, Xb, batch.length, new Float64Array(batch.length));
      expect(bits(got).equals(bits(await ev.evaluate(Xb, batch.length))), `t = ${t}, cache at ${cache.blocks}`).toBe(true);
    }
    // Stored values rewritten under the cache (a renormalisation): refused until it is updated.
    history.shrink(1e-120);
    expect(() => ev.readRows(cache, batch, Xb, batch.length, new Float64Array(batch.length))).toThrow(/no longer matches the history/);
    await ev.updateRows(cache);
    expect(bits(ev.readRows(cache, batch, Xb, batch.length, new Float64Array(batch.length))).equals(bits(await ev.evaluate(Xb, batch.length)))).toBe(true);
    await ev.close();
  });

  it('refuses a batch row it does not hold', () => {
    const cache = new RowCache({ d: 2, rows: Int32Array.of(1, 4), copyRow: () => undefined });
    expect(() => cache.read(Int32Array.of(4, 2), 2, 1, new Float64Array(2))).toThrow(/row 2 of the batch is not one of the cached rows/);
  });
});

describe('evaluation strategies in training', () => {
  const loopLearners = LEARNERS.filter((l) => l.kind === 'loop');
  const DATA = { binary: { path: 'data/breast_cancer.arrow', labeled: 100 }, ordinal: { path: 'data/diabetes.arrow', labeled: 200 } } as const;
  const splits = new Map<string, { train: Dataset; test: Dataset }>();
  async function split(task: 'binary' | 'ordinal'): Promise<{ train: Dataset; test: Dataset }> {
    if (!splits.has(task)) {
      const s = splitDataset(await readDataset(DATA[task].path), { labeled: DATA[task].labeled, test: 0.2, seed: 1 });
      splits.set(task, { train: s.train, test: s.test! });
    }
    return splits.get(task)!;
  }
  const small = { T: 40, m: 16, batchSize: 16, seed: 5 };
  /** f at the held-out rows, and its AUC (top class against the rest; for an ordinal learner f itself is what the bits compare). */
  async function heldOut(model: Model, test: Dataset): Promise<{ f: Float64Array; auc: number }> {
    const f = await model.decisionFunction(test);
    const y = Float64Array.from({ length: test.n }, (_, i) => (test.labeled[i] ? test.y[i] : NaN));
    return { f, auc: auc(y, f, { positive: Math.max(...y.filter((v) => !Number.isNaN(v))) }) };
  }

  it.each(loopLearners.map((l) => [l.name]))('%s: history and rows give the same model (held-out f bit for bit, AUC to 1e-6), rows on 1 and 2 threads', async (name) => {
    const spec = learnerSpec(name);
    const { train: ds, test } = await split(spec.task);
    const params = Object.fromEntries(Object.entries(small).filter(([k]) => k in spec.params));
    const history = await train({ learner: name, data: ds, evaluation: 'history', threads: 1, ...params });
    const rows1 = await train({ learner: name, data: ds, evaluation: 'rows', threads: 1, ...params });
    const before = poolTasksCompleted();
    const rows2 = await train({ learner: name, data: ds, evaluation: 'rows', threads: 2, parallelMinWork: 0, ...params });
    expect(poolTasksCompleted()).toBeGreaterThan(before);
    // On 2 threads the history run evaluates batch t + 1 while the calling thread builds block t − 1.
    const history2 = await train({ learner: name, data: ds, evaluation: 'history', threads: 2, parallelMinWork: 0, ...params });
    expect(Buffer.from(history2.toBytes()).equals(Buffer.from(history.toBytes()))).toBe(true);
    expect(history.header.training.evaluation).toBe('history');
    expect(rows1.header.training.evaluation).toBe('rows');
    const [h, r1, r2] = await Promise.all([history, rows1, rows2].map((m) => heldOut(m, test)));
    expect(Math.abs(h.auc - r1.auc)).toBeLessThanOrEqual(1e-6);
    expect(bits(r1.f).equals(bits(h.f))).toBe(true);
    expect(bits(r2.f).equals(bits(r1.f))).toBe(true);
    // The model bytes differ only in the header's note of the strategy.
    const unnoted = (m: Model) => {
      const { evaluation, ...training } = m.header.training;
      expect(evaluation).toBeDefined();
      return Buffer.from(new Model({ ...m.header, training }, m.predictor).toBytes());
    };
    expect(unnoted(rows2).equals(unnoted(history))).toBe(true);
  });

  it('continues a rows run (its cache rebuilt from the saved blocks) to the model a history run to T gives', async () => {
    const { train: ds, test } = await split('binary');
    const name = 'tsgs3vm'; // a learner with a bias: the resume state carries it
    const step = { kind: 'constant', eta: 0.03 } as const; // its default step depends on T
    const half = await train({ learner: name, data: ds, evaluation: 'rows', threads: 2, parallelMinWork: 0, step, ...small, T: 23 });
    const continued = await train({ init: half, data: ds, evaluation: 'rows', threads: 2, parallelMinWork: 0, T: 40 });
    const once = await train({ learner: name, data: ds, evaluation: 'history', threads: 1, step, ...small });
    expect(bits((await heldOut(continued, test)).f).equals(bits((await heldOut(once, test)).f))).toBe(true);
  });

  it('auto picks the strategy with less predicted work and says so', async () => {
    const { train: raw } = await split('binary');
    const spec = learnerSpec('dsg');
    if (spec.kind !== 'loop') throw new Error('dsg is a loop learner');
    const ds = MinMaxScaler.fit(raw).transform(raw);
    const learner = spec.create(ds, taskClasses(spec.task, raw), resolveParams(spec, { batchSize: 16 }), { kind: 'constant', eta: 0.1 });
    const n = learner.sampledRows!.count; // dsg draws from the labeled rows
    expect(learner.sampledRows!.rows().length).toBe(n);
    expect(n).toBe(100);
    // History: B·T(T−1)/2; rows: n·T. With B = 16 and n = 100 they cross at T = 13.5.
    expect(evaluationWork(learner, 10)).toEqual({ history: (16 * 10 * 9) / 2, rows: 100 * 10 });
    expect(resolveEvaluation(learner, 10)).toBe('history');
    expect(resolveEvaluation(learner, 14)).toBe('rows');
    expect(resolveEvaluation(learner, 14, 'history')).toBe('history');
    // sorf blocks that share a transform cost the history less a point-block than the row cache, which
    // transforms a row once per block: with the same learner, T = 20 then goes to the history.
    const rf = { kernel: { kind: 'rbf', sigma: 1 }, seed: 1, d: ds.d, m: 4 } as const;
    const sorf = { ...rf, family: 'sorf' } as const;
    expect(historyBlockCost(rf)).toBe(1);
    expect(historyBlockCost({ ...rf, m: 16, family: 'orf' })).toBe(1);
    expect(historyBlockCost({ ...sorf, m: 32 })).toBe(1); // 2m > N = 32: no shared group
    const perBlock = historyBlockCost(sorf); // N = 32, g = 8 blocks a group
    expect(perBlock).toBeCloseTo(((32 * 5) / (16 * 4) / 8 + 1) / ((32 * 5) / (16 * 4) + 1), 12);
    expect(historyBlockCost({ ...sorf, d: 784, m: 64 })).toBeLessThan(0.2); // MNIST: 1.05 µs a point-block from the history, 5.81 in the row cache
    expect(evaluationWork(learner, 20, sorf).history).toBeCloseTo((perBlock * 16 * 20 * 19) / 2, 6);
    expect(resolveEvaluation(learner, 20, 'auto', rf)).toBe('rows');
    expect(resolveEvaluation(learner, 20, 'auto', sorf)).toBe('history');
    const short = await train({ learner: 'dsg', data: raw, threads: 1, ...small, T: 10 });
    const long = await train({ learner: 'dsg', data: raw, threads: 1, ...small, T: 20 });
    expect([short.header.training.evaluation, long.header.training.evaluation]).toEqual(['history', 'rows']);
  });

  it('a fit no header records (tune’s fold fits) takes the strategy with less work for its own iterations, hot rows and final bias counted', async () => {
    const { train: raw } = await split('binary');
    const ds = MinMaxScaler.fit(raw).transform(raw);
    const classes = taskClasses('binary', raw);
    const create = (name: string) => {
      const spec = learnerSpec(name);
      if (spec.kind !== 'loop') throw new Error(`${name} is a loop learner`);
      return spec.create(ds, classes, resolveParams(spec, { batchSize: 16 }), { kind: 'constant', eta: 0.1 });
    };
    // 455 training rows, 100 labeled (37 positive, 63 negative), B = 16 a source.
    const qsg = create('qsg-s2auc');
    expect(qsg.sampledRows!.count).toBe(455);
    expect(qsg.sampledRows!.sources!.map((s) => [s.size, s.draws])).toEqual([[37, 16], [63, 16], [355, 16]]);
    // Continuing from 10 to 30 (steps Σ(t − 1) = 390): the labeled sources' caches (37·30, 63·30) beat their draws at the
    // history (16·390 each), the unlabeled one's does not: 1,110 + 1,890 + 6,240 = 9,240 point-blocks against the row
    // cache's 455·30 = 13,650 — the history. auto, which a model's header keeps, prices the whole run at every batch
    // point: 48·30·29/2 = 20,880 — the rows.
    expect(fastestEvaluation(qsg, 10, 30)).toBe('history');
    expect(resolveEvaluation(qsg, 30)).toBe('rows');
    // TSGS3VM draws the same way (100 labeled, 355 unlabeled: 3,000 + 6,240 = 9,240), but its class balance then reads f
    // at 256 unlabeled rows over the 30 blocks: +7,680 evaluating the history, nothing from the row cache — the rows.
    const tsg = create('tsgs3vm');
    expect(tsg.sampledRows!.sources!.map((s) => [s.size, s.draws])).toEqual([[100, 16], [355, 16]]);
    expect(finalPointCount(tsg.bias!.final!, 30)).toBe(256);
    expect(fastestEvaluation(tsg, 10, 30)).toBe('rows');
    expect(fastestEvaluation(tsg, 0, 10)).toBe('history');
  });

  it('refuses an unknown strategy, and rows for a learner off the loop', async () => {
    const { train: ds } = await split('binary');
    await expect(train({ learner: 'dsg', data: ds, evaluation: 'cache' as never, T: 5 })).rejects.toThrow(UsageError);
    await expect(train({ learner: 'exact-s2auc', data: ds, evaluation: 'rows' })).rejects.toThrow(/evaluation applies to learners on the stochastic loop only/);
  });
});

describe('dsgkit train --evaluation', () => {
  async function run(argv: string[]): Promise<{ code: number; out: string; err: string }> {
    let out = '';
    let err = '';
    const code = await main(argv, { stdout: { write: (s: string) => (out += s) }, stderr: { write: (s: string) => (err += s) } });
    return { code, out, err };
  }

  it('says which strategy ran, in the summary and the model header', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dsgkit-evaluation-'));
    const out = join(dir, 'm.dsg');
    const tiny = ['--learner', 'dsg', '--data', 'data/breast_cancer.arrow', '--out', out, '--iterations', '20', '--batch-size', '16', '--random-features', '16', '--threads', '1', '--quiet'];
    const rows = await run(['train', ...tiny, '--evaluation', 'rows']);
    expect(rows.code).toBe(0);
    expect(rows.out).toMatch(/^evaluation {2}rows \(f kept at every training row\)$/m);
    expect((await load(out)).header.training.evaluation).toBe('rows');
    const auto = await run(['train', ...tiny.map((a) => (a === '20' ? '3' : a))]);
    expect(auto.out).toMatch(/^evaluation {2}history /m);
    const bad = await run(['train', ...tiny, '--evaluation', 'cached']);
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(/--evaluation/);
  });
});
