/**
 * How well each random-feature family approximates the Gaussian kernel:
 * mean |k̂(x, x′) − k(x, x′)| over sampled pairs, where k̂ = φ(x)·φ(x′) from
 * ONE block of m features (a model sums many blocks, but each block is the
 * estimate whose variance the family changes), averaged over model seeds.
 *
 * Points are uniform in [0, 1]^d (features scaled to [0, 1], as dsgkit trains
 * on them) and σ is the median heuristic the learners default to
 * (σ = 1 / median ‖x − x′‖², so typical pairs have k ≈ e⁻¹). The frequencies
 * are the engine's own (`sampleBlockOmega`), the features the plain reference
 * map (`featureMap`).
 *
 * Writes bench/results/feature-error.json and .svg; prints a Markdown table.
 *
 * @example
 * // npx tsx bench/feature-error.ts            (d = 8, 28, 128, 784; m = 8 … 512)
 * // npx tsx bench/feature-error.ts 16 64      (other dimensions)
 */
import seedrandom from 'seedrandom';
import { exactKernel, featureMap, FEATURE_FAMILIES, sampleBlockOmega, type FeatureFamily, type KernelSpec } from '../src/features/index.ts';
import { lineChartSvg, markdownTable, writeBenchOutputs } from './lib/index.ts';

const PAIRS = 200;
const SEEDS = 8;
const MS = [8, 32, 128, 512];

/** Mean |k̂ − k| over the pairs, averaged over SEEDS model seeds (block 0 of each). */
function meanError(spec: KernelSpec, X: Float64Array, exact: Float64Array, d: number, m: number, family: FeatureFamily): number {
  const omega = new Float64Array(d * m);
  const a = new Float64Array(2 * m);
  const b = new Float64Array(2 * m);
  let total = 0;
  for (let seed = 1; seed <= SEEDS; seed++) {
    sampleBlockOmega(spec, seed, 0, d, m, omega, family);
    for (let p = 0; p < PAIRS; p++) {
      featureMap(omega, d, m, X, 2 * p * d, a);
      featureMap(omega, d, m, X, (2 * p + 1) * d, b);
      let k = 0;
      for (let j = 0; j < 2 * m; j++) k += a[j] * b[j];
      total += Math.abs(k - exact[p]);
    }
  }
  return total / (SEEDS * PAIRS);
}

function main(): void {
  const dims = process.argv.slice(2).map(Number);
  if (dims.length === 0) dims.push(8, 28, 128, 784);
  if (dims.some((d) => !Number.isInteger(d) || d < 1)) throw new Error(`bench/feature-error: dimensions must be positive integers, got ${process.argv.slice(2).join(' ')}`);
  const rows: Array<{ d: number; m: number; sigma: number } & Record<FeatureFamily, number>> = [];
  for (const d of dims) {
    const rng = seedrandom(`feature-error-${d}`);
    const X = Float64Array.from({ length: 2 * PAIRS * d }, () => rng());
    const dist = Array.from({ length: PAIRS }, (_, p) => {
      let s = 0;
      for (let k = 0; k < d; k++) s += (X[2 * p * d + k] - X[(2 * p + 1) * d + k]) ** 2;
      return s;
    }).sort((u, v) => u - v);
    const sigma = 1 / dist[PAIRS >> 1];
    const spec = { kind: 'rbf', sigma } as const;
    const exact = Float64Array.from({ length: PAIRS }, (_, p) => exactKernel(spec, X, 2 * p * d, X, (2 * p + 1) * d, d));
    for (const m of MS) {
      const row = { d, m, sigma } as { d: number; m: number; sigma: number } & Record<FeatureFamily, number>;
      for (const family of FEATURE_FAMILIES) row[family] = meanError(spec, X, exact, d, m, family);
      rows.push(row);
      process.stderr.write(`d=${d} m=${m}: ${FEATURE_FAMILIES.map((f) => `${f} ${row[f].toFixed(4)}`).join(', ')}\n`);
    }
  }
  const json = {
    method: `mean |φ(x)·φ(x′) − k(x, x′)| over ${PAIRS} pairs of points uniform in [0, 1]^d, one block of m features, averaged over ${SEEDS} model seeds; σ = 1 / median ‖x − x′‖² (the learners' default)`,
    rows,
  };
  const svg = lineChartSvg({
    title: 'Kernel approximation error by feature family (one block of m features)',
    xLabel: 'm (features per block)',
    yLabel: 'mean |k̂ − k|',
    logX: true,
    logY: true,
    series: dims.flatMap((d) =>
      FEATURE_FAMILIES.map((family) => ({
        name: `d = ${d}, ${family}`,
        points: rows.filter((r) => r.d === d).map((r) => [r.m, r[family]] as const),
      })),
    ),
  });
  const paths = writeBenchOutputs('feature-error', json, svg);
  process.stdout.write(
    markdownTable(
      rows.map((r) => ({ d: r.d, m: r.m, gaussian: r.gaussian, orf: r.orf, sorf: r.sorf, 'orf / gaussian': r.orf / r.gaussian, 'sorf / gaussian': r.sorf / r.gaussian })),
      { digits: 3 },
    ),
  );
  process.stdout.write(`wrote ${paths.json}${paths.svg ? ` and ${paths.svg}` : ''}\n`);
}

main();
