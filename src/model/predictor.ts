/**
 * The predictor of a model: the function `f` itself, in one of two forms.
 *
 * - `random-features`: `f(x) = Σ_i α_i·φ_i(x) (+ b)` over a coefficient history
 *   whose block `i` regenerates its frequencies from `(seed, i)`; evaluated by
 *   the engine's worker pool (QSG-S2AUC, DSG and every learner on the loop).
 *   The bias `b` is optional: learners without one store no `bias` field, so
 *   their model files are the same bytes as before the field existed.
 * - `kernel-expansion`: `f(x) = Σ_i c_i k(x_i, x)` over stored centres with
 *   the exact kernel (the exact O(n³) solver; support-vector models).
 *
 * Each form says how much it stores (so a loader checks a file's size before
 * allocating anything) and how it is saved and restored bit for bit.
 */
import { ModelError } from '../errors.ts';
import { chunkSpan, rowsPerCall } from '../engine/chunks.ts';
import { Evaluator, type EvaluatorOptions } from '../engine/evaluator.ts';
import { History, RENORMALISE_BELOW } from '../engine/history.ts';
import { checkRandomFeatures, type RandomFeatures } from '../engine/random-features.ts';
import { svChunkSizeFor } from '../engine/chunks.ts';
import type { SharedRows } from '../engine/shared-rows.ts';
import { SupportVectorEvaluator } from '../engine/sv-evaluator.ts';
import { SupportVectorHistory, type CentreRows } from '../engine/sv-history.ts';
import { evaluateGathered, type TrainingRows } from '../data/training-rows.ts';
import type { KernelExpansion } from '../features/kernel-expansion.ts';
import { checkKernelSpec, type KernelSpec } from '../features/kernel-spec.ts';

/** How prediction runs (threads, cache); never changes a value. */
export type PredictOptions = Pick<EvaluatorOptions, 'threads' | 'cacheBytes' | 'parallelMinWork' | 'pool' | 'frequencies'>;

/** Most rows per engine call when scoring many rows (fewer on wide rows and long histories: see {@link predictBatch}). */
const PREDICT_BATCH = 4096;

/**
 * Most bytes of points one engine call copies (4 MiB). Each call copies its
 * points into the engine's shared memory, and fresh memory costs its first
 * touch: 4,096 rows of 1,497 features are 49 MB a call, which made scoring
 * the `prior` threshold's rows most of a LapSVM search.
 */
const PREDICT_BATCH_BYTES = 4 * 2 ** 20;

/**
 * Rows per engine call for points of `d` features: {@link PREDICT_BATCH},
 * fewer when that many would pass {@link PREDICT_BATCH_BYTES}, at least 1.
 * Never changes a value: each row's sum is the same whichever call computes it.
 *
 * @example
 * predictBatch(9);    // 4096
 * predictBatch(1497); // 350
 */
export function predictBatch(d: number): number {
  return Math.max(1, Math.min(PREDICT_BATCH, Math.floor(PREDICT_BATCH_BYTES / (8 * d))));
}

/** Where the points f is evaluated at are: a row-major matrix, or rows of a training set by index. */
type Points = { readonly X: Float64Array } | { readonly rows: TrainingRows; readonly indices: ArrayLike<number> };

/**
 * `f` at `nPoints` points by `evaluator`, `batch` rows a call, into `out`;
 * closes the evaluator. Rows by index are copied a batch at a time
 * ({@link evaluateGathered}), never all at once.
 */
async function evaluateBatched(evaluator: Pick<Evaluator, 'evaluate' | 'close'>, points: Points, nPoints: number, d: number, batch: number, out: Float64Array): Promise<void> {
  const evaluate = (X: Float64Array, n: number, part: Float64Array) => evaluator.evaluate(X, n, part);
  try {
    if ('rows' in points) {
      const { rows, indices } = points;
      await evaluateGathered(nPoints, d, batch, (p, X, r) => rows.copyRow(indices[p], X, r), evaluate, out);
    } else {
      for (let start = 0; start < nPoints; start += batch) {
        const count = Math.min(batch, nPoints - start);
        await evaluate(points.X.subarray(start * d, (start + count) * d), count, out.subarray(start, start + count));
      }
    }
  } finally {
    await evaluator.close();
  }
}

/** Checks `points` (rows by index: of the predictor's width `d`) and `out` (room for `nPoints` values). */
function checkPoints(points: Points, nPoints: number, out: Float64Array, d: number): void {
  if ('rows' in points && points.rows.d !== d) throw new RangeError(`rows have ${points.rows.d} features, the predictor ${d}`);
  if (out.length < nPoints) throw new RangeError(`out holds ${out.length} values, need ${nPoints}`);
}

