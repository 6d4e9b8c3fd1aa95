/**
 * The Piscina worker: evaluates chunks of a shared coefficient history at
 * shared points and writes per-chunk partial sums into shared memory. It
 * regenerates (or caches) the frequencies of its own chunks; it knows nothing
 * about losses or the training loop.
 */
import { ChunkRunner, type EvalTask } from '../src/engine/chunk-runner.ts';

const runner = new ChunkRunner();

/**
 * Piscina entry point: runs one {@link EvalTask}; returns the number of chunks done.
 *
 * @example
 * await pool.run(task); // 4
 */
export default function evaluateChunks(task: EvalTask): number {
  runner.run(task);
  return task.chunkTo - task.chunkFrom;
}
