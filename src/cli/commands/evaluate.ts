/** `dsgkit evaluate`: AUC, accuracy and F1 of a saved model on labeled rows. */
import { LEARNER_NAMES, labelName, load, type Model, type TaskMetrics } from '../../api.ts';
import { classCounts, formatOf, readDataset } from '../../data/index.ts';
import { rowsProgress } from '../progress.ts';
import { intOption, parseCommandArgs, requireString } from '../args.ts';
import { inputFile } from '../stdin.ts';
import type { Command } from './command.ts';

const HELP = `dsgkit evaluate — measure a saved model on labeled rows

Usage: dsgkit evaluate --model <model.dsg> --data <file> [options]

Scores the labeled rows of the file (unlabeled rows are skipped) and prints
the metrics of the model's task. Binary models:
  AUC        probability that a random positive row scores above a random
             negative one (ties count one half)
  accuracy   fraction of rows whose predicted label is right
  F1         of the positive class: 2·tp / (2·tp + fp + fn)
and the confusion counts; the positive class is the model's (as trained),
every other label counts as negative. Ordinal models:
  mean AUC   the mean over the k − 1 thresholds j of the AUC of f for
             "class > j" against "class ≤ j" (the QS3ORAO paper's metric)
  MAE        mean absolute error of the predicted class rank
  accuracy   fraction of rows whose predicted class is right
and the confusion matrix. Predicted labels use the thresholds fitted on the
training labels. LIBSVM files are read with the model's number of features.
An Arrow file is streamed batch by batch: memory is the scores and labels of
the labeled rows (16 bytes a row, up to 16 more while the metrics are
computed) and one record
batch, whatever the file's size; a long run reports rows/s and the time left.

Options:
  --model <file>        model file written by 'dsgkit train' (required)
  --data <file>         labeled rows: Arrow, CSV or LIBSVM (required)
  --label <name>        label column (default: the model's, as trained)
  --threads <n>         evaluation threads (default: all cores)
  --quiet, -q           no progress on stderr
  --json                print one JSON object instead of text
  -h, --help            show this help

Exit code 1 when the file has no labeled rows, or labeled rows of one class
only (AUC is undefined), or features other than the model's, or the model
file is damaged (its checksum is verified before use).

Example:
  dsgkit train --learner ${LEARNER_NAMES[0]} --data data/breast_cancer-train.arrow --out bc.dsg
  dsgkit evaluate --model bc.dsg --data data/breast_cancer-test.arrow
`;

export const evaluate: Command = {
  name: 'evaluate',
  summary: "a saved model's metrics on labeled rows (AUC, accuracy, F1; ordinal: mean AUC, MAE)",
  help: HELP,
  async run(argv, io) {
    const { values } = parseCommandArgs(argv, {
      model: { type: 'string' },
      data: { type: 'string' },
      label: { type: 'string' },
      threads: { type: 'string' },
      json: { type: 'boolean' },
      quiet: { type: 'boolean', short: 'q' },
    });
    const modelPath = requireString(values, 'model');
    const dataPath = await inputFile(requireString(values, 'data'), io, 'data');
    const threads = intOption(values, 'threads', { min: 1 });
    const model = await load(modelPath, { onWarning: (m) => io.stderr.write(`dsgkit: warning: ${m}\n`) });
    const labelColumn = typeof values.label === 'string' ? values.label : undefined;
    // An Arrow file is streamed (scores and labels of the labeled rows kept: 16 bytes a row).
    let pass: ReturnType<typeof rowsProgress> | undefined;
    const scored = await model.labeledScores(formatOf(dataPath) === 'arrow' ? dataPath : await readDataset(dataPath, { ...model.readOptions(), allowMissingLabel: false, ...(labelColumn !== undefined ? { labelColumn } : {}) }), {
      ...(threads !== undefined ? { threads } : {}),
      ...(labelColumn !== undefined ? { labelColumn } : {}),
      onRows: (p) => {
        pass ??= rowsProgress(io, `evaluate ${dataPath}`, p.n, values.quiet === true);
        pass.update(p.rows);
      },
    });
    pass?.stop();
    const { ds } = scored;
    const task = model.task;
    if (task.kind === 'binary') {
      const foreign = [...classCounts(ds).keys()].filter((c) => c !== task.positive && c !== task.negative);
      if (foreign.length > 0) {
        io.stderr.write(
          `dsgkit: warning: ${dataPath}: labels ${foreign.map((v) => labelName(task, v)).join(', ')} are not among the model's (${labelName(task, task.positive)}, ${labelName(task, task.negative)}); they count as negative\n`,
        );
      }
    }
    const r = model.metricsOf(scored);
    if (values.json) {
      io.stdout.write(`${JSON.stringify({ model: modelPath, data: dataPath, learner: model.learner, ...(task.kind === 'binary' ? { positive: labelName(task, task.positive) } : {}), ...r })}\n`);
      return 0;
    }
    io.stdout.write(formatMetrics(model, modelPath, dataPath, r));
    return 0;
  },
};

/**
 * The text `dsgkit evaluate` prints for a model's metrics on a file.
 *
 * @example
 * io.stdout.write(formatMetrics(model, 'bc.dsg', 'test.arrow', await model.evaluate('test.arrow')));
 */
export function formatMetrics(model: Model, modelPath: string, dataPath: string, r: TaskMetrics & { labeled: number; unlabeled: number }): string {
  const task = model.task;
  const skipped = r.unlabeled > 0 ? `, ${r.unlabeled} unlabeled skipped` : '';
  if (r.kind === 'binary' && task.kind === 'binary') {
    const nPos = r.tp + r.fn;
    const pos = labelName(task, task.positive);
    return [
      `model      ${modelPath} (${model.learner}, positive class ${pos})`,
      `data       ${dataPath}: ${r.labeled} labeled rows (${pos}: ${nPos}, other: ${r.labeled - nPos})${skipped}`,
      `AUC        ${r.auc.toFixed(4)}`,
      `accuracy   ${r.accuracy.toFixed(4)}`,
      `F1         ${r.f1.toFixed(4)}`,
      `confusion  tp ${r.tp}  fp ${r.fp}  tn ${r.tn}  fn ${r.fn}`,
    ].join('\n') + '\n';
  }
  if (r.kind !== 'ordinal' || task.kind !== 'ordinal') throw new Error('metrics do not match the model task');
  const names = task.classes.map((c) => labelName(task, c));
  const w = Math.max(6, ...names.map((n) => n.length), ...r.confusion.flat().map((v) => String(v).length));
  const matrix = [
    `  ${'true \\ predicted'.padEnd(w + 2)}${names.map((n) => n.padStart(w + 1)).join('')}`,
    ...r.confusion.map((row, k) => `  ${names[k].padEnd(w + 2)}${' '.repeat(Math.max(0, 'true \\ predicted'.length - w))}${row.map((v) => String(v).padStart(w + 1)).join('')}`),
  ];
  return [
    `model      ${modelPath} (${model.learner}, ${names.length} ordered classes ${names.join(' < ')})`,
    `data       ${dataPath}: ${r.labeled} labeled rows${skipped}`,
    `mean AUC   ${r.meanAuc.toFixed(4)}  (per threshold: ${r.perThreshold.map((v) => (Number.isNaN(v) ? '–' : v.toFixed(4))).join(', ')})`,
    `MAE        ${r.mae.toFixed(4)}`,
    `accuracy   ${r.accuracy.toFixed(4)}`,
    'confusion',
    ...matrix,
  ].join('\n') + '\n';
}
