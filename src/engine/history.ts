/**
 * The coefficient history `α_1 … α_t` of a random-feature model: one kind of
 * {@link ScaledHistory} (shared memory, lazy global scale `α_j = s · α̃_j`)
 * whose items are blocks of `2m` coefficients.
 *
 * Layout (Float64): `[t, s, firstLive, capacity, m, kind, reserved×2]` then
 * `capacity` rows of `2m` stored coefficients `α̃`. Block `i` (0-based) has
 * its frequencies seeded by `(modelSeed, i)`.
 */
import { headerParam, historyBytes, ScaledHistory, type HistoryHandle } from './scaled-history.ts';

export { RENORMALISE_BELOW, type HistoryHandle } from './scaled-history.ts';

/**
 * Coefficient history in shared memory with lazy shrinking.
 *
 * @example
 * const h = new History({ m: 64, capacity: 1000 });
 * h.append(alpha1);        // α_1, length 2m
 * h.shrink(1 - eta * lambda); // α_j ← (1-ηλ) α_j for every stored j, in O(1)
 * h.scale;                 // the global s
 */
export class History extends ScaledHistory {
  declare readonly kind: 'rff';
  /** Features per block (each block stores 2m coefficients). */
  readonly m: number;

  constructor(opts: { m: number; capacity: number } | HistoryHandle) {
    if ('buffer' in opts) {
      const m = headerParam(opts.buffer);
      super('rff', opts.buffer, 2 * m);
      this.m = m;
    } else {
      const { m, capacity } = opts;
      if (!Number.isInteger(m) || m < 1) throw new RangeError(`m must be a positive integer, got ${m}`);
      if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError(`capacity must be a positive integer, got ${capacity}`);
      super('rff', new SharedArrayBuffer(historyBytes(capacity, 2 * m)), 2 * m, { capacity, param: m });
      this.m = m;
    }
  }

  /**
   * Appends block `t` with TRUE coefficients `alpha` (length 2m); stores `alpha / s`.
   *
   * @example
   * h.append(Float64Array.from({ length: 2 * h.m }, () => 0.1));
   */
  append(alpha: ArrayLike<number>): void {
    const t = this.nextItem();
    const width = this.width;
    if (alpha.length !== width) throw new RangeError(`block has ${alpha.length} coefficients, expected 2m = ${width}`);
    const inv = 1 / this.scale;
    const row = this.stored.subarray(t * width, (t + 1) * width);
    for (let j = 0; j < width; j++) row[j] = alpha[j] * inv;
    this.setCount(t + 1);
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
   * The true coefficients `α_i = s · α̃_i` of block `i` (a new array); zeros for dropped blocks.
   *
   * @example
   * const a0 = h.coefficients(0);
   */
  coefficients(i: number): Float64Array {
    const width = this.width;
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
    h.setState(state.t, state.scale, state.firstLive);
    return h;
  }

  /**
   * A history of its own with this one's blocks, scale and first live block,
   * with room for `capacity` blocks (default: just these): what outlives a
   * run that goes on appending (a checkpoint), or continues one.
   *
   * @example
   * const snapshot = history.copy();           // t blocks, unchanged by later appends
   * const longer = history.copy(history.t + 100); // room for 100 more
   */
  copy(capacity = this.t): History {
    return History.restore({ m: this.m, t: this.t, scale: this.scale, firstLive: this.firstLive, stored: this.stored, capacity });
  }

  /**
   * A history of `blocks` blocks of `m` features whose coefficients are
   * uniform in [−0.5, 0.5), drawn from `rng` block by block: a workload for
   * measuring the kernel (the ceiling of `scaling`, the benchmarks), not a model.
   *
   * @example
   * const h = History.synthetic(64, 256, seedrandom('probe'));
   */
  static synthetic(m: number, blocks: number, rng: () => number): History {
    const h = new History({ m, capacity: blocks });
    for (let i = 0; i < blocks; i++) h.append(Float64Array.from({ length: 2 * m }, () => rng() - 0.5));
    return h;
  }
}
