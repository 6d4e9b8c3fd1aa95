/**
 * Min-max scaling of every feature to [0, 1], as the papers do before
 * training. The range is fitted on the training rows only (labeled and
 * unlabeled alike — both are training data in semi-supervised learning) and
 * kept with the model, so prediction applies the very same map.
 *
 * Choices, stated once:
 * - A constant column (max = min on the training rows) maps to 0 everywhere,
 *   also for new data that differs from the constant: the model never learned
 *   anything about that feature.
 * - Without a clip quantile (q = 0: the minimum and maximum) new data outside
 *   the fitted range is NOT clipped: it maps outside [0, 1] (e.g. -0.1 or
 *   1.3). The Gaussian kernel is defined on all of R^d, and clipping would
 *   silently merge distinct points.
 * - With a clip quantile q > 0 (`clipQuantile`) the range of a feature is
 *   its q and 1 − q quantiles on the training rows instead of its minimum
 *   and maximum, and every value, training or new, is clipped into [0, 1]:
 *   a few extreme values (diamonds recorded as 0 mm or 58.9 mm across where
 *   99% measure 4–8.5 mm) then no longer squeeze the bulk of a column into a
 *   sliver of [0, 1], which weighs that feature down in every distance the
 *   kernel takes.
 * - A column whose range max − min overflows a double (values near ±1.7e308,
 *   e.g. −1e308 and 1e308) cannot be scaled — every scaled value would be
 *   NaN — and is refused with a DataError naming the file and the column.
 */
import seedrandom from 'seedrandom';
import { selectInPlace } from './order-statistics.ts';
import { DataError, ModelError } from '../errors.ts';
import { withRows, type Dataset } from './dataset.ts';
import type { RowBatch } from './row-batches.ts';

/** The JSON form of a fitted {@link MinMaxScaler}, as stored in a model file. */
export interface MinMaxScalerJSON {
  kind: 'minmax';
  featureNames: string[];
  min: number[];
  max: number[];
  /** The clip quantile q when the range is the q and 1 − q quantiles and values are clipped into it (absent: min and max, no clipping). */
  clipQuantile?: number;
}

/** Largest clip quantile accepted: a range from the q to the 1 − q quantile needs q below ½. */
export const MAX_CLIP_QUANTILE = 0.25;

/**
 * The clip quantile every learner scales its features with when none is
 * given: each feature's range is its 2% and 98% quantiles. On the quality
 * benchmark the quantile range beat min–max for every learner, and 2% beat
 * 0.1%, 0.5% and 5% at the defaults and 0.5% after `tune` on average for
 * every learner (docs/data.md § Feature scaling).
 */
export const DEFAULT_CLIP_QUANTILE = 0.02;

/**
 * How the features were scaled, for a run summary or `describe`: over the
 * training rows' minimum to maximum, or with a clip quantile q over their q
 * to 1 − q quantiles, clipped.
 *
 * @example
 * scalingText(0.005); // 'each feature over its 0.5%–99.5% quantiles of the training rows, clipped into [0, 1] (--clip-quantile 0.005)'
 * scalingText(0);     // 'each feature over its minimum to maximum on the training rows'
 */
export function scalingText(q: number): string {
  if (q === 0) return 'each feature over its minimum to maximum on the training rows';
  const pct = (v: number) => `${Number((100 * v).toPrecision(6))}%`;
  return `each feature over its ${pct(q)}–${pct(1 - q)} quantiles of the training rows, clipped into [0, 1] (--clip-quantile ${q})`;
}

/**
 * A fitted per-feature affine map `x ↦ (x - min) / (max - min)` (0 when
 * `max = min`), clipped into [0, 1] when fitted with a clip quantile.
 *
 * @example
 * const scaler = MinMaxScaler.fit(train);
 * const robust = MinMaxScaler.fit(train, undefined, { clipQuantile: 0.005 }); // range: the 0.5% and 99.5% quantiles
 * const trainScaled = scaler.transform(train);
 * const testScaled = scaler.transform(test);   // same map, fitted on train only
 * const again = MinMaxScaler.fromJSON(JSON.parse(JSON.stringify(scaler)));
 */
export class MinMaxScaler {
  /** Per-feature minimum over the training rows (their q quantile with a clip quantile q). */
  readonly min: Float64Array;
  /** Per-feature maximum over the training rows (their 1 − q quantile with a clip quantile q). */
  readonly max: Float64Array;
  /** The clip quantile q: 0, or the quantile the range was fitted at, values then clipped into [0, 1]. */
  readonly clipQuantile: number;
  /** Names of the features, in order (for dimension and name checks). */
  readonly featureNames: readonly string[];
  /** `1 / (max - min)`, or 0 for a constant feature. */
  private readonly inv: Float64Array;

