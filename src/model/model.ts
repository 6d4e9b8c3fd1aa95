/**
 * A trained model: a task plus a predictor, with the scikit-learn contract
 * (`decisionFunction`, `predict`, `score`, `save`). Every method takes data in
 * any form `train` takes — a Dataset, a file path, an Arrow Table, or rows as
 * arrays — and applies the model's own scaling.
 */
import { constants } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import { Table } from 'apache-arrow';
import { DataError, ModelError, UsageError } from '../errors.ts';
import { formatOf, makeDataset, readDataset, tableToDataset, type Dataset, type ReadDatasetOptions } from '../data/index.ts';
import { openArrowRows, type ArrowRows } from '../data/arrow.ts';
import { defaultThreads, EvaluatorPool } from '../engine/pool.ts';
import { MinMaxScaler } from '../data/scaler.ts';
import { writeFileAtomic } from '../data/atomic.ts';
import { decodeModel, encodeModel, MODEL_FORMAT_VERSION, type ModelHeader } from './model-file.ts';
import { restorePredictor, type PredictOptions, type Predictor } from './predictor.ts';
import { checkEvaluable, labelName, labelsFromScores, metricValue, taskMetrics, type Task, type TaskMetrics } from './task.ts';

/** `threads` as a prediction takes it: absent, or a whole number ≥ 1 (a UsageError otherwise). */
function checkThreads(threads: unknown): void {
  if (threads !== undefined && !(Number.isSafeInteger(threads) && (threads as number) >= 1)) throw new UsageError(`threads must be a whole number ≥ 1, got ${String(threads)}`);
}

export type { PredictOptions } from './predictor.ts';

/** Rows scored so far by a streaming pass ({@link Model.scoreBatches}). */
export interface RowsDone {
  readonly rows: number;
  readonly n: number;
}

/** Options of the streaming methods: the engine's, a label column other than the model's, and progress. */
export type StreamOptions = PredictOptions & { readonly labelColumn?: string; readonly onRows?: (p: RowsDone) => void };

/** Labeled rows with their scores ({@link Model.labeledScores}). */
export interface LabeledScores {
  /** The labeled rows' labels (d = 0: no features), in file order. */
  readonly ds: Dataset;
  /** Their scores f(x). */
  readonly f: Float64Array;
  /** Rows read, labeled or not. */
  readonly rows: number;
}

/** One record batch scored: its rows' labels as read (NaN = unlabeled) and their scores `f(x)`. */
export interface ScoredBatch {
  /** Dataset row of the batch's first row (0-based). */
  readonly row0: number;
  readonly n: number;
  readonly y: Float64Array;
  readonly f: Float64Array;
}

/** Data as every model method (and `train`) accepts it. */
export type DataInput = Dataset | string | Table | ReadonlyArray<ArrayLike<number>>;

/**
 * A trained dsgkit model.
 *
 * @example
 * const model = await train({ learner: LEARNER_NAMES[0], data: 'data/spam.arrow' });
 * const scores = await model.decisionFunction('test.arrow');
 * console.log(await model.score(test)); // the learner's own metric (header.metric)
 * await model.save('spam.dsg');
 * const again = await load('spam.dsg');
 */
export class Model {
  readonly header: ModelHeader;
  readonly predictor: Predictor;
  readonly scaler: MinMaxScaler;
  /** What a user should know about this model's file (e.g. an old format). */
  readonly warnings: readonly string[];

  constructor(header: ModelHeader, predictor: Predictor, warnings: readonly string[] = []) {
    this.header = header;
    this.predictor = predictor;
    this.scaler = MinMaxScaler.fromJSON(header.scaler);
    this.warnings = warnings;
  }

  /** Learner id. */
  get learner(): string {
    return this.header.learner;
  }

  /** What the model predicts. */
  get task(): Task {
    return this.header.task;
  }

  /** Input features the model expects, in order. */
  get featureNames(): readonly string[] {
    return this.header.featureNames;
  }

