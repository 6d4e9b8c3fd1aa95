/**
 * Where a thread gets block `i`'s frequencies: from a store in shared memory
 * that every thread reads, or regenerated from the seed (the papers' way,
 * zero memory) for blocks beyond the store's budget. The store holds exactly
 * the bits the generator produces, so it never changes a result.
 *
 * One store serves all threads: a block is generated once (usually by the
 * coordinator, which needs `ω_t` to build block `t`) and read by every worker
 * afterwards, instead of each worker caching — and regenerating — its own copy.
 */
import { kernelBlockWidth, sampleKernelBlock } from '../features/spectral.ts';
import { familyOf, sameFeatures, type RandomFeatures } from './random-features.ts';
import { RowViews } from './row-views.ts';

/**
 * Frequencies of blocks `0 … capacity−1` in a SharedArrayBuffer, filled on first use.
 *
 * Layout: `capacity` Int32 flags (1 = block present), padded to 8 bytes, then
 * `capacity × d·m` Float64 values (transposed blocks).
 *
 * @example
 * const store = FrequencyStore.forBudget(rf, 256 << 20, T);
 * store.fill(12, kernel.omega()); // ω of block 12: copied if stored, else generated (and stored)
 */
export class FrequencyStore {
  readonly features: RandomFeatures;
  /** Blocks the store can hold (0 = pure regeneration). */
  readonly capacity: number;
  readonly buffer: SharedArrayBuffer;
  private readonly flags: Int32Array;
  private readonly values: Float64Array;
  private readonly width: number;
  private readonly rows: RowViews;

  constructor(features: RandomFeatures, buffer: SharedArrayBuffer) {
    this.features = features;
    this.width = kernelBlockWidth(features.d, features.m, familyOf(features));
    this.buffer = buffer;
    const flagBytes = (capacity: number) => Math.ceil((4 * capacity) / 8) * 8;
    // capacity from the buffer size: flagBytes(c) + 8·width·c = byteLength
    let capacity = Math.floor(buffer.byteLength / (8 * this.width + 4));
    while (capacity > 0 && flagBytes(capacity) + 8 * this.width * capacity > buffer.byteLength) capacity--;
    this.capacity = capacity;
    this.flags = new Int32Array(buffer, 0, capacity);
    this.values = new Float64Array(buffer, flagBytes(capacity), capacity * this.width);
    this.rows = new RowViews(this.values, this.width);
  }

  /**
   * A store for up to `maxBlocks` blocks within `budgetBytes` (0 → a store that holds nothing).
   *
   * @example
   * const store = FrequencyStore.forBudget(rf, 64 << 20, 1000);
   */
  static forBudget(features: RandomFeatures, budgetBytes: number, maxBlocks: number): FrequencyStore {
    if (!(budgetBytes >= 0) || !Number.isFinite(budgetBytes)) throw new RangeError(`frequency cache budget must be a finite number of bytes >= 0, got ${budgetBytes}`);
    const width = kernelBlockWidth(features.d, features.m, familyOf(features));
    const capacity = Math.max(0, Math.min(maxBlocks, Math.floor(budgetBytes / (8 * width + 4))));
    const bytes = Math.ceil((4 * capacity) / 8) * 8 + 8 * width * capacity;
    return new FrequencyStore(features, new SharedArrayBuffer(bytes));
  }

  /**
   * Writes block `i`'s transposed frequencies (`d·m` values) into `target`.
   * Two threads filling the same block at once write the same bits.
   *
   * @example
   * store.fill(0, omega);
   */
  fill(i: number, target: Float64Array): void {
    const { width } = this;
    if (i < this.capacity) {
      const row = this.rows.row(i);
      if (Atomics.load(this.flags, i) === 1) {
        target.set(row);
        return;
      }
      const rf = this.features;
      sampleKernelBlock(rf.kernel, rf.seed, i, rf.d, rf.m, target, familyOf(rf));
      row.set(target.subarray(0, width));
      Atomics.store(this.flags, i, 1);
      return;
    }
    const rf = this.features;
    sampleKernelBlock(rf.kernel, rf.seed, i, rf.d, rf.m, target, familyOf(rf));
  }
}

/**
 * Frequency stores shared by the runs of one search, one per feature map:
 * `tune` fits every setting on every fold, and the settings that share σ (with
 * the seed, d, m and family) share their random features, so their fits read
 * one store instead of each generating the same blocks again. The stores
 * together hold at most `budgetBytes`; a feature map that finds the budget
 * spent gets a store that holds nothing (its blocks are generated, as without
 * a store). Never changes a result: a store holds the generator's bits.
 *
 * @example
 * const stores = new FrequencyStores(256 << 20, 400);
 * new Evaluator(history, rf, { frequencyStores: stores }); // the store of rf's map, made on first use
 */
export class FrequencyStores {
  private readonly stores: FrequencyStore[] = [];
  private left: number;

  constructor(
    budgetBytes: number,
    /** Blocks each store holds at most (the search's T). */
    private readonly blocks: number,
  ) {
    this.left = budgetBytes;
  }

  /** The store of `features`' map: the one made before, or a new one from what is left of the budget. */
  storeFor(features: RandomFeatures): FrequencyStore {
    const found = this.stores.find((s) => sameFeatures(s.features, features));
    if (found !== undefined) return found;
    const store = FrequencyStore.forBudget(features, this.left, this.blocks);
    this.left -= store.buffer.byteLength;
    this.stores.push(store);
    return store;
  }
}
