/** `dsgkit bin`: a real-valued column → k equal-frequency ordered classes, written to Arrow (ordinal regression data). */
import { UsageError } from '../../errors.ts';
import { binLabels, readDataset, writeArrow } from '../../data/index.ts';
import { checkOutputs } from '../outputs.ts';
import { intOption, onePositional, parseCommandArgs, requireArrowOutput, requireString } from '../args.ts';
import { inputFile } from '../stdin.ts';
import type { Command } from './command.ts';

const HELP = `dsgkit bin — turn a real-valued column into k ordered classes (ordinal regression data)

Usage: dsgkit bin <input> --column <name> --k <k> --out <file.arrow> [options]

Reads <input> (Arrow, CSV or LIBSVM) and replaces the real-valued column
--column (a price, a rating, a measurement) by k equal-frequency ordered
classes 1..k — the ordinal-regression papers' preprocessing of regression
data. The cut points are the quantiles at 1/k, 2/k, …, (k−1)/k of the
column's values, by linear interpolation (numpy's default percentile); a
value v gets class 1 + #{cut points c : v > c}, so a value equal to a cut
point goes to the lower class. A row whose value is missing stays unlabeled.
Every other column becomes a feature. The output is an Arrow file whose
label column (--out-label, default: label) holds the class 1..k, written to
a temporary file and renamed; the cut points and class sizes are printed.

Options:
  --column <name>      the real-valued column to bin (required; for LIBSVM
                       input, the label, named 'label')
  --k <k>              number of classes, a whole number ≥ 2 (required;
                       ordinal learners need ≥ 3)
  --out <path>         output Arrow file (required)
  --out-label <name>   name of the class column in the output (default: label)
  --features <n>       LIBSVM input only: number of features
  -h, --help           show this help

Example:
  dsgkit bin data/diabetes.arrow --column bmi --k 5 --out-label bmi_class --out bmi.arrow
  dsgkit describe bmi.arrow --label bmi_class
`;

export const bin: Command = {
  name: 'bin',
  summary: 'a real-valued column → k equal-frequency ordered classes (ordinal data)',
  help: HELP,
  async run(argv, io) {
    const { values, positionals } = parseCommandArgs(argv, {
      column: { type: 'string' },
      k: { type: 'string' },
      out: { type: 'string', short: 'o' },
      'out-label': { type: 'string' },
      features: { type: 'string' },
    });
    const given = onePositional(positionals, 'input file');
    const column = requireString(values, 'column');
    if (values.k === undefined) throw new UsageError('missing required option --k');
    const k = intOption(values, 'k', { min: 2 })!;
    const out = requireArrowOutput(requireString(values, 'out'), 'out');
    await checkOutputs({ out }, { 'input file': given });
    const input = await inputFile(given, io, 'input file');
    const outLabel = typeof values['out-label'] === 'string' && values['out-label'] !== '' ? values['out-label'] : 'label';
    const features = intOption(values, 'features', { min: 1 });
    const ds = await readDataset(input, { labelColumn: column, ...(features !== undefined ? { features } : {}) });
    if (ds.featureNames.includes(outLabel)) {
      throw new UsageError(`${input} already has a column '${outLabel}' (it would be a feature beside the classes); name the class column with --out-label`);
    }
    const { ds: binned, cuts, counts } = binLabels(ds, k, outLabel);
    await writeArrow(out, binned);
    const labeled = counts.reduce((a, b) => a + b, 0);
    const round = (v: number) => String(Number(v.toPrecision(6)));
    io.stdout.write(
      `wrote ${out}: ${binned.n} rows, ${binned.d} features, label '${outLabel}' = ${k} classes of '${column}'` +
        `${binned.n > labeled ? ` (${binned.n - labeled} rows unlabeled)` : ''}\n` +
        `cut points  ${cuts.map(round).join(', ')}\n` +
        `classes     ${counts.map((c, i) => `${i + 1}: ${c}`).join(', ')}\n`,
    );
    return 0;
  },
};
