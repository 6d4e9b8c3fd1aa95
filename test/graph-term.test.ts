/**
 * The k-NN graph term of the loop learners (learners/graph-term.ts) does what
 * it is for: on data whose classes are clusters the labels do not outline
 * (two interleaved half-moons, 8 labeled rows of 1,500), the unlabeled rows'
 * neighbours carry the labels along each moon, and QSG-S2AUC ranks held-out
 * rows better with the term than without it: never worse on three draws of
 * the moons, better on average.
 * The conformance suite holds its gradient, bit-identity and continuation.
 */
import seedrandom from 'seedrandom';
import { describe, expect, it } from 'vitest';
import { makeDataset, splitDataset, type Dataset } from '../src/data/index.ts';
import { auc } from '../src/metrics/index.ts';
import { trainModel as train } from '../src/train/train.ts';

/** Two interleaved half-moons of radius 1 (classes alternate by row), each coordinate jittered by ±0.04; `draw` seeds them. */
function moons(n: number, draw: string): Dataset {
  const rng = seedrandom.alea(draw);
  const X = new Float64Array(n * 2);
  const y = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const upper = i % 2 === 0;
    const a = Math.PI * rng();
    X[2 * i] = (upper ? Math.cos(a) : 1 - Math.cos(a)) + 0.08 * (rng() - 0.5);
    X[2 * i + 1] = (upper ? Math.sin(a) : 0.5 - Math.sin(a)) + 0.08 * (rng() - 0.5);
    y[i] = upper ? -1 : 1;
  }
  return makeDataset({ X, d: 2, y });
}

describe('the k-NN graph term', () => {
  it('ranks two moons better from 8 labels: QSG-S2AUC with γ_G = 10 against γ_G = 0, never worse on three draws and better on average', async () => {
    const gains: number[] = [];
    for (const draw of ['graph-term-moons', 'a', 'b']) {
      const { train: tr, test } = splitDataset(moons(2000, draw), { labeled: 8, test: 0.25, seed: 1 });
      const truth = Array.from(test!.y, (v) => (v === 1 ? 1 : 0));
      const score = async (graphWeight: number) => auc(truth, await (await train({ learner: 'qsg-s2auc', data: tr, seed: 1, graphWeight, threads: 1 })).decisionFunction(test!));
      const [off, on] = [await score(0), await score(10)];
      expect(on, `draw ${draw}: held-out AUC ${on} with the graph term, ${off} without`).toBeGreaterThanOrEqual(off);
      gains.push(on - off);
    }
    const mean = gains.reduce((a, b) => a + b, 0) / gains.length;
    expect(mean, `mean gain ${mean} (${gains.join(', ')})`).toBeGreaterThan(0.005);
  }, 120_000);
});
