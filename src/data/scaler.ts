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
 * - New data outside the fitted range is NOT clipped: it maps outside [0, 1]
 *   (e.g. -0.1 or 1.3). The Gaussian kernel is defined on all of R^d, and
 *   clipping would silently merge distinct points; a caller that wants
 *   clipping can clamp the output.
 * - A column whose range max − min overflows a double (values near ±1.7e308,
 *   e.g. −1e308 and 1e308) cannot be scaled — every scaled value would be
 *   NaN — and is refused with a DataError naming the file and the column.
 */
import { DataError, ModelError } from '../errors.ts';
import { withRows, type Dataset } from './dataset.ts';

/** The JSON form of a fitted {@link MinMaxScaler}, as stored in a model file. */
export interface MinMaxScalerJSON {
  kind: 'minmax';
  featureNames: string[];
  min: number[];
  max: number[];
}

/**
 * A fitted per-feature affine map `x ↦ (x - min) / (max - min)` (0 when `max = min`).
 *
 * @example
 * const scaler = MinMaxScaler.fit(train);
 * const trainScaled = scaler.transform(train);
 * const testScaled = scaler.transform(test);   // same map, fitted on train only
 * const again = MinMaxScaler.fromJSON(JSON.parse(JSON.stringify(scaler)));
 */
export class MinMaxScaler {
  /** Per-feature minimum over the training rows. */
  readonly min: Float64Array;
  /** Per-feature maximum over the training rows. */
  readonly max: Float64Array;
  /** Names of the features, in order (for dimension and name checks). */
  readonly featureNames: readonly string[];
  /** `1 / (max - min)`, or 0 for a constant feature. */
  private readonly inv: Float64Array;

  constructor(min: ArrayLike<number>, max: ArrayLike<number>, featureNames: readonly string[]) {
    if (min.length !== max.length || min.length !== featureNames.length) {
      throw new RangeError(`MinMaxScaler: ${min.length} minima, ${max.length} maxima, ${featureNames.length} names`);
    }
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
  static fit(ds: Dataset, rows?: ArrayLike<number>): MinMaxScaler {
    const count = rows ? rows.length : ds.n;
    if (count === 0) throw new DataError('cannot fit feature scaling on zero rows', { file: ds.source });
    const range = new MinMaxRange(ds.d);
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
    for (let k = 0; k < min.length; k++) out[outOffset + k] = (x[xOffset + k] - min[k]) * inv[k];
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
    for (let base = 0; base < X.length; base += d) this.transformRow(X, X, base, base);
    return X;
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
    const X = this.transformInPlace(into ? (into.set(ds.X), into) : Float64Array.from(ds.X));
    return withRows(ds, X, Float64Array.from(ds.y));
  }

  /**
   * Plain-JSON form (numbers survive `JSON.stringify` exactly: doubles round-trip).
   *
   * @example
   * JSON.stringify(scaler); // '{"kind":"minmax","featureNames":[...],"min":[...],"max":[...]}'
   */
  toJSON(): MinMaxScalerJSON {
    return { kind: 'minmax', featureNames: [...this.featureNames], min: Array.from(this.min), max: Array.from(this.max) };
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
      j.featureNames.every((v) => typeof v === 'string');
    if (!ok) throw new ModelError('feature scaling in the model is not a min-max scaler ({kind:"minmax", featureNames, min, max} with finite numbers)');
    const bad = badRange(j.min!, j.max!);
    if (bad >= 0) throw new ModelError(`feature scaling in the model is impossible for feature ${bad + 1} ('${j.featureNames![bad] ?? '?'}'): min ${j.min![bad]}, max ${j.max![bad]} (min must not exceed max, and max − min must be finite)`);
    return new MinMaxScaler(j.min!, j.max!, j.featureNames!);
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
   * The scaler of the rows seen: a DataError naming `file` when there were
   * none, or naming the column whose range overflows (max − min = ∞).
   */
  scaler(featureNames: readonly string[], file?: string): MinMaxScaler {
    if (this.count === 0) throw new DataError('cannot fit feature scaling on zero rows', { file });
    const k = badRange(this.min, this.max);
    if (k >= 0) {
      throw new DataError(
        `values range from ${this.min[k]} to ${this.max[k]}: their difference overflows a double (max − min = ∞), so the column cannot be scaled to [0, 1]; divide the column by a constant (e.g. 1e10) first`,
        { file, column: featureNames[k] },
      );
    }
    return new MinMaxScaler(this.min, this.max, featureNames);
  }
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
