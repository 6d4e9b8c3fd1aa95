import seedrandom from 'seedrandom';
import { describe, expect, it } from 'vitest';
import { pairDistances } from '../src/features/pair-distances.ts';
import { wasmPairDistances } from '../src/engine/pair-distances.ts';
import { kernelScale0 } from '../src/learners/kernel-scale.ts';
import { medianHeuristicSigma } from '../src/features/median-heuristic.ts';
import { makeDataset } from '../src/data/dataset.ts';

describe('pair distances in the WebAssembly kernel module', () => {
  it('give the plain loop’s bits for both norms, every n mod 8 and slab boundaries of d', () => {
    const rng = seedrandom('wasm-pairs');
    for (const n of [2, 3, 8, 9, 10, 15, 17, 31]) {
      for (const d of [1, 7, 31, 32, 33, 65]) {
        for (const norm of ['l2sq', 'l1'] as const) {
          const X = Float64Array.from({ length: n * d }, () => (rng() - 0.3) * 4);
          const plain = pairDistances(X, n, d, norm);
          const fast = wasmPairDistances(X, n, d, norm);
          expect(fast.length).toBe(plain.length);
          for (let p = 0; p < plain.length; p++) expect(Object.is(fast[p], plain[p]), `n ${n}, d ${d}, ${norm}, pair ${p}`).toBe(true);
        }
      }
    }
  });

  it('a non-finite value stays non-finite (the median heuristic names the rows either way)', () => {
    const X = new Float64Array([0, 1, Infinity, 2, 3, 4]);
    const d = wasmPairDistances(X, 3, 2);
    expect(Array.from(d, Number.isFinite)).toEqual(Array.from(pairDistances(X, 3, 2), Number.isFinite));
    expect(() => medianHeuristicSigma(X, 3, 2, { distances: wasmPairDistances })).toThrow(/rows 1 and 2 have a non-finite squared distance/);
  });

  it('σ₀ of wide rows is the σ the plain loop gives', () => {
    const rng = seedrandom('wasm-sigma0');
    const [n, d] = [1200, 90];
    const X = Float64Array.from({ length: n * d }, () => rng());
    const ds = makeDataset({ X, d, y: new Float64Array(n).fill(NaN) });
    expect(kernelScale0(ds)).toBe(medianHeuristicSigma(X, n, d, { sample: 1000, seed: 0 }));
  });
});
