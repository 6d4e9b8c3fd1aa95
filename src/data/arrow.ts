/**
 * Arrow IPC in and out: the native on-disk form of a {@link Dataset}.
 *
 * Both IPC flavours are read: the *file* format (`ARROW1` magic, footer,
 * random access; usual extensions `.arrow`, `.feather`) and the *stream*
 * format (a sequence of messages closed by an end-of-stream marker; usual
 * extension `.arrows`). apache-arrow parses either one, but on some
 * truncations it silently returns the batches it could read; so before
 * parsing, the framing is checked (closing magic and footer length of a file,
 * end-of-stream marker of a stream; see `ipc-layout.ts`) and a short file is
 * reported as truncated instead of read half. Every message's metadata and
 * the file footer are checked too (`ipc-metadata.ts`) before apache-arrow
 * decodes them, as its decoder trusts the vector lengths it reads: corrupt
 * metadata is a {@link DataError}, not an exhausted heap.
 *
 * {@link readArrow} streams: it reads the framing and the batches' row counts
 * from the message headers, allocates the row-major `X` once, then copies one
 * record batch at a time, so memory peaks at about `X` + `y` + one batch
 * instead of file bytes + Arrow table + `X`.
 */
import { constants, type Stats } from 'node:fs';
import { open, stat, writeFile, type FileHandle } from 'node:fs/promises';
import { extname } from 'node:path';
import {
  type AsyncRecordBatchFileReader,
  type AsyncRecordBatchStreamReader,
  Field,
  Float,
  Float64,
  Int,
  Dictionary,
  Precision,
  Utf8,
  vectorFromArray,
  RecordBatch,
  RecordBatchReader,
  Schema,
  Struct,
  Table,
  Type,
  makeData,
  tableFromIPC,
  tableToIPC,
  type DataType,
  type Vector,
} from 'apache-arrow';
import './arrow-linear.ts';
import { DataError } from '../errors.ts';
import { LabelCoder, type ClassOptions, type LabelKind } from './class-labels.ts';
import { withAtomicFile } from './atomic.ts';
import { makeDataset, type Dataset } from './dataset.ts';
import { allocateFloat64 } from './row-batches.ts';
import { ipcLayout, ipcLayoutOfHandle, type ArrowFormat, type BatchBody, type IpcLayout } from './ipc-layout.ts';
import { MAX_COLUMNS, requireLabelColumn, validateDataset, validateFeatures, validateLabels, validateRows } from './validate.ts';
import { RowKernel } from './row-kernel.ts';
import type { MinMaxScaler } from './scaler.ts';
import type { RowBatch } from './row-batches.ts';
import type { RowSource } from './row-source.ts';
import { thousands } from './numbers.ts';

export type { ArrowFormat } from './ipc-layout.ts';

/** Options shared by every reader. */
export interface ReadOptions extends ClassOptions {
  /** Name of the label column (default `'label'`). */
  labelColumn?: string;
  /** Feature columns to use, in this order (default: every column except the label). */
  featureColumns?: readonly string[];
  /**
   * When true, a file without the label column is read as entirely unlabeled
   * (for prediction inputs). Default false: a missing label column is an error.
   */
  allowMissingLabel?: boolean;
}

function corrupt(file: string, err: unknown): DataError {
  return new DataError(`not a readable Arrow IPC file (corrupt or truncated): ${(err as Error).message}`, { file }, { cause: err });
}

/**
 * Parses Arrow IPC bytes (file or stream format) into a validated {@link Dataset}.
 * `file` is only used in error messages and as the dataset's `source`.
 *
 * @example
 * const ds = arrowBytesToDataset(bytes, 'in-memory.arrow', { labelColumn: 'y' });
 */
export function arrowBytesToDataset(bytes: Uint8Array, file: string, opts: ReadOptions = {}): Dataset {
  // Framing, then every message and footer apache-arrow will decode, checked first.
  const { format } = ipcLayout(bytes, file);
  let table: Table;
  try {
    table = format === 'file' ? fileTable(bytes) : tableFromIPC(bytes);
  } catch (err) {
    throw corrupt(file, err);
  }
  return tableToDataset(table, file, opts);
}

/**
 * The record batches a file-format footer lists, read by index. (Iterating
 * apache-arrow's file reader instead loops forever when a footer block points
 * at a schema or dictionary message — found by fuzzing; reading by index
 * checks that each block holds a record batch.)
 */
function fileTable(bytes: Uint8Array): Table {
  const reader = RecordBatchReader.from(bytes);
  if (!reader.isFile()) throw new Error('not the file format');
  reader.open();
  const batches: RecordBatch[] = [];
  for (let i = 0; i < reader.numRecordBatches; i++) {
    const batch = reader.readRecordBatch(i);
    if (!batch) throw new Error(`the footer lists record batch ${i + 1}, which cannot be read`);
    batches.push(batch);
  }
  return new Table(reader.schema, batches);
}

/**
 * Reads an Arrow IPC file or stream from disk into a validated {@link Dataset}.
 * Numeric columns only (integers, floats, booleans → 0/1); a null label means
 * the row is unlabeled; a null feature is an error. Streams the record
 * batches: the file is never held in memory whole.
 *
 * @example
 * const ds = await readArrow('data/spam.arrow');
 * ds.n; // 4601
 * ds.d; // 57
 */
export async function readArrow(path: string, opts: ReadOptions = {}): Promise<Dataset> {
  const fh = await openFile(path);
  try {
    return await readOpenArrow(fh, path, opts);
  } finally {
    await fh.close(); // the reader may have closed it already; a second close is a no-op
  }
}

/** An opened Arrow reader with its column plan and the row count of every record batch (from the headers). */
interface OpenedArrow {
  readonly reader: AsyncRecordBatchFileReader | AsyncRecordBatchStreamReader;
  readonly plan: ColumnPlan;
  readonly rows: number[];
  readonly format: ArrowFormat;
  readonly size: number;
  /** The file format's record batch bodies (undefined for a stream). */
  readonly bodies: readonly BatchBody[] | undefined;
}

async function openReader(opened: FileHandle, file: string, opts: ReadOptions): Promise<OpenedArrow> {
  const atOpen = await opened.stat();
  const fh = guardReads(opened, file, atOpen.size, atOpen);
  // Framing, every message and footer apache-arrow will decode (checked first), and the
  // batches' row counts from their headers, so X is allocated once at its final size.
  let layout: IpcLayout;
  try {
    layout = await ipcLayoutOfHandle(fh, file);
  } catch (err) {
    if (err instanceof DataError) throw err;
    throw new DataError(`cannot read file: ${(err as Error).message}`, { file }, { cause: err });
  }
  const { format, rows } = layout;
  const { size } = await fh.stat();
  let reader: AsyncRecordBatchFileReader | AsyncRecordBatchStreamReader;
  try {
    reader = await RecordBatchReader.from(fh);
    await reader.open({ autoDestroy: false }); // the handle is closed by the caller
  } catch (err) {
    throw corrupt(file, err);
  }
  if (!reader.schema) throw corrupt(file, new Error('no schema message'));
  const plan = planColumns(reader.schema, file, opts);
  return { reader, plan, rows, format, size, bodies: layout.bodies };
}

