/**
 * Projecting a batch onto several blocks at once (FRS3VM's K fixed blocks each
 * SGD step) gives each block the bits of projecting onto it alone, while sorf
 * blocks of one group share the points' transform.
 */
import { describe, expect, it } from 'vitest';
import { BlockOps } from '../src/engine/block-ops.ts';
import type { RandomFeatures } from '../src/engine/random-features.ts';
import { sorfGroupBlocks } from '../src/features/spectral.ts';

function points(n: number, d: number): Float64Array {
  let s = 12345;
  return Float64Array.from({ length: n * d }, () => ((s = (s * 1103515245 + 12345) % 2 ** 31) / 2 ** 31));
}

describe('BlockOps.projectBlocks', () => {
  for (const family of ['gaussian', 'sorf'] as const) {
    it(`gives every block the bits of projecting onto it alone (${family})`, () => {
      const d = 100;
      const n = 40;
      const rf: RandomFeatures = { kernel: { kind: 'rbf', sigma: 0.3 }, seed: 7, d, m: 16, ...(family === 'sorf' ? { family } : {}) };
      if (family === 'sorf') expect(sorfGroupBlocks(d, rf.m)).toBe(8); // N = 128: blocks 0–7 and 8–9 share a transform
      const X = points(n, d);
      const w = Float64Array.from({ length: n }, (_, p) => (p % 3) - 1 + p / 100);
      const together = new BlockOps().projectBlocks(rf, 0, 10, X, n, w);
      const alone = new BlockOps();
      expect(together).toHaveLength(10);
      for (let i = 0; i < 10; i++) {
        const g = alone.project(rf, i, X, n, w);
        expect(Buffer.from(together[i].buffer).equals(Buffer.from(g.buffer))).toBe(true);
        expect(g.some((v) => v !== 0)).toBe(true);
      }
    });
  }
});
