/**
 * The iteration budget of the loop learners when the user gives no T: one
 * rule, {@link loopBudget}, with constants each learner declares in its own
 * file ({@link LoopBudget}; `budget` in its loopLearner declaration).
 */

/**
 * The constants of a loop learner's budget rule (see {@link loopBudget}).
 *
 * @example
 * const rule: LoopBudget = { T0: 400, labeled0: 200, power: 0.5, max: 1600, round: 100 };
 */
export interface LoopBudget {
  /** T at `labeled0` labeled rows or fewer, and when the number of labeled rows is not known before the data are read. */
  readonly T0: number;
  /** The labeled rows n_l at which the rule gives T0 (the papers' protocol: 200). */
  readonly labeled0: number;
  /** How T grows with n_l past `labeled0`: T = T0·(n_l/labeled0)^power; 0 keeps T0 whatever n_l. */
  readonly power: number;
  /** The largest T the rule gives (the model is T blocks: prediction cost grows as T, training time as T²). */
  readonly max: number;
  /** T is rounded to a multiple of this. */
  readonly round: number;
}

/**
 * The loop learners' rule: T = 400·√(n_l/200), rounded to a multiple of 100,
 * from 400 (at 200 labeled rows or fewer: the papers' protocol and the
 * quality benchmark keep their T) to 1,600 (from 3,200 labeled rows on).
 *
 * Why √n_l: the model is T blocks of m random features, and random features
 * of the order of √n reach the exact kernel method's learning rate (Rudi and
 * Rosasco, 2017), so the blocks grow with the square root of the rows that
 * define the risk. Measured (docs/learners.md § Budgets,
 * bench/results/budget.json): where n_l is 500 to 1,000, doubling T raised
 * each loop learner's held-out measure by +0.001 to +0.003 on average over
 * the sets and seeds, quadrupling it by +0.002 to +0.004, never lowering the
 * mean; at 200 labeled rows doubling T bought nothing on average. The cap
 * keeps the prediction cost (T blocks) within 4× of T = 400 and training
 * (time ∝ T² with history evaluation, ∝ T with the row cache) bounded.
 */
export const LOOP_BUDGET: LoopBudget = { T0: 400, labeled0: 200, power: 0.5, max: 1600, round: 100 };

/** The budget a loop learner runs at when T is not given, and how it was derived (for the run summary and the model header). */
export interface DerivedBudget {
  readonly T: number;
  /** E.g. `T = 800 from n_l = 1,000 labeled rows`, or `T = 400 (n_l not known before a stream is read)`. */
  readonly why: string;
}

/**
 * T from the labeled rows n_l by a learner's rule: T0·(n_l/labeled0)^power,
 * rounded to a multiple of `round`, between T0 and `max`; T0 when n_l is not
 * known (a stream of unknown length, whose reservoir is sized by T before a
 * row is read).
 *
 * @example
 * loopBudget(1000, LOOP_BUDGET);      // { T: 900, why: 'T = 900 from n_l = 1,000 labeled rows' }
 * loopBudget(200, LOOP_BUDGET).T;     // 400
 * loopBudget(undefined, LOOP_BUDGET).T; // 400
 */
export function loopBudget(labeledRows: number | undefined, rule: LoopBudget = LOOP_BUDGET): DerivedBudget {
  if (labeledRows === undefined) return { T: rule.T0, why: `T = ${fmt(rule.T0)} (the labeled rows are not known before a stream is read)` };
  const grown = rule.T0 * Math.max(1, labeledRows / rule.labeled0) ** rule.power;
  const T = Math.min(rule.max, Math.max(rule.T0, Math.round(grown / rule.round) * rule.round));
  return { T, why: `T = ${fmt(T)} from n_l = ${fmt(labeledRows)} labeled rows` };
}

/**
 * The rule in words, for `--help` and docs.
 *
 * @example
 * budgetDoc(LOOP_BUDGET); // 'from the labeled rows n_l: 400·√(n_l/200) rounded to 100, 400 to 1,600; 400 on a stream'
 */
export function budgetDoc(rule: LoopBudget = LOOP_BUDGET): string {
  if (rule.power === 0 || rule.max === rule.T0) return `${fmt(rule.T0)}, whatever the labeled rows n_l`;
  const growth = rule.power === 0.5 ? `√(n_l/${fmt(rule.labeled0)})` : `(n_l/${fmt(rule.labeled0)})^${rule.power}`;
  return `from the labeled rows n_l: ${fmt(rule.T0)}·${growth} rounded to ${fmt(rule.round)}, ${fmt(rule.T0)} to ${fmt(rule.max)}; ${fmt(rule.T0)} on a stream`;
}

function fmt(x: number): string {
  return x.toLocaleString('en-US');
}
