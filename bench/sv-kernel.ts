/**
 * Support-vector kernel benchmark: dsgkit's WebAssembly SIMD exact-kernel
 * kernel (`src/engine/sv-kernel.ts`) against the plain-TypeScript reference
 * (`referenceSvAccumulate`, i.e. `exactKernel` with `Math.exp`), one thread,
 * E = 4096 support vectors in chunks of 256 entries (the default chunk size),
 * at B = 256 points and at B = 4 points (an SGD step of GKM evaluates f at a
 * handful of points).
 *
 * Throughput is Meval/s = B·E / seconds / 1e6, an "evaluation" being one
 * kernel value K(x_i, x_p) times its coefficient, added. It times what a
 * thread of the pool does per chunk: load the chunk's row indices and
 * coefficients, then accumulate, reading the entries' rows in place from the
 * shared training rows (8,192 rows, entries drawn at random among them).
 * Best of 5 runs after a warm-up; the reference, best of 3.
 *
 * It also times the random-feature kernel at m = 64 for the same d, to express
 * an SV evaluation in the work units of the pool's parallel threshold
 * (`DEFAULT_PARALLEL_MIN_WORK`, where one random feature at one point is
 * `d + 8`): `equivalentWork = (d + 8) · t_sv / t_feature`.
 *
 * Writes bench/results/sv-kernel.json and sv-kernel.svg; prints a Markdown table.
 *
 * @example
 * // npm run bench:sv-kernel          (d = 8, 28, 128; rbf and laplacian)
 * // npx tsx bench/sv-kernel.ts 8 64  (other dimensions)
 */
import { cpus, loadavg } from 'node:os';
import seedrandom from 'seedrandom';
import type { KernelSpec } from '../src/features/kernel-spec.ts';
import { RffKernel } from '../src/engine/kernel.ts';
import { referenceSvAccumulate } from '../src/engine/reference-kernel.ts';
import { SharedRows } from '../src/engine/shared-rows.ts';
import { SvKernel } from '../src/engine/sv-kernel.ts';
import { DEFAULT_SV_CHUNK_SIZE } from '../src/engine/chunks.ts';
import { lineChartSvg, markdownTable, writeBenchOutputs } from './lib/index.ts';

const E = 4096;
const S = DEFAULT_SV_CHUNK_SIZE;
const BATCHES = [256, 4];
const REPS = 5;
const REPS_REF = 3;
/** The reference is slower: fewer entries (same per-entry work), best of 3. */
const E_REF = 512;
const M_RFF = 64;
const T_RFF = 64;

interface Problem {
  d: number;
  rows: SharedRows; // n×d training rows (the shared matrix)
  rowOf: Uint32Array; // entry → row
  beta: Float64Array; // E coefficients
  X: Float64Array; // max(B)×d points
}

function problem(d: number): Problem {
  const rng = seedrandom(`bench-sv-${d}`);
  const n = 2 * E;
  const rows = SharedRows.from(Float64Array.from({ length: n * d }, () => rng()), n, d);
  // Entries refer to scattered rows, as an SGD run's would.
  const rowOf = Uint32Array.from({ length: E }, () => Math.floor(rng() * n));
  const beta = Float64Array.from({ length: E }, () => rng() - 0.5);
  const X = Float64Array.from({ length: Math.max(...BATCHES) * d }, () => rng());
  return { d, rows, rowOf, beta, X };
}

function bestOf(reps: number, run: () => void): number {
  let best = Infinity;
  for (let r = 0; r < reps; r++) {
    const t0 = performance.now();
    run();
    best = Math.min(best, (performance.now() - t0) / 1000);
  }
  return best;
}

/** Seconds for all E entries at B points, chunk by chunk as a thread of the pool runs them. */
function timeOurs(k: SvKernel, pr: Problem, kernel: KernelSpec, B: number): { seconds: number; out: Float64Array } {
  k.reserve(B, S);
  k.setPoints(pr.X, B);
  const pass = () => {
    k.clearOut(B);
    for (let c = 0; c < E; c += S) {
      k.load(pr.rowOf, pr.beta, c, c + S);
      k.accumulate(kernel, B, S);
    }
  };
  pass();
  const seconds = bestOf(REPS, pass);
  return { seconds, out: k.out().slice(0, B) };
}

/** Row-major centres of entries [0, count), as the reference reads them. */
function centres(pr: Problem, count: number): Float64Array {
  const C = new Float64Array(count * pr.d);
  for (let i = 0; i < count; i++) C.set(pr.rows.row(pr.rowOf[i]), i * pr.d);
  return C;
}

function timeReference(pr: Problem, kernel: KernelSpec, B: number): { seconds: number; out: Float64Array } {
  const C = centres(pr, E_REF);
  const out = new Float64Array(B);
  const pass = () => {
    out.fill(0);
    referenceSvAccumulate(kernel, C, pr.beta, E_REF, pr.X, B, pr.d, out);
  };
  pass();
  return { seconds: bestOf(REPS_REF, pass), out };
}

