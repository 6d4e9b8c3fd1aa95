// Runs on one thread hand their wasm kernels to the next run (kernel-shelf.ts):
// a run that takes kernels another run used, of another shape and family,
// must give the bytes it gives on fresh kernels.
import { describe, expect, it } from 'vitest';
import { trainModel as train } from '../src/train/train.ts';
import { readDataset, splitDataset, type Dataset } from '../src/data/index.ts';
import { shelvedKernels, shelveKernel, SHELF_KERNELS, takeKernel } from '../src/engine/kernel-shelf.ts';
import { RffKernel } from '../src/engine/kernel.ts';
import type { Model } from '../src/model/model.ts';

let data: Dataset | undefined;
async function trainSet(): Promise<Dataset> {
  data ??= splitDataset(await readDataset('data/breast_cancer.arrow'), { labeled: 100, seed: 2 }).train;
  return data;
}

const bytesOf = (model: Model): Buffer => Buffer.from(model.toBytes());

describe('kernels handed from run to run on one thread', () => {
  it('a run on kernels other runs used (dense and sorf, other m) gives the bytes it gives on fresh ones, and hands them back', async () => {
    const ds = await trainSet();
    expect(shelvedKernels()).toBe(0);
    // d = 30: sorf pads to N = 32, so blocks of m = 16 share groups (a held transform); m = 24 and gaussian do not.
    const runs = [
      { learner: 'qsg-s2auc', features: 'sorf', m: 16, T: 30 },
      { learner: 'tsgs3vm', features: 'gaussian', m: 24, T: 30 },
      { learner: 'frs3vm', features: 'sorf', m: 16, epochs: 2 },
    ] as const;
    const fresh: Buffer[] = [];
    for (const r of runs) fresh.push(bytesOf(await train({ ...r, data: ds, batchSize: 16, seed: 3, threads: 1 })));
    expect(shelvedKernels()).toBeGreaterThan(0);
    // Again, in the other order: each run now takes kernels the others left.
    for (const i of [2, 0, 1]) {
      const again = bytesOf(await train({ ...runs[i], data: ds, batchSize: 16, seed: 3, threads: 1 }));
      expect(again.equals(fresh[i]), runs[i].learner).toBe(true);
    }
    expect(shelvedKernels()).toBeLessThanOrEqual(SHELF_KERNELS);
  });

  it('keeps at most SHELF_KERNELS kernels, each once, and gives back the last one shelved', () => {
    const taken = Array.from({ length: SHELF_KERNELS + 3 }, () => takeKernel());
    for (const k of taken) shelveKernel(k);
    shelveKernel(taken[0]);
    expect(shelvedKernels()).toBe(SHELF_KERNELS);
    const last = takeKernel();
    expect(last).toBeInstanceOf(RffKernel);
    expect(taken.indexOf(last)).toBeGreaterThanOrEqual(0);
  });
});

describe('exact kernels and the rows they read, from fit to fit', () => {
  it('SharedRows.of copies an array once and again only when its values changed', async () => {
    const { SharedRows } = await import('../src/engine/shared-rows.ts');
    const X = Float64Array.from({ length: 60 }, (_, i) => Math.sin(i));
    const a = SharedRows.of(X, 20, 3);
    expect(SharedRows.of(X, 20, 3)).toBe(a);
    expect(Array.from(a.X)).toEqual(Array.from(X));
    expect(SharedRows.of(X, 10, 3)).not.toBe(a); // other rows: another copy
    X[59] = 7;
    const b = SharedRows.of(X, 20, 3);
    expect(b).not.toBe(a);
    expect(b.X[59]).toBe(7);
    expect(SharedRows.of(X.slice(), 20, 3)).not.toBe(b); // another array: its own copy
    X[0] = -0; // was 0 (sin 0): equal as numbers, other bits
    const c = SharedRows.of(X, 20, 3);
    expect(c).not.toBe(b);
    expect(Object.is(c.X[0], -0)).toBe(true);
  });

  it('an evaluator on rows another one used takes its exact kernel, with the bits of a kernel on a fresh copy', async () => {
    const { SharedRows } = await import('../src/engine/shared-rows.ts');
    const { SupportVectorEvaluator } = await import('../src/engine/sv-evaluator.ts');
    const { SupportVectorHistory } = await import('../src/engine/sv-history.ts');
    const [n, d] = [300, 7];
    const X = Float64Array.from({ length: n * d }, (_, i) => Math.cos(i * 0.37));
    const history = (steps: number): InstanceType<typeof SupportVectorHistory> => {
      const h = new SupportVectorHistory({ capacity: 3 * steps });
      for (let t = 1; t <= steps; t++) {
        h.shrink(t / (t + 1));
        for (let k = 0; k < 3; k++) h.add((t * 37 + k * 101) % n, Math.sin(t + k));
      }
      return h;
    };
    const evaluate = async (rows: InstanceType<typeof SharedRows>, steps: number, points: number, sigma: number): Promise<Buffer> => {
      const ev = new SupportVectorEvaluator(history(steps), { kernel: { kind: 'rbf', sigma }, rows }, { threads: 1, chunkSize: 16 });
      const f = await ev.evaluate(X.subarray(0, points * d), points);
      await ev.close();
      return Buffer.from(f.buffer, f.byteOffset, 8 * points);
    };
    const shared = SharedRows.of(X, n, d);
    const pages = shared.memory.buffer.byteLength;
    // Three runs on the shared rows, other shapes each: the first makes the kernel, the others take it from the shelf.
    const runs: Array<[number, number, number]> = [[40, 50, 0.5], [90, 120, 2], [10, 7, 0.1]];
    for (const [steps, points, sigma] of runs) {
      const reused = await evaluate(SharedRows.of(X, n, d), steps, points, sigma);
      expect(reused.equals(await evaluate(SharedRows.from(X, n, d), steps, points, sigma)), `${steps} steps, ${points} points`).toBe(true);
    }
    // One kernel served them all: its scratch region was claimed once, the rows' memory grew no further after the first run.
    await evaluate(SharedRows.of(X, n, d), 90, 120, 2);
    const grown = shared.memory.buffer.byteLength;
    for (let r = 0; r < 5; r++) await evaluate(SharedRows.of(X, n, d), 90, 120, 2);
    expect(shared.memory.buffer.byteLength).toBe(grown);
    expect(grown).toBeGreaterThan(pages);
  });
});
