/**
 * Ctrl-C and `kill` for the `dsgkit` process: SIGINT and SIGTERM remove every
 * temporary file being written (so no hidden `.NAME.tmp-…` file is left),
 * say on stderr what was cancelled, and exit 130 (SIGINT) or 143 (SIGTERM).
 * While training runs, a first SIGINT is left to `interrupt.ts`, which stops
 * the run at the next iteration (nothing is written; exit 130).
 *
 * Installed only by the real entry point ({@link runWithSignals}); a host
 * program calling `main` keeps its own signal handling.
 */
import { removePendingTempFiles } from '../data/atomic.ts';
import { trainingIsInterruptible } from './interrupt.ts';
import { removeStdinCopies } from './stdin.ts';
import type { Sink } from './io.ts';

/** How many commands answer SIGINT and SIGTERM themselves ({@link takeOverSignals}). */
let takenOver = 0;

/**
 * For a long-running command with its own shutdown (`dsgkit worker`): until
 * the returned function is called, SIGINT and SIGTERM are left to the
 * command's own listeners.
 *
 * @example
 * const release = takeOverSignals();
 * try { await serveUntilSigterm(); } finally { release(); }
 */
export function takeOverSignals(): () => void {
  takenOver++;
  let released = false;
  return () => {
    if (!released) takenOver--;
    released = true;
  };
}

/** Exit code for a run ended by `signal`: 128 + its number. */
export const SIGNAL_EXIT_CODES = { SIGINT: 130, SIGTERM: 143 } as const;

/**
 * Listens for SIGINT and SIGTERM while `work` runs (see the module comment).
 * `what` names the run in the message, e.g. `generate`.
 *
 * @example
 * process.exitCode = await runWithSignals('generate', process.stderr, () => main(argv));
 */
export async function runWithSignals<T>(what: string, stderr: Sink, work: () => Promise<T>): Promise<T> {
  const onSignal = (signal: keyof typeof SIGNAL_EXIT_CODES) => {
    if (takenOver > 0 || (signal === 'SIGINT' && trainingIsInterruptible())) return;
    const cancelled = removePendingTempFiles();
    removeStdinCopies();
    const detail = cancelled.length > 0 ? `; nothing written to ${cancelled.join(', ')} (its unfinished temporary file was removed)` : '';
    stderr.write(`\ndsgkit: ${what} cancelled by ${signal}${detail}\n`);
    process.exit(SIGNAL_EXIT_CODES[signal]);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    return await work();
  } finally {
    process.removeListener('SIGINT', onSignal);
    process.removeListener('SIGTERM', onSignal);
  }
}
