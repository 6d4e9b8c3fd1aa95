/**
 * `tune`: hyperparameter search by stratified k-fold cross-validation over
 * the LABELED rows, transductive (a fold's model trains on every row, the
 * fold's own labels hidden), ranked by the learner's own metric (or the
 * ranking metric asked for) over the pooled out-of-fold scores, over the learner's search space
 * (`spec.searchSpace({ sigma0 })`, or a grid given by the caller), with
 * successive halving over iterations WITHOUT restarts for learners on the
 * stochastic loop: every candidate × fold run starts, the weaker candidates
 * stop after each round and the survivors CONTINUE from where they stopped
 * (runLoop's `start`, the same bits as running further at once). The winner
 * is refit on all training rows; its model header keeps the CV table.
 *
 * A round of many short fits runs them whole on threads (tune-threads.ts),
 * a round of few splits each fit's engine calls over one shared pool; each
 * run's arithmetic is fixed by its seed and the chunk layout, so the table,
 * the winner and the refit model are the same bits either way and for any
 * thread count.
 */
import { CancelledError, UsageError } from './errors.ts';
import { labeledCount, type Dataset } from './data/dataset.ts';
import { classCounts } from './data/validate.ts';
import { datasetRows, labeledDataset } from './data/training-rows.ts';
import { repeatedLabeledFolds, type LabeledFold } from './data/split.ts';
import { EvaluatorPool } from './engine/pool.ts';
import { DEFAULT_CACHE_BYTES, givenEngineSettings, type EvaluatorOptions } from './engine/evaluator.ts';
import { FrequencyStores } from './engine/frequency-store.ts';
import type { StepSize } from './coordinator/step-size.ts';
import { neighbourhoodScores } from './coordinator/grid-neighbourhood.ts';
import { chooseMinorityShare, fewLabeledWarning, TUNE_GUARDS, TUNE_SELECTIONS, type ShareCounts, type TuneGuard, type TuneSelection } from './coordinator/tune-rules.ts';
export { TUNE_GUARDS, TUNE_SELECTIONS, type TuneGuard, type TuneSelection } from './coordinator/tune-rules.ts';
import { continuationCost, firstHalvingStep, halvingPlan, nextHalvingStep, type HalvingOptions, type HalvingStep } from './coordinator/successive-halving.ts';
import { checkParam, paramSpec, type ParamValue } from './learners/params.ts';
import { learnerSpec } from './learners/registry.ts';
import type { BudgetSchedule, FitState, LearnerSpec, Params } from './learners/spec.ts';
import { Model } from './model/model.ts';
import type { TuneRecord, TuneRoundRecord, TuneTableRow } from './model/model-file.ts';
import { fitTask, labelName, labelsFromScores, metricValue, METRICS, MINORITY_SHARES, rankingMetric, taskClasses, type MetricName, type Task, type TaskClasses } from './model/task.ts';
import { mean, sampleSd } from './metrics/summary.ts';
import type { LearnerOptions } from './api.ts';
import { kernelScale0, scalerFor, withDataDefaults } from './train/defaults.ts';
import { toDataset } from './train/data.ts';
import { fittedTasks } from './train/model-of.ts';
import { BALANCE_ROWS } from './learners/sources.ts';
import { checkClipQuantile, resolveThreads, type TrainData } from './train/options.ts';
import { resolveParams, resolveStep } from './train/params.ts';
import { trainModel } from './train/train.ts';
import { loadQueueModule } from './distributed/optional.ts';
import type { TuneOnQueue } from './distributed/tune.ts';
import { FitThreads, fitsOnThreads } from './tune-threads.ts';
import type { ReadDatasetOptions } from './data/index.ts';

/** Progress of a tune run: block evaluations done of the planned total (what its time is proportional to). */
export interface TuneProgress {
  /** Block evaluations per batch point done so far (Σ (t − 1) over the iterations run). */
  readonly done: number;
  /** Planned total: the halving schedule over all folds, plus the refit. */
  readonly total: number;
  /** Current round (0-based), or `rounds` during the refit. */
  readonly round: number;
  readonly rounds: number;
  readonly elapsedMs: number;
  /** With a queue: the current round's jobs finished and in all. */
  readonly jobs?: { readonly done: number; readonly total: number };
}

/** Options of {@link tune} besides the learner: the data and search, and how it runs. */
export interface TuneRunOptions {
  /** Training rows, some labeled: a Dataset (raw features), a path or an Arrow Table. */
  data: TrainData;
  read?: ReadDatasetOptions;
  positive?: number | string;
  /** The feature scaling's clip quantile (default: the learner's, as `train`'s clipQuantile): the folds, the search and the model all see the rows scaled so. */
  clipQuantile?: number;
  /**
   * Folds k ≥ 2 (default 3). Each fold fit trains on every row, so a search costs at least
   * 2k + 1 trains (the winner and the defaults on every fold, and the refit): 7 at k = 3.
   */
  folds?: number;
  /**
   * Times the k-fold split is drawn, each with its own seeded shuffle
   * (default 1): a candidate's score is the mean over the repeats of its
   * pooled out-of-fold score, so with few labels the ranking depends less on
   * one draw of the folds. Costs `repeats` times the CV.
   */
  repeats?: number;
  /**
   * The metric candidates are ranked by (default: the learner's `tuneMetric`,
   * else its own metric). `auc` (binary) or `mean-auc` (ordinal) ranks a
   * classifier by its scores alone, not by its labels — e.g. when the cut is
   * set from the class shares (threshold rule `prior`); GKM's default
   * (README § GKM).
   */
  metric?: MetricName;
  /**
   * Values to search per parameter; replaces the learner's search space for the
   * parameters it names (a parameter given as a fixed value is not searched).
   */
  grid?: Readonly<Record<string, readonly unknown[]>>;
  /**
   * How a round's candidates are ranked (default: the learner's `tuneSelection`,
   * else `best`): `best` by each one's own pooled CV score, `neighbourhood` by
   * the mean of that score over its grid neighbours (grid-neighbourhood.ts).
   */
  select?: TuneSelection;
  /**
   * What the search's pick must do against the learner's defaults (scored on
   * every fold at T in any case; default: the learner's `tuneGuard`, else `cv`):
   * `cv` score at least as well in CV, else the defaults are returned; `one-se` beat them by more than one
   * standard error of the fold-by-fold differences — with few labeled rows a
   * setting that wins CV by less than its noise is no safer bet than the defaults.
   */
  guard?: TuneGuard;
  /** Halving factor η ≥ 2 (default 3): each round keeps the best 1/η and runs η times longer. */
  eta?: number;
  /** Iterations of the first round (default: T/η^r with r = the rounds needed to reach one candidate, at least 10). */
  t0?: number;
  /**
   * No halving: every candidate runs its full budget on every fold (default
   * false). For loop learners the same as `t0: T`; learners halved over their
   * budget (GKM, LapSVM, FRS3VM: `spec.tuneBudget`) then fit every setting in full.
   */
  fullGrid?: boolean;
  threads?: number;
  cacheBytes?: number;
  parallelMinWork?: number;
  onProgress?: (p: TuneProgress) => void;
  onWarning?: (message: string) => void;
  signal?: AbortSignal;
  /** Run every (candidate, fold, iteration range) unit as a job on this Redis queue's `dsgkit worker`s (docs/distributed.md). */
  queue?: string;
  /** With `queue`: a folder every worker sees at the same path, for the units' setup and the continuation states too large for Redis. */
  stateDir?: string;
  /** With `queue`: continuation states up to this many bytes travel in Redis (0 … 1 MiB, the default; 0: all through `stateDir`). */
  stateInlineBytes?: number;
  /** With `queue`: where the winner's refit runs, here (`'local'`, the default) or as a job for a worker (`'queue'`); the same model bytes. */
  refit?: 'local' | 'queue';
}

