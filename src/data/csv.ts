/**
 * CSV with a header row: comma-separated, RFC 4180 quoting (`"a,b"`, `""` for
 * a quote inside quotes, newlines inside quotes). The label column is chosen
 * by name (default `label`); an empty label cell, `?` or `NA` marks an
 * unlabeled row. Labels are numbers, or class names (`spam`, `ham`; see
 * `class-labels.ts`). Every other cell must be a finite number in decimal
 * notation. Rows in error messages are data rows, 1-based, not counting the
 * header.
 *
 * Files are parsed as a stream (csv-parse's stream API over a file stream):
 * the text is never held whole, rows are packed into blocks as they come
 * ({@link openCsvRows}), and `dsgkit convert` writes each block out at once.
 */
import { pipeline } from 'node:stream/promises';
import { parse as parseStream, type Options } from 'csv-parse';
import { parse } from 'csv-parse/sync';
import { openInputStream } from './open-input.ts';
import { DataError } from '../errors.ts';
import { LabelCoder } from './class-labels.ts';
import type { Dataset } from './dataset.ts';
import { parseFiniteNumber, whyNotFinite } from './numbers.ts';
import type { ReadOptions } from './arrow.ts';
import { RowBuffer } from './row-batches.ts';
import { readRowSource, rowsPerBlock, blocksToDataset, type RowSource } from './row-source.ts';
import { requireLabelColumn } from './validate.ts';

export { UNLABELED_MARKERS } from './class-labels.ts';

/** Longest CSV record accepted, in characters (bounds what one line can make the parser hold). */
export const MAX_CSV_RECORD_CHARS = 64 * 2 ** 20;

/** One CSV record and the text line it starts on. */
export interface CsvRecord {
  fields: string[];
  line: number;
}

const CSV_OPTIONS: Options = {
  bom: true,
  info: true,
  relax_column_count: true,
  // Blank lines are kept as records so each record's first line is the previous one's last + 1.
  skip_empty_lines: false,
  record_delimiter: ['\r\n', '\n', '\r'],
  max_record_size: MAX_CSV_RECORD_CHARS,
};

type Parsed = { record: string[]; info: { lines: number } };

function csvError(err: unknown, file: string): DataError {
  if (err instanceof DataError) return err;
  const e = err as { code?: string; lines?: number; message: string };
  const where = { file, ...(e.lines !== undefined ? { row: e.lines, line: true } : {}) };
  if (e.code === 'CSV_QUOTE_NOT_CLOSED') return new DataError('a quoted field is never closed (missing ")', where, { cause: err });
  if (e.code === 'CSV_MAX_RECORD_SIZE') return new DataError(`a record is longer than ${MAX_CSV_RECORD_CHARS} characters; is this a CSV file?`, where, { cause: err });
  if (typeof e.code === 'string' && (e.code.startsWith('CSV_') || e.lines !== undefined)) {
    // A quote inside a field of a binary file (a model, an Arrow file named .csv) is the usual first complaint.
    const field = (err as { field?: unknown }).field;
    const text = typeof field === 'string' ? field : Buffer.isBuffer(field) ? field.toString('latin1') : '';
    if (text.includes('\u0000')) return new DataError(`this is a binary file, not CSV text${binaryKind(text)}`, where, { cause: err });
    return new DataError(`not readable as CSV: ${e.message}`, where, { cause: err });
  }
  return new DataError(`cannot read file: ${e.message}`, { file }, { cause: err });
}

/** Numbers each record with the line it starts on and drops blank lines. */
class LineCounter {
  private previousEnd = 0;
  next({ record, info }: Parsed): CsvRecord | undefined {
    const line = this.previousEnd + 1;
    this.previousEnd = info.lines;
    if (record.length === 1 && record[0].trim() === '') return undefined; // blank line
    return { fields: record, line };
  }
}

/**
 * Splits CSV text into records with the line each starts on (csv-parse does
 * the RFC 4180 work: quoting, `""` escapes, newlines inside quotes, `\n`,
 * `\r\n` or `\r` line ends, a byte-order mark). Blank lines are skipped.
 * Throws a located DataError on a quote left open.
 *
 * @example
 * [...csvRecords('a,b\n"x,1",2\n', 'f.csv')].map((r) => r.fields); // [['a','b'], ['x,1','2']]
 */
export function* csvRecords(text: string, file: string): Generator<CsvRecord> {
  let rows: Parsed[];
  try {
    rows = parse(text, CSV_OPTIONS) as unknown as Parsed[];
  } catch (err) {
    throw csvError(err, file);
  }
  const lines = new LineCounter();
  for (const parsed of rows) {
    const rec = lines.next(parsed);
    if (rec) yield rec;
  }
}

/**
 * The records of a CSV file, streamed from disk (see {@link csvRecords}).
 *
 * @example
 * for await (const rec of csvRecordStream('big.csv')) console.log(rec.line, rec.fields.length);
 */
export async function* csvRecordStream(path: string): AsyncGenerator<CsvRecord> {
  const parser = parseStream(CSV_OPTIONS);
  const done = pipeline(await openInputStream(path), parser);
  done.catch(() => undefined); // the error also ends the iteration below, which reports it
  const lines = new LineCounter();
  try {
    for await (const parsed of parser as AsyncIterable<Parsed>) {
      const rec = lines.next(parsed);
      if (rec) yield rec;
    }
    await done;
  } catch (err) {
    throw csvError(err, path);
  } finally {
    parser.destroy();
  }
}

