/**
 * `train --profile` / `onProfile`: the loop's time by phase, the workers'
 * busy time, the point-blocks the run evaluated (counted exactly), and the
 * loop efficiency — without changing the model.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PHASES, train, type ProfileReport } from '../src/api.ts';
import { main } from '../src/cli/main.ts';
import { readDataset, splitDataset } from '../src/data/index.ts';
import { measureKernelRate } from '../src/engine/profile.ts';

describe('profile', () => {
  it('counts every point-block, splits the wall time into phases, sees the worker, and leaves the model as it is', async () => {
    const { train: ds } = splitDataset(await readDataset('data/breast_cancer.arrow'), { labeled: 100, test: 0.2, seed: 1 });
    const T = 30;
    const B = 16; // dsg's batch: labeled rows only
    const base = { learner: 'dsg', data: ds, T, m: 16, batchSize: B, seed: 4, threads: 2, parallelMinWork: 0 } as const;
    for (const evaluation of ['history', 'rows'] as const) {
      let report: ProfileReport | undefined;
      const profiled = await train({ ...base, evaluation, onProfile: (r) => (report = r) });
      const plain = await train({ ...base, evaluation });
      expect(Buffer.from(profiled.toBytes()).equals(Buffer.from(plain.toBytes()))).toBe(true);
      const r = report!;
      // f at the batch over t − 1 blocks (history), or one block at each of the 100 labeled rows (rows) plus, for
      // t < T, the newest block at batch t + 1 (the cache is a block behind then); plus the new block at the batch.
      const evaluated = evaluation === 'history' ? (B * T * (T - 1)) / 2 : 100 * T + B * (T - 1);
      expect(r.pointBlocks).toBe(evaluated + B * T);
      expect(r.iterations).toBe(T);
      expect(r.threads).toBe(2);
      const phases = [...PHASES, 'other'] as const;
      for (const p of phases) expect(r.phases[p]).toBeGreaterThanOrEqual(0);
      const sum = phases.reduce((s, p) => s + r.phases[p], 0);
      expect(sum).toBeGreaterThanOrEqual(r.wallMs * 0.999);
      expect(r.workers.length).toBe(1);
      expect(r.workers[0].busyMs).toBeGreaterThan(0);
      expect(r.workers[0].busyFraction).toBeCloseTo(r.workers[0].busyMs / r.wallMs, 12);
      expect(r.kernelMs).toBeCloseTo((1000 * r.pointBlocks) / r.kernelRate, 6);
      expect(r.loopEfficiency).toBeCloseTo(r.kernelMs / (r.wallMs * 2), 12);
    }
  });

  it('measures a kernel rate that falls as the work per point-block grows', () => {
    const small = measureKernelRate(4, 16, 40);
    const large = measureKernelRate(64, 64, 40);
    expect(small).toBeGreaterThan(0);
    expect(large).toBeLessThan(small);
  });

  it('dsgkit train --profile prints the phases, the workers and the loop efficiency', async () => {
    let out = '';
    const dir = mkdtempSync(join(tmpdir(), 'dsgkit-profile-'));
    const code = await main(['train', '--learner', 'dsg', '--data', 'data/breast_cancer.arrow', '--out', join(dir, 'm.dsg'), '--iterations', '10', '--batch-size', '8', '--random-features', '8', '--threads', '1', '--quiet', '--profile'], {
      stdout: { write: (s: string) => (out += s) },
      stderr: { write: () => true },
    });
    expect(code).toBe(0);
    expect(out).toMatch(/^profile: loop [\d.]+ s on 1 thread, 10 iterations/m);
    for (const label of ['sampling', 'evaluation \\(calling thread\\)', 'dispatch \\+ wait for workers', 'new block', 'shrink \\+ append', 'validation']) expect(out).toMatch(new RegExp(`^  ${label} +[\\d.]+ s`, 'm'));
    expect(out).toMatch(/loop efficiency \d\.\d{3}/);
  });
});