/** Options of {@link tune}: the run options, the learner, and learner parameters to fix (not search) by name (`T`, `m`, `seed`, …), typed per learner. */
export type TuneOptions = TuneRunOptions & LearnerOptions;

/** {@link TuneOptions} untyped in the learner and its parameters (checked at run time): what the CLI and generic callers pass. */
export type TuneArgs = TuneRunOptions & { readonly learner: string } & { readonly [param: string]: unknown };

/** One candidate's line of the CV table (declared with the model header, which records the table: model-file.ts). */
export type TuneRow = TuneTableRow;

/** One round as it ran (declared with the model header: model-file.ts). */
export type TuneRound = TuneRoundRecord;

/** What {@link tune} returns. */
export interface TuneResult {
  /** The winner's full parameters (searched values and fixed ones, σ filled). */
  readonly best: Params;
  readonly table: readonly TuneRow[];
  readonly rounds: readonly TuneRound[];
  /** The winner refit on all training rows (its header's `training.tune` holds the table). */
  readonly model: Model;
  readonly sigma0: number;
  /**
   * The chosen σ over σ₀ (learners with a kernel scale): how far the median
   * heuristic was from the σ cross-validation chose, e.g. 16 when the winner
   * has σ = 16σ₀.
   */
  readonly sigmaRatio?: number;
  readonly metric: string;
  /** The selection rule the rounds ranked by. */
  readonly select: TuneSelection;
  readonly folds: number;
  /** Times the k-fold split was drawn (see {@link TuneOptions.repeats}). */
  readonly repeats: number;
  /**
   * Block evaluations per batch point: spent by the CV (halving, all folds), what a full grid
   * at T over all folds would cost, and the refit (loop learners; zeros for direct ones).
   */
  readonly cost: { readonly halving: number; readonly fullGrid: number; readonly fraction: number; readonly refit: number };
  /** The table row of the learner's defaults (a grid point, or one row more): the winner's CV score is never below its. */
  readonly defaultsId: number;
  /** The guard applied ({@link TuneRunOptions.guard}). */
  readonly guard: TuneGuard;
  /** The search's pick (before the `one-se` guard) against the defaults: its CV gain and the gain's standard error. */
  readonly overDefaults: OverDefaults;
  /**
   * Semi-supervised learners: whether the chosen setting uses the unlabeled
   * rows — false when it is the learner's supervised special case (e.g. γ = 1),
   * i.e. CV judged that the unlabeled rows did not help.
   */
  readonly usesUnlabeled?: boolean;
  /**
   * Learners whose cut puts the labeled rows' class shares on the unlabeled
   * rows (GKM, LapSVM): the winner's CV accuracy with the cut labeling the
   * minority class on each of `shares` times its labeled share, and the share
   * the model was refit with (in `best` as `minorityShare` when not 1).
   */
  readonly minorityShare?: MinorityShareChoice;
}

/** The class-share cut's minority share `tune` chose: the shares tried, the winner's CV accuracy at each, the one chosen (as the model's header records it). */
export type MinorityShareChoice = NonNullable<TuneRecord['minorityShare']>;

/**
 * Folds of the CV when none are asked for. A fold's model trains on every
 * row (transductive), so each fold fit costs about one `train` and a search
 * costs at least 2k + 1 of them: 7 at k = 3 against 11 at 5. The pooled
 * out-of-fold score counts every labeled row whatever k.
 */
export const DEFAULT_FOLDS = 3;

/**
 * Unlabeled rows a `prior` threshold is scored at in halving's early rounds
 * (the last round and the defaults: as many as `train`, `fittedTask`'s default). An
 * early round only ranks; its threshold's arithmetic, a sum over every
 * centre at each row, was 3–4× its short fits (LapSVM on MNIST).
 */
export const EARLY_PRIOR_ROWS = 1024;

/** Keys of {@link TuneOptions} that are not learner parameters. */
const TUNE_KEYS = new Set(['learner', 'data', 'read', 'positive', 'clipQuantile', 'folds', 'repeats', 'metric', 'select', 'grid', 'eta', 't0', 'fullGrid', 'guard', 'threads', 'cacheBytes', 'parallelMinWork', 'onProgress', 'onWarning', 'signal', 'queue', 'stateDir', 'stateInlineBytes', 'refit']);

/**
 * The candidates of a search space: every combination, the last parameter varying fastest.
 *
 * @example
 * gridCandidates({ sigma: [1, 2], lambda: [0.1] }); // [{ sigma: 1, lambda: 0.1 }, { sigma: 2, lambda: 0.1 }]
 */
export function gridCandidates(space: Readonly<Record<string, readonly ParamValue[]>>): Array<Record<string, ParamValue>> {
  let out: Array<Record<string, ParamValue>> = [{}];
  for (const [key, values] of Object.entries(space)) out = out.flatMap((c) => values.map((v) => ({ ...c, [key]: v })));
  return out;
}

/**
 * Parses a grid given on the command line: `k=v1,v2;k2=v3` (values checked
 * against the learner's declarations; UsageError naming `--grid`).
 *
 * @example
 * parseGrid('sigma=0.5,1;lambda=0.01', spec); // { sigma: [0.5, 1], lambda: [0.01] }
 */
export function parseGrid(text: string, spec: LearnerSpec): Record<string, ParamValue[]> {
  const grid: Record<string, ParamValue[]> = {};
  const parts = text.split(';').map((p) => p.trim()).filter((p) => p !== '');
  if (parts.length === 0) throw new UsageError("--grid is empty: give name=value,value… (or leave --grid out to search the learner's own grid)");
  for (const part of parts) {
    const eq = part.indexOf('=');
    if (eq <= 0) throw new UsageError(`--grid: '${part}' is not name=value,value…`);
    const key = part.slice(0, eq).trim();
    if (Object.hasOwn(grid, key)) throw new UsageError(`--grid names ${key} twice; list all its values once (${key}=a,b,…)`);
    const values = part.slice(eq + 1).split(',').map((v) => v.trim()).filter((v) => v !== '');
    if (values.length === 0) throw new UsageError(`--grid: ${key} has no values`);
    grid[key] = checkGridValues(spec, key, values, '--grid ');
  }
  return grid;
}

function checkGridValues(spec: LearnerSpec, key: string, values: readonly unknown[], prefix = 'grid.'): ParamValue[] {
  const decl = paramSpec(spec.params, key);
  if (!decl) throw new UsageError(`${prefix}${key} is not a parameter of ${spec.name} (its parameters: ${Object.keys(spec.params).join(', ')})`);
  if (!Array.isArray(values) || values.length === 0) throw new UsageError(`${prefix}${key} must be a non-empty list of values`);
  return values.map((v) => checkParam(`${prefix}${key}`, decl, v));
}

/** The rounds halving needs to take n candidates down to one, keeping 1/η each round. */
function roundsToOne(n: number, eta: number): number {
  let rounds = 0;
  for (let c = n; c > 1; c = Math.floor(c / eta)) rounds++;
  return rounds;
}

