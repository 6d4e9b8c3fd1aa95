/**
 * What the default σ costs beside one default `train`: on the quality
 * benchmark's seed-1 splits with the most labeled rows, the best of 3 timings
 * of σ₀ alone (kernelScale0) and of σ₀ plus the alignment rule
 * (defaultKernelScale), and the wall time of one default train (2 threads)
 * of a learner of that protocol. Prints one line per split.
 *
 * @example
 * // npx tsx bench/sigma-rule-cost.ts
 */
import seedrandom from 'seedrandom';
import { train } from '../src/api.ts';
import { MinMaxScaler, readDataset, selectRows, splitDataset } from '../src/data/index.ts';
import { shuffleInPlace } from '../src/data/split.ts';
import { defaultKernelScale, kernelScale0 } from '../src/train/defaults.ts';
const cases: [string, string, 'labeled' | 'hide', string][] = [
  ['satellite', 'bench/data-public/satellite.arrow', 'hide', 'gkm'], ['churn', 'bench/data-public/churn.arrow', 'hide', 'gkm'],
  ['dna', 'bench/data-public/dna.arrow', 'hide', 'gkm'], ['spam', 'data/spam.arrow', 'hide', 'lapsvm'],
  ['spam', 'data/spam.arrow', 'labeled', 'qsg-s2auc'], ['musk', 'bench/data-public/musk.arrow', 'labeled', 'dsg'], ['letter', 'bench/data-public/letter.arrow', 'labeled', 'tsgs3vm'],
];
for (const [name, path, protocol, learner] of cases) {
  const raw = await readDataset(path);
  let ds = raw;
  let tr;
  if (protocol === 'labeled') tr = splitDataset(raw, { labeled: 200, test: 0.2, seed: 1 }).train;
  else {
    if (raw.n > 6250) ds = selectRows(raw, shuffleInPlace(Array.from({ length: raw.n }, (_, i) => i), seedrandom(`quality-hide-${name}-1`)).slice(0, 6250).sort((a, b) => a - b));
    const tc = Math.round(0.2 * ds.n);
    tr = splitDataset(ds, { labeled: Math.round(0.2 * (ds.n - tc)), test: 0.2, seed: 1 }).train;
  }
  const sc = MinMaxScaler.fit(tr).transform(tr);
  const best = (f: () => unknown) => { let m = Infinity; for (let r = 0; r < 3; r++) { const t = performance.now(); f(); m = Math.min(m, performance.now() - t); } return m; };
  const t0 = best(() => kernelScale0(sc));
  const t1 = best(() => defaultKernelScale(sc));
  const s = performance.now();
  await train({ learner: learner as 'dsg', data: tr, seed: 1, threads: 2 });
  const tt = performance.now() - s;
  let nl = 0; for (let i = 0; i < tr.n; i++) nl += tr.labeled[i];
  console.log(`${name} ${protocol} n_l=${nl} d=${tr.d}: σ₀ ${t0.toFixed(0)} ms, σ₀ + rule ${t1.toFixed(0)} ms (rule ${(t1 - t0).toFixed(0)} ms); default train ${learner} ${tt.toFixed(0)} ms (rule ${(100 * (t1 - t0) / tt).toFixed(1)}%)`);
}
