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
 * Every candidate × fold run shares one worker pool; each run's arithmetic
 * is fixed by its seed and the chunk layout, so the table, the winner and the
 * refit model are the same bits for any thread count.
 */
import { CancelledError, UsageError } from './errors.ts';
import type { Dataset } from './data/dataset.ts';
import { datasetRows, labeledDataset } from './data/training-rows.ts';
import { repeatedLabeledFolds } from './data/split.ts';
import { MinMaxScaler } from './data/scaler.ts';
import { TRAINING_CHUNK_SIZE } from './engine/chunks.ts';
import { EvaluatorPool } from './engine/pool.ts';
import type { EvaluatorOptions } from './engine/evaluator.ts';
import type { RandomFeatures } from './engine/random-features.ts';
import { randomFeaturesFor } from './learners/common.ts';
import { runLoop, type LoopStart } from './coordinator/loop.ts';
import { neighbourhoodScores, TUNE_SELECTIONS, type TuneSelection } from './coordinator/grid-neighbourhood.ts';
export { TUNE_SELECTIONS, type TuneSelection } from './coordinator/grid-neighbourhood.ts';
import { continuationCost, firstHalvingStep, halvingPlan, nextHalvingStep, type HalvingOptions, type HalvingStep } from './coordinator/successive-halving.ts';
import { checkParam, type ParamValue } from './learners/params.ts';
import { learnerSpec } from './learners/registry.ts';
import type { LearnerSpec, Params } from './learners/spec.ts';
import { Model } from './model/model.ts';
import { RandomFeaturePredictor, type Predictor } from './model/predictor.ts';
import { metricValue, METRICS, rankingMetric, taskClasses, type MetricName, type TaskClasses } from './model/task.ts';
import { mean, sampleSd } from './metrics/summary.ts';
import { fittedTask, kernelScale0, resolveParams, resolveStep, resolveThreads, toDataset, train, withDataDefaults, type TrainData } from './api.ts';
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
}

/** Options of {@link tune}: the data and search, how it runs, and fixed learner parameters by name (`T`, `m`, `seed`, …). */
export interface TuneOptions {
  learner: string;
  /** Training rows, some labeled: a Dataset (raw features), a path or an Arrow Table. */
  data: TrainData;
  read?: ReadDatasetOptions;
  positive?: number | string;
  /** Folds k ≥ 2 (default 5). */
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
  /** Halving factor η ≥ 2 (default 3): each round keeps the best 1/η and runs η times longer. */
  eta?: number;
  /** Iterations of the first round (default: T/η^r with r = the rounds needed to reach one candidate, at least 10). */
  t0?: number;
  threads?: number;
  cacheBytes?: number;
  parallelMinWork?: number;
  onProgress?: (p: TuneProgress) => void;
  onWarning?: (message: string) => void;
  signal?: AbortSignal;
  readonly [param: string]: unknown;
}

/** One candidate's line of the CV table. */
export interface TuneRow {
  /** Candidate id (its index in the grid, parameters varied last-key-fastest). */
  readonly id: number;
  /** The searched parameters' values. */
  readonly params: Readonly<Record<string, ParamValue>>;
  /**
   * What candidates are ranked by, at the last round it ran: the learner's metric
   * over the out-of-fold scores of all folds pooled (every labeled row scored by
   * the fold model that did not see its label). For AUC this compares every
   * positive with every negative of the labeled rows, not only pairs within a
   * fold of n_l/k rows: a steadier estimate when labels are few. For accuracy
   * it equals the mean weighted by fold size. With repeats, the mean of that
   * score over the repeated draws of the folds.
   */
  readonly score: number;
  /**
   * With selection `neighbourhood`: the mean {@link score} of the candidate and its grid
   * neighbours in its last round, what it was ranked by there.
   */
  readonly neighbourhood?: number;
  /** Mean and sample sd over the folds (of every repeat, in repeat order) of the metric ranked by (the learner's own, its `tuneMetric` or the one asked for), fold by fold. */
  readonly mean: number;
  readonly sd: number;
  readonly folds: readonly number[];
  /** Iterations it reached (loop learners), or undefined. */
  readonly t?: number;
  /** 'best', 'kept' (ran the last round but lost), or the round it was dropped after. */
  readonly status: 'best' | 'kept' | `dropped after round ${number}`;
}

