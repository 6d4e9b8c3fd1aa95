/**
 * The thread behind `solveExactCancellable` (src/learners/exact.ts): solves
 * one exact problem, given as `workerData`, and posts the coefficients back
 * (transferred), or the error's message. The caller terminates it on Ctrl-C:
 * the O(n³) solve is one synchronous call that nothing inside can interrupt.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { solveExact, type ExactProblem } from '../src/learners/exact.ts';

try {
  const c = solveExact(workerData as ExactProblem);
  parentPort!.postMessage({ c }, [c.buffer as ArrayBuffer]);
} catch (err) {
  parentPort!.postMessage({ error: err instanceof Error ? err.message : String(err) });
}
