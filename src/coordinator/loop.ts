/**
 * The shared training loop of every random-feature learner (ALGORITHMS.md):
 * sample → evaluate f on the engine → weights → new block → shrink the past.
 * Learner-agnostic; runs on the calling thread (the coordinator) while the
 * engine's workers evaluate the history. Batch t + 1 is drawn during
 * iteration t (a draw depends on the stream and t alone), and the workers
 * evaluate it over the older blocks — or add block t − 2 to the row cache,
 * which stays a block behind — while the calling thread builds block t − 1
 * and finishes iteration t: the same bits as the steps one after another.
 */
import seedrandom from 'seedrandom';
import { BlockOps } from '../engine/block-ops.ts';
import { Evaluator, type EvaluatorOptions } from '../engine/evaluator.ts';
import type { FrequencyStore } from '../engine/frequency-store.ts';
import { History } from '../engine/history.ts';
import { measureKernelRate, PhaseClock, RunProfile, type ProfileReport } from '../engine/profile.ts';
import { HotRows, hotRowsOf, isHot } from '../engine/hot-rows.ts';
import { RowCache } from '../engine/row-cache.ts';
import { familyOf, historyBlockCost, type RandomFeatures } from '../engine/random-features.ts';
import { finalPointCount, finalRows, finalValues, type Batch, type DsgLearner, type LearnerBias } from './learner.ts';
import { RunShell, type Progress, type Validation } from './run-shell.ts';
import { continuationCost } from './successive-halving.ts';
import { stepAt } from './step-size.ts';

export type { Progress, Validation } from './run-shell.ts';

/**
 * The sampling stream's state (seedrandom's alea: three doubles and a
 * counter): with `t`, all a run needs to continue. Declared here, not taken
 * from seedrandom's types, so the published types need no dev dependency.
 */
export interface SamplingState {
  readonly c: number;
  readonly s0: number;
  readonly s1: number;
  readonly s2: number;
}

/** The sampling stream of a run, whose state can be saved and restored. */
export interface SamplingRng {
  /** The next number in [0, 1). */
  (): number;
  /** The stream's state now: a stream made from it draws what this one draws next. */
  state(): SamplingState;
}

/**
 * What continuing a run needs besides its history: the sampling stream's state
 * after iteration t and, for a learner with a bias, the bias the loop was
 * running with (not the model's final b).
 */
export interface LoopState {
  readonly rng: SamplingState;
  readonly bias?: number;
}

/** Where a continued run starts: its history so far (t = history.t) and the run's state after iteration t. */
export interface LoopStart extends LoopState {
  readonly history: History;
}

/**
 * How the loop gets f at each batch: `history` evaluates the whole history at
 * the batch's points (O(t·B) point-blocks at iteration t, O(T²B) in all);
 * `rows` keeps f at every row the learner draws from and adds each new block
 * there (O(n) an iteration, O(nT) in all; see row-cache.ts); `auto` picks the
 * one with less predicted work. Both sum in the same order, so they give the
 * same model, bit for bit, on any number of threads: the choice is speed only.
 */
export type Evaluation = 'history' | 'rows' | 'auto';

/** The strategies a run can use (what `auto` resolves to). */
export const EVALUATIONS = ['history', 'rows', 'auto'] as const satisfies readonly Evaluation[];

/**
 * Predicted work of a run to T under each strategy, in point-blocks (one
 * block's features at one point): the history evaluates `(t − 1)·B` at
 * iteration t, `B·T(T−1)/2` in all; the row cache adds one block at every
 * sampled row, `n·T` (a continued run rebuilds the first t₀ blocks, so the
 * total is `n·T` from wherever it starts). Both over the whole run 1…T, so a
 * continued run resolves `auto` as the run to T at once does. Given the
 * run's features `rf`, the history's point-blocks are priced at what one
 * costs there against one in the row cache ({@link historyBlockCost}: less
 * for `sorf` blocks that share a transform, 1 otherwise).
 *
 * @example
 * evaluationWork(learner, 400, rf); // { history: 15_321_600, rows: 1_472_400 } on spam
 */
