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
