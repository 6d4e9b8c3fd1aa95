/** `dsgkit convert`: LIBSVM / CSV (or Arrow) → Arrow IPC. */
import { readDataset, writeArrow } from '../../data/index.ts';
import { intOption, onePositional, parseCommandArgs, requireArrowOutput, requireString } from '../args.ts';
import { checkOutputs } from '../outputs.ts';
import type { Command } from './command.ts';

const HELP = `dsgkit convert — turn a LIBSVM or CSV file into an Arrow file dsgkit trains on

Usage: dsgkit convert <input> --out <file.arrow> [options]

Reads <input> (format chosen by extension: .libsvm .svm .txt .t = LIBSVM,
.csv = CSV with a header row, .arrow .arrows .feather .ipc = Arrow), checks every
value, and writes an Arrow IPC file with a nullable float64 label column
(null = unlabeled) and one float64 column per feature. Values are kept as they
are; scaling to [0,1] happens at training time. Nothing is written if any
value is bad: the error names the file, column and row.

Unlabeled rows: '?' as the LIBSVM label; an empty cell, '?' or 'NA' in CSV.

Options:
  --out <path>       output file (required). '.arrows' writes the Arrow stream
                     format; '.arrow', '.feather', '.ipc' the file format.
  --label <name>     name of the label column (default: label). For CSV/Arrow
                     input it selects the column; for LIBSVM it names it.
  --features <n>     LIBSVM only: number of features (default: largest index
                     in the file). Use it so train and test files agree.
  -h, --help         show this help

Example:
  dsgkit convert a9a.libsvm --out a9a.arrow --features 123
`;

export const convert: Command = {
  name: 'convert',
  summary: 'LIBSVM or CSV → Arrow (checks every value)',
  help: HELP,
  async run(argv, io) {
    const { values, positionals } = parseCommandArgs(argv, {
      out: { type: 'string', short: 'o' },
      label: { type: 'string' },
      features: { type: 'string' },
    });
    const input = onePositional(positionals, 'input file');
    const out = requireArrowOutput(requireString(values, 'out'), 'out');
    await checkOutputs({ out }, { 'input file': input });
    const features = intOption(values, 'features', { min: 1 });
    const ds = await readDataset(input, {
      ...(typeof values.label === 'string' ? { labelColumn: values.label } : {}),
      ...(features !== undefined ? { features } : {}),
    });
    await writeArrow(out, ds);
    let labeled = 0;
    for (let i = 0; i < ds.n; i++) labeled += ds.labeled[i];
    io.stdout.write(`wrote ${out}: ${ds.n} rows, ${ds.d} features, ${labeled} labeled, ${ds.n - labeled} unlabeled\n`);
    return 0;
  },
};
