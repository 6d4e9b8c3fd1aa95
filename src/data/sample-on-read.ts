/**
 * Sample on read: training on an Arrow file larger than memory, keeping only
 * the rows a run uses. Two streaming passes over the record batches, each in
 * about one batch of memory:
 *
 * 1. {@link scanArrow}: checks every value (a bad one is a DataError naming
 *    file, column and row), fits the min-max scaler, and keeps the labels of
 *    the labeled rows (not their features).
 * 2. The caller plans, from the sizes and labels alone, which rows the run
 *    will draw (a learner on a RowRecorder, data/training-rows.ts);
 *    {@link keepRows} reads the file again, scales every batch (in the row
 *    kernel, data/row-kernel.ts), computes the data fingerprint over the
 *    scaled rows (on a thread of its own, while the next batch is read), and
 *    keeps the planned rows.
 *
 * Memory: labeled rows (label + position) + kept rows × d × 8 bytes + one
 * record batch, whatever the file's size — less for a file of plain numeric
 * columns (float64 as `dsgkit generate` and `convert` write, float32 and
 * integers as pyarrow and pandas write; data/arrow.ts), which each pass reads
 * up to 8,192 rows at a time into the same buffers (`batches(…, { reuse: true })`
 * of data/arrow.ts; the first pass as columns, `columns: true`, the second
 * as scaled rows): 6M × 129 (6.2 GB) is read twice in about 70 MB besides
 * the quantile sample and the kept rows. The kept rows are exactly the rows
 * the in-memory path would copy, and they are scaled by the same scaler with
 * the same arithmetic, so the model is the same bytes.
 *
 * A stream of unknown length (a pipe) cannot be read twice nor planned for:
 * {@link reservoirSample} keeps the labeled rows and a seeded reservoir of
 * unlabeled rows in one pass (a different, equally valid, deterministic model).
 */
import seedrandom from 'seedrandom';
import { DataError } from '../errors.ts';
import { makeDataset, type Dataset } from './dataset.ts';
import type { RowSource } from './row-source.ts';
import { openArrowRows, type ArrowRows, type ReadOptions } from './arrow.ts';
import { StreamedFingerprint } from './fingerprint.ts';
import { scalingRange, type MinMaxScaler } from './scaler.ts';
import { KeptRows, type RowsMeta } from './training-rows.ts';

/** Rows read so far in a pass, for progress reports. */
export interface ReadProgress {
  /** 1: scan (check, fit the scaler, labels), 2: scale, fingerprint, keep the planned rows. */
  readonly pass: 1 | 2;
  readonly rows: number;
  readonly n: number;
}

/** What the first pass over a file found. */
export interface ArrowScan {
  readonly file: ArrowRows;
  /** Sizes, columns and the labels of the labeled rows (class names final). */
  readonly meta: RowsMeta;
  /** Fitted on every row of the file. */
  readonly scaler: MinMaxScaler;
}

/** What the second pass kept. */
export interface KeptScan {
  readonly rows: KeptRows;
  /** The data fingerprint of the scaled rows (data/fingerprint.ts), as the in-memory path computes it. */
  readonly fingerprint: string;
}

/**
 * Pass 1 over an Arrow IPC file or stream: validation, scaler, labels. Flat memory besides the labeled rows' labels.
 *
 * @example
 * const scan = await scanArrow('big.arrow', { labelColumn: 'label' });
 * scan.meta.n; // 20_000_000
 * scan.meta.labeledRows.length; // 200
 */
export async function scanArrow(path: string, read: ReadOptions = {}, onProgress?: (p: ReadProgress) => void, clipQuantile = 0): Promise<ArrowScan> {
  const file = await openArrowRows(path, read);
  const { n } = file;
  const d = file.featureNames.length;
  const range = scalingRange(d, clipQuantile);
  const labeledRows: number[] = [];
  const labels: number[] = [];
  let row0 = 0;
  // A plain file's blocks come as their columns: the scan needs no rows.
  for await (const batch of file.batches(undefined, { reuse: true, columns: true })) {
    range.addBatch(batch);
    const y = batch.y;
    for (let i = 0; i < batch.n; i++) {
      if (!Number.isNaN(y[i])) {
        labeledRows.push(row0 + i);
        labels.push(y[i]);
      }
    }
    row0 += batch.n;
    onProgress?.({ pass: 1, rows: row0, n });
  }
  const y = Float64Array.from(labels);
  const classNames = file.labels.finish(y);
  const rows = Int32Array.from(labeledRows);
  return {
    file,
    meta: {
      n,
      d,
      featureNames: file.featureNames,
      labelName: file.labelName,
      source: path,
      ...(classNames !== undefined ? { classNames } : {}),
      labeledRows: rows,
      labels: y,
    },
    scaler: range.scaler(file.featureNames, path),
  };
}

/**
 * Pass 2: the rows `keep` (ascending dataset indices) of the scanned file,
 * scaled by the scan's scaler, as {@link KeptRows}, and the fingerprint of
 * all the scaled rows.
 *
 * @example
 * const { rows, fingerprint } = await keepRows(scan, recorder.rows());
 */