  constructor(min: ArrayLike<number>, max: ArrayLike<number>, featureNames: readonly string[], clipQuantile = 0) {
    if (min.length !== max.length || min.length !== featureNames.length) {
      throw new RangeError(`MinMaxScaler: ${min.length} minima, ${max.length} maxima, ${featureNames.length} names`);
    }
    if (!(clipQuantile >= 0 && clipQuantile <= MAX_CLIP_QUANTILE)) throw new RangeError(`MinMaxScaler: clip quantile ${clipQuantile} is not in [0, ${MAX_CLIP_QUANTILE}]`);
    this.clipQuantile = clipQuantile;
    this.min = Float64Array.from(min);
    this.max = Float64Array.from(max);
    this.featureNames = [...featureNames];
    this.inv = new Float64Array(this.min.length);
    for (let k = 0; k < this.min.length; k++) {
      const range = this.max[k] - this.min[k];
      if (!(range >= 0)) throw new RangeError(`MinMaxScaler: feature ${k + 1} has max ${this.max[k]} < min ${this.min[k]}`);
      this.inv[k] = range > 0 ? 1 / range : 0;
    }
  }

  /** `1 / (max − min)` per feature, 0 for a constant one: what a value minus its `min` is multiplied by (data/row-kernel.ts scales with it). */
  get factors(): Float64Array {
    return this.inv;
  }

  /** Number of features the scaler was fitted on. */
  get d(): number {
    return this.min.length;
  }

  /**
   * Fits on `ds`, or on only the rows listed in `rows` (e.g. the training rows).
   *
   * @example
   * const scaler = MinMaxScaler.fit(ds, trainIndices);
   */
  static fit(ds: Dataset, rows?: ArrayLike<number>, options: { clipQuantile?: number } = {}): MinMaxScaler {
    const count = rows ? rows.length : ds.n;
    if (count === 0) throw new DataError('cannot fit feature scaling on zero rows', { file: ds.source });
    const range = scalingRange(ds.d, options.clipQuantile ?? 0, count);
    if (rows) for (let r = 0; r < count; r++) range.add(ds.X, rows[r] * ds.d, 1);
    else range.add(ds.X, 0, ds.n);
    return range.scaler(ds.featureNames, ds.source);
  }

  /**
   * Scales one row `x` (length `d`) into `out` (may be `x` itself).
   *
   * @example
   * scaler.transformRow(x, x); // in place
   */
  transformRow(x: ArrayLike<number>, out: Float64Array, xOffset = 0, outOffset = 0): Float64Array {
    const { min, inv } = this;
    if (this.clipQuantile > 0) {
      for (let k = 0; k < min.length; k++) {
        const v = (x[xOffset + k] - min[k]) * inv[k];
        out[outOffset + k] = v < 0 ? 0 : v > 1 ? 1 : v;
      }
    } else {
      for (let k = 0; k < min.length; k++) out[outOffset + k] = (x[xOffset + k] - min[k]) * inv[k];
    }
    return out;
  }

  /**
   * Scales a row-major block of rows (`X.length` a multiple of `d`) in place.
   *
   * @example
   * scaler.transformInPlace(batchX);
   */
  transformInPlace(X: Float64Array): Float64Array {
    const d = this.d;
    if (d === 0 ? X.length !== 0 : X.length % d !== 0) throw new RangeError(`MinMaxScaler: ${X.length} values are not rows of ${d} features`);
    return this.transformRows(X, X);
  }

  /** Scales the rows of `from` (row-major, `d` a row) into `into` (the same length; may be `from`): {@link transformRow} row by row. */
  private transformRows(from: Float64Array, into: Float64Array): Float64Array {
    const d = this.d;
    for (let base = 0; base < from.length; base += d) this.transformRow(from, into, base, base);
    return into;
  }

