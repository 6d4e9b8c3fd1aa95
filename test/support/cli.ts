import { main } from '../../src/cli/main.ts';

/** What one in-process CLI run returned and printed. */
export interface CliRun {
  readonly code: number;
  readonly out: string;
  readonly err: string;
}

/**
 * Runs the dsgkit command line in-process with `argv`, capturing what it
 * writes; `onErr` sees each stderr write and everything written so far (to
 * act mid-run, e.g. interrupt once progress shows).
 *
 * @example
 * const r = await runCli(['describe', 'data/spam.arrow']);
 * expect(r.code).toBe(0);
 */
export async function runCli(argv: readonly string[], onErr?: (chunk: string, all: string) => void): Promise<CliRun> {
  let out = '';
  let err = '';
  const code = await main([...argv], {
    stdout: { write: (s: string) => ((out += s), true) },
    stderr: { write: (s: string) => ((err += s), onErr?.(s, err), true) },
  });
  return { code, out, err };
}
