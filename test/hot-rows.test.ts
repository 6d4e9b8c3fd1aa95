/**
 * A loop evaluating its history keeps f at the rows it draws again and again
 * (engine/hot-rows.ts): the values at a batch mixing those rows (repeated)
 * with others are the bits the history gives, at the engine — through
 * renormalisation and dropped blocks, on 1 and 2 threads, rows of a large
 * file included — and the rows chosen are those whose cache costs less.
 */
import { afterAll, describe, expect, it } from 'vitest';
import seedrandom from 'seedrandom';
import { learnerSpec, Model, resolveParams } from '../src/api.ts';
import { trainModel as train } from '../src/train/train.ts';
import { readDataset } from '../src/data/index.ts';
import { MinMaxScaler } from '../src/data/scaler.ts';
import { Evaluator } from '../src/engine/evaluator.ts';
import { History } from '../src/engine/history.ts';
import { HotRows, hotRowsOf } from '../src/engine/hot-rows.ts';
import { historyBlockCost } from '../src/engine/random-features.ts';
import { EvaluatorPool } from '../src/engine/pool.ts';
import type { RandomFeatures } from '../src/engine/random-features.ts';
import { taskClasses } from '../src/model/task.ts';

const bits = (a: Float64Array) => Buffer.from(a.buffer, a.byteOffset, a.byteLength);

