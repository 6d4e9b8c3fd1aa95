/**
 * The worker pool that evaluates history chunks: a thin wrapper over Piscina
 * (entry point found by worker-location.ts, from `dist/` or from TypeScript
 * sources) that turns a dead or throwing worker into a rejected promise, never
 * a hang.
 */
import { availableParallelism } from 'node:os';
import type { ResourceLimits } from 'node:worker_threads';
import { Piscina } from 'piscina';
import type { EngineTask, TaskReport } from './chunk-runner.ts';
import { workerLocation } from './worker-location.ts';

/**
 * Default number of evaluation threads: the cores Node reports as available.
 *
 * @example
 * defaultThreads(); // 2 on this machine, 56 on the big one
 */
export function defaultThreads(): number {
  return availableParallelism();
}

/** Tasks every pool of this thread has completed: how tests prove a run used the workers. */
let tasksCompleted = 0;

/**
 * Evaluation tasks completed by worker pools created on this thread, since it started.
 *
 * @example
 * const before = poolTasksCompleted();
 * await train({ learner, data, threads: 2, parallelMinWork: 0 });
 * poolTasksCompleted() > before; // true: the workers computed chunks
 */
export function poolTasksCompleted(): number {
  return tasksCompleted;
}

/**
 * A fixed-size pool of evaluation worker threads. An evaluator that uses a
 * pool of `k` workers computes on `k + 1` threads: the calling thread takes a
 * share too.
 *
 * @example
 * const pool = new EvaluatorPool(4);
 * await pool.run(task);
 * await pool.close();
 */
export class EvaluatorPool {
  readonly threads: number;
  private readonly piscina: Piscina;
  private closed = false;
  /** A worker that failed while it had no task (it died starting up, or idle): the next run reports it. */
  private idleFailure: Error | undefined;

  /**
   * @param threads worker threads (the evaluator's calling thread comes on top)
   * @param opts.resourceLimits per-worker V8 limits (e.g. `{ maxOldGenerationSizeMb: 512 }`);
   *   a worker that exceeds them dies and the call that was running on it rejects.
   */
  constructor(threads: number, opts: { resourceLimits?: ResourceLimits } = {}) {
    if (!Number.isInteger(threads) || threads < 1) throw new RangeError(`threads must be a positive integer, got ${threads}`);
    this.threads = threads;
    const { url, execArgv } = workerLocation('evaluate');
    this.piscina = new Piscina({
      filename: url.href,
      execArgv,
      minThreads: threads,
      maxThreads: threads,
      concurrentTasksPerWorker: 1,
      idleTimeout: 60_000,
      ...(opts.resourceLimits ? { resourceLimits: opts.resourceLimits } : {}),
    });
    // Piscina reports such a failure as an 'error' event, which would otherwise be an uncaught exception.
    this.piscina.on('error', (err: unknown) => {
      this.idleFailure ??= err instanceof Error ? err : new Error(String(err));
    });
  }

  /**
   * Runs one task (history chunks, or blocks into cached rows) on some worker
   * and resolves to its report; rejects if the worker throws or dies.
   *
   * @example
   * const { units } = await pool.run(task); // chunks (or rows) done
   */
  async run(task: EngineTask): Promise<TaskReport> {
    if (this.closed) throw new Error('evaluation pool is closed');
    const idle = this.idleFailure;
    if (idle !== undefined) {
      this.idleFailure = undefined;
      throw new Error(`evaluation worker failed between tasks: ${idle.message}`, { cause: idle });
    }
    try {
      const report = (await this.piscina.run(task)) as TaskReport;
      tasksCompleted++;
      return report;
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      throw new Error(`evaluation worker failed: ${message}`, { cause: err });
    }
  }

  /**
   * Stops every worker; pending tasks reject. Safe to call twice.
   *
   * @example
   * await pool.close();
   */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.piscina.destroy();
  }
}
