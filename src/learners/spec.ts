/**
 * The learner contract: what one learner declares, in its own file, so that
 * the API, the CLI (options, `--help`), the model header, `compare`, `tune`
 * and the conformance suite can all work from the registry alone.
 *
 * Every learner is fitted the same way, by {@link LearnerBase.fit} on a
 * {@link FitRun} (rows, classes, typed parameters, engine, hooks, iteration
 * range); callers never ask how. What differs between learners and matters
 * to a caller (can it continue, does it have a step schedule, can it train
 * on a sample read from a file) is in {@link Capabilities}.
 *
 * Two families implement `fit`:
 * - learners on the shared doubly stochastic loop (ALGORITHMS.md): they
 *   declare their sources and weights as a {@link DsgLearner} (`create`) and
 *   get `fit` from one wrapper around the loop (loop-fit.ts);
 * - learners that produce their predictor another way (the exact O(n³)
 *   solution, fixed-feature baselines, support-vector expansions), whose
 *   iterative ones share the loop's run shell (coordinator/run-shell.ts).
 */
import type { TuneGuard, TuneSelection } from '../coordinator/tune-rules.ts';
import type { Dataset } from '../data/dataset.ts';
import type { TrainingRows } from '../data/training-rows.ts';
import type { EvaluatorOptions } from '../engine/evaluator.ts';
import type { FrequencyStore } from '../engine/frequency-store.ts';
import type { DsgLearner } from '../coordinator/learner.ts';
import type { Evaluation, LoopStart, Progress, SamplingState, Validation } from '../coordinator/loop.ts';
import type { ProfileReport } from '../engine/profile.ts';
import type { StepSize } from '../coordinator/step-size.ts';
import type { Predictor } from '../model/predictor.ts';
import type { MetricName, TaskClasses, TaskKind, ThresholdRule } from '../model/task.ts';
import type { LoopBudget } from './budget.ts';
import type { ParamsOf, ParamTable, ParamValue } from './params.ts';

/**
 * What the training data say of a default step schedule: the median-heuristic
 * σ₀ of the scaled training rows (learners/kernel-scale.ts `kernelScale0`),
 * computed only when asked for. `train` and `tune` give it; a `fit` without a
 * step takes it from its own rows.
 *
 * @example
 * spec.defaultStep(params, { sigma0: () => kernelScale0(rows) });
 */
export interface StepContext {
  readonly sigma0?: () => number;
}

/** Validated parameter values with every declared default filled in (untyped: what generic callers hold). */
export type Params = Readonly<Record<string, ParamValue>>;

/** What a caller needs to know of a learner beyond `fit` (checked before any work). */
export interface Capabilities {
  /** `fit` continues a run from a {@link FitState} (`init`, checkpoints, `tune`'s halving without restarts). */
  readonly continues: boolean;
  /** It has a step schedule (`step`, `theta`): see {@link LoopLearnerSpec.defaultStep}. */
  readonly steps: boolean;
  /** It can train on the rows it draws, read from a file or a stream (sample on read): see {@link LearnerBase.replayDraws}. */
  readonly samplesOnRead: boolean;
  /** It reports a profile of where the time went, and takes `evaluation` (history or rows). */
  readonly profiles: boolean;
}

/** Hooks of one fit: progress, cancellation, a held-out trace, a profile, checkpoints. */
export interface FitHooks {
  readonly onProgress?: (p: Progress) => void;
  readonly signal?: AbortSignal;
  /** Held-out rows whose ranking metric is traced every `every` iterations. */
  readonly validation?: Validation;
  /** Learners that profile: receives the report when the fit ends. */
  readonly onProfile?: (report: ProfileReport) => void;
  /**
   * Learners that continue: every `every` iterations before the last, a
   * snapshot (a predictor and state of their own that later iterations leave as they are).
   */
  readonly checkpoint?: { readonly every: number; save(snapshot: Fitted): void | Promise<void> };
}

/** Where a continuing learner's run stands: its history so far and the run's state after it (what `start` takes). */
export type FitState = LoopStart;

