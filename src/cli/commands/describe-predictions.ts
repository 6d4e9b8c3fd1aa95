/**
 * `dsgkit describe` of a predictions file — what `dsgkit predict` writes
 * (columns `score`, `predicted`, then the input's label column when it had
 * one), as Arrow, CSV or JSON Lines: the score's range, the predicted classes
 * and, where the label is known, how often the prediction agrees with it.
 * Read row by row, in flat memory; an Arrow file's messages are checked
 * before they are decoded, as for any data file.
 */
import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { extname } from 'node:path';
import { createInterface } from 'node:readline';
import { parse } from 'csv-parse';
import { DataError } from '../../errors.ts';
import { openArrowBatches } from '../../data/arrow.ts';

/** What `describe` says of a predictions file (the `--json` form). */
export interface PredictionsSummary {
  file: string;
  kind: 'predictions';
  rows: number;
  score: { min: number; mean: number; max: number };
  /** Per predicted label: the label as written (a class name, or a number), count and fraction of the rows. */
  predicted: { label: string; count: number; fraction: number }[];
  /** The label column, when the file has one. */
  labelColumn?: string;
  labeled?: number;
  /** Rows whose prediction equals their label, of the labeled rows. */
  agreement?: { count: number; fraction: number };
}

type Cell = string | number | null | undefined;

/** The column names and rows of a predictions file, by its extension. */
async function openRows(path: string): Promise<{ names: string[]; rows: AsyncIterable<Cell[]> }> {
  const ext = extname(path).toLowerCase();
  if (ext === '.csv') {
    const records = createReadStream(path).pipe(parse({ bom: true, relax_column_count: false }))[Symbol.asyncIterator]() as AsyncIterator<string[]>;
    const first = await records.next();
    const names = first.done ? [] : first.value;
    return { names, rows: { [Symbol.asyncIterator]: () => records } };
  }
  if (ext === '.jsonl' || ext === '.ndjson') {
    const lines = createInterface({ input: createReadStream(path), crlfDelay: Infinity })[Symbol.asyncIterator]();
    let names: string[] = [];
    let line = 0;
    const parseLine = (text: string): Record<string, Cell> => {
      try {
        return JSON.parse(text) as Record<string, Cell>;
      } catch {
        throw new DataError('not a JSON object', { file: path, row: line, line: true });
      }
    };
    let firstRow: Record<string, Cell> | undefined;
    for (;;) {
      const next = await lines.next();
      if (next.done) break;
      line++;
      if (next.value.trim() === '') continue;
      firstRow = parseLine(next.value);
      names = Object.keys(firstRow);
      break;
    }
    async function* rows(): AsyncGenerator<Cell[]> {
      if (firstRow) yield names.map((n) => firstRow![n]);
      for (;;) {
        const next = await lines.next();
        if (next.done) return;
        line++;
        if (next.value.trim() === '') continue;
        const o = parseLine(next.value);
        yield names.map((n) => o[n]);
      }
    }
    return { names, rows: rows() };
  }
  const arrow = await openArrowBatches(path);
  const names = arrow.names;
  async function* rows(): AsyncGenerator<Cell[]> {
    for await (const batch of arrow.batches()) {
      const cols = names.map((_, j) => batch.getChildAt(j)!);
      for (let i = 0; i < batch.numRows; i++) yield cols.map((c) => c.get(i) as Cell);
    }
  }
  return { names, rows: rows() };
}

/**
 * Whether `path` is a predictions file: its first two columns are `score`
 * and `predicted` (Arrow schema, CSV header, first JSON Lines object).
 *
 * @example
 * await isPredictionsFile('scores.csv'); // true for what `dsgkit predict --out scores.csv` wrote
 */
