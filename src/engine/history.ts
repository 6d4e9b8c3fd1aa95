/**
 * The coefficient history `α_1 … α_t` of a random-feature model, in one
 * `SharedArrayBuffer` that worker threads read in place, with the lazy global
 * scale of ALGORITHMS.md: `α_j = s · α̃_j`.
 *
 * Layout (Float64): `[t, s, firstLive, capacity, m, reserved×3]` then
 * `capacity` rows of `2m` stored coefficients `α̃`. Block `i` (0-based) has
 * its frequencies seeded by `(modelSeed, i)`.
 */

const HEADER = 8;
const H_T = 0;
const H_SCALE = 1;
const H_FIRST = 2;
const H_CAPACITY = 3;
const H_M = 4;

/** Below this |s| (or above its inverse) the stored blocks are renormalised. */
export const RENORMALISE_BELOW = 1e-100;

/** A view of a history that can be sent to a worker (the buffer is shared, not copied). */
export interface HistoryHandle {
  readonly buffer: SharedArrayBuffer;
}

/**
 * Coefficient history in shared memory with lazy shrinking.
 *
 * @example
 * const h = new History({ m: 64, capacity: 1000 });
 * h.append(alpha1);        // α_1, length 2m
 * h.shrink(1 - eta * lambda); // α_j ← (1-ηλ) α_j for every stored j, in O(1)
 * h.scale;                 // the global s
 */
export class History {
  /** The shared buffer: header then coefficients. */
  readonly buffer: SharedArrayBuffer;
  /** Features per block (each block stores 2m coefficients). */
  readonly m: number;
  /** How many blocks fit. */
  readonly capacity: number;
  private readonly header: Float64Array;
  /** Stored coefficients `α̃`, `capacity × 2m`, row `i` = block `i`. */
  readonly stored: Float64Array;

  constructor(opts: { m: number; capacity: number } | HistoryHandle) {
    if ('buffer' in opts) {
      this.buffer = opts.buffer;
      this.header = new Float64Array(this.buffer, 0, HEADER);
      this.m = this.header[H_M];
      this.capacity = this.header[H_CAPACITY];
    } else {
      const { m, capacity } = opts;
      if (!Number.isInteger(m) || m < 1) throw new RangeError(`m must be a positive integer, got ${m}`);
      if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError(`capacity must be a positive integer, got ${capacity}`);
      this.buffer = new SharedArrayBuffer(8 * (HEADER + capacity * 2 * m));
      this.header = new Float64Array(this.buffer, 0, HEADER);
      this.m = m;
      this.capacity = capacity;
      this.header[H_M] = m;
      this.header[H_CAPACITY] = capacity;
      this.header[H_SCALE] = 1;
    }
    this.stored = new Float64Array(this.buffer, 8 * HEADER, this.capacity * 2 * this.m);
  }

  /** Number of blocks appended so far (`t`). */
  get t(): number {
    return this.header[H_T];
  }

  /** The global scale `s`: true coefficients are `s · stored`. */
  get scale(): number {
    return this.header[H_SCALE];
  }

  /** First block still alive: blocks before it were zeroed by an exact-zero shrink factor. */
  get firstLive(): number {
    return this.header[H_FIRST];
  }

  /**
   * Appends block `t` with TRUE coefficients `alpha` (length 2m); stores `alpha / s`.
   *
   * @example
   * h.append(Float64Array.from({ length: 2 * h.m }, () => 0.1));
   */
  append(alpha: ArrayLike<number>): void {
    const t = this.t;
    if (t >= this.capacity) throw new RangeError(`history is full (${this.capacity} blocks)`);
    const width = 2 * this.m;
    if (alpha.length !== width) throw new RangeError(`block has ${alpha.length} coefficients, expected 2m = ${width}`);
    const inv = 1 / this.scale;
    const row = this.stored.subarray(t * width, (t + 1) * width);
    for (let j = 0; j < width; j++) row[j] = alpha[j] * inv;
    this.header[H_T] = t + 1;
  }

  /**
   * Adds TRUE coefficients `alpha` (length 2m) to the existing block `i`
   * (stores `alpha / s` added in place): a model on a fixed set of blocks,
   * trained by plain SGD, updates its blocks instead of appending new ones.
   *
   * @example
   * h.add(0, Float64Array.from({ length: 2 * h.m }, () => -0.01));
   */
  add(i: number, alpha: ArrayLike<number>): void {
    if (!Number.isInteger(i) || i < this.firstLive || i >= this.t) throw new RangeError(`block ${i} is not a live block (live: ${this.firstLive}..${this.t - 1})`);
    const width = 2 * this.m;
    if (alpha.length !== width) throw new RangeError(`block has ${alpha.length} coefficients, expected 2m = ${width}`);
    const inv = 1 / this.scale;
    const row = this.stored.subarray(i * width, (i + 1) * width);
    for (let j = 0; j < width; j++) row[j] += alpha[j] * inv;
  }

  /**
   * Multiplies every stored block by `factor` (step 5 of the loop) in O(1).
   * A factor of exactly 0 drops all earlier blocks (they are zero); a scale
   * that drifts below 1e-100 in magnitude (or above 1e100) is folded into the
   * stored blocks and reset to 1. A negative factor is applied as it is.
   *
   * @example
   * h.shrink(1 - (theta / t) * lambda);
   */
  shrink(factor: number): void {
    if (!Number.isFinite(factor)) throw new RangeError(`shrink factor must be finite, got ${factor}`);
    if (factor === 0) {
      this.header[H_FIRST] = this.t;
      this.header[H_SCALE] = 1;
      return;
    }
    const s = this.scale * factor;
    this.header[H_SCALE] = s;
    const mag = Math.abs(s);
    if (mag < RENORMALISE_BELOW || mag > 1 / RENORMALISE_BELOW) this.renormalise();
  }

  /**
   * Folds the scale into the live stored blocks and sets `s = 1` (true coefficients unchanged up to rounding).
   *
   * @example
   * h.renormalise(); // h.scale === 1
   */
  renormalise(): void {
    const s = this.scale;
    const width = 2 * this.m;
    const live = this.stored.subarray(this.firstLive * width, this.t * width);
    for (let j = 0; j < live.length; j++) live[j] *= s;
    this.header[H_SCALE] = 1;
  }

  /**
   * The true coefficients `α_i = s · α̃_i` of block `i` (a new array); zeros for dropped blocks.
   *
   * @example
   * const a0 = h.coefficients(0);
   */
  coefficients(i: number): Float64Array {
    const width = 2 * this.m;
    const out = new Float64Array(width);
    if (i < this.firstLive) return out;
    const s = this.scale;
    const row = this.stored.subarray(i * width, (i + 1) * width);
    for (let j = 0; j < width; j++) out[j] = s * row[j];
    return out;
  }

  /**
   * Rebuilds a history from saved state (a model file): `t` blocks of stored coefficients.
   *
   * @example
   * const h = History.restore({ m, t, scale, firstLive, stored });
   */
  static restore(state: { m: number; t: number; scale: number; firstLive: number; stored: Float64Array; capacity?: number }): History {
    const h = new History({ m: state.m, capacity: Math.max(1, state.capacity ?? state.t) });
    h.stored.set(state.stored.subarray(0, state.t * 2 * state.m));
    h.header[H_T] = state.t;
    h.header[H_SCALE] = state.scale;
    h.header[H_FIRST] = state.firstLive;
    return h;
  }
}
