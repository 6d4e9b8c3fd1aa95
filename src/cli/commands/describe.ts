/** `dsgkit describe`: what is in a data file, or in a model file (settings, training, CV table). */
import { formatOf, readDataset, type Dataset } from '../../data/index.ts';
import { openArrowRows } from '../../data/arrow.ts';
import { scalingText } from '../../data/scaler.ts';
import { load, type Model } from '../../model/model.ts';
import { formatTuneTable, minorityShareLines, unlabeledLines } from './tune.ts';
import type { TrainingRecord } from '../../model/model-file.ts';
import { METRICS, type MetricName } from '../../model/task.ts';
import { onePositional, parseCommandArgs } from '../args.ts';
import { parseReadOptions, READ_OPTION_SPECS, readOptionsHelp } from '../read-options.ts';
import { inputFile } from '../stdin.ts';
import { formatPredictions, isPredictionsFile, summarizePredictions } from './describe-predictions.ts';
import type { Command } from './command.ts';
import { LEARNERS } from '../../learners/registry.ts';
import { defaultSigmaRule } from '../../train/defaults.ts';
import { thousands } from '../../data/numbers.ts';

const HELP = `dsgkit describe — summarise a data file or a model file

Usage: dsgkit describe <input> [options]
       dsgkit describe <model.dsg> [--json]
       dsgkit describe <predictions.arrow|.csv|.jsonl> [--json]

A model file (.dsg): its learner, metric, task, every hyperparameter as
trained (σ included when it came from the data, with σ/σ₀), the training
rows, the iteration a continued run would start from, and — for a model
written by \`dsgkit tune\` — the cross-validation table.

A data file: the number of rows and features, how many rows are labeled and
unlabeled, the class balance of the labeled rows (count and fraction per
label value), and the range (min, mean, max) of every feature. Reads any
format dsgkit reads (.arrow .arrows .feather .ipc .csv .libsvm .svm .txt .t);
an Arrow file batch by batch, in flat memory whatever its size. '-' reads
stdin.

A predictions file (what 'dsgkit predict' writes: columns score, predicted
and the label when known; Arrow, CSV or JSON Lines): the number of rows, the
score's range, the count of each predicted class and, for the labeled rows,
how often the prediction equals the label.

Options:
${readOptionsHelp()}
  --json               print the summary as JSON instead of text
  -h, --help           show this help

Example:
  dsgkit describe data/breast_cancer-train.arrow
  dsgkit train --learner qsg-s2auc --data data/breast_cancer-train.arrow --out bc.dsg
  dsgkit describe bc.dsg
  dsgkit predict --model bc.dsg --data data/breast_cancer-test.arrow --out bc-scores.arrow
  dsgkit describe bc-scores.arrow
`;

/** Summary of a dataset, as printed by `describe --json`. */
export interface DatasetSummary {
  file: string;
  rows: number;
  features: number;
  labelColumn: string;
  labeled: number;
  unlabeled: number;
  /** Per class: the label (a number, or the class name when the labels are names), count and fraction. */
  classes: { label: number | string; count: number; fraction: number }[];
  featureRanges: { name: string; min: number; mean: number; max: number }[];
}

/**
 * Counts and ranges of rows taken in block by block (a file streamed batch by
 * batch, or a whole Dataset as one block): memory is one block and a few
 * numbers per feature and class, whatever the file's size.
 *
 * @example
 * const acc = new SummaryAccumulator(featureNames);
 * for await (const b of rows.batches()) acc.add(b.X, b.y, b.n);
 * acc.summary('big.arrow', 'label', rows.labels.finish.bind(rows.labels));
 */
export class SummaryAccumulator {
  private readonly min: Float64Array;
  private readonly max: Float64Array;
  private readonly sum: Float64Array;
  private readonly counts = new Map<number, number>();
  private rows = 0;

  constructor(readonly featureNames: readonly string[]) {
    const d = featureNames.length;
    this.min = new Float64Array(d).fill(Infinity);
    this.max = new Float64Array(d).fill(-Infinity);
    this.sum = new Float64Array(d);
  }

  /** The next `n` rows: row-major features `X`, labels `y` (NaN = unlabeled). */
  add(X: Float64Array, y: Float64Array, n: number): void {
    const d = this.featureNames.length;
    const { min, max, sum, counts } = this;
    for (let i = 0; i < n; i++) {
      for (let k = 0; k < d; k++) {
        const v = X[i * d + k];
        if (v < min[k]) min[k] = v;
        if (v > max[k]) max[k] = v;
        sum[k] += v;
      }
      if (!Number.isNaN(y[i])) counts.set(y[i], (counts.get(y[i]) ?? 0) + 1);
    }
    this.rows += n;
  }

