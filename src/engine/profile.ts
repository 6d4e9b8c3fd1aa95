/**
 * Where a training run's time goes (`train --profile`): wall time per phase
 * of the loop on the calling thread, each pool worker's busy time, the
 * point-blocks of random features the run evaluated, and the loop efficiency —
 * the time one thread's kernel would need for those point-blocks (at its rate
 * measured on this machine) over wall time × threads. Recording never changes
 * a result; a run without a profile records nothing.
 */
import { RffKernel } from './kernel.ts';
import { kernelBlockWidth, type FeatureFamily } from '../features/spectral.ts';

/** The phases of the loop on the calling thread. */
export const PHASES = ['sampling', 'evaluation', 'workers', 'weights', 'newBlock', 'shrinkAppend', 'validation'] as const;
export type Phase = (typeof PHASES)[number];

/** What each phase holds, for reports. */
export const PHASE_DOCS: Readonly<Record<Phase, string>> = {
  sampling: 'drawing the batch',
  evaluation: 'f at the batch on the calling thread (its share of the kernel, the reduction, the row cache)',
  workers: 'dispatching to the pool and waiting for it beyond the calling thread\'s share',
  weights: 'the learner\'s weights and bias',
  newBlock: 'projecting the batch onto the new block',
  shrinkAppend: 'shrinking the history and appending the block',
  validation: 'updating and scoring the validation set',
};

/** A worker's share of a run. */
export interface WorkerBusy {
  /** The worker's thread id. */
  readonly thread: number;
  readonly busyMs: number;
  /** Busy time over the loop's wall time. */
  readonly busyFraction: number;
}

/** A finished run's profile. */
export interface ProfileReport {
  /** Wall time of the loop, ms. */
  readonly wallMs: number;
  readonly threads: number;
  readonly iterations: number;
  /** Calling-thread wall time per phase, ms (the rest of `wallMs` is `other`). */
  readonly phases: Readonly<Record<Phase | 'other', number>>;
  readonly workers: readonly WorkerBusy[];
  /** One block's random features at one point, evaluated (`f` at batches or cached rows, new blocks, validation). */
  readonly pointBlocks: number;
  /** Point-blocks per second of one thread's kernel, measured on this machine for the run's d and m. */
  readonly kernelRate: number;
  /** `pointBlocks / kernelRate`, ms: what the kernel alone needs on one thread. */
  readonly kernelMs: number;
  /** `kernelMs / (wallMs × threads)`. */
  readonly loopEfficiency: number;
}

/**
 * Accumulates a run's profile; the loop and the evaluator record into it.
 *
 * @example
 * const profile = new RunProfile();
 * const t0 = performance.now(); learner.sample(rng); profile.add('sampling', performance.now() - t0);
 * profile.report(wallMs, threads, T, measureKernelRate(d, m));
 */
export class RunProfile {
  private readonly phases = Object.fromEntries(PHASES.map((p) => [p, 0])) as Record<Phase, number>;
  private readonly busy = new Map<number, number>();
  /** Point-blocks evaluated so far. */
  pointBlocks = 0;

  /**
   * Adds `ms` to a phase.
   *
   * @example
   * profile.add('sampling', 0.02);
   */
  add(phase: Phase, ms: number): void {
    this.phases[phase] += ms;
  }

  /** Time recorded in a phase so far, ms. */
  phase(phase: Phase): number {
    return this.phases[phase];
  }

  /**
   * Adds a task's busy time to its worker.
   *
   * @example
   * profile.worker(report.thread, report.busyMs);
   */
  worker(thread: number, busyMs: number): void {
    this.busy.set(thread, (this.busy.get(thread) ?? 0) + busyMs);
  }

