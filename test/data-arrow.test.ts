import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  Bool,
  Field,
  Float32,
  Float64,
  Int32,
  Int64,
  RecordBatch,
  RecordBatchReader,
  RecordBatchStreamWriter,
  Schema,
  Table,
  Utf8,
  tableFromArrays,
  tableFromIPC,
  tableToIPC,
  vectorFromArray,
} from 'apache-arrow';
import { DataError } from '../src/errors.ts';
import { makeDataset, type Dataset } from '../src/data/dataset.ts';
import { arrowBytesToDataset, datasetToTable, readArrow, tableToDataset, writeArrow } from '../src/data/arrow.ts';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'dsgkit-arrow-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const sample = (): Dataset =>
  makeDataset({
    X: new Float64Array([0.5, -2, 1e-300, 3.25, 7, 1e300, 0, -0]),
    d: 2,
    y: new Float64Array([1, NaN, -1, 3]),
    featureNames: ['a', 'b c'],
    labelName: 'target',
  });

function expectSame(a: Dataset, b: Dataset): void {
  expect(b.n).toBe(a.n);
  expect(b.d).toBe(a.d);
  expect(Array.from(b.X)).toEqual(Array.from(a.X));
  expect(Array.from(b.y)).toEqual(Array.from(a.y)); // NaN == NaN under toEqual
  expect(Array.from(b.labeled)).toEqual(Array.from(a.labeled));
  expect(b.featureNames).toEqual(a.featureNames);
  expect(b.labelName).toBe(a.labelName);
}

async function expectDataError(p: Promise<unknown> | (() => unknown), ...parts: (string | RegExp)[]): Promise<DataError> {
  let caught: unknown;
  try {
    await (typeof p === 'function' ? p() : p);
  } catch (err) {
    caught = err;
  }
  expect(caught).toBeInstanceOf(DataError);
  const msg = (caught as Error).message;
  for (const part of parts) {
    if (typeof part === 'string') expect(msg).toContain(part);
    else expect(msg).toMatch(part);
  }
  return caught as DataError;
}

describe('Arrow round trip', () => {
  it.each([
    ['file', 'rt.arrow'],
    ['stream', 'rt.arrows'],
  ])('writes and reads back the %s format exactly (values, unlabeled rows, names)', async (format, name) => {
    const path = join(dir, name);
    await writeArrow(path, sample());
    const bytes = await readFile(path);
    // The format on disk is the one asked for: the file format starts with the ARROW1 magic.
    expect(bytes.subarray(0, 6).toString() === 'ARROW1').toBe(format === 'file');
    const back = await readArrow(path, { labelColumn: 'target' });
    expectSame(sample(), back);
    expect(back.source).toBe(path);
    expect((await readdir(dir)).filter((f) => f.includes('.tmp-'))).toEqual([]);
  });

  it('reads integer, float32, int64 and boolean columns as numbers and a null label as unlabeled', async () => {
    const table = new Table({
      label: vectorFromArray([1, null, 0], new Int32()),
      i: vectorFromArray([1, -2, 3], new Int32()),
      f: vectorFromArray([0.5, 1.5, -2.5], new Float32()),
      big: vectorFromArray([10n, 20n, -30n], new Int64()),
      flag: vectorFromArray([true, false, true], new Bool()),
    });
    const ds = arrowBytesToDataset(tableToIPC(table, 'file'), 'mixed.arrow');
    expect(ds.featureNames).toEqual(['i', 'f', 'big', 'flag']);
    expect(Array.from(ds.X)).toEqual([1, 0.5, 10, 1, -2, 1.5, 20, 0, 3, -2.5, -30, 1]);
    expect(Array.from(ds.labeled)).toEqual([1, 0, 1]);
    expect(ds.y[2]).toBe(0);
  });

  it('uses only the requested feature columns, in the requested order', () => {
    const table = tableFromArrays({ label: new Float64Array([1, -1]), a: new Float64Array([1, 2]), b: new Float64Array([3, 4]) });
    const ds = arrowBytesToDataset(tableToIPC(table, 'stream'), 'sel.arrows', { featureColumns: ['b', 'a'] });
    expect(Array.from(ds.X)).toEqual([3, 1, 4, 2]);
  });

  it('reads a multi-batch stream completely', async () => {
    const schema = new Schema([new Field('label', new Float64(), true), new Field('x', new Float64(), false)]);
    const t1 = new Table(schema, { label: vectorFromArray([1, 2], new Float64()), x: vectorFromArray([10, 20], new Float64()) } as never);
    const bytes = RecordBatchStreamWriter.writeAll([...t1.batches, ...t1.batches]).toUint8Array(true);
    const ds = arrowBytesToDataset(bytes, 'multi.arrows');
    expect(Array.from(ds.X)).toEqual([10, 20, 10, 20]);
  });
});

