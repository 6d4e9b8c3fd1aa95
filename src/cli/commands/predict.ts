/** `dsgkit predict`: score a file with a saved model and write the scores as Arrow. */
import { Field, Float64, makeData, type Data, RecordBatch, Schema, Struct } from 'apache-arrow';
import { DataError, UsageError } from '../../errors.ts';
import { load } from '../../api.ts';
import { formatForPath, readDataset, writeBatchesStreaming } from '../../data/index.ts';
import { intOption, parseCommandArgs, requireArrowOutput, requireString } from '../args.ts';
import { checkOutputs } from '../outputs.ts';
import type { Command } from './command.ts';

/** Rows per record batch of the output file. */
const ROWS_PER_BATCH = 65_536;

const HELP = `dsgkit predict — score every row of a file with a saved model

Usage: dsgkit predict --model <model.dsg> --data <file> --out <scores.arrow> [options]

Reads the rows (labeled or not; the file may have no label column at all),
checks that its feature columns are the ones the model was trained on (same
names, same order), and writes an Arrow file with one row per input row:
  score       f(x), the model's real-valued score (higher = more positive)
  predicted   the predicted label: the model's positive label where f(x) is
              above the threshold fitted on the training labels, else the
              negative label
  <label>     the input's label column, copied (nulls kept), when the input
              has at least one labeled row
The output is written atomically (temporary file + rename).

Options:
  --model <file>        model file written by 'dsgkit train' (required)
  --data <file>         rows to score: Arrow, CSV or LIBSVM (required)
  --out <file>          output, Arrow (.arrow; .arrows = stream format) (required)
  --label <name>        label column of the input (default: the model's, as trained)
  --threads <n>         evaluation threads (default: all cores)
  -h, --help            show this help

Exit codes: 1 when the model cannot be read or its features differ from the
file's (the message says which), 2 for bad usage.

Example:
  dsgkit train --learner qsg-s2auc --data data/breast_cancer.arrow --out bc.dsg
  dsgkit predict --model bc.dsg --data data/breast_cancer.arrow --out bc-scores.arrow
`;

function column(name: string, values: Float64Array, nullable: boolean): { field: Field; data: Data<Float64> } {
  const length = values.length;
  let nullCount = 0;
  let bitmap: Uint8Array | null = null;
  if (nullable) {
    bitmap = new Uint8Array(Math.ceil(length / 8));
    for (let i = 0; i < length; i++) {
      if (Number.isNaN(values[i])) nullCount++;
      else bitmap[i >> 3] |= 1 << (i & 7);
    }
  }
  return {
    field: new Field(name, new Float64(), nullable),
    data: makeData({ type: new Float64(), length, nullCount, nullBitmap: nullCount > 0 ? bitmap : null, data: values }),
  };
}

/**
 * Record batches of the prediction output: `score`, `predicted`, and the label column when given.
 *
 * @example
 * const batches = [...predictionBatches(scores, labels, { name: 'label', values: y })];
 */
export function* predictionBatches(score: Float64Array, predicted: Float64Array, label?: { name: string; values: Float64Array }): Generator<RecordBatch> {
  let start = 0;
  do {
    const end = Math.min(score.length, start + ROWS_PER_BATCH);
    const cols = [column('score', score.subarray(start, end), false), column('predicted', predicted.subarray(start, end), false)];
    if (label) cols.push(column(label.name, label.values.subarray(start, end), true));
    const schema = new Schema(cols.map((c) => c.field));
    const struct = makeData({ type: new Struct(schema.fields), length: end - start, nullCount: 0, children: cols.map((c) => c.data) });
    yield new RecordBatch(schema, struct);
    start = end;
  } while (start < score.length); // an empty input still gets one (empty) batch, so the file has its schema
}

export const predict: Command = {
  name: 'predict',
  summary: 'score a file with a saved model → Arrow (score, predicted)',
  help: HELP,
  async run(argv, io) {
    const { values } = parseCommandArgs(argv, {
      model: { type: 'string' },
      data: { type: 'string' },
      out: { type: 'string' },
      label: { type: 'string' },
      threads: { type: 'string' },
    });
    const modelPath = requireString(values, 'model');
    const dataPath = requireString(values, 'data');
    const out = requireArrowOutput(requireString(values, 'out'), 'out');
    await checkOutputs({ out }, { model: modelPath, data: dataPath });
    const threads = intOption(values, 'threads', { min: 1 });

    const model = await load(modelPath);
    const labelColumn = typeof values.label === 'string' ? values.label : model.header.labelName;
    const ds = await readDataset(dataPath, { labelColumn, allowMissingLabel: true, features: model.featureNames.length }); // LIBSVM: the model's width
    const score = await model.decisionFunction(ds, threads !== undefined ? { threads } : {});
    const predicted = model.labelsFromScores(score);
    const hasLabels = ds.labeled.some((v) => v === 1);
    if (hasLabels && (ds.labelName === 'score' || ds.labelName === 'predicted')) {
      throw new DataError(`the label column is named '${ds.labelName}', which the output uses for its own column; rename it`, { file: dataPath, column: ds.labelName });
    }
    await writeBatchesStreaming(out, predictionBatches(score, predicted, hasLabels ? { name: ds.labelName, values: ds.y } : undefined), formatForPath(out));

    const { positive, negative } = model.header.task;
    let nPos = 0;
    for (const v of predicted) if (v === positive) nPos++;
    const cols = ['score', 'predicted', ...(hasLabels ? [ds.labelName] : [])].join(', ');
    io.stdout.write(`wrote ${out}: ${ds.n} rows (${cols}); predicted ${positive}: ${nPos}, ${negative}: ${ds.n - nPos}\n`);
    return 0;
  },
};
