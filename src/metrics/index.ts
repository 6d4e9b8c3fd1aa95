/**
 * Evaluation metrics: AUC, ordinal mean AUC, MAE, accuracy, F1; and the
 * mean, sample sd and median that summarise them over folds or seeds.
 * Every metric ignores rows whose label is NaN (unlabeled).
 */
export { auc, sortedWins, type AucOptions } from './auc.ts';
export {
  accuracy,
  confusionCounts,
  f1Score,
  type AccuracyOptions,
  type ConfusionCounts,
  type ConfusionOptions,
  type F1Options,
} from './classification.ts';
export { positivePredicate, type PositiveClass } from './labels.ts';
export { mean, median, sampleSd } from './summary.ts';
export { meanAbsoluteError, ordinalMeanAuc, type OrdinalAucOptions, type OrdinalAucResult } from './ordinal.ts';
