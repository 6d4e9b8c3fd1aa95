/**
 * What a run's set-up costs where it chooses its kernel scale: σ₀ (the median
 * heuristic over 1,000 sampled rows) and the default σ (σ₀ and the
 * kernel–target alignment of up to 1,000 labeled rows), on the calling thread
 * before training starts, on the rows scaled as `train` scales them. With
 * `--vs <checkout>` the same steps of another checkout (its `src/`, run
 * through tsx) in the same process, alternating, pair by pair — and whether
 * the two give the same σ₀ and σ to the bit.
 *
 * Writes bench/results/setup-cost.json and .svg (median ms of `--repeats`
 * rounds per file and build); prints a table.
 *
 * @example
 * // npx tsx bench/setup-cost.ts --vs /tmp/old-checkout data/spam.arrow bench/data-public/mnist.arrow
 */
import { cpus, loadavg } from 'node:os';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { readDataset } from '../src/data/index.ts';
import { median } from '../src/metrics/summary.ts';
import { defaultKernelScale, kernelScale0, scalerFor } from '../src/train/defaults.ts';
import { dotPlotSvg, markdownTable, writeBenchOutputs, type DotGroup } from './lib/index.ts';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { vs: { type: 'string' }, repeats: { type: 'string', default: '5' }, out: { type: 'string', default: 'setup-cost' } },
});
if (positionals.length === 0) throw new Error('usage: npx tsx bench/setup-cost.ts [--vs <checkout>] [--repeats 5] <data.arrow> …');
const repeats = Number(values.repeats);

type Steps = { defaultKernelScale: typeof defaultKernelScale; kernelScale0: typeof kernelScale0 };
const builds: Array<{ name: string; steps: Steps }> = [{ name: 'this', steps: { defaultKernelScale, kernelScale0 } }];
if (values.vs) builds.push({ name: 'vs', steps: (await import(resolve(values.vs, 'src/train/defaults.ts'))) as Steps });

const rows: Array<Record<string, unknown>> = [];
const groups: DotGroup[] = [];
for (const file of positionals) {
  const raw = await readDataset(file);
  const scaled = scalerFor(raw).transform(raw);
  const ms = builds.map(() => ({ sigma: [] as number[], sigma0: [] as number[] }));
  const chosen = builds.map(() => ({ sigma: NaN, sigma0: NaN }));
  // Rounds alternate the builds, each timed on the same scaled rows.
  for (let r = 0; r < repeats; r++) {
    builds.forEach((b, i) => {
      let t0 = performance.now();
      const choice = b.steps.defaultKernelScale(scaled);
      ms[i].sigma.push(performance.now() - t0);
      t0 = performance.now();
      const sigma0 = b.steps.kernelScale0(scaled);
      ms[i].sigma0.push(performance.now() - t0);
      chosen[i] = { sigma: choice.sigma, sigma0 };
    });
  }
  const row: Record<string, unknown> = { data: file, rows: raw.n, d: raw.d, 'σ₀ ms': median(ms[0].sigma0), 'default σ ms': median(ms[0].sigma) };
  if (builds.length > 1) {
    Object.assign(row, {
      'σ₀ ms, vs': median(ms[1].sigma0),
      'default σ ms, vs': median(ms[1].sigma),
      'default σ, this / vs': median(ms[0].sigma.map((t, r) => t / ms[1].sigma[r])),
      'same σ₀ and σ': chosen[0].sigma === chosen[1].sigma && chosen[0].sigma0 === chosen[1].sigma0,
    });
  }
  rows.push(row);
  groups.push({ name: `${file.split('/').pop()} (d = ${raw.d})`, rows: builds.map((b, i) => ({ series: b.name === 'this' ? 'this build' : `--vs ${values.vs}`, mean: median(ms[i].sigma) })) });
}
console.log(markdownTable(rows, { digits: 3 }));
const svg = dotPlotSvg({ title: `The default σ (σ₀ and the alignment) on the calling thread, median of ${repeats}`, xLabel: 'ms', groups });
const paths = writeBenchOutputs(values.out, {
  command: `npx tsx bench/setup-cost.ts${values.vs ? ' --vs <checkout>' : ''} --repeats ${repeats} ${positionals.join(' ')}`,
  machine: { cpu: cpus()[0]?.model, cores: cpus().length, loadavg: loadavg() },
  date: new Date().toISOString(),
  rows,
}, svg);
console.log(`wrote ${paths.json} and ${paths.svg}`);
