import { describe, expect, it } from 'vitest';
import seedrandom from 'seedrandom';
import { pairAt, pairDistances } from '../src/features/pair-distances.ts';

describe('pairDistances', () => {
  it('gives the bits of the plain double loop (summed over k in order) for both norms, whatever n mod 4', () => {
    const rng = seedrandom('pairs');
    for (const [n, d] of [[2, 3], [5, 1], [9, 7], [13, 40]]) {
      const X = Float64Array.from({ length: n * d }, () => rng() * 10 - 5);
      for (const norm of ['l2sq', 'l1'] as const) {
        const plain: number[] = [];
        for (let i = 0; i < n; i++) for (let j = i + 1; j < n; j++) {
          let s = 0;
          for (let k = 0; k < d; k++) {
            const t = X[i * d + k] - X[j * d + k];
            s += norm === 'l1' ? Math.abs(t) : t * t;
          }
          plain.push(s);
        }
        expect(Array.from(pairDistances(X, n, d, norm)), `n = ${n}, d = ${d}, ${norm}`).toEqual(plain);
      }
    }
  });

  it('packs pair (i, j) at i·n − i(i+1)/2 + j − i − 1, and pairAt reads it back', () => {
    const n = 7;
    let p = 0;
    for (let i = 0; i < n; i++) for (let j = i + 1; j < n; j++) {
      expect(p).toBe(i * n - (i * (i + 1)) / 2 + j - i - 1);
      expect(pairAt(p++, n)).toEqual([i, j]);
    }
  });
});