  /**
   * A scaled copy of `ds` (labels and mask unchanged), its features written
   * into `into` when given (e.g. an array on a SharedArrayBuffer that worker
   * threads then map instead of copying). Throws a DataError when `ds` has a
   * different number of features than the scaler was fitted on.
   *
   * @example
   * const scaled = scaler.transform(test);
   * const shared = scaler.transform(train, new Float64Array(new SharedArrayBuffer(8 * train.X.length)));
   */
  transform(ds: Dataset, into?: Float64Array): Dataset {
    if (ds.d !== this.d) {
      throw new DataError(`data has ${ds.d} features but the scaling was fitted on ${this.d}`, { file: ds.source });
    }
    if (into !== undefined && into.length !== ds.X.length) throw new RangeError(`MinMaxScaler: into holds ${into.length} values, the rows ${ds.X.length}`);
    // Each row scaled from ds.X straight into the copy: one pass, no copy of the raw values first.
    const X = this.transformRows(ds.X, into ?? new Float64Array(ds.X.length));
    return withRows(ds, X, ds.y.slice());
  }

  /**
   * Plain-JSON form (numbers survive `JSON.stringify` exactly: doubles round-trip).
   *
   * @example
   * JSON.stringify(scaler); // '{"kind":"minmax","featureNames":[...],"min":[...],"max":[...]}'
   */
  toJSON(): MinMaxScalerJSON {
    return { kind: 'minmax', featureNames: [...this.featureNames], min: Array.from(this.min), max: Array.from(this.max), ...(this.clipQuantile > 0 ? { clipQuantile: this.clipQuantile } : {}) };
  }

  /**
   * Rebuilds a scaler from {@link MinMaxScaler.toJSON} output, checking its shape
   * (a ModelError when it is not one).
   *
   * @example
   * const scaler = MinMaxScaler.fromJSON(model.scaler);
   */
  static fromJSON(json: unknown): MinMaxScaler {
    const j = json as Partial<MinMaxScalerJSON> | null;
    const ok =
      j !== null && typeof j === 'object' && j.kind === 'minmax' &&
      Array.isArray(j.min) && Array.isArray(j.max) && Array.isArray(j.featureNames) &&
      j.min.every((v) => typeof v === 'number' && Number.isFinite(v)) &&
      j.max.every((v) => typeof v === 'number' && Number.isFinite(v)) &&
      j.featureNames.every((v) => typeof v === 'string') &&
      (j.clipQuantile === undefined || (typeof j.clipQuantile === 'number' && j.clipQuantile >= 0 && j.clipQuantile <= MAX_CLIP_QUANTILE));
    if (!ok) throw new ModelError(`feature scaling in the model is not a min-max scaler ({kind:"minmax", featureNames, min, max} with finite numbers, clipQuantile in [0, ${MAX_CLIP_QUANTILE}] if present)`);
    const bad = badRange(j.min!, j.max!);
    if (bad >= 0) throw new ModelError(`feature scaling in the model is impossible for feature ${bad + 1} ('${j.featureNames![bad] ?? '?'}'): min ${j.min![bad]}, max ${j.max![bad]} (min must not exceed max, and max − min must be finite)`);
    return new MinMaxScaler(j.min!, j.max!, j.featureNames!, j.clipQuantile ?? 0);
  }
}

/**
 * The per-feature minimum and maximum of rows seen so far, block by block
 * (how {@link MinMaxScaler.fit} works, and how a streaming reader fits the
 * scaler in one pass over a file).
 *
 * @example
 * const range = new MinMaxRange(d);
 * for await (const b of rows.batches()) range.add(b.X, 0, b.n);
 * const scaler = range.scaler(featureNames);
 */
export class MinMaxRange {
  readonly min: Float64Array;
  readonly max: Float64Array;
  /** Rows seen. */
  count = 0;

  constructor(readonly d: number) {
    this.min = new Float64Array(d).fill(Infinity);
    this.max = new Float64Array(d).fill(-Infinity);
  }

  /** Takes in `rows` rows of the row-major `X` from value `offset` on. */
  add(X: Float64Array, offset: number, rows: number): void {
    const { d, min, max } = this;
    for (let r = 0; r < rows; r++) {
      const base = offset + r * d;
      for (let k = 0; k < d; k++) {
        const v = X[base + k];
        if (v < min[k]) min[k] = v;
        if (v > max[k]) max[k] = v;
      }
    }
    this.count += rows;
  }

  /**
   * Takes in a reader's block, rows or columns (data/row-batches.ts): by
   * column, each feature's values are compared in row order as {@link add}
   * compares them, so the range is the same bits either way.
   */
  addBatch(batch: RowBatch): void {
    const { columns, n } = batch;
    if (columns === undefined) return this.add(batch.X, 0, n);
    const { d, min, max } = this;
    for (let k = 0; k < d; k++) {
      const c = columns[k];
      let lo = min[k];
      let hi = max[k];
      for (let r = 0; r < n; r++) {
        const v = c[r];
        if (v < lo) lo = v;
        if (v > hi) hi = v;
      }
      min[k] = lo;
      max[k] = hi;
    }
    this.count += n;
  }

