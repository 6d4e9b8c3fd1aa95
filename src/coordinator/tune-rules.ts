/**
 * The rules `tune` chooses by: how a round ranks its candidates (selection)
 * and what the final pick must do against the learner's defaults (guard).
 * Each learner may declare its own default of either (learners/spec.ts), chosen on
 * the whole quality benchmark, never per data set (docs/tuning.md).
 *
 * @example
 * tune({ learner: 'gkm', data: 'train.arrow' });                   // GKM's defaults: neighbourhood, one-se
 * tune({ learner: 'gkm', data: 'train.arrow', guard: 'cv' });      // the pick whenever it scores at least the defaults
 */

/** The selection rules of `tune`: `best` ranks each candidate by its own CV score, `neighbourhood` by the mean over its grid neighbours (grid-neighbourhood.ts). */
export const TUNE_SELECTIONS = ['best', 'neighbourhood'] as const;
/** A selection rule. */
export type TuneSelection = (typeof TUNE_SELECTIONS)[number];

/**
 * The guards `tune` puts between the search's pick and the defaults: `cv`
 * returns the pick unless the defaults score at least as well in CV; `one-se`
 * returns the defaults unless the pick beats them by more than one standard
 * error of the fold-by-fold differences.
 */
export const TUNE_GUARDS = ['cv', 'one-se'] as const;
/** A guard. */
export type TuneGuard = (typeof TUNE_GUARDS)[number];

/**
 * Labeled rows of a class per fold below which `tune` warns that its
 * cross-validation cannot tell settings apart: with fewer than 10 rows of a
 * class in each fold's validation rows the settings' scores differ mostly by
 * chance (an AUC on 10 positives has a standard error near 0.08), and the
 * pick may hold out worse than the defaults.
 */
export const FEW_PER_FOLD = 10;

/**
 * The warning for a class with fewer than {@link FEW_PER_FOLD} labeled rows
 * per fold over `k` folds, or undefined when every class has enough.
 * `counts` maps each class to its labeled rows, `name` names a class.
 *
 * @example
 * fewLabeledWarning(new Map([[-1, 190], [1, 10]]), 3, String);
 * // 'only 10 labeled rows of class 1 (3 or 4 in each of the 3 folds' validation rows): …'
 * fewLabeledWarning(new Map([[-1, 120], [1, 80]]), 3, String); // undefined
 */
export function fewLabeledWarning(counts: ReadonlyMap<number, number>, k: number, name: (c: number) => string): string | undefined {
  let fewest: [number, number] | undefined;
  for (const [c, n] of counts) if (fewest === undefined || n < fewest[1]) fewest = [c, n];
  if (fewest === undefined || fewest[1] >= FEW_PER_FOLD * k) return undefined;
  const [c, n] = fewest;
  const lo = Math.floor(n / k);
  const hi = Math.ceil(n / k);
  const perFold = lo === hi ? `${lo}` : `${lo} or ${hi}`;
  return (
    `only ${n} labeled rows of class ${name(c)} (${perFold} in each of the ${k} folds' validation rows): ` +
    `the settings' cross-validation scores then differ mostly by chance, and the pick can hold out worse than the defaults ` +
    `(docs/tuning.md, "Few labeled rows of a class"). Label more rows of that class if you can, and compare the pick with the defaults on held-out rows of your own`
  );
}
