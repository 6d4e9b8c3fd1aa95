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
