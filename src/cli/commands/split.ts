/** `dsgkit split`: the papers' setting — a held-out test set and N labeled training rows. */
import { writeFile } from 'node:fs/promises';
import { UsageError } from '../../errors.ts';
import { classCounts, encodeArrow, formatForPath, readDataset, splitDataset, withAtomicFiles } from '../../data/index.ts';
import { intOption, numberOption, onePositional, parseCommandArgs, requireArrowOutput, requireString } from '../args.ts';
import { checkOutputs } from '../outputs.ts';
import { parseReadOptions, READ_OPTION_SPECS, readOptionsHelp } from '../read-options.ts';
import { inputFile } from '../stdin.ts';
import type { Command } from './command.ts';

const HELP = `dsgkit split — make a semi-supervised training set (and a test set) from labeled data

Usage: dsgkit split <input> --labeled <N> --out-train <file.arrow> [options]

Reproduces the papers' setting. First, if --test is given, a test set is held
out from the labeled rows, stratified by class (it keeps its labels). Then, of
the remaining labeled rows, exactly N keep their labels, stratified by class;
the labels of all the others are dropped, so they become unlabeled training
rows. Rows that were unlabeled in the input stay unlabeled training rows. Row
order is kept. The same input and --seed give the same split.

Options:
  --labeled <N>        labeled training rows to keep (required)
  --out-train <path>   training output, Arrow (required)
  --test <F>           test set: a fraction in (0,1) of the labeled rows, or
                       a whole count ≥ 1 (default: no test set)
  --out-test <path>    test output, Arrow (required with --test)
  --seed <S>           seed of the shuffles (default: 0)
${readOptionsHelp()}
  -h, --help           show this help

Both outputs are written together or not at all.

Example:
  dsgkit split data/spam.arrow --labeled 100 --test 0.2 --seed 1 \\
    --out-train spam-train.arrow --out-test spam-test.arrow
`;

export const split: Command = {
  name: 'split',
  summary: 'hold out a test set and keep N labeled training rows (seeded, stratified)',
  help: HELP,
  async run(argv, io) {
    const { values, positionals } = parseCommandArgs(argv, {
      labeled: { type: 'string' },
      test: { type: 'string' },
      seed: { type: 'string' },
      'out-train': { type: 'string' },
      'out-test': { type: 'string' },
      ...READ_OPTION_SPECS,
    });
    const given = onePositional(positionals, 'input file');
    const labeledValue = values.labeled;
    if (labeledValue === undefined) throw new UsageError('missing required option --labeled');
    const labeled = intOption(values, 'labeled', { min: 0 })!;
    const outTrain = requireArrowOutput(requireString(values, 'out-train'), 'out-train');
    const test = numberOption(values, 'test', { min: 0, openMin: true });
    if (test !== undefined && test >= 1 && !Number.isInteger(test)) throw new UsageError(`--test must be a fraction in (0,1) or a whole count ≥ 1, got '${values.test}'`);
    const outTest = typeof values['out-test'] === 'string' ? requireArrowOutput(values['out-test'], 'out-test') : undefined;
    if (test !== undefined && outTest === undefined) throw new UsageError('--test needs --out-test <path> for the test rows');
    if (test === undefined && outTest !== undefined) throw new UsageError('--out-test needs --test <fraction or count>');
    await checkOutputs({ 'out-train': outTrain, 'out-test': outTest }, { 'input file': given });
    const input = await inputFile(given, io, 'input file');
    const seed = typeof values.seed === 'string' ? values.seed : '0';
    const ds = await readDataset(input, parseReadOptions(values));
    const result = splitDataset(ds, { labeled, seed, ...(test !== undefined ? { test } : {}) });
    const outputs: [string, Uint8Array][] = [[outTrain, encodeArrow(result.train, formatForPath(outTrain))]];
    if (outTest !== undefined && result.test) outputs.push([outTest, encodeArrow(result.test, formatForPath(outTest))]);
    await withAtomicFiles(outputs.map(([p]) => p), async (tmps) => {
      for (let i = 0; i < tmps.length; i++) await writeFile(tmps[i], outputs[i][1]);
    });
    const balance = (counts: Map<number, number>) => [...counts].map(([c, k]) => `${ds.classNames ? ds.classNames[c] : c}: ${k}`).join(', ');
    io.stdout.write(
      `wrote ${outTrain}: ${result.train.n} rows, ${labeled} labeled (${balance(classCounts(result.train))}), ${result.train.n - labeled} unlabeled\n`,
    );
    if (outTest !== undefined && result.test) io.stdout.write(`wrote ${outTest}: ${result.test.n} labeled rows (${balance(classCounts(result.test))})\n`);
    return 0;
  },
};
