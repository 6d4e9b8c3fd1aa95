/**
 * The support-vector history of a kernel-expansion model `f(x) = Σ_e β_e K(x_{r_e}, x)`:
 * the second kind of {@link ScaledHistory}. An item is one ENTRY — a training
 * row index `r_e` and its coefficient — so it has width 1, with the same lazy
 * global scale `β_e = s · β̃_e` as the random-feature blocks.
 *
 * A row appears in at most one live entry: adding a coefficient for a row the
 * history already holds adds it to that entry (the coordinator keeps a Map
 * row → entry); a new row appends an entry. Entries are therefore in
 * first-seen order, which fixes the chunk layout and the summation order.
 * The rows themselves live in a {@link SharedRows} (shared once, never copied
 * per call); entries store only their indices.
 *
 * Layout: the {@link ScaledHistory} header, `capacity` Float64 stored
 * coefficients `β̃`, then `capacity` Uint32 row indices.
 */
import { historyBytes, ScaledHistory, type HistoryHandle } from './scaled-history.ts';
import { SharedRows } from './shared-rows.ts';

/** Where a fixed expansion's centres already are: row `index[i]` of `rows` is centre `i`. */
export interface CentreRows {
  readonly rows: SharedRows;
  readonly index: ArrayLike<number>;
}

/** Largest row index an entry can hold (Uint32). */
const MAX_ROW = 0xffffffff;

/**
 * Entries `(row, β̃)` in shared memory with lazy scaling and merging of repeated rows.
 *
 * @example
 * const h = new SupportVectorHistory({ capacity: 3 * T });
 * h.add(17, -0.25);            // β for training row 17 (true value; stored as β / s)
 * h.add(17, 0.05);             // same row: merged into the same entry (h.t stays 1)
 * h.shrink((t - 1) / (t + 1)); // every β scaled in O(1)
 * h.coefficient(0);            // the true β of entry 0: s · β̃_0
 */
export class SupportVectorHistory extends ScaledHistory {
  declare readonly kind: 'sv';
  /** Row index of each entry, `capacity` values (entry `e` refers to training row `rows[e]`). */
  readonly rows: Uint32Array;
  /** Row → index of its live entry (coordinator side only; a worker's mapped view leaves it empty). */
  private readonly entryOf = new Map<number, number>();

  constructor(opts: { capacity: number } | HistoryHandle) {
    if ('buffer' in opts) {
      super('sv', opts.buffer, 1);
    } else {
      const { capacity } = opts;
      if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError(`capacity must be a positive integer, got ${capacity}`);
      super('sv', new SharedArrayBuffer(historyBytes(capacity, 1, 4 * capacity)), 1, { capacity });
    }
    this.rows = new Uint32Array(this.buffer, this.stored.byteOffset + this.stored.byteLength, this.capacity);
  }

  /**
   * Adds the TRUE coefficient `beta` for training row `row`: into the row's
   * live entry if it has one (stored `β̃ += beta / s`), else as a new entry.
   * Returns the entry's index.
   *
   * @example
   * const e = h.add(row, -eta * C * lossGradient);
   */
  add(row: number, beta: number): number {
    if (!Number.isInteger(row) || row < 0 || row > MAX_ROW) throw new RangeError(`support vector row must be an integer in [0, 2^32), got ${row}`);
    if (!Number.isFinite(beta)) throw new RangeError(`support vector coefficient must be finite, got ${beta} (row ${row})`);
    const have = this.entryOf.get(row);
    if (have !== undefined) {
      this.stored[have] += beta / this.scale;
      return have;
    }
    const e = this.nextItem();
    this.stored[e] = beta / this.scale;
    this.rows[e] = row;
    this.entryOf.set(row, e);
    this.setCount(e + 1);
    return e;
  }

  /**
   * The live entry of training row `row`, or undefined.
   *
   * @example
   * h.entryOfRow(17); // 0
   */
  entryOfRow(row: number): number | undefined {
    return this.entryOf.get(row);
  }

  /**
   * The true coefficient `β_e = s · β̃_e` of entry `e`; 0 for a dropped entry.
   *
   * @example
   * const beta0 = h.coefficient(0);
   */
  coefficient(e: number): number {
    if (!Number.isInteger(e) || e < 0 || e >= this.t) throw new RangeError(`entry ${e} is not in [0, ${this.t})`);
    return e < this.firstLive ? 0 : this.scale * this.stored[e];
  }

  /** An exact-zero shrink dropped every entry: their rows start afresh. */
  protected override dropped(): void {
    this.entryOf.clear();
  }

  /**
   * Rebuilds a history from saved state (a model file): `t` entries of row
   * indices and stored coefficients. Rows of live entries must be distinct.
   *
   * @example
   * const h = SupportVectorHistory.restore({ t, scale, firstLive, rows, stored });
   */
  static restore(state: { t: number; scale: number; firstLive: number; rows: ArrayLike<number>; stored: Float64Array; capacity?: number }): SupportVectorHistory {
    const h = new SupportVectorHistory({ capacity: Math.max(1, state.capacity ?? state.t) });
    h.setState(state.t, state.scale, state.firstLive);
    h.stored.set(state.stored.subarray(0, state.t));
    for (let e = 0; e < state.t; e++) {
      const row = state.rows[e];
      if (!Number.isInteger(row) || row < 0 || row > MAX_ROW) throw new RangeError(`support vector entry ${e}: row ${row} is not an integer in [0, 2^32)`);
      h.rows[e] = row;
      if (e < state.firstLive) continue;
      if (h.entryOf.has(row)) throw new RangeError(`support vector entries ${h.entryOf.get(row)} and ${e} both hold row ${row}`);
      h.entryOf.set(row, e);
    }
    return h;
  }

  /**
   * A history and its rows for a FIXED expansion `f(x) = Σ_i c_i k(center_i, x)`
   * (a `KernelExpansion` of features/kernel-expansion.ts): entry `i` with
   * coefficient `c_i`, scale 1, refers to centre `i` as row `i` of new
   * {@link SharedRows} — or, given `on`, as row `on.index[i]` of `on.rows`
   * (the centres are those rows, e.g. a fit's support rows in its own shared
   * copy): no copy, and the thread's exact kernel on those rows serves it.
   * Either way f has the same bits.
   *
   * @example
   * const { history, rows } = SupportVectorHistory.fromExpansion(exact);
   * const ev = new Evaluator(history, { kernel: exact.kernel, rows });
   * const onFit = SupportVectorHistory.fromExpansion(fit.expansion, { rows: fit.rows, index: fit.supportRows });
   */
  static fromExpansion(e: { readonly centers: Float64Array; readonly c: ArrayLike<number>; readonly d: number }, on?: CentreRows): { history: SupportVectorHistory; rows: SharedRows } {
    const n = e.c.length;
    if (on !== undefined && (on.index.length !== n || on.rows.d !== e.d)) throw new RangeError(`fromExpansion: ${n} centres of dimension ${e.d}, but ${on.index.length} row indices into rows of dimension ${on.rows.d}`);
    const rows = on?.rows ?? SharedRows.from(e.centers, n, e.d);
    const history = new SupportVectorHistory({ capacity: Math.max(1, n) });
    for (let i = 0; i < n; i++) history.add(on ? on.index[i] : i, e.c[i]);
    return { history, rows };
  }
}