  /**
   * The scaler of the rows seen: a DataError naming `file` when there were
   * none, or naming the column whose range overflows (max − min = ∞).
   */
  scaler(featureNames: readonly string[], file?: string): MinMaxScaler {
    return fittedScaler(this.count, this.min, this.max, featureNames, file);
  }
}

/**
 * Rows the quantiles of a clipped scaling are taken over, at most: up to this
 * many training rows every row counts (exact quantiles); beyond it a seeded
 * uniform sample of this many rows does, drawn as the rows go by, so a file
 * read whole, sampled on read or streamed gives the same range. 65,536 rows
 * put the 0.5% quantile among about 330 values below it.
 */
export const QUANTILE_ROWS = 65_536;

/** Values the quantile sample holds, at most (64 MiB of doubles): wide rows keep fewer rows. */
export const QUANTILE_VALUES = 8 * 2 ** 20;

/**
 * The rows a clipped scaling of `d` features takes its quantiles over:
 * {@link QUANTILE_ROWS}, fewer where that many rows would pass {@link QUANTILE_VALUES}.
 *
 * @example
 * quantileRows(57);  // 65,536
 * quantileRows(784); // 10,699
 */
export function quantileRows(d: number): number {
  return Math.max(1, Math.min(QUANTILE_ROWS, Math.floor(QUANTILE_VALUES / Math.max(1, d))));
}

/** Rows a tile of {@link QuantileRange.add} copies column by column while its sample fills. */
const FILL_TILE = 64;

/**
 * The q and 1 − q quantiles per feature of the rows seen so far, block by
 * block, in one pass: every row up to {@link quantileRows}(d), then a seeded
 * reservoir of that many (Vitter's algorithm R on the stream
 * `dsgkit-scaling-quantiles`, so the same rows in the same order keep the same
 * sample). Its scaler takes the values at positions ⌊q(n − 1)⌋ and
 * ⌈(1 − q)(n − 1)⌉ of each sorted column of the n rows kept.
 *
 * @example
 * const range = new QuantileRange(d, 0.005);
 * for await (const b of rows.batches()) range.add(b.X, 0, b.n);
 * const scaler = range.scaler(featureNames); // clipQuantile 0.005
 */
export class QuantileRange {
  /** Rows seen. */
  count = 0;
  /**
   * Feature k of the row in slot s at kept[k·stride + s]: by column, as the
   * quantiles are taken (and as a plain file is read), in one buffer — grown
   * by one allocation, not one per column (1,497 columns grown three times
   * were 8% of a `train` on grants).
   */
  private kept: Float64Array;
  /** Slots each column has room for (≤ capacity). */
  private stride: number;
  private readonly rng = seedrandom('dsgkit-scaling-quantiles');

  /** `expectedRows`: how many rows will come, when known (an in-memory fit): room for them at once. */
  constructor(
    readonly d: number,
    readonly q: number,
    readonly capacity = quantileRows(d),
    expectedRows = 1024,
  ) {
    if (!(q > 0 && q <= MAX_CLIP_QUANTILE)) throw new RangeError(`clip quantile ${q} is not in (0, ${MAX_CLIP_QUANTILE}]`);
    this.stride = Math.max(1, Math.min(capacity, expectedRows));
    this.kept = new Float64Array(d * this.stride);
  }

  /** Takes in `rows` rows of the row-major `X` from value `offset` on. */
  add(X: Float64Array, offset: number, rows: number): void {
    const { d } = this;
    let r = 0;
    // While the sample fills, rows take the next slots (no draw): copied a tile of rows at a time, column by column,
    // so each column is written in runs rather than one value a row.
    while (r < rows && this.count < this.capacity) {
      const tile = Math.min(rows - r, this.capacity - this.count, FILL_TILE);
      const first = this.count;
      this.room(first + tile);
      this.count += tile;
      const { kept, stride } = this;
      for (let k = 0; k < d; k++) {
        const to = k * stride + first;
        for (let i = 0, at = offset + r * d + k; i < tile; i++, at += d) kept[to + i] = X[at];
      }
      r += tile;
    }
    for (; r < rows; r++) {
      const slot = this.slot();
      if (slot < 0) continue;
      const at = offset + r * d;
      const { kept, stride } = this;
      for (let k = 0, to = slot; k < d; k++, to += stride) kept[to] = X[at + k];
    }
  }