  /**
   * Raw scores `f(x)` for every row of `data` (unscaled features, as in the
   * training file; the model applies its own scaling).
   *
   * @example
   * const f = await model.decisionFunction('test.arrow', { threads: 4 });
   * const g = await model.decisionFunction([[0.1, 2.5, 3]]);
   */
  async decisionFunction(data: DataInput, opts: PredictOptions = {}): Promise<Float64Array> {
    checkThreads(opts.threads);
    if (isArrowPath(data)) {
      // Batch by batch: 8 bytes a row for the scores, never the file's features.
      const rows = await this.openRows(data);
      const out = new Float64Array(rows.n);
      for await (const { row0, f } of this.scoreBatches(rows, opts)) out.set(f, row0);
      return out;
    }
    const ds = await this.dataset(data);
    const X = this.scaler.transformInPlace(ds.X.slice());
    const f = await this.predictor.evaluate(X, ds.n, new Float64Array(ds.n), opts);
    this.checkScores(f, X, 0, ds.source);
    return f;
  }

  /**
   * Refuses scores that are not finite numbers (a value so far outside the
   * training range that the kernel's arithmetic overflows): a DataError
   * naming the row and the column furthest out, instead of a NaN score and a
   * label made up from it.
   */
  private checkScores(f: Float64Array, X: Float64Array, row0: number, file: string | undefined): void {
    for (let i = 0; i < f.length; i++) {
      if (Number.isFinite(f[i])) continue;
      const d = this.scaler.d;
      let worst = 0;
      for (let k = 1; k < d; k++) if (!(Math.abs(X[i * d + k]) <= Math.abs(X[i * d + worst]))) worst = k;
      const k = worst;
      const where = { ...(file !== undefined ? { file } : {}), column: this.scaler.featureNames[k], row: row0 + i + 1 };
      if (Math.abs(X[i * d + k]) <= 1e6) {
        // The row is ordinary: the model's own numbers overflow.
        throw new DataError(`the model gives a score of ${f[i]} here, for values within reach of its training range: its coefficients overflow (a damaged or forged model file)`, where);
      }
      const raw = this.scaler.min[k] + X[i * d + k] * (this.scaler.max[k] - this.scaler.min[k]);
      throw new DataError(
        `the score is ${f[i]}: the value ${Number.isFinite(raw) ? raw.toPrecision(6) : 'here'} lies too far outside the training range [${this.scaler.min[k]}, ${this.scaler.max[k]}] for the model to score it (scaled to ${X[i * d + k].toPrecision(6)})`,
        where,
      );
    }
  }

  /**
   * Predicted label values (class indices when the training data had string
   * classes: see {@link labelNames}).
   *
   * @example
   * const labels = await model.predict(test);
   */
  async predict(data: DataInput, opts: PredictOptions = {}): Promise<Float64Array> {
    return this.labelsFromScores(await this.decisionFunction(data, opts));
  }

  /**
   * Labels from scores already computed by {@link decisionFunction}.
   *
   * @example
   * const labels = model.labelsFromScores(scores);
   */
  labelsFromScores(f: Float64Array): Float64Array {
    return labelsFromScores(this.task, f);
  }

  /**
   * Label values as the user wrote them: class names for string classes, numbers as text otherwise.
   *
   * @example
   * model.labelNames(await model.predict(test)); // ['spam', 'ham', …]
   */
  labelNames(values: ArrayLike<number>): string[] {
    return Array.from(values, (v) => labelName(this.task, v));
  }

  /**
   * The learner's own metric on the labeled rows of `data` (AUC for binary
   * AUC learners, mean threshold AUC for ordinal ones, …; see `header.metric`).
   *
   * @example
   * const heldOut = await model.score('test.arrow');
   */
  async score(data: DataInput, opts: PredictOptions = {}): Promise<number> {
    const { ds, f } = await this.labeledScores(data, opts);
    return metricValue(this.header.metric, this.task, ds.y, f);
  }

  /**
   * Every metric of the model's task on the labeled rows of `data` (unlabeled rows skipped).
   *
   * @example
   * const m = await model.evaluate(test); // { kind: 'binary', auc, accuracy, f1, tp, … }
   */
  async evaluate(data: DataInput, opts: StreamOptions = {}): Promise<TaskMetrics & { labeled: number; unlabeled: number }> {
    return this.metricsOf(await this.labeledScores(data, opts));
  }

  /**
   * Every metric of the model's task from {@link labeledScores}.
   *
   * @example
   * const scored = await model.labeledScores('test.arrow');
   * model.metricsOf(scored); // { kind: 'binary', auc, …, labeled, unlabeled }
   */
  metricsOf(scored: LabeledScores): TaskMetrics & { labeled: number; unlabeled: number } {
    const { ds, f, rows } = scored;
    return { ...taskMetrics(this.task, ds.y, f), labeled: ds.n, unlabeled: rows - ds.n };
  }

