/**
 * `dsgkit train --learner X --help`: the commands that take `--learner` show
 * X's options only (its parameters, and the loop's step options only when X
 * runs on the loop) instead of every learner's; and a mistyped learner name
 * gets the nearest ones suggested.
 */
import { LEARNER_NAMES, LEARNERS, learnerSpec as apiLearnerSpec } from '../api.ts';
import { didYouMean } from './suggest.ts';

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

/**
 * The learner called `name` (see `learnerSpec`); an unknown name is a
 * UsageError that also suggests the nearest learner names.
 *
 * @example
 * cliLearnerSpec('qsg-s2uac', '--learner'); // UsageError "… (did you mean 'qsg-s2auc'?)"
 */
export function cliLearnerSpec(name: unknown, option: string): ReturnType<typeof apiLearnerSpec> {
  try {
    return apiLearnerSpec(name, option);
  } catch (err) {
    if (typeof name === 'string' && err instanceof Error && err.name === 'UsageError') {
      const hint = didYouMean(name, LEARNER_NAMES);
      if (hint !== '') err.message = `${option}: unknown learner '${name}'${hint}; expected one of ${LEARNER_NAMES.join(', ')}`;
    }
    throw err;
  }
}