/** What a binary file that was named as text looks like it is, from its first bytes (` (an Arrow file: …)`), or ''. */
export function binaryKind(start: string): string {
  if (start.startsWith('ARROW1')) return ' (it starts with the Arrow magic: an Arrow IPC file — name it .arrow)';
  if (start.startsWith('DSGKIT')) return " (it starts with the dsgkit model magic: a model file — 'dsgkit describe' it as .dsg)";
  if (start.startsWith('\uFFFD\uFFFD\uFFFD\uFFFD') || start.startsWith('\u00FF\u00FF\u00FF\u00FF')) return ' (it starts with 0xFFFFFFFF: an Arrow IPC stream — name it .arrows)';
  return '';
}

/**
 * The columns of a CSV file, from its header, and the conversion of each
 * further record into a row of a {@link RowBuffer}.
 */
class CsvColumns {
  readonly featureNames: string[];
  readonly labelName: string;
  readonly labels: LabelCoder;
  private readonly header: string[];
  private readonly labelAt: number;
  private readonly featureAt: number[];
  private row = 0;

  constructor(
    first: CsvRecord | undefined,
    private readonly file: string,
    opts: ReadOptions,
  ) {
    if (first === undefined) throw new DataError('file is empty; expected a header row', { file });
    const header = first.fields.map((h) => h.trim());
    if (header.some((h) => h.includes('\u0000'))) throw new DataError(`the header holds NUL bytes: this is a binary file, not CSV text${binaryKind(first.fields.join(','))}`, { file, row: first.line, line: true });
    const seen = new Set<string>();
    for (const name of header) {
      if (name === '') throw new DataError('the header has an empty column name', { file, row: first.line, line: true });
      if (seen.has(name)) throw new DataError('column name appears twice in the header', { file, column: name });
      seen.add(name);
    }
    const labelName = opts.labelColumn ?? 'label';
    const labelAt = header.indexOf(labelName);
    if (labelAt < 0 && !opts.allowMissingLabel) requireLabelColumn(header, labelName, file);
    this.featureNames = opts.featureColumns ? [...opts.featureColumns] : header.filter((h) => h !== labelName);
    this.featureAt = this.featureNames.map((name) => {
      const at = header.indexOf(name);
      if (at < 0) throw new DataError(`feature column not found (columns: ${header.join(', ')})`, { file, column: name });
      if (name === labelName) throw new DataError('the label column cannot also be a feature column', { file, column: name });
      return at;
    });
    this.header = header;
    this.labelName = labelName;
    this.labelAt = labelAt;
    this.labels = new LabelCoder(opts, file, labelName);
  }

  /** Appends the record as the next row of `buf`; throws a located DataError on a bad cell. */
  add(rec: CsvRecord, buf: RowBuffer): void {
    const row = ++this.row;
    const { file } = this;
    const { fields } = rec;
    if (fields.length !== this.header.length) {
      throw new DataError(`row has ${fields.length} fields but the header has ${this.header.length} (line ${rec.line})`, { file, row });
    }
    const label = this.labelAt < 0 ? NaN : this.labels.code(fields[this.labelAt].trim(), { row });
    const base = buf.add(label);
    const d = this.featureAt.length;
    for (let k = 0; k < d; k++) {
      const cell = fields[this.featureAt[k]].trim();
      const v = parseFiniteNumber(cell);
      if (v === undefined) throw new DataError(whyNotFinite(cell), { file, column: this.featureNames[k], row });
      buf.X[base + k] = v;
    }
  }
}

/**
 * Parses CSV text into a validated {@link Dataset}.
 *
 * @example
 * const ds = parseCsv('label,a,b\n1,0.5,2\n?,1,0\n', 'toy.csv');
 * ds.featureNames; // ['a', 'b']
 * ds.labeled;      // Uint8Array [1, 0]
 * parseCsv('label,a\nspam,1\nham,2\n', 'mail.csv').classNames; // ['ham', 'spam']
 */
export function parseCsv(text: string, file: string, opts: ReadOptions = {}): Dataset {
  const records = csvRecords(text, file);
  const columns = new CsvColumns(records.next().value ?? undefined, file, opts);
  const buf = new RowBuffer(columns.featureNames.length, rowsPerBlock(columns.featureNames.length), { file });
  const batches = [];
  for (const rec of records) {
    columns.add(rec, buf);
    if (buf.full) batches.push(buf.take()!);
  }
  const last = buf.take();
  if (last) batches.push(last);
  const { featureNames, labelName, labels } = columns;
  return blocksToDataset({ file, featureNames, labelName, labels }, batches);
}

/**
 * Opens a CSV file as a stream of row blocks: the header is read and checked
 * now, the rows as {@link RowSource.batches} is iterated.
 *
 * @example
 * const source = await openCsvRows('big.csv');
 * for await (const block of source.batches()) write(block);
 */
export async function openCsvRows(path: string, opts: ReadOptions = {}): Promise<RowSource> {
  const records = csvRecordStream(path);
  let columns: CsvColumns;
  try {
    const first = await records.next();
    columns = new CsvColumns(first.done ? undefined : first.value, path, opts);
  } catch (err) {
    await records.return(undefined);
    throw err;
  }
  const { featureNames, labelName, labels } = columns;
  return {
    file: path,
    featureNames,
    labelName,
    labels,
    async *batches() {
      const buf = new RowBuffer(featureNames.length, rowsPerBlock(featureNames.length), { file: path });
      for await (const rec of records) {
        columns.add(rec, buf);
        if (buf.full) yield buf.take()!;
      }
      const last = buf.take();
      if (last) yield last;
    },
  };
}

/**
 * Reads a CSV file from disk, streamed (see {@link parseCsv}).
 *
 * @example
 * const ds = await readCsv('train.csv', { labelColumn: 'y' });
 */
export async function readCsv(path: string, opts: ReadOptions = {}): Promise<Dataset> {
  return readRowSource(await openCsvRows(path, opts));
}