export async function isPredictionsFile(path: string): Promise<boolean> {
  const ext = extname(path).toLowerCase();
  if (ext === '.jsonl' || ext === '.ndjson') return true;
  try {
    if (ext === '.csv') {
      const fh = await open(path, 'r');
      try {
        const { buffer, bytesRead } = await fh.read(Buffer.alloc(256), 0, 256, 0);
        return /^\uFEFF?"?score"?,"?predicted"?(,|\r?\n|$)/.test(buffer.subarray(0, bytesRead).toString('utf8'));
      } finally {
        await fh.close();
      }
    }
    if (!['.arrow', '.arrows', '.feather', '.ipc'].includes(ext)) return false;
    const arrow = await openArrowBatches(path);
    await arrow.close();
    return arrow.names[0] === 'score' && arrow.names[1] === 'predicted';
  } catch {
    return false; // not readable as a predictions file: the data-file reader says why
  }
}

const isMissing = (v: Cell) => v === null || v === undefined || v === '';

/**
 * Reads a predictions file (see the module comment) and sums it up.
 *
 * @example
 * const s = await summarizePredictions('scores.arrow');
 * s.agreement?.fraction; // 0.95
 */
export async function summarizePredictions(path: string): Promise<PredictionsSummary> {
  const { names, rows } = await openRows(path);
  if (names[0] !== 'score' || names[1] !== 'predicted') throw new DataError(`not a predictions file: its first columns are ${names.slice(0, 2).join(', ') || 'none'}, not score, predicted`, { file: path });
  const labelColumn = names[2];
  let n = 0;
  let min = Infinity;
  let max = -Infinity;
  let sum = 0;
  let labeled = 0;
  let agree = 0;
  const counts = new Map<string, number>();
  for await (const row of rows) {
    n++;
    const score = typeof row[0] === 'number' ? row[0] : Number(row[0]);
    if (isMissing(row[0]) || !Number.isFinite(score)) throw new DataError(`score '${String(row[0])}' is not a number`, { file: path, column: 'score', row: n });
    if (score < min) min = score;
    if (score > max) max = score;
    sum += score;
    const predicted = String(row[1]);
    counts.set(predicted, (counts.get(predicted) ?? 0) + 1);
    if (labelColumn !== undefined && !isMissing(row[2])) {
      labeled++;
      if (String(row[2]) === predicted) agree++;
    }
  }
  const numeric = [...counts.keys()].every((k) => Number.isFinite(Number(k)));
  const predicted = [...counts.entries()]
    .sort((a, b) => (numeric ? Number(a[0]) - Number(b[0]) : a[0].localeCompare(b[0])))
    .map(([label, count]) => ({ label, count, fraction: count / n }));
  return {
    file: path,
    kind: 'predictions',
    rows: n,
    score: { min: n ? min : NaN, mean: n ? sum / n : NaN, max: n ? max : NaN },
    predicted,
    ...(labelColumn !== undefined ? { labelColumn, labeled, agreement: { count: agree, fraction: labeled ? agree / labeled : NaN } } : {}),
  };
}

const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
const num = (x: number) => (Number.isInteger(x) ? String(x) : Number(x.toPrecision(6)).toString());

/**
 * The text form of a predictions summary.
 *
 * @example
 * io.stdout.write(formatPredictions(await summarizePredictions('scores.csv')));
 */
export function formatPredictions(s: PredictionsSummary): string {
  const lines = [`file:       ${s.file}`, `rows:       ${s.rows} predictions`, `score:      min ${num(s.score.min)}, mean ${num(s.score.mean)}, max ${num(s.score.max)}`, `predicted:  ${s.predicted.length} classes`];
  const w = Math.max(0, ...s.predicted.map((p) => p.label.length));
  for (const p of s.predicted) lines.push(`  ${p.label.padStart(w)}: ${String(p.count).padStart(String(s.rows).length)}  ${pct(p.fraction).padStart(6)}`);
  if (s.labelColumn !== undefined) {
    lines.push(`label:      column '${s.labelColumn}', ${s.labeled} labeled rows`);
    if (s.labeled) lines.push(`agreement:  predicted = label on ${s.agreement!.count} of ${s.labeled} labeled rows (${pct(s.agreement!.fraction)})`);
  }
  return lines.join('\n') + '\n';
}
