/**
 * The identity of a model's random features: everything a thread needs to
 * regenerate block `i` (`ω_i` depends on nothing else).
 */
import { checkKernelSpec, type KernelSpec } from '../features/kernel-spec.ts';

/** Kernel, seed and shapes that define every block's frequencies. */
export interface RandomFeatures {
  readonly kernel: KernelSpec;
  /** The model seed: block `i` is drawn from `(seed, i)` alone. */
  readonly seed: number;
  /** Input dimension. */
  readonly d: number;
  /** Frequencies per block (the block has `2m` coefficients). */
  readonly m: number;
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
  return rf;
}
