/**
 * Record batches out as text, for people and tools that do not read Arrow:
 * CSV (a header row, then one line per row; RFC 4180 quoting by
 * `csv-stringify`; a null is an empty cell) or JSON Lines (one object per row,
 * keys = column names; a null is `null`). Numbers are written so that reading
 * them back gives the same float64 (`String(x)`).
 *
 * Also the chunks of an Arrow IPC file or stream as bytes, so that one
 * writer ({@link outputChunks}) serves a file and stdout alike.
 */
import { extname } from 'node:path';
import { AsyncByteQueue, RecordBatchFileWriter, RecordBatchStreamWriter, type RecordBatch } from 'apache-arrow';
import { stringify } from 'csv-stringify/sync';
import { UsageError } from '../errors.ts';
import type { ArrowFormat } from './arrow.ts';

/** Text formats dsgkit writes. */
export type TextFormat = 'csv' | 'jsonl';

/** Every output format: Arrow IPC file or stream, CSV, JSON Lines. */
export type OutputFormat = ArrowFormat | TextFormat;

/** Output format by lower-case extension. */
export const OUTPUT_FORMAT_BY_EXTENSION: Readonly<Record<string, OutputFormat>> = {
  '.arrow': 'file',
  '.feather': 'file',
  '.ipc': 'file',
  '.arrows': 'stream',
  '.csv': 'csv',
  '.jsonl': 'jsonl',
  '.ndjson': 'jsonl',
};

/** The names `--format` takes, and what each writes. */
export const FORMAT_NAMES = ['arrow', 'csv', 'jsonl'] as const;
export type FormatName = (typeof FORMAT_NAMES)[number];

/**
 * The output format for `path` (`-` = stdout) and an optional `--format`
 * name: for stdout the name, CSV by default, and Arrow as the stream format
 * (a pipe cannot be sought back to); for a file the name when given, else its
 * extension. A UsageError naming `option` when neither says.
 *
 * @example
 * outputFormatFor('scores.csv');       // 'csv'
 * outputFormatFor('-');                // 'csv'
 * outputFormatFor('-', 'arrow');       // 'stream'
 * outputFormatFor('out.txt', 'jsonl'); // 'jsonl'
 */
export function outputFormatFor(path: string, name?: FormatName, option = 'out'): OutputFormat {
  const byExtension = OUTPUT_FORMAT_BY_EXTENSION[extname(path).toLowerCase()];
  if (name === 'arrow') return path === '-' ? 'stream' : (byExtension === 'stream' ? 'stream' : 'file');
  if (name !== undefined) return name;
  if (path === '-') return 'csv';
  if (byExtension === undefined) {
    throw new UsageError(`--${option} '${path}': unknown output type '${extname(path) || '(no extension)'}'; expected one of ${Object.keys(OUTPUT_FORMAT_BY_EXTENSION).join(' ')} (or --format ${FORMAT_NAMES.join('|')})`);
  }
  return byExtension;
}

/** A batch's columns as plain values by row: numbers, strings, null. */
function rowsOf(batch: RecordBatch): { names: string[]; rows: Array<Array<number | string | null>> } {
  const names = batch.schema.fields.map((f) => f.name);
  const columns = names.map((_, j) => batch.getChildAt(j)!);
  const rows: Array<Array<number | string | null>> = new Array(batch.numRows);
  for (let i = 0; i < batch.numRows; i++) {
    const row = new Array<number | string | null>(columns.length);
    for (let j = 0; j < columns.length; j++) {
      const v = columns[j].get(i) as unknown;
      row[j] = v === null || v === undefined ? null : typeof v === 'number' ? (Number.isNaN(v) ? null : v) : typeof v === 'bigint' ? Number(v) : String(v);
    }
    rows[i] = row;
  }
  return { names, rows };
}

/**
 * The text of one batch: CSV lines (with the header row when `header`) or JSON Lines.
 *
 * @example
 * batchText(batch, 'csv', true); // 'score,predicted\n0.93,spam\n…'
 */
export function batchText(batch: RecordBatch, format: TextFormat, header: boolean): string {
  const { names, rows } = rowsOf(batch);
  if (format === 'csv') {
    const numbers = { cast: { number: (x: number) => String(x) } };
    const head = header ? stringify([names], numbers) : '';
    return rows.length === 0 ? head : head + stringify(rows, numbers);
  }
  let out = '';
  for (const row of rows) {
    const o: Record<string, number | string | null> = {};
    names.forEach((n, j) => (o[n] = row[j]));
    out += JSON.stringify(o) + '\n';
  }
  return out;
}

/**
 * The bytes (Arrow) or text (CSV, JSON Lines) of `batches` in `format`, one
 * chunk at a time as the batches come: memory stays at about one batch.
 *
 * @example
 * for await (const chunk of outputChunks(batches, 'csv')) process.stdout.write(chunk);
 */
export async function* outputChunks(batches: Iterable<RecordBatch> | AsyncIterable<RecordBatch>, format: OutputFormat): AsyncGenerator<string | Uint8Array> {
  if (format === 'csv' || format === 'jsonl') {
    let first = true;
    for await (const batch of batches) {
      yield batchText(batch, format, first);
      first = false;
    }
    return;
  }
  const writer = format === 'stream' ? new RecordBatchStreamWriter() : new RecordBatchFileWriter();
  const sink = new CollectedBytes();
  writer.reset(sink);
  for await (const batch of batches) {
    writer.write(batch);
    yield sink.take();
  }
  writer.close(); // footer (file) or end-of-stream marker (stream)
  yield sink.take();
}

/**
 * The Arrow writer's byte sink: keeps the chunks it is given and hands them
 * out as one array per call. (apache-arrow's own queue hands them out one
 * `shift()` at a time — a batch of d columns is about 3d chunks, so draining
 * it that way is O(d²): 76 s for 100,000 columns.)
 */
class CollectedBytes extends AsyncByteQueue {
  private chunks: Uint8Array[] = [];
  private bytes = 0;

  override write(value: Parameters<AsyncByteQueue['write']>[0]): void {
    // The writer hands over Uint8Arrays only (its `_write` converts every chunk).
    const chunk = value as Uint8Array;
    this.chunks.push(chunk);
    this.bytes += chunk.byteLength;
  }

  /** The bytes written since the last call, in order, in one array. */
  take(): Uint8Array {
    const out = new Uint8Array(this.bytes);
    let at = 0;
    for (const c of this.chunks) {
      out.set(c, at);
      at += c.byteLength;
    }
    this.chunks = [];
    this.bytes = 0;
    return out;
  }
}