/** One round as it ran. */
export interface TuneRound {
  readonly round: number;
  readonly from: number;
  readonly t: number;
  readonly candidates: readonly number[];
  /** Pooled out-of-fold score per candidate (see {@link TuneRow.score}), in `candidates` order. */
  readonly scores: readonly number[];
  /** With selection `neighbourhood`: what the round ranked by (see {@link TuneRow.neighbourhood}), in `candidates` order. */
  readonly neighbourhood?: readonly number[];
}

/** What {@link tune} returns. */
export interface TuneResult {
  /** The winner's full parameters (searched values and fixed ones, σ filled). */
  readonly best: Params;
  readonly table: readonly TuneRow[];
  readonly rounds: readonly TuneRound[];
  /** The winner refit on all training rows (its header's `training.tune` holds the table). */
  readonly model: Model;
  readonly sigma0: number;
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
}

/** Keys of {@link TuneOptions} that are not learner parameters. */
const TUNE_KEYS = new Set(['learner', 'data', 'read', 'positive', 'folds', 'repeats', 'metric', 'select', 'grid', 'eta', 't0', 'threads', 'cacheBytes', 'parallelMinWork', 'onProgress', 'onWarning', 'signal']);

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
  for (const part of text.split(';').map((p) => p.trim()).filter((p) => p !== '')) {
    const eq = part.indexOf('=');
    if (eq <= 0) throw new UsageError(`--grid: '${part}' is not name=value,value…`);
    const key = part.slice(0, eq).trim();
    const values = part.slice(eq + 1).split(',').map((v) => v.trim()).filter((v) => v !== '');
    if (values.length === 0) throw new UsageError(`--grid: ${key} has no values`);
    grid[key] = checkGridValues(spec, key, values, '--grid ');
  }
  return grid;
}

function checkGridValues(spec: LearnerSpec, key: string, values: readonly unknown[], prefix = 'grid.'): ParamValue[] {
  const decl = spec.params[key];
  if (!decl) throw new UsageError(`${prefix}${key} is not a parameter of ${spec.name} (its parameters: ${Object.keys(spec.params).join(', ')})`);
  if (!Array.isArray(values) || values.length === 0) throw new UsageError(`${prefix}${key} must be a non-empty list of values`);
  return values.map((v) => checkParam(`${prefix}${key}`, decl, v));
}

/** The first round's iterations: T/η^r, r = the rounds halving needs to reach one candidate, at least 10 (and at most T). */
function defaultT0(n: number, eta: number, T: number): number {
  let rounds = 0;
  for (let c = n; c > 1; c = Math.floor(c / eta)) rounds++;
  return Math.min(T, Math.max(10, Math.floor(T / eta ** rounds)));
}

/** One candidate × fold run of a loop learner, kept between rounds. */
interface FoldRun {
  start?: LoopStart;
}

/**
 * Tunes a learner's hyperparameters by k-fold CV over the labeled rows, with
 * successive halving over iterations (continued, not restarted) for learners
 * on the loop, then refits the winner on all rows.
 *
 * @example
 * const { best, table, model, cost } = await tune({ learner: LEARNER_NAMES[0], data: 'train.arrow', folds: 5, T: 400 });
 * await model.save('best.dsg');
 * console.log(best, cost.fraction); // e.g. { sigma: 0.09, lambda: 0.01, gamma: 0.5, … } 0.05
 */