/** The JSON description of a predictor, as kept in the model header. */
export type PredictorHeader =
  | {
      readonly kind: 'random-features';
      readonly features: RandomFeatures;
      /** Blocks per chunk: fixes the summation order of f. */
      readonly chunkSize: number;
      readonly history: { readonly t: number; readonly firstLive: number; readonly scale: number };
      /** The bias `b` of `f(x) + b`; absent for models without one. */
      readonly bias?: number;
      /**
       * Models that are the mean of the iterates from iteration `from` to t
       * (suffix averaging, coordinator/averaging.ts): the payload then ends with
       * one weight per stored block, and block i of f is its stored block times
       * its weight. Absent: f is the history itself (the last iterate).
       */
      readonly average?: { readonly from: number };
    }
  | { readonly kind: 'kernel-expansion'; readonly kernel: KernelSpec; readonly d: number; readonly n: number };

/** A function f that can be evaluated at scaled rows, saved and restored. */
export interface Predictor {
  /** Input dimension. */
  readonly d: number;
  /** The header part that describes this predictor. */
  describe(): PredictorHeader;
  /** The numbers saved after the header (see {@link payloadLength}). */
  payload(): Float64Array;
  /**
   * `f` at `nPoints` rows of `X` (row-major, already scaled), into `out`.
   *
   * @example
   * const f = await predictor.evaluate(Xscaled, n, new Float64Array(n), { threads: 4 });
   */
  evaluate(X: Float64Array, nPoints: number, out: Float64Array, opts?: PredictOptions): Promise<Float64Array>;
  /**
   * `f` at rows `indices` of `rows` (scaled), into `out`: the bits
   * {@link evaluate} gives at those rows gathered, without gathering them all.
   *
   * @example
   * const fU = await predictor.evaluateAt(rows, sample, new Float64Array(sample.length));
   */
  evaluateAt(rows: TrainingRows, indices: ArrayLike<number>, out: Float64Array, opts?: PredictOptions): Promise<Float64Array>;
}

/**
 * A suffix average of a run's iterates (coordinator/averaging.ts): the first
 * iteration averaged and the weight of every block of the history.
 */
export interface BlockAverage {
  readonly from: number;
  /** One weight per block 0…t−1 of the history. */
  readonly weights: Float64Array;
}

/**
 * A random-feature history as a predictor. With `average`, f is the history
 * with each block times its weight (the mean of the run's iterates from
 * `average.from` on); the history itself stays the run's last iterate, which
 * is what continuing the run needs.
 *
 * @example
 * const p = new RandomFeaturePredictor(history, features, chunkSize);
 * const f = await p.evaluate(X, n, new Float64Array(n));
 * const withBias = new RandomFeaturePredictor(history, features, chunkSize, -0.2); // f(x) − 0.2
 * const averaged = new RandomFeaturePredictor(history, features, chunkSize, undefined, { from: 201, weights }); // mean of iterates 201…400
 */
export class RandomFeaturePredictor implements Predictor {
  readonly history: History;
  readonly features: RandomFeatures;
  readonly chunkSize: number;
  /** The bias `b` added to every value; undefined: no bias (and none in the header). */
  readonly bias: number | undefined;
  /** The suffix average f is, when it is one. */
  readonly average: BlockAverage | undefined;
  private weighted: History | undefined;

  constructor(history: History, features: RandomFeatures, chunkSize: number, bias?: number, average?: BlockAverage) {
    if (average !== undefined && average.weights.length !== history.t) throw new RangeError(`average: ${average.weights.length} block weights for a history of ${history.t} blocks`);
    this.history = history;
    this.features = features;
    this.chunkSize = chunkSize;
    this.bias = bias;
    this.average = average;
  }

  get d(): number {
    return this.features.d;
  }

  describe(): PredictorHeader {
    const { t, firstLive, scale } = this.history;
    return {
      kind: 'random-features',
      features: this.features,
      chunkSize: this.chunkSize,
      history: { t, firstLive, scale },
      ...(this.bias !== undefined ? { bias: this.bias } : {}),
      ...(this.average !== undefined ? { average: { from: this.average.from } } : {}),
    };
  }

  /** The stored blocks from the first live one; then, for an averaged model, their weights. */
  payload(): Float64Array {
    const { t, firstLive, m } = this.history;
    const blocks = this.history.stored.subarray(firstLive * 2 * m, t * 2 * m);
    if (this.average === undefined) return blocks;
    const out = new Float64Array(blocks.length + t - firstLive);
    out.set(blocks, 0);
    out.set(this.average.weights.subarray(firstLive, t), blocks.length);
    return out;
  }

