/**
 * Kernel benchmark: dsgkit's WebAssembly SIMD random-feature kernel against
 * the native ceiling (`../shared/bench/rff_native.c`, built and run in the same
 * invocation) and against the plain-TypeScript reference, at M = 128
 * features per block, B = 256 points, T = 200 blocks, one thread.
 *
 * Throughput is Mfeat/s = B·T·m / seconds / 1e6 (a "feature" is one
 * (point, frequency) pair: dot product, cos, sin, two multiply-adds), best of
 * 5 runs after a warm-up. The frequencies of all T blocks are generated up
 * front and copied into the kernel's `omega()` view block by block, as the
 * engine's cache path does (regeneration excluded).
 *
 * On a shared machine one timing can land in a busy second and the other in
 * a quiet one, so the run goes in ROUNDS rounds (default 3), each timing the
 * native ceiling and ours at every d back to back; a d's ratio is the median
 * of its rounds' ratios (each round's are in the JSON). With CLOCK=cpu both
 * sides are timed in CPU time instead of wall time (ours: the process's, the
 * C: its thread's, by building `rff_native.c` here with its clock swapped),
 * which time-slicing on a busy machine does not inflate.
 *
 * Writes bench/results/kernel.json and kernel.svg (kernel-cpu.* with CLOCK=cpu);
 * prints a Markdown table.
 *
 * @example
 * // npm run bench:kernel                (d = 8, 28, 128, 784)
 * // npx tsx bench/kernel.ts 8 64        (other dimensions)
 * // ROUNDS=5 npm run bench:kernel
 * // CLOCK=cpu npm run bench:kernel      (CPU time on both sides)
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import seedrandom from 'seedrandom';
import { RffKernel } from '../src/engine/kernel.ts';
import { referenceAccumulate } from '../src/engine/reference-kernel.ts';
import { median } from '../src/metrics/summary.ts';
import { lineChartSvg, markdownTable, writeBenchOutputs } from './lib/index.ts';

const M = 128;
const B = 256;
const T = 200;
const REPS = 5;
const ROUNDS = Number(process.env.ROUNDS ?? 3);
const CPU_CLOCK = process.env.CLOCK === 'cpu';
/** The reference is ~20× slower: fewer blocks (same per-block shape), best of 3. */
const T_REF = 20;
const REPS_REF = 3;

const repo = fileURLToPath(new URL('..', import.meta.url));
const ceilingScript = resolve(repo, '../shared/bench/native-ceiling');

interface NativeLine {
  d: number;
  m: number;
  B: number;
  T: number;
  mfeat_per_s: number;
  checksum: number;
}

/** Builds and runs the native ceiling for the given dimensions. */
/**
 * Built into rff_native.c ahead of its own code (gcc -include) for CLOCK=cpu:
 * its timer reads the thread's CPU clock instead of the monotonic one.
 */
const THREAD_CLOCK_SHIM = `#include <time.h>
static int dsg_thread_clock(clockid_t c, struct timespec *t) { (void)c; return clock_gettime(CLOCK_THREAD_CPUTIME_ID, t); }
#define clock_gettime(c, t) dsg_thread_clock(c, t)
`;
let cpuCeilingBinary: string | undefined;

/** The native ceiling timed in thread CPU time: rff_native.c built once with THREAD_CLOCK_SHIM, then run per d. */
function nativeCeilingCpu(dims: number[]): Map<number, NativeLine> {
  if (cpuCeilingBinary === undefined) {
    const source = resolve(repo, '../shared/bench/rff_native.c');
    if (!existsSync(source)) throw new Error(`bench:kernel: native ceiling source not found at ${source}`);
    const dir = mkdtempSync(join(tmpdir(), 'dsgkit-ceiling-'));
    writeFileSync(join(dir, 'thread-clock.h'), THREAD_CLOCK_SHIM);
    const bin = join(dir, 'rff_native');
    try {
      execFileSync('gcc', ['-O3', '-march=native', '-ffast-math', '-fopenmp-simd', '-include', join(dir, 'thread-clock.h'), source, '-o', bin, '-lm'], { stdio: ['ignore', 'pipe', 'pipe'] });
    } catch (err) {
      const e = err as { stderr?: Buffer; message: string };
      throw new Error(`bench:kernel: building ${source} failed (needs gcc): ${e.stderr?.toString() || e.message}`);
    }
    cpuCeilingBinary = bin;
  }
  const bin = cpuCeilingBinary;
  return new Map(dims.map((d) => [d, JSON.parse(execFileSync(bin, [d, M, B, T].map(String), { encoding: 'utf8' }).trim()) as NativeLine]));
}

