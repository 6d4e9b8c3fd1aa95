/**
 * A trained model: the scikit-learn contract (`decisionFunction`, `predict`,
 * `score`, `save`) over a random-feature history evaluated by the engine.
 */
import { readFile } from 'node:fs/promises';
import { ModelError } from '../errors.ts';
import type { Dataset } from '../data/dataset.ts';
import { MinMaxScaler } from '../data/scaler.ts';
import { writeFileAtomic } from '../data/atomic.ts';
import { Evaluator, type EvaluatorOptions } from '../engine/evaluator.ts';
import { History } from '../engine/history.ts';
import { auc } from '../metrics/auc.ts';
import { decodeModel, encodeModel, type ModelHeader } from './model-file.ts';

/** Rows per engine call when scoring a dataset: bounds the per-chunk result buffers. */
const PREDICT_BATCH = 4096;

/** How prediction runs (threads, cache); never changes a value. */
export type PredictOptions = Pick<EvaluatorOptions, 'threads' | 'cacheBytes' | 'parallelMinWork'>;

/**
 * A trained dsgkit model.
 *
 * @example
 * const model = await train({ learner: 'qsg-s2auc', data: 'data/spam.arrow' });
 * const scores = await model.decisionFunction(test);
 * console.log(await model.score(test)); // AUC
 * await model.save('spam.dsg');
 * const again = await load('spam.dsg');
 */
export class Model {
  readonly header: ModelHeader;
  readonly history: History;
  readonly scaler: MinMaxScaler;

  constructor(header: ModelHeader, history: History) {
    this.header = header;
    this.history = history;
    this.scaler = MinMaxScaler.fromJSON(header.scaler);
  }

  /** Learner id. */
  get learner(): string {
    return this.header.learner;
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
   * const f = await model.decisionFunction(test, { threads: 4 });
   */
  async decisionFunction(data: Dataset, opts: PredictOptions = {}): Promise<Float64Array> {
    this.checkFeatures(data);
    const { d } = this.header.features;
    const evaluator = new Evaluator(this.history, this.header.features, { ...opts, chunkSize: this.header.chunkSize });
    const out = new Float64Array(data.n);
    try {
      for (let start = 0; start < data.n; start += PREDICT_BATCH) {
        const count = Math.min(PREDICT_BATCH, data.n - start);
        const X = this.scaler.transformInPlace(data.X.slice(start * d, (start + count) * d));
        await evaluator.evaluate(X, count, out.subarray(start, start + count));
      }
    } finally {
      await evaluator.close();
    }
    return out;
  }

  /**
   * Predicted labels: the positive label where `f(x)` exceeds the fitted threshold, else the negative one.
   *
   * @example
   * const labels = await model.predict(test);
   */
  async predict(data: Dataset, opts: PredictOptions = {}): Promise<Float64Array> {
    return this.labelsFromScores(await this.decisionFunction(data, opts));
  }

  /**
   * Labels from scores already computed by {@link decisionFunction}.
   *
   * @example
   * const labels = model.labelsFromScores(scores);
   */
  labelsFromScores(f: Float64Array): Float64Array {
    const { positive, negative, threshold } = this.header.task;
    return f.map((v) => (v > threshold ? positive : negative));
  }

  /**
   * The model's metric on the labeled rows of `data`: AUC for binary models.
   *
   * @example
   * const heldOutAuc = await model.score(test);
   */
  async score(data: Dataset, opts: PredictOptions = {}): Promise<number> {
    const f = await this.decisionFunction(data, opts);
    return auc(data.y, f, { positive: this.header.task.positive });
  }

  /**
   * The model file's bytes (see model-file.ts).
   *
   * @example
   * const bytes = model.toBytes();
   */
  toBytes(): Uint8Array {
    const { t, firstLive, m } = { t: this.history.t, firstLive: this.history.firstLive, m: this.history.m };
    const header: ModelHeader = { ...this.header, history: { t, firstLive, scale: this.history.scale } };
    return encodeModel(header, this.history.stored.subarray(firstLive * 2 * m, t * 2 * m));
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
    const { header, coefficients } = decodeModel(bytes, file);
    const { t, firstLive, scale } = header.history;
    const { m } = header.features;
    const stored = new Float64Array(t * 2 * m);
    stored.set(coefficients, firstLive * 2 * m);
    return new Model(header, History.restore({ m, t, scale, firstLive, stored }));
  }

  private checkFeatures(data: Dataset): void {
    const names = this.header.featureNames;
    const where = data.source ?? 'data';
    if (data.d !== names.length) {
      throw new ModelError(`${where}: the model expects ${names.length} features (${preview(names)}), the data has ${data.d} (${preview(data.featureNames)})`);
    }
    for (let k = 0; k < names.length; k++) {
      if (data.featureNames[k] !== names[k]) {
        throw new ModelError(`${where}: feature ${k + 1} is '${data.featureNames[k]}' but the model was trained with '${names[k]}' there`);
      }
    }
  }
}

function preview(names: readonly string[]): string {
  return names.length <= 4 ? names.join(', ') : `${names.slice(0, 3).join(', ')}, …, ${names[names.length - 1]}`;
}

/**
 * Loads a model file saved by {@link Model.save}.
 *
 * @example
 * const model = await load('model.dsg');
 */
export async function load(path: string): Promise<Model> {
  let bytes: Uint8Array;
  try {
    bytes = await readFile(path);
  } catch (err) {
    throw new ModelError(`${path}: cannot read model file (${(err as NodeJS.ErrnoException).code ?? String(err)})`, { cause: err });
  }
  return Model.fromBytes(bytes, path);
}
