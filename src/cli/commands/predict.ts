/** `dsgkit predict`: score a file with a saved model and write the scores as Arrow, CSV or JSON Lines (a file or stdout). */
import { Field, Float64, makeData, type Data, RecordBatch, Schema, Struct, Utf8, vectorFromArray } from 'apache-arrow';
import { DataError } from '../../errors.ts';
import { LEARNER_NAMES, load } from '../../api.ts';
import { FORMAT_NAMES, formatOf, outputChunks, outputFormatFor, readDataset, writeBatchesStreaming } from '../../data/index.ts';
import { rowsProgress } from '../progress.ts';
import { choiceOption, intOption, parseCommandArgs, positiveNumberOption, requireString } from '../args.ts';
import { inputFile } from '../stdin.ts';
import { writeChunks } from '../stdout.ts';
import { checkOutputs } from '../outputs.ts';
import { interruptible } from '../interrupt.ts';
import { loadQueueModule } from '../../distributed/optional.ts';
import { parseQueueUrl } from '../../distributed/redis-url.ts';
import { UsageError } from '../../errors.ts';
import type { Command } from './command.ts';

/** Rows per record batch of the output file. */
const ROWS_PER_BATCH = 65_536;

const HELP = `dsgkit predict — score every row of a file with a saved model

Usage: dsgkit predict --model <model.dsg> --data <file> --out <scores.arrow|.csv|.jsonl|-> [options]

Reads the rows (labeled or not; the file may have no label column at all),
checks that its feature columns are the ones the model was trained on (same
names, same order), and writes one row per input row — to an Arrow, CSV or
JSON Lines file chosen by the extension of --out, or to stdout with --out -:
  score       f(x), the model's real-valued score (higher = more positive)
  predicted   the predicted label: for a binary model its positive label
              where f(x) is above the threshold fitted on the training
              labels, else the negative label; for an ordinal model the class
              of rank 1 + #{j : f(x) > b_j}. Class names when the training
              labels were strings (spam / ham), label values otherwise
  <label>     the input's label column, copied (nulls kept), when the input
              has one (Arrow) or has at least one labeled row (CSV, LIBSVM)
An Arrow input is streamed: record batches are read, scored on the worker
pool and written one at a time, so memory stays flat (one batch) whatever the
file's size; a long run reports rows/s and the time left on stderr. CSV and
LIBSVM inputs are read whole ('dsgkit convert' turns them into Arrow).
A file is written atomically (temporary file + rename): a bad value found in
any batch is an error naming file, column and row, and nothing is written.
On stdout (--out -) rows go out as they are scored (CSV unless --format says
otherwise; Arrow as the IPC stream format), the summary line goes to stderr,
and a reader that stops early (| head) ends the run quietly with exit code 0.

With --queue, the Arrow input's record batches are cut into ranges of about
--job-rows rows and scored by 'dsgkit worker' processes on any hosts sharing
the Redis server and a folder (the model, the input and the output's folder
at the same absolute paths everywhere): each writes its part next to the
output, and the parts are checked and assembled into the same bytes a local
run writes. Ctrl-C removes the run's jobs; see docs/distributed.md.

Options:
  --model <file>        model file written by 'dsgkit train' (required)
  --data <file>         rows to score: Arrow, CSV or LIBSVM (required); '-'
                        reads stdin (its type told from its first bytes)
  --out <file>          output (required): .arrow .feather .ipc (Arrow file),
                        .arrows (Arrow stream), .csv, .jsonl .ndjson (JSON
                        Lines), or - for stdout
  --format <f>          arrow | csv | jsonl: the output format whatever the
                        name of --out (default: by extension; csv for -)
  --label <name>        label column of the input (default: the model's, as trained)
  --threads <n>         evaluation threads (default: all cores)
  --queue <url>         score on the workers of this Redis queue (redis://…, rediss:// for TLS)
  --job-rows <n>        with --queue: rows per job, in whole record batches (default 262144)
  --redis-wait <s>      with --queue: how long Redis may be unreachable before the run fails (default 60)
  --quiet, -q           no progress on stderr
  -h, --help            show this help

Exit codes: 1 when the model cannot be read or its features differ from the
file's (the message says which), 2 for bad usage.

Example:
  dsgkit train --learner ${LEARNER_NAMES[0]} --data data/breast_cancer-train.arrow --out bc.dsg
  dsgkit predict --model bc.dsg --data data/breast_cancer-test.arrow --out bc-scores.arrow
  dsgkit predict --model bc.dsg --data data/breast_cancer-test.arrow --out - | head
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
  summary: 'score a file with a saved model → Arrow, CSV or JSON Lines (score, predicted)',
  help: HELP,
  async run(argv, io) {
    const { values } = parseCommandArgs(argv, {
      model: { type: 'string' },
      data: { type: 'string' },
      out: { type: 'string' },
      format: { type: 'string' },
      label: { type: 'string' },
      threads: { type: 'string' },
      quiet: { type: 'boolean', short: 'q' },
      queue: { type: 'string' },
      'job-rows': { type: 'string' },
      'redis-wait': { type: 'string' },
    });
    const modelPath = requireString(values, 'model');
    const out = requireString(values, 'out');
    const format = outputFormatFor(out, choiceOption(values, 'format', FORMAT_NAMES));
    const toStdout = out === '-';
    await checkOutputs({ out }, { model: modelPath, data: requireString(values, 'data') }, {}, { stdout: true });
    const dataPath = await inputFile(requireString(values, 'data'), io, 'data');
    const threads = intOption(values, 'threads', { min: 1 });
    const queue = typeof values.queue === 'string' ? parseQueueUrl(values.queue) : undefined;
    const jobRows = intOption(values, 'job-rows', { min: 1 });
    const redisWait = positiveNumberOption(values, 'redis-wait');
    if (!queue && (jobRows !== undefined || redisWait !== undefined)) throw new UsageError(`--${jobRows !== undefined ? 'job-rows' : 'redis-wait'} needs --queue`);
    if (queue && formatOf(dataPath) !== 'arrow') throw new UsageError(`--queue needs an Arrow input (workers read its record batches); convert ${dataPath} with 'dsgkit convert' first`);
    if (queue && toStdout) throw new UsageError('--queue writes a file: the workers write parts next to it (give --out a path, not -)');

    const model = await load(modelPath, { onWarning: (m) => io.stderr.write(`dsgkit: warning: ${m}\n`) });
    const labelColumn = typeof values.label === 'string' ? values.label : undefined;
    const named = model.task.classNames !== undefined;
    const counts = new Map<number, number>();
    const labelsOf = (y: Float64Array) => (named ? Array.from(y, (v) => (Number.isNaN(v) ? null : model.labelNames([v])[0])) : y);
    /** The output batches of scored rows, counting the predicted labels. */
    function* outputOf(f: Float64Array, y: Float64Array, label: string | undefined): Generator<RecordBatch> {
      const predicted = model.labelsFromScores(f);
      for (const v of predicted) counts.set(v, (counts.get(v) ?? 0) + 1);
      yield* predictionBatches(f, named ? model.labelNames(predicted) : predicted, label !== undefined ? { name: label, values: labelsOf(y) } : undefined);
    }
    /** The batches to the file or stdout; 'closed' when stdout's reader went away. */
    const write = async (batches: Iterable<RecordBatch> | AsyncIterable<RecordBatch>): Promise<'done' | 'closed'> => {
      if (toStdout) return writeChunks(io.stdout, outputChunks(batches, format));
      await writeBatchesStreaming(out, batches, format);
      return 'done';
    };
    const clash = (name: string) => new DataError(`the label column is named '${name}', which the output uses for its own column; rename it`, { file: dataPath, column: name });
    let n: number;
    let label: string | undefined;
    if (formatOf(dataPath) === 'arrow') {
      // Streamed: one record batch in memory at a time, written as it is scored.
      const rows = await model.openRows(dataPath, labelColumn);
      label = rows.hasLabelColumn ? rows.labelName : undefined;
      if (label === 'score' || label === 'predicted') throw clash(label);
      n = rows.n;
      const progress = rowsProgress(io, `predict ${dataPath}`, n, values.quiet === true);
      const { scoreOnQueue } = queue ? await loadQueueModule(() => import('../../distributed/predict.ts')) : { scoreOnQueue: undefined };
      const run = async (signal?: AbortSignal) => {
        const scored = queue && scoreOnQueue
          ? scoreOnQueue(rows, {
              url: queue,
              modelPath,
              out,
              ...(labelColumn !== undefined ? { label: labelColumn } : {}),
              ...(jobRows !== undefined ? { jobRows } : {}),
              ...(redisWait !== undefined ? { redisWaitMs: redisWait * 1000 } : {}),
              ...(signal ? { signal } : {}),
              onNote: (m) => io.stderr.write(`dsgkit: ${m}\n`),
              onProgress: (done, total) => progress.update(Math.round((n * done) / total)),
            })
          : model.scoreBatches(rows, { ...(threads !== undefined ? { threads } : {}), onRows: (p) => progress.update(p.rows) });
        async function* output(): AsyncGenerator<RecordBatch> {
          let any = false;
          for await (const { f, y } of scored) {
            any = true;
            yield* outputOf(f, y, label);
          }
          if (!any) yield* outputOf(new Float64Array(0), new Float64Array(0), label); // the schema, for an empty input
        }
        return write(output());
      };
      // On the queue, a first Ctrl-C removes the run's jobs before exiting (130).
      const written = await (queue ? interruptible(({ signal }) => run(signal)) : run());
      progress.stop();
      if (written === 'closed') return 0;
    } else {
      const ds = await readDataset(dataPath, { ...model.readOptions(), ...(labelColumn !== undefined ? { labelColumn } : {}) });
      const score = await model.decisionFunction(ds, threads !== undefined ? { threads } : {});
      label = ds.labeled.some((v) => v === 1) ? ds.labelName : undefined;
      if (label === 'score' || label === 'predicted') throw clash(label);
      n = ds.n;
      if ((await write(outputOf(score, ds.y, label))) === 'closed') return 0;
    }

    const classes = model.task.kind === 'binary' ? [model.task.positive, model.task.negative] : model.task.classes;
    const cols = ['score', 'predicted', ...(label !== undefined ? [label] : [])].join(', ');
    (toStdout ? io.stderr : io.stdout).write(`wrote ${toStdout ? 'stdout' : out}: ${n} rows (${cols}); predicted ${classes.map((c) => `${model.labelNames([c])[0]}: ${counts.get(c) ?? 0}`).join(', ')}\n`);
    return 0;
  },
};
