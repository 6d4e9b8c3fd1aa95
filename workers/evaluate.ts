/**
 * The Piscina worker: evaluates chunks of a shared coefficient history —
 * random-feature blocks or support-vector entries — at shared points and
 * writes per-chunk partial sums into shared memory, or adds new blocks to the
 * values cached at a share of the training rows (row-cache.ts). It regenerates (or reads
 * from the shared store) the frequencies of its blocks, or maps the shared
 * training rows once; it knows nothing about losses or the training loop.
 *
 * It takes either one task, or a long-running serve task: a loop over a
 * shared work board (work-board.ts) that takes the units of call after call
 * until the pool's session ends.
 */
import { threadId } from 'node:worker_threads';
import { ChunkRunner, type EngineTask, type TaskReport } from '../src/engine/chunk-runner.ts';
import { serveBoard, type ServeTask } from '../src/engine/work-board.ts';

const runner = new ChunkRunner();

/**
 * Piscina entry point: runs one {@link EngineTask} (chunks of either kind of
 * history, or blocks into cached rows) and reports the chunks (or rows) done,
 * this thread, and the time it took (what `--profile` shows as busy); or
 * serves a work board until it stops and reports the calls it took part in.
 *
 * @example
 * await pool.run(task); // { units: 4, thread: 3, busyMs: 0.8 }
 */
export default function evaluateChunks(task: EngineTask | ServeTask): TaskReport | { calls: number } {
  if ('serve' in task) return serveBoard(task, runner, threadId);
  const t0 = performance.now();
  const units = runner.run(task);
  return { units, thread: threadId, busyMs: performance.now() - t0 };
}