export function evaluationWork(learner: DsgLearner, T: number, rf?: RandomFeatures): { history: number; rows: number | undefined } {
  const sampled = learner.sampledRows;
  const B = sampled?.batchPoints;
  const perBlock = rf !== undefined ? historyBlockCost(rf) : 1;
  return { history: B !== undefined ? (perBlock * B * T * (T - 1)) / 2 : Infinity, rows: sampled !== undefined ? sampled.count * T : undefined };
}

/**
 * The strategy a run to T uses: `history` or `rows` as asked (rows needs a
 * learner that declares its sampled rows), or for `auto` the one with less
 * predicted work ({@link evaluationWork}); ties go to the history.
 *
 * @example
 * resolveEvaluation(learner, 400, 'auto', rf); // 'rows' on spam (n = 3,681 rows, B = 192)
 */
export function resolveEvaluation(learner: DsgLearner, T: number, requested: Evaluation = 'auto', rf?: RandomFeatures): 'history' | 'rows' {
  if (requested === 'history') return 'history';
  const work = evaluationWork(learner, T, rf);
  if (requested === 'rows') {
    if (work.rows === undefined) throw new RangeError(`${learner.name} does not draw its batches from dataset rows; it cannot keep f at every row (evaluation 'rows')`);
    return 'rows';
  }
  return work.rows !== undefined && work.rows < work.history ? 'rows' : 'history';
}

/**
 * The strategy with less work for iterations `from + 1 … T` as the loop does
 * them, in point-blocks (one block's features at one point): the history at
 * the batch's points, `Σ (t − 1)` blocks at each point a source draws, but at
 * its hot rows, whose cache adds every block at each of them ({@link isHot}),
 * against the row cache rebuilt to `from` and extended (`n·T`), which also
 * holds f where a final bias reads it. The history's point-blocks are priced
 * at what one costs there against one in a cache, given the run's features
 * `rf` ({@link historyBlockCost}: less for `sorf` blocks that share a
 * transform). For fits that no model records — `tune`'s fold fits,
 * continued round after round — where `auto`, whose choice a model's header
 * keeps, prices the whole run from 1 at every batch point. Like `auto`, it
 * never changes a value.
 *
 * @example
 * fastestEvaluation(learner, 30, 90); // 'history' on mnist's folds (8,000 rows, 133 labeled)
 */
export function fastestEvaluation(learner: DsgLearner, from: number, T: number, rf?: RandomFeatures): 'history' | 'rows' {
  const sampled = learner.sampledRows;
  if (sampled === undefined) return 'history';
  // Blocks evaluated per cold point over the fit's iterations, Σ (t − 1) (what a halving round's continuation costs),
  // each priced against a cache's; a hot row's cache adds one block at a time, as the row cache does.
  const perBlock = rf !== undefined ? historyBlockCost(rf) : 1;
  const steps = continuationCost(from, T) * perBlock;
  let history = 0;
  let drawn = 0;
  for (const source of sampled.sources ?? []) {
    drawn += source.draws;
    history += isHot(source, from, T, perBlock) ? source.size * T : source.draws * steps;
  }
  history += Math.max(0, sampled.batchPoints - drawn) * steps;
  // A final bias at rows the cache holds (TSGS3VM's class balance) reads them there, and evaluates the history at them otherwise.
  const final = learner.bias?.final;
  if (final?.rows !== undefined) history += finalPointCount(final, T) * T * perBlock;
  return sampled.count * T < history ? 'rows' : 'history';
}

/**
 * Up to 256 of the rows a learner draws from, evenly spaced, row-major (what
 * the profile's kernel rate is measured on, so that sparse rows count at what
 * they cost); undefined for a learner that does not say its rows.
 *
 * @example
 * rowSample(learner, 57); // Float64Array(256 × 57) on spam's 3,681 rows
 */
