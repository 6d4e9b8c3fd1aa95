/**
 * Ctrl-C while a command trains: the first SIGINT aborts the run through an
 * AbortSignal (training stops at the next iteration, nothing is written, the
 * command exits 130); a second SIGINT quits at once.
 *
 * The handler listens on `process` only while training runs, so it also
 * answers `process.emit('SIGINT')` — which is how the tests cancel a run in
 * process, through the very path a real Ctrl-C takes.
 */

/** How many {@link interruptible} runs are under way (they answer SIGINT themselves). */
let running = 0;

/**
 * True while training runs under {@link interruptible}: a first SIGINT then
 * cancels it gracefully, and the process-wide handler (`signals.ts`) leaves
 * that SIGINT alone.
 *
 * @example
 * if (sig === 'SIGINT' && trainingIsInterruptible()) return;
 */
export function trainingIsInterruptible(): boolean {
  return running > 0;
}

/** What {@link interruptible} hands to the guarded work. */
export interface Interrupt {
  /** Aborted on the first SIGINT. */
  readonly signal: AbortSignal;
}

/**
 * Runs `work` with a signal that SIGINT aborts; the listener is removed when
 * `work` settles. A second SIGINT during the same run exits the process with
 * code 130 (the user insisted; workers may be mid-call).
 *
 * @example
 * const model = await interruptible(({ signal }) => train({ learner, data, signal }));
 */
export async function interruptible<T>(work: (interrupt: Interrupt) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  const onSigint = () => {
    if (controller.signal.aborted) process.exit(130);
    controller.abort();
  };
  process.on('SIGINT', onSigint);
  running++;
  try {
    return await work({ signal: controller.signal });
  } finally {
    running--;
    process.removeListener('SIGINT', onSigint);
  }
}