describe('Arrow bad input', () => {
  it('rejects a text column, naming the file and the column', async () => {
    const table = new Table({ label: vectorFromArray([1, -1], new Float64()), name: vectorFromArray(['a', 'b'], new Utf8()) });
    await expectDataError(() => arrowBytesToDataset(tableToIPC(table), 'text.arrow'), 'text.arrow', "column 'name'", 'Utf8', 'numeric');
  });

  it('rejects a missing label column, naming the file, the column and what is there', async () => {
    const table = tableFromArrays({ y: new Float64Array([1]), a: new Float64Array([1]) });
    await expectDataError(() => arrowBytesToDataset(tableToIPC(table), 'nolabel.arrow'), 'nolabel.arrow', "column 'label'", 'not found', 'y, a');
  });

  it('rejects NaN and Infinity features with file, column and 1-based row', async () => {
    const nan = tableFromArrays({ label: new Float64Array([1, 1, 1]), a: new Float64Array([0, 1, 2]), b: new Float64Array([0, 0, NaN]) });
    await expectDataError(() => arrowBytesToDataset(tableToIPC(nan), 'nan.arrow'), "nan.arrow: column 'b', row 3", 'NaN');
    const inf = tableFromArrays({ label: new Float64Array([1, 1]), a: new Float64Array([-Infinity, 1]) });
    await expectDataError(() => arrowBytesToDataset(tableToIPC(inf), 'inf.arrow'), "inf.arrow: column 'a', row 1", 'Infinity');
  });

  it('reads nulls from the validity bitmap at any bit offset (a sliced column): labels as unlabeled, features as a located error', () => {
    // 40 rows, a null every 3rd label and none in 'a'; sliced from row 3, so each column's bitmap starts at bit 3.
    const labels = Array.from({ length: 40 }, (_, i) => (i % 3 === 0 ? null : i % 2 === 0 ? 1 : -1));
    const label = vectorFromArray(labels, new Float64()).slice(3, 38);
    const small = vectorFromArray(Array.from({ length: 40 }, (_, i) => (i % 5 === 1 ? null : i)), new Int32()).slice(3, 38);
    expect(label.data[0].offset).toBe(3);
    const ds = tableToDataset(new Table({ label, a: vectorFromArray(Array.from({ length: 40 }, (_, i) => i / 2), new Float64()).slice(3, 38) }), 'sliced');
    expect(Array.from(ds.y)).toEqual(labels.slice(3, 38).map((v) => v ?? NaN));
    expect(Array.from(ds.X)).toEqual(Array.from({ length: 35 }, (_, i) => (i + 3) / 2));
    // Rows 3 … of the int column: the first null is at source row 6, dataset row 4 (1-based).
    expect(() => tableToDataset(new Table({ label, b: small }), 'sliced-b')).toThrow("sliced-b: column 'b', row 4");
  });

  it('rejects a null feature value with file, column and row', async () => {
    const table = new Table({ label: vectorFromArray([1, 1], new Float64()), a: vectorFromArray([1, null], new Float64()) });
    await expectDataError(() => arrowBytesToDataset(tableToIPC(table), 'null.arrow'), "null.arrow: column 'a', row 2", 'null');
  });

  it('rejects an empty file and a file that is not Arrow', async () => {
    const empty = join(dir, 'empty.arrow');
    await writeFile(empty, '');
    await expectDataError(readArrow(empty), empty, 'empty');
    const junk = join(dir, 'junk.arrow');
    await writeFile(junk, 'label,a\n1,2\n');
    await expectDataError(readArrow(junk), junk, 'not Arrow');
    await expectDataError(readArrow(join(dir, 'absent.arrow')), 'absent.arrow', 'cannot read');
  });

  it('reports every truncation of a real Arrow file as truncated or corrupt, never as fewer rows', async () => {
    const full = await readFile(new URL('../data/breast_cancer.arrow', import.meta.url));
    const cuts = [1, 6, 8, 100, 500, Math.floor(full.length / 3), Math.floor(full.length / 2), full.length - 200, full.length - 11, full.length - 6, full.length - 1];
    for (const cut of cuts) {
      const path = join(dir, `cut-${cut}.arrow`);
      await writeFile(path, full.subarray(0, cut));
      await expectDataError(readArrow(path), path, /truncated|corrupt|not Arrow/);
    }
  });

  it('reports a stream cut exactly between record batches as truncated (apache-arrow alone would return fewer rows)', async () => {
    const ds = await readArrow(new URL('../data/breast_cancer.arrow', import.meta.url).pathname);
    const table = datasetToTable(ds);
    const slices = [table.slice(0, 200), table.slice(200, 400), table.slice(400)];
    const batches = slices.flatMap((t) => t.batches);
    const full = RecordBatchStreamWriter.writeAll(batches).toUint8Array(true);
    const boundaries: number[] = [];
    for (let k = 1; k < batches.length; k++) boundaries.push(RecordBatchStreamWriter.writeAll(batches.slice(0, k)).toUint8Array(true).length - 8);
    expect(new Set(boundaries).size).toBe(2);
    for (const cut of [...boundaries, 16, 300, full.length - 8, full.length - 1]) {
      const path = join(dir, `cut-${cut}.arrows`);
      await writeFile(path, full.subarray(0, cut));
      await expectDataError(readArrow(path), path, /truncated|corrupt/);
    }
    const whole = join(dir, 'whole.arrows');
    await writeFile(whole, full);
    expect((await readArrow(whole)).n).toBe(ds.n);
  });
});

