/** `dsgkit evaluate`: AUC, accuracy and F1 of a saved model on labeled rows. */
import { DataError } from '../../errors.ts';
import { load, type Model } from '../../api.ts';
import { classCounts, readDataset, selectRows, type Dataset } from '../../data/index.ts';
import { accuracy, auc, confusionCounts, f1Score } from '../../metrics/index.ts';
import { intOption, parseCommandArgs, requireString } from '../args.ts';
import type { Command } from './command.ts';

const HELP = `dsgkit evaluate — measure a saved model on labeled rows

Usage: dsgkit evaluate --model <model.dsg> --data <file> [options]

Scores the labeled rows of the file (unlabeled rows are skipped) and prints:
  AUC        probability that a random positive row scores above a random
             negative one (ties count one half) — what qsg-s2auc maximises
  accuracy   fraction of rows whose predicted label is right
  F1         of the positive class: 2·tp / (2·tp + fp + fn)
and the confusion counts. The positive class is the model's (as trained);
every other label counts as negative. Predicted labels use the threshold
fitted on the training labels.

Options:
  --model <file>        model file written by 'dsgkit train' (required)
  --data <file>         labeled rows: Arrow, CSV or LIBSVM (required)
  --label <name>        label column (default: the model's, as trained)
  --threads <n>         evaluation threads (default: all cores)
  --json                print one JSON object instead of text
  -h, --help            show this help

Exit code 1 when the file has no labeled rows, or labeled rows of one class
only (AUC is undefined), or features other than the model's.

Example:
  dsgkit train --learner qsg-s2auc --data data/breast_cancer.arrow --out bc.dsg
  dsgkit evaluate --model bc.dsg --data data/breast_cancer.arrow
`;

/** Held-out quality of a binary model on the labeled rows of a dataset. */
export interface HeldOutMetrics {
  auc: number;
  accuracy: number;
  f1: number;
  /** Labeled rows scored. */
  labeled: number;
  /** Unlabeled rows skipped. */
  unlabeled: number;
  positive: number;
  tp: number;
  fp: number;
  tn: number;
  fn: number;
}

/**
 * AUC, accuracy and F1 (positive class = the model's) of `model` on the
 * labeled rows of `data`. Throws a DataError naming the file when there are
 * no labeled rows, or when either the positive or the negative class is missing.
 *
 * @example
 * const { auc, accuracy, f1 } = await heldOutMetrics(model, test, { threads: 2 });
 */
export async function heldOutMetrics(model: Model, data: Dataset, opts: { threads?: number } = {}): Promise<HeldOutMetrics> {
  const where = { ...(data.source !== undefined ? { file: data.source } : {}), column: data.labelName };
  const rows: number[] = [];
  for (let i = 0; i < data.n; i++) if (data.labeled[i]) rows.push(i);
  if (rows.length === 0) throw new DataError(`no labeled rows to evaluate on (${data.n} rows, all unlabeled)`, where);
  const { positive } = model.header.task;
  const counts = classCounts(data);
  const nPos = counts.get(positive) ?? 0;
  if (nPos === 0 || nPos === rows.length) {
    const classes = [...counts.keys()].sort((a, b) => a - b).join(', ');
    throw new DataError(
      `the labeled rows are of one class only (${classes}); AUC needs rows of the model's positive class ${positive} and of another class`,
      where,
    );
  }
  const sub = rows.length === data.n ? data : selectRows(data, rows);
  const f = await model.decisionFunction(sub, opts.threads !== undefined ? { threads: opts.threads } : {});
  const predicted = model.labelsFromScores(f);
  const isPositive = (v: number) => v === positive;
  const c = confusionCounts(sub.y, predicted, { positive: isPositive });
  return {
    auc: auc(sub.y, f, { positive }),
    accuracy: accuracy(sub.y, predicted, { positive: isPositive }),
    f1: f1Score(sub.y, predicted, { positive: isPositive }),
    labeled: rows.length,
    unlabeled: data.n - rows.length,
    positive,
    tp: c.tp,
    fp: c.fp,
    tn: c.tn,
    fn: c.fn,
  };
}

export const evaluate: Command = {
  name: 'evaluate',
  summary: 'AUC, accuracy and F1 of a saved model on labeled rows',
  help: HELP,
  async run(argv, io) {
    const { values } = parseCommandArgs(argv, {
      model: { type: 'string' },
      data: { type: 'string' },
      label: { type: 'string' },
      threads: { type: 'string' },
      json: { type: 'boolean' },
    });
    const modelPath = requireString(values, 'model');
    const dataPath = requireString(values, 'data');
    const threads = intOption(values, 'threads', { min: 1 });
    const model = await load(modelPath);
    const labelColumn = typeof values.label === 'string' ? values.label : model.header.labelName;
    const ds = await readDataset(dataPath, { labelColumn, features: model.featureNames.length }); // LIBSVM: the model's width

    const { positive, negative } = model.header.task;
    const foreign = [...classCounts(ds).keys()].filter((c) => c !== positive && c !== negative);
    if (foreign.length > 0) {
      io.stderr.write(
        `dsgkit: warning: ${dataPath}: labels ${foreign.join(', ')} are not among the model's (${positive}, ${negative}); they count as negative\n`,
      );
    }
    const r = await heldOutMetrics(model, ds, threads !== undefined ? { threads } : {});
    if (values.json) {
      io.stdout.write(`${JSON.stringify({ model: modelPath, data: dataPath, learner: model.learner, ...r })}\n`);
      return 0;
    }
    const nPos = r.tp + r.fn;
    io.stdout.write(
      [
        `model      ${modelPath} (${model.learner}, positive class ${positive})`,
        `data       ${dataPath}: ${r.labeled} labeled rows (${positive}: ${nPos}, other: ${r.labeled - nPos})` +
          (r.unlabeled > 0 ? `, ${r.unlabeled} unlabeled skipped` : ''),
        `AUC        ${r.auc.toFixed(4)}`,
        `accuracy   ${r.accuracy.toFixed(4)}`,
        `F1         ${r.f1.toFixed(4)}`,
        `confusion  tp ${r.tp}  fp ${r.fp}  tn ${r.tn}  fn ${r.fn}`,
      ].join('\n') + '\n',
    );
    return 0;
  },
};
