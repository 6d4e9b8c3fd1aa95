/**
 * Where a command reads and writes: results to `stdout`, messages to
 * `stderr`, and `stdin` for an input given as `-`. Passing other streams lets
 * tests (or a host program) run the CLI in-process.
 */
import { DataError } from '../errors.ts';
export interface Sink {
  /** Text (results, messages) or bytes (`predict --out - --format arrow`). */
  write(chunk: string | Uint8Array): unknown;
}

/** The output sinks of a command, and the input read for `-`. */
export interface CliIO {
  stdout: Sink;
  stderr: Sink;
  /** Read when an input is given as `-` (default: the process's stdin). */
  stdin?: NodeJS.ReadableStream;
}

let guarded = false;

/**
 * The process's own standard output, error and input. A reader that goes away
 * (`dsgkit describe x.arrow | head -1`, a closed terminal) is not an error of
 * the command: from the first `EPIPE` on, what would go to that stream is
 * dropped, and the command finishes its work (files it writes are still
 * written) with its own exit code.
 *
 * @example
 * await main(['describe', 'data/spam.arrow'], processIO());
 */
export function processIO(): CliIO {
  if (!guarded) {
    guarded = true;
    for (const stream of [process.stdout, process.stderr]) guardClosedReader(stream);
  }
  return { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin };
}

/**
 * The DataError for a write to standard output that failed (not a closed
 * reader): `stdout: cannot write (ENOSPC: no space left on device); the output is incomplete`.
 *
 * @example
 * throw outputIncomplete(err);
 */
export function outputIncomplete(err: NodeJS.ErrnoException): DataError {
  const why = err.code !== undefined ? `${err.code}${err.message.includes(':') ? `: ${err.message.split(':')[1].split(',')[0].trim()}` : ''}` : err.message;
  return new DataError(`cannot write to standard output (${why}); the output is incomplete`, { file: 'stdout' }, { cause: err });
}

/** The first write error of standard output other than a closed reader (a full disk, an I/O error), once there was one. */
let outputFailure: NodeJS.ErrnoException | undefined;

/**
 * The write error that cut standard output short (`dsgkit describe x.arrow >
 * /dev/full`: ENOSPC), if there was one: the command's output is incomplete,
 * so its exit code is 1 whatever the command returned.
 *
 * @example
 * const code = await main(argv);
 * return stdoutFailure() && code === 0 ? 1 : code;
 */
export function stdoutFailure(): NodeJS.ErrnoException | undefined {
  return outputFailure;
}

/**
 * Makes writes to `stream` no-ops once its reader is gone (EPIPE), instead of
 * an unhandled 'error' event. Another write error (ENOSPC on a full disk, EIO)
 * also drops what follows; for stdout it is recorded ({@link stdoutFailure})
 * for `runCli` to say, with exit code 1: the output is incomplete.
 *
 * @example
 * guardClosedReader(process.stdout);
 */
export function guardClosedReader(stream: NodeJS.WriteStream): void {
  let closed = false;
  const write = stream.write.bind(stream) as (...args: unknown[]) => boolean;
  stream.on('error', (err: NodeJS.ErrnoException) => {
    closed = true;
    if (err.code === 'EPIPE' || err.code === 'ERR_STREAM_DESTROYED') return;
    if (stream === process.stdout) outputFailure ??= err;
  });
  (stream as { write: (...args: unknown[]) => boolean }).write = (...args: unknown[]) => {
    if (closed || stream.destroyed) {
      const cb = args.find((a) => typeof a === 'function') as (() => void) | undefined;
      cb?.();
      return true;
    }
    return write(...args);
  };
}
