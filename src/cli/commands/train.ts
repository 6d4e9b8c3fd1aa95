/** `dsgkit train`: train one model on a file and save it. */
import { CancelledError, DataError, UsageError } from '../../errors.ts';
import { defaultThreads, LEARNER_NAMES, LEARNERS, Model, type ProfileReport, type TrainRequest } from '../../api.ts';
import { trainModel } from '../../train/train.ts';
import { defaultSigmaRule } from '../../train/defaults.ts';
import { formatProfile } from '../profile-report.ts';
import { intOption, parseCommandArgs, requireString } from '../args.ts';
import { load } from '../../model/model.ts';
import { checkOutputs } from '../outputs.ts';
import type { CliIO } from '../io.ts';
import { interruptible } from '../interrupt.ts';
import { formatDuration, progressDisplay, rowsProgress, type ProgressDisplayOptions, type RowsProgress } from '../progress.ts';
import { optionsFor, parseTrainingOptions, shiftedStepText, TRAINING_OPTION_SPECS, trainingOptionsHelp } from '../train-options.ts';
import { inputFile, stdinDataset, trainingInput } from '../stdin.ts';
import { cliLearnerSpec, learnersOnLine } from '../learner-help.ts';
import { MIN_EPOCH_STEPS } from '../../learners/frs3vm.ts';
import type { Command } from './command.ts';
import { DEFAULT_MAX_STEP, type StepSize } from '../../coordinator/step-size.ts';
import { scalingText } from '../../data/scaler.ts';

const width = Math.max(...LEARNER_NAMES.map((n) => n.length));

/** The help of `train`, for every learner or (`--learner X --help`) for the ones given. */
function trainHelp(learners: typeof LEARNERS = LEARNERS): string {
  const one = learners.length === 1;
  return `dsgkit train — train a semi-supervised kernel model and save it

Usage: dsgkit train --learner <name> --data <file> --out <model.dsg> [options]
       dsgkit train --init <model.dsg> --data <file> --iterations <T'> --out <model.dsg>

Reads a training file in which some rows are labeled and the others are not
(a missing label = unlabeled), scales the features to [0, 1], trains the
learner, and writes the model file (atomically: nothing is written if
training fails or is cancelled with Ctrl-C).

${one ? 'Learner' : 'Learners'}:
${learners.map((l) => `  ${l.name.padEnd(width)}  ${l.summary} [${l.task}; metric ${l.metric}]`).join('\n')}

Options:
  --learner <name>        ${LEARNER_NAMES.join(' | ')} (required; with --help:
                          that learner's options only)
  --data <file>           training data: Arrow, CSV or LIBSVM (required); '-'
                          reads stdin. An Arrow IPC stream there (a pipe of
                          unknown length) is read as it comes: the labeled rows
                          and a seeded reservoir of T·B unlabeled rows are kept
                          (deterministic; a different, equally valid model than
                          one trained on the whole file). Other data on stdin
                          (CSV, LIBSVM, an Arrow file) is read whole
  --out <file>            model file to write, e.g. model.dsg (required)
  --validation <file>     labeled held-out rows whose AUC (mean AUC for ordinal
                          learners) the progress shows; never changes the model
  --validate-every <K>    iterations between validation scores (default: T/20)
  --init <model.dsg>      continue a saved (or checkpointed) run of a learner on
                          the stochastic loop to --iterations T', on the same
                          data and settings: the same model, bit for bit, as
                          training to T' at once (tsgs3vm's default step
                          θ/T^(3/4) depends on T: its run is continued only
                          when it was trained with an explicit --step)
  --checkpoint-every <K>  every K iterations write a resumable model (atomically)
                          to --checkpoint; after a crash, continue it with --init
  --checkpoint <file>     where checkpoints go (default: the --out file)
  --profile               learners on the loop: print where the loop's time went
                          (sampling, evaluation on this thread, waiting for the
                          workers, new block, shrink/append, validation), each
                          worker's busy fraction and the loop efficiency (time
                          the kernel alone needs on one thread, at its measured
                          rate, over wall time × threads)
  --sample-on-read        read an Arrow file in two streaming passes and keep only
                          the labeled rows and the rows the run draws: memory
                          follows the run, not the file; the same model, byte
                          for byte, as --in-memory (learners on the stochastic
                          loop; default when the file would take more than half
                          the available memory)
  --in-memory             read the whole file into memory (the default otherwise)
  -h, --help              show this help

${trainingOptionsHelp(learners)}

Progress goes to stderr: a bar on a terminal, a line every 10% otherwise.
A summary goes to stdout. Ctrl-C cancels (exit code 130, no model written).

Example:
  dsgkit train --learner ${LEARNER_NAMES[0]} --data data/breast_cancer-train.arrow --out bc.dsg
  dsgkit train --learner ${LEARNER_NAMES[0]} --data data/breast_cancer-train.arrow --out bc-s2.dsg \\
    --validation data/breast_cancer-test.arrow --sigma 2 --iterations 800
`;
}
const HELP = trainHelp();

