/**
 * Ctrl-C and `kill` for the `dsgkit` process: every terminating signal Node
 * lets a program catch — SIGINT, SIGTERM, SIGHUP (terminal or SSH closed),
 * SIGQUIT, SIGUSR2, SIGALRM, SIGVTALRM, SIGXCPU, SIGXFSZ, SIGPWR —
 * removes every temporary file being written (so no hidden `.NAME.tmp-…` file
 * is left), says on stderr what was cancelled, and exits 128 + the signal's
 * number (130 for SIGINT, 143 for SIGTERM, 129 for SIGHUP). (SIGUSR1 starts
 * Node's inspector, SIGPROF drives its CPU profiler (`--cpu-prof`), and
 * SIGPIPE is ignored by Node: a closed stdout is handled in `io.ts`.)
 * While training runs, a first SIGINT is left to `interrupt.ts`, which stops
 * the run at the next iteration (nothing is written; exit 130).
 *
 * Installed only by the real entry point ({@link runWithSignals}); a host
 * program calling `main` keeps its own signal handling.
 */
import { removePendingTempFiles } from '../data/atomic.ts';
import { releaseBlockedOpens } from '../data/open-input.ts';
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

/** Exit code for a run ended by `signal`: 128 + its number (Linux numbering). */
export const SIGNAL_EXIT_CODES = {
  SIGHUP: 129,
  SIGINT: 130,
  SIGQUIT: 131,
  SIGUSR2: 140,
  SIGALRM: 142,
  SIGTERM: 143,
  SIGXCPU: 152,
  SIGXFSZ: 153,
  SIGVTALRM: 154,
  SIGPWR: 158,
} as const;

type CaughtSignal = keyof typeof SIGNAL_EXIT_CODES;

/** The signals listened for: those of {@link SIGNAL_EXIT_CODES} this platform has. */
const CAUGHT = (Object.keys(SIGNAL_EXIT_CODES) as CaughtSignal[]).filter((s) => process.platform !== 'win32' || s === 'SIGINT' || s === 'SIGTERM' || s === 'SIGHUP');

/**
 * Listens for the terminating signals while `work` runs (see the module comment).
 * `what` names the run in the message, e.g. `generate`.
 *
 * @example
 * process.exitCode = await runWithSignals('generate', process.stderr, () => main(argv));
 */
export async function runWithSignals<T>(what: string, stderr: Sink, work: () => Promise<T>): Promise<T> {
  const onSignal = (signal: CaughtSignal) => {
    if ((takenOver > 0 && (signal === 'SIGINT' || signal === 'SIGTERM')) || (signal === 'SIGINT' && trainingIsInterruptible())) return;
    const cancelled = removePendingTempFiles();
    removeStdinCopies();
    releaseBlockedOpens();
    const detail = cancelled.length > 0 ? `; nothing written to ${cancelled.join(', ')} (its unfinished temporary file was removed)` : '';
    try {
      // SIGHUP and SIGPIPE often mean nobody reads stderr any more: the exit must not depend on this write.
      stderr.write(`\ndsgkit: ${what} cancelled by ${signal}${detail}\n`);
    } catch {
      // stderr closed
    }
    process.exit(SIGNAL_EXIT_CODES[signal]);
  };
  for (const s of CAUGHT) process.on(s, onSignal);
  try {
    return await work();
  } finally {
    for (const s of CAUGHT) process.removeListener(s, onSignal);
  }
}