function rowSample(learner: DsgLearner, d: number): Float64Array | undefined {
  const sampled = learner.sampledRows;
  if (sampled === undefined) return undefined;
  const rows = sampled.rows();
  const k = Math.min(256, rows.length);
  if (k === 0) return undefined;
  const X = new Float64Array(k * d);
  for (let j = 0; j < k; j++) sampled.copyRow(rows[Math.floor((j * rows.length) / k)], X, j);
  return X;
}

/** Options of {@link runLoop}. */
export interface LoopOptions {
  readonly features: RandomFeatures;
  /** Iterations (blocks) T. */
  readonly T: number;
  /** Continue a run from here (iteration history.t + 1 on) instead of starting from nothing. */
  readonly start?: LoopStart;
  readonly engine?: EvaluatorOptions;
  readonly onProgress?: (p: Progress) => void;
  /**
   * Called after iteration t with the history as it stands and the sampling
   * stream's state after iteration t (what continuing from t needs: the
   * run has usually drawn batch t + 1 by then); convergence studies,
   * checkpoints. The history is the run's own, which goes on growing: copy
   * what must outlive the call. `bias` is the learner's.
   */
  readonly onIteration?: (t: number, history: History, evaluator: Evaluator, rng: SamplingState, bias: LearnerBias | undefined) => void | Promise<void>;
  readonly signal?: AbortSignal;
  readonly validation?: Validation;
  /** How f at each batch is obtained (default `auto`, see {@link resolveEvaluation}); never changes the model. */
  readonly evaluation?: Evaluation;
  /** Record where the time goes (see profile.ts); the result then has its report. Never changes the model. */
  readonly profile?: boolean;
}

/** What a run produced. */
export interface LoopResult {
  readonly history: History;
  /** The final bias `b` of `f(x) + b`, when the learner has one. */
  readonly bias?: number;
  /** The bias the loop was running with after the last iteration (what continuing needs), when the learner has one. */
  readonly runningBias?: number;
  /** Validation metric trace `[t, value]`. */
  readonly trace: Array<[number, number]>;
  readonly elapsedMs: number;
  /** The sampling stream's state after the last iteration (what continuing needs, with history.t). */
  readonly rng: SamplingState;
  /** The strategy the run used for f at the batches. */
  readonly evaluation: 'history' | 'rows';
  /** Where the time went, when asked for. */
  readonly profile?: ProfileReport;
  /** The run's frequency store: what the model's first scoring reads (EvaluatorOptions.frequencies). */
  readonly frequencies: FrequencyStore;
}

/**
 * The sampling stream of a run: seeded by the model seed, separate from the
 * feature seeds; or, given a saved state, the stream continued from it.
 *
 * @example
 * const rng = samplingRng(42);
 * const again = samplingRng(42, rng.state()); // draws what rng draws next
 */
export function samplingRng(seed: number, state?: SamplingState): SamplingRng {
  return state !== undefined ? seedrandom.alea('', { state: { ...state } }) : seedrandom.alea(`dsgkit-sampling:${seed}`, { state: true });
}

/**
 * The model's bias `b` from a learner's bias as the run stands at iteration
 * `t`: the bias's `final` rule applied to f at the rows it reads at t (e.g.
 * the class balance over unlabeled rows; {@link finalValues}) — read from
 * `cache` when the run keeps f there, else evaluated on the history — else
 * its running value; undefined without a bias.
 *
 * @example
 * const b = await modelBias(learner.bias, evaluator, history.t);
 */
