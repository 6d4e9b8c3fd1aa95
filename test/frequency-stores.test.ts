/**
 * The frequency stores of a search: fits of one feature map (σ, seed, d, m,
 * family) read one store, fits of another get their own, within one memory
 * budget; a store's blocks are the generator's bits, so sharing never changes
 * a model.
 */
import { describe, expect, it } from 'vitest';
import { FrequencyStore, FrequencyStores } from '../src/engine/frequency-store.ts';
import { kernelBlockWidth, sampleKernelBlock } from '../src/features/spectral.ts';
import type { RandomFeatures } from '../src/engine/random-features.ts';
import { tune } from '../src/tune.ts';
import { readDataset, splitDataset } from '../src/data/index.ts';

const rf = (sigma: number): RandomFeatures => ({ kernel: { kind: 'rbf', sigma }, seed: 3, d: 5, m: 8 });

describe('FrequencyStores', () => {
  it('gives the runs of one feature map one store, another map its own, and a store that holds nothing once the budget is spent', () => {
    const width = kernelBlockWidth(5, 8);
    const perStore = Math.ceil((4 * 10) / 8) * 8 + 8 * width * 10;
    const stores = new FrequencyStores(2 * perStore, 10);
    const a = stores.storeFor(rf(0.5));
    expect(stores.storeFor({ ...rf(0.5) })).toBe(a);
    const b = stores.storeFor(rf(2));
    expect(b).not.toBe(a);
    expect([a.capacity, b.capacity]).toEqual([10, 10]);
    expect(stores.storeFor(rf(8)).capacity).toBe(0);
    // What a store hands out is the generator's block, whichever fit filled it first.
    const omega = new Float64Array(width);
    const direct = new Float64Array(width);
    a.fill(7, omega);
    a.fill(7, omega.fill(0));
    sampleKernelBlock(rf(0.5).kernel, 3, 7, 5, 8, direct, 'gaussian');
    expect(Array.from(omega)).toEqual(Array.from(direct));
    expect(a).toBeInstanceOf(FrequencyStore);
  });

  it('tune: the same table and model bytes with the stores shared across fold fits as with a store per fit (no cache at all)', async () => {
    const ds = splitDataset(await readDataset('data/breast_cancer.arrow'), { labeled: 80, seed: 2 }).train;
    const run = { learner: 'qsg-s2auc', data: ds, folds: 3, seed: 1, T: 40, m: 8, threads: 1, grid: { sigma: [0.5, 2], lambda: [0.01, 0.1] } } as const;
    const shared = await tune(run);
    const none = await tune({ ...run, cacheBytes: 0 });
    expect(shared.table.map((r) => r.score)).toEqual(none.table.map((r) => r.score));
    expect(Buffer.from(shared.model.toBytes()).equals(Buffer.from(none.model.toBytes()))).toBe(true);
  }, 120_000);
});