export async function keepRows(scan: ArrowScan, keep: Int32Array, onProgress?: (p: ReadProgress) => void): Promise<KeptScan> {
  const { scaler } = scan;
  const { d, n } = scan.meta;
  for (let r = 1; r < keep.length; r++) if (!(keep[r] > keep[r - 1])) throw new RangeError('keepRows: rows must be ascending and distinct');
  if (keep.length > 0 && (keep[0] < 0 || keep[keep.length - 1] >= n)) throw new RangeError(`keepRows: rows outside 0 … ${n - 1}`);
  const X = new Float64Array(keep.length * d);
  // Hashed on a thread of its own while the next batch is read and scaled.
  const fingerprint = new StreamedFingerprint(n, d);
  try {
    let row0 = 0;
    let r = 0;
    // Batches come scaled with the arithmetic of the in-memory path (transformInPlace), so kept rows and digest are its bits.
    for await (const batch of scan.file.batches(undefined, { reuse: true, scale: scaler })) {
      const end = row0 + batch.n;
      const scaled = batch.X;
      await fingerprint.features(scaled);
      for (; r < keep.length && keep[r] < end; r++) X.set(scaled.subarray((keep[r] - row0) * d, (keep[r] - row0 + 1) * d), r * d);
      row0 = end;
      onProgress?.({ pass: 2, rows: row0, n });
    }
    if (row0 !== n) throw new DataError(`read ${row0} rows, the headers list ${n} (the file changed while training?)`, { file: scan.meta.source });
    return { rows: new KeptRows(scan.meta, keep, X), fingerprint: await fingerprint.sparseLabels(scan.meta.labeledRows, scan.meta.labels) };
  } finally {
    await fingerprint.close();
  }
}

/** What {@link reservoirSample} kept of a stream of unknown length. */
export interface ReservoirSample {
  /** The labeled rows and the reservoir's unlabeled rows, in stream order, features as read (unscaled). */
  readonly ds: Dataset;
  /** Fitted on every row of the stream. */
  readonly scaler: MinMaxScaler;
  /** Rows in the stream. */
  readonly n: number;
}

/**
 * One pass over rows of unknown count (an Arrow stream from a pipe): every
 * labeled row is kept, and a seeded uniform reservoir of `size` unlabeled rows
 * (Vitter's algorithm R on the stream `dsgkit-reservoir:<seed>`: the same
 * stream and seed keep the same rows); the scaler (min–max, or clipped at
 * `clipQuantile`) is fitted on all rows. Memory: (labeled + size) × d × 8 bytes + one batch.
 *
 * @example
 * const { ds, scaler, n } = await reservoirSample(await openArrowStream(process.stdin, 'stdin'), 64_000, 1);
 */
export async function reservoirSample(source: RowSource, size: number, seed: number | string, clipQuantile = 0): Promise<ReservoirSample> {
  if (!Number.isSafeInteger(size) || size < 0) throw new RangeError(`reservoirSample: size must be a whole number ≥ 0, got ${size}`);
  const d = source.featureNames.length;
  const range = scalingRange(d, clipQuantile);
  const rng = seedrandom(`dsgkit-reservoir:${seed}`);
  const labeledX: number[] = [];
  const labeledY: number[] = [];
  const labeledAt: number[] = [];
  const reservoirX = new Float64Array(size * d);
  const reservoirAt = new Float64Array(size);
  let unlabeled = 0;
  let row0 = 0;
  for await (const batch of source.batches()) {
    range.add(batch.X, 0, batch.n);
    for (let i = 0; i < batch.n; i++) {
      const row = batch.X.subarray(i * d, i * d + d);
      if (!Number.isNaN(batch.y[i])) {
        for (let k = 0; k < d; k++) labeledX.push(row[k]);
        labeledY.push(batch.y[i]);
        labeledAt.push(row0 + i);
        continue;
      }
      const slot = unlabeled < size ? unlabeled : Math.floor(rng() * (unlabeled + 1));
      if (slot < size) {
        reservoirX.set(row, slot * d);
        reservoirAt[slot] = row0 + i;
      }
      unlabeled++;
    }
    row0 += batch.n;
  }
  // Labeled rows and the reservoir, merged back into stream order.
  const kept = Math.min(size, unlabeled);
  const order = [...labeledAt.map((at, r) => ({ at, r, labeled: true })), ...Array.from({ length: kept }, (_, r) => ({ at: reservoirAt[r], r, labeled: false }))].sort((a, b) => a.at - b.at);
  const X = new Float64Array(order.length * d);
  const y = new Float64Array(order.length).fill(NaN);
  order.forEach(({ r, labeled }, p) => {
    if (labeled) {
      for (let k = 0; k < d; k++) X[p * d + k] = labeledX[r * d + k];
      y[p] = labeledY[r];
    } else X.set(reservoirX.subarray(r * d, r * d + d), p * d);
  });
  const classNames = source.labels.finish(y);
  const ds = makeDataset({ X, d, y, featureNames: source.featureNames, labelName: source.labelName, source: source.file, ...(classNames !== undefined ? { classNames } : {}) });
  return { ds, scaler: range.scaler(source.featureNames, source.file), n: row0 };
}