  /**
   * The summary; `finish` turns the labels counted into final ones (a class-name
   * reader's provisional indices into final indices) and gives the class names.
   */
  summary(file: string, labelColumn: string, finish: (y: Float64Array) => readonly string[] | undefined = () => undefined): DatasetSummary {
    const { rows } = this;
    const seen = Float64Array.from(this.counts.keys());
    const final = Float64Array.from(seen);
    const classNames = finish(final);
    const counts = new Map<number, number>();
    seen.forEach((v, j) => counts.set(final[j], this.counts.get(v)!));
    let labeled = 0;
    for (const c of counts.values()) labeled += c;
    const classes = [...counts.entries()].sort((a, b) => a[0] - b[0]).map(([label, count]) => ({ label: classNames ? classNames[label] : label, count, fraction: count / labeled }));
    const featureRanges = this.featureNames.map((name, k) => ({ name, min: rows ? this.min[k] : NaN, mean: rows ? this.sum[k] / rows : NaN, max: rows ? this.max[k] : NaN }));
    return { file, rows, features: this.featureNames.length, labelColumn, labeled, unlabeled: rows - labeled, classes, featureRanges };
  }
}

/**
 * Counts and ranges of a dataset (what `dsgkit describe` prints).
 *
 * @example
 * summarize(ds, 'spam.arrow').classes; // [{ label: -1, count: 2788, fraction: 0.606 }, …]
 */
export function summarize(ds: Dataset, file: string): DatasetSummary {
  const acc = new SummaryAccumulator(ds.featureNames);
  acc.add(ds.X, ds.y, ds.n);
  return acc.summary(file, ds.labelName, () => ds.classNames);
}

const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
const num = (x: number | string) => (typeof x === 'string' ? x : Number.isInteger(x) ? String(x) : Number(x.toPrecision(6)).toString());

/**
 * The text form of a summary.
 *
 * @example
 * io.stdout.write(formatSummary(summarize(ds, 'spam.arrow')));
 */
export function formatSummary(s: DatasetSummary): string {
  const lines = [
    `file:       ${s.file}`,
    `rows:       ${s.rows}`,
    `features:   ${s.features}`,
    `label:      column '${s.labelColumn}'`,
    `labeled:    ${s.labeled} (${s.rows ? pct(s.labeled / s.rows) : '0.0%'})`,
    `unlabeled:  ${s.unlabeled} (${s.rows ? pct(s.unlabeled / s.rows) : '0.0%'})`,
  ];
  if (s.classes.length === 0) lines.push('classes:    none (no labeled rows)');
  else {
    lines.push(`classes:    ${s.classes.length} (labeled rows)`);
    const w = Math.max(...s.classes.map((c) => num(c.label).length));
    for (const c of s.classes) lines.push(`  ${num(c.label).padStart(w)}: ${String(c.count).padStart(String(s.labeled).length)}  ${pct(c.fraction).padStart(6)}`);
  }
  if (s.featureRanges.length > 0) {
    const lo = Math.min(...s.featureRanges.map((f) => f.min));
    const hi = Math.max(...s.featureRanges.map((f) => f.max));
    const constant = s.featureRanges.filter((f) => f.min === f.max).length;
    lines.push(`ranges:     all values in [${num(lo)}, ${num(hi)}]; ${constant} constant`);
    const nw = Math.max(4, ...s.featureRanges.map((f) => f.name.length));
    lines.push(`  ${'name'.padEnd(nw)}  ${'min'.padStart(12)}  ${'mean'.padStart(12)}  ${'max'.padStart(12)}`);
    for (const f of s.featureRanges) {
      lines.push(`  ${f.name.padEnd(nw)}  ${num(f.min).padStart(12)}  ${num(f.mean).padStart(12)}  ${num(f.max).padStart(12)}`);
    }
  }
  return lines.join('\n') + '\n';
}

/**
 * The text form of a model file's header: settings, training, resume point, CV table.
 *
 * @example
 * io.stdout.write(formatModel(await load('best.dsg'), 'best.dsg'));
 */