export async function modelBias(bias: LearnerBias | undefined, evaluator: Evaluator, t: number, cache?: RowCache): Promise<number | undefined> {
  if (bias?.final === undefined) return bias?.value;
  const { final } = bias;
  // The cache holds f at the learner's rows, up to date, the same bits as the history gives: no features to copy.
  const rows = cache ? finalRows(final, t) : undefined;
  if (cache && rows) return final.bias(cache.read(rows, rows.length, evaluator.rowFactor(), new Float64Array(rows.length)));
  return final.bias(await finalValues(final, t, (X, n, out) => evaluator.evaluate(X, n, out)));
}


/**
 * Runs the doubly stochastic loop for `learner` up to iteration `T`: from
 * nothing, or from `start` (a run stopped at t = start.history.t, continued to
 * T with its sampling stream restored — the same bits as running to T at once,
 * because the chunk layout does not depend on T, see chunks.ts).
 * Iteration `t` (1-based) adds block `t − 1` (0-based in the history).
 *
 * @example
 * const { history, rng } = await runLoop(learner, { features: rf, T: 500, engine: { threads: 4 } });
 * const more = await runLoop(learner, { features: rf, T: 800, start: { history, rng } });
 */
export async function runLoop(learner: DsgLearner, opts: LoopOptions): Promise<LoopResult> {
  checkLoop(learner, opts);
  const run = new LoopRun(learner, opts);
  try {
    await run.begin();
    for (let t = run.history.t + 1; t <= opts.T; t++) await run.iteration(t);
    return await run.end();
  } finally {
    await run.close();
  }
}

/** The checks of a run's options against its learner, before anything is allocated. */
function checkLoop(learner: DsgLearner, opts: LoopOptions): void {
  const { features: rf, T } = opts;
  if (!Number.isInteger(T) || T < 1) throw new RangeError(`T (iterations) must be a positive integer, got ${T}`);
  if (learner.d !== rf.d) throw new RangeError(`learner has d = ${learner.d}, features have d = ${rf.d}`);
  const from = opts.start?.history;
  if (from !== undefined && (from.m !== rf.m || from.t > T)) throw new RangeError(`cannot continue a history of ${from.t} blocks of m = ${from.m} to T = ${T} with m = ${rf.m}`);
  if (opts.start?.bias !== undefined && !learner.bias) throw new RangeError('a start with a bias needs a learner with one');
  if (opts.start?.bias === undefined && opts.start && learner.bias) throw new RangeError("continuing a learner with a bias needs the run's bias");
}

/** A batch drawn ahead of its iteration, with the sampling stream's state before its draw. */
interface DrawnAhead {
  readonly batch: Batch;
  readonly before: SamplingState | undefined;
}

/**
 * One run of the loop: its state across iterations, and each part of an
 * iteration as a method. Batch t + 1 is drawn during iteration t (a draw
 * depends on the stream and t alone), and the workers evaluate it over the
 * older blocks — or add block t − 2 to the row cache, which stays a block
 * behind — while the calling thread builds block t − 1 and finishes
 * iteration t: the same bits as the steps one after another.
 */
class LoopRun {
  readonly history: History;
  private readonly rf: RandomFeatures;
  private readonly T: number;
  private readonly from: number;
  private readonly profile: RunProfile | undefined;
  private readonly clock: PhaseClock;
  private readonly evaluator: Evaluator;
  private readonly ops = new BlockOps();
  private readonly rng: SamplingRng;
  private readonly bias: LearnerBias | undefined;
  private readonly evaluation: 'history' | 'rows';
  private readonly cache: RowCache | undefined;
  /** Evaluating the history: f kept at the rows drawn again and again (the labeled rows of most learners), the same bits. */
  private readonly hot: HotRows | undefined;
  private readonly shell: RunShell;
  private readonly val: Validation | undefined;
  private readonly fVal: Float64Array | undefined;
  private readonly fValBiased: Float64Array | undefined;
  private f = new Float64Array(0);
  private w = new Float64Array(0);
  /**
   * Batches drawn ahead, oldest first: during iteration t, batch t + 1 (while the workers add a
   * block to the row cache, or before the call that evaluates it over the history) and, evaluating
   * the history, batch t + 2 during that call. A learner's batch stays valid through its next draw
   * (DsgLearner.sample), and no batch is drawn while one two draws older is still needed.
   */
  private readonly ahead: DrawnAhead[] = [];
  /** f at batch t + 1, and whether `f` already holds f at batch t (evaluated during iteration t − 1). */
  private fNext = new Float64Array(0);
  private ready = false;
  // Iteration t's values, shared by its parts.
  private t = 0;
  private batch!: Batch;
  private eta = 0;
  private factor = 1;
  private alpha: Float64Array = new Float64Array(0);