/** The first round's iterations: T/η^r, r = the rounds halving needs to reach one candidate, at least 10 (and at most T). */
function defaultT0(n: number, eta: number, T: number): number {
  return Math.min(T, Math.max(10, Math.floor(T / eta ** roundsToOne(n, eta))));
}

/**
 * The rounds of a budget halving before the last: by default budgets 1/η³,
 * 1/η², 1/η of the full one (η = 3: 1/27, 1/9, 1/3), then the full budget.
 * Much less than 1/27 and a fit of a few steps says little of the setting
 * (GKM at 1/81 of T = 1,000, 12 iterations); a learner whose fold fits each
 * cost a whole train starts lower ({@link BudgetSchedule}: FRS3VM 1/81, 1/27,
 * 1/9). The field is cut by c per round ({@link budgetCut}), so at most
 * {@link BUDGET_FINALISTS} settings reach the full budget whatever n.
 */
export const BUDGET_RUNGS = 3;

/**
 * Settings a budget halving takes to the full budget, at most: the ranking
 * at 1/3 of the budget is not the ranking at the full one (GKM on spam,
 * seed 1: the setting best at 1/3 of its budget scores 0.922 in CV at the
 * full budget, the second 0.936), so the last round fits two or three and
 * the winner is chosen among them at the full budget on every fold.
 */
export const BUDGET_FINALISTS = 3;

/**
 * The cut per round of a halving of n settings: the smallest whole c ≥ η
 * with finalists·c^{@link BUDGET_RUNGS} ≥ n (finalists {@link BUDGET_FINALISTS}
 * unless the learner's {@link BudgetSchedule} says). It is also the cut of a
 * loop learner's halving: a grid of more than 81 settings (96, say) is
 * cut by 4, 96 → 24 → 6 → 1, not by 3 to 32 → 10 → 3 → 1, whose three
 * settings at 2/3 of T cost more than two trains.
 *
 * @example
 * budgetCut(60, 3); // 3: 60 settings → 20 → 6 → 2 at the full budget
 * budgetCut(100, 3); // 4: 100 → 25 → 6 → 1
 * budgetCut(72, 3, 1); // 5: 72 → 14 → 2 → 1 (FRS3VM)
 */
export function budgetCut(n: number, eta: number, finalists = BUDGET_FINALISTS): number {
  let c = eta;
  while (finalists * c ** BUDGET_RUNGS < n) c++;
  return c;
}

/**
 * `tune`'s budget halving when the learner declares no {@link BudgetSchedule}
 * of its own. Its early rounds score on the first folds holding 200
 * validation rows: the noise of a fold score depends on how many rows it
 * counts, not on the share of the folds, so a large set drops its worst
 * settings on a fold or two while a small one (where fits are cheap anyway)
 * uses every fold; the last round, which picks the winner, scores on every fold.
 */
export const DEFAULT_BUDGET_SCHEDULE: BudgetSchedule = { firstRung: BUDGET_RUNGS, finalists: BUDGET_FINALISTS, earlyRows: 200 };

/**
 * The folds (indices into `plan.folds`) a round to `t` scores on: every fold,
 * or for a learner halved over its budget, until t = T, the first folds of
 * the first draw that hold the schedule's `earlyRows` validation rows
 * ({@link DEFAULT_BUDGET_SCHEDULE}).
 *
 * @example
 * roundFolds(plan, 3); // [0, 1] with 5 folds of 147 validation rows each, T = 81
 */
export function roundFolds(plan: Pick<TunePlan, 'budgeted' | 'T' | 'k' | 'folds' | 'earlyRows'>, t: number): number[] {
  let count = plan.folds.length;
  if (plan.budgeted && t < plan.T) {
    let rows = 0;
    for (count = 0; count < plan.k && rows < plan.earlyRows; count++) rows += plan.folds[count].validation.n;
  }
  return Array.from({ length: count }, (_, j) => j);
}

/** Everything a search is: the learner, the data and its folds, the candidates, the halving plan and its cost. */
export interface TunePlan {
  readonly spec: LearnerSpec;
  readonly opts: TuneArgs;
  readonly raw: Dataset;
  readonly classes: TaskClasses;
  readonly sigma0: number;
  readonly space: Record<string, ParamValue[]>;
  /** The grid's candidates, then the learner's defaults when they are not a grid point. */
  readonly candidates: readonly Params[];
  /** Candidates the halving runs: the grid's (0 … gridCount − 1). */
  readonly gridCount: number;
  /** The defaults' candidate id. */
  readonly defaultsId: number;
  readonly steps: ReadonlyArray<StepSize | undefined>;
  readonly k: number;
  readonly repeats: number;
  /** Per repeat, the labeled rows' labels in fold order (what its pooled out-of-fold scores line up with) and the folds' sizes. */
  readonly pooled: ReadonlyArray<{ readonly y: Float64Array; readonly sizes: readonly number[] }>;
  readonly folds: readonly LabeledFold[];
  readonly metric: MetricName;
  readonly select: TuneSelection;
  readonly guard: TuneGuard;
  readonly eta: number;
  readonly t0: number;
  /**
   * The target iterations (learners that continue); for learners halved over
   * their budget ({@link TunePlan.budgeted}) η^{@link BUDGET_RUNGS}, a round at t
   * fitting t/T of the budget; else 1.
   */
  readonly T: number;
  /**
   * Whether the learner does not continue but is halved over its budget with
   * restarts (`spec.tuneBudget`): round t fits every candidate on t/T of its
   * budget, on the first folds only ({@link roundFolds}) until the last round.
   */
  readonly budgeted: boolean;
  /** A budget halving's early rounds score on the first folds holding this many validation rows ({@link roundFolds}). */
  readonly earlyRows: number;
  readonly halving: HalvingOptions;
  /** Rounds of the halving plan. */
  readonly roundCount: number;
  readonly threads: number;
  readonly onWarning: (message: string) => void;
  /** Block evaluations per batch point: the halving over all folds, and the refit (zeros for learners that do not continue). */
  readonly planned: number;
  readonly refitCost: number;
  /** Units the progress counts to: the planned block evaluations and the refit, or one per fold fit and one for the refit. */
  readonly total: number;
  /** See {@link FitSetup.chooseShare}. */
  readonly chooseShare: boolean;
}

/** What the CV found: each candidate's last scores, how far it got, and the winner. */
interface SearchOutcome {
  readonly lastScores: number[][];
  /** With {@link FitSetup.chooseShare}: per candidate, per fold of its last round, its labels at each of {@link MINORITY_SHARES}. */
  readonly lastShares: Array<Array<ShareCounts | undefined>>;
  readonly lastPooled: number[];
  readonly lastNeighbourhood: number[];
  readonly reached: number[];
  readonly droppedAfter: Map<number, number>;
  readonly rounds: TuneRound[];
  readonly winner: number;
  /** Whether the defaults ran a reference round of their own (they were dropped, or are not a grid point). */
  readonly reference: boolean;
  /** The search's pick against the defaults (see {@link TuneResult.overDefaults}). */
  readonly overDefaults: OverDefaults;
}

/** A pick's cross-validated gain over the learner's defaults, and its standard error. */
export interface OverDefaults {
  /** Its score minus the defaults' (the score ranked by, on every fold at T); 0 when the pick is the defaults. */
  readonly gain: number;
  /** The standard error of the gain: the sample sd of the fold-by-fold differences over √(folds). */
  readonly se: number;
}

