/**
 * `tune` across hosts: every (candidate, fold, iteration range) unit of a
 * successive-halving round is one `tune-unit` job, a round is one BullMQ flow
 * (a parent job that completes when all its units have: coordinator.ts), and
 * with `refit: 'queue'` the winner's refit is one `tune-refit` job.
 *
 * The coordinator writes what a unit needs — the learner, the metric, the
 * classes, the folds (the scaled rows with a fold's labels hidden, and its
 * validation rows), every candidate's parameters and step schedule, and for a
 * refit on the queue the raw training rows — once, into a run folder in the
 * shared `stateDir` (`.dsgkit-tune-<run>/setup.bin`, V8's structured
 * serialisation: numbers and typed arrays bit for bit, no code). A worker
 * reads it (once per run), continues candidate c on fold j from iteration
 * `from` to `to` with tune's own fold run, and returns the fold's score, its
 * out-of-fold scores and the continuation state (the history, the sampling
 * stream's state, the bias). A state of at most `stateInlineBytes`
 * ({@link STATE_INLINE_BYTES} by default) travels in Redis: in the unit's
 * result, and from the coordinator in the payload of the candidate's next
 * unit, so a Redis server restarted empty loses nothing the coordinator
 * cannot add again. A larger one is written as `c<c>-f<j>-t<to>.bin` in the
 * run folder, named by the iteration it reached, so a unit run twice reads
 * and writes the same file. The coordinator takes the results in the order
 * the local `tune` uses: the CV table, the winner and the refit model are the
 * same bytes.
 *
 * The defaults' reference run (their CV score at T when they are not a grid
 * point: tune.ts's `scoreDefaultsAtT`) depends on nothing the halving finds,
 * so its units go on the queue with the first round, ahead of it (they are
 * the longest units; the rounds' short ones fill in around them); its round
 * takes their results.
 *
 * With the refit on the queue, a last round that runs one candidate c has
 * two possible winners, c and the defaults d. Their refits go on the queue
 * with that round, at a BullMQ priority that lets a worker take them only
 * when no unit waits (the likelier winner first: d when its score at T
 * already beats c's last score), so a worker idle at the end of the round
 * starts the refit early; the loser's is cancelled once the winner is known.
 */
