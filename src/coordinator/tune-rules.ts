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

/** A fold's labels under each minority share's cut: rows labeled right, and rows labeled otherwise than under the first share's. */
export interface ShareCounts {
  readonly right: readonly number[];
  readonly changed: readonly number[];
}

/**
 * The class-share cut's minority share `tune` refits with, as an index into
 * the shares tried (in order of preference, `MINORITY_SHARES`: the first is
 * the labeled rows' class shares), from the winner's labels on its validation
 * folds. A share other than the first is taken only when, summed over the
 * folds, it labels more rows right than the first by more than the square
 * root of the rows whose label it changes: were the two cuts equally good,
 * each changed row would be right under either with probability ½, and
 * the gain would have that standard deviation (the sign test on the changed
 * rows, McNemar's). Among those that pass, the most rows right (a tie keeps
 * the earlier). Returns the index and every share's pooled accuracy.
 *
 * @example
 * // 300 validation rows; half the share gains 6 rows changing 50 (√50 ≈ 7.1: not enough), none gains 20 changing 60.
 * chooseMinorityShare([{ right: [250, 256, 270], changed: [0, 50, 60] }], 300); // { index: 2, accuracies: [0.8333, 0.8533, 0.9] }
 */
export function chooseMinorityShare(folds: ReadonlyArray<ShareCounts | undefined>, rows: number): { index: number; accuracies: number[] } {
  const count = folds[0]?.right.length ?? 0;
  const sum = (key: keyof ShareCounts, s: number) => folds.reduce((a, fold) => {
    if (!fold) throw new Error('chooseMinorityShare: a fold without its share counts');
    return a + fold[key][s];
  }, 0);
  const right = Array.from({ length: count }, (_, s) => sum('right', s));
  let index = 0;
  for (let s = 1; s < count; s++) if (right[s] - right[0] > Math.sqrt(sum('changed', s)) && right[s] > right[index]) index = s;
  return { index, accuracies: right.map((r) => r / rows) };
}
