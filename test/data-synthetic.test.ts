import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readArrow } from '../src/data/arrow.ts';
import { syntheticDataset, writeSynthetic } from '../src/data/synthetic.ts';
import { classCounts } from '../src/data/validate.ts';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'dsgkit-syn-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const opts = { rows: 50_000, dim: 5, positiveFraction: 0.3, labeled: 200, seed: 11, batchRows: 7_000 };

describe('synthetic generator', () => {
  it('same seed → identical file bytes; other seed → other rows', async () => {
    const a = join(dir, 'a.arrow');
    const b = join(dir, 'b.arrow');
    const c = join(dir, 'c.arrow');
    await writeSynthetic(a, opts);
    await writeSynthetic(b, opts);
    await writeSynthetic(c, { ...opts, seed: 12 });
    const [ba, bb, bc] = await Promise.all([readFile(a), readFile(b), readFile(c)]);
    expect(ba.equals(bb)).toBe(true);
    expect(ba.equals(bc)).toBe(false);
  });

  it('writes exactly the asked rows, positives and stratified labeled count, in many batches, file and stream alike', async () => {
    for (const name of ['s.arrow', 's.arrows']) {
      const path = join(dir, name);
      const summary = await writeSynthetic(path, opts);
      expect(summary).toMatchObject({ rows: 50_000, dim: 5, positives: 15_000, labeled: 200, labeledPositives: 60, batches: 8 });
      const ds = await readArrow(path);
      expect(ds.n).toBe(50_000);
      expect(ds.d).toBe(5);
      expect([...classCounts(ds)]).toEqual([[-1, 140], [1, 60]]);
      // The file holds exactly what the in-memory generator makes.
      const mem = syntheticDataset(opts);
      expect(Array.from(ds.X.subarray(0, 1000))).toEqual(Array.from(mem.X.subarray(0, 1000)));
      expect(ds.X.every((v, i) => v === mem.X[i])).toBe(true);
    }
  });

  it('makes every feature lie in [0, 1] and the class depend on x1, x2 as an XOR (not linearly)', () => {
    const ds = syntheticDataset({ rows: 20_000, dim: 4, labeled: 20_000, seed: 5, labelNoise: 0 });
    expect(ds.X.every((v) => v >= 0 && v <= 1)).toBe(true);
    let agree = 0;
    const meanPos = [0, 0];
    let pos = 0;
    for (let i = 0; i < ds.n; i++) {
      const x1 = ds.X[i * 4];
      const x2 = ds.X[i * 4 + 1];
      const xor = x1 > 0.5 === x2 > 0.5 ? 1 : -1;
      if (xor === ds.y[i]) agree++;
      if (ds.y[i] > 0) {
        meanPos[0] += x1;
        meanPos[1] += x2;
        pos++;
      }
    }
    expect(agree / ds.n).toBeGreaterThan(0.95); // the XOR rule explains the labels
    // …while the class means coincide (a linear rule has nothing to hold on to).
    expect(Math.abs(meanPos[0] / pos - 0.5)).toBeLessThan(0.02);
    expect(Math.abs(meanPos[1] / pos - 0.5)).toBeLessThan(0.02);
  });

  it('flips about labelNoise of the labels', () => {
    const ds = syntheticDataset({ rows: 40_000, dim: 2, labeled: 40_000, seed: 9, labelNoise: 0.2, spread: 0.01 });
    let disagree = 0;
    for (let i = 0; i < ds.n; i++) if ((ds.X[i * 2] > 0.5 === ds.X[i * 2 + 1] > 0.5 ? 1 : -1) !== ds.y[i]) disagree++;
    expect(disagree / ds.n).toBeGreaterThan(0.19);
    expect(disagree / ds.n).toBeLessThan(0.21);
  });
});