/**
 * The record batches of an opened reader with the dataset row of each one's
 * first row, each checked against the row count its header gave.
 */
async function* recordBatches(opened: Pick<OpenedArrow, 'reader' | 'rows' | 'format'>, file: string): AsyncGenerator<{ batch: RecordBatch; row0: number }> {
  const { reader, rows } = opened;
  let row0 = 0;
  let b = 0;
  try {
    // A file's batches are read by index, as its footer lists them (see fileTable: iterating loops forever on a block that is no record batch).
    const all = opened.format === 'file' ? batchesByIndex(reader as AsyncRecordBatchFileReader, rows.length) : reader;
    for await (const batch of all) {
      // apache-arrow hands out one empty placeholder batch when there are none.
      if (rows.length === 0 && b === 0 && batch.numRows === 0) continue;
      if (b >= rows.length || batch.numRows !== rows[b]) {
        throw new Error(`record batch ${b + 1} has ${batch.numRows} rows; its header says ${rows[b] ?? 'there is no such batch'}`);
      }
      yield { batch, row0 };
      row0 += batch.numRows;
      b++;
    }
  } catch (err) {
    if (err instanceof DataError) throw err;
    throw corrupt(file, err);
  }
  if (b !== rows.length) throw corrupt(file, new Error(`read ${b} record batches of the ${rows.length} the headers list`));
}

/** An Arrow IPC file opened for its record batches, whatever its columns ({@link openArrowBatches}). */
export interface ArrowBatches {
  /** The column names, in order. */
  readonly names: string[];
  /** The record batches, in order; closes the file at the end. */
  batches(): AsyncGenerator<RecordBatch>;
  /** Closes the file without reading the batches. */
  close(): Promise<void>;
}

/**
 * The record batches of an Arrow IPC file (file or stream format) whatever
 * its columns — for files that are not training data, such as predictions —
 * with every message and footer checked first as {@link readArrow} checks
 * them: a corrupt file is a DataError naming it, never a crash.
 *
 * @example
 * const f = await openArrowBatches('scores.arrow');
 * f.names; // ['score', 'predicted', 'label']
 * for await (const batch of f.batches()) console.log(batch.numRows);
 */
export async function openArrowBatches(path: string): Promise<ArrowBatches> {
  const file = await openFile(path);
  // Read through the guard, as training data are: a file that shrinks or changes under the read is a DataError, not a spin.
  const atOpen = await file.stat();
  const fh = guardReads(file, path, atOpen.size, atOpen);
  let reader: AsyncRecordBatchFileReader | AsyncRecordBatchStreamReader;
  let rows: number[];
  let format: ArrowFormat;
  try {
    try {
      ({ rows, format } = await ipcLayoutOfHandle(fh, path));
    } catch (err) {
      if (err instanceof DataError) throw err;
      throw new DataError(`cannot read file: ${(err as Error).message}`, { file: path }, { cause: err });
    }
    try {
      reader = await RecordBatchReader.from(fh);
      await reader.open({ autoDestroy: false }); // the handle is closed below
    } catch (err) {
      throw corrupt(path, err);
    }
    if (!reader.schema) throw corrupt(path, new Error('no schema message'));
  } catch (err) {
    await file.close();
    throw err;
  }
  const opened = { reader, rows, format };
  return {
    names: reader.schema.fields.map((f) => f.name),
    async *batches() {
      try {
        for await (const { batch } of recordBatches(opened, path)) yield batch;
      } finally {
        await file.close();
      }
    },
    close: () => file.close(),
  };
}

/** The record batches of a file-format reader read by index from its footer (a batch the footer lists but the file no longer holds is an error). */
async function* batchesByIndex(reader: AsyncRecordBatchFileReader, count: number): AsyncGenerator<RecordBatch> {
  for (let i = 0; i < count; i++) {
    const batch = await reader.readRecordBatch(i);
    if (!batch) throw new Error(`the footer lists record batch ${i + 1}, which cannot be read`);
    yield batch;
  }
}

async function readOpenArrow(fh: FileHandle, file: string, opts: ReadOptions): Promise<Dataset> {
  const opened = await openReader(fh, file, opts);
  const { plan, rows } = opened;
  const n = rows.reduce((a, b) => a + b, 0);
  const d = plan.featureNames.length;
  const X = allocateFloat64(n * d, `the ${n} rows × ${d} features the batch headers list`, { file });
  const y = allocateFloat64(n, `${n} labels`, { file }).fill(NaN);
  if (opened.bodies !== undefined && plainBodies(opened.reader.schema, plan, opened.bodies)) {
    // Plain numeric columns: read from the bodies a block at a time, made into rows and checked in the row
    // kernel (what sample on read's passes do), instead of decoded by apache-arrow a record batch at a time.
    let row0 = 0;
    for await (const b of plainBatches(fh, await fh.stat(), opened.reader.schema, opened.bodies, plan, file)) {
      X.set(b.X.subarray(0, b.n * d), row0 * d);
      y.set(b.y.subarray(0, b.n), row0);
      row0 += b.n;
    }
    return planToDataset(plan, X, y, file, true);
  }
  for await (const { batch, row0 } of recordBatches(opened, file)) copyBatch(batch, plan, X, y, row0, row0, file);
  return planToDataset(plan, X, y, file);
}

/** An Arrow IPC file opened for streaming: its columns, its rows (counted from the message headers), its rows batch by batch. */
export interface ArrowRows extends RowSource {
  /** Rows in the file. */
  readonly n: number;
  readonly format: ArrowFormat;
  /** Size of the file in bytes. */
  readonly bytes: number;
  /** Rows of each record batch, in order. */
  readonly batchRows: readonly number[];
  /** Whether the file has the label column (without it every label is NaN: unlabeled). */
  readonly hasLabelColumn: boolean;
  /**
   * The rows, one record batch at a time (row-major `X`, labels `y`; class-name
   * labels as provisional indices until `labels.finish`), each batch checked
   * like {@link validateDataset} checks a dataset (a DataError names the file,
   * column and dataset row). Each call reads the file again from the start.
   *
   * With `range`, only record batches `first … end − 1` (0-based) are
   * checked and handed out, their errors still naming the dataset row; in
   * the file format the others are not even read (the footer locates each
   * batch), in the stream format they are read past. A distributed
   * `predict` scores one range per job this way.
   *
   * With `reuse`, every batch is written into the same `X` and `y` (the
   * previous batch's values are gone once the next is asked for): for a
   * caller that is done with a batch before it asks for the next, a pass
   * over a file then allocates (and the system zero-fills) no new rows a batch.
   *
   * With `scale`, each batch's rows are handed out scaled by it (checked
   * first, as read): the values of `scale.transformInPlace(X)`.
   *
   * @example
   * for await (const b of rows.batches({ first: 4, end: 8 })) score(b);
   * for await (const b of rows.batches(undefined, { reuse: true })) range.add(b.X, 0, b.n); // one X for the whole pass
   * for await (const b of rows.batches(undefined, { reuse: true, scale: scaler })) fingerprint.features(b.X);
   * for await (const b of rows.batches(undefined, { reuse: true, columns: true })) range.addBatch(b); // columns where the file has them
   */
  batches(range?: BatchRange, opts?: BatchOptions): AsyncGenerator<RowBatch>;
}