  /** Takes in a reader's block, rows or columns (data/row-batches.ts): the same rows kept in the same slots either way. */
  addBatch(batch: RowBatch): void {
    const { columns, n } = batch;
    if (columns === undefined) return this.add(batch.X, 0, n);
    // The block's slots first (the stream's draws in row order), then each column copied on its own.
    const rows: number[] = [];
    const slots: number[] = [];
    for (let r = 0; r < n; r++) {
      const slot = this.slot();
      if (slot >= 0) {
        rows.push(r);
        slots.push(slot);
      }
    }
    const { kept, stride } = this;
    for (let k = 0; k < this.d; k++) {
      const from = columns[k];
      const base = k * stride;
      for (let i = 0; i < rows.length; i++) kept[base + slots[i]] = from[rows[i]];
    }
  }

  /** The next row's slot in the sample (Vitter's algorithm R), room made for it; −1 when it is not kept. */
  private slot(): number {
    const i = this.count++;
    const slot = i < this.capacity ? i : Math.floor(this.rng() * (i + 1));
    if (slot >= this.capacity) return -1;
    this.room(slot + 1);
    return slot;
  }

  /** Makes room for `slots` slots a column (≤ capacity), at least doubling the room when it grows. */
  private room(slots: number): void {
    if (slots <= this.stride) return;
    const { d, kept, stride } = this;
    const size = Math.min(this.capacity, Math.max(slots, 2 * stride));
    const grown = new Float64Array(d * size);
    for (let k = 0; k < d; k++) grown.set(kept.subarray(k * stride, (k + 1) * stride), k * size);
    this.kept = grown;
    this.stride = size;
  }

  /** The clipped scaler of the rows seen (a DataError naming `file` when there were none, or the column whose range overflows). */
  scaler(featureNames: readonly string[], file?: string): MinMaxScaler {
    const { d, q } = this;
    const n = Math.min(this.count, this.capacity);
    const lo = new Float64Array(d);
    const hi = new Float64Array(d);
    const column = new Float64Array(n);
    const iLo = Math.floor(q * (n - 1));
    const iHi = Math.ceil((1 - q) * (n - 1));
    for (let k = 0; k < d; k++) {
      column.set(this.kept.subarray(k * this.stride, k * this.stride + n));
      // The two order statistics the sorted column would give, by selection: after the first,
      // everything from iLo on is ≥ it, so the second is the (iHi − iLo)-th of that part.
      lo[k] = selectInPlace(column, iLo);
      hi[k] = selectInPlace(column.subarray(iLo), iHi - iLo);
    }
    return fittedScaler(this.count, lo, hi, featureNames, file, q);
  }
}

/**
 * The one-pass range a scaling is fitted with: min–max, or the quantiles of a
 * clip quantile q > 0 — what {@link MinMaxScaler.fit}, a sample on read and a
 * stream all feed their rows to, so each path fits the same scaler.
 *
 * @example
 * const range = scalingRange(d, 0.005);
 */
export function scalingRange(d: number, clipQuantile: number, expectedRows?: number): MinMaxRange | QuantileRange {
  return clipQuantile > 0 ? new QuantileRange(d, clipQuantile, undefined, expectedRows) : new MinMaxRange(d);
}

/**
 * The scaler of a range fitted over `count` rows (either kind of range): a
 * DataError naming `file` when there were none, or naming the column whose
 * range cannot be scaled (max − min overflows a double).
 */
function fittedScaler(count: number, min: ArrayLike<number>, max: ArrayLike<number>, featureNames: readonly string[], file: string | undefined, clipQuantile = 0): MinMaxScaler {
  if (count === 0) throw new DataError('cannot fit feature scaling on zero rows', { file });
  const k = badRange(min, max);
  if (k >= 0) {
    throw new DataError(
      `values range from ${min[k]} to ${max[k]}: their difference overflows a double (max − min = ∞), so the column cannot be scaled to [0, 1]; divide the column by a constant (e.g. 1e10) first`,
      { file, column: featureNames[k] },
    );
  }
  return new MinMaxScaler(min, max, featureNames, clipQuantile);
}

/**
 * The first feature whose range cannot be scaled (min > max, or max − min
 * not finite), or −1 when every one can.
 *
 * @example
 * badRange([-1.7e308], [1.7e308]); // 0
 */
export function badRange(min: ArrayLike<number>, max: ArrayLike<number>): number {
  for (let k = 0; k < min.length; k++) if (!(max[k] - min[k] >= 0 && max[k] - min[k] < Infinity)) return k;
  return -1;
}