  /**
   * The report of a run of `wallMs` on `threads` threads, given one thread's kernel rate (point-blocks per second).
   *
   * @example
   * const r = profile.report(1200, 2, 400, measureKernelRate(9, 64)); // r.loopEfficiency ≈ 0.8
   */
  report(wallMs: number, threads: number, iterations: number, kernelRate: number): ProfileReport {
    const recorded = PHASES.reduce((s, p) => s + this.phases[p], 0);
    const kernelMs = (1000 * this.pointBlocks) / kernelRate;
    return {
      wallMs,
      threads,
      iterations,
      phases: { ...this.phases, other: Math.max(0, wallMs - recorded) },
      workers: [...this.busy].sort(([a], [b]) => a - b).map(([thread, busyMs]) => ({ thread, busyMs, busyFraction: busyMs / wallMs })),
      pointBlocks: this.pointBlocks,
      kernelRate,
      kernelMs,
      loopEfficiency: kernelMs / (wallMs * threads),
    };
  }
}

/**
 * One thread's kernel rate for points of dimension `d` and blocks of `m`
 * features, in point-blocks per second: `accumulate` over 256 points, block
 * after block (fresh frequencies and coefficients each, as the engine loads
 * them), after a warm-up; the best of 5 rounds of `minMs / 5` each, so that a
 * round in which the thread was descheduled (a busy machine) does not count.
 * The points are `sample` (row-major, d a row: the run's own rows, whose
 * zeros the kernel skips) repeated to 256, or dense made-up values without it.
 *
 * @example
 * measureKernelRate(9, 64); // ≈ 1.5e6 on the 2-core development machine
 */
export function measureKernelRate(d: number, m: number, minMs = 150, family: FeatureFamily = 'gaussian', sample?: Float64Array): number {
  const P = 256;
  const kernel = RffKernel.create();
  kernel.reserve(P, d, m, family);
  const width = kernelBlockWidth(d, m, family);
  const points = kernel.points();
  const rows = sample !== undefined ? Math.floor(sample.length / d) : 0;
  if (rows > 0) for (let p = 0; p < P; p++) points.set(sample!.subarray((p % rows) * d, ((p % rows) + 1) * d), p * d);
  else for (let i = 0; i < P * d; i++) points[i] = ((i * 7919) % 1000) / 1000;
  const blocks = 8;
  const omegas = Array.from({ length: blocks }, (_, b) => Float64Array.from({ length: width }, (_, i) => Math.sin(1 + b * 31 + i) * 2));
  const alphas = Array.from({ length: blocks }, (_, b) => Float64Array.from({ length: 2 * m }, (_, i) => Math.cos(b + i) * 0.1));
  const omega = kernel.omega();
  const alpha = kernel.alpha();
  kernel.clearOut(P);
  const step = (): void => {
    for (let b = 0; b < blocks; b++) {
      omega.set(omegas[b]);
      alpha.set(alphas[b]);
      kernel.accumulate(P);
    }
  };
  for (let w = 0; w < 4; w++) step();
  let best = 0;
  for (let round = 0; round < 5; round++) {
    let done = 0;
    const t0 = performance.now();
    let elapsed = 0;
    while (elapsed < minMs / 5) {
      step();
      done += blocks * P;
      elapsed = performance.now() - t0;
    }
    best = Math.max(best, (1000 * done) / elapsed);
  }
  return best;
}

/**
 * The timing marks of a run that may be profiled: free when it is not (every
 * mark is 0 and nothing is booked), so the loop's body carries no branches
 * for it.
 *
 * @example
 * const clock = new PhaseClock(profile);   // profile: RunProfile | undefined
 * const t0 = clock.now(); sample(); clock.add('sampling', clock.now() - t0);
 */
export class PhaseClock {
  constructor(private readonly profile: RunProfile | undefined) {}

  /** Now, ms (0 when not profiling). */
  now(): number {
    return this.profile ? performance.now() : 0;
  }

  /** Adds `ms` to a phase. */
  add(phase: Phase, ms: number): void {
    this.profile?.add(phase, ms);
  }

  /** Time booked as waiting for the workers so far (0 when not profiling). */
  waited(): number {
    return this.profile?.phase('workers') ?? 0;
  }

  /**
   * Books the time since `from` as the calling thread's evaluation, less the
   * wait for the workers since `waited` was read and `otherMs` spent on other work meanwhile.
   */
  evaluation(from: number, waited: number, otherMs = 0): void {
    if (this.profile) this.profile.add('evaluation', this.now() - from - (this.profile.phase('workers') - waited) - otherMs);
  }
}

