/**
 * What every history the pool evaluates has in common: items `0 … t−1` of
 * `width` stored coefficients each, in one `SharedArrayBuffer` that worker
 * threads read in place, with the lazy global scale of ALGORITHMS.md — true
 * coefficients are `s · stored`, shrinking is `s ← s·factor` in O(1).
 *
 * Two kinds extend it: the random-feature {@link History} (an item is a block
 * of `2m` coefficients whose frequencies come from `(seed, i)`) and the
 * {@link SupportVectorHistory} (an item is one entry `(training row, β̃)`).
 *
 * Header (Float64): `[t, s, firstLive, capacity, p4, kind, p6, p7]`, then
 * `capacity × width` stored coefficients; a kind may keep more arrays after them.
 */

/** Doubles in the header. */
const HEADER = 8;
const H_T = 0;
const H_SCALE = 1;
const H_FIRST = 2;
const H_CAPACITY = 3;
/** Header slot a kind may use for its own shape parameter (`m` for blocks). */
const H_PARAM = 4;
const H_KIND = 5;

/** Below this |s| (or above its inverse) the stored coefficients are renormalised. */
export const RENORMALISE_BELOW = 1e-100;

/** Whether a scale `s` may stand as it is (magnitude within [1e-100, 1e100]); outside, `shrink` folds it into the stored items. */
function scaleInRange(s: number): boolean {
  const mag = Math.abs(s);
  return !(mag < RENORMALISE_BELOW || mag > 1 / RENORMALISE_BELOW);
}

/** The kinds of history the engine evaluates. */
export type HistoryKind = 'rff' | 'sv';
const KIND_CODE: Record<HistoryKind, number> = { rff: 0, sv: 1 };

/** A view of a history that can be sent to a worker (the buffer is shared, not copied). */
export interface HistoryHandle {
  readonly buffer: SharedArrayBuffer;
}

/**
 * Byte size of a history buffer: header, `capacity × width` doubles, plus `extraBytes`.
 *
 * @example
 * new SharedArrayBuffer(historyBytes(1000, 128)); // a block history of 1000 blocks of 2m = 128
 */
export function historyBytes(capacity: number, width: number, extraBytes = 0): number {
  return 8 * (HEADER + capacity * width) + extraBytes;
}

/**
 * Items with a lazy global scale in shared memory: the part of a history that
 * does not depend on what an item means.
 *
 * @example
 * // through a subclass:
 * const h = new History({ m: 64, capacity: 1000 });
 * h.shrink(1 - eta * lambda); // every stored item scaled in O(1)
 * h.scale;                    // the global s
 */
export abstract class ScaledHistory {
  /** The shared buffer: header then stored coefficients (then any kind-specific arrays). */
  readonly buffer: SharedArrayBuffer;
  /** How many items fit. */
  readonly capacity: number;
  /** Stored coefficients per item. */
  readonly width: number;
  /** What an item is. */
  readonly kind: HistoryKind;
  protected readonly header: Float64Array;
  private renormalised = 0;
  /** Stored coefficients, `capacity × width`, row `i` = item `i`. */
  readonly stored: Float64Array;

  /**
   * Maps a buffer (a fresh one when `init` is given, whose header is then written).
   * `width` for a fresh buffer comes from the caller; for an existing one the caller reads it from the header first.
   */
  protected constructor(kind: HistoryKind, buffer: SharedArrayBuffer, width: number, init?: { capacity: number; param?: number }) {
    this.kind = kind;
    this.buffer = buffer;
    this.header = new Float64Array(buffer, 0, HEADER);
    if (init !== undefined) {
      this.header[H_CAPACITY] = init.capacity;
      this.header[H_SCALE] = 1;
      this.header[H_KIND] = KIND_CODE[kind];
      if (init.param !== undefined) this.header[H_PARAM] = init.param;
    } else if (this.header[H_KIND] !== KIND_CODE[kind]) {
      throw new RangeError(`shared buffer holds a '${kindOf(buffer)}' history, not '${kind}'`);
    }
    this.capacity = this.header[H_CAPACITY];
    this.width = width;
    this.stored = new Float64Array(buffer, 8 * HEADER, this.capacity * width);
  }

  /**
   * How many times this object has folded its scale into the stored items
   * (stored values change then; a cache of sums over them must be rebuilt).
   */
  get renormalisations(): number {
    return this.renormalised;
  }

