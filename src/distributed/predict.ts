/**
 * `predict` across hosts: an Arrow file's record batches cut into ranges,
 * each range one `predict-range` job.
 *
 * A worker scores its range with the model (checked by SHA-256 against the
 * coordinator's copy) and writes a part file — an Arrow file of the range's
 * scores `f` and labels `y`, one record batch per input batch — atomically
 * into a hidden folder next to the output (`.<out>.parts-<run>/`). The
 * coordinator checks every part (its SHA-256 against the job's result, its
 * batches' row counts against the input's) and only then turns the parts,
 * batch by batch, into the very output batches a local `predict` writes: the
 * scores are the same bits on any thread count and any host (the engine's
 * fixed chunking), so the output file is the same bytes.
 *
 * Every worker must see the model, the input and the output's folder at the
 * same absolute paths (a shared filesystem); one that cannot fails the job
 * with the path it could not read.
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, readFile, rm } from 'node:fs/promises';
import { hostname } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { Field, Float64, makeData, RecordBatch, RecordBatchReader, Schema, Struct } from 'apache-arrow';
import type { ArrowRows } from '../data/arrow.ts';
import { defaultThreads, EvaluatorPool } from '../engine/pool.ts';
import type { PredictOptions } from '../model/predictor.ts';
import { writeBatchesStreaming } from '../data/index.ts';
import { DataError, QueueError } from '../errors.ts';
import { Model } from '../model/model.ts';
import { runJobs, type RunJobsOptions } from './coordinator.ts';
import { checkFields, checkUnderRoots, PayloadError } from './payload.ts';
import { newRunId } from './queue.ts';
import type { QueueUrl } from './redis-url.ts';

/** Rows a worker scores between two turns of its event loop. */
const SLICE_ROWS = 2048;

/** Rows per job unless `--job-rows` says otherwise: 4 record batches of the usual 65,536 rows. */
export const DEFAULT_JOB_ROWS = 262_144;

/** A `predict-range` job's payload. */
export interface PredictRangePayload {
  readonly run: string;
  /** Absolute path of the model file, and its SHA-256 (the worker checks it reads the same model). */
  readonly model: string;
  readonly modelSha256: string;
  /** Absolute path of the Arrow input. */
  readonly data: string;
  /** Label column, when not the model's. */
  readonly label?: string;
  /** Record batches `first … end − 1`, holding `rows` rows. */
  readonly first: number;
  readonly end: number;
  readonly rows: number;
  /** Absolute path of the part file to write. */
  readonly part: string;
}

/** What a worker returns for a `predict-range` job. */
export interface PartResult {
  readonly rows: number;
  readonly sha256: string;
  readonly bytes: number;
  readonly worker: string;
  readonly seconds: number;
}

/**
 * The checked payload of a `predict-range` job (a PayloadError says which field is wrong).
 *
 * @example
 * const p = await checkPredictRange(job.data, ['/shared']);
 */
export async function checkPredictRange(data: unknown, roots: readonly string[]): Promise<PredictRangePayload> {
  const p = checkFields<PredictRangePayload>('predict-range', data, {
    run: 'id',
    model: 'path',
    modelSha256: 'hex64',
    data: 'path',
    'label?': 'string',
    first: 'int',
    end: 'int',
    rows: 'int',
    part: 'path',
  });
  if (p.end <= p.first) throw new PayloadError(`predict-range: empty batch range ${p.first} … ${p.end - 1}`);
  if (!p.part.endsWith('.arrow') || !basename(dirname(p.part)).includes(`.parts-${p.run}`)) {
    throw new PayloadError(`predict-range: part '${p.part}' is not a part file of run ${p.run}`);
  }
  await checkUnderRoots(p.model, roots, 'model');
  await checkUnderRoots(p.data, roots, 'data');
  await checkUnderRoots(p.part, roots, 'part', true);
  return p;
}

const PART_SCHEMA = new Schema([new Field('f', new Float64(), false), new Field('y', new Float64(), false)]);

function partBatch(f: Float64Array, y: Float64Array): RecordBatch {
  const col = (v: Float64Array) => makeData({ type: new Float64(), length: v.length, nullCount: 0, data: v });
  return new RecordBatch(PART_SCHEMA, makeData({ type: new Struct(PART_SCHEMA.fields), length: f.length, nullCount: 0, children: [col(f), col(y)] }));
}

