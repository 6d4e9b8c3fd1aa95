import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readArrow } from '../src/data/arrow.ts';
import { syntheticBatches, syntheticDataset, writeSynthetic } from '../src/data/synthetic.ts';
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

  it('keeps the one-stream layout\'s values (pinned: bench results and docs were generated with them)', () => {
    const ds = syntheticDataset({ rows: 30_000, dim: 3, labeled: 100, seed: 4, batchRows: 5000 });
    const h = createHash('sha256');
    h.update(new Uint8Array(ds.X.buffer, ds.X.byteOffset, ds.X.byteLength));
    h.update(new Uint8Array(ds.y.buffer, ds.y.byteOffset, ds.y.byteLength));
    expect(h.digest('hex')).toBe('39e019c3cb33f46649e561cf1dbec456fb3f2dd71736795f38c56287b60344c9');
  });
});

describe('synthetic generator, prefix-stable layout (labeledWithin)', () => {
  const keyed = { dim: 4, positiveFraction: 0.4, labeled: 150, labeledWithin: 9_000, seed: 21 };

  it('a file of N rows is row for row and label for label the first N rows of a longer one (whatever the batch size)', async () => {
    const small = join(dir, 'k-small.arrow');
    const big = join(dir, 'k-big.arrows');
    const s = await writeSynthetic(small, { ...keyed, rows: 9_000, batchRows: 1_000 });
    const b = await writeSynthetic(big, { ...keyed, rows: 30_000, batchRows: 4_321 });
    const [dsS, dsB] = [await readArrow(small), await readArrow(big)];
    expect(dsB.n).toBe(30_000);
    // Bits, not approximate values (NaN labels compared as NaN).
    expect(Buffer.from(dsB.X.buffer, dsB.X.byteOffset, dsS.X.byteLength).equals(Buffer.from(dsS.X.buffer, dsS.X.byteOffset, dsS.X.byteLength))).toBe(true);
    expect(Array.from(dsB.y.subarray(0, 9_000))).toEqual(Array.from(dsS.y));
    // The same labeled rows, exactly `labeled` of them, all in the first `labeledWithin` rows, stratified.
    const labeledAt = (y: Float64Array) => Array.from(y.keys()).filter((i) => !Number.isNaN(y[i]));
    expect(labeledAt(dsB.y)).toEqual(labeledAt(dsS.y));
    expect(labeledAt(dsB.y).length).toBe(150);
    expect(Math.max(...labeledAt(dsB.y))).toBeLessThan(9_000);
    expect(s.labeledPositives).toBe(b.labeledPositives);
    expect(Math.abs(s.labeledPositives / 150 - 0.4)).toBeLessThan(0.05);
    // The rows after the prefix are new rows, and the positives a binomial count around rows × positiveFraction.
    expect(dsB.X.subarray(9_000 * 4, 9_004 * 4).some((v, k) => v !== dsB.X[k])).toBe(true);
    expect(b.positives).toBeGreaterThan(s.positives);
    expect(Math.abs(b.positives - 12_000)).toBeLessThan(5 * Math.sqrt(30_000 * 0.4 * 0.6));
  });

  it('is deterministic, differs from the one-stream layout and by seed, and is still the noisy XOR', () => {
    const rows = 20_000;
    const a = syntheticDataset({ ...keyed, rows });
    expect(syntheticDataset({ ...keyed, rows }).X).toEqual(a.X);
    expect(syntheticDataset({ ...keyed, rows, seed: 22 }).X.subarray(0, 8)).not.toEqual(a.X.subarray(0, 8));
    const { labeledWithin: _, ...oneStream } = keyed;
    expect(syntheticDataset({ ...oneStream, rows }).X.subarray(0, 8)).not.toEqual(a.X.subarray(0, 8));
    const all = syntheticDataset({ rows, dim: 2, labeled: rows, labeledWithin: rows, seed: 3, labelNoise: 0 });
    let agree = 0;
    for (let i = 0; i < rows; i++) if ((all.X[i * 2] > 0.5 === all.X[i * 2 + 1] > 0.5 ? 1 : -1) === all.y[i]) agree++;
    expect(agree / rows).toBeGreaterThan(0.95);
    let pos = 0;
    for (const batch of syntheticBatches({ rows, dim: 2, labeled: rows, labeledWithin: rows, seed: 3 })) pos += batch.positives;
    expect(pos).toBe(Array.from(all.y).filter((v) => v === 1).length);
  });

  it('refuses labeledWithin outside [labeled, rows]', () => {
    expect(() => syntheticDataset({ rows: 100, labeled: 20, labeledWithin: 19 })).toThrow(/labeledWithin must be a whole number in \[labeled, rows\]/);
    expect(() => syntheticDataset({ rows: 100, labeled: 20, labeledWithin: 101 })).toThrow(/labeledWithin/);
    expect(() => syntheticDataset({ rows: 100, labeled: 20, labeledWithin: 2.5 })).toThrow(/labeledWithin/);
  });
});