/** The progress a tune run reports, in units of {@link TunePlan.total}. */
export class TuneMeter {
  done = 0;
  round = 0;
  /** With a queue: the current round's jobs finished and in all. */
  jobs: { done: number; total: number } | undefined;
  /** The planned total; grows by the defaults' reference round when one runs. */
  total: number;
  private readonly start = performance.now();

  constructor(
    private readonly plan: Pick<TunePlan, 'total' | 'opts'>,
    private readonly rounds: number,
  ) {
    this.total = plan.total;
  }

  report(): void {
    this.plan.opts.onProgress?.({ done: this.done, total: this.total, round: this.round, rounds: this.rounds, elapsedMs: performance.now() - this.start, ...(this.jobs ? { jobs: this.jobs } : {}) });
  }
}

/**
 * Tunes a learner's hyperparameters by k-fold CV over the labeled rows, with
 * successive halving over iterations (continued, not restarted) for learners
 * that continue, then refits the winner on all rows.
 *
 * @example
 * const { best, table, model, cost } = await tune({ learner: 'qsg-s2auc', data: 'train.arrow', folds: 5, T: 400 });
 * await model.save('best.dsg');
 * console.log(best, cost.fraction); // e.g. { sigma: 0.09, lambda: 0.01, gamma: 0.5, … } 0.05
 */
export async function tune(opts: TuneOptions): Promise<TuneResult> {
  return tuneModel(opts as TuneArgs);
}

/**
 * {@link tune} for options built at run time (a learner chosen by name, parameters parsed from text).
 *
 * @example
 * const result = await tuneModel({ learner: name, data: 'train.arrow', ...parsed });
 */
export async function tuneModel(opts: TuneArgs): Promise<TuneResult> {
  const plan = await planTune(opts);
  const meter = new TuneMeter(plan, plan.roundCount);
  const { opts: o } = plan;
  if (o.queue === undefined && (o.refit !== undefined || o.stateInlineBytes !== undefined)) throw new UsageError(`${o.refit !== undefined ? 'refit' : 'stateInlineBytes'} needs queue`);
  if (o.refit !== undefined && o.refit !== 'local' && o.refit !== 'queue') throw new UsageError(`refit must be 'local' or 'queue', got ${String(o.refit)}`);
  // With a queue, each round's fits (and with refit: 'queue' the refit) are jobs (src/distributed/tune.ts), taken back into the same slots.
  const remote = o.queue === undefined ? undefined
    : await (await loadQueueModule(() => import('./distributed/tune.ts'))).TuneOnQueue.start(plan, {
      queue: o.queue, refitOnQueue: o.refit === 'queue',
      ...(o.stateDir !== undefined ? { stateDir: o.stateDir } : {}), ...(o.stateInlineBytes !== undefined ? { stateInlineBytes: o.stateInlineBytes } : {}), ...(o.signal ? { signal: o.signal } : {}),
    });
  let outcome: SearchOutcome;
  let model: Model;
  let share: { index: number; accuracies: number[] } | undefined;
  try {
    outcome = await searchCandidates(plan, meter, remote);
    meter.jobs = undefined;
    share = plan.chooseShare ? chooseMinorityShare(outcome.lastShares[outcome.winner], roundFolds(plan, plan.T).reduce((a, j) => a + plan.folds[j].validation.n, 0)) : undefined;
    if (remote && o.refit === 'queue') {
      meter.round = plan.roundCount;
      meter.report();
      model = await remote.refit(outcome.winner, share?.index ?? 0, plan.onWarning);
      meter.done = meter.total;
      meter.report();
    } else model = await refit(plan, outcome.winner, share?.index ?? 0, meter);
  } finally {
    await remote?.close();
  }
  const table = cvTable(plan, outcome);
  const halving = plan.spec.capabilities.continues ? plan.planned : 0;
  const fullGrid = plan.spec.capabilities.continues ? plan.gridCount * plan.folds.length * continuationCost(0, plan.T) : 0;
  const cost = { halving, fullGrid, fraction: fullGrid > 0 ? halving / fullGrid : 1, refit: plan.refitCost };
  const minorityShare: MinorityShareChoice | undefined = share ? { shares: MINORITY_SHARES, accuracies: share.accuracies, chosen: MINORITY_SHARES[share.index] } : undefined;
  const best = withShare(plan.candidates[outcome.winner], share?.index ?? 0);
  const supervised = plan.spec.supervisedCase;
  const usesUnlabeled = supervised ? !Object.entries(supervised).every(([k, v]) => valueOf(plan.spec, best, k) === v) : undefined;
  const sigmaRatio = typeof best.sigma === 'number' ? best.sigma / plan.sigma0 : undefined;
  const record: TuneRecord = {
    folds: plan.k,
    repeats: plan.repeats,
    metric: plan.metric,
    select: plan.select,
    sigma0: plan.sigma0,
    ...(sigmaRatio !== undefined ? { sigmaRatio } : {}),
    space: plan.space,
    ...(plan.spec.capabilities.continues || plan.budgeted ? { halving: { eta: plan.eta, t0: plan.t0, T: plan.T, ...(plan.budgeted ? { budget: true as const, cut: plan.halving.cut!, earlyFolds: roundFolds(plan, 0).length } : plan.halving.cut !== undefined ? { cut: plan.halving.cut } : {}) } } : {}),
    table,
    rounds: outcome.rounds,
    blockEvaluations: cost,
    guard: plan.guard,
    overDefaults: outcome.overDefaults,
    ...(usesUnlabeled !== undefined ? { usesUnlabeled } : {}),
    ...(minorityShare ? { minorityShare } : {}),
  };
  const withTable = new Model({ ...model.header, training: { ...model.header.training, tune: record } }, model.predictor);
  const { metric, select, k: folds, repeats, sigma0 } = plan;
  return { best, table, rounds: outcome.rounds, model: withTable, sigma0, ...(sigmaRatio !== undefined ? { sigmaRatio } : {}), metric: METRICS[metric].title, select, folds, repeats, cost, defaultsId: plan.defaultsId, guard: plan.guard, overDefaults: outcome.overDefaults, ...(usesUnlabeled !== undefined ? { usesUnlabeled } : {}), ...(minorityShare ? { minorityShare } : {}) };
}

/**
 * A candidate's parameters with the class-share cut's minority share
 * `MINORITY_SHARES[index]` (none added for the first, 1: the parameter's default).
 *
 * @example
 * withShare({ sigma: 1, C: 800 }, 1); // { sigma: 1, C: 800, minorityShare: 0.5 }
 */
function withShare(params: Params, index: number): Params {
  return index === 0 ? params : { ...params, minorityShare: MINORITY_SHARES[index] };
}