async function sha256OfFile(path: string): Promise<{ sha256: string; bytes: number }> {
  const hash = createHash('sha256');
  let bytes = 0;
  for await (const chunk of createReadStream(path)) {
    hash.update(chunk as Buffer);
    bytes += (chunk as Buffer).length;
  }
  return { sha256: hash.digest('hex'), bytes };
}

/** Models a worker has loaded, by path and SHA-256 (a job stream mostly reuses one). */
export class ModelCache {
  private readonly models = new Map<string, Model>();

  /** The model at `path`, checked to have the SHA-256 `sha256`. */
  async get(path: string, sha256: string): Promise<Model> {
    const key = `${sha256}:${path}`;
    const hit = this.models.get(key);
    if (hit) return hit;
    const bytes = await readFile(path);
    const got = createHash('sha256').update(bytes).digest('hex');
    if (got !== sha256) throw new QueueError(`${path}: the model file on this worker differs from the coordinator's (SHA-256 ${got.slice(0, 12)}… against ${sha256.slice(0, 12)}…); the shared folder is not the same file`);
    const model = Model.fromBytes(bytes, path);
    if (this.models.size >= 4) this.models.clear();
    this.models.set(key, model);
    return model;
  }
}

/** What a worker gives {@link runPredictRange}. */
export interface RangeContext {
  readonly threads?: number;
  readonly models: ModelCache;
  /** Called between record batches; throws to stop (cancelled run, worker shutting down). */
  readonly checkpoint: () => Promise<void>;
}

/**
 * Scores one range (the worker's side of a `predict-range` job) into its part file.
 *
 * @example
 * const result = await runPredictRange(await checkPredictRange(job.data, roots), { models, checkpoint: async () => {} });
 */
export async function runPredictRange(p: PredictRangePayload, ctx: RangeContext): Promise<PartResult> {
  const started = performance.now();
  const model = await ctx.models.get(p.model, p.modelSha256);
  const rows = await model.openRows(p.data, p.label);
  const expected = rows.batchRows.slice(p.first, p.end).reduce((a, b) => a + b, 0);
  if (p.end > rows.batchRows.length || expected !== p.rows) {
    throw new DataError(`this worker sees ${rows.batchRows.length} record batches (${rows.n} rows), not the coordinator's file (batches ${p.first} … ${p.end - 1} should hold ${p.rows} rows); the shared folder is not the same file`, { file: p.data });
  }
  const threads = Math.min(ctx.threads ?? defaultThreads(), defaultThreads());
  const pool = threads > 1 ? new EvaluatorPool(threads - 1) : undefined;
  const engine: PredictOptions = pool ? { pool } : { threads: 1 };
  let n = 0;
  // Scored as Model.scoreBatches does (the same bits: a row's score depends on no other row), but in
  // slices of SLICE_ROWS with a turn of the event loop between them, so the worker keeps renewing its
  // job's lock however long a record batch takes (a lock not renewed for --stall-seconds hands the job on).
  async function* parts(): AsyncGenerator<RecordBatch> {
    for await (const batch of rows.batches({ first: p.first, end: p.end })) {
      const X = model.scaler.transformInPlace(batch.X);
      const f = new Float64Array(batch.n);
      const d = X.length / Math.max(1, batch.n);
      for (let at = 0; at < batch.n; at += SLICE_ROWS) {
        const count = Math.min(SLICE_ROWS, batch.n - at);
        await model.predictor.evaluate(X.subarray(at * d, (at + count) * d), count, f.subarray(at, at + count), engine);
        await new Promise((r) => setImmediate(r));
      }
      await ctx.checkpoint();
      n += batch.n;
      yield partBatch(f, batch.y);
    }
  }
  try {
    await writeBatchesStreaming(p.part, parts(), 'file');
  } finally {
    await pool?.close();
  }
  const { sha256, bytes } = await sha256OfFile(p.part);
  return { rows: n, sha256, bytes, worker: `${hostname()}:${process.pid}`, seconds: (performance.now() - started) / 1000 };
}

/** What {@link scoreOnQueue} needs besides the opened input. */
export interface QueuePredictOptions extends Pick<RunJobsOptions, 'signal' | 'redisWaitMs' | 'onNote' | 'onProgress'> {
  readonly url: QueueUrl;
  readonly modelPath: string;
  readonly out: string;
  readonly label?: string;
  /** Rows per job, in whole record batches (default {@link DEFAULT_JOB_ROWS}). */
  readonly jobRows?: number;
}

