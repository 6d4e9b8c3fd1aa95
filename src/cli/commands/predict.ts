/** `dsgkit predict`: score a file with a saved model and write the scores as Arrow. */
import { Field, Float64, makeData, type Data, RecordBatch, Schema, Struct, Utf8, vectorFromArray } from 'apache-arrow';
import { DataError } from '../../errors.ts';
import { LEARNER_NAMES, load } from '../../api.ts';
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
  predicted   the predicted label: for a binary model its positive label
              where f(x) is above the threshold fitted on the training
              labels, else the negative label; for an ordinal model the class
              of rank 1 + #{j : f(x) > b_j}. Class names when the training
              labels were strings (spam / ham), label values otherwise
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
  dsgkit train --learner ${LEARNER_NAMES[0]} --data data/breast_cancer.arrow --out bc.dsg
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

/** A float64 column, or a UTF-8 column for class names. */
function anyColumn(name: string, values: Float64Array | ReadonlyArray<string | null>, nullable: boolean): { field: Field; data: Data } {
  if (values instanceof Float64Array) return column(name, values, nullable);
  const vector = vectorFromArray(values as (string | null)[], new Utf8());
  return { field: new Field(name, new Utf8(), nullable), data: vector.data[0] };
}

/**
 * Record batches of the prediction output: `score`, `predicted`, and the label column when given.
 *
 * @example
 * const batches = [...predictionBatches(scores, labels, { name: 'label', values: y })];
 */
export function* predictionBatches(
  score: Float64Array,
  predicted: Float64Array | readonly string[],
  label?: { name: string; values: Float64Array | ReadonlyArray<string | null> },
): Generator<RecordBatch> {
  let start = 0;
  do {
    const end = Math.min(score.length, start + ROWS_PER_BATCH);
    const cols = [column('score', score.subarray(start, end), false), anyColumn('predicted', predicted.slice(start, end), false)];
    if (label) cols.push(anyColumn(label.name, label.values.slice(start, end), true));
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

    const model = await load(modelPath, { onWarning: (m) => io.stderr.write(`dsgkit: warning: ${m}\n`) });
    const ds = await readDataset(dataPath, { ...model.readOptions(), ...(typeof values.label === 'string' ? { labelColumn: values.label } : {}) });
    const score = await model.decisionFunction(ds, threads !== undefined ? { threads } : {});
    const predicted = model.labelsFromScores(score);
    const named = model.task.classNames !== undefined;
    const hasLabels = ds.labeled.some((v) => v === 1);
    if (hasLabels && (ds.labelName === 'score' || ds.labelName === 'predicted')) {
      throw new DataError(`the label column is named '${ds.labelName}', which the output uses for its own column; rename it`, { file: dataPath, column: ds.labelName });
    }
    const labels = named ? Array.from(ds.y, (v) => (Number.isNaN(v) ? null : model.labelNames([v])[0])) : ds.y;
    await writeBatchesStreaming(
      out,
      predictionBatches(score, named ? model.labelNames(predicted) : predicted, hasLabels ? { name: ds.labelName, values: labels } : undefined),
      formatForPath(out),
    );

    const counts = new Map<number, number>();
    for (const v of predicted) counts.set(v, (counts.get(v) ?? 0) + 1);
    const classes = model.task.kind === 'binary' ? [model.task.positive, model.task.negative] : model.task.classes;
    const cols = ['score', 'predicted', ...(hasLabels ? [ds.labelName] : [])].join(', ');
    io.stdout.write(`wrote ${out}: ${ds.n} rows (${cols}); predicted ${classes.map((c) => `${model.labelNames([c])[0]}: ${counts.get(c) ?? 0}`).join(', ')}\n`);
    return 0;
  },
};
