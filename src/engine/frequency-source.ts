/**
 * Where a thread gets block `i`'s frequencies: regenerated from the seed (the
 * papers' way, zero memory) or from a per-thread cache under a byte budget.
 * Either way the bits are the same, so the cache never changes a result.
 */
import { sampleBlockOmega } from '../features/spectral.ts';
import { featuresKey, type RandomFeatures } from './random-features.ts';

/**
 * Per-thread frequency provider with an optional cache.
 *
 * The cache keeps the first blocks it sees until the budget is spent and never
 * evicts: evaluation sweeps the history in order every iteration, where LRU
 * would evict exactly the block needed next.
 *
 * @example
 * const src = new FrequencySource(64 << 20);
 * src.fill(rf, 12, kernel.omega()); // ω of block 12, transposed
 */
export class FrequencySource {
  private key = '';
  private cache: Float64Array[] = [];
  private usedBytes = 0;

  /** @param budgetBytes bytes this thread may keep; 0 = regenerate every time. */
  constructor(private budgetBytes: number) {}

  /** Changes the budget; a smaller one drops the cache. */
  setBudget(budgetBytes: number): void {
    if (budgetBytes < this.usedBytes) this.clear();
    this.budgetBytes = budgetBytes;
  }

  /** Bytes currently held. */
  get bytes(): number {
    return this.usedBytes;
  }

  /** Drops every cached block. */
  clear(): void {
    this.cache = [];
    this.usedBytes = 0;
  }

  /**
   * Writes block `i`'s transposed frequencies (`d*m` values) into `target`.
   *
   * @example
   * src.fill({ kernel: { kind: 'rbf', sigma: 1 }, seed: 1, d: 8, m: 128 }, 0, omega);
   */
  fill(rf: RandomFeatures, i: number, target: Float64Array): void {
    const { d, m } = rf;
    if (this.budgetBytes > 0) {
      const key = featuresKey(rf);
      if (key !== this.key) {
        this.clear();
        this.key = key;
      }
      const hit = this.cache[i];
      if (hit !== undefined) {
        target.set(hit);
        return;
      }
      sampleBlockOmega(rf.kernel, rf.seed, i, d, m, target);
      const size = 8 * d * m;
      if (this.usedBytes + size <= this.budgetBytes) {
        this.cache[i] = target.slice(0, d * m);
        this.usedBytes += size;
      }
      return;
    }
    sampleBlockOmega(rf.kernel, rf.seed, i, d, m, target);
  }
}