/**
 * One fit of a learner: the training rows (features scaled to [0, 1]), the
 * task's classes, the learner's parameters with every default filled, the
 * engine (threads, pool, cache) and the hooks; for learners that continue,
 * the state to start from and the iteration to stop at.
 *
 * @example
 * const fitted = await spec.fit({ rows, classes, params, step, engine: { threads: 2 } });
 * const more = await spec.fit({ rows, classes, params, step, engine, start: fitted.state, to: 800 });
 */
export interface FitRun<P = Params> {
  readonly rows: Dataset | TrainingRows;
  readonly classes: TaskClasses;
  readonly params: P;
  /** The step schedule (learners with {@link Capabilities.steps}). */
  readonly step?: StepSize;
  readonly engine: EvaluatorOptions;
  readonly hooks?: FitHooks;
  /** The iteration to stop at (default: the parameters' `T`). */
  readonly to?: number;
  /** Continue from here (learners with {@link Capabilities.continues}). */
  readonly start?: FitState;
  /**
   * How f at each batch is obtained (learners with {@link Capabilities.profiles}); never changes the model.
   * `fastest`: the strategy with less work for this fit's own iterations (`fastestEvaluation`), for fits whose
   * strategy no model header records (`tune`'s fold fits).
   */
  readonly evaluation?: Evaluation | 'fastest';
}

/** What a fit produced. */
export interface Fitted {
  readonly predictor: Predictor;
  /** Values computed during the fit that belong in the model header (e.g. a data-driven default). */
  readonly computed?: Readonly<Record<string, ParamValue | StepSize>>;
  /** Validation trace `[t, value]`, when the fit is iterative and was given a validation set. */
  readonly trace?: ReadonlyArray<readonly [number, number]>;
  /** Learners that continue: where the run stands, to go on from. */
  readonly state?: FitState;
  /** Learners that profile: the strategy that gave f at the batches. */
  readonly evaluation?: 'history' | 'rows';
  /**
   * Random-feature fits: the run's frequency store, which the model's first
   * scoring (its threshold) reads instead of generating a second copy. Not
   * part of the model, and dropped with the Fitted.
   */
  readonly frequencies?: FrequencyStore;
}

/** What a search space may depend on: facts of the training data. */
export interface SearchContext {
  /** The median-heuristic kernel scale σ₀ of the (scaled) training rows. */
  readonly sigma0: number;
  /** The parameters the search does not vary, as resolved (given values and defaults), e.g. GKM's p. */
  readonly fixed: Params;
  /** Labeled training rows n_l, for grids that follow them (GKM's C = c·n_l); 1 when not known (help texts print such values as `c·n_l`). */
  readonly labeledRows?: number;
}

/**
 * How `tune` halves a learner over its budget with restarts (tune.ts): three
 * early rounds on budgets 1/η^firstRung, η/η^firstRung, η²/η^firstRung of the
 * full one (η = 3), each keeping the best 1/c, c the smallest whole number
 * ≥ η with finalists·c³ ≥ the number of settings; then the survivors at the
 * full budget on every fold.
 *
 * @example
 * const frs3vm: BudgetSchedule = { firstRung: 4, finalists: 1, earlyRows: 1 }; // 1/81, 1/27, 1/9 on one fold; one setting in full
 */
export interface BudgetSchedule {
  /** The first round fits 1/η^firstRung of the budget (3: 1/27). */
  readonly firstRung: number;
  /** Settings taken to the full budget, at most (c is chosen so that the third cut leaves about this many). */
  readonly finalists: number;
  /** The early rounds score on the first folds that hold at least this many validation rows (1: the first fold). */
  readonly earlyRows: number;
}

