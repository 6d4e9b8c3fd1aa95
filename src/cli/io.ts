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

/**
 * The process's own standard output, error and input.
 *
 * @example
 * await main(['describe', 'data/spam.arrow'], processIO());
 */
export function processIO(): CliIO {
  return { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin };
}
