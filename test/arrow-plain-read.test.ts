/**
 * Sample on read's passes over a file of plain numeric columns (floats of 32
 * or 64 bits, integers of 8 to 64) read the record
 * batches' bodies directly (`batches(…, { reuse: true })`, 8,192 rows at a
 * time into the same buffers): the same rows, labels (nulls = unlabeled) and
 * located errors as apache-arrow's decoding, on real files; other files keep
 * the decoded path. Scaled passes (`scale`) give the bits of the scaler's own
 * arithmetic, which the row kernel (data/row-kernel.ts) reproduces.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Bool, Float32, Float64, Int16, Int32, Int64, Int8, RecordBatch, Table, Uint32, Uint8, tableToIPC, vectorFromArray, type DataType } from 'apache-arrow';
import { openArrowRows, readArrow } from '../src/data/arrow.ts';
import { MinMaxScaler, writeSynthetic } from '../src/data/index.ts';
import { QuantileRange, scalingRange } from '../src/data/scaler.ts';
import { RowKernel } from '../src/data/row-kernel.ts';
import { DataError } from '../src/errors.ts';

const dir = await mkdtemp(join(tmpdir(), 'dsgkit-plain-'));
afterAll(() => rm(dir, { recursive: true, force: true }));

/** Every row of a pass, concatenated (the two paths cut the file into blocks differently). */
async function allRows(path: string, reuse: boolean, scale?: MinMaxScaler): Promise<{ X: Float64Array; y: Float64Array; blocks: number[] }> {
  const src = await openArrowRows(path);
  const d = src.featureNames.length;
  const X = new Float64Array(src.n * d);
  const y = new Float64Array(src.n);
  const blocks: number[] = [];
  let row = 0;
  for await (const b of src.batches(undefined, { reuse, ...(scale ? { scale } : {}) })) {
    X.set(b.X.subarray(0, b.n * d), row * d);
    y.set(b.y.subarray(0, b.n), row);
    blocks.push(b.n);
    row += b.n;
  }
  return { X, y, blocks };
}

const bits = (a: Float64Array) => Buffer.from(a.buffer, a.byteOffset, a.byteLength);

/** An Arrow file of the given record batches (columns by name: numbers, or null = a missing value). */
async function writeBatches(name: string, batches: Array<Record<string, Array<number | bigint | boolean | null>>>, types: Record<string, DataType> = {}): Promise<string> {
  const path = join(dir, name);
  const rbs = batches.map((cols) => new Table(Object.fromEntries(Object.entries(cols).map(([k, v]) => [k, vectorFromArray(v, types[k] ?? new Float64())]))).batches[0] as RecordBatch);
  await writeFile(path, tableToIPC(new Table(rbs), 'file'));
  return path;
}