describe('Arrow streaming read (readArrow reads batch by batch from disk)', () => {
  /** Five record batches of four rows; column 'b' is null at 1-based row `nullRow` (0 = nowhere). */
  function batchedTable(nullRow: number): Table {
    const rows = 20;
    const label = Array.from({ length: rows }, (_, i) => (i % 3 === 0 ? null : i % 2 === 0 ? 1 : -1));
    const a = Array.from({ length: rows }, (_, i) => i + 0.5);
    const b = Array.from({ length: rows }, (_, i) => (i + 1 === nullRow ? null : -i));
    const whole = new Table({ label: vectorFromArray(label, new Float64()), a: vectorFromArray(a, new Float64()), b: vectorFromArray(b, new Float64()) });
    const slices = [0, 4, 8, 12, 16].map((start) => whole.slice(start, start + 4));
    return new Table(slices.flatMap((t) => t.batches));
  }

  it.each([
    ['file', 'nb.arrow'],
    ['stream', 'nb.arrows'],
  ] as const)('names the dataset row (not the row within the batch) of a null feature in the 3rd batch of a %s', async (format, name) => {
    const table = batchedTable(10);
    const bytes = tableToIPC(table, format);
    const path = join(dir, name);
    await writeFile(path, bytes);
    // The file really holds several batches, so row 10 is row 2 of batch 3.
    expect(tableFromIPC(bytes).batches.map((bt) => bt.numRows)).toEqual([4, 4, 4, 4, 4]);
    await expectDataError(readArrow(path), `${path}: column 'b', row 10`, 'null');
    await expectDataError(() => arrowBytesToDataset(bytes, name), `${name}: column 'b', row 10`, 'null');
  });

  it.each([
    ['file', 'mb.arrow'],
    ['stream', 'mb.arrows'],
  ] as const)('reads a multi-batch %s into the same rows, in order, with unlabeled rows kept', async (format, name) => {
    const path = join(dir, name);
    await writeFile(path, tableToIPC(batchedTable(0), format));
    const ds = await readArrow(path);
    expect(ds.n).toBe(20);
    expect(Array.from(ds.X.subarray(0, 6))).toEqual([0.5, -0, 1.5, -1, 2.5, -2]);
    expect(Array.from(ds.X.subarray(38))).toEqual([19.5, -19]);
    expect(Array.from(ds.labeled).filter((v) => v === 0).length).toBe(7); // rows 0, 3, …, 18
    expectSame(arrowBytesToDataset(await readFile(path), path), ds);
  });

  it.each(['spam', 'breast_cancer', 'diabetes'])('reads bundled %s from disk exactly as from memory, in file and multi-batch stream form', async (name) => {
    const filePath = new URL(`../data/${name}.arrow`, import.meta.url).pathname;
    const bytes = await readFile(filePath);
    const fromMemory = arrowBytesToDataset(bytes, filePath);
    const streamed = await readArrow(filePath);
    expectSame(fromMemory, streamed);
    // The same rows as a stream of four batches.
    const table = tableFromIPC(bytes);
    const size = Math.ceil(table.numRows / 4);
    const batches: RecordBatch[] = [];
    for (let start = 0; start < table.numRows; start += size) batches.push(...table.slice(start, start + size).batches);
    const streamPath = join(dir, `${name}.arrows`);
    await writeFile(streamPath, RecordBatchStreamWriter.writeAll(batches).toUint8Array(true));
    expect(batches.length).toBe(4);
    expectSame(fromMemory, await readArrow(streamPath));
  });

  it.each([
    ['file', 'empty-rows.arrow'],
    ['stream', 'empty-rows.arrows'],
  ] as const)('reads a %s with a schema and no record batches as zero rows with the columns named', async (format, name) => {
    const schema = new Schema([new Field('label', new Float64(), true), new Field('x', new Float64(), false)]);
    const bytes = tableToIPC(new Table(schema), format);
    const path = join(dir, name);
    await writeFile(path, bytes);
    const ds = await readArrow(path);
    expect(ds.n).toBe(0);
    expect(ds.featureNames).toEqual(['x']);
    expectSame(arrowBytesToDataset(bytes, name), ds);
  });

  it('reports a file whose footer points past the data as corrupt, naming the file', async () => {
    const bytes = Buffer.from(tableToIPC(batchedTable(0), 'file'));
    // The footer's blocks hold each batch's offset as an int64; move the last batch's past the end of the file.
    const footerLength = bytes.readInt32LE(bytes.length - 10);
    const footer = bytes.subarray(bytes.length - 10 - footerLength, bytes.length - 10);
    const reader = RecordBatchReader.from(bytes);
    reader.open();
    const offsets = [...reader.footer!.recordBatches()].map((block) => block.offset);
    expect(offsets.length).toBe(5);
    let patched = 0;
    for (let p = 0; p + 8 <= footer.length; p += 8) {
      if (Number(footer.readBigInt64LE(p)) === offsets[4]) {
        footer.writeBigInt64LE(BigInt(bytes.length * 2), p);
        patched++;
      }
    }
    expect(patched).toBe(1);
    const path = join(dir, 'bad-footer.arrow');
    await writeFile(path, bytes);
    await expectDataError(readArrow(path), path, 'corrupt or truncated');
  });
});
