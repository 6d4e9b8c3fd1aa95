/**
 * The Piscina worker: evaluates chunks of a shared coefficient history —
 * random-feature blocks or support-vector entries — at shared points and
 * writes per-chunk partial sums into shared memory. It regenerates (or reads
 * from the shared store) the frequencies of its blocks, or maps the shared
 * training rows once; it knows nothing about losses or the training loop.
 */
import { ChunkRunner, type EvalTask } from '../src/engine/chunk-runner.ts';

const runner = new ChunkRunner();

/**
 * Piscina entry point: runs one {@link EvalTask} (either kind of history); returns the number of chunks done.
 *
 * @example
 * await pool.run(task); // 4
 */
export default function evaluateChunks(task: EvalTask): number {
  runner.run(task);
  return task.chunkTo - task.chunkFrom;
}
