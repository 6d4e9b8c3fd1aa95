/**
 * A test history: `t` random blocks of `m` features (coefficients uniform in
 * [−0.5, 0.5) from the stream named `seed`), each append followed by a shrink
 * the way the training loop does one, so the lazy scale is exercised.
 */
import seedrandom from 'seedrandom';
import { History } from '../../src/engine/history.ts';

/**
 * @example
 * const h = shrunkHistory(rf.m, 200, 'hist'); // 200 blocks, scale < 1
 */
export function shrunkHistory(m: number, t: number, seed: string, capacity = t): History {
  const rng = seedrandom(seed);
  const h = new History({ m, capacity });
  for (let i = 1; i <= t; i++) {
    h.append(Float64Array.from({ length: 2 * m }, () => rng() - 0.5));
    h.shrink(1 - 0.9 / (i + 1));
  }
  return h;
}
