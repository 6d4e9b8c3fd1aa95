/**
 * The worker pool that evaluates history chunks: a thin wrapper over Piscina
 * that finds the worker entry point both in the compiled package (`dist/`) and
 * when running from TypeScript sources (tests, `tsx`), and turns a dead or
 * throwing worker into a rejected promise, never a hang.
 */
import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import { pathToFileURL } from 'node:url';
import { Piscina } from 'piscina';
import type { EvalTask } from './chunk-runner.ts';

/**
 * Default number of evaluation threads: the cores Node reports as available.
 *
 * @example
 * defaultThreads(); // 2 on this machine, 56 on the big one
 */
export function defaultThreads(): number {
  return availableParallelism();
}

/** Worker entry point next to this module, in the same flavour (.ts or .js) as this module. */
function workerLocation(): { filename: string; execArgv: string[] } {
  const fromSource = import.meta.url.endsWith('.ts');
  const filename = new URL(`../../workers/evaluate.${fromSource ? 'ts' : 'js'}`, import.meta.url).href;
  // From sources the worker needs tsx's loader (a dev dependency); resolve it here so the
  // worker does not depend on the cwd. (`import.meta.resolve` is not available under vitest.)
  const execArgv = fromSource ? ['--import', pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href] : [];
  return { filename, execArgv };
}

/**
 * A fixed-size pool of evaluation threads.
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

  constructor(threads: number) {
    if (!Number.isInteger(threads) || threads < 1) throw new RangeError(`threads must be a positive integer, got ${threads}`);
    this.threads = threads;
    const { filename, execArgv } = workerLocation();
    this.piscina = new Piscina({
      filename,
      execArgv,
      minThreads: threads,
      maxThreads: threads,
      concurrentTasksPerWorker: 1,
      idleTimeout: 60_000,
    });
  }

  /**
   * Runs one evaluation task on some worker; rejects if the worker throws or dies.
   *
   * @example
   * const chunksDone = await pool.run(task);
   */
  async run(task: EvalTask): Promise<number> {
    if (this.closed) throw new Error('evaluation pool is closed');
    try {
      return (await this.piscina.run(task)) as number;
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
