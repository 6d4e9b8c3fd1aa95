/** `dsgkit convert`: LIBSVM / CSV / Arrow → Arrow IPC, CSV or JSON Lines. */
import { datasetToTable, FORMAT_NAMES, labeledCount, formatOf, openCsvRows, outputFormatFor, readDataset, writeBatchesStreaming, writeRowSource, type RowSourceSummary } from '../../data/index.ts';
import { choiceOption, onePositional, parseCommandArgs, requireString } from '../args.ts';
import { parseReadOptions, READ_OPTION_SPECS, readOptionsHelp } from '../read-options.ts';
import { checkOutputs } from '../outputs.ts';
import { inputFile } from '../stdin.ts';
import { UsageError } from '../../errors.ts';
import type { Command } from './command.ts';

const HELP = `dsgkit convert — turn a LIBSVM or CSV file into an Arrow file dsgkit trains on (or any
data file into CSV or JSON Lines)

Usage: dsgkit convert <input> --out <file.arrow|.csv|.jsonl> [options]

Reads <input> (format chosen by extension: .libsvm .svm .txt .t = LIBSVM,
.csv = CSV with a header row, .arrow .arrows .feather .ipc = Arrow; '-' reads
stdin), checks every value, and writes an Arrow IPC file with a nullable
float64 label column (null = unlabeled) and one float64 column per feature —
or the same columns as CSV (a header row; an unlabeled row's label cell is
empty) or JSON Lines (label null), by the extension of --out. Values are kept as they
are; scaling to [0,1] happens at training time. Nothing is written if any
value is bad: the error names the file, column and row.

Unlabeled rows: '?' as the LIBSVM label; an empty cell, '?' or 'NA' in CSV.
Labels that are names (spam, ham) are written as a string column. A CSV file
is converted as it is read, block by block: memory stays flat for any size.

Options:
  --out <path>         output file (required). '.arrows' writes the Arrow
                       stream format; '.arrow', '.feather', '.ipc' the file
                       format; '.csv' CSV; '.jsonl', '.ndjson' JSON Lines.
  --format <f>         arrow | csv | jsonl, whatever the name of --out
${readOptionsHelp()}
  -h, --help           show this help

Example:
  printf 'label,x1,x2\\n1,0.5,2\\n-1,0.25,3\\n,0.75,1\\n' > tiny.csv    # the last row is unlabeled
  dsgkit convert tiny.csv --out tiny.arrow
  printf '1 1:0.5 3:1\\n-1 2:0.25\\n' > tiny.libsvm
  dsgkit convert tiny.libsvm --out tiny-libsvm.arrow --features 3
  dsgkit convert data/breast_cancer.arrow --out breast_cancer.csv
`;

export const convert: Command = {
  name: 'convert',
  summary: 'LIBSVM or CSV → Arrow, or any data file → CSV / JSON Lines (checks every value)',
  help: HELP,
  async run(argv, io) {
    const { values, positionals } = parseCommandArgs(argv, {
      out: { type: 'string', short: 'o' },
      format: { type: 'string' },
      ...READ_OPTION_SPECS,
    });
    const given = onePositional(positionals, 'input file');
    const out = requireString(values, 'out');
    if (out === '-') throw new UsageError("convert writes a file: give --out a path (predict --out - writes to stdout)");
    const format = outputFormatFor(out, choiceOption(values, 'format', FORMAT_NAMES));
    await checkOutputs({ out }, { 'input file': given });
    const input = await inputFile(given, io, 'input file');
    const read = parseReadOptions(values);
    let s: RowSourceSummary;
    if (formatOf(input) === 'csv') s = await writeRowSource(out, await openCsvRows(input, read), format);
    else {
      const ds = await readDataset(input, read);
      await writeBatchesStreaming(out, datasetToTable(ds).batches, format);
      s = { rows: ds.n, labeled: labeledCount(ds), features: ds.d, ...(ds.classNames ? { classNames: [...ds.classNames] } : {}) };
    }
    const classes = s.classNames ? ` (classes: ${[...s.classNames].sort().join(', ')})` : '';
    io.stdout.write(`wrote ${out}: ${s.rows} rows, ${s.features} features, ${s.labeled} labeled${classes}, ${s.rows - s.labeled} unlabeled\n`);
    return 0;
  },
};
