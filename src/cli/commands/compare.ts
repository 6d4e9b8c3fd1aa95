/** `dsgkit compare`: the papers' experiment on one file — same split, same settings, every learner, held-out scores. */
import { CancelledError, UsageError } from '../../errors.ts';
import { LEARNERS, resolveParams, type LearnerSpec, type TaskMetrics } from '../../api.ts';
import { scalingText } from '../../data/scaler.ts';
import { clipQuantileFor, kernelScale0, learnerKernelScale, scalerFor } from '../../train/defaults.ts';
import { classCounts, readDataset, splitDataset, type Dataset } from '../../data/index.ts';
import { intOption, numberOption, parseCommandArgs, requireString } from '../args.ts';
import { formatDuration } from '../progress.ts';
import { describeRun, optionsFor, parseTrainingOptions, TRAINING_OPTION_SPECS, trainingOptionsHelp, type DataFacts } from '../train-options.ts';
import { inputFile } from '../stdin.ts';
import { cliLearnerSpec } from '../learner-help.ts';
import type { Command } from './command.ts';
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
     larger label unless --positive) — for ordinal data (more than two
     classes) the mean threshold AUC, MAE and accuracy — and the training
     wall time.
The same file and --seed give the same split and the same models.

Options:
  --data <file>         labeled data: Arrow, CSV or LIBSVM (required)
  --labeled <N>         labeled training rows to keep (default: ${DEFAULT_LABELED})
  --test <F>            test set: a fraction in (0, 1) of the labeled rows or a
                        whole count ≥ 1 (default: ${DEFAULT_TEST})
  --learners <list>     comma-separated, from ${LEARNERS.map((l) => l.name).join(', ')}
                        (default: the stochastic learners of the data's task,
                        ${defaultLearners('binary').map((l) => l.name).join(',')} for binary data)
  --validate-every <K>  show the test AUC in the progress bar every K
                        iterations (default: off; never changes a model)
  --json                print one JSON object instead of the table
  -h, --help            show this help

${trainingOptionsHelp(LEARNERS, { seedAlsoSplits: true })}

Example:
  dsgkit compare --data data/spam.arrow --labeled 200
  dsgkit compare --data data/breast_cancer.arrow --labeled 50 --iterations 200 --json
  dsgkit compare --data data/breast_cancer.arrow --labeled 100 --learners ${LEARNERS.filter((l) => l.task === 'binary' && l.compareByDefault === false).map((l) => l.name).join(',')}          # the learners it skips by default
  dsgkit compare --data data/diabetes.arrow --labeled 200       # ordinal data: the ordinal learners