/** Fields every learner declares. */
export interface LearnerBase<P extends ParamTable = ParamTable, N extends string = string> {
  /** Id, as written on the command line and in model files. */
  readonly name: N;
  /** One line for listings. */
  readonly summary: string;
  /** A paragraph for `--help`: what it optimises, which rows it uses. */
  readonly help: string;
  readonly task: TaskKind;
  /** The learner's own metric: what `score` returns and `tune` maximises. */
  readonly metric: MetricName;
  /** Every hyperparameter, with default, doc, range and CLI name. */
  readonly params: P;
  readonly capabilities: Capabilities;
  /** How scores become labels after training (see task.ts). */
  readonly threshold: ThresholdRule;
  /**
   * `false`: `compare` runs this learner only when `--learners` names it (a
   * learner with another metric or a heavier default run than the task's
   * main learners, or an O(n³) or support-vector baseline). Default: in `compare`'s default set.
   */
  readonly compareByDefault?: boolean;
  /**
   * Semi-supervised learners: the parameter values that switch the unlabeled
   * term off (QSG-S2AUC γ = 1, TSGS3VM C* = 0, GKM C′ = 0): the learner's own
   * supervised special case, which its search space always includes, so
   * `tune` can say when the unlabeled rows did not help.
   */
  readonly supervisedCase?: Readonly<Record<string, number>>;
  /**
   * A learner with a σ whose default is a fixed rung σ₀·r of the median
   * heuristic rather than the rung chosen by kernel–target alignment
   * (train/defaults.ts): the ordinal learners' σ₀/4.
   */
  readonly defaultSigmaRatio?: number;
  /** The grid `tune` searches, per parameter (parameters not listed keep their value). */
  searchSpace(ctx: SearchContext): Readonly<Record<string, readonly ParamValue[]>>;
  /**
   * Parameters whose default is computed from other parameters or from the
   * number of labeled rows (absent: none): `params` with those left unset
   * filled in as a fit on `labeledRows` labeled rows fills them. `tune`
   * compares the learner's defaults with its grid points through it, so
   * defaults that are a grid point in effect (TSGS3VM's C* = C/10 with C = 100
   * against the grid's C* = 10) are scored as that point, not once more in a
   * round of their own.
   *
   * @example
   * tsgs3vmSpec.impliedParams({ C: 100, sigma: 1 }, 200); // { C: 100, sigma: 1, Cstar: 10 }
   * gkmSpec.impliedParams({ sigma: 1 }, 200);              // { sigma: 1, C: 800, Cprime: 1 }
   */
  impliedParams?(params: Params, labeledRows: number): Params;
  /**
   * Learners that do not continue but whose cost grows with a budget
   * (iterations, epochs): the parameters of the same setting on `fraction`
   * (0 < fraction < 1) of the budget it would run on `labeledRows` labeled
   * rows. `tune` then halves over the budget WITH restarts: every candidate
   * is first fitted on a small fraction, the best 1/η refitted on η times
   * more, and the last round runs the setting itself (tune.ts).
   *
   * @example
   * spec.tuneBudget({ sigma: 1, C: 2000, seed: 1 }, 1 / 9, 500); // GKM: { sigma: 1, C: 2000, seed: 1, T: 333, batchSize: 1 }
   */
  tuneBudget?(params: Params, fraction: number, labeledRows: number): Params;
  /**
   * The shape of that budget halving (absent: `tune`'s default, 1/27, 1/9,
   * 1/3 of the budget on the first folds that hold 200 validation rows, up to
   * three settings in full): a learner whose fold fit costs a whole `train`
   * (FRS3VM) starts lower and takes one setting to the full budget, so that
   * `tune` stays within a few trains (tune.ts, {@link BudgetSchedule}).
   */
  readonly tuneSchedule?: Partial<BudgetSchedule>;
  /**
   * How `tune` picks among the candidates by default (see grid-neighbourhood.ts):
   * `best` (absent) ranks each by its own CV score, `neighbourhood` by the mean
   * score of its grid neighbours.
   */
  readonly tuneSelection?: TuneSelection;
  /**
   * What `tune`'s pick must do against the defaults by default (absent: `cv`;
   * see coordinator/tune-rules.ts): `one-se` where, over the quality
   * benchmark, returning the defaults unless the pick beats them by more
   * than one standard error gave better held-out models (docs/tuning.md).
   */
  readonly tuneGuard?: TuneGuard;
  /**
   * What `tune` ranks candidates by by default (absent: {@link metric}): the
   * task's ranking metric (`auc`) scores a classifier by its scores alone, a
   * steadier estimate than accuracy at a cut when labels are few.
   */
  readonly tuneMetric?: MetricName;
  /**
   * Fits the learner: the one way every caller (train, tune's folds, compare,
   * scaling) trains it.
   *
   * @example
   * const { predictor } = await spec.fit({ rows, classes, params, engine: { threads: 1 } });
   */
  fit(run: FitRun<ParamsOf<P>>): Promise<Fitted>;
  /**
   * Checks of the parameters together, before any data is read (a UsageError
   * naming them): e.g. that the history T·m asks for is a model, not a typo.
   */
  preflight?(params: ParamsOf<P>): void;
  /**
   * Learners that sample on read: replays the draws of a run to `to` (from
   * `from`, a continued run's t and stream) on rows that record what is read
   * (training-rows.ts' RowRecorder), so the rows a run needs are known before
   * the data is read. `params.sigma` may be a placeholder: σ does not change what is drawn.
   */
  replayDraws?(rows: TrainingRows, classes: TaskClasses, params: ParamsOf<P>, step: StepSize, to: number, from?: { readonly t: number; readonly rng: SamplingState }): void;
}

