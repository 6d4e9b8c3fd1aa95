/**
 * `tune` across hosts: every (candidate, fold, iteration range) unit of a
 * successive-halving round is one `tune-unit` job.
 *
 * The coordinator writes what a unit needs — the learner, the metric, the
 * classes, the folds (the scaled rows with a fold's labels hidden, and its
 * validation rows), every candidate's parameters and step schedule — once,
 * into a run folder in the shared `stateDir` (`.dsgkit-tune-<run>/setup.bin`,
 * V8's structured serialisation: numbers and typed arrays bit for bit, no
 * code). A worker reads it (once per run), continues candidate c on fold j
 * from iteration `from` to `to` with tune's own fold run, writes the
 * continuation state (the history, the sampling stream's state, the bias) as
 * `c<c>-f<j>-t<to>.bin` in the run folder, and returns the fold's score and
 * out-of-fold scores. States are named by the iteration they reached, so a
 * unit run twice (a worker killed, Redis restarted) reads and writes the same
 * files. The coordinator takes the results in the order the local `tune`
 * uses: the CV table, the winner and the refit model are the same bytes.
 */
import { mkdir, readFile, rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { deserialize, serialize } from 'node:v8';
import { writeFileAtomic } from '../data/atomic.ts';
import type { Dataset } from '../data/dataset.ts';
import { continuationCost, type HalvingStep } from '../coordinator/successive-halving.ts';
import { EvaluatorPool } from '../engine/pool.ts';
import { History } from '../engine/history.ts';
import { QueueError, UsageError } from '../errors.ts';
import { learnerSpec } from '../learners/registry.ts';
import type { FitState, Params } from '../learners/spec.ts';
import type { MetricName, TaskClasses } from '../model/task.ts';
import { roundFolds, runFold, type FitPlan, type TuneMeter, type TunePlan } from '../tune.ts';
import { runJobs } from './coordinator.ts';
import { checkFields, checkUnderRoots, PayloadError } from './payload.ts';
import { newRunId } from './queue.ts';
import { parseQueueUrl } from './redis-url.ts';

/** What every unit of a tune run shares (written once to `setup.bin`). */
export interface TuneSetup {
  readonly learner: string;
  readonly metric: MetricName;
  readonly classes: TaskClasses;
  readonly folds: ReadonlyArray<{ readonly train: Dataset; readonly validation: Dataset }>;
  readonly candidates: readonly Params[];
  readonly steps: TunePlan['steps'];
  readonly T: number;
  readonly budgeted: boolean;
}

/** A `tune-unit` job's payload. */
export interface TuneUnitPayload {
  readonly run: string;
  /** The run folder (holds setup.bin and the states). */
  readonly dir: string;
  readonly c: number;
  readonly j: number;
  readonly from: number;
  readonly to: number;
}

/** A unit's result: the fold's score and its out-of-fold scores (Float64, base64). */
interface UnitResult {
  readonly score: number;
  readonly f: string;
}

/** A continuation state as stored (History.restore's fields, the sampling stream, the bias). */
interface StoredState {
  readonly m: number;
  readonly t: number;
  readonly scale: number;
  readonly firstLive: number;
  readonly stored: Float64Array;
  readonly rng: unknown;
  readonly bias?: number;
}

const stateFile = (dir: string, c: number, j: number, t: number) => join(dir, `c${c}-f${j}-t${t}.bin`);

/**
 * The coordinator's side: a run folder with the setup, and one batch of jobs per round.
 *
 * @example
 * const remote = await TuneOnQueue.start(setup, { queue: 'redis://127.0.0.1:6379', stateDir: '/shared' });
 * const results = await remote.round([[0, 0], [0, 1]], 0, 30);
 * await remote.close();
 */
export class TuneOnQueue {
  private constructor(
    private readonly run: string,
    private readonly dir: string,
    private readonly url: ReturnType<typeof parseQueueUrl>,
    private readonly signal: AbortSignal | undefined,
    private rounds = 0,
  ) {}

  /** Writes the run folder and the plan's setup under `stateDir` (which every worker must see at the same path). */
  static async start(plan: TunePlan, opts: { queue: string; stateDir?: string; signal?: AbortSignal }): Promise<TuneOnQueue> {
    const setup: TuneSetup = {
      learner: plan.spec.name,
      metric: plan.metric,
      classes: plan.classes,
      folds: plan.folds.map((f) => ({ train: f.train, validation: f.validation })),
      candidates: plan.candidates,
      steps: plan.steps,
      T: plan.T,
      budgeted: plan.budgeted,
    };
    const url = parseQueueUrl(opts.queue);
    if (opts.stateDir === undefined) throw new UsageError('tune with a queue needs stateDir: a folder every worker sees at the same path');
    const run = newRunId('t');
    const dir = join(resolve(opts.stateDir), `.dsgkit-tune-${run}`);
    try {
      await mkdir(dir);
    } catch (err) {
      throw new UsageError(`state folder '${opts.stateDir}': cannot create ${dir} (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
    }
    await writeFileAtomic(join(dir, 'setup.bin'), serialize(setup));
    return new TuneOnQueue(run, dir, url, opts.signal);
  }

  /** Runs one halving round's (candidate, fold) fits as jobs; each candidate's fold scores and out-of-fold values, as the local round gives them. */
  async round(plan: TunePlan, current: HalvingStep, meter: Pick<TuneMeter, 'done' | 'report'>): Promise<{ scores: number[][]; outOfFold: Float64Array[][] }> {
    const units = current.run.flatMap((c) => roundFolds(plan, current.t).map((j) => [c, j] as const));
    const payloads: TuneUnitPayload[] = units.map(([c, j]) => ({ run: this.run, dir: this.dir, c, j, from: current.from, to: current.t }));
    const results = await runJobs<UnitResult>(payloads.map((data) => ({ name: 'tune-unit', data })), {
      url: this.url,
      run: `${this.run}r${this.rounds++}`,
      ...(this.signal ? { signal: this.signal } : {}),
      onProgress: () => meter.report(),
    });
    const scores = current.run.map(() => new Array<number>(plan.folds.length).fill(NaN));
    const outOfFold = current.run.map(() => plan.folds.map((): Float64Array => new Float64Array(0)));
    results.forEach((r, u) => {
      const [c, j] = units[u];
      const bytes = Buffer.from(r.f, 'base64');
      scores[current.run.indexOf(c)][j] = r.score;
      outOfFold[current.run.indexOf(c)][j] = new Float64Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
      meter.done += plan.spec.capabilities.continues ? continuationCost(current.from, current.t) : 1;
    });
    meter.report();
    return { scores, outOfFold };
  }

  /** Removes the run folder. */
  async close(): Promise<void> {
    await rm(this.dir, { recursive: true, force: true });
  }
}

/** Setups a worker has read, by run folder (a run's units mostly land on the same workers). */
const setups = new Map<string, TuneSetup>();

async function readSetup(dir: string): Promise<TuneSetup> {
  const hit = setups.get(dir);
  if (hit) return hit;
  const setup = deserialize(await readFile(join(dir, 'setup.bin'))) as TuneSetup;
  if (!setup || typeof setup.learner !== 'string' || !Array.isArray(setup.folds) || !Array.isArray(setup.candidates)) throw new PayloadError(`${dir}/setup.bin is not a tune setup`);
  if (setups.size >= 4) setups.clear();
  setups.set(dir, setup);
  return setup;
}

/** What a worker gives {@link runTuneUnit}. */
export interface UnitContext {
  readonly roots: readonly string[];
  readonly threads?: number;
  readonly checkpoint: () => Promise<void>;
  /** Aborted when the unit must stop (worker stopping, run cancelled). */
  readonly signal: AbortSignal;
}

/**
 * The checked payload of a `tune-unit` job.
 *
 * @example
 * const p = await checkTuneUnit(job.data, ['/shared']);
 */
export async function checkTuneUnit(data: unknown, roots: readonly string[]): Promise<TuneUnitPayload> {
  const p = checkFields<TuneUnitPayload>('tune-unit', data, { run: 'id', dir: 'path', c: 'int', j: 'int', from: 'int', to: 'int' });
  if (p.to <= p.from && !(p.from === 0 && p.to === 0)) throw new PayloadError(`tune-unit: empty iteration range ${p.from} … ${p.to}`);
  if (!p.dir.endsWith(`.dsgkit-tune-${p.run}`)) throw new PayloadError(`tune-unit: '${p.dir}' is not the folder of run ${p.run}`);
  await checkUnderRoots(join(p.dir, 'setup.bin'), roots, 'state folder');
  return p;
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
  const plan: FitPlan = { spec: learnerSpec(setup.learner), classes: setup.classes, metric: setup.metric, candidates: setup.candidates, steps: setup.steps as FitPlan['steps'], folds: setup.folds as FitPlan['folds'], T: setup.T, budgeted: setup.budgeted, opts: { signal: ctx.signal } };
  const states = new Array<FitState | undefined>(setup.folds.length).fill(undefined);
  if (p.from > 0) {
    let s: StoredState;
    try {
      s = deserialize(await readFile(stateFile(p.dir, p.c, p.j, p.from))) as StoredState;
    } catch (err) {
      throw new QueueError(`tune-unit: no state of candidate ${p.c}, fold ${p.j} at t = ${p.from} in ${p.dir} (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
    }
    states[p.j] = { history: History.restore(s), rng: s.rng as never, ...(s.bias !== undefined ? { bias: s.bias } : {}) };
  }
  await ctx.checkpoint();
  const threads = ctx.threads ?? 1;
  const pool = threads > 1 ? new EvaluatorPool(threads - 1) : undefined;
  try {
    const got = await runFold(plan, p.c, p.j, p.to, { threads, ...(pool ? { pool } : {}) }, states, { done: 0, report: () => {} });
    const state = states[p.j];
    if (state) {
      const h = state.history;
      const stored: StoredState = { m: h.m, t: h.t, scale: h.scale, firstLive: h.firstLive, stored: h.stored.slice(0, h.t * 2 * h.m), rng: state.rng, ...(state.bias !== undefined ? { bias: state.bias } : {}) };
      await writeFileAtomic(stateFile(p.dir, p.c, p.j, p.to), serialize(stored));
    }
    return { score: got.score, f: Buffer.from(got.f.buffer, got.f.byteOffset, got.f.byteLength).toString('base64') };
  } finally {
    await pool?.close();
  }
}
