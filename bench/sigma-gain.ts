/**
 * The default σ's margin (DEFAULT_SIGMA_MIN_GAIN: σ₀ stays unless the best
 * rung's kernel–target alignment beats it by 10%) under today's feature
 * scaling: for each margin g, the rung the rule picks on each split of the
 * quality benchmark, and each learner's held-out measure at its defaults with
 * that σ — the benchmark's own defaults cell where g picks the same rung as
 * today's margin, a `train` at σ = σ₀·2^k (the rung given as σ) where it picks
 * another. Per learner and margin: the mean gap to the best peer (the
 * benchmark's peer cells) and the sets that moved.
 *
 * Needs bench/results/quality-cells.jsonl with today's defaults cells (`npx
 * tsx bench/quality.ts --no-tune`). Writes bench/results/sigma-gain.json
 * (`--name` another name under bench/results/).
 *
 * @example
 * // npx tsx bench/sigma-gain.ts                                   (margins 0, 0.05, 0.1, 0.2; seeds 1–3; 11 binary sets)
 * // npx tsx bench/sigma-gain.ts --gains 0,0.1 --learners qsg-s2auc,dsg --seeds 1
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { train, type LearnerName } from '../src/api.ts';
import { readDataset } from '../src/data/index.ts';
import { defaultKernelScale, DEFAULT_SIGMA_MIN_GAIN, scalerFor } from '../src/train/defaults.ts';
import { mean } from '../src/metrics/index.ts';
import { markdownTable, writeBenchOutputs } from './lib/index.ts';
import { benchSet, gapToBestPeer, heldOut, latestCells, LEARNERS, listOption, measureOf, PEERS, QUALITY_CELLS, qualitySplit, readCells, srcTreeOf } from './lib/quality.ts';

const REPO = fileURLToPath(new URL('..', import.meta.url));
const BINARY = ['ionosphere', 'musk', 'breast_cancer', 'pima', 'cells', 'dna', 'spam', 'satellite', 'churn', 'letter', 'fertility'];
const { values: opt } = parseArgs({
  options: {
    gains: { type: 'string', default: '0,0.05,0.1,0.2' },
    seeds: { type: 'string', default: '1,2,3' },
    sets: { type: 'string' },
    learners: { type: 'string', default: 'qsg-s2auc,dsg,tsgs3vm,gkm,lapsvm' },
    name: { type: 'string', default: 'sigma-gain' },
  },
});
const gains = opt.gains!.split(',').map(Number);
const seeds = opt.seeds!.split(',').map(Number);
const sets = listOption(opt.sets, BINARY, 'sets');
const learners = listOption(opt.learners, LEARNERS.filter((l) => l.task === 'binary').map((l) => l.learner), 'learners');
const srcTree = srcTreeOf(REPO);

const cells = latestCells(readCells(QUALITY_CELLS));
const cellOf = (set: string, protocol: string, seed: number, method: string) => cells.find((c) => c.set === set && c.protocol === protocol && c.seed === seed && c.method === method);

interface Row { set: string; seed: number; learner: string; gain: number; ratio: number; measure: number; trained: boolean }
const rows: Row[] = [];
for (const set of sets) {
  const raw = await readDataset(join(REPO, benchSet(set).path));
  for (const seed of seeds) {
    for (const learner of learners) {
      const { protocol } = LEARNERS.find((l) => l.learner === learner)!;
      const base = cellOf(set, protocol, seed, learner);
      if (!base) throw new Error(`no defaults cell for ${learner} on ${set} (${protocol}), seed ${seed}: run bench/quality.ts --no-tune first`);
      const { train: tr, test } = qualitySplit(raw, set, protocol, seed);
      const scaled = scalerFor(tr).transform(tr);
      const today = defaultKernelScale(scaled, 'rbf', DEFAULT_SIGMA_MIN_GAIN);
      for (const gain of gains) {
        const choice = defaultKernelScale(scaled, 'rbf', gain);
        const measure = measureOf(learner);
        if (choice.ratio === today.ratio) {
          rows.push({ set, seed, learner, gain, ratio: choice.ratio, measure: base[measure], trained: false });
          continue;
        }
        const model = await train({ learner: learner as LearnerName, data: tr, seed, sigma: choice.sigma, threads: 1, onWarning: () => {} } as never);
        const f = await model.decisionFunction(test);
        const held = heldOut('binary', test, f, model.labelsFromScores(f));
        rows.push({ set, seed, learner, gain, ratio: choice.ratio, measure: held[measure], trained: true });
        console.log(`${set} seed ${seed} ${learner} g = ${gain}: σ/σ₀ ${today.ratio} → ${choice.ratio}, ${base[measure].toFixed(4)} → ${held[measure].toFixed(4)}`);
      }
    }
  }
}

// Per learner and margin: the mean over the sets of (learner − best peer), each set's cells standing in for the learner's defaults cells.
const summary = learners.flatMap((learner) =>
  gains.map((gain) => {
    const { protocol } = LEARNERS.find((l) => l.learner === learner)!;
    const gaps = sets.flatMap((set) => {
      const mine = rows.filter((r) => r.set === set && r.learner === learner && r.gain === gain);
      const asCells = mine.map((r) => ({ ...cellOf(set, protocol, r.seed, learner)!, method: 'candidate', [measureOf(learner)]: r.measure }));
      const peers = cells.filter((c) => c.set === set && c.protocol === protocol && c.kind === 'peer');
      const g = gapToBestPeer([...asCells, ...peers], 'candidate', measureOf(learner), PEERS);
      return g ? [{ set, gap: g.gap }] : [];
    });
    const moved = rows.filter((r) => r.learner === learner && r.gain === gain && r.trained).length;
    return { learner, gain, sets: gaps.length, meanGap: mean(gaps.map((g) => g.gap)), splitsMoved: moved, perSet: Object.fromEntries(gaps.map((g) => [g.set, g.gap])) };
  }),
);
console.log(markdownTable(summary.map((s) => ({ learner: s.learner, 'min gain': s.gain, sets: s.sets, 'splits moved': s.splitsMoved, 'mean gap': s.meanGap.toFixed(4) }))));
writeBenchOutputs(opt.name!, { command: `npx tsx bench/sigma-gain.ts ${process.argv.slice(2).join(' ')}`.trim(), srcTree, seeds, sets, summary, rows });
