/**
 * The one table of subcommands. To add one: write `./<name>.ts` exporting a
 * {@link Command} and add one line here.
 */
import type { Command } from './command.ts';
import { bin } from './bin.ts';
import { convert } from './convert.ts';
import { describe } from './describe.ts';
import { generate } from './generate.ts';
import { split } from './split.ts';
import { trainCommand } from './train.ts';
import { predict } from './predict.ts';
import { evaluate } from './evaluate.ts';
import { compare } from './compare.ts';
import { tuneCommand } from './tune.ts';
import { scalingCommand } from './scaling.ts';
import { workerCommand } from './worker.ts';

export type { Command } from './command.ts';

/** Every subcommand, in the order `dsgkit --help` lists them. */
export const COMMANDS: readonly Command[] = [
  convert,
  bin,
  split,
  describe,
  generate,
  trainCommand,
  predict,
  evaluate,
  compare,
  tuneCommand,
  scalingCommand,
  workerCommand,
];

/**
 * The command called `name`, if any.
 *
 * @example
 * findCommand('convert')?.summary; // 'LIBSVM or CSV → Arrow (checks every value)'
 */
export function findCommand(name: string): Command | undefined {
  return COMMANDS.find((c) => c.name === name);
}
