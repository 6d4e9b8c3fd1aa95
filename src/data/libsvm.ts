/**
 * LIBSVM / SVMlight text: one row per line, `label index:value …` with 1-based,
 * strictly increasing feature indices; absent indices are 0. This is the form
 * the papers' benchmark datasets ship in.
 *
 * Accepted: any numeric label (binary ±1 or 0/1, multi-class, ordinal); `?`
 * as the label of an unlabeled row; `#` comments (whole-line or trailing);
 * blank lines; a `qid:n` token (ranking files), which is ignored.
 */
import { readFile } from 'node:fs/promises';
import { DataError } from '../errors.ts';
import { makeDataset, type Dataset } from './dataset.ts';
import { parseFiniteNumber, whyNotFinite } from './numbers.ts';
import { validateDataset } from './validate.ts';

/** Options for {@link parseLibsvm} / {@link readLibsvm}. */
export interface LibsvmOptions {
  /** Number of features; default the largest index in the file. Larger indices are an error. */
  features?: number;
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
  const labels = new Growable();
  const rowOf = new Growable();
  const idxOf = new Growable();
  const valOf = new Growable();
  let maxIndex = 0;
  const lines = text.split('\n');
  for (let ln = 0; ln < lines.length; ln++) {
    const lineNo = ln + 1;
    let line = lines[ln];
    const hash = line.indexOf('#');
    if (hash >= 0) line = line.slice(0, hash);
    line = line.trim();
    if (line === '') continue;
    const tokens = line.split(/\s+/);
    const at = (column?: string) => ({ file, row: lineNo, line: true, ...(column !== undefined ? { column } : {}) });
    const labelText = tokens[0];
    let label: number;
    if (labelText === '?') label = NaN;
    else {
      const v = parseFiniteNumber(labelText);
      if (v === undefined) {
        if (labelText.includes(':')) throw new DataError(`line starts with '${labelText}', expected a label before the index:value pairs`, at());
        throw new DataError(`label: ${whyNotFinite(labelText, 'labels')} (use '?' for an unlabeled row)`, at());
      }
      label = v;
    }
    const row = labels.length;
    labels.push(label);
    let prev = 0;
    for (let t = 1; t < tokens.length; t++) {
      const token = tokens[t];
      const colon = token.indexOf(':');
      if (colon <= 0 || colon === token.length - 1 || token.indexOf(':', colon + 1) >= 0) {
        throw new DataError(`bad token '${token}', expected index:value`, at());
      }
      const idxText = token.slice(0, colon);
      if (idxText === 'qid') continue;
      if (!/^\d+$/.test(idxText)) throw new DataError(`bad token '${token}': index '${idxText}' is not a positive integer`, at());
      const index = Number(idxText);
      if (index === 0) throw new DataError(`bad token '${token}': feature indices are 1-based, index 0 is not allowed`, at());
      if (index <= prev) throw new DataError(`bad token '${token}': index ${index} does not increase (previous index ${prev})`, at(String(index)));
      if (opts.features !== undefined && index > opts.features) {
        throw new DataError(`index ${index} exceeds the declared number of features ${opts.features}`, at(String(index)));
      }
      const valText = token.slice(colon + 1);
      const value = parseFiniteNumber(valText);
      if (value === undefined) throw new DataError(whyNotFinite(valText), at(String(index)));
      prev = index;
      if (index > maxIndex) maxIndex = index;
      rowOf.push(row);
      idxOf.push(index);
      valOf.push(value);
    }
  }
  const n = labels.length;
  const d = opts.features ?? maxIndex;
  const X = new Float64Array(n * d);
  for (let j = 0; j < valOf.length; j++) X[rowOf.buf[j] * d + idxOf.buf[j] - 1] = valOf.buf[j];
  const ds = makeDataset({ X, d, y: labels.buf.slice(0, n), labelName: opts.labelColumn ?? 'label', source: file });
  validateDataset(ds);
  return ds;
}

/**
 * Reads a LIBSVM file from disk (see {@link parseLibsvm}).
 *
 * @example
 * const ds = await readLibsvm('a9a.t', { features: 123 });
 */
export async function readLibsvm(path: string, opts: LibsvmOptions = {}): Promise<Dataset> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    throw new DataError(`cannot read file: ${(err as Error).message}`, { file: path }, { cause: err });
  }
  return parseLibsvm(text, path, opts);
}
