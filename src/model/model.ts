/**
 * A trained model: a task plus a predictor, with the scikit-learn contract
 * (`decisionFunction`, `predict`, `score`, `save`). Every method takes data in
 * any form `train` takes — a Dataset, a file path, an Arrow Table, or rows as
 * arrays — and applies the model's own scaling.
 */
import { readFile } from 'node:fs/promises';
import { Table } from 'apache-arrow';
import { ModelError, UsageError } from '../errors.ts';
import { makeDataset, readDataset, tableToDataset, type Dataset, type ReadDatasetOptions } from '../data/index.ts';
import { MinMaxScaler } from '../data/scaler.ts';
import { writeFileAtomic } from '../data/atomic.ts';
import { decodeModel, encodeModel, MODEL_FORMAT_VERSION, type ModelHeader } from './model-file.ts';
import { restorePredictor, type PredictOptions, type Predictor } from './predictor.ts';
import { checkEvaluable, labelName, labelsFromScores, metricValue, taskMetrics, type Task, type TaskMetrics } from './task.ts';

export type { PredictOptions } from './predictor.ts';

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
    const ds = await this.dataset(data);
    const X = this.scaler.transformInPlace(ds.X.slice());
    return this.predictor.evaluate(X, ds.n, new Float64Array(ds.n), opts);
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
    const ds = await this.dataset(data);
    checkEvaluable(this.task, ds);
    const f = await this.decisionFunction(ds, opts);
    return metricValue(this.header.metric, this.task, ds.y, f);
  }

  /**
   * Every metric of the model's task on the labeled rows of `data` (unlabeled rows skipped).
   *
   * @example
   * const m = await model.evaluate(test); // { kind: 'binary', auc, accuracy, f1, tp, … }
   */
  async evaluate(data: DataInput, opts: PredictOptions = {}): Promise<TaskMetrics & { labeled: number; unlabeled: number }> {
    const ds = await this.dataset(data);
    checkEvaluable(this.task, ds);
    const f = await this.decisionFunction(ds, opts);
    let labeled = 0;
    for (let i = 0; i < ds.n; i++) labeled += ds.labeled[i];
    return { ...taskMetrics(this.task, ds.y, f), labeled, unlabeled: ds.n - labeled };
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
    };
    return encodeModel(header, this.predictor.payload());
  }

  /**
   * Writes the model to `path` atomically (temp file + rename).
   *
   * @example
   * await model.save('model.dsg');
   */
  async save(path: string): Promise<void> {
    await writeFileAtomic(path, this.toBytes());
  }

  /**
   * Rebuilds a model from file bytes; `file` names it in errors.
   *
   * @example
   * const model = Model.fromBytes(bytes, 'model.dsg');
   */
  static fromBytes(bytes: Uint8Array, file = 'model'): Model {
    const { header, payload, warnings } = decodeModel(bytes, file);
    return new Model(header, restorePredictor(header.predictor, payload), warnings);
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
    const where = ds.source ?? 'data';
    if (ds.d !== d) throw new ModelError(`${where}: the model expects ${d} features (${preview(names)}), the data has ${ds.d} (${preview(ds.featureNames)})`);
    for (let k = 0; k < d; k++) {
      if (ds.featureNames[k] !== names[k]) throw new ModelError(`${where}: feature ${k + 1} is '${ds.featureNames[k]}' but the model was trained with '${names[k]}' there`);
    }
    return ds;
  }
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
    bytes = await readFile(path);
  } catch (err) {
    throw new ModelError(`${path}: cannot read model file (${(err as NodeJS.ErrnoException).code ?? String(err)})`, { cause: err });
  }
  const model = Model.fromBytes(bytes, path);
  for (const w of model.warnings) (opts.onWarning ?? ((m: string) => process.emitWarning(m)))(w);
  return model;
}
