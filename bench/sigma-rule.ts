/**
 * A fast screen of default-σ rules before any training: per benchmark set,
 * protocol and seed (the splits of bench/quality.ts), σ₀ (the median
 * heuristic), the exponent log2(σ/σ₀) that centred kernel–target alignment
 * and the Parzen-window leave-one-out error choose on the labeled training
 * rows (src/features/kernel-alignment.ts), their cost in ms, and `tune`'s
 * pick recorded in bench/results/quality-cells.jsonl (seed 1) beside them;
 * writes the default rule's alignment per rung and split to
 * bench/results/sigma-rule.json. The alternatives measured against the
 * alignment live here: the leave-one-out error of the Nadaraya–Watson
 * (Parzen-window) estimate and of kernel ridge regression (300 rows).
 *
 * @example
 * // npx tsx bench/sigma-rule.ts
 * // npx tsx bench/sigma-rule.ts --sets spam,musk --seeds 1
 */
import { existsSync, readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import seedrandom from 'seedrandom';
import { MinMaxScaler, readDataset, type Dataset } from '../src/data/index.ts';
import { gatherRows, trainingRows } from '../src/data/training-rows.ts';
import { alignedSigma, ALIGNMENT_SAMPLE, centredAlignment } from '../src/features/kernel-alignment.ts';
import { sampleIndices } from '../src/features/median-heuristic.ts';
import { DEFAULT_SIGMA_EXPONENTS, defaultKernelScale, kernelScale0 } from '../src/train/defaults.ts';
import { writeFileSync } from 'node:fs';
import { markdownTable } from './lib/index.ts';
import { benchSet, qualitySplit } from './lib/quality.ts';

/** Labeled rows the ridge leave-one-out score reads (O(n³) per σ and ridge). */
const RIDGE_SAMPLE = 300;
const BINARY = ['ionosphere', 'musk', 'breast_cancer', 'pima', 'cells', 'dna', 'spam', 'satellite', 'churn', 'letter', 'fertility'];
const ORDINAL = ['diabetes', 'boston', 'ames'];
const { values: opt } = parseArgs({ options: { sets: { type: 'string' }, seeds: { type: 'string', default: '1,2' }, ridge: { type: 'boolean', default: false } } });
const sets = opt.sets?.split(',') ?? [...BINARY, ...ORDINAL];
const seeds = opt.seeds!.split(',').map(Number);

// tune's picks (log2 σ/σ₀) per set, protocol and learner, from the newest recorded tune cells.
const tunePicks = new Map<string, string[]>();
if (existsSync('bench/results/quality-cells.jsonl')) {
  const latest = new Map<string, { method: string; params?: { sigmaRatio?: number } }>();
  for (const line of readFileSync('bench/results/quality-cells.jsonl', 'utf8').split('\n').filter(Boolean)) {
    const c = JSON.parse(line) as { set: string; protocol: string; seed: number; method: string; params?: { sigmaRatio?: number } };
    if (c.method.startsWith('tune ') && !c.method.includes('[') && c.params?.sigmaRatio !== undefined) latest.set(`${c.set}|${c.protocol}|${c.seed}|${c.method}`, c);
  }
  for (const [key, c] of latest) {
    const [set, protocol, seed] = key.split('|');
    const k = `${set}|${protocol}|${seed}`;
    tunePicks.set(k, [...(tunePicks.get(k) ?? []), `${c.method.slice(5)} ${signed(Math.log2(c.params!.sigmaRatio!))}`]);
  }
}
function signed(v: number): string {
  return `${v > 0 ? '+' : ''}${v}`;
}

/** The training rows of the quality benchmark's split. */
function split(raw: Dataset, name: string, protocol: 'labeled' | 'hide', seed: number): Dataset {
  return qualitySplit(raw, name, protocol, seed).train;
}

/**
 * The leave-one-out mean squared error of the Nadaraya–Watson estimate
 * f₋ᵢ(xᵢ) = Σ_{j≠i} k_ij y_j / Σ_{j≠i} k_ij with the Gaussian kernel
 * `exp(−σ·dist)`, on the centred labels divided by their standard deviation
 * (so 1 is "no better than the mean"). Each row's weights are taken relative
 * to its nearest neighbour, so a very narrow kernel is 1-nearest-neighbour,
 * never 0/0.
 *
 * @example
 * const dist = pairDistances(new Float64Array([0, 0.1, 5, 5.1]), 4, 1);
 * parzenLooError(dist, new Float64Array([0, 0, 1, 1]), 4, 1); // ≈ 0: each row's neighbour has its label
 */
function parzenLooError(dist: Float64Array, y: ArrayLike<number>, n: number, sigma: number): number {
  let mean = 0;
  for (let i = 0; i < n; i++) mean += y[i];
  mean /= n;
  let v = 0;
  for (let i = 0; i < n; i++) v += (y[i] - mean) ** 2;
  if (!(v > 0) || n < 2) return NaN;
  const at = (i: number, j: number) => (i < j ? dist[i * n - (i * (i + 1)) / 2 + j - i - 1] : dist[j * n - (j * (j + 1)) / 2 + i - j - 1]);
  let err = 0;
  for (let i = 0; i < n; i++) {
    let min = Infinity;
    for (let j = 0; j < n; j++) if (j !== i) min = Math.min(min, at(i, j));
    let w = 0;
    let wy = 0;
    for (let j = 0; j < n; j++) {
      if (j === i) continue;
      const k = Math.exp(-sigma * (at(i, j) - min));
      w += k;
      wy += k * y[j];
    }
    err += (y[i] - wy / w) ** 2;
  }
  return err / v;
}

/**
 * The leave-one-out mean squared error of kernel ridge regression on the
 * labels (centred, over their variance: 1 is "no better than the mean"),
 * by the closed form e_i = [A⁻¹y]_i / [A⁻¹]_ii, A = K + ridge·I, with the
 * Gaussian kernel `exp(−σ·dist)`; the smallest over `ridges`. O(n³) per
 * ridge (a Cholesky factor and its inverse).
 *
 * @example
 * const dist = pairDistances(new Float64Array([0, 0.1, 5, 5.1]), 4, 1);
 * ridgeLooError(dist, new Float64Array([0, 0, 1, 1]), 4, 1, [0.01]); // small: each row's neighbour has its label
 */
function ridgeLooError(dist: Float64Array, y: ArrayLike<number>, n: number, sigma: number, ridges: readonly number[]): number {
  let mean = 0;
  for (let i = 0; i < n; i++) mean += y[i];
  mean /= n;
  let v = 0;
  for (let i = 0; i < n; i++) v += (y[i] - mean) ** 2;
  if (!(v > 0) || n < 3) return NaN;
  const K = new Float64Array(n * n);
  let p = 0;
  for (let i = 0; i < n; i++) {
    K[i * n + i] = 1;
    for (let j = i + 1; j < n; j++) K[i * n + j] = K[j * n + i] = Math.exp(-sigma * dist[p++]);
  }
  let best = Infinity;
  const L = new Float64Array(n * n);
  const Li = new Float64Array(n * n);
  for (const ridge of ridges) {
    // Cholesky A = L Lᵀ (lower), A = K + ridge·I.
    L.fill(0);
    let ok = true;
    for (let j = 0; j < n && ok; j++) {
      let s = K[j * n + j] + ridge;
      for (let k = 0; k < j; k++) s -= L[j * n + k] * L[j * n + k];
      if (!(s > 0)) ok = false;
      const ljj = Math.sqrt(s);
      L[j * n + j] = ljj;
      for (let i = j + 1; i < n; i++) {
        let t = K[i * n + j];
        for (let k = 0; k < j; k++) t -= L[i * n + k] * L[j * n + k];
        L[i * n + j] = t / ljj;
      }
    }
    if (!ok) continue;
    // L⁻¹ (lower), column by column; then [A⁻¹]_ii = Σ_k (L⁻¹)_ki², A⁻¹y = L⁻ᵀ(L⁻¹y).
    Li.fill(0);
    for (let c = 0; c < n; c++) {
      Li[c * n + c] = 1 / L[c * n + c];
      for (let i = c + 1; i < n; i++) {
        let t = 0;
        for (let k = c; k < i; k++) t -= L[i * n + k] * Li[k * n + c];
        Li[i * n + c] = t / L[i * n + i];
      }
    }
    const z = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      let t = 0;
      for (let k = 0; k <= i; k++) t += Li[i * n + k] * (y[k] - mean);
      z[i] = t;
    }
    let err = 0;
    for (let i = 0; i < n; i++) {
      let a = 0;
      let d = 0;
      for (let k = i; k < n; k++) {
        a += Li[k * n + i] * z[k];
        d += Li[k * n + i] * Li[k * n + i];
      }
      err += (a / d) ** 2;
    }
    best = Math.min(best, err / v);
  }
  return Number.isFinite(best) ? best : NaN;
}

