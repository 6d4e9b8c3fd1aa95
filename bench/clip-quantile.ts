/**
 * What the feature scaling's clip quantile (`clipQuantile`) does to every
 * learner at its defaults on the quality benchmark's sets and splits (each
 * learner's protocol: 200 labeled rows, or 80% of the labels hidden for GKM and
 * LapSVM): the held-out measure with min–max scaling and with the range over
 * the q to 1 − q quantiles, clipped, per set and seed, and per learner the
 * mean change and how many sets rise or fall by more than 0.005. `--against`
 * compares with another quantile than min–max (0); where it is the learner's
 * default, the quality benchmark's defaults cell (the same model) is read
 * instead of trained. Writes bench/results/clip-quantile.json, or `--name`'s
 * file (docs/data.md § Feature scaling).
 *
 * @example
 * // npx tsx bench/clip-quantile.ts                       (15 sets × 8 learners × seeds 1–3, q = 0.005; about 25 minutes on 2 cores)
 * // npx tsx bench/clip-quantile.ts --sets spam,diamonds --learners qsg-s2auc,qs3orao --q 0.01
 * // npx tsx bench/clip-quantile.ts --q 0.02 --against 0.005 --name clip-quantile-0.02   (another q against today's default)
 */
import { parseArgs } from 'node:util';
import { train, type LearnerName } from '../src/api.ts';
import { readDataset } from '../src/data/index.ts';
import { mean } from '../src/metrics/index.ts';
import { markdownTable, writeBenchOutputs } from './lib/index.ts';
import { clipQuantileFor } from '../src/train/defaults.ts';
import { benchSet, heldOut, latestCells, LEARNERS, listOption, measureOf, QUALITY_CELLS, qualitySplit, readCells } from './lib/quality.ts';

const DEFAULT_SETS = 'ionosphere,musk,breast_cancer,pima,cells,dna,spam,satellite,churn,letter,fertility,diabetes,boston,ames,diamonds';
const { values: opt } = parseArgs({
  options: {
    sets: { type: 'string', default: DEFAULT_SETS },
    learners: { type: 'string', default: LEARNERS.map((l) => l.learner).join(',') },
    seeds: { type: 'string', default: '1,2,3' },
    q: { type: 'string', default: '0.005' },
    against: { type: 'string', default: '0' },
    name: { type: 'string', default: 'clip-quantile' },
  },
});
const q = Number(opt.q);
const against = Number(opt.against);
/** The benchmark's defaults cells: a learner's measure at its default quantile, without training it again. */
const cells = latestCells(readCells(QUALITY_CELLS));
const seeds = opt.seeds!.split(',').map(Number);
const learners = listOption(opt.learners, LEARNERS.map((l) => l.learner), 'learners');

interface Row {
  set: string;
  learner: string;
  seed: number;
  /** The learner's own measure (AUC, mean threshold AUC or accuracy) at the quantile `against` (0: min–max scaling). */
  base: number;
  /** The same with the clip quantile q. */
  clipped: number;
}

const rows: Row[] = [];
const command = `npx tsx bench/clip-quantile.ts ${process.argv.slice(2).join(' ')}`.trim();
for (const name of opt.sets!.split(',')) {
  const { path, task } = benchSet(name);
  const raw = await readDataset(path);
  for (const entry of LEARNERS.filter((l) => l.task === task && learners.includes(l.learner))) {
    for (const seed of seeds) {
      const { train: tr, test } = qualitySplit(raw, name, entry.protocol, seed);
      const measure = async (clipQuantile: number) => {
        const model = await train({ learner: entry.learner as LearnerName, data: tr, seed, clipQuantile, onWarning: () => {} } as never);
        const f = await model.decisionFunction(test);
        return heldOut(task, test, f, model.labelsFromScores(f))[measureOf(entry.learner)];
      };
      const cell = against === clipQuantileFor(undefined) ? cells.find((c) => c.set === name && c.protocol === entry.protocol && c.seed === seed && c.method === entry.learner) : undefined;
      const row = { set: name, learner: entry.learner, seed, base: cell ? cell[measureOf(entry.learner)] : await measure(against), clipped: await measure(q) };
      rows.push(row);
      console.log(JSON.stringify(row));
      writeBenchOutputs(opt.name!, { command, q, against, rows });
    }
  }
}

/** Per learner: the mean change over its sets (each set's mean over the seeds), and the sets up or down by more than 0.005. */
const summary = learners.flatMap((learner) => {
  const sets = [...new Set(rows.filter((r) => r.learner === learner).map((r) => r.set))];
  if (sets.length === 0) return [];
  const diffs = sets.map((set) => {
    const rs = rows.filter((r) => r.learner === learner && r.set === set);
    return { set, diff: mean(rs.map((r) => r.clipped - r.base)) };
  });
  const most = diffs.reduce((a, b) => (b.diff > a.diff ? b : a));
  const least = diffs.reduce((a, b) => (b.diff < a.diff ? b : a));
  return [{ learner, sets: sets.length, meanChange: mean(diffs.map((d) => d.diff)), up: diffs.filter((d) => d.diff > 0.005).length, down: diffs.filter((d) => d.diff < -0.005).length, most, least }];
});
writeBenchOutputs(opt.name!, { command, q, against, rows, summary });
const signed = (v: number) => `${v >= 0 ? '+' : '−'}${Math.abs(v).toFixed(4)}`;
console.log(
  markdownTable(
    summary.map((s) => ({
      learner: s.learner,
      sets: s.sets,
      'mean change': signed(s.meanChange),
      'up / down (> 0.005)': `${s.up} / ${s.down}`,
      most: `${s.most.set} ${signed(s.most.diff)}`,
      least: `${s.least.set} ${signed(s.least.diff)}`,
    })),
  ),
);