/** How {@link ArrowRows.batches} hands its rows out. */
export interface BatchOptions {
  /** Every batch in the same buffers (a batch's rows are gone once the next is asked for). */
  readonly reuse?: boolean;
  /** Rows scaled by this scaler (after they are checked). */
  readonly scale?: MinMaxScaler;
  /**
   * Blocks read column by column (a file of plain numeric columns, read with
   * `reuse`) are handed out as their checked columns, no rows made (`X`
   * empty): for a pass that needs only per-column statistics. Other batches
   * come as rows. Not with `scale`.
   */
  readonly columns?: boolean;
}

/** Record batches `first … end − 1` of a file (0-based, `end` exclusive). */
export interface BatchRange {
  readonly first: number;
  readonly end: number;
}

/**
 * Opens an Arrow IPC file or stream for reading batch by batch, in flat
 * memory: the schema is checked and the rows counted from the headers now;
 * {@link ArrowRows.batches} reads the data.
 *
 * @example
 * const src = await openArrowRows('big.arrow');
 * for await (const { n, X, y } of src.batches()) console.log(n, X.length / n, y[0]);
 */
export async function openArrowRows(path: string, opts: ReadOptions = {}): Promise<ArrowRows> {
  const fh = await openFile(path);
  let head: OpenedArrow;
  let first: Stats;
  try {
    first = await fh.stat();
    head = await openReader(fh, path, opts);
  } finally {
    await fh.close();
  }
  const { plan, rows, format, size } = head;
  const d = plan.featureNames.length;
  return {
    file: path,
    featureNames: plan.featureNames,
    labelName: plan.labelName,
    labels: plan.labels,
    n: rows.reduce((a, b) => a + b, 0),
    format,
    bytes: size,
    batchRows: rows,
    hasLabelColumn: plan.labelIndex >= 0,
    async *batches(range?: BatchRange, batchOpts: BatchOptions = {}): AsyncGenerator<RowBatch> {
      if (range && !(Number.isInteger(range.first) && Number.isInteger(range.end) && 0 <= range.first && range.first <= range.end && range.end <= rows.length)) {
        throw new DataError(`record batches ${range.first} … ${range.end - 1} asked for; the file has ${rows.length}`, { file: path });
      }
      if (batchOpts.columns === true && batchOpts.scale !== undefined) throw new RangeError('batches: columns and scale together');
      const handle = await openFile(path);
      try {
        // Each pass opens the path again: it must still be the file the first open planned (not replaced by
        // `mv`, rewritten or resized in between), or the passes would mix two files' rows and scaler.
        const now = await handle.stat();
        if (now.ino !== first.ino || now.dev !== first.dev || now.size !== first.size || now.mtimeMs !== first.mtimeMs || now.ctimeMs !== first.ctimeMs) {
          throw new DataError('the file changed since it was first read (replaced, rewritten or resized between two passes over it): another program is writing it — run again once it is complete', { file: path });
        }
        const opened = await openReader(handle, path, opts);
        // Same column plan as the first open, but the label coder of the first open (class names seen so far).
        const again: OpenedArrow = { ...opened, plan: { ...opened.plan, labels: plan.labels } };
        if (batchOpts.reuse === true && range === undefined && again.bodies !== undefined && plainBodies(again.reader.schema, again.plan, again.bodies)) {
          yield* plainBatches(handle, now, again.reader.schema, again.bodies, again.plan, path, batchOpts.columns === true ? 'columns' : batchOpts.scale);
          return;
        }
        const source = range ? batchRange(again, path, range) : recordBatches(again, path);
        let bufX = new Float64Array(0);
        let bufY = new Float64Array(0);
        for await (const { batch, row0 } of source) {
          const n = batch.numRows;
          if (batchOpts.reuse === true && bufY.length < n) {
            bufX = new Float64Array(n * d);
            bufY = new Float64Array(n);
          }
          // copyBatch writes every value of X; y only where there is a label column.
          const X = batchOpts.reuse === true ? bufX.subarray(0, n * d) : new Float64Array(n * d);
          const y = (batchOpts.reuse === true ? bufY.subarray(0, n) : new Float64Array(n)).fill(NaN);
          copyBatch(batch, again.plan, X, y, 0, row0, path);
          validateRows({ X, y, d, row0, file: path, featureNames: plan.featureNames, labelName: plan.labelName });
          batchOpts.scale?.transformInPlace(X);
          yield { n, X, y };
        }
      } finally {
        await handle.close();
      }
    },
  };
}

/**
 * Record batches `range.first … range.end − 1` of an opened reader with the
 * dataset row of each one's first row: read one by one through the footer
 * in the file format, read past up to `first` in the stream format.
 */
async function* batchRange(opened: OpenedArrow, file: string, range: BatchRange): AsyncGenerator<{ batch: RecordBatch; row0: number }> {
  const { reader, rows } = opened;
  let row0 = 0;
  for (let b = 0; b < range.first; b++) row0 += rows[b];
  if (!reader.isFile()) {
    let b = 0;
    for await (const got of recordBatches(opened, file)) {
      if (b >= range.end) break;
      if (b++ >= range.first) yield got;
    }
    return;
  }
  for (let b = range.first; b < range.end; b++) {
    let batch: RecordBatch | null;
    try {
      batch = await reader.readRecordBatch(b);
    } catch (err) {
      throw corrupt(file, err);
    }
    if (!batch || batch.numRows !== rows[b]) throw corrupt(file, new Error(`record batch ${b + 1} has ${batch?.numRows ?? 'no'} rows; its header says ${rows[b]}`));
    yield { batch, row0 };
    row0 += batch.numRows;
  }
}

/** Bytes of unknown length: a Node readable stream (stdin, a pipe, a socket) or any async iterable of chunks. */
export type ByteStream = NodeJS.ReadableStream | AsyncIterable<Uint8Array>;