  /**
   * The labeled rows of `data` (labels only, features dropped) with their
   * scores, and the rows read; a DataError when they cannot be evaluated (no
   * labeled rows, one class only). An Arrow file path is streamed: memory is
   * 16 bytes a labeled row (score and label; up to 16 more while the metrics are computed)
   * and one record batch, whatever the file's size.
   *
   * @example
   * const { ds, f } = await model.labeledScores('big-test.arrow', { onRows: (p) => log(p.rows) });
   */
  async labeledScores(data: DataInput, opts: StreamOptions = {}): Promise<LabeledScores> {
    let y: Float64Array;
    let f: Float64Array;
    let rows: number;
    let source: string | undefined;
    if (isArrowPath(data)) {
      const file = await this.openRows(data, opts.labelColumn, false);
      let labeledY: number[] = [];
      let labeledF: number[] = [];
      const ys: Float64Array[] = [];
      const fs: Float64Array[] = [];
      for await (const batch of this.scoreBatches(file, opts)) {
        for (let i = 0; i < batch.n; i++) {
          if (Number.isNaN(batch.y[i])) continue;
          labeledY.push(batch.y[i]);
          labeledF.push(batch.f[i]);
        }
        // Packed into typed arrays as they grow: 16 bytes a labeled row, not a JS array's 2 × 8+.
        if (labeledY.length >= 65_536) {
          ys.push(Float64Array.from(labeledY));
          fs.push(Float64Array.from(labeledF));
          labeledY = [];
          labeledF = [];
        }
      }
      ys.push(Float64Array.from(labeledY));
      fs.push(Float64Array.from(labeledF));
      y = concat(ys);
      f = concat(fs);
      rows = file.n;
      source = data;
    } else {
      const all = await this.dataset(data);
      checkEvaluable(this.task, all);
      const fAll = await this.decisionFunction(all, opts);
      const keep: number[] = [];
      for (let i = 0; i < all.n; i++) if (all.labeled[i]) keep.push(i);
      y = Float64Array.from(keep, (i) => all.y[i]);
      f = Float64Array.from(keep, (i) => fAll[i]);
      rows = all.n;
      source = all.source;
    }
    const ds = makeDataset({ X: new Float64Array(0), d: 0, y, labelName: this.header.labelName, ...(source !== undefined ? { source } : {}), ...(this.task.classNames ? { classNames: this.task.classNames } : {}) });
    checkEvaluable(this.task, ds);
    return { ds, f, rows };
  }

  /**
   * Opens an Arrow IPC file for scoring batch by batch, its columns checked
   * against the model's (a ModelError naming the first difference).
   *
   * @example
   * const rows = await model.openRows('big.arrow');
   * rows.n; // 20_000_000, counted from the batch headers
   */
  async openRows(path: string, labelColumn?: string, allowMissingLabel = true): Promise<ArrowRows> {
    const read = { ...this.readOptions(), allowMissingLabel, ...(labelColumn !== undefined ? { labelColumn } : {}) };
    const rows = await openArrowRows(path, read);
    this.checkColumns(path, rows.featureNames);
    return rows;
  }

  /**
   * Scores an Arrow file's record batches as they are read, on one worker
   * pool for the whole pass: memory is one batch and its scores, whatever the
   * file's size. A bad value is a DataError naming file, column and row when
   * its batch is reached (a caller writing output writes it atomically, so
   * nothing is left). The scores are the bits {@link decisionFunction} gives.
   *
   * @example
   * for await (const { row0, f } of model.scoreBatches(await model.openRows('big.arrow'))) write(row0, f);
   */
  async *scoreBatches(rows: ArrowRows, opts: StreamOptions = {}): AsyncGenerator<ScoredBatch> {
    checkThreads(opts.threads);
    const threads = opts.pool ? opts.pool.threads + 1 : Math.min(opts.threads ?? defaultThreads(), defaultThreads());
    const pool = opts.pool ?? (threads > 1 ? new EvaluatorPool(threads - 1) : undefined);
    const engine: PredictOptions = { ...opts, ...(pool ? { pool } : { threads: 1 }) };
    let row0 = 0;
    try {
      for await (const batch of rows.batches()) {
        const X = this.scaler.transformInPlace(batch.X);
        const f = await this.predictor.evaluate(X, batch.n, new Float64Array(batch.n), engine);
        this.checkScores(f, X, row0, rows.file);
        yield { row0, n: batch.n, y: batch.y, f };
        row0 += batch.n;
        opts.onRows?.({ rows: row0, n: rows.n });
      }
    } finally {
      if (!opts.pool) await pool?.close();
    }
  }

