/**
 * LIBSVM / SVMlight text: one row per line, `label index:value …` with 1-based,
 * strictly increasing feature indices; absent indices are 0. This is the form
 * the papers' benchmark datasets ship in.
 *
 * Accepted: any numeric label (binary ±1 or 0/1, multi-class, ordinal); `?`
 * as the label of an unlabeled row; `#` comments (whole-line or trailing);
 * blank lines; a `qid:n` token (ranking files), which is ignored. With
 * `classes`, the labels are class names instead (`spam 1:0.5`).
 *
 * Files are read line by line from a stream, never as one string. A feature
 * index decides the width of the dense matrix, so an index beyond
 * `maxFeatures` (default {@link DEFAULT_MAX_FEATURES}) is refused on its line
 * before anything is allocated for it.
 */
import { createInterface } from 'node:readline';
import { openInputStream } from './open-input.ts';
import { DataError } from '../errors.ts';
import { LabelCoder, type ClassOptions } from './class-labels.ts';
import { binaryKind } from './csv.ts';
import { makeDataset, type Dataset } from './dataset.ts';
import { parseFiniteNumber, whyNotFinite } from './numbers.ts';
import { allocateFloat64 } from './row-batches.ts';
import { MAX_COLUMNS, validateDataset } from './validate.ts';

/** The widest LIBSVM file read unless `maxFeatures` (CLI `--max-features`) says less; at most {@link MAX_COLUMNS}. */
export const DEFAULT_MAX_FEATURES = MAX_COLUMNS;

/** Options for {@link parseLibsvm} / {@link readLibsvm}. */
export interface LibsvmOptions extends ClassOptions {
  /** Number of features; default the largest index in the file. Larger indices are an error. */
  features?: number;
  /** Largest feature index accepted when `features` is not given [{@link DEFAULT_MAX_FEATURES}]. */
  maxFeatures?: number;
  /** Name given to the label in the resulting Dataset (default `'label'`). */
  labelColumn?: string;
}

class Growable {
  buf: Float64Array = new Float64Array(1024);
  length = 0;
  push(v: number): void {
    if (this.length === this.buf.length) {
      const next = new Float64Array(this.buf.length * 2);
      next.set(this.buf);
      this.buf = next;
    }
    this.buf[this.length++] = v;
  }
}

/** Parses lines one at a time into sparse triplets; {@link LibsvmLines.finish} makes the dense dataset. */
class LibsvmLines {
  private readonly labels = new Growable();
  private readonly rowOf = new Growable();
  private readonly idxOf = new Growable();
  private readonly valOf = new Growable();
  private maxIndex = 0;
  private readonly limit: number;
  private readonly coder: LabelCoder | undefined;
  private readonly labelName: string;

  constructor(
    private readonly file: string,
    private readonly opts: LibsvmOptions,
  ) {
    this.limit = opts.features ?? opts.maxFeatures ?? DEFAULT_MAX_FEATURES;
    if (this.limit > MAX_COLUMNS) {
      throw new DataError(`${opts.features !== undefined ? 'features' : 'maxFeatures'} is ${this.limit}; dsgkit stores features dense and reads at most ${MAX_COLUMNS} (select or hash the features into fewer first)`, { file });
    }
    this.labelName = opts.labelColumn ?? 'label';
    this.coder = opts.classes !== undefined ? new LabelCoder(opts, file, this.labelName) : undefined;
  }