export function formatModel(model: Model, file: string): string {
  const h = model.header;
  const training = h.training as Partial<TrainingRecord>;
  // Names padded to the longest (at least 10), so values line up: labeledOrder, supportVectors.
  const keyWidth = Math.max(10, ...Object.keys(h.hyperparameters).map((k) => k.length));
  const lines = [
    `file:        ${file}`,
    `learner:     ${h.learner}`,
    `metric:      ${h.metric}`,
    `task:        ${h.task.kind}${h.task.kind === 'binary' ? ` (positive ${h.task.classNames?.[h.task.positive] ?? h.task.positive}, threshold ${num(h.task.threshold)})` : ` (${h.task.classes.length} classes)`}`,
    `predictor:   ${h.predictor.kind}${h.predictor.kind === 'random-features' ? `, ${h.predictor.history.t} blocks of m = ${h.predictor.features.m}${h.predictor.average ? `, the mean of iterates ${h.predictor.average.from}…${h.predictor.history.t}` : ''}` : `, ${h.predictor.n} centres`}`,
    `features:    ${h.featureNames.length}; label column '${h.labelName}'`,
    `scaling:     ${scalingText(model.scaler.clipQuantile)}`,
    `training:    ${shownNumber(training.rows)} rows (${shownNumber(training.labeledRows)} labeled)${typeof training.data === 'string' ? ` from ${training.data}` : ''}`,
    ...(typeof training.defaultSigma?.ratio === 'number' && typeof training.defaultSigma.sigma0 === 'number'
      ? [`σ default:   ${num(training.defaultSigma.ratio)}σ₀ (σ₀ = ${num(training.defaultSigma.sigma0)}, the median heuristic; σ/σ₀ ${defaultSigmaRule(LEARNERS.find((l) => l.name === h.learner))})`]
      : []),
    ...(typeof training.budget === 'string' ? [`budget:      ${training.budget} (the learner's budget rule; T not given)`] : []),
    ...(h.resume ? [`resume:      at t = ${h.resume.t} (continue with --init ${file} --iterations T')`] : []),
    'hyperparameters:',
    ...Object.entries(h.hyperparameters).map(([k, v]) => `  ${k.padEnd(keyWidth)} ${typeof v === 'object' ? JSON.stringify(v) : typeof v === 'number' ? num(v) : String(v)}`),
  ];
  const tuned = training.tune;
  // The training record is not part of the model's arithmetic and the checksum does not vouch for its shape: a part that cannot be shown is said so.
  const at = lines.length;
  if (tuned) try {
    lines.push('', `cross-validation (${tuned.folds} folds over the labeled rows${(tuned.repeats ?? 1) > 1 ? `, drawn ${tuned.repeats} times` : ''}, σ₀ = ${num(tuned.sigma0)}${typeof tuned.sigmaRatio === 'number' ? ` (chosen σ = ${num(tuned.sigmaRatio)}σ₀)` : ''}${tuned.halving ? (tuned.halving.budget ? `, successive halving over the budget η = ${tuned.halving.eta} from ${tuned.halving.t0}/${tuned.halving.T} of it (restarted; early rounds on ${tuned.halving.earlyFolds ?? tuned.folds} folds)` : `, successive halving η = ${tuned.halving.eta} from t0 = ${tuned.halving.t0} to T = ${tuned.halving.T}`) : ''}${tuned.select === 'neighbourhood' ? ', ranked by the grid neighbourhood\'s mean' : ''}):`);
    lines.push(formatTuneTable({ table: tuned.table, metric: METRICS[tuned.metric as MetricName]?.title ?? tuned.metric, folds: tuned.folds, repeats: tuned.repeats ?? 1 }).trimEnd());
    const c = tuned.blockEvaluations;
    if (c && c.fullGrid > 0) lines.push(`cost: ${thousands(c.halving)} block evaluations per batch point, ${(100 * c.fraction).toFixed(1)}% of a full grid at T`);
    lines.push(...unlabeledLines(tuned.usesUnlabeled, tuned.table.some((row) => row.status === 'reference')));
    lines.push(...minorityShareLines(tuned.minorityShare));
    const od = tuned.overDefaults;
    if (od && typeof od.gain === 'number' && typeof od.se === 'number') lines.push(`against the defaults: the search's pick gains ${signedNum(od.gain)} ± ${num(od.se)} (one standard error) in CV${tuned.guard === 'one-se' ? '; guard one-se' : ''}`);
    if (lines.slice(at).some((l) => typeof l !== 'string')) throw new TypeError('not text');
  } catch {
    lines.length = at;
    lines.push('', 'cross-validation: the record in this file cannot be read (damaged or written by another program)');
  }
  return lines.join('\n') + '\n';
}

/** A count from the training record, or '?' when it is not a number. */
function shownNumber(v: unknown): string {
  return typeof v === 'number' && Number.isFinite(v) ? String(v) : '?';
}

export const describe: Command = {
  name: 'describe',
  summary: 'rows, features, labeled/unlabeled counts, class balance, feature ranges',
  help: HELP,
  async run(argv, io) {
    const { values, positionals } = parseCommandArgs(argv, {
      ...READ_OPTION_SPECS,
      json: { type: 'boolean' },
    });
    const input = await inputFile(onePositional(positionals, 'input file'), io, 'input file');
    if (input.endsWith('.dsg')) {
      const model = await load(input, { onWarning: (m) => io.stderr.write(`dsgkit: warning: ${m}\n`) });
      io.stdout.write(values.json ? JSON.stringify(model.header, null, 2) + '\n' : formatModel(model, input));
      return 0;
    }
    if (await isPredictionsFile(input)) {
      const p = await summarizePredictions(input);
      io.stdout.write(values.json ? JSON.stringify(p, null, 2) + '\n' : formatPredictions(p));
      return 0;
    }
    const read = parseReadOptions(values);
    let s: DatasetSummary;
    if (formatOf(input) === 'arrow') {
      // Streamed, batch by batch: describe a file of any size in flat memory.
      const rows = await openArrowRows(input, read);
      const acc = new SummaryAccumulator(rows.featureNames);
      for await (const b of rows.batches()) acc.add(b.X, b.y, b.n);
      s = acc.summary(input, rows.labelName, (y) => rows.labels.finish(y));
    } else s = summarize(await readDataset(input, read), input);
    io.stdout.write(values.json ? JSON.stringify(s, null, 2) + '\n' : formatSummary(s));
    return 0;
  },
};

/** A signed number as describe shows numbers: `+0.012`, `−0.003`. */
function signedNum(v: number): string {
  return `${v < 0 ? '−' : '+'}${num(Math.abs(v))}`;
}
