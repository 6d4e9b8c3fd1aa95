/**
 * A fast screen of default-σ rules before any training: per benchmark set,
 * protocol and seed (the splits of bench/quality.ts), σ₀ (the median
 * heuristic), the exponent log2(σ/σ₀) that centred kernel–target alignment
 * and the Parzen-window leave-one-out error choose on the labeled training
 * rows (src/features/kernel-alignment.ts), their cost in ms, and `tune`'s
 * pick recorded in bench/results/quality-cells.jsonl (seed 1) beside them.
 *
 * @example
 * // npx tsx bench/sigma-rule.ts
 * // npx tsx bench/sigma-rule.ts --sets spam,musk --seeds 1
 */
import { existsSync, readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import seedrandom from 'seedrandom';
import { MinMaxScaler, readDataset, selectRows, splitDataset, type Dataset } from '../src/data/index.ts';
import { shuffleInPlace } from '../src/data/split.ts';
import { gatherRows, trainingRows } from '../src/data/training-rows.ts';
import { alignedSigma, ALIGNMENT_SAMPLE } from '../src/features/kernel-alignment.ts';
import { sampleIndices } from '../src/features/median-heuristic.ts';
import { kernelScale0 } from '../src/train/defaults.ts';
import { markdownTable } from './lib/index.ts';

const HIDE_MAX_ROWS = 6250;
const BINARY = ['ionosphere', 'musk', 'breast_cancer', 'pima', 'cells', 'dna', 'spam', 'satellite', 'churn', 'letter', 'fertility'];
const ORDINAL = ['diabetes', 'boston', 'ames'];
const { values: opt } = parseArgs({ options: { sets: { type: 'string' }, seeds: { type: 'string', default: '1,2' } } });
const sets = opt.sets?.split(',') ?? [...BINARY, ...ORDINAL];
const seeds = opt.seeds!.split(',').map(Number);
const path = (name: string) => (['spam', 'breast_cancer', 'diabetes'].includes(name) ? `data/${name}.arrow` : `bench/data-public/${name}.arrow`);

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

function split(raw: Dataset, name: string, protocol: 'labeled' | 'hide', seed: number): Dataset {
  if (protocol === 'labeled') return splitDataset(raw, { labeled: 200, test: 0.2, seed }).train;
  let ds = raw;
  if (raw.n > HIDE_MAX_ROWS) {
    const order = shuffleInPlace(Array.from({ length: raw.n }, (_, i) => i), seedrandom(`quality-hide-${name}-${seed}`));
    ds = selectRows(raw, order.slice(0, HIDE_MAX_ROWS).sort((a, b) => a - b));
  }
  const testCount = Math.round(0.2 * ds.n);
  return splitDataset(ds, { labeled: Math.round(0.2 * (ds.n - testCount)), test: 0.2, seed }).train;
}

const out: Record<string, string | number>[] = [];
for (const name of sets) {
  const raw = await readDataset(path(name));
  for (const protocol of ORDINAL.includes(name) ? (['labeled'] as const) : (['labeled', 'hide'] as const)) {
    for (const seed of seeds) {
      const tr = MinMaxScaler.fit(raw).transform(split(raw, name, protocol, seed));
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
      const t3 = performance.now();
      const parzen = alignedSigma(X, y, idx.length, rows.d, sigma0, { score: 'parzen' });
      const t4 = performance.now();
      const row = {
        set: name, protocol, seed, 'labeled rows': idx.length, d: rows.d, 'σ₀': Number(sigma0.toPrecision(4)),
        'KTA k': kta.exponent, 'Parzen k': parzen.exponent,
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
