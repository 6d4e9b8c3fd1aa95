/** `dsgkit compare`: the papers' experiment on one file — same split, same settings, every learner, held-out scores. */
import { CancelledError, UsageError } from '../../errors.ts';
import { LEARNERS, type LearnerName } from '../../api.ts';
import { readDataset, splitDataset } from '../../data/index.ts';
import { DEFAULTS } from '../../learners/defaults.ts';
import { intOption, numberOption, parseCommandArgs, requireString } from '../args.ts';
import { formatDuration } from '../progress.ts';
import { describeHyperparameters, parseTrainingOptions, TRAINING_OPTION_SPECS, trainingOptionsHelp } from '../train-options.ts';
import type { Command } from './command.ts';
import { heldOutMetrics, type HeldOutMetrics } from './evaluate.ts';
import { runTraining } from './train.ts';

/** Labeled training rows kept by default: the papers' setting. */
const DEFAULT_LABELED = 200;
/** Held-out test fraction by default. */
const DEFAULT_TEST = 0.2;

const HELP = `dsgkit compare — train every learner on the same semi-supervised split and compare them on held-out rows

Usage: dsgkit compare --data <file> [options]

The experiment of the papers, in one command:
  1. hold out a test set (--test) of the labeled rows, stratified by class;
  2. of the remaining rows keep the labels of only --labeled of them
     (stratified), and drop the others' labels: they become unlabeled rows;
  3. train each learner of --learners on that training set, with the same
     hyperparameters and seed;
  4. score the held-out rows: AUC, accuracy and F1 (positive class = the
     larger label unless --positive), and the training wall time.
The same file and --seed give the same split and the same models.

Options:
  --data <file>         labeled data: Arrow, CSV or LIBSVM (required)
  --labeled <N>         labeled training rows to keep (default: ${DEFAULT_LABELED})
  --test <F>            test set: a fraction in (0, 1) of the labeled rows or a
                        whole count ≥ 1 (default: ${DEFAULT_TEST})
  --learners <list>     comma-separated, from ${LEARNERS.join(', ')} (default: ${LEARNERS.join(',')})
  --validate-every <K>  show the test AUC in the progress bar every K
                        iterations (default: off; never changes a model)
  --json                print one JSON object instead of the table
  -h, --help            show this help

${trainingOptionsHelp({ seedAlsoSplits: true })}

Example:
  dsgkit compare --data data/spam.arrow --labeled 200
  dsgkit compare --data data/breast_cancer.arrow --labeled 50 --iterations 200 --json
`;

function parseLearners(text: string | undefined): LearnerName[] {
  if (text === undefined) return [...LEARNERS];
  const names = text.split(',').map((s) => s.trim()).filter((s) => s !== '');
  if (names.length === 0) throw new UsageError(`--learners must list at least one of ${LEARNERS.join(', ')}`);
  for (const n of names) {
    if (!(LEARNERS as readonly string[]).includes(n)) throw new UsageError(`--learners: unknown learner '${n}' (expected ${LEARNERS.join(', ')})`);
  }
  if (new Set(names).size !== names.length) throw new UsageError(`--learners lists a learner twice: '${text}'`);
  return names as LearnerName[];
}

/** One row of the comparison. */
export interface ComparisonRow extends HeldOutMetrics {
  learner: LearnerName;
  trainSeconds: number;
}

/**
 * The result table as aligned text (numbers right-aligned).
 *
 * @example
 * io.stdout.write(comparisonTable(rows));
 */
export function comparisonTable(rows: readonly ComparisonRow[]): string {
  const header = ['learner', 'test AUC', 'accuracy', 'F1', 'train time'];
  const body = rows.map((r) => [r.learner, r.auc.toFixed(4), r.accuracy.toFixed(4), r.f1.toFixed(4), formatDuration(r.trainSeconds * 1000)]);
  const widths = header.map((h, c) => Math.max(h.length, ...body.map((row) => row[c].length)));
  const fmt = (cells: string[]) => cells.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]) : cell.padStart(widths[c]))).join('  ');
  return [fmt(header), ...body.map(fmt)].join('\n') + '\n';
}

export const compare: Command = {
  name: 'compare',
  summary: "train every learner on the papers' split of a file; held-out AUC, accuracy, F1",
  help: HELP,
  async run(argv, io) {
    const { values } = parseCommandArgs(argv, {
      data: { type: 'string' },
      labeled: { type: 'string' },
      test: { type: 'string' },
      learners: { type: 'string' },
      json: { type: 'boolean' },
      ...TRAINING_OPTION_SPECS,
    });
    const dataPath = requireString(values, 'data');
    const labeled = intOption(values, 'labeled', { min: 2, fallback: DEFAULT_LABELED })!;
    const test = numberOption(values, 'test', { min: 0, openMin: true, fallback: DEFAULT_TEST })!;
    if (test >= 1 && !Number.isInteger(test)) throw new UsageError(`--test must be a fraction in (0, 1) or a whole count ≥ 1, got '${values.test}'`);
    const learners = parseLearners(typeof values.learners === 'string' ? values.learners : undefined);
    const settings = parseTrainingOptions(values, learners);
    const seed = settings.train.seed ?? DEFAULTS.seed;

    const ds = await readDataset(dataPath, settings.labelColumn !== undefined ? { labelColumn: settings.labelColumn } : {});
    const { train: trainSet, test: testSet } = splitDataset(ds, { labeled, test, seed });
    if (!testSet) throw new Error('splitDataset returned no test set although one was asked for');
    const unlabeled = trainSet.n - labeled;
    const splitLine = `seed ${seed}: train ${trainSet.n} rows (${labeled} labeled, ${unlabeled} unlabeled), test ${testSet.n} labeled rows`;
    const settingsLine = `${describeHyperparameters(settings.train, learners)}; ${settings.threads} thread${settings.threads === 1 ? '' : 's'}`;
    if (!values.json) {
      io.stdout.write(`data        ${dataPath}: ${ds.n} rows, ${ds.d} features\nsplit       ${splitLine}\nsettings    ${settingsLine}\n\n`);
    }

    const rows: ComparisonRow[] = [];
    for (const learner of learners) {
      let run;
      try {
        run = await runTraining(
          io,
          {
            learner,
            data: trainSet,
            ...settings.train,
            threads: settings.threads,
            ...(settings.train.validateEvery !== undefined ? { validation: testSet } : {}),
          },
          { label: learner, labelWidth: Math.max(...learners.map((l) => l.length)), quiet: settings.quiet },
        );
      } catch (err) {
        if (err instanceof CancelledError) throw new CancelledError(`${learner}: ${err.message}`);
        throw err;
      }
      const metrics = await heldOutMetrics(run.model, testSet, { threads: settings.threads });
      rows.push({ learner, ...metrics, trainSeconds: run.wallMs / 1000 });
    }

    if (values.json) {
      const result = {
        data: dataPath,
        rows: ds.n,
        features: ds.d,
        split: { seed, train: trainSet.n, labeled, unlabeled, test: testSet.n },
        hyperparameters: describeHyperparameters(settings.train, learners),
        options: settings.train,
        threads: settings.threads,
        results: rows,
      };
      io.stdout.write(`${JSON.stringify(result)}\n`);
    } else {
      io.stdout.write(comparisonTable(rows));
    }
    return 0;
  },
};