`;

/** The learners compare runs when none are named: every learner of the task on the stochastic loop, unless it opts out. */
function defaultLearners(task: LearnerSpec['task']): LearnerSpec[] {
  return LEARNERS.filter((l) => l.task === task && l.compareByDefault !== false);
}

function parseLearners(text: string | undefined): LearnerSpec[] | undefined {
  if (text === undefined) return undefined;
  const names = text.split(',').map((s) => s.trim()).filter((s) => s !== '');
  if (names.length === 0) throw new UsageError(`--learners must list at least one of ${LEARNERS.map((l) => l.name).join(', ')}`);
  if (new Set(names).size !== names.length) throw new UsageError(`--learners lists a learner twice: '${text}'`);
  const specs = names.map((n) => cliLearnerSpec(n, '--learners'));
  if (new Set(specs.map((l) => l.task)).size > 1) throw new UsageError(`--learners mixes tasks (${specs.map((l) => `${l.name}: ${l.task}`).join(', ')}); compare learners of one task`);
  return specs;
}

/** One row of the comparison. */
export interface ComparisonRow {
  learner: string;
  metrics: TaskMetrics;
  trainSeconds: number;
}

/**
 * The result table as aligned text (numbers right-aligned).
 *
 * @example
 * io.stdout.write(comparisonTable(rows));
 */
export function comparisonTable(rows: readonly ComparisonRow[]): string {
  const ordinal = rows[0]?.metrics.kind === 'ordinal';
  const header = ordinal ? ['learner', 'mean AUC', 'MAE', 'accuracy', 'train time'] : ['learner', 'test AUC', 'accuracy', 'F1', 'train time'];
  const body = rows.map((r) => {
    const m = r.metrics;
    const cells = m.kind === 'ordinal' ? [m.meanAuc, m.mae, m.accuracy] : [m.auc, m.accuracy, m.f1];
    return [r.learner, ...cells.map((v) => v.toFixed(4)), formatDuration(r.trainSeconds * 1000)];
  });
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
    const dataPath = await inputFile(requireString(values, 'data'), io, 'data');
    const labeled = intOption(values, 'labeled', { min: 2, fallback: DEFAULT_LABELED })!;
    const test = numberOption(values, 'test', { min: 0, openMin: true, fallback: DEFAULT_TEST })!;
    if (test >= 1 && !Number.isInteger(test)) throw new UsageError(`--test must be a fraction in (0, 1) or a whole count ≥ 1, got '${values.test}'`);
    const named = parseLearners(typeof values.learners === 'string' ? values.learners : undefined);
    const ds = await readDataset(dataPath, typeof values.label === 'string' ? { labelColumn: values.label } : {});
    const learners = named ?? defaultLearners(classCounts(ds).size > 2 ? 'ordinal' : 'binary');
    const settings = parseTrainingOptions(values, learners);
    const seed = (settings.given.seed as number | undefined) ?? (resolveParams(learners[0], {}).seed as number | undefined) ?? 1;

    const { train: trainSet, test: testSet } = splitDataset(ds, { labeled, test, seed });
    if (!testSet) throw new Error('splitDataset returned no test set although one was asked for');
    const unlabeled = trainSet.n - labeled;
    const splitLine = `seed ${seed}: train ${trainSet.n} rows (${labeled} labeled, ${unlabeled} unlabeled), test ${testSet.n} labeled rows`;
    // σ's default comes from the scaled training rows (σ₀·2^k by alignment with the labels, the ordinal learners'
    // σ₀/4): name its value. σ₀ too: the step a pairwise learner takes at σ < σ₀ follows it. A given σ needs σ₀
    // alone, not the alignment of the default σ. Every learner scales the rows alike.
    const kernel = settings.given.kernel === 'laplacian' ? 'laplacian' : 'rbf';
    const clipQuantile = clipQuantileFor(settings.run.clipQuantile);
    let scaled: Dataset | undefined;
    const facts = new Map<string, DataFacts>();
    const fromData = (l: LearnerSpec): DataFacts => {
      if (!('sigma' in l.params)) return {};
      const key = `${l.defaultSigmaRatio ?? 'alignment'}`;
      let f = facts.get(key);
      if (f === undefined) {
        scaled ??= scalerFor(trainSet, clipQuantile).transform(trainSet);
        const scale = settings.given.sigma === undefined ? learnerKernelScale(l, scaled, kernel) : undefined;
        f = { computed: scale ? { sigma: scale.sigma } : {}, sigma0: scale?.sigma0 ?? kernelScale0(scaled) };
        facts.set(key, f);
      }
      return f;
    };
    const settingsLine = `${describeRun(learners, settings, fromData, labeled)}; ${settings.threads} thread${settings.threads === 1 ? '' : 's'}`;
    const scalingLine = scalingText(clipQuantile);
    if (!values.json) {
      io.stdout.write(`data        ${dataPath}: ${ds.n} rows, ${ds.d} features\nsplit       ${splitLine}\nscaling     ${scalingLine}\nsettings    ${settingsLine}\n\n`);
    }

    const rows: ComparisonRow[] = [];
    for (const spec of learners) {
      let run;
      try {
        run = await runTraining(
          io,
          {
            learner: spec.name,
            data: trainSet,
            ...optionsFor(spec, settings),
            threads: settings.threads,
            ...(settings.run.validateEvery !== undefined ? { validation: testSet } : {}),
          },
          { label: spec.name, labelWidth: Math.max(...learners.map((l) => l.name.length)), quiet: settings.quiet },
        );
      } catch (err) {
        if (err instanceof CancelledError) throw new CancelledError(`${spec.name}: ${err.message}`);
        throw err;
      }
      const metrics = await run.model.evaluate(testSet, { threads: settings.threads });
      rows.push({ learner: spec.name, metrics, trainSeconds: run.wallMs / 1000 });
    }

    if (values.json) {
      const result = {
        data: dataPath,
        rows: ds.n,
        features: ds.d,
        split: { seed, train: trainSet.n, labeled, unlabeled, test: testSet.n },
        scaling: scalingLine,
        hyperparameters: describeRun(learners, settings, fromData, labeled),
        options: { ...settings.given, ...settings.run },
        threads: settings.threads,
        results: rows.map((r) => ({ learner: r.learner, ...r.metrics, trainSeconds: r.trainSeconds })),
      };
      io.stdout.write(`${JSON.stringify(result)}\n`);
    } else {
      io.stdout.write(comparisonTable(rows));
    }
    return 0;
  },
};

