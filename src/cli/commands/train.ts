/** `dsgkit train`: train one model on a file and save it. */
import { CancelledError, DataError, UsageError } from '../../errors.ts';
import { LEARNERS, Model, train, type LearnerName, type TrainOptions } from '../../api.ts';
import type { Dataset } from '../../data/dataset.ts';
import { readDataset } from '../../data/index.ts';
import { DEFAULTS } from '../../learners/defaults.ts';
import { defaultPositiveLabel } from '../../learners/sources.ts';
import { choiceOption, parseCommandArgs, requireString } from '../args.ts';
import { checkOutputs } from '../outputs.ts';
import type { CliIO } from '../io.ts';
import { interruptible } from '../interrupt.ts';
import { formatDuration, progressDisplay, type ProgressDisplayOptions } from '../progress.ts';
import { parseTrainingOptions, TRAINING_OPTION_SPECS, trainingOptionsHelp } from '../train-options.ts';
import type { Command } from './command.ts';

const HELP = `dsgkit train — train a semi-supervised kernel model and save it

Usage: dsgkit train --learner <name> --data <file> --out <model.dsg> [options]

Reads a training file in which some rows are labeled and the others are not
(a missing label = unlabeled), scales the features to [0, 1], trains the
learner with doubly (dsg) or quadruply (qsg-s2auc) stochastic functional
gradients on random Fourier features, and writes the model file (atomically:
nothing is written if training fails or is cancelled with Ctrl-C).

Learners:
  qsg-s2auc   semi-supervised AUC maximisation (QSG-S2AUC): uses the
              unlabeled rows through the PU and NU risks
  dsg         supervised doubly stochastic gradients (the labeled rows only)

Options:
  --learner <name>      ${LEARNERS.join(' | ')} (required)
  --data <file>         training data: Arrow, CSV or LIBSVM (required)
  --out <file>          model file to write, e.g. model.dsg (required)
  --validation <file>   labeled held-out rows whose AUC the progress shows
                        (default: none; never changes the model)
  --validate-every <K>  iterations between validation AUCs (default: T/20)
  -h, --help            show this help

${trainingOptionsHelp()}

Progress goes to stderr: a bar on a terminal, a line every 10% otherwise.
A summary goes to stdout. Ctrl-C cancels (exit code 130, no model written).

Example:
  dsgkit split data/breast_cancer.arrow --labeled 100 --test 0.2 \\
    --out-train bc-train.arrow --out-test bc-test.arrow
  dsgkit train --learner qsg-s2auc --data bc-train.arrow --out bc.dsg \\
    --validation bc-test.arrow
`;

/** What {@link runTraining} returns. */
export interface TrainingRun {
  model: Model;
  /** Wall time of the whole `train` call (scaling, loop, threshold), ms. */
  wallMs: number;
}

/**
 * Trains with a progress display on stderr, warnings as `dsgkit: warning: …`,
 * and Ctrl-C (SIGINT) cancelling: then it throws a CancelledError
 * "training cancelled after t of T iterations" and no model exists.
 *
 * @example
 * const { model, wallMs } = await runTraining(io, { learner: 'dsg', data: ds, T: 200 }, { label: 'dsg' });
 */
export async function runTraining(
  io: CliIO,
  options: Omit<TrainOptions, 'signal' | 'onProgress' | 'onWarning'>,
  show: ProgressDisplayOptions,
): Promise<TrainingRun> {
  const display = progressDisplay(io, show);
  let done = 0;
  const start = performance.now();
  try {
    const model = await interruptible(async ({ signal }) => {
      const trained = await train({
        ...options,
        signal,
        onProgress: (p) => {
          done = p.t;
          display.update(p);
        },
        onWarning: (message) => io.stderr.write(`dsgkit: warning: ${message}\n`),
      });
      // Ctrl-C after the last iteration (while the threshold was fitted) still means "don't keep it".
      if (signal.aborted) throw new CancelledError(`training cancelled after ${done} of ${trained.header.history.t} iterations`);
      return trained;
    });
    return { model, wallMs: performance.now() - start };
  } finally {
    display.stop();
  }
}

