/**
 * Probe of a learner's unlabeled term: held-out metric of one learner under
 * several parameter settings on the quality benchmark's splits (bench/quality.ts
 * protocols), one line per set × setting, with the mean over sets.
 *
 *   npx tsx bench/unlabeled-probe.ts tsgs3vm ionosphere,pima 1 '{"Cstar":0}' '{}'
 *
 * Arguments: learner, sets (comma-separated), seeds, then one JSON object of
 * train options per setting.
 */
import seedrandom from 'seedrandom';
import { train } from '../src/api.ts';
import { readDataset, selectRows, splitDataset, type Dataset } from '../src/data/index.ts';
import { shuffleInPlace } from '../src/data/split.ts';
import { accuracy, auc, ordinalMeanAuc } from '../src/metrics/index.ts';

const [learner, setList, seedList, ...settings] = process.argv.slice(2);
const hide = learner === 'gkm' || learner === 'lapsvm';
const byAuc = learner === 'qsg-s2auc';
const path = (n: string) => (['spam', 'breast_cancer', 'diabetes'].includes(n) ? `data/${n}.arrow` : `bench/data-public/${n}.arrow`);
const ordinal = learner === 'qs3orao';
function split(raw: Dataset, name: string, seed: number) {
  if (!hide) return splitDataset(raw, { labeled: 200, test: 0.2, seed });
  let ds = raw;
  if (raw.n > 6250) {
    const order = shuffleInPlace(Array.from({ length: raw.n }, (_, i) => i), seedrandom(`quality-hide-${name}-${seed}`));
    ds = selectRows(raw, order.slice(0, 6250).sort((a, b) => a - b));
  }
  const testCount = Math.round(0.2 * ds.n);
  return splitDataset(ds, { labeled: Math.round(0.2 * (ds.n - testCount)), test: 0.2, seed });
}
const sums = settings.map(() => 0);
let nSets = 0;
for (const name of setList.split(',')) {
  const raw = await readDataset(path(name));
  const line: string[] = [];
  for (const [k, s] of settings.entries()) {
    let v = 0;
    const seeds = seedList.split(',').map(Number);
    for (const seed of seeds) {
      const { train: tr, test } = split(raw, name, seed);
      const m = await train({ learner, data: tr, seed, onWarning: () => {}, ...JSON.parse(s) } as never);
      const f = await m.decisionFunction(test!);
      let positive = -Infinity;
      for (let i = 0; i < test!.n; i++) positive = Math.max(positive, test!.y[i]);
      v += (ordinal ? ordinalMeanAuc(test!.y, f).meanAuc : byAuc ? auc(test!.y, f, { positive }) : accuracy(test!.y, m.labelsFromScores(f))) / seeds.length;
    }
    sums[k] += v;
    line.push(v.toFixed(4));
  }
  nSets++;
  console.log(`${name.padEnd(14)} ${line.join('  ')}`);
}
console.log(`${'mean'.padEnd(14)} ${sums.map((s) => (s / nSets).toFixed(4)).join('  ')}`);