/** Validates the options, reads and scales the data, and lays out the candidates, folds and halving rounds. */
async function planTune(opts: TuneArgs): Promise<TunePlan> {
  if (opts === null || typeof opts !== 'object') throw new UsageError('tune: options must be an object with at least learner and data');
  const spec = learnerSpec(opts.learner);
  const onWarning = opts.onWarning ?? ((m: string) => process.emitWarning(m));
  const whole = (value: unknown, fallback: number, min: number, name: string): number => {
    const v = value ?? fallback;
    if (!Number.isSafeInteger(v) || (v as number) < min) throw new UsageError(`${name} must be a whole number ≥ ${min}, got ${String(value)}`);
    return v as number;
  };
  const k = whole(opts.folds, DEFAULT_FOLDS, 2, 'folds');
  const repeats = whole(opts.repeats, 1, 1, 'repeats');
  const eta = whole(opts.eta, 3, 2, 'eta');
  const select = opts.select ?? spec.tuneSelection ?? 'best';
  if (!TUNE_SELECTIONS.includes(select)) throw new UsageError(`select must be one of ${TUNE_SELECTIONS.join(', ')}, got ${String(opts.select)}`);
  const guard = opts.guard ?? spec.tuneGuard ?? 'cv';
  if (!TUNE_GUARDS.includes(guard)) throw new UsageError(`guard must be one of ${TUNE_GUARDS.join(', ')}, got ${String(opts.guard)}`);
  const fixedGiven: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(opts)) if (!TUNE_KEYS.has(key)) fixedGiven[key] = value;
  const fixed = resolveParams(spec, fixedGiven);
  const threads = resolveThreads(opts.threads, onWarning);
  const metric = opts.metric ?? spec.tuneMetric ?? spec.metric;
  const ranking = spec.task === 'binary' ? 'auc' : 'mean-auc';
  if (metric !== spec.metric && metric !== ranking) {
    throw new UsageError(`metric must be ${spec.metric === ranking ? ranking : `${spec.metric} or ${ranking}`} for ${spec.name} (a ${spec.task} learner), got ${String(opts.metric)}`);
  }
  checkClipQuantile(opts.clipQuantile);
  const raw = await toDataset(opts.data, 'data', opts.read);
  const classes = taskClasses(spec.task, raw, opts.positive !== undefined ? { positive: opts.positive } : {});
  const few = fewLabeledWarning(classCounts(raw), k, (c) => labelName(classes, c));
  if (few !== undefined) onWarning(few);
  // Scaled once with the scaler of all training rows (unsupervised: the features' ranges only).
  // With threads, in shared memory: the fit threads map the folds' rows rather than copy them (tune-threads.ts).
  const ds = scalerFor(raw, opts.clipQuantile).transform(raw, threads > 1 ? new Float64Array(new SharedArrayBuffer(8 * raw.X.length)) : undefined);
  const sigma0 = kernelScale0(ds);
  const labeledRows = labeledCount(ds);
  const space = searchSpace(spec, opts, fixedGiven, fixed, sigma0, labeledRows);
  const grid = gridCandidates(space).map((c) => withDataDefaults(spec, { ...fixed, ...c }, ds));
  // The learner's defaults (with what the caller fixed) take part whether or not they are a grid point.
  const defaults = withDataDefaults(spec, fixed, ds);
  const found = defaultsOnGrid(spec, space, grid, defaults, labeledRows);
  const candidates = found >= 0 ? grid : [...grid, defaults];
  const defaultsId = found >= 0 ? found : grid.length;
  const splits = repeatedLabeledFolds(ds, { k, seed: typeof fixed.seed === 'number' ? fixed.seed : 1, repeats });
  const folds = splits.flat();
  const continues = spec.capabilities.continues;
  if (opts.fullGrid !== undefined && typeof opts.fullGrid !== 'boolean') throw new UsageError(`fullGrid must be true or false, got ${String(opts.fullGrid)}`);
  const fullGrid = opts.fullGrid === true;
  if (fullGrid && opts.t0 !== undefined) throw new UsageError('t0 and fullGrid exclude each other (a full grid runs every setting to T)');
  const budgeted = !continues && !fullGrid && spec.tuneBudget !== undefined && grid.length > 1;
  const schedule: BudgetSchedule = { ...DEFAULT_BUDGET_SCHEDULE, ...spec.tuneSchedule };
  // A loop learner's T not fixed by the caller: its budget rule's on the training rows (withDataDefaults).
  const T = continues ? (defaults.T as number) : budgeted ? eta ** schedule.firstRung : 1;
  const t0 = fullGrid ? T : continues ? (opts.t0 ?? defaultT0(grid.length, eta, T)) : budgeted ? (opts.t0 ?? 1) : 1;
  if (!Number.isSafeInteger(t0) || t0 < 1 || t0 > T) throw new UsageError(`t0 must be a whole number in [1, T = ${T}], got ${String(opts.t0)}`);
  // Loop learners too: a grid of more than 81 settings is cut by more than η (budgetCut).
  const cut = budgeted ? budgetCut(grid.length, eta, schedule.finalists) : continues && !fullGrid ? budgetCut(grid.length, eta) : eta;
  const halving: HalvingOptions = { t0, eta, T, ...(cut !== eta || budgeted ? { cut } : {}) };
  const rounds = halvingPlan(grid.length, halving);
  const planned = rounds.reduce((sum, r, i) => sum + r.count * continuationCost(i === 0 ? 0 : rounds[i - 1].t, r.t), 0) * folds.length;
  const refitCost = continues ? continuationCost(0, T) : 0;
  const earlyRows = schedule.earlyRows;
  const fits = rounds.reduce((sum, r) => sum + r.count * roundFolds({ budgeted, T, k, folds, earlyRows }, r.t).length, 0);
  const total = continues ? planned + refitCost : fits + 1;
  const steps = candidates.map((c) => resolveStep(spec, c, {}, { sigma0: () => sigma0 }));
  const pooled = splits.map((split) => ({ y: Float64Array.from(split.flatMap((f) => Array.from(f.validation.y))), sizes: split.map((f) => f.validation.n) }));
  // The class-share cut's minority share, when the learner has one and the caller left it to tune (chosen after the search: chosenShare).
  const chooseShare = spec.metric === 'accuracy' && spec.threshold === 'prior' && classes.kind === 'binary' && paramSpec(spec.params, 'minorityShare') !== undefined
    && fixedGiven.minorityShare === undefined && space.minorityShare === undefined;
  return {
    spec, opts, raw, classes, sigma0, space, candidates, gridCount: grid.length, defaultsId, steps, k, repeats, pooled, folds, metric, select, guard,
    eta, t0, T, budgeted, earlyRows, halving, roundCount: rounds.length, threads, onWarning, planned, refitCost, total, chooseShare,
  };
}

/**
 * The grid point that is the learner's defaults in effect, or −1: the point
 * whose searched values are the defaults', parameters whose default follows
 * from others filled in first (`spec.impliedParams`: GKM's C′ = 1 at p = 1,
 * TSGS3VM's C* = C/10), so the defaults run in the halving as that point
 * instead of once more in a reference round of their own.
 *
 * @example
 * defaultsOnGrid(tsgs3vmSpec, { C: [10, 100], Cstar: [0, 10] }, grid, { C: 100, sigma: 1 }, 200); // the index of { C: 100, Cstar: 10 }
 */
export function defaultsOnGrid(spec: Pick<LearnerSpec, 'impliedParams' | 'params'>, space: Readonly<Record<string, readonly ParamValue[]>>, grid: readonly Params[], defaults: Params, labeledRows: number): number {
  const implied = (p: Params): Params => spec.impliedParams?.(p, labeledRows) ?? p;
  const d = implied(defaults);
  return grid.findIndex((c) => {
    const ci = implied(c);
    return Object.keys(space).every((k) => valueOf(spec, ci, k) === valueOf(spec, d, k));
  });
}

/**
 * A parameter's value in `params`, a default written as no key (`omitDefault`: γ_G = 0) read as that default.
 *
 * @example
 * valueOf(qsgS2aucSpec, { gamma: 1 }, 'graphWeight'); // 0
 */
