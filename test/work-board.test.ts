/**
 * The work board (work-board.ts) and the pool sessions built on it
 * (pool-session.ts): every unit of a call computed exactly once whoever takes
 * it, each worker of a parallel call computing at least its first unit, a
 * late thread unable to take a newer call's units, the same bits on 1, 2 and
 * 3 threads for both kinds of call (history chunks, cached rows), and a
 * worker that throws or dies rejecting the call instead of hanging.
 */
import { afterAll, describe, expect, it } from 'vitest';
import seedrandom from 'seedrandom';
import type { Piscina } from 'piscina';
import { ChunkRunner, type EvalTask } from '../src/engine/chunk-runner.ts';
import { Evaluator, rowGrain } from '../src/engine/evaluator.ts';
import { History } from '../src/engine/history.ts';
import { EvaluatorPool } from '../src/engine/pool.ts';
import type { RandomFeatures } from '../src/engine/random-features.ts';
import { shrunkHistory } from './support/history.ts';
import { RowCache } from '../src/engine/row-cache.ts';
import { splitTask, WorkBoard } from '../src/engine/work-board.ts';

const rf: RandomFeatures = { kernel: { kind: 'rbf', sigma: 2 }, seed: 99, d: 7, m: 20 };
const bits = (a: Float64Array) => Buffer.from(a.buffer, a.byteOffset, a.byteLength);

const randomHistory = (t: number, seed: string, capacity = t): History => shrunkHistory(rf.m, t, seed, capacity);

const points = (n: number, seed: string) => {
  const rng = seedrandom(seed);
  return Float64Array.from({ length: n * rf.d }, () => rng());
};

describe('WorkBoard', () => {
  it('computes every unit exactly once: a thread finishes its own run, then takes what the others left; in a strict call each worker computes its first unit', () => {
    const board = WorkBoard.create(3);
    // 10 rows in units of 3 → 4 units in 3 runs: [0, 2), [2, 3), [3, 4).
    const call = board.publish(1, [], [0, 10], 3, 3, true);
    expect(call.units).toBe(4);
    const seen: Array<[number, number, number]> = [];
    const by = (k: number) => () => (from: number, to: number) => void seen.push([k, from, to]);
    // The calling thread runs first and alone: its own run; runs 1 and 2 hold one unit each, their workers' own.
    expect(board.work(call, 0, by(0)).done).toBe(6);
    expect(board.finished(call.units)).toBe(false);
    // Each worker, when it comes, computes its first unit and finds nothing else.
    expect(board.work(call, 1, by(1)).done).toBe(3);
    expect(board.finished(call.units)).toBe(false);
    expect(board.work(call, 2, by(2)).done).toBe(1);
    expect(board.finished(call.units)).toBe(true);
    expect(seen).toEqual([[0, 0, 3], [0, 3, 6], [1, 6, 9], [2, 9, 10]]);
    expect(board.totals(1).done).toBe(3);
  });

  it('in a call that is not strict the calling thread, out of work, takes the first units no worker has started — never one a worker claimed', () => {
    const board = WorkBoard.create(3);
    // 9 units in runs [0, 3), [3, 6), [6, 9).
    const call = board.publish(1, [], [0, 9], 1, 3);
    const seen: number[][] = [[], [], []];
    const by = (k: number) => () => (from: number) => {
      seen[k].push(from);
      // Worker 1 starts while the calling thread computes its first unit.
      if (k === 0 && from === 0) board.work(call, 1, () => (f: number) => void seen[1].push(f));
    };
    board.work(call, 0, by(0));
    expect(board.finished(call.units)).toBe(true);
    // Worker 1 took its first unit (3) and, while the calling thread was busy, every other unit it could reach but 0.
    expect(seen[1]).toEqual([3, 4, 5, 7, 8, 1, 2]);
    // The calling thread did unit 0 and worker 2's first unit, which worker 2 never came to claim.
    expect(seen[0]).toEqual([0, 6]);
    expect(board.work(call, 2, () => () => void seen[2].push(-1)).done).toBe(0);
  });

  it('a thread holding an older call cannot take units of a newer one; a thread the split does not name only takes what is left', () => {
    const board = WorkBoard.create(4);
    const old = board.publish(1, [], [0, 8], 1, 2);
    board.work(old, 0, () => () => undefined);
    expect(board.finished(old.units)).toBe(true);
    const next = board.publish(1, [], [0, 8], 1, 2, true);
    let taken = 0;
    // Threads 0 and 1 reading the old call (as a late thread would) take nothing of the new one, not even a first unit.
    expect(board.work(old, 0, () => () => void taken++).done).toBe(0);
    expect(board.work(old, 1, () => () => void taken++).done).toBe(0);
    // Thread 3 (not in the split of 2 runs) takes units, but not worker 1's first unit.
    expect(board.work(next, 3, () => () => void taken++).done).toBe(7);
    expect(board.work(next, 1, () => () => void taken++).done).toBe(1);
    expect(taken).toBe(8);
    expect(board.finished(next.units)).toBe(true);
  });

  it('a spinning board (every thread on a core of its own) checks before it sleeps, and still leaves at once when stopped', () => {
    expect(WorkBoard.create(2).spins).toBe(false);
    const board = WorkBoard.create(2, true);
    expect(board.spins).toBe(true);
    // A worker whose call is already superseded returns without sleeping; so does one on a stopped board (no hang here).
    const call = board.publish(1, [], [0, 4], 1, 2);
    let t0 = performance.now();
    board.sleep(call.gen - 2);
    expect(performance.now() - t0).toBeLessThan(50);
    board.stop();
    // stop() moves the generation on: a worker that saw the board running just before it went to sleep on the
    // generation it had seen cannot sleep through the stop (Atomics.wait compares as it sleeps).
    expect(board.generation).not.toBe(call.gen);
    expect(Atomics.wait(new Int32Array(board.buffer), 0, call.gen, 0)).toBe('not-equal');
    t0 = performance.now();
    board.sleep(call.gen);
    expect(performance.now() - t0).toBeLessThan(50);
  });

  it('a call is read back as published, and a task splits into its template and its numbers', () => {
    const board = WorkBoard.create(2);
    const history = randomHistory(8, 'tmpl');
    const task: EvalTask = {
      kind: 'rff', features: rf, frequencies: new SharedArrayBuffer(8), history: history.buffer, points: new SharedArrayBuffer(8),
      nPoints: 3, results: new SharedArrayBuffer(8), resultBase: 0, chunkSize: 4, chunkFrom: 0, chunkTo: 2, firstBlock: 1, lastBlock: 8,
    };
    const { shape, keys, values } = splitTask(task);
    expect(keys).toEqual(['chunkFrom', 'chunkSize', 'chunkTo', 'firstBlock', 'lastBlock', 'nPoints', 'resultBase']);
    expect(values).toEqual([0, 4, 2, 1, 8, 3, 0]);
    expect(shape.history).toBe(history.buffer);
    const call = board.publish(7, values, [0, 2], 1, 2);
    const read = board.read()!;
    expect(read).toEqual(call);
    expect([...read.numbers]).toEqual(values);
    expect(() => board.publish(7, values, [0, 2], 1, 3)).toThrow(/runs must be in 1 … 2/);
  });
});

