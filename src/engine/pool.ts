/**
 * The worker pool that evaluates history chunks: a thin wrapper over Piscina
 * (entry point found by worker-location.ts, from `dist/` or from TypeScript
 * sources) that turns a dead or throwing worker into a rejected promise, never
 * a hang. Engine calls go through a session (pool-session.ts): the workers
 * stay in a loop on a shared work board between calls, so a call costs no
 * message round trip; the session ends after {@link SESSION_IDLE_MS} without
 * a call (idle workers then let the process exit), and a later call starts
 * another.
 */
import type { ResourceLimits } from 'node:worker_threads';
import { Piscina } from 'piscina';
import type { ChunkRunner, EngineTask, TaskReport } from './chunk-runner.ts';
import { PoolSession, type CallReport } from './pool-session.ts';
import { workerLocation } from './worker-location.ts';
import { availableCores } from './cores.ts';

/**
 * Flags for the pool's workers that turn Node's require(esm) off where Node
 * has it (20.19 and later): Piscina's worker first `require()`s the task file
 * and falls back to `import()`, and our task file is an ES module. Through
 * require(esm) it is instantiated synchronously, and a worker terminated in
 * that moment (a run cancelled as its pool starts) brought the whole process
 * down (`FATAL ERROR: v8::Module::IsGraphAsync … must be used on an
 * instantiated module`, about 1 run in 100 of examples/off-thread.mjs).
 * Without it the `require()` fails at once and the file loads through
 * `import()`, which a termination stops cleanly.
 */
export const NO_REQUIRE_ESM: readonly string[] = process.allowedNodeEnvironmentFlags.has('--experimental-require-module') ? ['--no-experimental-require-module'] : [];

/** A session with no call for this long ends (its workers leave their loop and become idle Piscina workers). */
export const SESSION_IDLE_MS = 250;

/**
 * Default number of evaluation threads: the cores this process may keep busy
 * ({@link availableCores}: its CPU affinity, capped by a cgroup CPU quota).
 *
 * @example
 * defaultThreads(); // 2 on this machine, 56 on the big one
 */
export function defaultThreads(): number {
  return availableCores();
}

/** Tasks every pool of this thread has completed (a worker's part of a call counts as one): how tests prove a run used the workers. */
let tasksCompleted = 0;

/**
 * Evaluation tasks completed by worker pools created on this thread, since it
 * started: a worker that computed part of a call counts one for that call.
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
  /** The workers' loop on a shared board, while calls come. */
  private session: PoolSession | undefined;
  /** Whether a call is in progress (a failure then goes to it). */
  private inCall = false;
  /** Calls and session changes, one after another. */
  private queue: Promise<unknown> = Promise.resolve();
  private idleTimer: ReturnType<typeof setTimeout> | undefined;

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
      execArgv: [...execArgv, ...NO_REQUIRE_ESM],
      minThreads: threads,
      maxThreads: threads,
      concurrentTasksPerWorker: 1,
      idleTimeout: 60_000,
      ...(opts.resourceLimits ? { resourceLimits: opts.resourceLimits } : {}),
    });
    // Piscina reports such a failure as an 'error' event, which would otherwise be an uncaught exception.
    this.piscina.on('error', (err: unknown) => {
      const error = err instanceof Error ? err : new Error(String(err));
      // During a call the session may be waiting on a worker that will never come: fail the call.
      if (this.inCall && this.session) this.session.fail(error);
      else this.idleFailure ??= error;
    });
  }

  /** Runs `job` after every call and session change queued before it. */
  private serial<T>(job: () => Promise<T>): Promise<T> {
    const result = this.queue.then(job);
    this.queue = result.catch(() => undefined);
    return result;
  }

  /** Throws (once) the failure of a worker that died without a task. */
  private reportIdleFailure(): void {
    const idle = this.idleFailure;
    if (idle !== undefined) {
      this.idleFailure = undefined;
      throw new Error(`evaluation worker failed between tasks: ${idle.message}`, { cause: idle });
    }
  }

  /**
   * One engine call on the calling thread and every worker: `task`'s range
   * (chunks or rows) cut into units of `grain` and split into `runs` runs (the
   * calling thread's run computed with `runner`), each thread then taking the
   * units others have not reached (work-board.ts); `meanwhile`, the calling
   * thread's own work, runs once the workers have the call (see
   * `PoolSession.call`). Resolves when all are done with what the workers
   * did; rejects if a worker throws or dies.
   *
   * @example
   * const { workerUnits } = await pool.call(task, 1, pool.threads + 1, runner);
   */
  call(task: EngineTask, grain: number, runs: number, runner: ChunkRunner, meanwhile?: () => void): Promise<CallReport> {
    return this.serial(async () => {
      if (this.closed) throw new Error('evaluation pool is closed');
      this.reportIdleFailure();
      const session = (this.session ??= this.startSession());
      this.inCall = true;
      try {
        const report = await session.call(task, grain, runs, runner, meanwhile);
        tasksCompleted += report.workersUsed;
        this.idleTimer?.refresh();
        return report;
      } catch (err) {
        // The session is unusable after a failure (a worker's or this thread's): end it; the next call starts another.
        this.session = undefined;
        await session.end();
        // This thread's own error (its share of the task failed) is reported as it is.
        const failed = session.error;
        if (failed === undefined || err !== failed) throw err;
        throw new Error(`evaluation worker failed: ${failed.message}`, { cause: failed });
      } finally {
        this.inCall = false;
      }
    });
  }

  private startSession(): PoolSession {
    // Spinning pays where every thread (the calling one too) has a core of its own; elsewhere it would steal one.
    const session = new PoolSession(this.piscina, this.threads, this.threads + 1 <= availableCores());
    clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => {
      // A call in progress (e.g. the first, waiting for the workers to start) is not idleness.
      if (this.inCall) this.idleTimer?.refresh();
      else void this.serial(() => this.endSession());
    }, SESSION_IDLE_MS);
    this.idleTimer.unref();
    return session;
  }

  private async endSession(): Promise<void> {
    clearTimeout(this.idleTimer);
    const session = this.session;
    this.session = undefined;
    await session?.end();
  }

  /**
   * Runs one task (history chunks, or blocks into cached rows) on some worker
   * and resolves to its report; rejects if the worker throws or dies.
   *
   * @example
   * const { units } = await pool.run(task); // chunks (or rows) done
   */
  run(task: EngineTask): Promise<TaskReport> {
    return this.serial(async () => {
      if (this.closed) throw new Error('evaluation pool is closed');
      this.reportIdleFailure();
      // A session holds every worker: end it first.
      await this.endSession();
      try {
        const report = (await this.piscina.run(task)) as TaskReport;
        tasksCompleted++;
        return report;
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err);
        throw new Error(`evaluation worker failed: ${message}`, { cause: err });
      }
    });
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
    await this.serial(() => this.endSession());
    await this.piscina.destroy();
  }
}