/**
 * Whether `x` is a {@link ByteStream} (not a path, a Table or a Dataset).
 *
 * @example
 * isByteStream(process.stdin); // true
 */
export function isByteStream(x: unknown): x is ByteStream {
  return x !== null && typeof x === 'object' && (Symbol.asyncIterator in x || typeof (x as NodeJS.ReadableStream).pipe === 'function');
}

/**
 * An Arrow IPC stream of unknown length (stdin, a pipe) read once, batch by
 * batch, in flat memory: the schema is read and checked now; each batch is
 * checked like {@link validateDataset} checks a dataset (a DataError names
 * `name`, the column and the row). The row count is known only at the end.
 *
 * @example
 * const src = await openArrowStream(process.stdin, 'stdin');
 * for await (const { n, X } of src.batches()) console.log(n, X.length / n);
 */
export async function openArrowStream(bytes: ByteStream, name: string, opts: ReadOptions = {}): Promise<RowSource> {
  let reader: AsyncRecordBatchFileReader | AsyncRecordBatchStreamReader;
  try {
    // apache-arrow reads an object-mode Node stream's chunks as messages, not bytes: hand it over as an iterable of bytes.
    const source = (bytes as { readableObjectMode?: boolean }).readableObjectMode === true ? chunksOf(bytes as AsyncIterable<Uint8Array>) : bytes;
    reader = (await RecordBatchReader.from(source as AsyncIterable<Uint8Array>)) as AsyncRecordBatchStreamReader;
    await reader.open();
  } catch (err) {
    throw corrupt(name, err);
  }
  if (!reader.schema) throw corrupt(name, new Error('no schema message'));
  const plan = planColumns(reader.schema, name, opts);
  const d = plan.featureNames.length;
  let read = false;
  return {
    file: name,
    featureNames: plan.featureNames,
    labelName: plan.labelName,
    labels: plan.labels,
    async *batches(): AsyncGenerator<RowBatch> {
      if (read) throw new Error(`${name}: a stream can be read once`);
      read = true;
      let row0 = 0;
      const it = reader[Symbol.asyncIterator]();
      for (;;) {
        let next: IteratorResult<RecordBatch>;
        try {
          next = await it.next();
        } catch (err) {
          throw corrupt(name, err);
        }
        if (next.done) break;
        const batch = next.value;
        const n = batch.numRows;
        if (n === 0) continue;
        const X = new Float64Array(n * d);
        const y = new Float64Array(n).fill(NaN);
        copyBatch(batch, plan, X, y, 0, row0, name);
        validateRows({ X, y, d, row0, file: name, featureNames: plan.featureNames, labelName: plan.labelName });
        yield { n, X, y };
        row0 += n;
      }
    },
  };
}

async function* chunksOf(bytes: AsyncIterable<Uint8Array>): AsyncGenerator<Uint8Array> {
  for await (const chunk of bytes) yield chunk;
}

/**
 * Opens `path` for reading without ever blocking on it: with `O_NONBLOCK`,
 * so a named pipe (FIFO) with no writer does not hang the open — a blocked
 * open holds one of libuv's threads, and then not even Ctrl-C can end the
 * process. Anything but a regular file (a FIFO, a socket, a device, a
 * directory) is refused with a {@link DataError}: Arrow files are read by
 * random access, more than once.
 */
