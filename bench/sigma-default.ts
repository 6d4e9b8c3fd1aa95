/**
 * What the data-driven default σ does alone: held-out AUC with σ = σ₀ (the
 * median heuristic over the scaled training rows, train's default) against
 * the old fixed default σ = 1, every other setting at its default, for every
 * binary loop learner, on the bundled binary datasets (200 labeled rows, 20%
 * held out, seeds 1–3: the split and the model seed).
 *
 * Writes bench/results/sigma-default.json and sigma-default.svg.
 *
 * @example
 * // npm run bench:sigma
 * // npx tsx bench/sigma-default.ts qsg-s2auc     (one learner)
 */
import { cpus, loadavg } from 'node:os';
import { availableCores } from '../src/engine/cores.ts';
import { kernelScale0, LEARNERS } from '../src/api.ts';
// Learners chosen by name at run time: the untyped entry (the typed `train` checks literal options at compile time).
import { trainModel as train } from '../src/train/train.ts';
import { MinMaxScaler, readDataset, splitDataset } from '../src/data/index.ts';
import { mean, sampleSd as sd } from '../src/metrics/index.ts';
import { dotPlotSvg, markdownTable, writeBenchOutputs, type DotGroup } from './lib/index.ts';

const DATASETS = ['spam', 'breast_cancer'];
const SEEDS = [1, 2, 3];
// `npx tsx bench/sigma-default.ts qsg-s2auc` limits the run to the learners named.
const only = process.argv[2]?.split(',');
const learners = LEARNERS.filter((l) => l.kind === 'loop' && l.task === 'binary' && (only === undefined || only.includes(l.name)));
const threads = availableCores();


const rows: Array<Record<string, string | number>> = [];
const groups: DotGroup[] = [];
const runs: unknown[] = [];
for (const name of DATASETS) {
  const raw = await readDataset(`data/${name}.arrow`);
  const group: DotGroup = { name, rows: [] };
  for (const spec of learners) {
    const auc: Record<'1' | 'σ₀', number[]> = { '1': [], 'σ₀': [] };
    const sigma0: number[] = [];
    for (const seed of SEEDS) {
      const { train: tr, test } = splitDataset(raw, { labeled: 200, test: 0.2, seed });
      sigma0.push(kernelScale0(MinMaxScaler.fit(tr).transform(tr)));
      for (const sigma of ['1', 'σ₀'] as const) {
        const model = await train({ learner: spec.name, data: tr, seed, threads, ...(sigma === '1' ? { sigma: 1 } : {}) });
        const value = await model.score(test!, { threads });
        auc[sigma].push(value);
        runs.push({ dataset: name, learner: spec.name, seed, sigma: model.header.hyperparameters.sigma, auc: value });
        console.error(`${name} ${spec.name} seed ${seed} σ = ${String(model.header.hyperparameters.sigma)}: AUC ${value.toFixed(4)}`);
      }
    }
    for (const sigma of ['1', 'σ₀'] as const) {
      rows.push({ dataset: name, learner: spec.name, σ: sigma === '1' ? '1 (old default)' : `σ₀ (${sigma0.map((s) => s.toPrecision(3)).join(', ')})`, 'AUC mean': mean(auc[sigma]), 'AUC sd': sd(auc[sigma]) });
      (group.rows as DotGroup['rows'][number][]).push({ series: `${spec.name}, σ = ${sigma}`, mean: mean(auc[sigma]), sd: sd(auc[sigma]) });
    }
  }
  groups.push(group);
}
console.log(markdownTable(rows, { digits: 4 }));
const meta = { labeled: 200, testFraction: 0.2, seeds: SEEDS, threads, cpu: cpus()[0]?.model, loadavg: loadavg(), date: new Date().toISOString() };
writeBenchOutputs('sigma-default', { meta, rows, runs }, dotPlotSvg({ title: 'Held-out AUC: default σ = σ₀ (median heuristic) vs σ = 1, mean ± sd over 3 seeds', xLabel: 'AUC', groups }));