function valueOf(spec: Pick<LearnerSpec, 'params'>, params: Params, key: string): ParamValue | undefined {
  return params[key] ?? paramSpec(spec.params, key)?.default;
}

/** The search space: the learner's, with the caller's grid replacing what it names, without the parameters the caller fixed. */
function searchSpace(spec: LearnerSpec, opts: TuneArgs, fixedGiven: Readonly<Record<string, unknown>>, fixed: Params, sigma0: number, labeledRows: number): Record<string, ParamValue[]> {
  const space: Record<string, ParamValue[]> = {};
  for (const [key, values] of Object.entries(spec.searchSpace({ sigma0, fixed, labeledRows }))) if (fixedGiven[key] === undefined) space[key] = [...values];
  if (opts.grid !== undefined) {
    if (opts.grid === null || typeof opts.grid !== 'object') throw new UsageError('grid must be an object: parameter → list of values');
    for (const [key, values] of Object.entries(opts.grid)) space[key] = checkGridValues(spec, key, values);
  }
  return space;
}

/**
 * The halving rounds: every (candidate, fold) fit of a round, a few at a time
 * on one shared pool; each fit's result lands in its own slot, so the order
 * they finish in changes nothing. Survivors continue from where they stopped.
 */
async function searchCandidates(plan: TunePlan, meter: TuneMeter, remote: TuneOnQueue | undefined): Promise<SearchOutcome> {
  const { candidates, folds, opts } = plan;
  const n = plan.gridCount;
  const pool = plan.threads > 1 ? new EvaluatorPool(plan.threads - 1) : undefined;
  const engine: EvaluatorOptions = {
    threads: plan.threads,
    ...(pool ? { pool } : {}),
    ...givenEngineSettings(opts),
    // The fits of settings that share σ share their random features: one store per feature map for the whole search.
    frequencyStores: new FrequencyStores(opts.cacheBytes ?? DEFAULT_CACHE_BYTES, plan.T),
  };
  const states: Array<Array<FitState | undefined>> = candidates.map(() => folds.map(() => undefined));
  const out: SearchOutcome = {
    lastScores: candidates.map(() => []), lastShares: candidates.map(() => []), lastPooled: candidates.map(() => NaN), lastNeighbourhood: candidates.map(() => NaN),
    reached: candidates.map(() => 0), droppedAfter: new Map(), rounds: [], winner: 0, reference: false, overDefaults: { gain: 0, se: 0 },
  };
  let winner = 0;
  let reference = false;
  // A round of many short fits runs them whole on the threads (tune-threads.ts); one of few splits each fit's calls.
  let fitThreads: FitThreads | undefined;
  const fitRound = (step: HalvingStep) => {
    if (remote) return remote.round(plan, step, meter);
    const used = roundFolds(plan, step.t);
    if (!fitsOnThreads(step.run.length * used.length, plan.threads)) return runRound(plan, step, engine, states, meter);
    fitThreads ??= FitThreads.start(plan, fitSetupOf(plan));
    return fitThreads.round(plan, step, used, states, meter);
  };
  // The defaults' reference round when it ran beside the halving's last round (below).
  let referenceFits: { step: HalvingStep; scores: number[]; outOfFold: Float64Array[]; shares: Array<ShareCounts | undefined> } | undefined;
  try {
    let step: HalvingStep | undefined = firstHalvingStep(n, plan.halving);
    while (step) {
      const current: HalvingStep = step;
      meter.round = current.round;
      // The defaults' reference needs nothing the last round finds: where the two together make a round for the
      // fit threads, their fits run as one round there (the same fits, so the same scores and bytes).
      const ref = remote === undefined && current.round === plan.roundCount - 1 && current.t === plan.T && !current.run.includes(plan.defaultsId) ? referenceStep(plan, out) : undefined;
      const beside = ref !== undefined && fitsOnThreads((current.run.length + 1) * roundFolds(plan, plan.T).length, plan.threads);
      if (beside) meter.total += referenceCost(plan, ref);
      const both = await fitRound(beside ? { ...current, run: [...current.run, ref.run[0]] } : current);
      const r = current.run.length;
      if (beside) referenceFits = { step: ref, scores: both.scores[r], outOfFold: both.outOfFold[r], shares: both.shares[r] };
      const { scores, outOfFold, shares } = beside ? { scores: both.scores.slice(0, r), outOfFold: both.outOfFold.slice(0, r), shares: both.shares.slice(0, r) } : both;
      const used = roundFolds(plan, current.t);
      const pooled = scores.map((fs, i) => roundScore(plan, fs, outOfFold[i], used));
      const neighbourhood = plan.select === 'neighbourhood' ? neighbourhoodScores(plan.space, candidates, current.run, pooled) : undefined;
      current.run.forEach((c, i) => {
        out.lastScores[c] = used.map((j) => scores[i][j]);
        out.lastShares[c] = used.map((j) => shares[i][j]);
        out.lastPooled[c] = pooled[i];
        if (neighbourhood) out.lastNeighbourhood[c] = neighbourhood[i];
        out.reached[c] = current.t;
      });
      out.rounds.push({ round: current.round, from: current.from, t: current.t, candidates: current.run, scores: pooled, ...(neighbourhood ? { neighbourhood } : {}) });
      // Ranked by the neighbourhood mean, ties by the own score: a few survivors that are all each other's neighbours share one mean.
      const decision = nextHalvingStep(n, plan.halving, current, neighbourhood ?? pooled, neighbourhood ? pooled : undefined);
      for (const c of decision.dropped) {
        out.droppedAfter.set(c, current.round);
        if (c !== plan.defaultsId) states[c].fill(undefined); // free the history (the defaults' may continue below)
      }
      if (decision.winner !== undefined) winner = decision.winner;
      step = decision.next;
    }
    if (referenceFits) {
      recordReference(plan, out, referenceFits.step, referenceFits);
      reference = true;
    } else reference = await scoreDefaultsAtT(plan, out, meter, fitRound);
  } finally {
    await Promise.all([pool?.close(), fitThreads?.close()]);
  }
  // Never a winner worse in CV than the learner's defaults; with `one-se`, none less than a standard error better.
  const d = plan.defaultsId;
  if (d !== winner && out.lastPooled[d] >= out.lastPooled[winner]) winner = d;
  const overDefaults = gainOverDefaults(out.lastPooled, out.lastScores, winner, d);
  if (plan.guard === 'one-se' && winner !== d && overDefaults.gain <= overDefaults.se) winner = d;
  return { ...out, winner, reference, overDefaults };
}

/**
 * The pick's CV gain over the defaults and its standard error from the
 * fold-by-fold differences (both scored on every fold at T).
 *
 * @example
 * gainOverDefaults([0.9, 0.8], [[0.9, 0.95, 0.85], [0.8, 0.85, 0.75]], 0, 1); // { gain: 0.1, se: 0 }
 */
export function gainOverDefaults(pooled: readonly number[], foldScores: readonly (readonly number[])[], pick: number, defaults: number): OverDefaults {
  if (pick === defaults) return { gain: 0, se: 0 };
  const diffs = foldScores[pick].map((v, j) => v - foldScores[defaults][j]);
  return { gain: pooled[pick] - pooled[defaults], se: diffs.length > 1 ? sampleSd(diffs) / Math.sqrt(diffs.length) : 0 };
}