export async function tune(opts: TuneOptions): Promise<TuneResult> {
  if (opts === null || typeof opts !== 'object') throw new UsageError('tune: options must be an object with at least learner and data');
  const spec = learnerSpec(opts.learner);
  const onWarning = opts.onWarning ?? ((m: string) => process.emitWarning(m));
  const k = opts.folds ?? 5;
  if (!Number.isSafeInteger(k) || k < 2) throw new UsageError(`folds must be a whole number ≥ 2, got ${String(opts.folds)}`);
  const repeats = opts.repeats ?? 1;
  if (!Number.isSafeInteger(repeats) || repeats < 1) throw new UsageError(`repeats must be a whole number ≥ 1, got ${String(opts.repeats)}`);
  const eta = opts.eta ?? 3;
  if (!Number.isSafeInteger(eta) || eta < 2) throw new UsageError(`eta must be a whole number ≥ 2, got ${String(opts.eta)}`);
  const select = opts.select ?? spec.tuneSelection ?? 'best';
  if (!TUNE_SELECTIONS.includes(select)) throw new UsageError(`select must be one of ${TUNE_SELECTIONS.join(', ')}, got ${String(opts.select)}`);
  const fixedGiven: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(opts)) if (!TUNE_KEYS.has(key)) fixedGiven[key] = value;
  const fixed = resolveParams(spec, fixedGiven);
  const threads = resolveThreads(opts.threads, onWarning);

  const metricName = opts.metric ?? spec.tuneMetric ?? spec.metric;
  const ranking = spec.task === 'binary' ? 'auc' : 'mean-auc';
  if (metricName !== spec.metric && metricName !== ranking) {
    throw new UsageError(`metric must be ${spec.metric === ranking ? ranking : `${spec.metric} or ${ranking}`} for ${spec.name} (a ${spec.task} learner), got ${String(opts.metric)}`);
  }
  const raw = await toDataset(opts.data, 'data', opts.read);
  const classes = taskClasses(spec.task, raw, opts.positive !== undefined ? { positive: opts.positive } : {});
  // Scaled once with the scaler of all training rows (unsupervised: the features' ranges only).
  const ds = MinMaxScaler.fit(raw).transform(raw);
  const sigma0 = kernelScale0(ds);

  // The search space: the learner's, with the caller's grid replacing what it names,
  // without the parameters the caller fixed.
  const space: Record<string, ParamValue[]> = {};
  for (const [key, values] of Object.entries(spec.searchSpace({ sigma0 }))) if (fixedGiven[key] === undefined) space[key] = [...values];
  if (opts.grid !== undefined) {
    if (opts.grid === null || typeof opts.grid !== 'object') throw new UsageError('grid must be an object: parameter → list of values');
    for (const [key, values] of Object.entries(opts.grid)) space[key] = checkGridValues(spec, key, values);
  }
  const candidates = gridCandidates(space).map((c) => withDataDefaults(spec, { ...fixed, ...c }, ds));
  const steps = candidates.map((c) => resolveStep(spec, c, {}));
  const splits = repeatedLabeledFolds(ds, { k, seed: typeof fixed.seed === 'number' ? fixed.seed : 1, repeats });
  const folds = splits.flat();
  const T = spec.kind === 'loop' ? (fixed.T as number) : 1;
  const t0 = spec.kind === 'loop' ? (opts.t0 ?? defaultT0(candidates.length, eta, T)) : 1;
  if (!Number.isSafeInteger(t0) || t0 < 1 || t0 > T) throw new UsageError(`t0 must be a whole number in [1, T = ${T}], got ${String(opts.t0)}`);
  const plan: HalvingOptions = { t0, eta, T };
  const rounds = halvingPlan(candidates.length, plan);
  const planned = rounds.reduce((sum, r, i) => sum + r.count * continuationCost(i === 0 ? 0 : rounds[i - 1].t, r.t), 0) * folds.length;
  const refitCost = spec.kind === 'loop' ? continuationCost(0, T) : 0;
  const total = spec.kind === 'loop' ? planned + refitCost : candidates.length * folds.length + 1;

  const start = performance.now();
  let done = 0;
  let round = 0;
  const report = () => opts.onProgress?.({ done, total, round, rounds: rounds.length, elapsedMs: performance.now() - start });

  const pool = threads > 1 ? new EvaluatorPool(threads - 1) : undefined;
  const engine: EvaluatorOptions = {
    threads,
    ...(pool ? { pool } : {}),
    ...(opts.cacheBytes !== undefined ? { cacheBytes: opts.cacheBytes } : {}),
    ...(opts.parallelMinWork !== undefined ? { parallelMinWork: opts.parallelMinWork } : {}),
  };
  const runs: FoldRun[][] = candidates.map(() => folds.map(() => ({})));
  const lastScores: number[][] = candidates.map(() => []);
  const lastPooled: number[] = candidates.map(() => NaN);
  const lastNeighbourhood: number[] = candidates.map(() => NaN);
  // Per repeat, the labeled rows' labels in fold order: what its pooled out-of-fold scores line up with.
  const pooledY = splits.map((split) => Float64Array.from(split.flatMap((f) => Array.from(f.validation.y))));
  const sizes = folds.map((f) => f.validation.n);
  const reached: number[] = candidates.map(() => 0);
  const droppedAfter = new Map<number, number>();
  const history: TuneRound[] = [];
  let winner = 0;
  try {
    let step: HalvingStep | undefined = firstHalvingStep(candidates.length, plan);
    while (step) {
      round = step.round;
      const current: HalvingStep = step;
      // Every (candidate, fold) job of the round, a few at a time (they share the pool);
      // each job's result lands in its own slot, so the order they finish in changes nothing.
      const jobs = current.run.flatMap((c) => folds.map((_, j) => [c, j] as const));
      const scores = current.run.map(() => new Array<number>(folds.length).fill(NaN));
      const outOfFold = current.run.map(() => folds.map((): Float64Array<ArrayBufferLike> => new Float64Array(0)));
      let next = 0;
      const worker = async () => {
        while (next < jobs.length) {
          const [c, j] = jobs[next++];
          if (opts.signal?.aborted) throw new CancelledError(`tuning cancelled in round ${current.round}`);
          const fold = await runFold(spec, metricName, {
            ds: folds[j].train, validation: folds[j].validation, classes, params: candidates[c], step: steps[c], engine,
            run: runs[c][j], to: current.t, signal: opts.signal,
            onIteration: (t) => {
              done += spec.kind === 'loop' ? t - 1 : 0;
              report();
            },
          });
          scores[current.run.indexOf(c)][j] = fold.score;
          outOfFold[current.run.indexOf(c)][j] = fold.f;
          if (spec.kind !== 'loop') done += 1;
          report();
        }
      };
      await Promise.all(Array.from({ length: Math.min(Math.max(1, threads), jobs.length) }, worker));
      const pooled = scores.map((fs, i) => mean(pooledY.map((y, r) => {
        const [a, b] = [r * k, (r + 1) * k];
        return pooledScore(metricName, classes, sizes.slice(a, b), fs.slice(a, b), y, outOfFold[i].slice(a, b));
      })));
      const neighbourhood = select === 'neighbourhood' ? neighbourhoodScores(space, candidates, current.run, pooled) : undefined;
      current.run.forEach((c, i) => {
        lastScores[c] = scores[i];
        lastPooled[c] = pooled[i];
        if (neighbourhood) lastNeighbourhood[c] = neighbourhood[i];
        reached[c] = current.t;
      });
      history.push({ round: current.round, from: current.from, t: current.t, candidates: current.run, scores: pooled, ...(neighbourhood ? { neighbourhood } : {}) });
      const decision = nextHalvingStep(candidates.length, plan, current, neighbourhood ?? pooled);
      for (const c of decision.dropped) {
        droppedAfter.set(c, current.round);
        for (const r of runs[c]) delete r.start; // free the history
      }
      if (decision.winner !== undefined) winner = decision.winner;
      step = decision.next;
    }
  } finally {
    await pool?.close();
  }

  const table: TuneRow[] = candidates.map((_, c) => ({
    id: c,
    params: Object.fromEntries(Object.keys(space).map((key) => [key, candidates[c][key]])),
    score: lastPooled[c],
    ...(select === 'neighbourhood' ? { neighbourhood: lastNeighbourhood[c] } : {}),
    mean: mean(lastScores[c]),
    sd: sampleSd(lastScores[c]),
    folds: lastScores[c],
    ...(spec.kind === 'loop' ? { t: reached[c] } : {}),
    status: c === winner ? 'best' : droppedAfter.get(c) === rounds.length - 1 ? 'kept' : (`dropped after round ${droppedAfter.get(c)!}` as const),
  }));
  const halving = spec.kind === 'loop' ? planned : 0;
  const fullGrid = spec.kind === 'loop' ? candidates.length * folds.length * continuationCost(0, T) : 0;
  const cost = { halving, fullGrid, fraction: fullGrid > 0 ? halving / fullGrid : 1, refit: refitCost };

  // The refit: the winner's parameters on all training rows (σ as found, even if it came from σ₀).
  round = rounds.length;
  const best = candidates[winner];
  const baseDone = done;
  const model = await train({
    learner: spec.name,
    data: raw,
    ...(opts.read ? { read: opts.read } : {}),
    ...(opts.positive !== undefined ? { positive: opts.positive } : {}),
    ...best,
    ...(steps[winner] ? { step: steps[winner] } : {}),
    threads,
    ...(opts.cacheBytes !== undefined ? { cacheBytes: opts.cacheBytes } : {}),
    ...(opts.parallelMinWork !== undefined ? { parallelMinWork: opts.parallelMinWork } : {}),
    ...(opts.signal ? { signal: opts.signal } : {}),
    onWarning,
    onProgress: (p) => {
      done = baseDone + (spec.kind === 'loop' ? continuationCost(0, p.t) : 0);
      report();
    },
  });
  done = total;
  report();
  const tuned = {
    folds: k,
    repeats,
    metric: metricName,
    select,
    sigma0,
    space,
    halving: spec.kind === 'loop' ? { eta, t0, T } : undefined,
    table,
    rounds: history,
    blockEvaluations: cost,
  };
  const withTable = new Model({ ...model.header, training: { ...model.header.training, tune: tuned } }, model.predictor);
  return { best, table, rounds: history, model: withTable, sigma0, metric: METRICS[metricName].title, select, folds: k, repeats, cost };
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