  line(text: string, lineNo: number): void {
    const { file, opts } = this;
    if (text.includes('\u0000')) throw new DataError(`the line holds NUL bytes: this is a binary file, not LIBSVM text${binaryKind(text)}`, { file, row: lineNo, line: true });
    let line = text;
    const hash = line.indexOf('#');
    if (hash >= 0) line = line.slice(0, hash);
    line = line.trim();
    if (line === '') return;
    const tokens = line.split(/\s+/);
    const at = (column?: string) => ({ file, row: lineNo, line: true, ...(column !== undefined ? { column } : {}) });
    const labelText = tokens[0];
    let label: number;
    if (labelText === '?') label = NaN;
    else if (this.coder) {
      if (labelText.includes(':')) throw new DataError(`line starts with '${labelText}', expected a label before the index:value pairs`, at());
      label = this.coder.code(labelText, { row: lineNo, line: true });
    } else {
      const v = parseFiniteNumber(labelText);
      if (v === undefined) {
        if (labelText.includes(':')) throw new DataError(`line starts with '${labelText}', expected a label before the index:value pairs`, at());
        throw new DataError(`label: ${whyNotFinite(labelText, 'labels')} (use '?' for an unlabeled row, or give the class names with --classes)`, at());
      }
      label = v;
    }
    const row = this.labels.length;
    this.labels.push(label);
    let prev = 0;
    for (let t = 1; t < tokens.length; t++) {
      const token = tokens[t];
      const colon = token.indexOf(':');
      if (colon <= 0 || colon === token.length - 1 || token.indexOf(':', colon + 1) >= 0) {
        throw new DataError(`bad token '${token.length > 40 ? token.slice(0, 40) + '…' : token}', expected index:value`, at());
      }
      const idxText = token.slice(0, colon);
      if (idxText === 'qid') continue;
      if (!/^\d+$/.test(idxText)) throw new DataError(`bad token '${token}': index '${idxText}' is not a positive integer`, at());
      const index = Number(idxText);
      if (index === 0) throw new DataError(`bad token '${token}': feature indices are 1-based, index 0 is not allowed`, at());
      if (index <= prev) throw new DataError(`bad token '${token}': index ${index} does not increase (previous index ${prev})`, at(String(index)));
      if (index > this.limit) {
        if (opts.features !== undefined) throw new DataError(`index ${index} exceeds the declared number of features ${opts.features}`, at(idxText));
        throw new DataError(this.limit >= MAX_COLUMNS ? `index ${index} is beyond ${MAX_COLUMNS} features, the most dsgkit reads (features are stored dense: select or hash them into fewer first)` : `index ${index} is beyond the limit of ${this.limit} features (raise it with --max-features, or the maxFeatures read option, up to ${MAX_COLUMNS})`, at(idxText));
      }
      const valText = token.slice(colon + 1);
      const value = parseFiniteNumber(valText);
      if (value === undefined) throw new DataError(whyNotFinite(valText), at(String(index)));
      prev = index;
      if (index > this.maxIndex) this.maxIndex = index;
      this.rowOf.push(row);
      this.idxOf.push(index);
      this.valOf.push(value);
    }
  }

  finish(): Dataset {
    const { file, rowOf, idxOf, valOf } = this;
    const n = this.labels.length;
    const d = this.opts.features ?? this.maxIndex;
    const X = allocateFloat64(n * d, `${n} rows × ${d} features`, { file });
    for (let j = 0; j < valOf.length; j++) X[rowOf.buf[j] * d + idxOf.buf[j] - 1] = valOf.buf[j];
    const y = this.labels.buf.slice(0, n);
    const classNames = this.coder?.finish(y);
    const ds = makeDataset({ X, d, y, labelName: this.labelName, source: file, ...(classNames !== undefined ? { classNames } : {}) });
    validateDataset(ds);
    return ds;
  }
}

/**
 * Parses LIBSVM text into a dense, validated {@link Dataset}. Errors name the
 * file, the line and (for a feature) its index.
 *
 * @example
 * const ds = parseLibsvm('+1 1:0.5 3:2\n-1 2:1\n? 1:1\n', 'toy.libsvm');
 * ds.d;        // 3
 * ds.X[2];     // 2
 * ds.labeled;  // Uint8Array [1, 1, 0]
 */
export function parseLibsvm(text: string, file: string, opts: LibsvmOptions = {}): Dataset {
  const parser = new LibsvmLines(file, opts);
  const lines = text.split(/\r\n|\n|\r/); // line ends as readline splits them (readLibsvm)
  for (let i = 0; i < lines.length; i++) parser.line(lines[i], i + 1);
  return parser.finish();
}

/**
 * Reads a LIBSVM file from disk line by line (see {@link parseLibsvm}).
 *
 * @example
 * const ds = await readLibsvm('a9a.t', { features: 123 });
 */
export async function readLibsvm(path: string, opts: LibsvmOptions = {}): Promise<Dataset> {
  const parser = new LibsvmLines(path, opts);
  const input = await openInputStream(path, 'utf8');
  const lines = createInterface({ input, crlfDelay: Infinity });
  let lineNo = 0;
  try {
    for await (const line of lines) parser.line(line, ++lineNo);
  } catch (err) {
    if (err instanceof DataError) throw err;
    throw new DataError(`cannot read file: ${(err as Error).message}`, { file: path }, { cause: err });
  } finally {
    lines.close();
    input.destroy();
  }
  return parser.finish();
}