const out: Record<string, string | number>[] = [];
/** The default rule's alignment per rung, per split: what bench/sigma-rule-compare.ts simulates thresholds with. */
const picks: unknown[] = [];
for (const name of sets) {
  const raw = await readDataset(benchSet(name).path);
  for (const protocol of ORDINAL.includes(name) ? (['labeled'] as const) : (['labeled', 'hide'] as const)) {
    for (const seed of seeds) {
      // Scaled as train scales them: by the training split's own ranges.
      const unscaled = split(raw, name, protocol, seed);
      const tr = MinMaxScaler.fit(unscaled).transform(unscaled);
      const r0 = performance.now();
      const chosen = defaultKernelScale(tr);
      const r1 = performance.now();
      const t0 = performance.now();
      const sigma0 = kernelScale0(tr);
      const t1 = performance.now();
      const rows = trainingRows(tr);
      const picked = sampleIndices(rows.labeledRows.length, ALIGNMENT_SAMPLE, seedrandom('sigma-rule:0'));
      const idx = Array.from(picked, (i) => rows.labeledRows[i]);
      const X = gatherRows(rows, idx);
      const y = Float64Array.from(idx, (i) => rows.label(i));
      const t2 = performance.now();
      const kta = alignedSigma(X, y, idx.length, rows.d, sigma0);
      const rule = alignedSigma(X, y, idx.length, rows.d, sigma0, { exponents: DEFAULT_SIGMA_EXPONENTS });
      picks.push({ set: name, protocol, seed, exponents: DEFAULT_SIGMA_EXPONENTS, scores: rule.scores, exponent: rule.exponent, defaultRatio: chosen.ratio });
      const offDiagonal = alignedSigma(X, y, idx.length, rows.d, sigma0, { exponents: DEFAULT_SIGMA_EXPONENTS, score: (dist, yy, n, s) => centredAlignment(dist, yy, n, s, { diagonal: false }) });
      const offDiagonalAll = alignedSigma(X, y, idx.length, rows.d, sigma0, { score: (dist, yy, n, s) => centredAlignment(dist, yy, n, s, { diagonal: false }) });
      const t3 = performance.now();
      const parzen = alignedSigma(X, y, idx.length, rows.d, sigma0, { score: (dist, yy, n, s) => -parzenLooError(dist, yy, n, s) });
      const t4 = performance.now();
      const small = idx.slice(0, RIDGE_SAMPLE);
      const ridge = !opt.ridge ? { exponent: NaN } : alignedSigma(gatherRows(rows, small), Float64Array.from(small, (i) => rows.label(i)), small.length, rows.d, sigma0, { score: (dist, yy, n, s) => -ridgeLooError(dist, yy, n, s, [1e-3, 1e-2, 1e-1].map((r) => r * n)), exponents: [-2, -1, 0, 1, 2, 3, 4, 5, 6] });
      const t5 = performance.now();
      const row = {
        set: name, protocol, seed, 'labeled rows': idx.length, d: rows.d, 'σ₀': Number(sigma0.toPrecision(4)),
        'default σ/σ₀': chosen.ratio, 'ms default σ': Math.round(r1 - r0), 'KTA k': kta.exponent, 'KTA k≥0': rule.exponent, 'KTA₀ k≥0': offDiagonal.exponent, 'KTA₀ k': offDiagonalAll.exponent, 'Parzen k': parzen.exponent, 'ridge LOO k': ridge.exponent, 'ms ridge': Math.round(t5 - t4),
        'ms σ₀': Math.round(t1 - t0), 'ms KTA': Math.round(t3 - t2), 'ms Parzen': Math.round(t4 - t3),
        'tune picks (seed 1)': seed === 1 ? (tunePicks.get(`${name}|${protocol}|${seed}`) ?? []).join(', ') : '',
        'KTA scores': kta.scores.filter((_, i) => i % 2 === 0).map((s) => s.toFixed(3)).join(' '),
      };
      out.push(row);
      console.error(JSON.stringify(row));
    }
  }
}
console.log(markdownTable(out));
writeFileSync('bench/results/sigma-rule.json', JSON.stringify({ date: new Date().toISOString(), picks }, null, 1) + '\n');
