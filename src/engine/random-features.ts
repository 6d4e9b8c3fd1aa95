/**
 * The identity of a model's random features: everything a thread needs to
 * regenerate block `i` (`ω_i` depends on nothing else).
 */
import { checkKernelSpec, type KernelSpec } from '../features/kernel-spec.ts';
import { FEATURE_FAMILIES, paddedDimension, sorfGroupBlocks, type FeatureFamily } from '../features/spectral.ts';

/** Kernel, seed and shapes that define every block's frequencies. */
export interface RandomFeatures {
  readonly kernel: KernelSpec;
  /** The model seed: block `i` is drawn from `(seed, i)` alone. */
  readonly seed: number;
  /** Input dimension. */
  readonly d: number;
  /** Frequencies per block (the block has `2m` coefficients). */
  readonly m: number;
  /**
   * How blocks are drawn (`features/spectral.ts`); absent means `gaussian`,
   * so a Gaussian model's header is the same bytes it always was.
   */
  readonly family?: Exclude<FeatureFamily, 'gaussian'>;
}

/**
 * The family of `rf` (`gaussian` when not stated).
 *
 * @example
 * familyOf({ kernel: { kind: 'rbf', sigma: 1 }, seed: 7, d: 10, m: 64 }); // 'gaussian'
 */
export function familyOf(rf: RandomFeatures): FeatureFamily {
  return rf.family ?? 'gaussian';
}

/**
 * Validates a {@link RandomFeatures} and returns it.
 *
 * @example
 * checkRandomFeatures({ kernel: { kind: 'rbf', sigma: 1 }, seed: 7, d: 10, m: 64 });
 */
export function checkRandomFeatures(rf: RandomFeatures): RandomFeatures {
  checkKernelSpec(rf.kernel);
  if (!Number.isInteger(rf.seed) || rf.seed < 0 || rf.seed > 0xffffffff) throw new RangeError(`seed must be an integer in [0, 2^32), got ${rf.seed}`);
  if (!Number.isInteger(rf.d) || rf.d < 1) throw new RangeError(`d must be a positive integer, got ${rf.d}`);
  if (!Number.isInteger(rf.m) || rf.m < 1) throw new RangeError(`m must be a positive integer, got ${rf.m}`);
  if (rf.family !== undefined) {
    // 'gaussian' is never written: it is the absence of the key.
    if (rf.family === ('gaussian' as string) || !FEATURE_FAMILIES.includes(rf.family)) throw new RangeError(`unknown feature family ${JSON.stringify(rf.family)} (expected ${FEATURE_FAMILIES.filter((f) => f !== 'gaussian').join(' or ')}, or no key for gaussian)`);
    if (rf.kernel.kind !== 'rbf') throw new RangeError(`${rf.family} features need the rbf kernel, got ${rf.kernel.kind}`);
  }
  return rf;
}

/**
 * Whether two feature maps draw the same blocks: same kernel, seed, d, m and
 * family, so block `i` of one has the bits of block `i` of the other.
 *
 * @example
 * sameFeatures(rf, { ...rf }); // true
 * sameFeatures(rf, { ...rf, seed: rf.seed + 1 }); // false
 */
export function sameFeatures(a: RandomFeatures, b: RandomFeatures): boolean {
  return a === b || (a.seed === b.seed && a.d === b.d && a.m === b.m && familyOf(a) === familyOf(b) && JSON.stringify(a.kernel) === JSON.stringify(b.kernel));
}

/**
 * What one point-block costs when the history is evaluated at a point, as a
 * fraction of what it costs in the row cache, which adds one new block at a
 * row at a time. 1 but for `sorf` blocks that share a group (`2m ≤ N`,
 * g = {@link sorfGroupBlocks} blocks a group): the history transforms a point
 * once for the g blocks of a group, the row cache once per block. A block's
 * cost at a point is then c_T/g + c_b in the history against c_T + c_b, with
 * c_T the group's three Walsh–Hadamard transforms (∝ N·log₂N) and c_b the
 * block's m sines and cosines (∝ m): c_T/c_b = N·log₂N / (16·m), fitted to
 * QSG-S2AUC's evaluation time a point-block at T = 400, one thread, each
 * strategy forced (history against row cache, µs; 2-core Xeon): 1.03 / 2.65 at
 * N = 256 (d = 200), 1.08 / 3.98 at N = 512 (d = 400), 1.05 / 5.81 at
 * N = 1,024 (MNIST), 0.97 / 12.7 at N = 2,048 (d = 1,497) — 0.39, 0.27, 0.18,
 * 0.076 against this price's 0.50, 0.28, 0.15, 0.073 (it errs towards the
 * cache where N is small). It prices the two strategies' work, never a value.
 *
 * @example
 * historyBlockCost({ kernel: { kind: 'rbf', sigma: 1 }, seed: 1, d: 784, m: 64, family: 'sorf' }); // ≈ 0.15
 * historyBlockCost({ kernel: { kind: 'rbf', sigma: 1 }, seed: 1, d: 784, m: 64 }); // 1 (gaussian)
 */
export function historyBlockCost(rf: RandomFeatures): number {
  const g = familyOf(rf) === 'sorf' ? sorfGroupBlocks(rf.d, rf.m) : 1;
  if (g <= 1) return 1;
  const N = paddedDimension(rf.d);
  const transform = (N * Math.log2(N)) / (16 * rf.m);
  return (transform / g + 1) / (transform + 1);
}
