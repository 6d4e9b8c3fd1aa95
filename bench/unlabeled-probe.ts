/**
 * Probe of a learner's unlabeled term: held-out measure of one learner under
 * several parameter settings on the quality benchmark's splits (its protocol
 * for the learner, bench/lib/quality.ts), one line per set × setting, with the
 * mean over sets. The measure is the learner's own (AUC, mean threshold AUC or
 * accuracy), the mean over the seeds.
 *
 *   npx tsx bench/unlabeled-probe.ts tsgs3vm ionosphere,pima 1 '{"Cstar":0}' '{}'
 *
 * Arguments: learner, sets (comma-separated), seeds, then one JSON object of
 * train options per setting.
 */
import { train } from '../src/api.ts';
import { readDataset } from '../src/data/index.ts';
import { benchSet, heldOut, LEARNERS, measureOf, qualitySplit } from './lib/quality.ts';

const [learner, setList, seedList, ...settings] = process.argv.slice(2);
const entry = LEARNERS.find((l) => l.learner === learner);
if (!entry) throw new Error(`unknown learner '${learner}' (the benchmark's: ${LEARNERS.map((l) => l.learner).join(', ')})`);
const seeds = seedList.split(',').map(Number);
const sums = settings.map(() => 0);
let nSets = 0;
for (const name of setList.split(',')) {
  const { path, task } = benchSet(name);
  const raw = await readDataset(path);
  const line: string[] = [];
  for (const [k, s] of settings.entries()) {
    let v = 0;
    for (const seed of seeds) {
      const { train: tr, test } = qualitySplit(raw, name, entry.protocol, seed);
      const m = await train({ learner, data: tr, seed, onWarning: () => {}, ...JSON.parse(s) } as never);
      const f = await m.decisionFunction(test);
      v += heldOut(task, test, f, m.labelsFromScores(f))[measureOf(learner)] / seeds.length;
    }
    sums[k] += v;
    line.push(v.toFixed(4));
  }
  nSets++;
  console.log(`${name.padEnd(14)} ${line.join('  ')}`);
}
console.log(`${'mean'.padEnd(14)} ${sums.map((s) => (s / nSets).toFixed(4)).join('  ')}`);