  constructor(
    private readonly learner: DsgLearner,
    private readonly opts: LoopOptions,
  ) {
    const { features: rf, T, start } = opts;
    this.rf = rf;
    this.T = T;
    this.from = start?.history.t ?? 0;
    this.history = start !== undefined ? start.history.copy(T) : new History({ m: rf.m, capacity: T });
    this.evaluation = resolveEvaluation(learner, T, opts.evaluation, rf);
    this.profile = opts.profile ? new RunProfile() : undefined;
    this.clock = new PhaseClock(this.profile);
    this.evaluator = new Evaluator(this.history, rf, { ...opts.engine, ...(this.profile ? { profile: this.profile } : {}) });
    this.rng = samplingRng(rf.seed, start?.rng);
    this.bias = learner.bias;
    if (start?.bias !== undefined) this.bias!.restore(start.bias);
    this.cache = this.evaluation === 'rows' ? new RowCache({ d: rf.d, rows: learner.sampledRows!.rows(), copyRow: learner.sampledRows!.copyRow }) : undefined;
    const sources = this.evaluation === 'history' ? learner.sampledRows?.sources : undefined;
    const hotRows = sources ? hotRowsOf(sources, this.from, T, historyBlockCost(rf)) : undefined;
    this.hot = hotRows && hotRows.length > 0 ? new HotRows({ d: rf.d, rows: hotRows, copyRow: learner.sampledRows!.copyRow }) : undefined;
    this.val = opts.validation;
    this.fVal = this.val ? new Float64Array(this.val.nPoints) : undefined;
    this.fValBiased = this.val && this.bias ? new Float64Array(this.val.nPoints) : undefined;
    this.shell = new RunShell(T, opts);
  }

  /** A continued run's validation values and row cache start from the blocks it already has. */
  async begin(): Promise<void> {
    if (this.val && this.fVal && this.history.t > 0) await this.evaluator.evaluate(this.val.X, this.val.nPoints, this.fVal);
    if (this.cache) await this.evaluator.updateRows(this.cache);
  }

  /** Iteration t: batch, f there, weights and step, then the new block (overlapped with the next batch's f where it can be). */
  async iteration(t: number): Promise<void> {
    await this.shell.enter(t);
    this.t = t;
    const batch = this.drawBatch();
    await this.valuesAtBatch(batch);
    const t0 = this.clock.now();
    this.learner.weights(this.f, this.w, batch);
    this.eta = stepAt(this.learner.step, t);
    this.factor = 1 - this.eta * this.learner.lambda;
    this.clock.add('weights', this.clock.now() - t0);
    await this.advance();
    // The stream's state after iteration t: before batch t + 1 was drawn.
    if (this.opts.onIteration) await this.opts.onIteration(t, this.history, this.evaluator, this.ahead.length > 0 ? this.ahead[0].before! : this.rng.state(), this.bias);
    this.shell.leave(t);
  }

  /** Batch t: drawn ahead during iteration t − 1, or now. */
  private drawBatch(): Batch {
    const t0 = this.clock.now();
    const batch = this.ahead.shift()?.batch ?? this.learner.sample(this.rng, this.t);
    if (this.f.length < batch.nPoints) this.f = new Float64Array(batch.nPoints);
    if (this.w.length < batch.nPoints) this.w = new Float64Array(batch.nPoints);
    this.batch = batch;
    this.clock.add('sampling', this.clock.now() - t0);
    return batch;
  }

