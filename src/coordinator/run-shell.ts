/**
 * The shell every iterative fit runs in — the shared loop, FRS3VM's SGD and
 * the graph kernel machine: it lets the event loop run now and then (so a
 * cancel message from another thread, a timer or a signal handler is seen),
 * stops a cancelled run with a {@link CancelledError}, keeps the validation
 * trace and reports progress. One place for each, so a change to
 * cancellation or progress lands in every learner at once.
 *
 * @example
 * const shell = new RunShell(T, { onProgress, signal, validation });
 * for (let t = 1; t <= T; t++) {
 *   await shell.enter(t);
 *   step(t);
 *   if (shell.validates(t)) shell.score(t, fAtValidationRows);
 *   shell.leave(t);
 * }
 */
import { CancelledError } from '../errors.ts';

/** Progress of a run, reported after every iteration (callers throttle as they like). */
export interface Progress {
  /** Iterations done. */
  readonly t: number;
  readonly T: number;
  readonly elapsedMs: number;
  /** Latest validation metric, once one has been computed. */
  readonly metric?: { readonly name: string; readonly value: number; readonly t: number };
}

/**
 * A held-out set scored every `every` iterations (default: T/20 of the run,
 * for learners that find their iteration count from the data) from values
 * kept up to date incrementally.
 */
export interface Validation {
  readonly X: Float64Array;
  readonly nPoints: number;
  readonly every?: number;
  readonly name: string;
  /** Metric from `f` at the validation points. */
  readonly metric: (f: Float64Array) => number;
}

/** The hooks a run shell serves. */
export interface ShellHooks {
  readonly onProgress?: (p: Progress) => void;
  readonly signal?: AbortSignal;
  readonly validation?: Validation;
}

/** How often (ms) a run lets the event loop run, so cancel messages and progress reach their listeners. */
const YIELD_EVERY_MS = 25;

/**
 * A function that lets the event loop run (one `setImmediate`) when more than
 * {@link YIELD_EVERY_MS} ms have passed since it last did: a serial run never
 * leaves the microtask queue on its own, and an abort sent from another thread
 * (the Comlink handle) or a timer must be seen.
 *
 * @example
 * const breathe = eventLoopYielder();
 * for (let t = 1; t <= T; t++) { await breathe(); … }
 */
function eventLoopYielder(): () => Promise<void> {
  let last = performance.now();
  return async () => {
    if (performance.now() - last > YIELD_EVERY_MS) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      last = performance.now();
    }
  };
}

/** The yield / cancel / validation / progress shell of one run to T (see the module comment). */
export class RunShell {
  /** Validation metric trace `[t, value]`. */
  readonly trace: Array<[number, number]> = [];
  private metric: Progress['metric'];
  private readonly breathe = eventLoopYielder();
  private readonly start = performance.now();

  /** `unit` names the iterations in the cancel message (`iterations`, `SGD steps`). */
  constructor(
    readonly T: number,
    private readonly hooks: ShellHooks,
    private readonly unit = 'iterations',
  ) {}

  /** Before iteration t: lets the event loop run when due, then stops a cancelled run. */
  async enter(t: number): Promise<void> {
    await this.breathe();
    if (this.hooks.signal?.aborted) throw new CancelledError(`training cancelled after ${t - 1} of ${this.T} ${this.unit}`);
  }

  /** Whether iteration t scores the validation set (every `every` iterations, and the last). */
  validates(t: number): boolean {
    const val = this.hooks.validation;
    return val !== undefined && (t % (val.every ?? Math.max(1, Math.floor(this.T / 20))) === 0 || t === this.T);
  }

  /** Scores the validation set at `f` (its values at the validation rows) for iteration t. */
  score(t: number, f: Float64Array): void {
    const val = this.hooks.validation!;
    const value = val.metric(f);
    this.trace.push([t, value]);
    this.metric = { name: val.name, value, t };
  }

  /** After iteration t: reports progress. */
  leave(t: number): void {
    this.hooks.onProgress?.({ t, T: this.T, elapsedMs: this.elapsedMs(), ...(this.metric ? { metric: this.metric } : {}) });
  }

  /** Milliseconds since the shell was made. */
  elapsedMs(): number {
    return performance.now() - this.start;
  }
}
