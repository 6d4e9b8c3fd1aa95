/** The text of a run's profile (`train --profile`, `scaling --profile`). */
import { PHASES, type ProfileReport } from '../api.ts';

const LABELS: Record<(typeof PHASES)[number] | 'other', string> = {
  sampling: 'sampling',
  evaluation: 'evaluation (calling thread)',
  workers: 'dispatch + wait for workers',
  weights: 'weights + bias',
  newBlock: 'new block',
  shrinkAppend: 'shrink + append',
  validation: 'validation',
  other: 'other',
};

/**
 * The profile as lines: the loop's wall time, each phase's time and share,
 * each worker's busy fraction, and the loop efficiency with what it is made of.
 *
 * @example
 * io.stderr.write(formatProfile(report));
 * // profile: loop 3.21 s on 2 threads, 400 iterations
 * //   sampling                      0.041 s   1.3%
 * //   …
 */
export function formatProfile(r: ProfileReport): string {
  const s = (ms: number) => `${(ms / 1000).toFixed(3)} s`;
  const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
  const lines = [`profile: loop ${s(r.wallMs)} on ${r.threads} thread${r.threads === 1 ? '' : 's'}, ${r.iterations} iterations (${(r.iterations / (r.wallMs / 1000)).toFixed(1)} it/s)`];
  for (const phase of [...PHASES, 'other'] as const) {
    const ms = r.phases[phase];
    lines.push(`  ${LABELS[phase].padEnd(30)}${s(ms).padStart(10)}  ${pct(ms / r.wallMs).padStart(6)}`);
  }
  for (const w of r.workers) lines.push(`  worker thread ${String(w.thread).padEnd(16)}${s(w.busyMs).padStart(10)}  ${pct(w.busyFraction).padStart(6)} busy`);
  lines.push(
    `  kernel: ${r.pointBlocks.toExponential(3)} point-blocks at ${r.kernelRate.toExponential(3)}/s on one thread = ${s(r.kernelMs)}`,
    `  loop efficiency ${r.loopEfficiency.toFixed(3)} (kernel time / (wall × ${r.threads} thread${r.threads === 1 ? '' : 's'}))`,
  );
  return lines.join('\n') + '\n';
}
