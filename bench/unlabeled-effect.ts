/**
 * Whether each semi-supervised learner's unlabeled term acts on each set of
 * the quality benchmark: the learner at its defaults against its supervised
 * special case (the parameter that switches the term off: QSG-S2AUC and
 * QS3ORAO γ = 1, TSGS3VM and FRS3VM C* = 0, GKM and LapSVM C′ = 0), on the
 * benchmark's own splits (bench/lib/quality.ts), and how much the held-out
 * rows see of it: the share of predicted labels that change, the change of
 * the scores relative to their size (mean |f_on − f_off| / mean |f_on|), and
 * the learner's own measure both ways. A term that changes the scores but no
 * label acts where no held-out row sits near the cut; a term that changes
 * neither is inert.
 *
 * Writes bench/results/unlabeled-effect.json and prints the table that
 * docs/learners.md § The unlabeled terms at work quotes.
 *
 * @example
 * // npx tsx bench/unlabeled-effect.ts                                   (every learner with a special case, the sets with peers, seeds 1–3)
 * // npx tsx bench/unlabeled-effect.ts --learners gkm,lapsvm --sets pima,musk --seeds 1
 * // npx tsx bench/unlabeled-effect.ts --sets hmda,lending --merge      (these sets run; every other row kept from bench/results/unlabeled-effect.json)
 */
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { train } from '../src/api.ts';
import { readDataset } from '../src/data/index.ts';
import { mean } from '../src/metrics/index.ts';
import { markdownTable, writeBenchOutputs } from './lib/index.ts';
import { heldOut, LEARNERS, listOption, measureOf, qualitySplit, SETS } from './lib/quality.ts';

const { values: opt } = parseArgs({
  options: {
    sets: { type: 'string' },
    learners: { type: 'string' },
    seeds: { type: 'string', default: '1,2,3' },
    threads: { type: 'string', default: '1' },
    // Keep the rows of bench/results/unlabeled-effect.json for the sets not run now (a set added to the benchmark).
    merge: { type: 'boolean', default: false },
  },
});
const withSpecial = LEARNERS.filter((l) => l.special);
// Every set with peers in the quality benchmark (insteval has none).
const setNames = listOption(opt.sets, SETS.filter((s) => s.name !== 'insteval').map((s) => s.name), 'sets');
const learners = listOption(opt.learners, withSpecial.map((l) => l.learner), 'learners').map((n) => withSpecial.find((l) => l.learner === n)!);
const seeds = opt.seeds.split(',').map(Number);
const threads = Number(opt.threads);
const RESULTS = fileURLToPath(new URL('results/unlabeled-effect.json', import.meta.url));

/** One learner on one split, its unlabeled term on and off. */
interface EffectRow {
  learner: string;
  set: string;
  seed: number;
  testRows: number;
  /** Share of held-out rows whose predicted label differs. */
  labelsChanged: number;
  /** mean |f_on − f_off| / mean |f_on| over the held-out rows. */
  scoreChange: number;
  /** The learner's own measure (AUC, mean threshold AUC or accuracy), on and off. */
  on: number;
  off: number;
}

const rows: EffectRow[] = [];
for (const name of setNames) {
  const set = SETS.find((s) => s.name === name)!;
  const raw = await readDataset(set.path);
  for (const l of learners.filter((x) => x.task === set.task)) {
    for (const seed of seeds) {
      const { train: tr, test } = qualitySplit(raw, set.name, l.protocol, seed);
      const run = { learner: l.learner, data: tr, seed, threads };
      const on = await train(run);
      const off = await train({ ...run, ...l.special!.fixed });
      const fOn = await on.decisionFunction(test);
      const fOff = await off.decisionFunction(test);
      const yOn = on.labelsFromScores(fOn);
      const yOff = off.labelsFromScores(fOff);
      let changed = 0;
      let diff = 0;
      let size = 0;
      for (let i = 0; i < test.n; i++) {
        if (yOn[i] !== yOff[i]) changed++;
        diff += Math.abs(fOn[i] - fOff[i]);
        size += Math.abs(fOn[i]);
      }
      // The learner's own measure (AUC, mean threshold AUC or accuracy), as the quality benchmark judges it.
      const measure = measureOf(l.learner);
      const row: EffectRow = {
        learner: l.learner, set: set.name, seed, testRows: test.n,
        labelsChanged: changed / test.n, scoreChange: diff / size,
        on: heldOut(set.task, test, fOn, yOn)[measure], off: heldOut(set.task, test, fOff, yOff)[measure],
      };
      rows.push(row);
      console.error(`${l.learner} ${set.name} seed ${seed}: labels changed ${(100 * row.labelsChanged).toFixed(1)}%, scores ${(100 * row.scoreChange).toFixed(1)}%, ${row.on.toFixed(4)} vs ${row.off.toFixed(4)}`);
    }
  }
}

if (opt.merge && existsSync(RESULTS)) {
  // Every row of a (learner, set, seed) not run now: a run of some sets, learners or seeds replaces only those.
  const ranNow = (r: EffectRow) => setNames.includes(r.set) && seeds.includes(r.seed) && learners.some((l) => l.learner === r.learner);
  rows.unshift(...(JSON.parse(readFileSync(RESULTS, 'utf8')) as { rows: EffectRow[] }).rows.filter((r) => !ranNow(r)));
}
// Per learner and set (every learner and set with rows, in the benchmark's order): the means over the seeds, and how many seeds changed a label.
const summarySets = SETS.map((s) => s.name).filter((name) => rows.some((r) => r.set === name));
const summaryLearners = withSpecial.filter((l) => rows.some((r) => r.learner === l.learner));
const summary = summaryLearners.flatMap((l) => summarySets.flatMap((set) => {
  const rs = rows.filter((r) => r.learner === l.learner && r.set === set);
  if (rs.length === 0) return [];
  return [{
    learner: l.learner, label: l.special!.label, set, seeds: rs.length,
    labelsChanged: mean(rs.map((r) => r.labelsChanged)), seedsWithLabelChange: rs.filter((r) => r.labelsChanged > 0).length,
    scoreChange: mean(rs.map((r) => r.scoreChange)), on: mean(rs.map((r) => r.on)), off: mean(rs.map((r) => r.off)),
  }];
}));
writeBenchOutputs('unlabeled-effect', {
  description: 'bench/unlabeled-effect.ts: each learner at its defaults against its supervised special case on the quality benchmark splits; share of held-out labels changed, relative change of the held-out scores, the learner\'s measure with the unlabeled term on and off.',
  seeds: [...new Set(rows.map((r) => r.seed))].sort((a, b) => a - b), summary, rows,
});
const pct = (v: number) => `${(100 * v).toFixed(v > 0 && v < 0.001 ? 2 : 1)}%`;
console.log(markdownTable(summary.map((s) => ({
  learner: s.learner, 'term off': s.label, set: s.set, seeds: s.seeds, 'labels changed': pct(s.labelsChanged), 'seeds with a label changed': `${s.seedsWithLabelChange}/${s.seeds}`,
  'score change': pct(s.scoreChange), on: s.on.toFixed(4), off: s.off.toFixed(4), 'on − off': (s.on - s.off >= 0 ? '+' : '−') + Math.abs(s.on - s.off).toFixed(4),
}))));