function nativeCeiling(dims: number[]): Map<number, NativeLine> {
  if (CPU_CLOCK) return nativeCeilingCpu(dims);
  if (!existsSync(ceilingScript)) {
    throw new Error(`bench:kernel: native ceiling not found at ${ceilingScript} (expected /work/shared/bench/native-ceiling beside the repository)`);
  }
  let text: string;
  try {
    text = execFileSync('bash', [ceilingScript, ...dims.map(String)], {
      encoding: 'utf8',
      env: { ...process.env, M: String(M), B: String(B), T: String(T) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
  } catch (err) {
    const e = err as { stderr?: string; message: string };
    throw new Error(`bench:kernel: ${ceilingScript} failed (needs gcc): ${e.stderr || e.message}`);
  }
  const lines = text
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as NativeLine);
  return new Map(lines.map((l) => [l.d, l]));
}

interface Problem {
  d: number;
  X: Float64Array; // B×d
  omegaT: Float64Array; // T blocks of d×M, transposed
  alpha: Float64Array; // T blocks of 2M
}

/** Same distributions as rff_native.c: x ~ U[0,1), ω and a ~ U[-½,½). */
function problem(d: number): Problem {
  const rng = seedrandom(`bench-kernel-${d}`);
  const u = (n: number, shift: number) => new Float64Array(n).map(() => rng() - shift);
  return { d, X: u(B * d, 0), omegaT: u(T * d * M, 0.5), alpha: u(T * 2 * M, 0.5) };
}

/** Seconds: wall time, or the process's CPU time with CLOCK=cpu. */
function now(): number {
  if (!CPU_CLOCK) return performance.now() / 1000;
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
}

function bestOf(reps: number, run: () => void): number {
  let best = Infinity;
  for (let r = 0; r < reps; r++) {
    const t0 = now();
    run();
    best = Math.min(best, now() - t0);
  }
  return best;
}

/** Seconds for T blocks of accumulate over B points (best of REPS), and the result. */
function timeOurs(kernel: RffKernel, pr: Problem): { seconds: number; out: Float64Array; projectSeconds: number } {
  const { d } = pr;
  kernel.reserve(B, d, M);
  kernel.points().set(pr.X);
  const omega = kernel.omega();
  const alpha = kernel.alpha();
  const blockW = d * M;
  const pass = () => {
    kernel.clearOut(B);
    for (let t = 0; t < T; t++) {
      omega.set(pr.omegaT.subarray(t * blockW, (t + 1) * blockW));
      alpha.set(pr.alpha.subarray(t * 2 * M, (t + 1) * 2 * M));
      kernel.accumulate(B);
    }
  };
  pass(); // warm-up (lets V8 tier the wasm up)
  const seconds = bestOf(REPS, pass);
  const out = kernel.out().slice(0, B);
  kernel.weights().set(pr.X.subarray(0, B)); // any weights
  const projectPass = () => {
    for (let t = 0; t < T; t++) {
      omega.set(pr.omegaT.subarray(t * blockW, (t + 1) * blockW));
      kernel.project(B);
    }
  };
  projectPass();
  const projectSeconds = bestOf(REPS, projectPass);
  return { seconds, out, projectSeconds };
}

function timeReference(pr: Problem): { seconds: number; out: Float64Array } {
  const { d } = pr;
  const out = new Float64Array(B);
  const pass = () => {
    out.fill(0);
    for (let t = 0; t < T_REF; t++) {
      referenceAccumulate(pr.X, B, d, pr.omegaT.subarray(t * d * M), pr.alpha.subarray(t * 2 * M), M, out);
    }
  };
  pass();
  return { seconds: bestOf(REPS_REF, pass), out };
}

/** Max |ours − reference| over points, relative to Σ|a| over the blocks compared. */
function agreement(kernel: RffKernel, pr: Problem, reference: Float64Array): number {
  const { d } = pr;
  kernel.reserve(B, d, M);
  kernel.points().set(pr.X);
  kernel.clearOut(B);
  let scale = 0;
  for (let t = 0; t < T_REF; t++) {
    kernel.omega().set(pr.omegaT.subarray(t * d * M, (t + 1) * d * M));
    kernel.alpha().set(pr.alpha.subarray(t * 2 * M, (t + 1) * 2 * M));
    kernel.accumulate(B);
    for (let i = 0; i < 2 * M; i++) scale += Math.abs(pr.alpha[t * 2 * M + i]);
  }
  const out = kernel.out();
  let worst = 0;
  for (let p = 0; p < B; p++) worst = Math.max(worst, Math.abs(out[p] - reference[p]) / scale);
  return worst;
}

function main(): void {
  const dims = process.argv.slice(2).map(Number);
  if (dims.length === 0) dims.push(8, 28, 128, 784);
  if (dims.some((d) => !Number.isInteger(d) || d < 1)) throw new Error(`bench:kernel: dimensions must be positive integers, got ${process.argv.slice(2).join(' ')}`);
  if (!Number.isInteger(ROUNDS) || ROUNDS < 1) throw new Error(`bench:kernel: ROUNDS must be a positive integer, got ${process.env.ROUNDS}`);
  const loadBefore = loadavg()[0];
  const kernel = RffKernel.create();
  const problems = new Map(dims.map((d) => [d, problem(d)]));
  const rounds = new Map(dims.map((d) => [d, [] as { native: number; ours: number; project: number }[]]));
  for (let r = 0; r < ROUNDS; r++) {
    for (const d of dims) {
      const nat = nativeCeiling([d]).get(d);
      if (!nat) throw new Error(`bench:kernel: the native ceiling printed no result for d=${d}`);
      const ours = timeOurs(kernel, problems.get(d)!);
      rounds.get(d)!.push({ native: nat.mfeat_per_s, ours: (B * T * M) / ours.seconds / 1e6, project: (B * T * M) / ours.projectSeconds / 1e6 });
    }
  }
  const rows = [];
  for (const d of dims) {
    const pr = problems.get(d)!;
    const rs = rounds.get(d)!;
    const ref = timeReference(pr);
    const refMfeat = (B * T_REF * M) / ref.seconds / 1e6;
    const nativeMfeat = median(rs.map((x) => x.native));
    rows.push({
      d,
      nativeMfeatPerS: nativeMfeat,
      wasmMfeatPerS: median(rs.map((x) => x.ours)),
      ratio: median(rs.map((x) => x.ours / x.native)),
      roundRatios: rs.map((x) => x.ours / x.native),
      referenceMfeatPerS: refMfeat,
      referenceRatio: refMfeat / nativeMfeat,
      projectMfeatPerS: median(rs.map((x) => x.project)),
      maxRelDiffVsReference: agreement(kernel, pr, ref.out),
    });
  }
  const json = {
    shape: { m: M, B, T, tReference: T_REF },
    method: `best of ${REPS} (reference: ${REPS_REF}) after a warm-up; one thread; ω pre-generated and copied into omega() per block; ${ROUNDS} rounds of native then ours at each d, medians (ratio: median of the rounds' ratios); clock: ${CPU_CLOCK ? 'CPU time (ours: the process; native: its thread)' : 'wall'}`,
    machine: { cpu: cpus()[0]?.model ?? 'unknown', cores: cpus().length, node: process.version, loadavg1mBefore: loadBefore, loadavg1mAfter: loadavg()[0] },
    rows,
  };
  const svg = lineChartSvg({
    title: `Random-feature kernel, one thread (m=${M}, B=${B})`,
    xLabel: 'd (input dimension)',
    yLabel: 'Mfeat/s',
    logX: true,
    logY: true,
    series: [
      { name: 'native C ceiling (gcc -O3 -march=native)', points: rows.map((r) => [r.d, r.nativeMfeatPerS] as const) },
      { name: 'dsgkit wasm SIMD kernel', points: rows.map((r) => [r.d, r.wasmMfeatPerS] as const) },
      { name: 'plain TypeScript reference', points: rows.map((r) => [r.d, r.referenceMfeatPerS] as const) },
    ],
  });
  const paths = writeBenchOutputs(CPU_CLOCK ? 'kernel-cpu' : 'kernel', json, svg);
  process.stdout.write(
    markdownTable(
      rows.map((r) => ({
        d: r.d,
        'native Mfeat/s': r.nativeMfeatPerS,
        'ours Mfeat/s': r.wasmMfeatPerS,
        ratio: r.ratio,
        'round ratios': r.roundRatios.map((x) => x.toFixed(2)).join(' '),
        'reference ratio': r.referenceRatio,
        'project Mfeat/s': r.projectMfeatPerS,
      })),
      { digits: 3 },
    ),
  );
  process.stdout.write(`load average (1 min) ${loadBefore.toFixed(2)} → ${loadavg()[0].toFixed(2)}; wrote ${paths.json}${paths.svg ? ` and ${paths.svg}` : ''}\n`);
}

main();