describe('HotRows', () => {
  const rf: RandomFeatures = { kernel: { kind: 'rbf', sigma: 1.5 }, seed: 5, d: 6, m: 10 };
  const pools: EvaluatorPool[] = [];
  afterAll(async () => {
    await Promise.all(pools.map((p) => p.close()));
  });

  it('gives the bits of evaluating the history at every point, hot or not, through renormalisation and dropped blocks, on 1 and 2 threads', async () => {
    // One item (block) at one point is 140 of work here (m·(d + 8)): with a threshold of 2,000 the call over the 4 cold
    // points (560·t) stays on the calling thread until t = 4, the 9 hot rows (1,260 a block) then brought up to date
    // after the append, and is split from then on, the hot rows' blocks riding along (Evaluator.rowsRider).
    const rng = seedrandom('hot');
    // Dataset rows far apart, as the labeled rows of a large file are (the cache then finds them by search).
    const hot = Int32Array.from({ length: 9 }, (_, i) => 1_000_003 * i + 17);
    const features = new Map<number, Float64Array>();
    const rowX = (r: number) => {
      let x = features.get(r);
      if (!x) features.set(r, (x = Float64Array.from({ length: rf.d }, () => rng())));
      return x;
    };
    for (const [threads, parallelMinWork] of [[1, 0], [2, 0], [2, 2000]]) {
      const pool = threads > 1 ? new EvaluatorPool(threads - 1) : undefined;
      if (pool) pools.push(pool);
      const history = new History({ m: rf.m, capacity: 50 });
      const ev = new Evaluator(history, rf, { threads, parallelMinWork, chunkSize: 4, ...(pool ? { pool } : {}) });
      const cache = new HotRows({ d: rf.d, rows: hot, copyRow: (i, out, at) => out.set(rowX(i), at * rf.d) });
      for (let t = 1; t <= 50; t++) {
        // 12 points: hot rows (some twice) and cold rows, interleaved.
        const rows = Int32Array.from({ length: 12 }, (_, p) => (p % 3 === 2 ? 5_000_000 + 12 * t + p : hot[Math.floor(rng() * hot.length)]));
        const X = new Float64Array(rows.length * rf.d);
        rows.forEach((r, p) => X.set(rowX(r), p * rf.d));
        const batch = { X, nPoints: rows.length, rows };
        // As the loop does: f at a batch from the call that appended the last block, where it could append during the call.
        if (t % 5 === 0 || !history.shrinkIsLazy(1 - 0.7 / (t + 1))) {
          const f = await cache.evaluate(ev, batch, new Float64Array(rows.length));
          expect(bits(f).equals(bits(await ev.evaluate(X, rows.length))), `t = ${t}, ${threads} thread(s)`).toBe(true);
        }
        const alpha = Float64Array.from({ length: 2 * rf.m }, () => rng() - 0.5);
        const factor = t === 33 ? 0 : t === 15 || t === 16 ? 1e-60 : 1 - 0.7 / (t + 2);
        if (history.shrinkIsLazy(factor)) {
          const next = await cache.evaluateAppending(ev, batch, new Float64Array(rows.length), () => {
            history.shrink(factor);
            history.append(alpha);
          });
          expect(bits(next).equals(bits(await ev.evaluate(X, rows.length))), `appending at t = ${t}, ${threads} thread(s)`).toBe(true);
        } else {
          history.shrink(factor);
          history.append(alpha);
        }
      }
      expect(history.renormalisations).toBeGreaterThan(0);
      expect(history.firstLive).toBe(32);
      if (threads > 1) expect(ev.parallelCalls).toBeGreaterThan(0);
      await ev.close();
    }
  });

  it('caches the sources whose rows cost less kept than evaluated at their draws', () => {
    const of = (size: number, draws: number) => ({ size, draws, indices: () => Int32Array.from({ length: size }, (_, i) => 10 * size + i) });
    // 100 rows, 64 draws an iteration, T = 1,000: 1e5 point-blocks kept against 3.2e7 evaluated.
    expect([...hotRowsOf([of(3, 64), of(6_000_000, 64)], 0, 1000)]).toEqual([30, 31, 32]);
    // Cached: size · T < draws · T(T − 1)/4. At T = 10, 64 draws: size < 144.
    expect(hotRowsOf([of(143, 64)], 0, 10).length).toBe(143);
    expect(hotRowsOf([of(144, 64)], 0, 10).length).toBe(0);
    // A continued run evaluates only iterations from + 1 … T at the draws, and the cache is rebuilt from block 0.
    expect(hotRowsOf([of(100, 64)], 9, 10).length).toBe(0);
    // Where a history point-block costs less than a cached one (sorf blocks sharing a group's transform), fewer rows pay:
    // grants' 6,352 unlabeled rows, 64 draws, T = 400 are cached at the flat price and not at sorf's at d = 1,497.
    expect(hotRowsOf([of(6352, 64)], 0, 400).length).toBe(6352);
    const perBlock = historyBlockCost({ kernel: { kind: 'rbf', sigma: 1 }, seed: 1, d: 1497, m: 64, family: 'sorf' });
    expect(perBlock).toBeLessThan(0.2);
    expect(hotRowsOf([of(6352, 64)], 0, 400, perBlock).length).toBe(0);
    expect(hotRowsOf([of(200, 64)], 0, 400, perBlock).length).toBe(200);
  });

  it('a QSG-S2AUC run evaluating its history keeps f at its labeled rows: fewer point-blocks, the same model as keeping f at every row', async () => {
    const raw = await readDataset('data/breast_cancer.arrow');
    const y = Float64Array.from(raw.y, (v, i) => (i % 5 === 0 ? v : NaN));
    const ds = { ...raw, y, labeled: Uint8Array.from(y, (v) => (Number.isNaN(v) ? 0 : 1)) };
    const spec = learnerSpec('qsg-s2auc');
    if (spec.kind !== 'loop') throw new Error('qsg-s2auc is a loop learner');
    const learner = spec.create(MinMaxScaler.fit(ds).transform(ds), taskClasses(spec.task, ds), resolveParams(spec, { batchSize: 16 }), { kind: 'constant', eta: 0.1 });
    expect(learner.sampledRows!.sources!.map((s) => s.draws)).toEqual([16, 16, 16]);
    const opts = { learner: 'qsg-s2auc', data: ds, T: 60, batchSize: 16, m: 16, threads: 1 };
    let pointBlocks = 0;
    const history = await train({ ...opts, evaluation: 'history', onProfile: (r: { pointBlocks: number }) => (pointBlocks = r.pointBlocks) });
    const rows = await train({ ...opts, evaluation: 'rows' });
    // Unlabeled draws over the history (16 · Σ (t − 1)), the labeled rows' cache (114 rows a block), new blocks (48 a block).
    expect(pointBlocks).toBe(16 * ((60 * 59) / 2) + 114 * 59 + 48 * 60);
    expect([history.header.training.evaluation, rows.header.training.evaluation]).toEqual(['history', 'rows']);
    // The model bytes differ only in the header's note of the strategy.
    const unnoted = (m: Model) => {
      const { evaluation: _, ...training } = m.header.training;
      return Buffer.from(new Model({ ...m.header, training }, m.predictor).toBytes());
    };
    expect(unnoted(history).equals(unnoted(rows))).toBe(true);
  });
});
