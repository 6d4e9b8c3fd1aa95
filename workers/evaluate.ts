/**
 * The Piscina worker: evaluates chunks of a shared coefficient history —
 * random-feature blocks or support-vector entries — at shared points and
 * writes per-chunk partial sums into shared memory, or adds new blocks to the
 * values cached at a share of the training rows (row-cache.ts). It regenerates (or reads
 * from the shared store) the frequencies of its blocks, or maps the shared
 * training rows once; it knows nothing about losses or the training loop.
 */
import { ChunkRunner, type EngineTask } from '../src/engine/chunk-runner.ts';

const runner = new ChunkRunner();

/**
 * Piscina entry point: runs one {@link EngineTask} (chunks of either kind of
 * history, or blocks into cached rows); returns the chunks (or rows) done.
 *
 * @example
 * await pool.run(task); // 4
 */
export default function evaluateChunks(task: EngineTask): number {
  return runner.run(task);
}
