import seedrandom from 'seedrandom';
import { describe, expect, it } from 'vitest';
import { nonZeroColumns, withoutZeroColumns } from '../src/features/zero-columns.ts';
import { pairDistances, pairDistancesOf } from '../src/features/pair-distances.ts';
import { wasmPairDistances } from '../src/engine/pair-distances.ts';
import { knnGraph } from '../src/learners/knn-graph.ts';

const bits = (a: Float64Array) => Buffer.from(a.buffer, a.byteOffset, a.byteLength);

/** n rows of d values, columns `zero` ±0 in every row (as a scaled constant column holds, −0 where x fell below it). */
function rows(n: number, d: number, zero: readonly number[], seed: string): Float64Array {
  const rng = seedrandom(seed);
  const X = Float64Array.from({ length: n * d }, () => rng() * 2 - 0.5);
  for (const k of zero) for (let i = 0; i < n; i++) X[i * d + k] = rng() < 0.5 ? -0 : 0;
  return X;
}

describe('columns zero in every row', () => {
  it('are found (−0 counts as zero, any other value as not) and left out in order', () => {
    const X = Float64Array.of(0, 1, -0, 5, 0, 2, 0, -0, 0, 0, 0, 0);
    expect(Array.from(nonZeroColumns(X, 3, 4))).toEqual([0, 1, 0, 1]);
    expect(Array.from(nonZeroColumns(X, 1, 4))).toEqual([0, 1, 0, 1]);
    const { X: Y, d } = withoutZeroColumns(X, 3, 4);
    expect(d).toBe(2);
    expect(Array.from(Y)).toEqual([1, 5, 2, -0, 0, 0]);
    const dense = Float64Array.of(1, 2, 3, 4);
    expect(withoutZeroColumns(dense, 2, 2).X).toBe(dense); // nothing to leave out: the rows themselves
  });

  it('leave every pair distance the same bits, both norms, the plain loop and the WebAssembly one', () => {
    for (const [n, d, zero] of [
      [9, 12, [0, 3, 4, 11]],
      [17, 40, [1, 2, 3, 20, 39]],
      [5, 3, [0, 1, 2]],
    ] as const) {
      const X = rows(n, d, zero, `pairs-${n}-${d}`);
      for (const norm of ['l2sq', 'l1'] as const) {
        const full = pairDistances(X, n, d, norm);
        expect(bits(pairDistancesOf(pairDistances, X, n, d, norm)).equals(bits(full))).toBe(true);
        expect(bits(pairDistancesOf(wasmPairDistances, X, n, d, norm)).equals(bits(full))).toBe(true);
      }
    }
  });

  it('change nothing in the k-NN graph: rows padded with zero columns give the same neighbours and distances', () => {
    const n = 300;
    const d = 6;
    const X = rows(n, d, [], 'graph');
    // The same rows with 5 all-zero columns spread between theirs.
    const wide = 11;
    const padded = new Float64Array(n * wide);
    const at = [1, 2, 5, 7, 9, 10];
    for (let i = 0; i < n; i++) for (let k = 0; k < d; k++) padded[i * wide + at[k]] = X[i * d + k];
    for (let i = 0; i < n; i++) padded[i * wide + 3] = -0;
    const a = knnGraph(X, n, d, { k: 5, trees: 2, leafSize: 16 });
    const b = knnGraph(padded, n, wide, { k: 5, trees: 2, leafSize: 16 });
    expect(Array.from(b.neighbours)).toEqual(Array.from(a.neighbours));
    expect(bits(b.distances).equals(bits(a.distances))).toBe(true);
  });
});