/** How the summary names the evaluation strategy a run used. */
const EVALUATION_TEXT: Record<string, string> = {
  history: 'history (f at each batch from the blocks so far)',
  rows: 'rows (f kept at every training row)',
};

/** What {@link runTraining} returns. */
export interface TrainingRun {
  model: Model;
  /** Wall time of the whole `train` call (scaling, loop, threshold), ms. */
  wallMs: number;
}

/**
 * Saves each checkpoint to `path`. When the file system refuses one (full,
 * over quota, an I/O error: a DataError from the atomic write, which removed
 * its temporary file), the previous checkpoint stays as it was, a warning
 * says which iteration it holds, and training goes on: the space may come
 * back before the next checkpoint or the end, and stopping would lose the
 * iterations since the last good one for sure. (The final model's own write
 * reports its own error; the last good checkpoint is there for `--init`.)
 *
 * @example
 * train({ …, checkpointEvery: 100, onCheckpoint: checkpointWriter(io, 'run.dsg') });
 */
export function checkpointWriter(io: CliIO, path: string): (m: Model) => Promise<void> {
  let lastGood: number | undefined;
  return async (m: Model) => {
    const t = m.header.resume?.t;
    try {
      await m.save(path);
      lastGood = t;
    } catch (err) {
      if (!(err instanceof DataError)) throw err;
      const kept = lastGood === undefined ? 'no checkpoint has been written yet' : `the checkpoint of iteration ${lastGood} stays in ${path}`;
      io.stderr.write(`dsgkit: warning: checkpoint of iteration ${t ?? '?'} not written (${err.message}); ${kept}; training goes on\n`);
    }
  };
}

/**
 * Trains with a progress display on stderr, warnings as `dsgkit: warning: …`,
 * and Ctrl-C (SIGINT) cancelling: then it throws a CancelledError
 * "training cancelled after t of T iterations" and no model exists (but the
 * checkpoints written so far, when `checkpoint` is given, stay).
 *
 * @example
 * const { model, wallMs } = await runTraining(io, { learner: spec.name, data: ds, T: 200 }, { label: spec.name });
 */
export async function runTraining(
  io: CliIO,
  options: TrainRequest,
  show: ProgressDisplayOptions,
  checkpoint?: { every: number; path: string },
  onProfile?: (report: ProfileReport) => void,
): Promise<TrainingRun> {
  const display = progressDisplay(io, show);
  const passes: RowsProgress[] = [];
  let done = 0;
  const start = performance.now();
  try {
    const model = await interruptible(async ({ signal }) => {
      const trained = await trainModel({
        ...options,
        signal,
        onProgress: (p) => {
          done = p.t;
          display.update(p);
        },
        onWarning: (message) => io.stderr.write(`dsgkit: warning: ${message}\n`),
        onReadProgress: (p) => {
          passes[p.pass] ??= rowsProgress(io, `${show.label ?? 'train'}: sample on read, pass ${p.pass} of 2`, p.n, show.quiet);
          passes[p.pass].update(p.rows);
          if (p.rows === p.n) passes[p.pass].stop();
        },
        ...(checkpoint ? { checkpointEvery: checkpoint.every, onCheckpoint: checkpointWriter(io, checkpoint.path) } : {}),
        ...(onProfile ? { onProfile } : {}),
      });
      // Ctrl-C after the last iteration (while the threshold was fitted) still means "don't keep it".
      if (signal.aborted) throw new CancelledError(`training cancelled after ${done} iterations, before the model was kept`);
      return trained;
    });
    return { model, wallMs: performance.now() - start };
  } finally {
    display.stop();
  }
}