  /** f (bias included) at batch t: from the row cache or the history, unless iteration t − 1 already computed it. */
  private async valuesAtBatch(batch: Batch): Promise<void> {
    const t1 = this.clock.now();
    const waited = this.clock.waited();
    if (!this.ready) {
      if (this.cache) this.evaluator.readRows(this.cache, batch.rows, batch.X, batch.nPoints, this.f);
      else if (this.hot) await this.hot.evaluate(this.evaluator, batch, this.f);
      else await this.evaluator.evaluate(batch.X, batch.nPoints, this.f);
    }
    this.ready = false;
    if (this.bias) for (let p = 0; p < batch.nPoints; p++) this.f[p] += this.bias.value;
    // The evaluator records its waits on the pool; the rest of the step is the calling thread's.
    this.clock.evaluation(t1, waited);
  }

  /** The new block, with f at the next batch computed alongside where the shrink leaves the stored blocks as they are. */
  private async advance(): Promise<void> {
    const { cache, evaluator, t } = this;
    const overlap = t < this.T && this.history.shrinkIsLazy(this.factor);
    if (cache && overlap) {
      // The workers add the block before (t − 2) at every row while the calling thread builds block t − 1,
      // finishes iteration t, draws batch t + 1 and computes block t − 1 there; then it reads f at batch
      // t + 1 from the cache plus those values. The cache stays a block behind until the last iteration.
      await this.during((work) => evaluator.updateRows(cache, work), () => {
        this.addBlock();
        this.finish();
        // Block t − 1 at batch t + 1 now, not after the call: the read below then only adds it.
        const e0 = this.clock.now();
        evaluator.newestAhead(this.ahead[0].batch.X, this.ahead[0].batch.nPoints);
        this.clock.add('evaluation', this.clock.now() - e0);
      });
      const drawn = this.ahead[0].batch;
      this.sizeNext(drawn.nPoints);
      const t0 = this.clock.now();
      evaluator.readRows(cache, drawn.rows, drawn.X, drawn.nPoints, this.fNext);
      this.clock.add('evaluation', this.clock.now() - t0);
      this.swapNext();
    } else if (cache) {
      // The calling thread finishes iteration t, and draws batch t + 1, while the workers add block t − 1 at every row.
      this.addBlock();
      await this.during((work) => evaluator.updateRows(cache, work), () => this.finish());
    } else if (overlap) {
      // The workers evaluate batch t + 1 (drawn during the last call, or now) over the blocks
      // before t − 1 while the calling thread builds block t − 1 from batch t, finishes iteration
      // t and draws batch t + 2 (batch t is then used up); then it adds the chunk block t − 1 falls in.
      const drawn = this.drawTo(t + 1);
      this.sizeNext(drawn.nPoints);
      const { hot } = this;
      const call = hot ? (work: () => void) => hot.evaluateAppending(evaluator, drawn, this.fNext, work) : (work: () => void) => evaluator.evaluateAppending(drawn.X, drawn.nPoints, this.fNext, 1, work);
      await this.during(call, () => {
        this.addBlock();
        this.finish();
        if (t + 2 <= this.T) this.drawTo(t + 2);
      });
      this.swapNext();
    } else {
      this.addBlock();
      this.finish();
    }
  }

  /** Block t − 1 from batch t's points and weights, then the past shrunk and the block appended. */
  private addBlock(): void {
    const { batch, clock } = this;
    const b0 = clock.now();
    const alpha = this.ops.project(this.rf, this.t - 1, batch.X, batch.nPoints, this.w, this.evaluator.frequencies, this.evaluator.callingKernel);
    for (let j = 0; j < alpha.length; j++) alpha[j] *= -this.eta;
    this.alpha = alpha;
    if (this.profile) this.profile.pointBlocks += batch.nPoints;
    const b1 = clock.now();
    clock.add('newBlock', b1 - b0);
    this.history.shrink(this.factor);
    this.history.append(alpha);
    clock.add('shrinkAppend', clock.now() - b1);
  }

