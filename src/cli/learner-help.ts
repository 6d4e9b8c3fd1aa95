/**
 * `dsgkit train --learner X --help`: the commands that take `--learner` show
 * X's options only (its parameters, and the loop's step options only when X
 * runs on the loop) instead of every learner's.
 */
import { LEARNERS } from '../api.ts';

/**
 * The learner named by `--learner X` (or `--learner=X`) on the line, as a
 * one-element list; every learner when none (or an unknown one) is named.
 *
 * @example
 * learnersOnLine(['--learner', 'gkm', '--help']).map((l) => l.name); // ['gkm']
 */
export function learnersOnLine(argv: readonly string[]): typeof LEARNERS {
  let name: string | undefined;
  argv.forEach((a, i) => {
    if (a === '--learner') name = argv[i + 1];
    else if (a.startsWith('--learner=')) name = a.slice('--learner='.length);
  });
  const spec = LEARNERS.find((l) => l.name === name);
  return spec ? [spec] : LEARNERS;
}