export const trainCommand: Command = {
  name: 'train',
  summary: `train a model (${LEARNER_NAMES.join(', ')}) on a file and save it`,
  help: HELP,
  helpFor: (argv) => trainHelp(learnersOnLine(argv)),
  async run(argv, io) {
    const { values } = parseCommandArgs(argv, {
      learner: { type: 'string' },
      data: { type: 'string' },
      out: { type: 'string' },
      validation: { type: 'string' },
      init: { type: 'string' },
      'checkpoint-every': { type: 'string' },
      checkpoint: { type: 'string' },
      profile: { type: 'boolean' },
      'sample-on-read': { type: 'boolean' },
      'in-memory': { type: 'boolean' },
      ...TRAINING_OPTION_SPECS,
    });
    const initPath = typeof values.init === 'string' ? values.init : undefined;
    const init = initPath !== undefined ? await load(initPath, { onWarning: (m) => io.stderr.write(`dsgkit: warning: ${m}\n`) }) : undefined;
    if (init && values.learner !== undefined && values.learner !== init.learner) throw new UsageError(`--learner ${String(values.learner)} differs from the --init model's learner ${init.learner}`);
    const spec = cliLearnerSpec(init ? init.learner : requireString(values, 'learner'), init ? `--init ${initPath}: the model's learner` : '--learner');
    if (init && values.iterations === undefined) throw new UsageError(`--init needs --iterations T', the iteration count to continue to (the model is at t = ${init.header.resume?.t ?? '?'})`);
    const every = intOption(values, 'checkpoint-every', { min: 1 });
    if (values.checkpoint !== undefined && every === undefined) throw new UsageError('--checkpoint needs --checkpoint-every <K>');
    const dataPath = requireString(values, 'data');
    const out = requireString(values, 'out');
    const settings = parseTrainingOptions(values, [spec]);
    const validationPath = typeof values.validation === 'string' ? values.validation : undefined;
    if (settings.run.validateEvery !== undefined && validationPath === undefined) {
      throw new UsageError('--validate-every needs --validation <file>');
    }
    // A checkpoint goes to --out unless --checkpoint names another file (checked like --out).
    const checkpointOption = typeof values.checkpoint === 'string' ? values.checkpoint : undefined;
    await checkOutputs({ out, checkpoint: checkpointOption }, { data: dataPath, validation: validationPath });
    // '--data -' is an Arrow stream read as it comes (below); a '-' validation file is copied from stdin.
    if (dataPath === '-' && validationPath === '-') throw new UsageError('--validation -: stdin is read once, and --data reads it already; give a file for one of them');
    const validationFile = validationPath !== undefined ? await inputFile(validationPath, io, 'validation') : undefined;
    const checkpointPath = every !== undefined ? (checkpointOption ?? out) : undefined;
    if (values.profile === true && !spec.capabilities.profiles) throw new UsageError(`--profile applies to learners on the stochastic loop only (${spec.name} is not)`);
    let profile: ProfileReport | undefined;

    if (values['sample-on-read'] === true && values['in-memory'] === true) throw new UsageError('--sample-on-read and --in-memory exclude each other');
    const sampleOnRead = values['sample-on-read'] === true ? true : values['in-memory'] === true ? false : undefined;
    const read = settings.labelColumn !== undefined ? { labelColumn: settings.labelColumn } : {};
    // stdin: an Arrow stream as it comes, or other data (copied to a file) as a Dataset named 'stdin'.
    const data = dataPath === '-' ? await trainingInput(io, 'data') : dataPath;
    const trainData = typeof data === 'string' ? await stdinDataset(data, read) : data;
    const { model, wallMs } = await runTraining(
      io,
      // A path: the API reads it (whole, scaled in place, or a sample of it on read).
      { learner: spec.name, data: trainData, ...(trainData !== data ? { scaleInPlace: true } : {}), read, ...(sampleOnRead !== undefined ? { sampleOnRead } : {}), ...optionsFor(spec, settings), threads: settings.threads, ...(validationFile !== undefined ? { validation: validationFile } : {}), ...(initPath !== undefined ? { init: initPath } : {}) },
      { label: spec.name, quiet: settings.quiet },
      checkpointPath !== undefined ? { every: every!, path: checkpointPath } : undefined,
      values.profile === true ? (report) => (profile = report) : undefined,
    );
    await model.save(out);

    const training = model.header.training as { rows: number; labeledRows: number; budget?: string; validation?: Array<[number, number]>; evaluation?: string; defaultSigma?: { sigma0: number; ratio: number } };
    const sigma = model.header.hyperparameters.sigma;
    const last = training.validation?.at(-1);
    const rows: [string, string][] = [
      ['learner', spec.name],
      ['data', dataPath],
      ['rows', `${training.rows} (${training.labeledRows} labeled, ${training.rows - training.labeledRows} unlabeled)`],
      ...(model.scaler.clipQuantile > 0 ? ([['scaling', scalingText(model.scaler.clipQuantile)]] as [string, string][]) : []),
      ...(training.defaultSigma && typeof sigma === 'number' ? ([['σ', sigmaText(sigma, training.defaultSigma, defaultSigmaRule(spec))]] as [string, string][]) : []),
      ...(typeof model.header.hyperparameters.T === 'number' ? ([['iterations', iterationsText(spec, model.header.hyperparameters, values.iterations === undefined, training.budget)]] as [string, string][]) : []),
      ...(typeof model.header.hyperparameters.epochs === 'number' && typeof model.header.hyperparameters.iterations === 'number'
        ? ([['SGD steps', `${model.header.hyperparameters.iterations} (${model.header.hyperparameters.epochs} epochs: passes over the unlabeled rows, at least ${MIN_EPOCH_STEPS} steps each; --epochs sets them)`]] as [string, string][])
        : []),
      ...(values.c === undefined && spec.params.C !== undefined && spec.params.C.default === undefined && typeof model.header.hyperparameters.C === 'number'
        ? ([['C', `${model.header.hyperparameters.C} (${spec.params.C.defaultDoc ?? 'from the data'}; --c sets it)`]] as [string, string][])
        : []),
      // The default step raised for a wide kernel (a step the user gave is theirs, and the settings line said it).
      ...(settings.run.step === undefined && settings.run.theta === undefined ? raisedStepRow(model.header.hyperparameters.step) : []),
      ['threads', String(Math.min(settings.threads, defaultThreads()))],
      ...(training.evaluation !== undefined ? ([['evaluation', EVALUATION_TEXT[training.evaluation] ?? training.evaluation]] as [string, string][]) : []),
      ['wall time', formatDuration(wallMs)],
      ...(last ? ([['validation', `${model.task.kind === 'binary' ? 'AUC' : 'mean AUC'} ${last[1].toFixed(4)} at t = ${last[0]} (${validationPath})`]] as [string, string][]) : []),
      ['model', out],
    ];
    io.stdout.write(rows.map(([k, v]) => `${k.padEnd(12)}${v}`).join('\n') + '\n');
    if (profile) io.stdout.write(formatProfile(profile));
    return 0;
  },
};