  /** The rest of iteration t (bias step, validation values): it needs neither the row cache nor the history's stored blocks. */
  private finish(): void {
    const { t, clock, bias, val, fVal } = this;
    const a0 = clock.now();
    bias?.update(this.eta, this.f, this.w, this.batch.nPoints);
    const mark = clock.now();
    clock.add('weights', mark - a0);
    if (val && fVal) {
      for (let p = 0; p < val.nPoints; p++) fVal[p] *= this.factor;
      this.ops.accumulate(this.rf, t - 1, this.alpha, val.X, val.nPoints, fVal, this.evaluator.frequencies);
      if (this.shell.validates(t)) this.shell.score(t, this.withBias(fVal));
      if (this.profile) this.profile.pointBlocks += val.nPoints;
      clock.add('validation', clock.now() - mark);
    }
    // Batch t's points and weights are used up; a draw depends on the stream and its t alone.
    if (this.cache && t < this.T) this.drawTo(t + 1);
  }

  /** The validation values with the running bias added (the values themselves when the learner has none). */
  private withBias(fVal: Float64Array): Float64Array {
    const { bias, fValBiased } = this;
    if (!bias || !fValBiased) return fVal;
    for (let p = 0; p < fVal.length; p++) fValBiased[p] = fVal[p] + bias.value;
    return fValBiased;
  }

  /** Draws the batches up to `k` not drawn yet, each with the stream's state before it; returns batch `k`. */
  private drawTo(k: number): Batch {
    const { t, ahead } = this;
    const d0 = this.clock.now();
    while (t + ahead.length < k) ahead.push({ before: this.opts.onIteration ? this.rng.state() : undefined, batch: this.learner.sample(this.rng, t + ahead.length + 1) });
    this.clock.add('sampling', this.clock.now() - d0);
    return ahead[k - t - 1].batch;
  }

  /** Runs `work` on the calling thread during an engine call and books that call's own time as evaluation. */
  private async during(call: (work: () => void) => Promise<unknown>, work: () => void): Promise<void> {
    const { clock } = this;
    const c0 = clock.now();
    const waited = clock.waited();
    let workMs = 0;
    await call(() => {
      const w0 = clock.now();
      work();
      workMs = clock.now() - w0;
    });
    clock.evaluation(c0, waited, workMs);
  }

  private sizeNext(nPoints: number): void {
    if (this.fNext.length < nPoints) this.fNext = new Float64Array(nPoints);
  }

  /** f at batch t + 1 becomes f at the batch of the next iteration. */
  private swapNext(): void {
    [this.f, this.fNext] = [this.fNext, this.f];
    this.ready = true;
  }

  /** The run's result after its last iteration: the model's bias, the stream's state, the profile. */
  async end(): Promise<LoopResult> {
    const loopMs = this.shell.elapsedMs();
    const b = await modelBias(this.bias, this.evaluator, this.history.t, this.cache);
    return {
      history: this.history,
      trace: this.shell.trace,
      elapsedMs: this.shell.elapsedMs(),
      rng: this.rng.state(),
      ...(this.profile ? { profile: this.profile.report(loopMs, this.evaluator.threads, this.T - this.from, measureKernelRate(this.rf.d, this.rf.m, undefined, familyOf(this.rf), rowSample(this.learner, this.rf.d))) } : {}),
      evaluation: this.evaluation,
      ...(b !== undefined ? { bias: b, runningBias: this.bias!.value } : {}),
      frequencies: this.evaluator.frequencies,
    };
  }

  async close(): Promise<void> {
    this.ops.release();
    await this.evaluator.close();
  }
}