describe('plain numeric files read from their bodies', () => {
  it('give the rows and labels of the decoded path, across record batches and 8,192-row blocks', async () => {
    const path = join(dir, 'xor.arrow');
    // 70,000 rows in batches of 40,000: blocks of 4 × 8,192 + 7,232 and 3 × 8,192 + 5,424; 150 labeled rows, the rest null.
    await writeSynthetic(path, { rows: 70_000, dim: 3, labeled: 150, seed: 4, batchRows: 40_000 });
    const plain = await allRows(path, true);
    const decoded = await allRows(path, false);
    expect(decoded.blocks).toEqual([40_000, 30_000]);
    expect(plain.blocks).toEqual([...Array(4).fill(8_192), 7_232, ...Array(3).fill(8_192), 5_424]);
    expect(bits(plain.X).equals(bits(decoded.X))).toBe(true);
    expect(bits(plain.y).equals(bits(decoded.y))).toBe(true);
    expect(plain.y.filter((v) => !Number.isNaN(v)).length).toBe(150);
    // Read whole (readArrow, what training in memory reads): the same rows, from the bodies too.
    const whole = await readArrow(path);
    expect(bits(whole.X).equals(bits(decoded.X)) && bits(whole.y).equals(bits(decoded.y))).toBe(true);
  });

  it('read a wide file in fewer rows a block (its buffers stay about 32 MiB), the same rows', async () => {
    // 1,000 features + the label: 32 MiB / (8 × 1,001) = 4,190 rows a block.
    const n = 5_000;
    const cols: Record<string, number[]> = {};
    for (let k = 0; k < 1_000; k++) cols[`f${k}`] = Array.from({ length: n }, (_, i) => ((i * 31 + k * 17) % 101) / 10);
    cols.label = Array.from({ length: n }, (_, i) => (i % 2 === 0 ? 1 : -1));
    const path = await writeBatches('wide.arrow', [cols]);
    const plain = await allRows(path, true);
    const decoded = await allRows(path, false);
    expect(plain.blocks).toEqual([4_190, 810]);
    expect(bits(plain.X).equals(bits(decoded.X)) && bits(plain.y).equals(bits(decoded.y))).toBe(true);
  });

  it('hand out scaled rows with the bits of MinMaxScaler.transformInPlace, with and without clipping', async () => {
    const path = join(dir, 'xor5.arrow');
    // d = 5 (odd: the kernel's last column on its own) and blocks of odd length (8,192 + 1,001 in one batch).
    await writeSynthetic(path, { rows: 9_193, dim: 5, labeled: 40, seed: 9, batchRows: 9_193 });
    const raw = await allRows(path, false);
    const names = ['x1', 'x2', 'x3', 'x4', 'x5'];
    // Ranges inside the data (so clipping acts), one constant column (factor 0), one whose minimum is +0 (−0 − 0 = −0 stays −0).
    const lo = [0.2, 0.1, -0.5, 0, 0.3];
    const hi = [0.7, 0.9, 2, 1, 0.3];
    for (const clip of [0, 0.02]) {
      const scaler = new MinMaxScaler(lo, hi, names, clip);
      const plain = await allRows(path, true, scaler);
      const decoded = await allRows(path, false, scaler);
      const expected = scaler.transformInPlace(raw.X.slice());
      expect(plain.blocks).toEqual([8_192, 1_001]);
      expect(bits(plain.X).equals(bits(expected))).toBe(true);
      expect(bits(decoded.X).equals(bits(expected))).toBe(true);
      if (clip > 0) expect(Math.min(...plain.X) === 0 && Math.max(...plain.X) === 1).toBe(true);
    }
  });

  it('row kernel: rows, the finiteness check and the scaling of every shape, −0 and NaN kept as the scaler keeps them', () => {
    const cases = [
      { rows: 1, d: 1 },
      { rows: 3, d: 2 },
      { rows: 7, d: 3 },
      { rows: 70, d: 9 },
      { rows: 130, d: 4 },
    ];
    for (const { rows, d } of cases) {
      const k = new RowKernel(rows, d, d + 1);
      const names = Array.from({ length: d }, (_, j) => `f${j}`);
      const scaler = new MinMaxScaler(Array.from({ length: d }, (_, j) => (j === 0 ? 0 : -0.5 + j / 10)), Array.from({ length: d }, (_, j) => 1 + j / 3), names, 0.02);
      k.setScaling(scaler);
      for (const n of [rows, Math.max(0, rows - 1)]) {
        const X = new Float64Array(n * d);
        for (let i = 0; i < n; i++) for (let j = 0; j < d; j++) X[i * d + j] = [-0, 0, 3, -7, 0.25, 1e-300][(i * 7 + j * 3) % 6] + (i % 5) * 0.1;
        const fill = () => {
          for (let j = 0; j < d; j++) k.column(j, n).set(Float64Array.from({ length: n }, (_, i) => X[i * d + j]));
        };
        fill();
        expect(k.finite(n)).toBe(true);
        expect(k.toRows(n, false)).toBe(true);
        expect(bits(k.X.subarray(0, n * d)).equals(bits(X))).toBe(true);
        fill();
        expect(k.toRows(n, true)).toBe(true);
        expect(bits(k.X.subarray(0, n * d)).equals(bits(scaler.transformInPlace(X.slice())))).toBe(true);
        if (n === 0) continue;
        // One value that is not finite, anywhere: found, and the rows left unscaled for the caller to name it.
        for (const bad of [NaN, Infinity, -Infinity]) {
          const at = (n * d) >> 1;
          const withBad = X.slice();
          withBad[at] = bad;
          for (let j = 0; j < d; j++) k.column(j, n).set(Float64Array.from({ length: n }, (_, i) => withBad[i * d + j]));
          expect(k.finite(n)).toBe(false);
          expect(k.toRows(n, true)).toBe(false);
          expect(bits(k.X.subarray(0, n * d)).equals(bits(withBad))).toBe(true);
        }
      }
    }
  });

  it('hand a plain file out as checked columns when asked: the scan\'s scaler is the row path\'s, bit for bit; other files come as rows', async () => {
    const path = join(dir, 'xor-columns.arrow');
    await writeSynthetic(path, { rows: 19_193, dim: 5, labeled: 40, seed: 3, batchRows: 10_000 });
    const raw = await allRows(path, false);
    const src = await openArrowRows(path);
    const names = src.featureNames;
    // Min–max, quantiles over every row, and quantiles over a reservoir of 500 rows (its replacements drawn in row order).
    const ranges = [() => scalingRange(5, 0), () => scalingRange(5, 0.02), () => new QuantileRange(5, 0.02, 500)];
    for (const range of ranges) {
      const byRows = range();
      byRows.add(raw.X, 0, raw.blocks.reduce((a, b) => a + b, 0));
      const byColumns = range();
      const y: number[] = [];
      const blocks: number[] = [];
      for await (const b of src.batches(undefined, { reuse: true, columns: true })) {
        expect(b.columns?.length).toBe(5);
        expect(b.X.length).toBe(0);
        byColumns.addBatch(b);
        y.push(...b.y.subarray(0, b.n));
        blocks.push(b.n);
      }
      expect(blocks).toEqual([8_192, 1_808, 8_192, 1_001]);
      expect(bits(Float64Array.from(y)).equals(bits(raw.y))).toBe(true);
      const [a, c] = [byRows.scaler(names), byColumns.scaler(names)];
      expect(bits(c.min).equals(bits(a.min)) && bits(c.max).equals(bits(a.max))).toBe(true);
    }
    // A file the decoded path reads comes as rows; a bad value is named as the row path names it.
    const bools = await writeBatches('bools-columns.arrow', [{ a: [true, false, true], label: [1, null, -1] }], { a: new Bool() });
    for await (const b of (await openArrowRows(bools)).batches(undefined, { reuse: true, columns: true })) expect(b.columns).toBeUndefined();
    const inf = await writeBatches('inf-columns.arrow', [{ a: [1, 2], b: [3, 4], label: [1, null] }, { a: [5, 6], b: [7, Infinity], label: [null, -1] }]);
    const scan = async () => {
      for await (const b of (await openArrowRows(inf)).batches(undefined, { reuse: true, columns: true })) void b;
    };
    await expect(scan()).rejects.toThrow(/inf-columns\.arrow.*column 'b'.*row 4.*Infinity/s);
  });

  it('read float32 and 8- to 64-bit integer columns as their bytes, widened to the doubles the decoded path gives', async () => {
    // 10,000 rows in one record batch: the plain path cuts it into 8,192 + 1,808 rows, the decoded path does not.
    const n = 10_000;
    const v = (i: number, k: number) => ((i * 7919 + k * 104_729) % 1000) / 7 - 60;
    const cols = {
      f32: Array.from({ length: n }, (_, i) => Math.fround(v(i, 1) / 3)),
      u8: Array.from({ length: n }, (_, i) => (i * 31) % 256),
      i8: Array.from({ length: n }, (_, i) => ((i * 13) % 256) - 128),
      i16: Array.from({ length: n }, (_, i) => ((i * 97) % 65_536) - 32_768),
      u32: Array.from({ length: n }, (_, i) => (i * 2_654_435_761) % 4_294_967_296),
      i64: Array.from({ length: n }, (_, i) => BigInt(i * 1_000_003 - 4_000_000_000)),
      label: Array.from({ length: n }, (_, i) => (i % 37 === 0 ? BigInt(i % 2 === 0 ? 1 : -1) : null)),
    };
    const path = await writeBatches('narrow.arrow', [cols], { f32: new Float32(), u8: new Uint8(), i8: new Int8(), i16: new Int16(), u32: new Uint32(), i64: new Int64(), label: new Int64() });
    const plain = await allRows(path, true);
    const decoded = await allRows(path, false);
    expect(plain.blocks).toEqual([8_192, 1_808]);
    expect(decoded.blocks).toEqual([n]);
    expect(bits(plain.X).equals(bits(decoded.X))).toBe(true);
    expect(bits(plain.y).equals(bits(decoded.y))).toBe(true);
    expect(plain.X[0 * 6 + 5]).toBe(-4_000_000_000);
    const whole = await readArrow(path);
    expect(bits(whole.X).equals(bits(decoded.X)) && bits(whole.y).equals(bits(decoded.y))).toBe(true);
    expect(plain.y.filter((y) => !Number.isNaN(y)).length).toBe(271);
    // As columns, the same values; a float32 that is not finite is named as the decoded path names it.
    const src = await openArrowRows(path);
    let row = 0;
    for await (const b of src.batches(undefined, { reuse: true, columns: true })) {
      for (let k = 0; k < 6; k++) for (let i = 0; i < b.n; i++) expect(b.columns![k][i]).toBe(decoded.X[(row + i) * 6 + k]);
      row += b.n;
    }
    const inf = await writeBatches('inf32.arrow', [{ a: [1, 2, 3], b: [0.5, -Infinity, 1], label: [1, null, -1] }], { b: new Float32(), label: new Int32() });
    const message = async (reuse: boolean) => ((await allRows(inf, reuse).then(() => undefined, (e: unknown) => e)) as Error).message;
    expect(await message(true)).toMatch(/inf32\.arrow.*column 'b'.*row 2.*Infinity/s);
    expect(await message(true)).toBe(await message(false));
    const decodedMessage = await message(false);
    await expect(readArrow(inf)).rejects.toThrow(decodedMessage);
  });

  it('read labels without nulls, and labels that are all null (every row unlabeled)', async () => {
    const both = await writeBatches('labels.arrow', [{ a: [0.5, -2, 3e300], label: [1, -1, 1] }, { a: [7, 8, -0], label: [-1, -1, 1] }]);
    expect(await allRows(both, true)).toEqual(await allRows(both, false));
    const none = await writeBatches('unlabeled.arrow', [{ a: [1, 2], b: [3, 4], label: [null, null] }]);
    const rows = await allRows(none, true);
    expect([...rows.X]).toEqual([1, 3, 2, 4]);
    expect([...rows.y].every(Number.isNaN)).toBe(true);
  });

  it('name the file, column and row of a value that is not finite, as the decoded path does', async () => {
    const path = await writeBatches('inf.arrow', [{ a: [1, 2], b: [3, 4], label: [1, null] }, { a: [5, 6], b: [7, Infinity], label: [null, -1] }]);
    const errorOf = async (reuse: boolean) => allRows(path, reuse).then(() => undefined, (e: unknown) => e);
    const plain = await errorOf(true);
    expect(plain).toBeInstanceOf(DataError);
    expect((plain as Error).message).toMatch(/inf\.arrow.*column 'b'.*row 4.*Infinity/s);
    expect((plain as Error).message).toBe(((await errorOf(false)) as Error).message);
  });

  it('leave a null feature or another column type to the decoded path: the same error, the same rows', async () => {
    const withNull = await writeBatches('null.arrow', [{ a: [1, null], label: [1, -1] }]);
    await expect(allRows(withNull, true)).rejects.toThrow(/column 'a'.*row 2.*missing/s);
    const bools = await writeBatches('bools.arrow', [{ a: [true, false, true], b: [0.5, 0.25, 1], label: [1, null, -1] }], { a: new Bool() });
    expect(await allRows(bools, true)).toEqual(await allRows(bools, false));
  });

  it('leave compressed bodies to the decoded path (never read as raw values)', async () => {
    // Written by pyarrow with LZ4 bodies, which apache-arrow cannot decode: the same error either way.
    await expect(allRows('test/fixtures/pyarrow/numeric-lz4.arrow', true)).rejects.toThrow(/codec not found/);
  });
});