/**
 * The summary's step row when the default schedule's first step was raised
 * for a Gaussian kernel wider than σ₀ (the pairwise learners:
 * learners/kernel-scale.ts `kernelStepScale`); none otherwise, where the
 * settings line before the run already says the step.
 *
 * @example
 * raisedStepRow({ kind: 'decay', eta0: 5.2, eta1: 0.000347 }); // [['step', 'η_t = 15000/(t + 2880) (first step 5.2: 10.4 × 0.5, for a kernel wider than σ₀)']]
 */
function raisedStepRow(step: unknown): [string, string][] {
  const s = step as StepSize | undefined;
  if (s?.kind !== 'decay' || !(s.eta0 > DEFAULT_MAX_STEP)) return [];
  const n = (x: number) => String(Number(x.toPrecision(3)));
  return [['step', `${shiftedStepText(s, 3)} (first step ${n(s.eta0)}: ${n(s.eta0 / DEFAULT_MAX_STEP)} × ${DEFAULT_MAX_STEP}, for a kernel wider than σ₀)`]];
}

/**
 * The default σ as the summary shows it: its value, σ/σ₀ and σ₀.
 *
 * @example
 * sigmaText(0.9375, { sigma0: 0.2344, ratio: 4 }, 'by kernel–target alignment on the labeled rows'); // '0.9375 = 4σ₀ (σ₀ = 0.2344, the median heuristic; 4 by kernel–target alignment on the labeled rows)'
 */
function sigmaText(sigma: number, chosen: { sigma0: number; ratio: number }, rule: string): string {
  const num = (v: number) => String(Number(v.toPrecision(4)));
  return `${num(sigma)} = ${num(chosen.ratio)}σ₀ (σ₀ = ${num(chosen.sigma0)}, the median heuristic; ${num(chosen.ratio)} ${rule})`;
}

/**
 * T, and for a learner that derives its budget from the data (no declared T
 * default) when none was given, where it came from: a loop learner's budget
 * rule as the model header records it (`400 (T = 400 from n_l = 200 labeled
 * rows; --iterations sets it)`), GKM's T and batch.
 */
function iterationsText(spec: { params: Readonly<Record<string, { default?: unknown }>> }, hp: Readonly<Record<string, unknown>>, computed: boolean, budget: string | undefined): string {
  const T = String(hp.T);
  if (computed && budget !== undefined) return `${T} (${budget}, the learner's budget rule; --iterations sets it)`;
  if (!computed || spec.params.T?.default !== undefined || typeof hp.batchSize !== 'number') return T;
  return `${T} × batch ${hp.batchSize} (from the labeled rows; --iterations and --batch-size set them)`;
}