/**
 * The defaults' reference round, when the halving did not take them to T
 * (dropped on the way, or not a grid point): they continue from where they
 * stopped, on every fold (a learner halved over its budget restarts: the
 * reference is a fit at the full budget). Undefined when they reached T.
 */
function referenceStep(plan: TunePlan, out: SearchOutcome): HalvingStep | undefined {
  const d = plan.defaultsId;
  const from = out.reached[d];
  if (from >= plan.T) return undefined;
  return { round: out.rounds.length, from: plan.budgeted ? 0 : from, t: plan.T, run: [d] };
}

/** What the reference round adds to the progress's total. */
function referenceCost(plan: TunePlan, step: HalvingStep): number {
  return plan.spec.capabilities.continues ? plan.folds.length * continuationCost(step.from, plan.T) : plan.folds.length;
}

/** The reference round's scores as the defaults' last, and its record. */
function recordReference(plan: TunePlan, out: SearchOutcome, step: HalvingStep, { scores, outOfFold, shares }: { scores: number[]; outOfFold: Float64Array[]; shares: Array<ShareCounts | undefined> }): void {
  const d = plan.defaultsId;
  const pooled = roundScore(plan, scores, outOfFold, roundFolds(plan, plan.T));
  out.lastScores[d] = scores;
  out.lastShares[d] = shares;
  out.lastPooled[d] = pooled;
  out.reached[d] = plan.T;
  out.droppedAfter.delete(d);
  out.rounds.push({ round: out.rounds.length, from: step.from, t: plan.T, candidates: [d], scores: [pooled], reference: true });
}

/**
 * The defaults' CV score at T as a round of its own ({@link referenceStep}).
 * Returns whether such a reference round ran.
 */
async function scoreDefaultsAtT(plan: TunePlan, out: SearchOutcome, meter: TuneMeter, fitRound: (step: HalvingStep) => Promise<RoundFits>): Promise<boolean> {
  const step = referenceStep(plan, out);
  if (step === undefined) return false;
  meter.total += referenceCost(plan, step);
  meter.round = step.round;
  const { scores, outOfFold, shares } = await fitRound(step);
  recordReference(plan, out, step, { scores: scores[0], outOfFold: outOfFold[0], shares: shares[0] });
  return true;
}

/** One round: every (candidate, fold) fit, as many at a time as threads; each candidate's fold scores and out-of-fold values. */
async function runRound(plan: TunePlan, current: HalvingStep, engine: EvaluatorOptions, states: Array<Array<FitState | undefined>>, meter: TuneMeter): Promise<RoundFits> {
  const { folds, opts, spec } = plan;
  const jobs = current.run.flatMap((c) => roundFolds(plan, current.t).map((j) => [c, j] as const));
  const scores = current.run.map(() => new Array<number>(folds.length).fill(NaN));
  const outOfFold = current.run.map(() => folds.map((): Float64Array => new Float64Array(0)));
  const shares = current.run.map(() => folds.map((): ShareCounts | undefined => undefined));
  let next = 0;
  const worker = async () => {
    while (next < jobs.length) {
      const [c, j] = jobs[next++];
      if (opts.signal?.aborted) throw new CancelledError(`tuning cancelled in round ${current.round}`);
      const fold = await runFold(plan, c, j, current.t, engine, states[c], meter);
      const i = current.run.indexOf(c);
      scores[i][j] = fold.score;
      outOfFold[i][j] = fold.f;
      shares[i][j] = fold.shares;
      if (!spec.capabilities.continues) meter.done += 1;
      meter.report();
    }
  };
  await Promise.all(Array.from({ length: Math.min(Math.max(1, plan.threads), jobs.length) }, worker));
  return { scores, outOfFold, shares };
}

/**
 * A candidate's score in a round: its pooled out-of-fold score, averaged over
 * the repeated draws of the folds; on the folds `used` alone (the first ones
 * of the first draw) in a budget halving's early rounds.
 */
export function roundScore(plan: TunePlan, foldScores: readonly number[], outOfFold: readonly Float64Array[], used: readonly number[]): number {
  const { k } = plan;
  if (used.length < plan.folds.length) {
    const y = Float64Array.from(used.flatMap((j) => Array.from(plan.folds[j].validation.y)));
    const sizes = used.map((j) => plan.folds[j].validation.n);
    return pooledScore(plan.metric, plan.classes, sizes, used.map((j) => foldScores[j]), y, used.map((j) => outOfFold[j]));
  }
  return mean(plan.pooled.map(({ y, sizes }, r) => pooledScore(plan.metric, plan.classes, sizes, foldScores.slice(r * k, (r + 1) * k), y, outOfFold.slice(r * k, (r + 1) * k))));
}

/**
 * What a fold fit reads of a search, as plain data (the learner by name):
 * what a fit thread gets as workerData (tune-threads.ts) and a `dsgkit
 * worker` reads from the run's setup.bin (src/distributed/tune.ts).
 */
export interface FitSetup {
  readonly learner: string;
  readonly metric: MetricName;
  readonly classes: TaskClasses;
  readonly folds: ReadonlyArray<{ readonly train: Dataset; readonly validation: Dataset }>;
  readonly candidates: readonly Params[];
  readonly steps: TunePlan['steps'];
  readonly T: number;
  readonly budgeted: boolean;
  /**
   * Whether each fold fit also scores its accuracy at every cut of
   * {@link MINORITY_SHARES} (a binary learner with the class-share cut whose
   * `minorityShare` the caller neither fixed nor searched): `tune` then chooses the refit's share.
   */
  readonly chooseShare: boolean;
}

/** A round's fits: per candidate (in the round's order), per fold, the score, the out-of-fold scores and, with {@link FitSetup.chooseShare} at T, the labels at each minority share. */
export interface RoundFits {
  readonly scores: number[][];
  readonly outOfFold: Float64Array[][];
  readonly shares: Array<Array<ShareCounts | undefined>>;
}

/** One fold fit's outcome (see {@link runFold}). */
export interface FoldOutcome {
  readonly score: number;
  readonly f: Float64Array;
  /** With {@link FitSetup.chooseShare}, at T: the fold's labels at each of {@link MINORITY_SHARES}. */
  readonly shares?: ShareCounts;
}

/** What one fold fit reads of a {@link TunePlan}: its {@link FitSetup} with the learner's spec, and the run's signal. */
export type FitPlan = Omit<FitSetup, 'learner'> & { readonly spec: LearnerSpec; readonly opts: Pick<TuneArgs, 'signal'> };

/**
 * The plain data of a search's fold fits (each fold's training and validation rows).
 *
 * @example
 * const setup = fitSetupOf(plan); // structured-cloneable: workerData, or serialised to setup.bin
 */
export function fitSetupOf(plan: TunePlan): FitSetup {
  const { metric, classes, candidates, steps, T, budgeted, chooseShare } = plan;
  return { learner: plan.spec.name, metric, classes, folds: plan.folds.map((f) => ({ train: f.train, validation: f.validation })), candidates, steps, T, budgeted, chooseShare };
}

/**
 * The fold fits' plan rebuilt from their setup where the plan is not (a fit thread, a queue worker).
 *
 * @example
 * const { score } = await runFold(fitPlanOf(setup, signal), c, j, to, engine, states, meter);
 */
export function fitPlanOf(setup: FitSetup, signal?: AbortSignal): FitPlan {
  const { learner, ...rest } = setup;
  return { ...rest, spec: learnerSpec(learner), opts: signal ? { signal } : {} };
}