import { mkdir, readFile, rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { deserialize, serialize } from 'node:v8';
import { writeFileAtomic } from '../data/atomic.ts';
import type { Dataset } from '../data/dataset.ts';
import { continuationCost, type HalvingStep } from '../coordinator/successive-halving.ts';
import { isLoopStateRecord, loopStateRecord, restoreLoopState } from '../coordinator/loop-state-record.ts';
import { EvaluatorPool } from '../engine/pool.ts';
import { DEFAULT_CACHE_BYTES, givenEngineSettings, type EvaluatorOptions } from '../engine/evaluator.ts';
import { FrequencyStores } from '../engine/frequency-store.ts';
import { QueueError, UsageError } from '../errors.ts';
import type { FitState } from '../learners/spec.ts';
import { Model } from '../model/model.ts';
import { trainModel } from '../train/train.ts';
import { fitPlanOf, fitSetupOf, roundFolds, roundScore, runFold, type FitSetup, type RoundFits, type TuneMeter, type TunePlan } from '../tune.ts';
import { MINORITY_SHARES } from '../model/task.ts';
import type { ShareCounts } from '../coordinator/tune-rules.ts';
import { runJobs } from './coordinator.ts';
import { checkFields, checkUnderRoots, PayloadError } from './payload.ts';
import { newRunId } from './queue.ts';
import { parseQueueUrl } from './redis-url.ts';

/**
 * The largest continuation state (and refit model) that travels in Redis, in
 * bytes: 1 MiB, a history of T · 2m numbers up to about 131,000 (m = 256 to T ≈ 255).
 * Larger ones go through the shared state folder.
 */
export const STATE_INLINE_BYTES = 1 << 20;

/** What the refit on a worker needs besides the winner and the engine options (the raw training rows and how to read their labels). */
interface RefitSetup {
  readonly raw: Dataset;
  readonly positive?: string | number;
  /** tune's clipQuantile, when given: the refit scales the rows as the search did. */
  readonly clipQuantile?: number;
}

/** The engine settings tune was given ({@link givenEngineSettings}), which a unit and the refit apply as the local tune does. */
type EngineSetup = ReturnType<typeof givenEngineSettings>;

/** What every unit of a tune run shares (written once to `setup.bin`): the fold fits' setup, the engine settings, the refit's rows. */
export interface TuneSetup extends FitSetup {
  readonly refit?: RefitSetup;
  readonly engine: EngineSetup;
}

/** A `tune-unit` job's payload. */
export interface TuneUnitPayload {
  readonly run: string;
  /** The run folder (holds setup.bin and the states too large for Redis). */
  readonly dir: string;
  readonly c: number;
  readonly j: number;
  readonly from: number;
  readonly to: number;
  /** The largest state, in bytes, to return in the result rather than write to the run folder. */
  readonly inline: number;
  /** The state at `from` (base64 of its serialisation) when it travels in Redis. */
  readonly state?: string;
}

/** A `tune-refit` job's payload: candidate `c` on all training rows, with the class-share cut's minority share `MINORITY_SHARES[share]` when tune chose one but the first. */
export interface TuneRefitPayload {
  readonly run: string;
  readonly dir: string;
  readonly c: number;
  readonly inline: number;
  readonly share?: number;
}

/** A unit's result: the fold's score, its out-of-fold scores (Float64, base64), its accuracies at each minority share when the search chooses one, and, when small, the state reached (base64). */
interface UnitResult {
  readonly score: number;
  readonly f: string;
  readonly shares?: ShareCounts;
  readonly state?: string;
}

/** A refit's result: the model file's bytes (base64) when small, else it is `refit.dsg` in the run folder; the warnings the training gave. */
interface RefitResult {
  readonly model?: string;
  readonly warnings: string[];
}

const stateFile = (dir: string, c: number, j: number, t: number) => join(dir, `c${c}-f${j}-t${t}.bin`);
const refitFile = (dir: string) => join(dir, 'refit.dsg');
const float64 = (base64: string) => {
  const bytes = Buffer.from(base64, 'base64');
  return new Float64Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
};
const toBase64 = (b: Uint8Array) => Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('base64');

/** What {@link TuneOnQueue.start} needs besides the plan. */
export interface TuneOnQueueOptions {
  readonly queue: string;
  /** A folder every worker sees at the same path (the setup, and states over `stateInlineBytes`). */
  readonly stateDir?: string;
  readonly signal?: AbortSignal;
  /** States (and a refit model) up to this many bytes travel in Redis: 0 … {@link STATE_INLINE_BYTES} (the default); 0 sends every one through `stateDir`. */
  readonly stateInlineBytes?: number;
  /** Whether the refit runs as a job (then the setup carries the raw training rows). */
  readonly refitOnQueue?: boolean;
}

/**
 * The coordinator's side: a run folder with the setup, one flow of jobs per round, and optionally the refit.
 *
 * @example
 * const remote = await TuneOnQueue.start(plan, { queue: 'redis://127.0.0.1:6379', stateDir: '/shared' });
 * const { scores, outOfFold } = await remote.round(plan, step, meter);
 * await remote.close();
 */
export class TuneOnQueue {
  private rounds = 0;
  /** Small states at the coordinator, by `c-j`: the iteration reached and the serialised state. */
  private readonly states = new Map<string, { t: number; state: string }>();
  /** The defaults' reference units, started with the first round (see the module comment). */
  private reference: Promise<UnitResult[]> | undefined;
  /** Stops the reference units when the run ends before their round (the run failed, or the halving was cancelled). */
  private readonly stop = new AbortController();
  /** The defaults' pooled score at T once their reference units are done. */
  private referenceScore: number | undefined;
  /** Each candidate's pooled score in the last round it ran. */
  private readonly lastPooled = new Map<number, number>();
  /** Refits started before the winner was known, by candidate (see the module comment). */
  private readonly speculative = new Map<number, { result: Promise<RefitResult[]>; stop: AbortController }>();

  private constructor(
    private readonly run: string,
    private readonly dir: string,
    private readonly url: ReturnType<typeof parseQueueUrl>,
    private readonly signal: AbortSignal | undefined,
    private readonly inline: number,
    private readonly refitOnQueue: boolean,
  ) {
    signal?.addEventListener('abort', () => this.stop.abort(), { once: true });
  }

  /** Writes the run folder and the plan's setup under `stateDir` (which every worker must see at the same path), and puts the defaults' reference units on the queue when they will be needed. */
  static async start(plan: TunePlan, opts: TuneOnQueueOptions): Promise<TuneOnQueue> {
    const o = plan.opts;
    const setup: TuneSetup = {
      ...fitSetupOf(plan),
      ...(opts.refitOnQueue
        ? { refit: { raw: plan.raw, ...(o.positive !== undefined ? { positive: o.positive } : {}), ...(o.clipQuantile !== undefined ? { clipQuantile: o.clipQuantile } : {}) } }
        : {}),
      engine: givenEngineSettings(o),
    };
    const url = parseQueueUrl(opts.queue);
    if (opts.stateDir === undefined) throw new UsageError('tune with a queue needs stateDir: a folder every worker sees at the same path');
    const inline = opts.stateInlineBytes ?? STATE_INLINE_BYTES;
    if (!Number.isSafeInteger(inline) || inline < 0 || inline > STATE_INLINE_BYTES) throw new UsageError(`stateInlineBytes must be a whole number from 0 to ${STATE_INLINE_BYTES}, got ${String(opts.stateInlineBytes)}`);
    const run = newRunId('t');
    const dir = join(resolve(opts.stateDir), `.dsgkit-tune-${run}`);
    try {
      await mkdir(dir);
    } catch (err) {
      throw new UsageError(`state folder '${opts.stateDir}': cannot create ${dir} (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
    }
    await writeFileAtomic(join(dir, 'setup.bin'), serialize(setup));
    const remote = new TuneOnQueue(run, dir, url, opts.signal, inline, opts.refitOnQueue === true);
    // The defaults are not a grid point: their reference round runs every fold from 0 to T, whatever the halving finds.
    if (plan.defaultsId >= plan.gridCount) {
      const d = plan.defaultsId;
      remote.reference = remote.units(plan.folds.map((_, j) => [d, j] as const), 0, plan.T, `${run}d`, remote.stop.signal);
      remote.reference.then(
        (rs) => (remote.referenceScore = roundScore(plan, rs.map((r) => r.score), rs.map((r) => float64(r.f)), roundFolds(plan, plan.T))),
        () => {}, // its error surfaces where its round awaits it
      );
    }
    return remote;
  }

  /** Runs `units` from `from` to `to` as one flow; their results in order. */
  private units(units: ReadonlyArray<readonly [number, number]>, from: number, to: number, run: string, signal: AbortSignal | undefined, onProgress?: (done: number, total: number) => void, onAdded?: () => void): Promise<UnitResult[]> {
    const payloads: TuneUnitPayload[] = units.map(([c, j]) => {
      const held = from > 0 ? this.states.get(`${c}-${j}`) : undefined;
      return { run: this.run, dir: this.dir, c, j, from, to, inline: this.inline, ...(held && held.t === from ? { state: held.state } : {}) };
    });
    return runJobs<UnitResult>(payloads.map((data) => ({ name: 'tune-unit', data })), {
      url: this.url,
      run,
      ...(signal ? { signal } : {}),
      ...(onProgress ? { onProgress } : {}),
      ...(onAdded ? { onAdded } : {}),
    });
  }

  /** Runs one halving round's (candidate, fold) fits as jobs; each candidate's fold scores and out-of-fold values, as the local round gives them. */
  async round(plan: TunePlan, current: HalvingStep, meter: Pick<TuneMeter, 'done' | 'report' | 'jobs'>): Promise<RoundFits> {
    const units = current.run.flatMap((c) => roundFolds(plan, current.t).map((j) => [c, j] as const));
    const base = meter.done;
    const per = plan.spec.capabilities.continues ? continuationCost(current.from, current.t) : 1;
    const progress = (done: number, total: number) => {
      meter.jobs = { done, total };
      meter.done = base + done * per;
      meter.report();
    };
    const isReference = this.reference !== undefined && current.run.length === 1 && current.run[0] === plan.defaultsId && current.from === 0 && current.t === plan.T;
    // Candidates no longer run free their states (the defaults' may continue in the reference round).
    for (const key of [...this.states.keys()]) {
      const c = Number(key.split('-')[0]);
      if (!current.run.includes(c) && c !== plan.defaultsId) this.states.delete(key);
    }
    progress(0, units.length);
    // The possible winners' refits, queued once the round's units are (so no idle worker takes one before them).
    const speculate = this.refitOnQueue && !isReference && current.t === plan.T && current.run.length === 1 ? () => {
      const [c] = current.run;
      const d = plan.defaultsId;
      const dFirst = this.referenceScore !== undefined && this.referenceScore >= (this.lastPooled.get(c) ?? -Infinity);
      const guesses = d === c ? [c] : dFirst ? [d, c] : [c, d];
      guesses.forEach((w, k) => this.speculate(w, k + 1));
    } : undefined;
    // A learner that does not continue (halved over its budget, restarted) starts every unit from scratch: no state to read.
    const results = isReference ? await this.reference! : await this.units(units, plan.spec.capabilities.continues ? current.from : 0, current.t, `${this.run}r${this.rounds++}`, this.signal, progress, speculate);
    const scores = current.run.map(() => new Array<number>(plan.folds.length).fill(NaN));
    const outOfFold = current.run.map(() => plan.folds.map((): Float64Array => new Float64Array(0)));
    const shares = current.run.map(() => plan.folds.map((): ShareCounts | undefined => undefined));
    results.forEach((r, u) => {
      const [c, j] = units[u];
      scores[current.run.indexOf(c)][j] = r.score;
      outOfFold[current.run.indexOf(c)][j] = float64(r.f);
      shares[current.run.indexOf(c)][j] = r.shares;
      if (r.state !== undefined) this.states.set(`${c}-${j}`, { t: current.t, state: r.state });
      else this.states.delete(`${c}-${j}`);
    });
    current.run.forEach((c, i) => this.lastPooled.set(c, roundScore(plan, scores[i], outOfFold[i], roundFolds(plan, current.t))));
    progress(units.length, units.length);
    return { scores, outOfFold, shares };
  }

  /**
   * The refit of candidate `winner` on all training rows as a job (the run
   * must have been started with `refitOnQueue`); the model, the same bytes as
   * tune's local refit. The training's warnings go to `onWarning`.
   */
  async refit(winner: number, share: number, onWarning: (message: string) => void): Promise<Model> {
    // The speculative refits are at the first minority share: with another, the winner's is refit anew.
    for (const [c, s] of this.speculative) if (c !== winner || share !== 0) s.stop.abort();
    const [r] = await ((share === 0 ? this.speculative.get(winner)?.result : undefined) ?? this.refitJob(winner, 0, this.signal, share));
    for (const w of r.warnings) onWarning(w);
    const bytes = r.model !== undefined ? Buffer.from(r.model, 'base64') : await readFile(refitFile(this.dir));
    return Model.fromBytes(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength), `refit of candidate ${winner}`);
  }

  /** The refit of candidate `c` as a job (`priority` 0: none), at minority share `MINORITY_SHARES[share]`. */
  private refitJob(c: number, priority: number, signal: AbortSignal | undefined, share = 0): Promise<RefitResult[]> {
    const payload: TuneRefitPayload = { run: this.run, dir: this.dir, c, inline: this.inline, ...(share !== 0 ? { share } : {}) };
    // Its own run id per share: a refit at another share never meets the cancelled speculative one's jobs.
    return runJobs<RefitResult>([{ name: 'tune-refit', data: payload }], { url: this.url, run: `${this.run}f${c}${share !== 0 ? `s${share}` : ''}`, ...(priority > 0 ? { priority } : {}), ...(signal ? { signal } : {}) });
  }

  /** Starts candidate `c`'s refit before the winner is known, at `priority`. */
  private speculate(c: number, priority: number): void {
    if (this.speculative.has(c)) return;
    const stop = new AbortController();
    this.stop.signal.addEventListener('abort', () => stop.abort(), { once: true });
    const result = this.refitJob(c, priority, stop.signal);
    result.catch(() => {}); // awaited by refit() when c wins; cancelled otherwise
    this.speculative.set(c, { result, stop });
  }

  /** Stops the reference units and speculative refits if they still run, and removes the run folder. */
  async close(): Promise<void> {
    this.stop.abort();
    await this.reference?.catch(() => {});
    for (const s of this.speculative.values()) await s.result.catch(() => {});
    await rm(this.dir, { recursive: true, force: true });
  }
}

/** Setups a worker has read, by run folder (a run's units mostly land on the same workers). */
const setups = new Map<string, TuneSetup>();

async function readSetup(dir: string): Promise<TuneSetup> {
  const hit = setups.get(dir);
  if (hit) return hit;
  const setup = deserialize(await readFile(join(dir, 'setup.bin'))) as TuneSetup;
  if (!setup || typeof setup.learner !== 'string' || !Array.isArray(setup.folds) || !Array.isArray(setup.candidates) || typeof setup.engine !== 'object' || setup.engine === null) {
    throw new PayloadError(`${dir}/setup.bin is not a tune setup of this version of dsgkit`);
  }
  if (setups.size >= 4) setups.clear();
  setups.set(dir, setup);
  return setup;
}

/**
 * The random features of the run a worker last ran a unit of: the units of
 * settings that share σ read one frequency store, as the fold fits of a local
 * tune do (tune.ts `searchCandidates`), within the run's cache budget. One run
 * at a time, so a worker holds at most one budget; the same model bytes with
 * or without it.
 */
let runStores: { readonly dir: string; readonly stores: FrequencyStores } | undefined;

function frequencyStoresOf(dir: string, setup: TuneSetup): FrequencyStores {
  if (runStores?.dir !== dir) runStores = { dir, stores: new FrequencyStores(setup.engine.cacheBytes ?? DEFAULT_CACHE_BYTES, setup.T) };
  return runStores.stores;
}

/** What a worker gives {@link runTuneUnit}. */
export interface UnitContext {
  readonly roots: readonly string[];
  readonly threads?: number;
  readonly checkpoint: () => Promise<void>;
  /** Aborted when the unit must stop (worker stopping, run cancelled). */
  readonly signal: AbortSignal;
}

/** The largest base64 text a payload's state may be (that of a {@link STATE_INLINE_BYTES} state). */
const MAX_STATE_TEXT = 4 * Math.ceil(STATE_INLINE_BYTES / 3);

/**
 * The checked payload of a `tune-unit` job.
 *
 * @example
 * const p = await checkTuneUnit(job.data, ['/shared']);
 */
export async function checkTuneUnit(data: unknown, roots: readonly string[]): Promise<TuneUnitPayload> {
  const p = checkFields<TuneUnitPayload>('tune-unit', data, { run: 'id', dir: 'path', c: 'int', j: 'int', from: 'int', to: 'int', inline: 'int', 'state?': 'base64' });
  if (p.to <= p.from && !(p.from === 0 && p.to === 0)) throw new PayloadError(`tune-unit: empty iteration range ${p.from} … ${p.to}`);
  if (p.state !== undefined && (p.from === 0 || p.state.length > MAX_STATE_TEXT)) throw new PayloadError(`tune-unit: ${p.from === 0 ? 'a state for a unit that starts at 0' : 'a state larger than a worker takes from the queue'}`);
  if (!p.dir.endsWith(`.dsgkit-tune-${p.run}`)) throw new PayloadError(`tune-unit: '${p.dir}' is not the folder of run ${p.run}`);
  await checkUnderRoots(join(p.dir, 'setup.bin'), roots, 'state folder');
  return p;
}

/**
 * The checked payload of a `tune-refit` job.
 *
 * @example
 * const p = await checkTuneRefit(job.data, ['/shared']);
 */
export async function checkTuneRefit(data: unknown, roots: readonly string[]): Promise<TuneRefitPayload> {
  const p = checkFields<TuneRefitPayload>('tune-refit', data, { run: 'id', dir: 'path', c: 'int', inline: 'int', 'share?': 'int' });
  if (p.share !== undefined && p.share >= MINORITY_SHARES.length) throw new PayloadError(`tune-refit: no minority share ${p.share} (there are ${MINORITY_SHARES.length})`);
  if (!p.dir.endsWith(`.dsgkit-tune-${p.run}`)) throw new PayloadError(`tune-refit: '${p.dir}' is not the folder of run ${p.run}`);
  await checkUnderRoots(join(p.dir, 'setup.bin'), roots, 'state folder');
  return p;
}

/** A state read from the payload or the run folder, its shape checked (it is data from the queue). */
function restoreState(bytes: Uint8Array, where: string): FitState {
  let s: unknown;
  try {
    s = deserialize(bytes);
  } catch {
    throw new PayloadError(`${where} is not a continuation state`);
  }
  if (!isLoopStateRecord(s)) throw new PayloadError(`${where} is not a continuation state`);
  return restoreLoopState(s);
}

/**
 * Runs one unit (the worker's side of a `tune-unit` job).
 *
 * @example
 * const result = await runTuneUnit(await checkTuneUnit(job.data, roots), ctx);
 */
export async function runTuneUnit(p: TuneUnitPayload, ctx: UnitContext): Promise<UnitResult> {
  const setup = await readSetup(p.dir);
  const fold = setup.folds[p.j];
  const params = setup.candidates[p.c];
  if (!fold || !params) throw new PayloadError(`tune-unit: no candidate ${p.c} or fold ${p.j} in ${p.dir}`);
  const plan = fitPlanOf(setup, ctx.signal);
  const states = new Array<FitState | undefined>(setup.folds.length).fill(undefined);
  if (p.state !== undefined) {
    states[p.j] = restoreState(Buffer.from(p.state, 'base64'), `tune-unit: the state of candidate ${p.c}, fold ${p.j}`);
  } else if (p.from > 0) {
    const file = stateFile(p.dir, p.c, p.j, p.from);
    let bytes: Uint8Array;
    try {
      bytes = await readFile(file);
    } catch (err) {
      throw new QueueError(`tune-unit: no state of candidate ${p.c}, fold ${p.j} at t = ${p.from} in ${p.dir} (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
    }
    states[p.j] = restoreState(bytes, file);
  }
  await ctx.checkpoint();
  const threads = ctx.threads ?? 1;
  const pool = threads > 1 ? new EvaluatorPool(threads - 1) : undefined;
  try {
    const engine: EvaluatorOptions = {
      threads,
      ...(pool ? { pool } : {}),
      ...setup.engine,
      frequencyStores: frequencyStoresOf(p.dir, setup),
    };
    const got = await runFold(plan, p.c, p.j, p.to, engine, states, { done: 0, report: () => {} });
    const state = states[p.j];
    let inlineState: string | undefined;
    if (state) {
      const bytes = serialize(loopStateRecord(state));
      if (bytes.byteLength <= Math.min(p.inline, STATE_INLINE_BYTES)) inlineState = toBase64(bytes);
      else await writeFileAtomic(stateFile(p.dir, p.c, p.j, p.to), bytes);
    }
    return { score: got.score, f: toBase64(new Uint8Array(got.f.buffer, got.f.byteOffset, got.f.byteLength)), ...(got.shares ? { shares: got.shares } : {}), ...(inlineState !== undefined ? { state: inlineState } : {}) };
  } finally {
    await pool?.close();
  }
}

/**
 * Refits a candidate on all training rows (the worker's side of a
 * `tune-refit` job): the same training as tune's local refit, so the same
 * model bytes on any number of threads.
 *
 * @example
 * const result = await runTuneRefit(await checkTuneRefit(job.data, roots), ctx);
 */
export async function runTuneRefit(p: TuneRefitPayload, ctx: UnitContext): Promise<RefitResult> {
  const setup = await readSetup(p.dir);
  const params = setup.candidates[p.c];
  if (!setup.refit) throw new PayloadError(`tune-refit: ${p.dir}/setup.bin holds no training rows (the coordinator did not ask for the refit on the queue)`);
  if (!params) throw new PayloadError(`tune-refit: no candidate ${p.c} in ${p.dir}`);
  const { raw, positive, clipQuantile } = setup.refit;
  const warnings: string[] = [];
  await ctx.checkpoint();
  const model = await trainModel({
    learner: setup.learner,
    data: raw,
    ...(positive !== undefined ? { positive } : {}),
    ...(clipQuantile !== undefined ? { clipQuantile } : {}),
    ...params,
    ...(p.share !== undefined ? { minorityShare: MINORITY_SHARES[p.share] } : {}),
    ...(setup.steps[p.c] ? { step: setup.steps[p.c] } : {}),
    threads: ctx.threads ?? 1,
    ...setup.engine,
    signal: ctx.signal,
    onWarning: (m) => warnings.push(m),
  });
  const bytes = model.toBytes();
  if (bytes.byteLength <= Math.min(p.inline, STATE_INLINE_BYTES)) return { model: toBase64(bytes), warnings };
  await writeFileAtomic(refitFile(p.dir), bytes);
  return { warnings };
}
