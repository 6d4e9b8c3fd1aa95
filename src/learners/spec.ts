/**
 * The learner contract: what one learner declares, in its own file, so that
 * the API, the CLI (options, `--help`), the model header, `compare`, `tune`
 * and the conformance suite can all work from the registry alone.
 *
 * Two kinds of learner:
 * - `loop`: a learner on the shared doubly stochastic loop (ALGORITHMS.md):
 *   it declares its sources and weights as a {@link DsgLearner}; the loop, the
 *   engine and the random-feature model are shared. Its parameter table holds
 *   the common random-feature parameters (see common.ts) plus its own.
 * - `direct`: a learner that produces its predictor another way (the exact
 *   O(n³) solution, fixed-feature baselines, support-vector expansions).
 */
import type { TuneSelection } from '../coordinator/grid-neighbourhood.ts';
import type { Dataset } from '../data/dataset.ts';
import type { TrainingRows } from '../data/training-rows.ts';
import type { EvaluatorOptions } from '../engine/evaluator.ts';
import type { DsgLearner } from '../coordinator/learner.ts';
import type { Progress, Validation } from '../coordinator/loop.ts';
import type { StepSize } from '../coordinator/step-size.ts';
import type { Predictor } from '../model/predictor.ts';
import type { MetricName, TaskClasses, TaskKind, ThresholdRule } from '../model/task.ts';
import type { ParamTable, ParamValue } from './params.ts';

/** Validated parameter values with every declared default filled in. */
export type Params = Readonly<Record<string, ParamValue>>;

/** What a search space may depend on: facts of the training data. */
export interface SearchContext {
  /** The median-heuristic kernel scale σ₀ of the (scaled) training rows. */
  readonly sigma0: number;
}

/** Fields every learner declares. */
interface LearnerBase {
  /** Id, as written on the command line and in model files. */
  readonly name: string;
  /** One line for listings. */
  readonly summary: string;
  /** A paragraph for `--help`: what it optimises, which rows it uses. */
  readonly help: string;
  readonly task: TaskKind;
  /** The learner's own metric: what `score` returns and `tune` maximises. */
  readonly metric: MetricName;
  /** Every hyperparameter, with default, doc, range and CLI name. */
  readonly params: ParamTable;
  /** How scores become labels after training (see task.ts). */
  readonly threshold: ThresholdRule;
  /**
   * `false`: `compare` runs this learner only when `--learners` names it (a
   * learner with another metric or a heavier default run than the task's
   * main learners). Default: in `compare`'s default set when it is on the loop.
   */
  readonly compareByDefault?: boolean;
  /** The grid `tune` searches, per parameter (parameters not listed keep their value). */
  searchSpace(ctx: SearchContext): Readonly<Record<string, readonly ParamValue[]>>;
  /**
   * How `tune` picks among the candidates by default (see grid-neighbourhood.ts):
   * `best` (absent) ranks each by its own CV score, `neighbourhood` by the mean
   * score of its grid neighbours.
   */
  readonly tuneSelection?: TuneSelection;
  /**
   * What `tune` ranks candidates by by default (absent: {@link metric}): the
   * task's ranking metric (`auc`) scores a classifier by its scores alone, a
   * steadier estimate than accuracy at a cut when labels are few.
   */
  readonly tuneMetric?: MetricName;
}

/** A learner on the shared random-feature loop. */
export interface LoopLearnerSpec extends LearnerBase {
  readonly kind: 'loop';
  /** The step schedule when the user gives none. */
  defaultStep(params: Params): StepSize;
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
  create(rows: Dataset | TrainingRows, classes: TaskClasses, params: Params, step: StepSize): DsgLearner;
}

/** Everything a direct learner gets to fit. */
export interface FitContext {
  /** Training rows, features scaled to [0, 1]. */
  readonly ds: Dataset;
  readonly classes: TaskClasses;
  readonly params: Params;
  readonly engine: EvaluatorOptions;
  readonly onProgress?: (p: Progress) => void;
  readonly signal?: AbortSignal;
  readonly validation?: Validation;
}

/** What a direct learner's fit produces. */
export interface FitResult {
  readonly predictor: Predictor;
  /** Values computed during the fit that belong in the model header (e.g. a data-driven default). */
  readonly computed?: Readonly<Record<string, unknown>>;
  /** Validation trace `[t, value]`, when the fit is iterative. */
  readonly trace?: ReadonlyArray<readonly [number, number]>;
}

/** A learner that builds its predictor itself. */
export interface DirectLearnerSpec extends LearnerBase {
  readonly kind: 'direct';
  fit(ctx: FitContext): Promise<FitResult>;
  /**
   * The learner's training objective as a function of the predictor's
   * coefficients (for the conformance suite's gradient check): `J` at a
   * coefficient vector, for the fitted predictor's structure.
   */
  objective(ctx: Pick<FitContext, 'ds' | 'classes' | 'params'>, predictor: Predictor): (coefficients: Float64Array) => number;
  /**
   * The gradient of {@link objective} in the coefficients, for a STOCHASTIC
   * learner whose fit is only near a minimiser (the conformance suite then
   * checks this gradient against finite differences of `objective` at random
   * coefficients, and that the fit lowers `objective`). Absent: the fit is an
   * exact minimiser, and the suite checks it is a stationary point.
   */
  gradient?(ctx: Pick<FitContext, 'ds' | 'classes' | 'params'>, predictor: Predictor): (coefficients: Float64Array) => Float64Array;
  /** The coefficients of a fitted predictor that {@link objective} varies. */
  coefficients(predictor: Predictor): Float64Array;
}

/** A registered learner. */
export type LearnerSpec = LoopLearnerSpec | DirectLearnerSpec;
