/**
 * Arrow IPC in and out: the native on-disk form of a {@link Dataset}.
 *
 * Both IPC flavours are read: the *file* format (`ARROW1` magic, footer,
 * random access; usual extensions `.arrow`, `.feather`) and the *stream*
 * format (a sequence of messages closed by an end-of-stream marker; usual
 * extension `.arrows`). apache-arrow's `tableFromIPC` parses either one, but on
 * some truncations it silently returns the batches it could read; so before
 * parsing, the framing is checked here (closing magic and footer length of a
 * file, end-of-stream marker of a stream) and a short file is reported as
 * truncated instead of read half.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { extname } from 'node:path';
import {
  Field,
  Float,
  Float64,
  Int,
  Precision,
  RecordBatch,
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
import { DataError } from '../errors.ts';
import { withAtomicFile } from './atomic.ts';
import { makeDataset, type Dataset } from './dataset.ts';
import { requireLabelColumn, validateDataset } from './validate.ts';

/** Options shared by every reader. */
export interface ReadOptions {
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

/** Which IPC flavour to write. */
export type ArrowFormat = 'file' | 'stream';

const MAGIC = Buffer.from('ARROW1');
const CONTINUATION = 0xffffffff;

/**
 * Checks the IPC framing of `bytes` and throws a {@link DataError} naming
 * `file` if it is empty, not Arrow at all, or cut short. Returns the flavour.
 *
 * @example
 * checkIpcFraming(await readFile('train.arrow'), 'train.arrow'); // 'file'
 */
export function checkIpcFraming(bytes: Uint8Array, file: string): ArrowFormat {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const len = buf.length;
  if (len === 0) throw new DataError('file is empty; expected Arrow IPC data', { file });
  if (len >= 6 && buf.subarray(0, 6).equals(MAGIC)) {
    // File format: magic(6) pad(2) … footer, int32 footer length, magic(6).
    const closed = len >= 8 + 4 + 6 && buf.subarray(len - 6).equals(MAGIC);
    const footerLength = closed ? buf.readInt32LE(len - 10) : -1;
    if (!closed || footerLength <= 0 || footerLength > len - 8 - 10) {
      throw new DataError('Arrow file is truncated: it does not end with a valid footer and the closing ARROW1 marker', { file });
    }
    return 'file';
  }
  if (len < 8) throw new DataError('not Arrow IPC data (file or stream): too short to hold a message', { file });
  const first = buf.readUInt32LE(0);
  if (first === CONTINUATION) {
    if (buf.readUInt32LE(len - 8) !== CONTINUATION || buf.readUInt32LE(len - 4) !== 0) {
      throw new DataError('Arrow stream is truncated: it does not end with the end-of-stream marker', { file });
    }
    return 'stream';
  }
  // Pre-1.0 ("legacy") streams start with the metadata length and end with a zero length.
  if (first > 0 && first < len && buf.readUInt32LE(len - 4) === 0) return 'stream';
  if (first > 0 && first < len) throw new DataError('Arrow stream is truncated: it does not end with the end-of-stream marker', { file });
  throw new DataError('not Arrow IPC data: it starts neither with the ARROW1 magic nor with a stream message', { file });
}

/**
 * Parses Arrow IPC bytes (file or stream format) into a validated {@link Dataset}.
 * `file` is only used in error messages and as the dataset's `source`.
 *
 * @example
 * const ds = arrowBytesToDataset(bytes, 'in-memory.arrow', { labelColumn: 'y' });
 */
export function arrowBytesToDataset(bytes: Uint8Array, file: string, opts: ReadOptions = {}): Dataset {
  checkIpcFraming(bytes, file);
  let table: Table;
  try {
    table = tableFromIPC(bytes);
  } catch (err) {
    throw new DataError(`not a readable Arrow IPC file (corrupt or truncated): ${(err as Error).message}`, { file }, { cause: err });
  }
  return tableToDataset(table, file, opts);
}

/**
 * Reads an Arrow IPC file or stream from disk into a validated {@link Dataset}.
 * Numeric columns only (integers, floats, booleans → 0/1); a null label means
 * the row is unlabeled; a null feature is an error.
 *
 * @example
 * const ds = await readArrow('data/spam.arrow');
 * ds.n; // 4601
 * ds.d; // 57
 */
export async function readArrow(path: string, opts: ReadOptions = {}): Promise<Dataset> {
  let bytes: Buffer;
  try {
    bytes = await readFile(path);
  } catch (err) {
    throw new DataError(`cannot read file: ${(err as Error).message}`, { file: path }, { cause: err });
  }
  return arrowBytesToDataset(bytes, path, opts);
}

function isNumericType(type: DataType): boolean {
  return type.typeId === Type.Int || type.typeId === Type.Float || type.typeId === Type.Bool;
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

/**
 * Copies column `vec` into `out[i * stride + offset]`, converting to float64.
 * Nulls become `NaN` when `nullAs` is `'nan'`, otherwise throw naming the row.
 */
function copyColumn(vec: Vector, out: Float64Array, stride: number, offset: number, nullAs: 'nan' | 'error', file: string, column: string): void {
  let row = 0;
  for (const data of vec.data) {
    const n = data.length;
    if (data.nullCount === 0 && isPlainNumeric(data.type)) {
      const values = data.values as ArrayLike<number>;
      for (let i = 0; i < n; i++) out[(row + i) * stride + offset] = values[i];
    } else {
      for (let i = 0; i < n; i++) {
        const v = vec.get(row + i) as number | bigint | boolean | null;
        if (v === null) {
          if (nullAs === 'error') throw new DataError('value is missing (null); features must be numbers', { file, column, row: row + i + 1 });
          out[(row + i) * stride + offset] = NaN;
        } else {
          out[(row + i) * stride + offset] = typeof v === 'boolean' ? (v ? 1 : 0) : Number(v);
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
  const labelName = opts.labelColumn ?? 'label';
  const names = table.schema.fields.map((f) => f.name);
  const hasLabel = names.includes(labelName);
  if (!hasLabel && !opts.allowMissingLabel) requireLabelColumn(names, labelName, file);
  const featureNames = opts.featureColumns ? [...opts.featureColumns] : names.filter((nm) => nm !== labelName);
  for (const name of featureNames) {
    if (!names.includes(name)) throw new DataError(`feature column not found (columns: ${names.join(', ')})`, { file, column: name });
    if (name === labelName) throw new DataError('the label column cannot also be a feature column', { file, column: name });
  }
  const fieldType = (name: string): DataType => table.schema.fields.find((f) => f.name === name)!.type;
  for (const name of featureNames) {
    const type = fieldType(name);
    if (!isNumericType(type)) {
      throw new DataError(`column has type ${typeName(type)}; feature columns must be numeric (integer, float or boolean)`, { file, column: name });
    }
  }
  if (hasLabel) {
    const type = fieldType(labelName);
    if (!isNumericType(type) && type.typeId !== Type.Null) {
      throw new DataError(`label column has type ${typeName(type)}; labels must be numeric (null = unlabeled)`, { file, column: labelName });
    }
  }
  const n = table.numRows;
  const d = featureNames.length;
  const X = new Float64Array(n * d);
  featureNames.forEach((name, k) => copyColumn(table.getChild(name)!, X, d, k, 'error', file, name));
  const y = new Float64Array(n).fill(NaN);
  if (hasLabel && fieldType(labelName).typeId !== Type.Null) copyColumn(table.getChild(labelName)!, y, 1, 0, 'nan', file, labelName);
  const ds = makeDataset({ X, d, y, featureNames, labelName, source: file });
  validateDataset(ds);
  return ds;
}

/**
 * The Arrow schema dsgkit writes: a nullable float64 label column first,
 * then one non-null float64 column per feature.
 *
 * @example
 * datasetSchema('label', ['x1', 'x2']).fields.length; // 3
 */
export function datasetSchema(labelName: string, featureNames: readonly string[]): Schema {
  return new Schema([
    new Field(labelName, new Float64(), true),
    ...featureNames.map((name) => new Field(name, new Float64(), false)),
  ]);
}

/**
 * One record batch from column-major arrays: `label` (NaN = null/unlabeled)
 * and `columns[k]` for feature `k`, all of the same length.
 *
 * @example
 * const batch = makeBatch(datasetSchema('label', ['x1']), new Float64Array([1, NaN]), [new Float64Array([0.2, 0.7])]);
 * batch.numRows; // 2
 */
export function makeBatch(schema: Schema, label: Float64Array, columns: readonly Float64Array[]): RecordBatch {
  const length = label.length;
  const bitmap = new Uint8Array(Math.ceil(length / 8));
  let nullCount = 0;
  for (let i = 0; i < length; i++) {
    if (Number.isNaN(label[i])) nullCount++;
    else bitmap[i >> 3] |= 1 << (i & 7);
  }
  const labelData = makeData({ type: new Float64(), length, nullCount, nullBitmap: nullCount > 0 ? bitmap : null, data: label });
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
  const schema = datasetSchema(ds.labelName, ds.featureNames);
  return new Table([makeBatch(schema, Float64Array.from(ds.y), columns)]);
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

