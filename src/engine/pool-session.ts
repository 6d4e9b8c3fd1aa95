/**
 * A pool session: every worker of a Piscina pool running one long task that
 * serves a {@link WorkBoard}, so that an engine call costs a few writes to
 * shared memory and one `Atomics.notify` instead of a message round trip per
 * worker. Piscina still owns the workers: it starts them, applies their
 * resource limits, and rejects a serve task whose worker throws or dies —
 * which rejects the call in progress (nothing waits forever).
 */
import { MessageChannel, type MessagePort } from 'node:worker_threads';
import type { Piscina } from 'piscina';
import type { ChunkRunner, EngineTask } from './chunk-runner.ts';
import { taskRange } from './chunk-runner.ts';
import { splitTask, WorkBoard, type ServeTask, type TaskTemplate } from './work-board.ts';

/** What the workers did in one call. */
export interface CallReport {
  /** Units of the range (chunks or rows) the workers computed. */
  readonly workerUnits: number;
  /** Workers that computed at least one unit. */
  readonly workersUsed: number;
  /** Milliseconds the calling thread computed in this call (its run and the units it took from others). */
  readonly callerMs: number;
  /** Milliseconds the calling thread spent on its own work while the workers had the call (`meanwhile`). */
  readonly meanwhileMs: number;
  /** Per worker: its thread id and the milliseconds it computed in this call. */
  readonly busy: ReadonlyArray<{ readonly thread: number; readonly busyMs: number }>;
}

/**
 * One session of a pool's workers on a board (see the module comment).
 *
 * @example
 * const session = new PoolSession(piscina, 3);
 * const report = await session.call(task, 1, 4, runner); // 4 runs: the calling thread + 3 workers
 * await session.end();
 */
export class PoolSession {
  readonly board: WorkBoard;
  /** Rejects when a worker's serve task fails (it threw or died); never resolves. */
  readonly failure: Promise<never>;
  private readonly ports: MessagePort[] = [];
  private readonly served: Array<Promise<unknown>> = [];
  private failed: Error | undefined;
  private readonly reject: (err: Error) => void;
  private template: { version: number; shape: Record<string, unknown>; keys: string[] } | undefined;
  /** Calls published so far. */
  private calls = 0;
  /** Per worker slot, its totals at the end of the last call. */
  private readonly last: Array<{ done: number; busyMs: number }>;

  /** `spin`: the board's threads check for a while before they sleep (see `WorkBoard.create`). */
  constructor(piscina: Piscina, workers: number, spin = false) {
    this.board = WorkBoard.create(workers + 1, spin);
    this.last = Array.from({ length: workers + 1 }, () => ({ done: 0, busyMs: 0 }));
    let reject: (err: Error) => void = () => undefined;
    this.failure = new Promise<never>((_, r) => (reject = r));
    this.failure.catch(() => undefined);
    this.reject = reject;
    for (let k = 1; k <= workers; k++) {
      const { port1, port2 } = new MessageChannel();
      this.ports.push(port1);
      const task: ServeTask = { serve: { board: this.board.buffer, threads: workers + 1, index: k, port: port2 } };
      const served = piscina.run(task, { transferList: [port2] });
      served.catch((err: unknown) => {
        this.fail(err instanceof Error ? err : new Error(String(err)));
      });
      this.served.push(served);
    }
  }

  /** The first failure of a worker in this session, if any. */
  get error(): Error | undefined {
    return this.failed;
  }

  /**
   * Fails the session from outside (the pool reported a worker that died
   * outside any task): the call in progress rejects with `err`.
   *
   * @example
   * session.fail(err);
   */
  fail(err: Error): void {
    this.failed ??= err;
    this.reject(this.failed);
  }

  /**
   * Runs one call: publishes `task` cut into units of `grain` (chunks or
   * rows) and split into `runs` runs, computes the calling thread's share
   * with `runner` (then takes units left by slower threads), and resolves when
   * every unit is done. In the session's first call every worker computes at
   * least its first unit; later, a worker that has not started by the time
   * the calling thread runs out of work is not waited for. `meanwhile`: the
   * calling thread's own work that needs nothing of this call, run after the
   * call is published and before the calling thread takes units (the workers
   * start without it, and take its run's units if it is slow). Rejects if a
   * worker fails; the session is then unusable (end it).
   *
   * @example
   * const { workerUnits } = await session.call(task, 1, 2, runner, () => sampleNextBatch());
   */
  async call(task: EngineTask, grain: number, runs: number, runner: ChunkRunner, meanwhile?: () => void): Promise<CallReport> {
    if (this.failed) throw this.failed;
    const { shape, keys, values } = splitTask(task);
    const prev = this.template;
    const same = prev !== undefined && prev.keys.length === keys.length && prev.keys.every((k, i) => k === keys[i]) &&
      Object.keys(shape).length === Object.keys(prev.shape).length && Object.keys(shape).every((k) => shape[k] === prev.shape[k]);
    if (!same) {
      this.template = { version: (prev?.version ?? 0) + 1, shape, keys };
      const message: TaskTemplate = this.template;
      for (const port of this.ports) port.postMessage(message);
    }
    const board = this.board;
    // The session's first call leaves each worker its first unit however late it starts: every worker is then known to serve.
    const call = board.publish(this.template!.version, values, taskRange(task), grain, runs, this.calls++ === 0);
    const m0 = performance.now();
    meanwhile?.();
    const meanwhileMs = performance.now() - m0;
    const { busyMs: callerMs } = board.work(call, 0, () => runner.begin(task, board.home(call, 0)));
    await board.whenDone(call.units, this.failure);
    if (this.failed) throw this.failed;
    let workerUnits = 0;
    let workersUsed = 0;
    const busy: Array<{ thread: number; busyMs: number }> = [];
    for (let k = 1; k < this.last.length; k++) {
      const now = board.totals(k);
      const done = now.done - this.last[k].done;
      const busyMs = now.busyMs - this.last[k].busyMs;
      this.last[k] = { done: now.done, busyMs: now.busyMs };
      workerUnits += done;
      if (done > 0) workersUsed++;
      if (done > 0 || busyMs > 0) busy.push({ thread: now.thread, busyMs });
    }
    return { workerUnits, workersUsed, callerMs, meanwhileMs, busy };
  }

  /**
   * Ends the session: every worker leaves its loop (after the unit it is
   * computing) and its serve task completes; resolves when every worker that
   * started serving has left. A serve task that never started (its worker
   * died first) is not waited for: if a worker ever takes it, it finds the
   * board stopped and returns at once.
   *
   * @example
   * await session.end();
   */
  async end(): Promise<void> {
    this.board.stop();
    await Promise.allSettled(this.served.filter((_, i) => this.board.totals(i + 1).thread !== 0));
    for (const port of this.ports) port.close();
  }
}