  /**
   * The history f is evaluated on: the run's own, or for an averaged model a
   * copy with every block times its weight (same scale, same first live block).
   */
  evaluatedHistory(): History {
    if (this.average === undefined) return this.history;
    if (this.weighted === undefined) {
      const { t, m, firstLive, scale, stored } = this.history;
      const w2 = 2 * m;
      const out = new Float64Array(t * w2);
      const W = this.average.weights;
      for (let i = firstLive; i < t; i++) for (let j = i * w2; j < (i + 1) * w2; j++) out[j] = stored[j] * W[i];
      this.weighted = History.restore({ m, t, scale, firstLive, stored: out });
    }
    return this.weighted;
  }

  async evaluate(X: Float64Array, nPoints: number, out: Float64Array, opts: PredictOptions = {}): Promise<Float64Array> {
    return this.evaluatePoints({ X }, nPoints, out, opts);
  }

  async evaluateAt(rows: TrainingRows, indices: ArrayLike<number>, out: Float64Array, opts: PredictOptions = {}): Promise<Float64Array> {
    return this.evaluatePoints({ rows, indices }, indices.length, out, opts);
  }

  private async evaluatePoints(points: Points, nPoints: number, out: Float64Array, opts: PredictOptions): Promise<Float64Array> {
    const { d } = this.features;
    checkPoints(points, nPoints, out, d);
    const history = this.evaluatedHistory();
    const { c0, c1 } = chunkSpan(history.firstLive, history.t, this.chunkSize);
    await evaluateBatched(new Evaluator(history, this.features, { ...opts, chunkSize: this.chunkSize }), points, nPoints, d, rowsPerCall(c1 - c0, predictBatch(d)), out);
    const b = this.bias;
    if (b !== undefined) for (let p = 0; p < nPoints; p++) out[p] += b;
    return out;
  }
}

/**
 * A kernel expansion `f(x) = Σ_i c_i k(x_i, x)` as a predictor, evaluated by
 * the engine as a support-vector history over its centres (worker pool, WASM
 * exact kernel, chunks of a size fixed by n: the same bits on any thread count).
 *
 * @example
 * const p = new KernelExpansionPredictor(exactQsgS2auc(ds, 1, params));
 * const f = await p.evaluate(Xscaled, n, new Float64Array(n), { threads: 4 });
 */
export class KernelExpansionPredictor implements Predictor {
  readonly expansion: KernelExpansion;
  private readonly centres: CentreRows | undefined;
  private engine: { history: SupportVectorHistory; rows: SharedRows } | undefined;

  /**
   * `centres`, when given, says where the expansion's centres already are
   * in shared memory (a fit's support rows in its copy of the training
   * rows): evaluations read them there instead of copying them.
   */
  constructor(expansion: KernelExpansion, centres?: CentreRows) {
    this.expansion = expansion;
    this.centres = centres;
  }

  get d(): number {
    return this.expansion.d;
  }

  describe(): PredictorHeader {
    const { kernel, d, c } = this.expansion;
    return { kind: 'kernel-expansion', kernel, d, n: c.length };
  }

  /** Centres (`n × d`, row-major) then coefficients (`n`). */
  payload(): Float64Array {
    const { centers, c } = this.expansion;
    const out = new Float64Array(centers.length + c.length);
    out.set(centers, 0);
    out.set(c, centers.length);
    return out;
  }

  async evaluate(X: Float64Array, nPoints: number, out: Float64Array, opts: PredictOptions = {}): Promise<Float64Array> {
    return this.evaluatePoints({ X }, nPoints, out, opts);
  }

  async evaluateAt(rows: TrainingRows, indices: ArrayLike<number>, out: Float64Array, opts: PredictOptions = {}): Promise<Float64Array> {
    return this.evaluatePoints({ rows, indices }, indices.length, out, opts);
  }

  private async evaluatePoints(points: Points, nPoints: number, out: Float64Array, opts: PredictOptions): Promise<Float64Array> {
    const { d, kernel, c } = this.expansion;
    checkPoints(points, nPoints, out, d);
    if (c.length === 0) return out.fill(0, 0, nPoints);
    this.engine ??= SupportVectorHistory.fromExpansion(this.expansion, this.centres);
    const evaluator = new SupportVectorEvaluator(this.engine.history, { kernel, rows: this.engine.rows }, { ...opts, chunkSize: svChunkSizeFor(c.length) });
    await evaluateBatched(evaluator, points, nPoints, d, predictBatch(d), out);
    return out;
  }
}

/** Largest number of stored doubles a model file may declare (2³¹, 16 GiB). */
const MAX_PAYLOAD = 2 ** 31;