  /** Number of items appended so far (`t`). */
  get t(): number {
    return this.header[H_T];
  }

  /** The global scale `s`: true coefficients are `s · stored`. */
  get scale(): number {
    return this.header[H_SCALE];
  }

  /** First item still alive: items before it were zeroed by an exact-zero shrink factor. */
  get firstLive(): number {
    return this.header[H_FIRST];
  }

  /**
   * Multiplies every stored item by `factor` (step 5 of the loop) in O(1).
   * A factor of exactly 0 drops all earlier items (they are zero); a scale
   * that drifts below 1e-100 in magnitude (or above 1e100) is folded into the
   * stored items and reset to 1. A negative factor is applied as it is.
   *
   * @example
   * h.shrink(1 - (theta / t) * lambda);
   */
  shrink(factor: number): void {
    if (!Number.isFinite(factor)) throw new RangeError(`shrink factor must be finite, got ${factor}`);
    if (factor === 0) {
      this.header[H_FIRST] = this.t;
      this.header[H_SCALE] = 1;
      this.dropped();
      return;
    }
    const s = this.scale * factor;
    this.header[H_SCALE] = s;
    if (!scaleInRange(s)) this.renormalise();
  }

  /**
   * Whether {@link shrink} by `factor` would change the scale alone — no
   * dropped items, no renormalisation — leaving every stored value as it is,
   * so other threads may go on reading the items while it happens.
   *
   * @example
   * if (h.shrinkIsLazy(factor)) { … } // e.g. false for factor 0
   */
  shrinkIsLazy(factor: number): boolean {
    return Number.isFinite(factor) && factor !== 0 && scaleInRange(this.scale * factor);
  }

  /**
   * Folds the scale into the live stored items and sets `s = 1` (true coefficients unchanged up to rounding).
   *
   * @example
   * h.renormalise(); // h.scale === 1
   */
  renormalise(): void {
    this.renormalised++;
    const s = this.scale;
    const live = this.stored.subarray(this.firstLive * this.width, this.t * this.width);
    for (let j = 0; j < live.length; j++) live[j] *= s;
    this.header[H_SCALE] = 1;
  }

  /** Called after an exact-zero shrink dropped every item before `t` (a kind may forget them). */
  protected dropped(): void {}

  /** Claims the next item index, checking capacity. */
  protected nextItem(): number {
    const t = this.t;
    if (t >= this.capacity) throw new RangeError(`history is full (${this.capacity} items)`);
    return t;
  }

  /** Makes items `[0, t)` visible (after their stored values are written). */
  protected setCount(t: number): void {
    this.header[H_T] = t;
  }

  /** Restores the lazy-scale state from saved values (a model file). */
  protected setState(t: number, scale: number, firstLive: number): void {
    if (!Number.isInteger(t) || t < 0 || t > this.capacity) throw new RangeError(`history state: t = ${t} is not in [0, ${this.capacity}]`);
    if (!Number.isInteger(firstLive) || firstLive < 0 || firstLive > t) throw new RangeError(`history state: firstLive = ${firstLive} is not in [0, t = ${t}]`);
    if (!Number.isFinite(scale) || scale === 0) throw new RangeError(`history state: scale must be finite and non-zero, got ${scale}`);
    this.header[H_T] = t;
    this.header[H_SCALE] = scale;
    this.header[H_FIRST] = firstLive;
  }
}

/**
 * Which kind of history a shared buffer holds (read from its header).
 *
 * @example
 * kindOf(history.buffer); // 'rff'
 */
export function kindOf(buffer: SharedArrayBuffer): HistoryKind {
  const code = new Float64Array(buffer, 0, HEADER)[H_KIND];
  const kind = (Object.keys(KIND_CODE) as HistoryKind[]).find((k) => KIND_CODE[k] === code);
  if (kind === undefined) throw new RangeError(`shared buffer holds no history (kind code ${code})`);
  return kind;
}

/**
 * Reads the kind-specific header slot of a history buffer (for a subclass that
 * needs its shape before mapping, e.g. `m`).
 *
 * @example
 * const m = headerParam(buffer);
 */
export function headerParam(buffer: SharedArrayBuffer): number {
  return new Float64Array(buffer, 0, HEADER)[H_PARAM];
}
