/**
 * Test data for the class-share cut: a rare class the features barely rank,
 * where labeling every row the majority class is the most accurate cut.
 */
import seedrandom from 'seedrandom';
import { makeDataset, splitDataset, type Dataset } from '../../src/data/index.ts';

/**
 * A rare class (10%) that the features barely rank: the first feature is shifted by 0.15 for
 * positives (held-out AUC ≈ 0.6). 1,500 rows, 20% held out, 240 of the rest labeled.
 */
export function rareWeakSplit(): { train: Dataset; test: Dataset } {
  const rng = seedrandom.alea('rare-cut');
  const n = 1500;
  const d = 4;
  const X = new Float64Array(n * d);
  const y = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const positive = rng() < 0.1;
    y[i] = positive ? 1 : -1;
    for (let k = 0; k < d; k++) X[i * d + k] = rng() + (positive && k === 0 ? 0.15 : 0);
  }
  const { train, test } = splitDataset(makeDataset({ X, d, y }), { labeled: 240, test: 0.2, seed: 1 });
  return { train, test: test! };
}