async function openFile(path: string): Promise<FileHandle> {
  // A FIFO is recognised by stat first: even an instant's open of its read end would let a waiting writer in to lose its bytes.
  if ((await stat(path).catch(() => undefined))?.isFIFO()) throw new DataError(notAFile('a named pipe (FIFO)'), { file: path });
  let fh: FileHandle;
  try {
    fh = await open(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (err) {
    throw new DataError(`cannot read file: ${(err as Error).message}`, { file: path }, { cause: err });
  }
  const info = await fh.stat();
  if (!info.isFile()) {
    await fh.close();
    const kind = info.isFIFO() ? 'a named pipe (FIFO)' : info.isSocket() ? 'a socket' : info.isDirectory() ? 'a directory' : info.isCharacterDevice() || info.isBlockDevice() ? 'a device' : 'not a regular file';
    throw new DataError(notAFile(kind), { file: path });
  }
  return fh;
}

function notAFile(kind: string): string {
  return `is ${kind}, not a regular file: an Arrow file is read by random access, so it must be a file on disk (copy the pipe's bytes to a file first; 'train --data -' reads an Arrow stream from standard input)`;
}

/** How long one read of a data file may take before the file is declared stalled (a hung network file system). */
export const READ_STALL_MS = 120_000;

/** `read` raced against {@link READ_STALL_MS} of silence (a DataError naming `file` and the byte). */
async function withStallGuard<T>(read: Promise<T>, position: number, file: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const stalled = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new DataError(`no data for ${READ_STALL_MS / 1000} s when reading byte ${position} (a stalled network file system or device?)`, { file })), READ_STALL_MS);
    timer.unref();
  });
  try {
    return await Promise.race([read, stalled]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * `fh` as apache-arrow and the layout walk see it: after every read the file's
 * size and modification times are compared with those it had when opened,
 * so a file truncated, extended or rewritten in place while it is read is an
 * error (apache-arrow's own reader would loop forever on the 0-byte reads of
 * a truncated file, or decode whatever the new bytes say); a read that
 * returns nothing before the end is an error too, and so is one that does not
 * finish within {@link READ_STALL_MS}. Each is a {@link DataError} naming the
 * file and the byte.
 */
function guardReads(fh: FileHandle, file: string, size: number, opened: { mtimeMs: number; ctimeMs: number }): FileHandle {
  const changed = async (position: number) => {
    const now = await fh.stat();
    if (now.size !== size || now.mtimeMs !== opened.mtimeMs || now.ctimeMs !== opened.ctimeMs) {
      const how = now.size < size ? `it shrank from ${size} to ${now.size} bytes` : now.size > size ? `it grew from ${size} to ${now.size} bytes` : 'it was rewritten';
      return new DataError(`the file changed while it was being read (at byte ${position}, ${how}): another program is writing it — read it again once it is complete`, { file });
    }
    return undefined;
  };
  const read = async (buffer: Uint8Array, offset: number, length: number, position: number) => {
    const result = await withStallGuard(fh.read(buffer, offset, length, position), position, file);
    const change = await changed(position);
    if (change) throw change;
    if (result.bytesRead === 0 && length > 0 && position < size) {
      throw new DataError(`the file ended at byte ${position} while it was being read (it had ${size} bytes when opened): another program truncated or rewrote it — read it again once it is complete`, { file });
    }
    return result;
  };
  const guarded = { fd: fh.fd, stat: () => fh.stat(), read, close: async () => undefined };
  return guarded as unknown as FileHandle;
}

function planToDataset(plan: ColumnPlan, X: Float64Array, y: Float64Array, file: string, checked = false): Dataset {
  const classNames = plan.labels.finish(y);
  const ds = makeDataset({ X, d: plan.featureNames.length, y, featureNames: plan.featureNames, labelName: plan.labelName, source: file, ...(classNames !== undefined ? { classNames } : {}) });
  // Rows checked block by block as they were read (validateRows' checks) need not be checked again.
  if (!checked) validateDataset(ds);
  return ds;
}

function isNumericType(type: DataType): boolean {
  return type.typeId === Type.Int || type.typeId === Type.Float || type.typeId === Type.Bool;
}

/** Strings, or a dictionary of strings: labels that are class names. */
function isNameType(type: DataType): boolean {
  if (type.typeId === Type.Dictionary) return isNameType((type as Dictionary).dictionary);
  return type.typeId === Type.Utf8 || type.typeId === Type.LargeUtf8;
}

/** True when the chunk's `values` can be copied directly (no nulls, no bigint, no half floats). */
function isPlainNumeric(type: DataType): boolean {
  if (type.typeId === Type.Float) return (type as Float).precision !== Precision.HALF;
  if (type.typeId === Type.Int) return (type as Int).bitWidth <= 32;
  return false;
}

function typeName(type: DataType): string {
  return String(type);
}

/** Which schema columns become features and label (checked against the schema). */
interface ColumnPlan {
  readonly featureNames: string[];
  /** Schema index of each feature column. */
  readonly featureIndex: number[];
  readonly labelName: string;
  /** Schema index of the label column; -1 when absent or all-null typed (every row unlabeled). */
  readonly labelIndex: number;
  /** Numbers or class names (a string or dictionary-of-strings label column). */
  readonly labels: LabelCoder;
}

/**
 * Checks the schema against `opts` (label present, features present and
 * numeric, every column named, no name twice where a name must pick one
 * column) and says where each column is. Linear in the number of columns.
 */
function planColumns(schema: Schema, file: string, opts: ReadOptions): ColumnPlan {
  const labelName = opts.labelColumn ?? 'label';
  const labels = new LabelCoder(opts, file, labelName);
  const names = schema.fields.map((f) => f.name);
  if (names.length > MAX_COLUMNS) {
    throw new DataError(`the file has ${thousands(names.length)} columns; dsgkit reads at most ${thousands(MAX_COLUMNS)} (features are stored dense): select or hash the features into fewer columns first`, { file });
  }
  /** Name → schema indices (more than one when the name repeats). */
  const where = new Map<string, number[]>();
  names.forEach((name, c) => {
    // An empty name reads back from the IPC metadata as null.
    if (typeof name !== 'string' || name === '') throw new DataError(`column ${c + 1} of ${names.length} has an empty name; every column needs a name (features are matched to a model by name)`, { file });
    const at = where.get(name);
    if (at) at.push(c);
    else where.set(name, [c]);
  });
  const only = (name: string, what: string): number | undefined => {
    const at = where.get(name);
    if (at && at.length > 1) throw new DataError(`${at.length} columns are named '${shortName(name)}' (columns ${at.map((c) => c + 1).join(', ')}); the ${what} must be one column — rename the others`, { file });
    return at?.[0];
  };
  const labelAt = only(labelName, 'label');
  const hasLabel = labelAt !== undefined;
  if (!hasLabel && !opts.allowMissingLabel) requireLabelColumn(names, labelName, file);
  let featureNames: string[];
  let featureIndex: number[];
  if (opts.featureColumns) {
    featureNames = [...opts.featureColumns];
    featureIndex = featureNames.map((name) => {
      if (name === labelName) throw new DataError('the label column cannot also be a feature column', { file, column: name });
      const c = only(name, 'feature column');
      if (c === undefined) throw new DataError(`feature column not found (columns: ${listNames(names)})`, { file, column: name });
      return c;
    });
  } else {
    featureIndex = [];
    names.forEach((nm, c) => {
      if (c !== labelAt) featureIndex.push(c);
    });
    featureNames = featureIndex.map((c) => names[c]);
    for (const name of featureNames) only(name, 'feature column');
  }
  featureIndex.forEach((c, k) => {
    const type = schema.fields[c].type;
    if (!isNumericType(type)) {
      throw new DataError(`column has type ${typeName(type)}; feature columns must be numeric (integer, float or boolean)`, { file, column: featureNames[k] });
    }
  });
  let labelIndex = -1;
  if (hasLabel) {
    labelIndex = labelAt;
    const type = schema.fields[labelIndex].type;
    if (!isNumericType(type) && !isNameType(type) && type.typeId !== Type.Null) {
      throw new DataError(`label column has type ${typeName(type)}; labels must be numbers or class names (strings; null = unlabeled)`, { file, column: labelName });
    }
    if (isNumericType(type) && opts.classes !== undefined) {
      throw new DataError(`label column has type ${typeName(type)}; class names (--classes) apply to labels that are strings`, { file, column: labelName });
    }
    if (isNameType(type)) labels.kind = 'name';
    if (type.typeId === Type.Null) labelIndex = -1;
  }
  return { featureNames, featureIndex, labelName, labelIndex, labels };
}

/** A column name as shown in a message: at most 80 characters. */
function shortName(name: string): string {
  return name.length > 80 ? `${name.slice(0, 77)}…` : name;
}

/** The column names for a message: the first 20, then how many more. */
function listNames(names: readonly string[]): string {
  const head = names.slice(0, 20).map(shortName).join(', ');
  return names.length > 20 ? `${head}, … ${names.length - 20} more` : head;
}

/**
 * Copies one record batch's planned columns into rows `at …` of `X` (row-major)
 * and `y`; `row0` is the dataset row of the batch's first row (for messages).
 */
function copyBatch(batch: RecordBatch, plan: ColumnPlan, X: Float64Array, y: Float64Array, at: number, row0: number, file: string): void {
  const d = plan.featureNames.length;
  if (!copyPlainFeatures(batch, plan, X, at)) plan.featureIndex.forEach((c, k) => copyColumn(batch.getChildAt(c)!, X, d, k, at, row0, 'error', file, plan.featureNames[k]));
  if (plan.labelIndex < 0) return;
  const vec = batch.getChildAt(plan.labelIndex)!;
  if (plan.labels.kind !== 'name') copyColumn(vec, y, 1, 0, at, row0, 'nan', file, plan.labelName);
  else for (let i = 0; i < vec.length; i++) y[at + i] = plan.labels.name(vec.get(i) as string | null, { row: row0 + i + 1 });
}

/**
 * How a column's values are laid out in a record batch body when
 * {@link plainBatches} can read them as bytes: `bytes` a value, and the typed
 * array those bytes are (every value of every such type is a double exactly,
 * but 64-bit integers beyond 2⁵³, which round as `Number()` rounds them,
 * as the decoded path does). Floats of 32 and 64 bits, integers of 8 to 64
 * bits, signed or not: what pyarrow, pandas and most Arrow writers give for
 * features (float32 embeddings, uint8 pixels) and labels (int64).
 */
interface PlainType {
  readonly bytes: 1 | 2 | 4 | 8;
  readonly array: Float64ArrayConstructor | Float32ArrayConstructor | Int8ArrayConstructor | Uint8ArrayConstructor | Int16ArrayConstructor | Uint16ArrayConstructor | Int32ArrayConstructor | Uint32ArrayConstructor | BigInt64ArrayConstructor | BigUint64ArrayConstructor;
}

/** The {@link PlainType} of a column's type, or undefined when its values are not plain fixed-width numbers. */
function plainType(type: DataType): PlainType | undefined {
  if (type.children?.length > 0) return undefined;
  if (type.typeId === Type.Float) {
    const p = (type as Float).precision;
    return p === Precision.DOUBLE ? { bytes: 8, array: Float64Array } : p === Precision.SINGLE ? { bytes: 4, array: Float32Array } : undefined;
  }
  if (type.typeId !== Type.Int) return undefined;
  const { bitWidth, isSigned } = type as Int;
  if (bitWidth === 8) return { bytes: 1, array: isSigned ? Int8Array : Uint8Array };
  if (bitWidth === 16) return { bytes: 2, array: isSigned ? Int16Array : Uint16Array };
  if (bitWidth === 32) return { bytes: 4, array: isSigned ? Int32Array : Uint32Array };
  if (bitWidth === 64) return { bytes: 8, array: isSigned ? BigInt64Array : BigUint64Array };
  return undefined;
}

/**
 * Where {@link plainBatches} reads a column of `type` before it is a column
 * of doubles: narrower values into a scratch of their own (then widened into
 * the column by TypedArray.set, natively), 64-bit integers into the column
 * itself (then made numbers in place: same index, same bytes, read before
 * written), doubles into the column as they are.
 */
class ColumnWidener {
  private readonly scratch: ArrayBuffer;
  private readonly at: number[];

  constructor(
    private readonly types: readonly PlainType[],
    rows: number,
  ) {
    let bytes = 0;
    this.at = types.map((t) => {
      const at = bytes;
      if (t.bytes < 8) bytes += Math.ceil((t.bytes * rows) / 8) * 8;
      return at;
    });
    this.scratch = new ArrayBuffer(bytes);
  }

  /** The bytes column `j`'s `n` values are read into (`column` is its final place). */
  target(j: number, column: Float64Array, n: number): Uint8Array {
    const w = this.types[j].bytes;
    return w < 8 ? new Uint8Array(this.scratch, this.at[j], w * n) : new Uint8Array(column.buffer, column.byteOffset, 8 * n);
  }

  /** Makes `column`'s first `n` values the doubles of what {@link target} received. */
  widen(j: number, column: Float64Array, n: number): void {
    const t = this.types[j];
    if (t.array === Float64Array) return;
    if (t.array === BigInt64Array || t.array === BigUint64Array) {
      const raw = new t.array(column.buffer as ArrayBuffer, column.byteOffset, n);
      for (let i = 0; i < n; i++) column[i] = Number(raw[i]);
      return;
    }
    column.set(new (t.array as Float32ArrayConstructor)(this.scratch, this.at[j], n));
  }
}

/**
 * Whether every record batch of a file can be read straight from its body
 * bytes ({@link plainBatches}): every column a {@link PlainType} (floats of 32
 * or 64 bits, integers of 8 to 64) without dictionaries, numeric labels,
 * uncompressed bodies, no null feature, and each buffer inside its body,
 * 8-byte aligned, as long as its rows need — what `dsgkit generate` and
 * `dsgkit convert` write, and what pyarrow and pandas write for numeric
 * tables. Checked on the headers alone.
 */
function plainBodies(schema: Schema, plan: ColumnPlan, bodies: readonly BatchBody[]): boolean {
  const fields = schema.fields;
  if (plan.labels.kind === 'name' || schema.dictionaries.size > 0) return false;
  const types = fields.map((f) => plainType(f.type));
  if (!types.every((t) => t !== undefined)) return false;
  const inside = (b: { offset: number; length: number }, bytes: number, body: BatchBody) => b.offset % 8 === 0 && b.length >= bytes && b.offset + bytes <= body.bodyLength;
  return bodies.every((body) => {
    const { header } = body;
    const n = header.length;
    if (header.compression != null || header.nodes.length !== fields.length || header.buffers.length !== 2 * fields.length) return false;
    if (!plan.featureIndex.every((c) => header.nodes[c].length === n && header.nodes[c].nullCount === 0 && inside(header.buffers[2 * c + 1], types[c]!.bytes * n, body))) return false;
    if (plan.labelIndex < 0) return true;
    const l = plan.labelIndex;
    return header.nodes[l].length === n && inside(header.buffers[2 * l + 1], types[l]!.bytes * n, body) && (header.nodes[l].nullCount === 0 || inside(header.buffers[2 * l], Math.ceil(n / 8), body));
  });
}

/**
 * Rows {@link plainBatches} hands out at a time: its buffers (rows × (d + 1) × 8
 * bytes, twice) stay small whatever the file's batches — 8.5 MB each at
 * d = 129 — and a block's column reads (64 KB each at this size) go out
 * together. Each read costs the calling thread about the same whatever its
 * size, so blocks much smaller cost time: the two passes of a sample on read
 * over 6M × 129 took 1.18× as long at 4,096 rows, and 16,384 rows (larger
 * blocks, more cache misses) 1.15× as long (farm-bench, bench/results/read-passes.txt).
 */
const PLAIN_ROWS = 8_192;

/**
 * Bytes of each of {@link plainBatches}' two block buffers, at most, up to
 * about 4,000 columns: a wider file reads fewer rows a block (5,343 at
 * d = 784; never fewer than 1,024), so a pass over embeddings or pixels
 * holds about 64 MiB of blocks, not 8,192 rows of every column twice.
 */
const PLAIN_BLOCK_BYTES = 32 * 2 ** 20;

/**
 * Rows {@link plainBatches} reads a block from a file of `columns` columns.
 *
 * @example
 * plainRows(130);   // 8,192
 * plainRows(785);   // 5,343
 * plainRows(5_001); // 1,024
 */
function plainRows(columns: number): number {
  return Math.max(1_024, Math.min(PLAIN_ROWS, Math.floor(PLAIN_BLOCK_BYTES / (8 * columns))));
}

/**
 * The rows of a file that {@link plainBodies} accepts, {@link plainRows} at
 * a time: each column's values for those rows read from its record batch's
 * body into the row kernel's memory (data/row-kernel.ts) and turned into rows
 * there, in one reused `X` (labels into `y`, NaN where null) — the values
 * apache-arrow's reader gives, without a fresh body and fresh rows a batch,
 * and in a few megabytes instead of two record batches. Each block is checked
 * like `batches()` checks a batch (validateRows), then scaled by `as` when it
 * is a scaler, in the kernel; with `as` = 'columns' the block is checked
 * where it lies and handed out as its feature columns, no rows made.
 */
async function* plainBatches(raw: FileHandle, opened: Stats, schema: Schema, bodies: readonly BatchBody[], plan: ColumnPlan, file: string, as?: MinMaxScaler | 'columns'): AsyncGenerator<RowBatch> {
  const scale = as === 'columns' ? undefined : as;
  // Reads of a column's slice are many and small: each is raced against a stall, and the file checked against
  // what was opened (guardReads) once a record batch, with the batch's first read.
  const guarded = guardReads(raw, file, opened.size, opened);
  const d = plan.featureNames.length;
  const cols = plan.labelIndex < 0 ? plan.featureIndex : [...plan.featureIndex, plan.labelIndex];
  const most = Math.min(plainRows(cols.length), bodies.reduce((a, b) => Math.max(a, b.header.length), 0));
  // plainBodies checked every column's type: each is read as its own bytes and widened to doubles where it lies.
  const types = cols.map((c) => plainType(schema.fields[c].type)!);
  // Columns are read into the row kernel's memory, and turned into rows, checked and scaled there.
  const kernel = new RowKernel(Math.max(1, most), d, cols.length);
  const widener = new ColumnWidener(types, Math.max(1, most));
  if (scale !== undefined) kernel.setScaling(scale);
  const bits = new Uint8Array(Math.ceil(most / 8) + 1);
  const y = new Float64Array(most);
  let checked = false;
  const readAt = async (into: Uint8Array, position: number) => {
    for (let got = 0; got < into.length; ) {
      const { bytesRead } = await (checked ? withStallGuard(raw.read(into, got, into.length - got, position + got), position + got, file) : guarded.read(into, got, into.length - got, position + got));
      checked = true;
      if (bytesRead === 0) throw corrupt(file, new Error(`the record batch body at byte ${position} ends early`));
      got += bytesRead;
    }
  };
  let row0 = 0;
  for (const { bodyStart, header } of bodies) {
    checked = false;
    for (let from = 0; from < header.length; from += most) {
      const n = Math.min(most, header.length - from);
      // Column j's values for rows from … from + n − 1, into the kernel's column j: a batch's first read checks the file alone,
      // the others go out together (the thread pool serves them side by side instead of one round trip each).
      const column = (j: number) => kernel.column(j, n);
      const readColumn = async (j: number) => {
        const into = column(j);
        await readAt(widener.target(j, into, n), bodyStart + header.buffers[2 * cols[j] + 1].offset + types[j].bytes * from);
        widener.widen(j, into, n);
      };
      const first = checked ? 0 : 1;
      if (first === 1) await readColumn(0);
      await Promise.all(cols.slice(first).map((_, k) => readColumn(first + k)));
      // Rows checked (and scaled when asked) as they are made, or the columns checked where they are; a bad value is
      // named by validateFeatures (over rows made for it).
      const finite = as === 'columns' ? kernel.finite(n) : kernel.toRows(n, scale !== undefined);
      const bx = kernel.X.subarray(0, n * d);
      if (!finite) {
        if (as === 'columns') kernel.toRows(n, false);
        validateFeatures({ X: bx, d, n, row0, file, featureNames: plan.featureNames });
        throw new Error('plainBatches: the row kernel found a value that is not finite, validateFeatures none');
      }
      const by = y.subarray(0, n);
      if (plan.labelIndex < 0) by.fill(NaN);
      else {
        const labels = column(d);
        const l = plan.labelIndex;
        if (header.nodes[l].nullCount === 0) by.set(labels);
        else {
          // The validity bits of rows from … from + n − 1 (bit i of the bitmap is row i), read from the byte holding row `from`.
          const first = from >> 3;
          const span = bits.subarray(0, Math.ceil((from + n) / 8) - first);
          await readAt(span, bodyStart + header.buffers[2 * l].offset + first);
          for (let i = 0; i < n; i++) {
            const at = from + i - 8 * first;
            by[i] = (span[at >> 3] & (1 << (at & 7))) !== 0 ? labels[i] : NaN;
          }
        }
      }
      validateLabels({ y: by, row0, file, labelName: plan.labelName });
      yield as === 'columns' ? { n, X: bx.subarray(0, 0), y: by, columns: cols.slice(0, d).map((_, j) => column(j)) } : { n, X: bx, y: by };
      row0 += n;
    }
  }
}

/** Rows a tile of {@link copyPlainFeatures} transposes at a time: its rows of `X` (TILE × d × 8 bytes) stay in cache while every column is written into them. */
const TILE_ROWS = 256;

/**
 * The feature columns into row-major `X` from row `at` on, when every one is
 * a single block of plain numbers without nulls (what `dsgkit generate` and
 * most writers produce): a tiled transpose, each tile's rows of `X` written
 * column by column while they are in cache — the values `copyColumn` writes,
 * several times faster on wide files. False (nothing written) otherwise.
 */
function copyPlainFeatures(batch: RecordBatch, plan: ColumnPlan, X: Float64Array, at: number): boolean {
  const n = batch.numRows;
  const cols: ArrayLike<number>[] = [];
  for (const c of plan.featureIndex) {
    const vec = batch.getChildAt(c)!;
    if (vec.data.length !== 1) return false;
    const data = vec.data[0];
    if (data.nullCount !== 0 || !isPlainNumeric(data.type) || data.length !== n) return false;
    cols.push(data.values as ArrayLike<number>);
  }
  transposeInto(cols, X, at, n);
  return true;
}

/** Rows `0 … n − 1` of the columns `cols` into row-major `X` from row `at` on, by tiles of {@link TILE_ROWS} rows. */
function transposeInto(cols: readonly ArrayLike<number>[], X: Float64Array, at: number, n: number): void {
  const d = cols.length;
  for (let r0 = 0; r0 < n; r0 += TILE_ROWS) {
    const r1 = Math.min(n, r0 + TILE_ROWS);
    for (let k = 0; k < d; k++) {
      const col = cols[k];
      for (let i = r0; i < r1; i++) X[(at + i) * d + k] = col[i];
    }
  }
}

/**
 * Copies column `vec` (rows `row0 …` of the dataset) into
 * `out[(row0 + i) * stride + offset]`, converting to float64. Nulls become
 * `NaN` when `nullAs` is `'nan'`, otherwise throw naming the dataset row.
 */
function copyColumn(vec: Vector, out: Float64Array, stride: number, offset: number, at: number, row0: number, nullAs: 'nan' | 'error', file: string, column: string): void {
  let row = 0;
  for (const data of vec.data) {
    const n = data.length;
    const base = at + row;
    if (data.nullCount === 0 && isPlainNumeric(data.type)) {
      const values = data.values as ArrayLike<number>;
      for (let i = 0; i < n; i++) out[(base + i) * stride + offset] = values[i];
    } else if (isPlainNumeric(data.type) && data.nullBitmap !== undefined && data.nullBitmap.length > 0) {
      // Nulls read from the validity bitmap directly (a label column is mostly nulls: no Vector.get a row).
      // `values` is already sliced to this Data; the bitmap is not, so its bits start at `data.offset`.
      const values = data.values as ArrayLike<number>;
      const bits = data.nullBitmap;
      const bit0 = data.offset;
      for (let i = 0; i < n; i++) {
        const at = bit0 + i;
        if ((bits[at >> 3] & (1 << (at & 7))) !== 0) out[(base + i) * stride + offset] = values[i];
        else if (nullAs === 'error') throw new DataError('value is missing (null); features must be numbers', { file, column, row: row0 + row + i + 1 });
        else out[(base + i) * stride + offset] = NaN;
      }
    } else {
      for (let i = 0; i < n; i++) {
        const v = vec.get(row + i) as number | bigint | boolean | null;
        if (v === null) {
          if (nullAs === 'error') throw new DataError('value is missing (null); features must be numbers', { file, column, row: row0 + row + i + 1 });
          out[(base + i) * stride + offset] = NaN;
        } else {
          out[(base + i) * stride + offset] = typeof v === 'boolean' ? (v ? 1 : 0) : Number(v);
        }
      }
    }
    row += n;
  }
}

/**
 * Turns an Arrow table into a validated {@link Dataset} (see {@link readArrow}).
 *
 * @example
 * const ds = tableToDataset(tableFromArrays({ label: [1, -1], a: [0.5, 2] }), 'mem');
 */
export function tableToDataset(table: Table, file: string, opts: ReadOptions = {}): Dataset {
  const plan = planColumns(table.schema, file, opts);
  const n = table.numRows;
  const d = plan.featureNames.length;
  const X = allocateFloat64(n * d, `${n} rows × ${d} features`, { file });
  const y = new Float64Array(n).fill(NaN);
  let row0 = 0;
  for (const batch of table.batches) {
    copyBatch(batch, plan, X, y, row0, row0, file);
    row0 += batch.numRows;
  }
  return planToDataset(plan, X, y, file);
}

/**
 * The Arrow schema dsgkit writes: a nullable label column first (float64, or
 * utf8 when the labels are class names), then one non-null float64 column
 * per feature.
 *
 * @example
 * datasetSchema('label', ['x1', 'x2']).fields.length; // 3
 * datasetSchema('label', ['x1'], 'name').fields[0].type; // Utf8
 */
export function datasetSchema(labelName: string, featureNames: readonly string[], labels: LabelKind = 'number'): Schema {
  return new Schema([
    new Field(labelName, labels === 'name' ? new Utf8() : new Float64(), true),
    ...featureNames.map((name) => new Field(name, new Float64(), false)),
  ]);
}

/**
 * One record batch from column-major arrays: `label` (NaN = null/unlabeled)
 * and `columns[k]` for feature `k`, all of the same length. With
 * `classNames`, `label` holds class indices and the label column (utf8 in
 * `schema`) gets the names.
 *
 * @example
 * const batch = makeBatch(datasetSchema('label', ['x1']), new Float64Array([1, NaN]), [new Float64Array([0.2, 0.7])]);
 * batch.numRows; // 2
 */
export function makeBatch(schema: Schema, label: Float64Array, columns: readonly Float64Array[], classNames?: readonly string[]): RecordBatch {
  const length = label.length;
  const bitmap = new Uint8Array(Math.ceil(length / 8));
  let nullCount = 0;
  for (let i = 0; i < length; i++) {
    if (Number.isNaN(label[i])) nullCount++;
    else bitmap[i >> 3] |= 1 << (i & 7);
  }
  const labelData =
    classNames !== undefined
      ? vectorFromArray(Array.from(label, (v) => (Number.isNaN(v) ? null : classNames[v])), new Utf8()).data[0]
      : makeData({ type: new Float64(), length, nullCount, nullBitmap: nullCount > 0 ? bitmap : null, data: label });
  const children = [labelData, ...columns.map((col) => makeData({ type: new Float64(), length, nullCount: 0, data: col }))];
  const struct = makeData({ type: new Struct(schema.fields), length, nullCount: 0, children });
  return new RecordBatch(schema, struct);
}

/**
 * The dataset as an Arrow table (label column + float64 feature columns).
 *
 * @example
 * datasetToTable(ds).numRows === ds.n; // true
 */
export function datasetToTable(ds: Dataset): Table {
  const { n, d, X } = ds;
  const columns = Array.from({ length: d }, () => new Float64Array(n));
  for (let i = 0; i < n; i++) for (let k = 0; k < d; k++) columns[k][i] = X[i * d + k];
  const schema = datasetSchema(ds.labelName, ds.featureNames, ds.classNames !== undefined ? 'name' : 'number');
  return new Table([makeBatch(schema, Float64Array.from(ds.y), columns, ds.classNames)]);
}

/**
 * The IPC flavour a path's extension asks for: `.arrows` → stream, anything else → file.
 *
 * @example
 * formatForPath('big.arrows'); // 'stream'
 */
export function formatForPath(path: string): ArrowFormat {
  return extname(path).toLowerCase() === '.arrows' ? 'stream' : 'file';
}

/**
 * Writes `ds` as Arrow IPC, atomically (temporary file + rename). The format
 * defaults to {@link formatForPath}.
 *
 * @example
 * await writeArrow('train.arrow', ds);
 * await writeArrow('train.arrows', ds); // stream format
 */
export async function writeArrow(path: string, ds: Dataset, opts: { format?: ArrowFormat } = {}): Promise<void> {
  const bytes = encodeArrow(ds, opts.format ?? formatForPath(path));
  await withAtomicFile(path, (tmp) => writeFile(tmp, bytes));
}

/**
 * The Arrow IPC bytes of `ds` (for writers that place the bytes themselves).
 *
 * @example
 * const bytes = encodeArrow(ds, 'stream');
 */
export function encodeArrow(ds: Dataset, format: ArrowFormat = 'file'): Uint8Array {
  return tableToIPC(datasetToTable(ds), format);
}

