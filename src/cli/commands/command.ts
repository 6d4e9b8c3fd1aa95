/**
 * The shape of one CLI subcommand. Each lives in its own module and is
 * registered in `./index.ts`.
 */
import type { CliIO } from '../io.ts';

/** One `dsgkit <name>` subcommand. */
export interface Command {
  /** The word after `dsgkit`. */
  name: string;
  /** One line for the command list in `dsgkit --help`. */
  summary: string;
  /** Full help: what it does, every option with its default, an example. */
  help: string;
  /**
   * Help narrowed by the rest of the line, when the command has such a form
   * (`dsgkit train --learner gkm --help` lists gkm's options only).
   */
  helpFor?(argv: readonly string[]): string;
  /**
   * Runs with the arguments after the command name; resolves to the exit code.
   * Throws UsageError (exit 2) or DataError (exit 1); `main` prints them.
   */
  run(argv: readonly string[], io: CliIO): Promise<number>;
}