describe('pool sessions', () => {
  const pools: EvaluatorPool[] = [];
  afterAll(async () => {
    await Promise.all(pools.map((p) => p.close()));
  });
  const newPool = (workers: number, opts = {}) => {
    const pool = new EvaluatorPool(workers, opts);
    pools.push(pool);
    return pool;
  };

  it('history evaluation: the same bits on 1, 2 and 3 threads over many calls, every worker taking part in the first', async () => {
    const history = randomHistory(150, 'session', 200);
    const X = points(33, 'pts');
    const results: Float64Array[][] = [];
    for (const threads of [1, 2, 3]) {
      const pool = threads > 1 ? newPool(threads - 1) : undefined;
      const h = History.restore({ m: rf.m, t: 150, scale: history.scale, firstLive: 0, stored: history.stored, capacity: 200 });
      const ev = new Evaluator(h, rf, { threads, chunkSize: 4, parallelMinWork: 0, ...(pool ? { pool } : {}) });
      const mine: Float64Array[] = [];
      for (let call = 0; call < 40; call++) {
        const before = ev.workerChunks;
        mine.push(await ev.evaluate(X, 33));
        // In the session's first call each worker computes at least the first chunk of its run.
        if (call === 0) expect(ev.workerChunks - before).toBeGreaterThanOrEqual(threads - 1);
        h.shrink(0.99);
        h.append(history.stored.subarray(0, 2 * rf.m));
      }
      results.push(mine);
    }
    for (const r of results.slice(1)) r.forEach((f, i) => expect(bits(f).equals(bits(results[0][i])), `call ${i}`).toBe(true));
  });

  it('row cache: the same bits on 1, 2 and 3 threads, in units of rowGrain rows, each worker computing a unit or more in the first call; the work alongside runs once a call', async () => {
    const n = 1003;
    const Xn = points(n, 'rows');
    const rows = Int32Array.from({ length: n }, (_, i) => i);
    const out: Float64Array[][] = [];
    for (const threads of [1, 2, 3]) {
      const pool = threads > 1 ? newPool(threads - 1) : undefined;
      const history = new History({ m: rf.m, capacity: 30 });
      const rng = seedrandom('blocks');
      const ev = new Evaluator(history, rf, { threads, chunkSize: 4, parallelMinWork: 0, ...(pool ? { pool } : {}) });
      const cache = new RowCache({ d: rf.d, rows, copyRow: (i, o, at) => o.set(Xn.subarray(i * rf.d, (i + 1) * rf.d), at * rf.d) });
      const mine: Float64Array[] = [];
      for (let t = 1; t <= 30; t++) {
        history.shrink(1 - 0.5 / (t + 3));
        history.append(Float64Array.from({ length: 2 * rf.m }, () => rng() - 0.5));
        const before = ev.workerRows;
        // The calling thread's own work alongside the call (the loop draws the next batch there) runs exactly once.
        let alongside = 0;
        await ev.updateRows(cache, () => alongside++);
        expect(alongside).toBe(1);
        if (threads > 1 && t === 1) expect(ev.workerRows - before).toBeGreaterThanOrEqual((threads - 1) * rowGrain(n, threads));
        if (t === 30) {
          // Nothing new to add: it still runs, once.
          await ev.updateRows(cache, () => alongside++);
          expect(alongside).toBe(2);
        }
        mine.push(cache.read(rows, n, ev.rowFactor(), new Float64Array(n)));
      }
      // And the history's own evaluation agrees, bit for bit.
      expect(bits(mine[29]).equals(bits(await ev.evaluate(Xn, n)))).toBe(true);
      await ev.close();
      out.push(mine);
    }
    for (const r of out.slice(1)) r.forEach((f, i) => expect(bits(f).equals(bits(out[0][i])), `t = ${i + 1}`).toBe(true));
  });

  it('a worker that dies in the middle of a call rejects it instead of hanging, and the next call runs on its replacement', async () => {
    const pool = newPool(1);
    // Chunks of 64 from block 60: chunk 0 holds blocks 60–63 (the calling thread's), chunk 1 blocks 64–127 (the worker's own).
    const full = randomHistory(128, 'dies');
    const h = History.restore({ m: rf.m, t: 128, scale: full.scale, firstLive: 60, stored: full.stored });
    const X = points(3000, 'many');
    const ev = new Evaluator(h, rf, { pool, chunkSize: 64, parallelMinWork: 0 });
    const piscina = (pool as unknown as { piscina: Piscina }).piscina;
    const call = ev.evaluate(X, 3000);
    // The calling thread has computed its small chunk and waits for the worker's large one: end that worker.
    setImmediate(() => void piscina.threads[0].terminate());
    await expect(call).rejects.toThrow(/evaluation worker failed/);
    const serial = await new Evaluator(h, rf, { threads: 1, chunkSize: 64 }).evaluate(X, 3000);
    expect(bits(await ev.evaluate(X, 3000)).equals(bits(serial))).toBe(true);
  });

  it('a worker that dies between calls is reported by the next call, and the call after runs', async () => {
    const pool = newPool(1);
    const h = randomHistory(40, 'between');
    const X = points(20, 'b');
    const ev = new Evaluator(h, rf, { pool, chunkSize: 4, parallelMinWork: 0 });
    const first = await ev.evaluate(X, 20);
    const piscina = (pool as unknown as { piscina: Piscina }).piscina;
    await piscina.threads[0].terminate();
    await expect(ev.evaluate(X, 20)).rejects.toThrow(/evaluation worker failed/);
    expect(bits(await ev.evaluate(X, 20)).equals(bits(first))).toBe(true);
  });

  it('a task that fails on the calling thread rejects with its own error; the session is ended and the pool still works', async () => {
    const pool = newPool(2);
    const h = randomHistory(40, 'own');
    const X = points(10, 'o');
    const runner = new ChunkRunner();
    const bad: EvalTask = {
      kind: 'rff', features: rf, frequencies: new SharedArrayBuffer(0), history: h.buffer, points: new SharedArrayBuffer(8),
      nPoints: 10, results: new SharedArrayBuffer(8 * 10 * 10), resultBase: 0, chunkSize: 4, chunkFrom: 0, chunkTo: 10, firstBlock: 0, lastBlock: 40,
    };
    await expect(pool.call(bad, 1, 3, runner)).rejects.toThrow(/points buffer/);
    const ev = new Evaluator(h, rf, { pool, chunkSize: 4, parallelMinWork: 0 });
    expect(bits(await ev.evaluate(X, 10)).equals(bits(await new Evaluator(h, rf, { threads: 1, chunkSize: 4 }).evaluate(X, 10)))).toBe(true);
  });

  it('an idle session ends by itself (the workers leave their loop), and the next call starts another', async () => {
    const pool = newPool(1);
    const h = randomHistory(40, 'idle');
    const X = points(10, 'i');
    const ev = new Evaluator(h, rf, { pool, chunkSize: 4, parallelMinWork: 0 });
    const a = await ev.evaluate(X, 10);
    const session = () => (pool as unknown as { session: unknown }).session;
    expect(session()).toBeDefined();
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(session()).toBeUndefined();
    const before = ev.workerChunks;
    expect(bits(await ev.evaluate(X, 10)).equals(bits(a))).toBe(true);
    expect(ev.workerChunks).toBeGreaterThan(before);
  });
});
