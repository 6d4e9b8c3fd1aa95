/**
 * The options that say how a data file is read, shared by the data commands
 * (`convert`, `describe`, `split`): `--label`, `--classes`, and for LIBSVM
 * `--features` and `--max-features`.
 */
import type { ReadDatasetOptions } from '../data/index.ts';
import { UsageError } from '../errors.ts';
import { intOption, type OptionSpecs, type ParsedArgs } from './args.ts';

/** parseArgs specs of the read options. */
export const READ_OPTION_SPECS: OptionSpecs = {
  label: { type: 'string' },
  classes: { type: 'string' },
  features: { type: 'string' },
  'max-features': { type: 'string' },
};

/**
 * Help lines of the read options, aligned like the commands' own.
 *
 * @example
 * const help = `Options:\n${readOptionsHelp()}`;
 */
export function readOptionsHelp(): string {
  return `  --label <name>       name of the label column (default: label). For CSV/Arrow
                       input it selects the column; for LIBSVM it names it.
  --classes <a,b,…>    read the labels as these class names, in this order (a
                       label not in the list is an error). Without it, labels
                       that are not numbers (CSV cells, Arrow strings) are read
                       as class names in sorted order.
  --features <n>       LIBSVM only: number of features (default: largest index
                       in the file). Use it so train and test files agree.
  --max-features <n>   LIBSVM only: largest feature index accepted when
                       --features is not given (default and most: 1000000)`;
}

/**
 * The read options given on the command line, as {@link ReadDatasetOptions}.
 *
 * @example
 * const ds = await readDataset(input, parseReadOptions(values));
 */
export function parseReadOptions(values: ParsedArgs['values']): ReadDatasetOptions {
  const features = intOption(values, 'features', { min: 1 });
  const maxFeatures = intOption(values, 'max-features', { min: 1 });
  let classes: string[] | undefined;
  if (typeof values.classes === 'string') {
    classes = values.classes.split(',').map((c) => c.trim());
    if (classes.length < 2 || classes.some((c) => c === '')) throw new UsageError(`--classes must list at least two non-empty class names separated by commas, got '${values.classes}'`);
    if (new Set(classes).size !== classes.length) throw new UsageError(`--classes lists a class twice: '${values.classes}'`);
  }
  return {
    ...(typeof values.label === 'string' ? { labelColumn: values.label } : {}),
    ...(features !== undefined ? { features } : {}),
    ...(maxFeatures !== undefined ? { maxFeatures } : {}),
    ...(classes !== undefined ? { classes } : {}),
  };
}