/** Max |ours − reference| over points relative to Σ|β| over the first E_REF entries. */
function agreement(k: SvKernel, pr: Problem, kernel: KernelSpec, B: number, reference: Float64Array): number {
  k.reserve(B, S);
  k.setPoints(pr.X, B);
  k.clearOut(B);
  for (let c = 0; c < E_REF; c += S) {
    k.load(pr.rowOf, pr.beta, c, c + S);
    k.accumulate(kernel, B, S);
  }
  let mag = 0;
  for (let i = 0; i < E_REF; i++) mag += Math.abs(pr.beta[i]);
  const out = k.out();
  let worst = 0;
  for (let p = 0; p < B; p++) worst = Math.max(worst, Math.abs(out[p] - reference[p]) / mag);
  return worst;
}

/** Seconds per (point, feature) of the random-feature kernel at m = 64, B = 256. */
function rffSecondsPerFeature(d: number): number {
  const rng = seedrandom(`bench-sv-rff-${d}`);
  const B = 256;
  const k = RffKernel.create();
  k.reserve(B, d, M_RFF);
  k.points().set(Float64Array.from({ length: B * d }, () => rng()));
  k.omega().set(Float64Array.from({ length: d * M_RFF }, () => rng() - 0.5));
  k.alpha().set(Float64Array.from({ length: 2 * M_RFF }, () => rng() - 0.5));
  const pass = () => {
    k.clearOut(B);
    for (let t = 0; t < T_RFF; t++) k.accumulate(B);
  };
  pass();
  return bestOf(REPS, pass) / (B * M_RFF * T_RFF);
}

function main(): void {
  const dims = process.argv.slice(2).map(Number);
  if (dims.length === 0) dims.push(8, 28, 128);
  if (dims.some((d) => !Number.isInteger(d) || d < 1)) throw new Error(`bench:sv-kernel: dimensions must be positive integers, got ${process.argv.slice(2).join(' ')}`);
  const loadBefore = loadavg()[0];
  const rows: Array<Record<string, number | string>> = [];
  for (const d of dims) {
    const pr = problem(d);
    const k = SvKernel.create(pr.rows);
    const tFeature = rffSecondsPerFeature(d);
    for (const kernel of [{ kind: 'rbf', sigma: 1 }, { kind: 'laplacian', sigma: 1 }] as KernelSpec[]) {
      for (const B of BATCHES) {
        const ours = timeOurs(k, pr, kernel, B);
        const ref = timeReference(pr, kernel, B);
        const wasmMeval = (B * E) / ours.seconds / 1e6;
        const refMeval = (B * E_REF) / ref.seconds / 1e6;
        rows.push({
          kernel: kernel.kind,
          d,
          B,
          wasmMevalPerS: wasmMeval,
          referenceMevalPerS: refMeval,
          wasmOverReference: wasmMeval / refMeval,
          equivalentWork: ((d + 8) * (ours.seconds / (B * E))) / tFeature,
          maxRelDiffVsReference: agreement(k, pr, kernel, B, ref.out),
        });
      }
    }
  }
  const json = {
    shape: { E, chunk: S, batches: BATCHES, eReference: E_REF, rffForWorkUnits: { m: M_RFF, B: 256 } },
    method: `best of ${REPS} (reference: ${REPS_REF}) after a warm-up; one thread; per chunk: load row indices and coefficients, accumulate reading the shared rows in place`,
    machine: { cpu: cpus()[0]?.model ?? 'unknown', cores: cpus().length, node: process.version, loadavg1mBefore: loadBefore, loadavg1mAfter: loadavg()[0] },
    rows,
  };
  const at = (kind: string, B: number, key: 'wasmMevalPerS' | 'referenceMevalPerS') =>
    rows.filter((r) => r.kernel === kind && r.B === B).map((r) => [r.d as number, r[key] as number] as const);
  const svg = lineChartSvg({
    title: `Support-vector (exact-kernel) evaluation, one thread (E=${E}, chunks of ${S})`,
    xLabel: 'd (input dimension)',
    yLabel: 'Meval/s',
    logX: true,
    logY: true,
    series: [
      { name: 'wasm SIMD, rbf, B=256', points: at('rbf', 256, 'wasmMevalPerS') },
      { name: 'wasm SIMD, laplacian, B=256', points: at('laplacian', 256, 'wasmMevalPerS') },
      { name: 'wasm SIMD, rbf, B=4', points: at('rbf', 4, 'wasmMevalPerS') },
      { name: 'plain TypeScript reference, rbf, B=256', points: at('rbf', 256, 'referenceMevalPerS') },
    ],
  });
  const paths = writeBenchOutputs('sv-kernel', json, svg);
  process.stdout.write(
    markdownTable(
      rows.map((r) => ({
        kernel: r.kernel,
        d: r.d,
        B: r.B,
        'wasm Meval/s': r.wasmMevalPerS,
        'reference Meval/s': r.referenceMevalPerS,
        'wasm/reference': r.wasmOverReference,
        'work units': r.equivalentWork,
        'max rel diff': r.maxRelDiffVsReference,
      })),
      { digits: 3 },
    ),
  );
  process.stdout.write(`load average (1 min) ${loadBefore.toFixed(2)} → ${loadavg()[0].toFixed(2)}; wrote ${paths.json}${paths.svg ? ` and ${paths.svg}` : ''}\n`);
}

main();
