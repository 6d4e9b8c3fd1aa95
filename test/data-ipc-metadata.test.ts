import { execFile } from 'node:child_process';
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Field, Float64, Schema, Struct, Table, tableToIPC } from 'apache-arrow';
import { ByteBuffer } from 'flatbuffers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { arrowBytesToDataset, encodeArrow, readArrow } from '../src/data/arrow.ts';
import { makeDataset } from '../src/data/dataset.ts';
import { ipcLayout, ipcLayoutOfHandle } from '../src/data/ipc-layout.ts';
import { DataError } from '../src/errors.ts';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'dsgkit-ipc-meta-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const fixture = (path: string) => new URL(`./fixtures/${path}`, import.meta.url).pathname;
const OOM = fixture('fuzz/schema-decoder-oom.arrows');

/** The error `f` throws or rejects with (fails the test when there is none). */
async function errorOf(f: () => unknown): Promise<Error> {
  try {
    await f();
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected an error, got a result');
}

/** Reads `bytes` both ways — in memory as `name`, and streamed from a file `name` in the scratch folder — and returns both errors. */
async function bothErrors(bytes: Uint8Array, name: string): Promise<{ memory: Error; file: Error; path: string }> {
  const path = join(dir, name);
  await writeFile(path, bytes);
  return { memory: await errorOf(() => arrowBytesToDataset(bytes, name)), file: await errorOf(() => readArrow(path)), path };
}

describe('the schema that exhausted the heap (fuzz fixture schema-decoder-oom.arrows)', () => {
  const problem = 'the message at byte 0: Message.header(Schema).fields lists 402653188 entries of 4 bytes, more than the 290-byte metadata holds';

  it('is a DataError naming the file and the corrupt vector, in memory and streamed from disk', async () => {
    const bytes = await readFile(OOM);
    const memory = await errorOf(() => arrowBytesToDataset(bytes, 'found.arrows'));
    expect(memory).toBeInstanceOf(DataError);
    expect(memory.message).toBe(`found.arrows: not a readable Arrow IPC file (corrupt or truncated): ${problem}`);
    const file = await errorOf(() => readArrow(OOM));
    expect(file).toBeInstanceOf(DataError);
    expect(file.message).toBe(`${OOM}: not a readable Arrow IPC file (corrupt or truncated): ${problem}`);
  });

  it('makes the CLI exit 1 with that message (a child process on a 256 MB heap: no abort)', async () => {
    const entry = new URL('../src/cli/main.ts', import.meta.url).pathname;
    const r = await promisify(execFile)(process.execPath, ['--max-old-space-size=256', '--import', 'tsx', entry, 'describe', OOM]).catch(
      (e: { code: number; signal: string | null; stdout: string; stderr: string }) => e,
    );
    expect(r).toMatchObject({ code: 1, signal: null, stdout: '' });
    expect((r as { stderr: string }).stderr).toBe(`dsgkit: ${OOM}: not a readable Arrow IPC file (corrupt or truncated): ${problem}\n`);
  });
});

describe('valid files written by Arrow C++ (pyarrow; test/fixtures/pyarrow/make.py) pass the metadata check', () => {
  // Every column type, a dictionary, nested types, schema and field metadata; stream,
  // file, pre-1.0 framing, metadata V4 and an LZ4 body — batches of 2, 2 and 1 rows.
  const expected: Record<string, 'file' | 'stream'> = {
    'all.arrows': 'stream',
    'all.arrow': 'file',
    'all-legacy.arrows': 'stream',
    'all-v4.arrows': 'stream',
    'numeric-lz4.arrow': 'file',
  };

  it('every fixture is here', async () => {
    expect((await readdir(fixture('pyarrow'))).filter((f) => /\.arrows?$/.test(f)).sort()).toEqual(Object.keys(expected).sort());
  });

  for (const [name, format] of Object.entries(expected)) {
    it(`${name}: every message (and the footer) is checked and accepted, in memory and from an open file`, async () => {
      const path = fixture(`pyarrow/${name}`);
      expect(ipcLayout(await readFile(path), name)).toMatchObject({ format, rows: [2, 2, 1] });
      const fh = await open(path);
      try {
        expect(await ipcLayoutOfHandle(fh, name)).toMatchObject({ format, rows: [2, 2, 1] });
      } finally {
        await fh.close();
      }
    });
  }

  it("what apache-arrow cannot decode (run-end encoding, LZ4 bodies) is a DataError from the decoder, not from the check", async () => {
    for (const [name, cannot] of [['all.arrows', /Unrecognized type: "RunEndEncoded"/], ['numeric-lz4.arrow', /codec not found/]] as const) {
      const err = await errorOf(() => readArrow(fixture(`pyarrow/${name}`)));
      expect(err).toBeInstanceOf(DataError);
      expect(err.message).toMatch(cannot);
    }
  });
});

describe('hand-corrupted metadata is a located DataError, the same in memory and streamed from disk', () => {
  const ds = makeDataset({ X: new Float64Array([0.5, 1, -2, 3]), d: 2, y: new Float64Array([1, -1]), featureNames: ['a', 'b'], labelName: 'label' });
  const stream = encodeArrow(ds, 'stream');
  const META = 8; // a stream's first message: 0xFFFFFFFF, int32 length, then the metadata flatbuffer

  /** Absolute byte positions in the schema message of `stream`: the fields vector's length word and its first entry's offset word. */
  function schemaFields(bytes: Uint8Array): { lengthAt: number; entry0At: number } {
    const bb = new ByteBuffer(bytes.subarray(META));
    const message = bb.readInt32(0);
    const schema = bb.__indirect(message + bb.__offset(message, 8)); // Message.header
    const fields = bb.__vector(schema + bb.__offset(schema, 6)); // Schema.fields
    return { lengthAt: META + fields - 4, entry0At: META + fields };
  }

  function patched(at: number, value: number, from = stream): Uint8Array {
    const b = Uint8Array.from(from);
    new DataView(b.buffer).setInt32(at, value, true);
    return b;
  }

  async function expectLocated(bytes: Uint8Array, name: string, problem: RegExp): Promise<void> {
    const { memory, file, path } = await bothErrors(bytes, name);
    expect(memory).toBeInstanceOf(DataError);
    expect(file).toBeInstanceOf(DataError);
    expect(memory.message).toMatch(new RegExp(`^${name.replace('.', '\\.')}: not a readable Arrow IPC file \\(corrupt or truncated\\): `));
    expect(memory.message).toMatch(problem);
    expect(file.message).toBe(memory.message.replace(name, path));
  }

  it('the unpatched stream reads (the patches below are what breaks it)', () => {
    expect(arrowBytesToDataset(stream, 'ok.arrows').n).toBe(2);
  });

  it('a vector length past the end of the metadata', async () => {
    const { lengthAt } = schemaFields(stream);
    await expectLocated(patched(lengthAt, 1_000_000), 'long.arrows', /the message at byte 0: Message\.header\(Schema\)\.fields lists 1000000 entries of 4 bytes, more than the \d+-byte metadata holds$/);
  });

  it('an offset pointing backwards', async () => {
    const { entry0At } = schemaFields(stream);
    await expectLocated(patched(entry0At, -8), 'back.arrows', /the message at byte 0: Message\.header\(Schema\)\.fields\[0\] is not a forward offset \(-8\)$/);
  });

  it('an offset pointing past the end of the metadata', async () => {
    const { entry0At } = schemaFields(stream);
    await expectLocated(patched(entry0At, 100_000), 'far.arrows', /the message at byte 0: the object Message\.header\(Schema\)\.fields\[0\] points at lies outside the \d+-byte metadata/);
  });

  it("a file footer's record-batch list longer than the footer", async () => {
    const file = encodeArrow(ds, 'file');
    const size = file.length;
    const footerLength = new DataView(file.buffer, file.byteOffset).getInt32(size - 10, true);
    const footerStart = size - 10 - footerLength;
    const bb = new ByteBuffer(file.subarray(footerStart, size - 10));
    const root = bb.readInt32(0);
    const batches = bb.__vector(root + bb.__offset(root, 10)); // Footer.recordBatches
    await expectLocated(patched(footerStart + batches - 4, 50_000, file), 'footer.arrow', /the footer: Footer\.recordBatches lists 50000 entries of 24 bytes, more than the \d+-byte metadata holds$/);
  });

  /** A stream whose one column is `depth` structs nested in one another, around a double. */
  function nested(depth: number): Uint8Array {
    let field: Field = new Field('x', new Float64(), true);
    for (let i = 0; i < depth; i++) field = new Field(`s${i}`, new Struct([field]), true);
    return tableToIPC(new Table(new Schema([field])), 'stream');
  }

  it('tables nested more than 128 deep (as Arrow C++ refuses), while 100 nested structs pass the check', async () => {
    await expectLocated(nested(130), 'deep.arrows', /the message at byte 0: Message\.header\(Schema\)\.fields\[0\](\.children\[0\])+\.type\(Struct_\) is nested more than 128 tables deep$/);
    expect(ipcLayout(nested(100), 'fine.arrows')).toEqual({ format: 'stream', rows: [] });
  });
});

describe('two streams one after the other in one file', () => {
  it('are a located DataError, not the first stream read alone (its rows would be all that is read)', async () => {
    const one = encodeArrow(makeDataset({ X: Float64Array.of(1, 2, 3, 4), d: 2, y: Float64Array.of(1, -1), featureNames: ['a', 'b'], labelName: 'label' }), 'stream');
    expect(ipcLayout(one, 'one.arrows')).toEqual({ format: 'stream', rows: [2] });
    const two = new Uint8Array(2 * one.length);
    two.set(one, 0);
    two.set(one, one.length);
    const { memory, file, path } = await bothErrors(two, 'two.arrows');
    expect(memory).toBeInstanceOf(DataError);
    expect(memory.message).toBe(`two.arrows: not a readable Arrow IPC file (corrupt or truncated): ${one.length} bytes follow the end-of-stream marker at byte ${one.length - 8} (two streams one after the other?); a file holds one stream`);
    expect(file.message).toBe(memory.message.replace('two.arrows', path));
  });
});
