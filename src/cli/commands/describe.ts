/** `dsgkit describe`: what is in a data file, or in a model file (settings, training, CV table). */
import { classCounts, readDataset, type Dataset } from '../../data/index.ts';
import { load, type Model } from '../../model/model.ts';
import { formatTuneTable } from './tune.ts';
import type { TuneRow } from '../../tune.ts';
import { METRICS, type MetricName } from '../../model/task.ts';
import { onePositional, parseCommandArgs } from '../args.ts';
import { parseReadOptions, READ_OPTION_SPECS, readOptionsHelp } from '../read-options.ts';
import type { Command } from './command.ts';

const HELP = `dsgkit describe — summarise a data file or a model file

Usage: dsgkit describe <input> [options]
       dsgkit describe <model.dsg> [--json]

A model file (.dsg): its learner, metric, task, every hyperparameter as
trained (σ included when it came from the median heuristic), the training
rows, the iteration a continued run would start from, and — for a model
written by \`dsgkit tune\` — the cross-validation table.

A data file: the number of rows and features, how many rows are labeled and
unlabeled, the class balance of the labeled rows (count and fraction per
label value), and the range (min, mean, max) of every feature. Reads any
format dsgkit reads (.arrow .arrows .feather .ipc .csv .libsvm .svm .txt .t).

Options:
${readOptionsHelp()}
  --json               print the summary as JSON instead of text
  -h, --help           show this help

Example:
  dsgkit describe data/spam.arrow
  dsgkit describe best.dsg
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
 * Counts and ranges of a dataset (what `dsgkit describe` prints).
 *
 * @example
 * summarize(ds, 'spam.arrow').classes; // [{ label: -1, count: 2788, fraction: 0.606 }, …]
 */
export function summarize(ds: Dataset, file: string): DatasetSummary {
  let labeled = 0;
  for (let i = 0; i < ds.n; i++) labeled += ds.labeled[i];
  const classes = [...classCounts(ds)].map(([label, count]) => ({ label: ds.classNames ? ds.classNames[label] : label, count, fraction: count / labeled }));
  const featureRanges = ds.featureNames.map((name, k) => {
    let min = Infinity;
    let max = -Infinity;
    let sum = 0;
    for (let i = 0; i < ds.n; i++) {
      const v = ds.X[i * ds.d + k];
      if (v < min) min = v;
      if (v > max) max = v;
      sum += v;
    }
    return { name, min: ds.n ? min : NaN, mean: ds.n ? sum / ds.n : NaN, max: ds.n ? max : NaN };
  });
  return { file, rows: ds.n, features: ds.d, labelColumn: ds.labelName, labeled, unlabeled: ds.n - labeled, classes, featureRanges };
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
  const training = h.training as { rows?: number; labeledRows?: number; data?: string; tune?: { folds: number; metric: string; sigma0: number; table: TuneRow[]; halving?: { eta: number; t0: number; T: number }; blockEvaluations?: { halving: number; fullGrid: number; fraction: number } } };
  const lines = [
    `file:        ${file}`,
    `learner:     ${h.learner}`,
    `metric:      ${h.metric}`,
    `task:        ${h.task.kind}${h.task.kind === 'binary' ? ` (positive ${h.task.classNames?.[h.task.positive] ?? h.task.positive}, threshold ${num(h.task.threshold)})` : ` (${h.task.classes.length} classes)`}`,
    `predictor:   ${h.predictor.kind}${h.predictor.kind === 'random-features' ? `, ${h.predictor.history.t} blocks of m = ${h.predictor.features.m}` : `, ${h.predictor.n} centres`}`,
    `features:    ${h.featureNames.length}; label column '${h.labelName}'`,
    `training:    ${training.rows ?? '?'} rows (${training.labeledRows ?? '?'} labeled)${training.data !== undefined ? ` from ${training.data}` : ''}`,
    ...(h.resume ? [`resume:      at t = ${h.resume.t} (continue with --init ${file} --iterations T')`] : []),
    'hyperparameters:',
    ...Object.entries(h.hyperparameters).map(([k, v]) => `  ${k.padEnd(10)} ${typeof v === 'object' ? JSON.stringify(v) : typeof v === 'number' ? num(v) : String(v)}`),
  ];
  const tuned = training.tune;
  if (tuned) {
    lines.push('', `cross-validation (${tuned.folds} folds over the labeled rows, σ₀ = ${num(tuned.sigma0)}${tuned.halving ? `, successive halving η = ${tuned.halving.eta} from t0 = ${tuned.halving.t0} to T = ${tuned.halving.T}` : ''}):`);
    lines.push(formatTuneTable({ table: tuned.table, metric: METRICS[tuned.metric as MetricName]?.title ?? tuned.metric, folds: tuned.folds }).trimEnd());
    const c = tuned.blockEvaluations;
    if (c && c.fullGrid > 0) lines.push(`cost: ${c.halving.toLocaleString('en')} block evaluations per batch point, ${(100 * c.fraction).toFixed(1)}% of a full grid at T`);
  }
  return lines.join('\n') + '\n';
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
    const input = onePositional(positionals, 'input file');
    if (input.endsWith('.dsg')) {
      const model = await load(input, { onWarning: (m) => io.stderr.write(`dsgkit: warning: ${m}\n`) });
      io.stdout.write(values.json ? JSON.stringify(model.header, null, 2) + '\n' : formatModel(model, input));
      return 0;
    }
    const ds = await readDataset(input, parseReadOptions(values));
    const s = summarize(ds, input);
    io.stdout.write(values.json ? JSON.stringify(s, null, 2) + '\n' : formatSummary(s));
    return 0;
  },
};