  /**
   * The model file's bytes (see model-file.ts).
   *
   * @example
   * const bytes = model.toBytes();
   */
  toBytes(): Uint8Array {
    // Fields in one fixed order, so the same model is the same bytes however its header was built (trained, loaded, upgraded).
    const h = this.header;
    const header: ModelHeader = {
      format: h.format,
      version: MODEL_FORMAT_VERSION,
      learner: h.learner,
      hyperparameters: h.hyperparameters,
      metric: h.metric,
      task: h.task,
      predictor: this.predictor.describe(),
      scaler: h.scaler,
      featureNames: h.featureNames,
      labelName: h.labelName,
      training: h.training,
      ...(h.resume !== undefined ? { resume: h.resume } : {}),
    };
    return encodeModel(header, this.predictor.payload());
  }

  /**
   * Writes the model to `path` atomically (temp file + rename). The bytes are
   * decoded with the loader's own checks first, so a model that saves is a
   * model that loads: one that would not (say, coefficients that overflowed
   * in a diverged run) is a ModelError and nothing is written.
   *
   * @example
   * await model.save('model.dsg');
   */
  async save(path: string): Promise<void> {
    if (typeof path !== 'string' || path === '') throw new UsageError(`save needs the path of a file to write, got ${path === '' ? "''" : typeof path}`);
    const bytes = this.toBytes();
    try {
      decodeModel(bytes, path);
      MinMaxScaler.fromJSON(this.header.scaler);
    } catch (err) {
      throw new ModelError(`${path}: not saved: the model would not load back (${(err as Error).message.replace(`${path}: `, '')}); the training run probably diverged — try a smaller step or a larger λ`, { cause: err });
    }
    await writeFileAtomic(path, bytes);
  }

  /**
   * Rebuilds a model from file bytes; `file` names it in errors.
   *
   * @example
   * const model = Model.fromBytes(bytes, 'model.dsg');
   */
  static fromBytes(bytes: Uint8Array, file = 'model'): Model {
    const { header, payload, warnings } = decodeModel(bytes, file);
    try {
      return new Model(header, restorePredictor(header.predictor, payload), warnings);
    } catch (err) {
      // Every ModelError names the file it is about.
      if (err instanceof ModelError && !err.message.startsWith(`${file}: `)) throw new ModelError(`${file}: ${err.message}`, { cause: err });
      throw err;
    }
  }

  /**
   * Options that read a data file the way this model needs it: its label
   * column, its class names, its LIBSVM width, and no label column required.
   *
   * @example
   * const ds = await readDataset('test.libsvm', model.readOptions());
   */
  readOptions(): ReadDatasetOptions {
    const names = this.task.classNames;
    const opts: ReadDatasetOptions & { classes?: readonly string[] } = {
      labelColumn: this.header.labelName,
      allowMissingLabel: true,
      features: this.featureNames.length,
      ...(names ? { classes: names } : {}),
    };
    return opts;
  }

  /** `data` as a Dataset with the model's features (and class names), or a UsageError / ModelError saying why not. */
  private async dataset(data: DataInput): Promise<Dataset> {
    const names = this.featureNames;
    const d = names.length;
    let ds: Dataset;
    if (typeof data === 'string') ds = await readDataset(data, this.readOptions());
    else if (data instanceof Table) ds = tableToDataset(data, 'table', this.readOptions());
    else if (Array.isArray(data)) ds = rowsToDataset(data as ReadonlyArray<ArrayLike<number>>, names);
    else if (isDataset(data)) ds = alignClasses(data, this.task.classNames);
    else throw new UsageError(`data must be a Dataset, a file path, an Arrow Table or an array of rows (arrays of ${d} numbers), got ${describe(data)}`);
    this.checkColumns(ds.source ?? 'data', ds.featureNames);
    return ds;
  }

  /** A ModelError unless `featureNames` are the model's, in its order. */
  private checkColumns(where: string, featureNames: readonly string[]): void {
    const names = this.featureNames;
    const d = names.length;
    if (featureNames.length !== d) throw new ModelError(`${where}: the model expects ${d} features (${preview(names)}), the data has ${featureNames.length} (${preview(featureNames)})`);
    for (let k = 0; k < d; k++) {
      if (featureNames[k] !== names[k]) throw new ModelError(`${where}: feature ${k + 1} is '${featureNames[k]}' but the model was trained with '${names[k]}' there`);
    }
  }
}

