/**
 * What a random-feature family costs in the kernel: one thread evaluates a
 * history of 400 blocks (m = 64) at 192 points — one training step's history
 * evaluation on wide data — with `gaussian` and with `sorf` blocks, at
 * several d, in CPU milliseconds (the process's user + system time, which
 * other jobs on a shared machine inflate least). The two families alternate
 * within each round; a figure is the median of ROUNDS rounds (default 5).
 * Regeneration is excluded (the blocks are made up front, as the engine's
 * frequency store holds them); the points are written afresh before each
 * evaluation, so `sorf` pays one transform per point and group, as a new
 * batch does.
 *
 * Writes bench/results/feature-kernel.json and .svg; prints a Markdown table.
 *
 * @example
 * // npx tsx bench/feature-kernel.ts                 (d = 64, 100, 128, 180, 256, 400, 784)
 * // ROUNDS=9 npx tsx bench/feature-kernel.ts 784    (one width)
 */
import { cpus, loadavg } from 'node:os';
import seedrandom from 'seedrandom';
import { RffKernel } from '../src/engine/kernel.ts';
import { kernelBlockWidth, sampleKernelBlock, type FeatureFamily } from '../src/features/spectral.ts';
import { median } from '../src/metrics/summary.ts';
import { lineChartSvg, markdownTable, writeBenchOutputs } from './lib/index.ts';

const BLOCKS = 400;
const M = 64;
const POINTS = 192;
const ROUNDS = Number(process.env.ROUNDS ?? 5);
const dims = process.argv.slice(2).map(Number);
const D = dims.length > 0 ? dims : [64, 100, 128, 180, 256, 400, 784];
const FAMILIES: FeatureFamily[] = ['gaussian', 'sorf'];

/** CPU ms of one history evaluation of `blocks` at the points, through `kernel`. */
function evaluate(kernel: RffKernel, X: Float64Array, blocks: Float64Array[], alphas: Float64Array[]): number {
  const cpu0 = process.cpuUsage();
  kernel.points().set(X);
  kernel.clearOut(POINTS);
  for (let b = 0; b < blocks.length; b++) {
    kernel.omega().set(blocks[b]);
    kernel.alpha().set(alphas[b]);
    kernel.accumulate(POINTS);
  }
  const cpu = process.cpuUsage(cpu0);
  return (cpu.user + cpu.system) / 1000;
}

const loadBefore = loadavg()[0];
const rows: { d: number; gaussianMs: number; sorfMs: number; speedup: number; rounds: { gaussianMs: number; sorfMs: number }[] }[] = [];
for (const d of D) {
  const rng = seedrandom(`feature-kernel-${d}`);
  const X = Float64Array.from({ length: POINTS * d }, () => rng());
  const alphas = Array.from({ length: BLOCKS }, () => Float64Array.from({ length: 2 * M }, () => rng() - 0.5));
  const spec = { kind: 'rbf' as const, sigma: 1 / d };
  const setups = FAMILIES.map((family) => {
    const kernel = RffKernel.create();
    kernel.reserve(POINTS, d, M, family);
    const blocks = Array.from({ length: BLOCKS }, (_, i) => {
      const omega = new Float64Array(kernelBlockWidth(d, M, family));
      sampleKernelBlock(spec, 1, i, d, M, omega, family);
      return omega;
    });
    evaluate(kernel, X, blocks, alphas); // warm-up: compile and tier up
    return { kernel, blocks };
  });
  const rounds: { gaussianMs: number; sorfMs: number }[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    const [g, s] = setups.map(({ kernel, blocks }) => evaluate(kernel, X, blocks, alphas));
    rounds.push({ gaussianMs: g, sorfMs: s });
  }
  const gaussianMs = median(rounds.map((r) => r.gaussianMs));
  const sorfMs = median(rounds.map((r) => r.sorfMs));
  rows.push({ d, gaussianMs, sorfMs, speedup: gaussianMs / sorfMs, rounds });
  process.stderr.write(`d = ${d}: gaussian ${gaussianMs.toFixed(1)} ms, sorf ${sorfMs.toFixed(1)} ms\n`);
}

const json = {
  method: `one thread, ${BLOCKS} blocks of m = ${M} at ${POINTS} points (fresh points each evaluation), CPU ms, median of ${ROUNDS} alternating rounds`,
  command: `npx tsx bench/feature-kernel.ts ${dims.join(' ')}`.trim(),
  machine: { cpu: cpus()[0]?.model ?? 'unknown', cores: cpus().length, node: process.version, loadavg1mBefore: loadBefore, loadavg1mAfter: loadavg()[0] },
  date: new Date().toISOString(),
  rows,
};
const svg = lineChartSvg({
  title: `History evaluation, one thread (${BLOCKS} blocks, m = ${M}, ${POINTS} points)`,
  xLabel: 'd (input dimension)',
  yLabel: 'CPU ms',
  logX: true,
  logY: true,
  series: FAMILIES.map((f) => ({ name: f, points: rows.map((r) => [r.d, f === 'gaussian' ? r.gaussianMs : r.sorfMs] as const) })),
});
const paths = writeBenchOutputs('feature-kernel', json, svg);
console.log(markdownTable(rows.map((r) => ({ d: r.d, 'gaussian ms': r.gaussianMs.toFixed(1), 'sorf ms': r.sorfMs.toFixed(1), 'speed-up': r.speedup.toFixed(2) }))));
console.log(`\nwrote ${paths.json} and ${paths.svg}`);