/** Most bytes a loaded history may spend on dropped (all-zero) blocks, beyond 8× its stored ones. */
const MAX_DEAD_BYTES = 64 * 2 ** 20;

/**
 * Checks a predictor header's fields against each other and returns how many
 * doubles its payload holds — before anything is allocated. `file` names the
 * model file in the ModelError.
 *
 * @example
 * const count = payloadLength(header.predictor, 'model.dsg');
 */
export function payloadLength(h: PredictorHeader, file: string): number {
  const bad = (what: string) => new ModelError(`${file}: corrupt model header (${what})`);
  if (h === null || typeof h !== 'object') throw bad('predictor');
  if (h.kind === 'random-features') {
    try {
      checkRandomFeatures(h.features);
    } catch (err) {
      throw new ModelError(`${file}: corrupt model header (features: ${(err as Error).message})`);
    }
    const hist = h.history;
    if (!hist || !Number.isSafeInteger(hist.t) || !Number.isSafeInteger(hist.firstLive) || hist.firstLive < 0 || hist.firstLive > hist.t) throw bad('history');
    // A history's scale always stands within [1e-100, 1e100] in magnitude (outside, the engine folds it into the coefficients).
    if (typeof hist.scale !== 'number' || !(Math.abs(hist.scale) >= RENORMALISE_BELOW && Math.abs(hist.scale) <= 1 / RENORMALISE_BELOW)) throw bad(`history scale ${JSON.stringify(hist.scale)} outside ±[1e-100, 1e100]`);
    if (!Number.isSafeInteger(h.chunkSize) || h.chunkSize < 1) throw bad('chunkSize');
    if (h.bias !== undefined && (typeof h.bias !== 'number' || !Number.isFinite(h.bias))) throw bad('bias');
    // The engine indexes blocks by number, so a loaded history holds all t of them
    // (dropped ones as zeros). Blocks are dropped only when a shrink factor is
    // exactly 0, which the default schedules never give; a header whose dropped
    // blocks would need more than 64 MiB and 8× the stored ones is a forged or
    // damaged file, and is refused before anything is allocated.
    const live = (hist.t - hist.firstLive) * 2 * h.features.m;
    const dead = hist.firstLive * 2 * h.features.m;
    if (live + dead > MAX_PAYLOAD || dead * 8 > Math.max(MAX_DEAD_BYTES, 8 * live * 8)) throw bad(`history claims ${hist.t} blocks of which only ${hist.t - hist.firstLive} are stored`);
    if (h.average === undefined) return live;
    if (h.average === null || typeof h.average !== 'object' || !Number.isSafeInteger(h.average.from) || h.average.from < 1 || h.average.from > hist.t) throw bad(`average: from must be an iteration in 1…${hist.t}`);
    return live + hist.t - hist.firstLive;
  }
  if (h.kind === 'kernel-expansion') {
    try {
      checkKernelSpec(h.kernel);
    } catch (err) {
      throw new ModelError(`${file}: corrupt model header (kernel: ${(err as Error).message})`);
    }
    if (!Number.isSafeInteger(h.d) || h.d < 1 || !Number.isSafeInteger(h.n) || h.n < 0) throw bad('expansion size');
    const count = h.n * (h.d + 1);
    if (count > MAX_PAYLOAD) throw bad('expansion size');
    return count;
  }
  throw bad(`predictor kind ${JSON.stringify((h as { kind?: unknown }).kind)}`);
}

/**
 * Rebuilds a predictor from its header and payload (as checked by {@link payloadLength}).
 *
 * @example
 * const p = restorePredictor(header.predictor, payload);
 */
export function restorePredictor(h: PredictorHeader, payload: Float64Array): Predictor {
  if (h.kind === 'random-features') {
    const { t, firstLive, scale } = h.history;
    const { m } = h.features;
    const live = (t - firstLive) * 2 * m;
    const stored = new Float64Array(t * 2 * m);
    stored.set(payload.subarray(0, live), firstLive * 2 * m);
    const history = History.restore({ m, t, scale, firstLive, stored });
    if (h.average === undefined) return new RandomFeaturePredictor(history, h.features, h.chunkSize, h.bias);
    // Dropped blocks are zeros whatever their weight: theirs are stored as 0 too.
    const weights = new Float64Array(t);
    weights.set(payload.subarray(live), firstLive);
    return new RandomFeaturePredictor(history, h.features, h.chunkSize, h.bias, { from: h.average.from, weights });
  }
  const centers = payload.slice(0, h.n * h.d);
  const c = payload.slice(h.n * h.d);
  return new KernelExpansionPredictor({ kernel: h.kernel, d: h.d, centers, c });
}