/** Whether `data` is the path of an Arrow IPC file (read batch by batch by the scoring methods). */
function isArrowPath(data: unknown): data is string {
  return typeof data === 'string' && formatOf(data) === 'arrow';
}

function concat(parts: readonly Float64Array[]): Float64Array {
  const out = new Float64Array(parts.reduce((a, p) => a + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

function isDataset(x: unknown): x is Dataset {
  const ds = x as Dataset | null;
  return ds !== null && typeof ds === 'object' && ds.X instanceof Float64Array && ds.y instanceof Float64Array && ds.labeled instanceof Uint8Array && Number.isInteger(ds.n) && Number.isInteger(ds.d);
}

function describe(x: unknown): string {
  if (x === null) return 'null';
  if (typeof x !== 'object') return `${typeof x} ${String(x)}`;
  return `an object (${Object.keys(x as object).slice(0, 4).join(', ') || 'no fields'})`;
}

/** Unlabeled rows given as arrays of numbers, checked: `d` finite numbers each. */
function rowsToDataset(rows: ReadonlyArray<ArrayLike<number>>, names: readonly string[]): Dataset {
  const d = names.length;
  const X = new Float64Array(rows.length * d);
  rows.forEach((row, i) => {
    if (row === null || typeof row !== 'object' || row.length !== d) throw new UsageError(`data: row ${i + 1} must be an array of ${d} numbers (the model's features ${preview(names)})`);
    for (let k = 0; k < d; k++) {
      const v = row[k];
      if (typeof v !== 'number' || !Number.isFinite(v)) throw new UsageError(`data: row ${i + 1}, feature ${k + 1} ('${names[k]}') must be a finite number, got ${String(v)}`);
      X[i * d + k] = v;
    }
  });
  return makeDataset({ X, d, y: new Float64Array(rows.length).fill(NaN), featureNames: names });
}

/** A dataset whose string classes are renumbered to the model's class order (by name). */
function alignClasses(ds: Dataset, modelNames: readonly string[] | undefined): Dataset {
  const names = ds.classNames;
  if (!modelNames || !names || names.every((n, k) => modelNames[k] === n)) return ds;
  const index = names.map((n) => modelNames.indexOf(n));
  const y = ds.y.map((v, i) => {
    if (Number.isNaN(v)) return NaN;
    const k = index[v];
    if (k < 0) throw new ModelError(`${ds.source ?? 'data'}: row ${i + 1}: class '${names[v]}' is not a class of the model (${modelNames.join(', ')})`);
    return k;
  });
  return { ...ds, y, classNames: modelNames };
}

function preview(names: readonly string[]): string {
  return names.length <= 4 ? names.join(', ') : `${names.slice(0, 3).join(', ')}, …, ${names[names.length - 1]}`;
}

/**
 * Loads a model file saved by {@link Model.save}; warnings (an old format
 * without a checksum) go to `onWarning` (default: `process.emitWarning`).
 *
 * @example
 * const model = await load('model.dsg');
 */
export async function load(path: string, opts: { onWarning?: (message: string) => void } = {}): Promise<Model> {
  if (typeof path !== 'string') throw new UsageError(`load: path must be a string, got ${describe(path)}`);
  let bytes: Uint8Array;
  try {
    // stat first, then O_NONBLOCK: a FIFO must neither hang the open (nor, then, the exit on Ctrl-C) nor be opened at all.
    if ((await stat(path)).isFIFO()) throw new ModelError(`${path}: cannot read model file (not a regular file: a model is read from a file on disk)`);
    const fh = await open(path, constants.O_RDONLY | constants.O_NONBLOCK);
    try {
      if (!(await fh.stat()).isFile()) throw new ModelError(`${path}: cannot read model file (not a regular file: a model is read from a file on disk)`);
      bytes = await fh.readFile();
    } finally {
      await fh.close();
    }
  } catch (err) {
    if (err instanceof ModelError) throw err;
    throw new ModelError(`${path}: cannot read model file (${(err as NodeJS.ErrnoException).code ?? String(err)})`, { cause: err });
  }
  const model = Model.fromBytes(bytes, path);
  for (const w of model.warnings) (opts.onWarning ?? ((m: string) => process.emitWarning(m)))(w);
  return model;
}
