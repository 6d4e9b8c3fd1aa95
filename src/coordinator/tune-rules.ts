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

/**
 * The class-share cut's minority share `tune` refits with: the one of
 * `shares` (in order of preference, `MINORITY_SHARES`) whose accuracy over
 * the winner's folds, weighted by fold size, is highest; a tie keeps the
 * earlier. `foldAccuracies[j][s]` is fold j's accuracy at `shares[s]`.
 * Returns the index and every share's accuracy.
 *
 * @example
 * chooseMinorityShare([[0.85, 0.9, 0.9], [0.85, 0.85, 0.9]], [20, 20]); // { index: 2, accuracies: [0.85, 0.875, 0.9] }
 * chooseMinorityShare([[0.9, 0.8, 0.5]], [40]);                             // { index: 0, accuracies: [0.9, 0.8, 0.5] }
 */
export function chooseMinorityShare(foldAccuracies: readonly (readonly number[])[], sizes: readonly number[]): { index: number; accuracies: number[] } {
  const total = sizes.reduce((a, b) => a + b, 0);
  const count = foldAccuracies[0]?.length ?? 0;
  // Rows labeled right, summed as whole numbers: equal accuracies tie exactly.
  const right = Array.from({ length: count }, (_, s) => foldAccuracies.reduce((a, fold, j) => a + Math.round(fold[s] * sizes[j]), 0));
  let index = 0;
  for (let s = 1; s < count; s++) if (right[s] > right[index]) index = s;
  return { index, accuracies: right.map((r) => r / total) };
}
