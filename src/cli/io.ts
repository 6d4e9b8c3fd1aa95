/**
 * Where a command reads and writes: results to `stdout`, messages to
 * `stderr`, and `stdin` for an input given as `-`. Passing other streams lets
 * tests (or a host program) run the CLI in-process.
 */
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
 * Makes writes to `stream` no-ops once its reader is gone (EPIPE), instead of
 * an unhandled 'error' event. Other write errors are re-raised as before.
 *
 * @example
 * guardClosedReader(process.stdout);
 */
export function guardClosedReader(stream: NodeJS.WriteStream): void {
  let closed = false;
  const write = stream.write.bind(stream) as (...args: unknown[]) => boolean;
  stream.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE' || err.code === 'ERR_STREAM_DESTROYED') {
      closed = true;
      return;
    }
    throw err;
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