/**
 * Checks a validation set against the training set: same features in the
 * same order, and labeled rows of both the positive class and another.
 *
 * @example
 * checkValidationSet(trainSet, valSet, 1);
 */
export function checkValidationSet(trainSet: Dataset, val: Dataset, positive: number): void {
  const file = val.source;
  const names = trainSet.featureNames;
  if (val.d !== names.length || val.featureNames.some((n, k) => n !== names[k])) {
    const k = val.featureNames.findIndex((n, i) => n !== names[i]);
    const detail = val.d !== names.length ? `${val.d} features, the training data ${names.length}` : `feature ${k + 1} is '${val.featureNames[k]}', in the training data '${names[k]}'`;
    throw new DataError(`validation set does not match the training data: ${detail}`, file !== undefined ? { file } : {});
  }
  let pos = 0;
  let neg = 0;
  for (let i = 0; i < val.n; i++) if (val.labeled[i]) (val.y[i] === positive ? pos++ : neg++);
  if (pos === 0 || neg === 0) {
    throw new DataError(
      `validation set needs labeled rows of the positive class ${positive} and of another class to compute AUC (found ${pos} positive, ${neg} other)`,
      { ...(file !== undefined ? { file } : {}), column: val.labelName },
    );
  }
}

export const trainCommand: Command = {
  name: 'train',
  summary: 'train a model (qsg-s2auc or dsg) on a file and save it',
  help: HELP,
  async run(argv, io) {
    const { values } = parseCommandArgs(argv, {
      learner: { type: 'string' },
      data: { type: 'string' },
      out: { type: 'string' },
      validation: { type: 'string' },
      ...TRAINING_OPTION_SPECS,
    });
    const learner: LearnerName | undefined = choiceOption(values, 'learner', LEARNERS);
    if (learner === undefined) throw new UsageError(`missing required option --learner (${LEARNERS.join(' or ')})`);
    const dataPath = requireString(values, 'data');
    const out = requireString(values, 'out');
    const settings = parseTrainingOptions(values, [learner]);
    const validationPath = typeof values.validation === 'string' ? values.validation : undefined;
    if (settings.train.validateEvery !== undefined && validationPath === undefined) {
      throw new UsageError('--validate-every needs --validation <file>');
    }
    await checkOutputs({ out }, { data: dataPath, validation: validationPath });

    const read = settings.labelColumn !== undefined ? { labelColumn: settings.labelColumn } : {};
    const data = await readDataset(dataPath, read);
    let validation: Dataset | undefined;
    if (validationPath !== undefined) {
      validation = await readDataset(validationPath, read);
      checkValidationSet(data, validation, settings.train.positive ?? defaultPositiveLabel(data));
    }

    const { model, wallMs } = await runTraining(
      io,
      // The rows were read for this run alone: scale them in place (one copy of the features fewer).
      { learner, data, scaleInPlace: true, ...settings.train, threads: settings.threads, ...(validation ? { validation } : {}) },
      { label: learner, quiet: settings.quiet },
    );
    await model.save(out);

    const training = model.header.training as { rows: number; labeledRows: number; validation?: Array<[number, number]> };
    const last = training.validation?.at(-1);
    const rows: [string, string][] = [
      ['learner', learner],
      ['data', dataPath],
      ['rows', `${training.rows} (${training.labeledRows} labeled, ${training.rows - training.labeledRows} unlabeled)`],
      ['iterations', String(model.header.history.t)],
      ['threads', String(settings.threads)],
      ['wall time', formatDuration(wallMs)],
      ...(last ? ([['validation', `AUC ${last[1].toFixed(4)} at t = ${last[0]} (${validationPath})`]] as [string, string][]) : []),
      ['model', out],
    ];
    io.stdout.write(rows.map(([k, v]) => `${k.padEnd(12)}${v}`).join('\n') + '\n');
    return 0;
  },
};
