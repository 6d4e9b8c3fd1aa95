/**
 * Where a command writes: results to `stdout`, messages to `stderr`. Passing
 * other sinks lets tests (or a host program) run the CLI in-process.
 */
export interface Sink {
  write(text: string): unknown;
}

/** The two output sinks of a command. */
export interface CliIO {
  stdout: Sink;
  stderr: Sink;
}

/**
 * The process's own standard output and error.
 *
 * @example
 * await main(['describe', 'data/spam.arrow'], processIO());
 */
export function processIO(): CliIO {
  return { stdout: process.stdout, stderr: process.stderr };
}