/**
 * Runs (or continues) candidate `c` on fold `j` to iteration `to` — one
 * `spec.fit` — and scores it on the fold's validation rows with the metric
 * ranked by; `f` is its scores there (pooled over the folds by {@link pooledScore}).
 * A learner halved over its budget fits `to/T` of its budget (`spec.tuneBudget`), the setting itself at T.
 */
export async function runFold(plan: FitPlan, c: number, j: number, to: number, engine: EvaluatorOptions, states: Array<FitState | undefined>, meter: Pick<TuneMeter, 'done' | 'report'>): Promise<FoldOutcome> {
  const { spec, classes, metric, opts } = plan;
  const { train: ds, validation: va } = plan.folds[j];
  const params = plan.budgeted && to < plan.T && spec.tuneBudget ? spec.tuneBudget(plan.candidates[c], to / plan.T, labeledCount(ds)) : plan.candidates[c];
  const continues = spec.capabilities.continues;
  const start = states[j];
  const fitted = await spec.fit({
    rows: ds, classes, params, engine,
    ...(plan.steps[c] ? { step: plan.steps[c] } : {}),
    ...(continues ? { to } : {}),
    ...(start ? { start } : {}),
    // No model records a fold fit's strategy: the cheaper one for its own iterations, not the whole run's (same scores).
    ...(spec.capabilities.profiles ? { evaluation: 'fastest' as const } : {}),
    hooks: {
      ...(opts.signal ? { signal: opts.signal } : {}),
      ...(continues ? { onProgress: (p) => ((meter.done += p.t - 1), meter.report()) } : {}),
    },
  });
  if (continues) states[j] = fitted.state;
  const f = await fitted.predictor.evaluate(va.X, va.n, new Float64Array(va.n), engine);
  // The fits at T of a search that chooses the cut's minority share score each share's accuracy, whatever the rounds rank by.
  const byShare = plan.chooseShare && to === plan.T;
  const ranking = metric !== 'accuracy' ? rankingMetric(classes, va.y, f) : undefined;
  if (ranking !== undefined && !byShare) return { score: ranking, f };
  // Accuracy needs the threshold(s), fitted on the fold's training rows as train does. The `zero` rule's cut is 0
  // whatever the scores: no scoring of the training rows, the fold's own scores stand in for the check that the run
  // did not diverge (TSGS3VM on spam: 5% of a tune).
  if (spec.threshold === 'zero') return { score: metricValue('accuracy', fitTask(classes, f, va.y, 'zero'), va.y, f), f };
  const rows = datasetRows(ds);
  const own = (params.minorityShare as number | undefined) ?? 1;
  const shares = byShare ? MINORITY_SHARES : [own];
  const tasks = await fittedTasks(fitted.predictor, rows, labeledDataset(rows), classes, spec.threshold, engine, params.seed as number, to < plan.T ? EARLY_PRIOR_ROWS : BALANCE_ROWS, shares);
  const score = ranking ?? metricValue('accuracy', tasks[shares.indexOf(own)], va.y, f);
  return { score, f, ...(byShare ? { shares: shareCounts(tasks, va.y, f) } : {}) };
}

/**
 * A fold's labels under each of the cuts `tasks` (one per minority share):
 * rows labeled right, and rows labeled otherwise than under the first.
 *
 * @example
 * shareCounts([asLabeled, half, none], va.y, f); // e.g. { right: [98, 101, 104], changed: [0, 6, 13] }
 */
export function shareCounts(tasks: readonly Task[], y: Float64Array, f: Float64Array): ShareCounts {
  const labels = tasks.map((task) => labelsFromScores(task, f));
  const right = labels.map((l) => l.reduce((a, v, i) => a + (v === y[i] ? 1 : 0), 0));
  const changed = labels.map((l) => l.reduce((a, v, i) => a + (v !== labels[0][i] ? 1 : 0), 0));
  return { right, changed };
}

/**
 * The score a round ranks a candidate by (see {@link TuneRow.score}): the
 * ranking metric over the out-of-fold scores of every fold pooled, or for
 * accuracy the fold accuracies weighted by fold size.
 */
function pooledScore(metric: MetricName, classes: TaskClasses, sizes: readonly number[], foldScores: readonly number[], y: Float64Array, outOfFold: readonly Float64Array[]): number {
  if (metric === 'accuracy') return foldScores.reduce((a, v, j) => a + v * sizes[j], 0) / sizes.reduce((a, b) => a + b, 0);
  const f = new Float64Array(y.length);
  let at = 0;
  for (const part of outOfFold) {
    f.set(part, at);
    at += part.length;
  }
  return rankingMetric(classes, y, f);
}

/** The CV table: every candidate's searched values, last scores, iterations reached and fate. */
function cvTable(plan: TunePlan, out: SearchOutcome): TuneRow[] {
  const rounds = plan.roundCount;
  return plan.candidates.map((candidate, c) => ({
    id: c,
    params: Object.fromEntries(Object.keys(plan.space).map((key) => [key, candidate[key]])),
    score: out.lastPooled[c],
    ...(plan.select === 'neighbourhood' ? { neighbourhood: out.lastNeighbourhood[c] } : {}),
    mean: mean(out.lastScores[c]),
    sd: sampleSd(out.lastScores[c]),
    folds: out.lastScores[c],
    ...(plan.spec.capabilities.continues || plan.budgeted ? { t: out.reached[c] } : {}),
    status: c === out.winner ? 'best' : c === plan.defaultsId && out.reference ? 'reference' : status(out.droppedAfter.get(c), rounds),
  }));
}

/**
 * A candidate's fate in the CV table when it is not the pick: `kept` when it
 * ran the last round (dropped there, or the halving's own winner that the
 * defaults then beat), else the round after which the halving dropped it.
 *
 * @example
 * status(undefined, 3); // 'kept'  (it survived every round)
 * status(0, 3);         // 'dropped after round 0'
 */
function status(droppedAfter: number | undefined, rounds: number): 'kept' | `dropped after round ${number}` {
  return droppedAfter === undefined || droppedAfter === rounds - 1 ? 'kept' : `dropped after round ${droppedAfter}`;
}

/** The refit: the winner's parameters on all training rows (σ as found, even if it came from σ₀), its cut at minority share `MINORITY_SHARES[share]`. */
async function refit(plan: TunePlan, winner: number, share: number, meter: TuneMeter): Promise<Model> {
  const { opts, spec } = plan;
  meter.round = plan.roundCount;
  const baseDone = meter.done;
  const model = await trainModel({
    learner: spec.name,
    data: plan.raw,
    ...(opts.read ? { read: opts.read } : {}),
    ...(opts.positive !== undefined ? { positive: opts.positive } : {}),
    ...(opts.clipQuantile !== undefined ? { clipQuantile: opts.clipQuantile } : {}),
    ...withShare(plan.candidates[winner], share),
    ...(plan.steps[winner] ? { step: plan.steps[winner] } : {}),
    threads: plan.threads,
    ...givenEngineSettings(opts),
    ...(opts.signal ? { signal: opts.signal } : {}),
    onWarning: plan.onWarning,
    onProgress: (p) => {
      meter.done = baseDone + (spec.capabilities.continues ? continuationCost(0, p.t) : 0);
      meter.report();
    },
  });
  meter.done = meter.total;
  meter.report();
  return model;
}
