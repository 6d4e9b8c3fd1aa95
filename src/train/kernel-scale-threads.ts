/**
 * The default σ's kernel–target alignment scored on a run's threads: the
 * rungs σ₀·2^k are independent, so the calling thread and the pool's workers
 * each claim the next unscored rung from a shared counter (features/
 * kernel-alignment.ts `scoreNextRung`) until none is left. A rung's score is
 * the same bits on whichever thread, so σ — and the model — are those of
 * the one-thread choice ({@link defaultKernelScale}). Workers still starting
 * take no rung once this thread has claimed them all: the choice never waits
 * for a worker to start, only for rungs being scored.
 */
import { alignmentChoice, pairDistances, scoreNextRung, type SharedRungs } from '../features/kernel-alignment.ts';
import type { EvaluatorPool } from '../engine/pool.ts';
import type { WaitAsync } from '../engine/work-board.ts';
import type { Dataset } from '../data/dataset.ts';
import type { TrainingRows } from '../data/training-rows.ts';
import { alignmentSample, defaultKernelScale, DEFAULT_SIGMA_EXPONENTS, DEFAULT_SIGMA_MIN_GAIN, kernelNorm, kernelScaleChoice, type KernelScaleChoice } from './defaults.ts';

/**
 * {@link defaultKernelScale} of `data` (scaled training rows) with its rungs
 * scored on this thread and `pool`'s workers: the same choice, sooner on
 * many cores. Rejects if a worker fails while it scores a rung.
 *
 * @example
 * const choice = await defaultKernelScaleOn(pool, scaledRows, 'rbf'); // === defaultKernelScale(scaledRows, 'rbf')
 */
export async function defaultKernelScaleOn(pool: EvaluatorPool, data: Dataset | TrainingRows, kernel: 'rbf' | 'laplacian'): Promise<KernelScaleChoice> {
  const { X, y, n, d, sigma0 } = alignmentSample(data);
  if (n < 2) return defaultKernelScale(data, kernel);
  const dist = new SharedArrayBuffer(8 * ((n * (n - 1)) / 2));
  pairDistances(X, n, d, kernelNorm(kernel), new Float64Array(dist));
  const exponents = DEFAULT_SIGMA_EXPONENTS;
  const rungs: SharedRungs = {
    dist, y, n,
    sigmas: exponents.map((k) => sigma0 * 2 ** k),
    control: new SharedArrayBuffer(8),
    scores: new SharedArrayBuffer(8 * exponents.length),
  };
  const runs = pool.postEach('alignmentRungs', rungs);
  // A worker's failure after the last score is stored changes nothing here; before it, it is this call's.
  const failed = Promise.all(runs).then(() => new Promise<never>(() => {}));
  // Tasks still queued when the pool closes reject too: handled here, whether or not this call still waits.
  failed.catch(() => {});
  // This thread's share, one rung at a time, letting its event loop hand the task to workers as they start.
  while (scoreNextRung(rungs)) await new Promise((resolve) => setImmediate(resolve));
  const control = new Int32Array(rungs.control);
  for (;;) {
    const scored = Atomics.load(control, 1);
    if (scored >= exponents.length) break;
    const w = (Atomics as unknown as { waitAsync: WaitAsync }).waitAsync(control, 1, scored);
    if (w.async) await Promise.race([w.value, failed]);
  }
  const chosen = alignmentChoice(Array.from(new Float64Array(rungs.scores)), exponents, sigma0, n, DEFAULT_SIGMA_MIN_GAIN);
  return kernelScaleChoice(chosen, sigma0);
}