/**
 * The record-batch ranges of `batchRows`, each at least `jobRows` rows
 * (the last may be shorter), as `[first, end)` pairs.
 *
 * @example
 * batchRanges([100, 100, 100, 50], 200); // [[0, 2], [2, 4]]
 */
export function batchRanges(batchRows: readonly number[], jobRows: number): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  let first = 0;
  let rows = 0;
  for (let b = 0; b < batchRows.length; b++) {
    rows += batchRows[b];
    if (rows >= jobRows || b === batchRows.length - 1) {
      out.push([first, b + 1]);
      first = b + 1;
      rows = 0;
    }
  }
  return out;
}

/**
 * Scores `rows` (opened with the model's `openRows`) on the queue's workers
 * and yields each input batch's scores `f` and labels `y`, in order, as
 * `Model.scoreBatches` would — but only once every part is back and checked.
 * The parts' folder is removed whatever happens.
 *
 * @example
 * for await (const { f, y } of scoreOnQueue(rows, { url, modelPath: 'm.dsg', out: 'scores.arrow' })) write(f, y);
 */
export async function* scoreOnQueue(rows: ArrowRows, opts: QueuePredictOptions): AsyncGenerator<{ f: Float64Array; y: Float64Array }> {
  if (rows.batchRows.length === 0) return;
  const run = newRunId('p');
  const out = resolve(opts.out);
  const partsDir = join(dirname(out), `.${basename(out)}.parts-${run}`);
  const modelPath = resolve(opts.modelPath);
  const modelSha256 = createHash('sha256').update(await readFile(modelPath)).digest('hex');
  const ranges = batchRanges(rows.batchRows, opts.jobRows ?? DEFAULT_JOB_ROWS);
  const payloads: PredictRangePayload[] = ranges.map(([first, end], i) => ({
    run,
    model: modelPath,
    modelSha256,
    data: resolve(rows.file),
    ...(opts.label !== undefined ? { label: opts.label } : {}),
    first,
    end,
    rows: rows.batchRows.slice(first, end).reduce((a, b) => a + b, 0),
    part: join(partsDir, `part-${String(i).padStart(6, '0')}.arrow`),
  }));
  await mkdir(partsDir);
  try {
    const results = await runJobs<PartResult>(
      payloads.map((data) => ({ name: 'predict-range', data })),
      { url: opts.url, run, ...pick(opts) },
    );
    // Every part checked before the first output byte.
    for (let i = 0; i < payloads.length; i++) {
      const got = await sha256OfFile(payloads[i].part).catch(() => undefined);
      if (!got || got.sha256 !== results[i].sha256 || results[i].rows !== payloads[i].rows) {
        throw new QueueError(`part ${payloads[i].part} (batches ${payloads[i].first} … ${payloads[i].end - 1}, from worker ${results[i].worker}) is missing or not what the worker reported; nothing written to ${opts.out}`);
      }
    }
    for (let i = 0; i < payloads.length; i++) {
      const p = payloads[i];
      const bytes = await readFile(p.part);
      if (createHash('sha256').update(bytes).digest('hex') !== results[i].sha256) throw new QueueError(`part ${p.part} changed while being assembled; nothing written to ${opts.out}`);
      let b = p.first;
      for (const batch of RecordBatchReader.from(bytes)) {
        if (batch.numRows === 0 && rows.batchRows[b] !== 0) continue;
        if (b >= p.end || batch.numRows !== rows.batchRows[b]) throw new QueueError(`part ${p.part}: record batch ${b + 1} has ${batch.numRows} rows, the input's ${rows.batchRows[b] ?? 'none'}`);
        const f = batch.getChildAt(0)!.toArray() as Float64Array;
        const y = batch.getChildAt(1)!.toArray() as Float64Array;
        yield { f, y };
        b++;
      }
      if (b !== p.end) throw new QueueError(`part ${p.part} holds ${b - p.first} record batches of ${p.end - p.first}`);
    }
  } finally {
    await rm(partsDir, { recursive: true, force: true });
  }
}

function pick(o: QueuePredictOptions): Partial<RunJobsOptions> {
  return {
    ...(o.signal ? { signal: o.signal } : {}),
    ...(o.redisWaitMs !== undefined ? { redisWaitMs: o.redisWaitMs } : {}),
    ...(o.onNote ? { onNote: o.onNote } : {}),
    ...(o.onProgress ? { onProgress: o.onProgress } : {}),
  };
}