/** A learner on the shared random-feature loop. */
export interface LoopLearnerSpec<P extends ParamTable = ParamTable, N extends string = string> extends LearnerBase<P, N> {
  readonly kind: 'loop';
  /**
   * The iteration budget when the user gives no T: the constants of the loop
   * learners' one rule (learners/budget.ts, `loopBudget`), T from the labeled
   * rows n_l. `train` and `tune` fill T with it before the data's other
   * defaults; the run summary and the model header's training record say how it was derived.
   */
  readonly budget: LoopBudget;
  /** The step schedule when the user gives none; `context` gives what the data say of it (σ₀). */
  defaultStep(params: ParamsOf<P>, context?: StepContext): StepSize;
  /**
   * For a learner whose default step depends on T (TSGS3VM's `θ/T^{3/4}`):
   * the T whose default `step` is, else undefined. A run continued past that
   * T cannot give the bytes of a run to the new T at once (whose every step
   * differs), so `train({ init })` refuses it.
   *
   * @example
   * tsgs3vmSpec.defaultStepHorizon?.(paperStep(70)); // 70
   */
  defaultStepHorizon?(step: StepSize): number | undefined;
  /**
   * The learner on scaled training rows (a Dataset in memory, or
   * {@link TrainingRows} read on demand): sources, sampling and weights. It
   * reads rows only through the rows' `copyRow` and `label` (learners/sources.ts),
   * and its draws depend on the sampling stream and the sources' sizes alone,
   * so the rows a run will draw can be planned before the data is read.
   *
   * @example
   * const learner = spec.create(ds, classes, params, step);
   */
  create(rows: Dataset | TrainingRows, classes: TaskClasses, params: ParamsOf<P>, step: StepSize): DsgLearner;
}

/** The data a direct learner's objective is defined on (the conformance suite's gradient check). */
export interface ObjectiveContext<P = Params> {
  /** Training rows, features scaled to [0, 1]. */
  readonly ds: Dataset;
  readonly classes: TaskClasses;
  readonly params: P;
}

/** A learner that builds its predictor itself. */
export interface DirectLearnerSpec<P extends ParamTable = ParamTable, N extends string = string> extends LearnerBase<P, N> {
  readonly kind: 'direct';
  /**
   * The learner's training objective as a function of the predictor's
   * coefficients (for the conformance suite's gradient check): `J` at a
   * coefficient vector, for the fitted predictor's structure.
   */
  objective(ctx: ObjectiveContext<ParamsOf<P>>, predictor: Predictor): (coefficients: Float64Array) => number;
  /**
   * The gradient of {@link objective} in the coefficients, for a STOCHASTIC
   * learner whose fit is only near a minimiser (the conformance suite then
   * checks this gradient against finite differences of `objective` at random
   * coefficients, and that the fit lowers `objective`). Absent: the fit is an
   * exact minimiser, and the suite checks it is a stationary point.
   */
  gradient?(ctx: ObjectiveContext<ParamsOf<P>>, predictor: Predictor): (coefficients: Float64Array) => Float64Array;
  /** The coefficients of a fitted predictor that {@link objective} varies. */
  coefficients(predictor: Predictor): Float64Array;
}

/** A registered learner. */
export type LearnerSpec<P extends ParamTable = ParamTable, N extends string = string> = LoopLearnerSpec<P, N> | DirectLearnerSpec<P, N>;

/** What every direct learner can do: none of the loop's extras. */
export const DIRECT_CAPABILITIES: Capabilities = { continues: false, steps: false, samplesOnRead: false, profiles: false };