/**
 * Runs (or continues) one candidate on one fold to iteration `to` and scores
 * it on the fold's validation rows with the learner's metric; `f` is its
 * scores there (pooled over the folds by {@link pooledScore}).
 */
async function runFold(
  spec: LearnerSpec,
  metric: MetricName,
  job: {
    ds: Dataset; validation: Dataset; classes: TaskClasses; params: Params; step: ReturnType<typeof resolveStep>; engine: EvaluatorOptions;
    run: FoldRun; to: number; signal: AbortSignal | undefined; onIteration: (t: number) => void;
  },
): Promise<{ score: number; f: Float64Array }> {
  const { ds, classes, params, engine } = job;
  let predictor: Predictor;
  if (spec.kind === 'loop') {
    const features: RandomFeatures = randomFeaturesFor(params, ds.d);
    const learner = spec.create(ds, classes, params, job.step!);
    const result = await runLoop(learner, {
      features,
      T: job.to,
      ...(job.run.start ? { start: job.run.start } : {}),
      engine: { ...engine, chunkSize: TRAINING_CHUNK_SIZE },
      ...(job.signal ? { signal: job.signal } : {}),
      onProgress: (p) => job.onIteration(p.t),
    });
    job.run.start = { history: result.history, rng: result.rng, ...(result.runningBias !== undefined ? { bias: result.runningBias } : {}) };
    predictor = new RandomFeaturePredictor(result.history, features, TRAINING_CHUNK_SIZE, result.bias);
  } else {
    predictor = (await spec.fit({ ds, classes, params, engine, ...(job.signal ? { signal: job.signal } : {}) })).predictor;
  }
  const va = job.validation;
  const f = await predictor.evaluate(va.X, va.n, new Float64Array(va.n), engine);
  if (metric !== 'accuracy') return { score: rankingMetric(classes, va.y, f), f };
  // Accuracy needs the threshold(s), fitted on the fold's training rows as train does.
  const rows = datasetRows(ds);
  const task = await fittedTask(predictor, rows, labeledDataset(rows), classes, spec.threshold, engine, params.seed as number);
  return { score: metricValue('accuracy', task, va.y, f), f };
}
