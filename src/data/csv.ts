/**
 * CSV with a header row: comma-separated, RFC 4180 quoting (`"a,b"`, `""` for
 * a quote inside quotes, newlines inside quotes). The label column is chosen
 * by name (default `label`); an empty label cell, `?` or `NA` marks an
 * unlabeled row. Every other cell must be a finite number in decimal notation.
 * Rows in error messages are data rows, 1-based, not counting the header.
 */
import { readFile } from 'node:fs/promises';
import { parse } from 'csv-parse/sync';
import { DataError } from '../errors.ts';
import { makeDataset, type Dataset } from './dataset.ts';
import { parseFiniteNumber, whyNotFinite } from './numbers.ts';
import type { ReadOptions } from './arrow.ts';
import { requireLabelColumn, validateDataset } from './validate.ts';

/** Label cells that mean "this row has no label". */
export const UNLABELED_MARKERS: readonly string[] = ['', '?', 'NA'];

/** One CSV record and the text line it starts on. */
export interface CsvRecord {
  fields: string[];
  line: number;
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
  let rows: Array<{ record: string[]; info: { lines: number } }>;
  try {
    // Blank lines are kept as records so each record's first line is the previous one's last + 1.
    rows = parse(text, { bom: true, info: true, relax_column_count: true, skip_empty_lines: false, record_delimiter: ['\r\n', '\n', '\r'] }) as unknown as typeof rows;
  } catch (err) {
    const e = err as { code?: string; lines?: number; message: string };
    if (e.code === 'CSV_QUOTE_NOT_CLOSED') throw new DataError('a quoted field is never closed (missing ")', { file, ...(e.lines !== undefined ? { row: e.lines, line: true } : {}) }, { cause: err });
    throw new DataError(`not readable as CSV: ${e.message}`, { file }, { cause: err });
  }
  let previousEnd = 0;
  for (const { record, info } of rows) {
    const line = previousEnd + 1;
    previousEnd = info.lines;
    if (record.length === 1 && record[0].trim() === '') continue; // blank line
    yield { fields: record, line };
  }
}

/**
 * Parses CSV text into a validated {@link Dataset}.
 *
 * @example
 * const ds = parseCsv('label,a,b\n1,0.5,2\n?,1,0\n', 'toy.csv');
 * ds.featureNames; // ['a', 'b']
 * ds.labeled;      // Uint8Array [1, 0]
 */
export function parseCsv(text: string, file: string, opts: ReadOptions = {}): Dataset {
  const records = csvRecords(text, file);
  const first = records.next();
  if (first.done) throw new DataError('file is empty; expected a header row', { file });
  const header = first.value.fields.map((h) => h.trim());
  const seen = new Set<string>();
  for (const name of header) {
    if (name === '') throw new DataError('the header has an empty column name', { file, row: first.value.line, line: true });
    if (seen.has(name)) throw new DataError('column name appears twice in the header', { file, column: name });
    seen.add(name);
  }
  const labelName = opts.labelColumn ?? 'label';
  const labelAt = header.indexOf(labelName);
  if (labelAt < 0 && !opts.allowMissingLabel) requireLabelColumn(header, labelName, file);
  const featureNames = opts.featureColumns ? [...opts.featureColumns] : header.filter((h) => h !== labelName);
  const featureAt = featureNames.map((name) => {
    const at = header.indexOf(name);
    if (at < 0) throw new DataError(`feature column not found (columns: ${header.join(', ')})`, { file, column: name });
    if (name === labelName) throw new DataError('the label column cannot also be a feature column', { file, column: name });
    return at;
  });
  const d = featureNames.length;
  const values: number[] = [];
  const labels: number[] = [];
  let row = 0;
  for (const rec of records) {
    row++;
    const { fields } = rec;
    if (fields.length !== header.length) {
      throw new DataError(`row has ${fields.length} fields but the header has ${header.length} (line ${rec.line})`, { file, row });
    }
    for (let k = 0; k < d; k++) {
      const cell = fields[featureAt[k]].trim();
      const v = parseFiniteNumber(cell);
      if (v === undefined) throw new DataError(whyNotFinite(cell), { file, column: featureNames[k], row });
      values.push(v);
    }
    if (labelAt < 0) labels.push(NaN);
    else {
      const cell = fields[labelAt].trim();
      if (UNLABELED_MARKERS.includes(cell)) labels.push(NaN);
      else {
        const v = parseFiniteNumber(cell);
        if (v === undefined) throw new DataError(`label: ${whyNotFinite(cell, 'labels')} (leave it empty, '?' or 'NA' for an unlabeled row)`, { file, column: labelName, row });
        labels.push(v);
      }
    }
  }
  const ds = makeDataset({ X: Float64Array.from(values), d, y: Float64Array.from(labels), featureNames, labelName, source: file });
  validateDataset(ds);
  return ds;
}

/**
 * Reads a CSV file from disk (see {@link parseCsv}).
 *
 * @example
 * const ds = await readCsv('train.csv', { labelColumn: 'y' });
 */
export async function readCsv(path: string, opts: ReadOptions = {}): Promise<Dataset> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    throw new DataError(`cannot read file: ${(err as Error).message}`, { file: path }, { cause: err });
  }
  return parseCsv(text, path, opts);
}
