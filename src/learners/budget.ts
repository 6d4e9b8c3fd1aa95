/**
 * The iteration budget of the loop learners when the user gives no T: one
 * rule, {@link loopBudget}, with constants each learner declares in its own
 * file ({@link LoopBudget}; `budget` in its loopLearner declaration):
 * {@link GROWING_BUDGET} (T grows as √n_l) or {@link FIXED_BUDGET} (T = 400).
 */
import { withParamInPlace, type ParamTable, type ParamValues } from './params.ts';
import { thousands } from '../data/numbers.ts';

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
 * QSG-S2AUC's and DSG's rule: T = 400·√(n_l/200), rounded to a multiple of
 * 100, from 400 (at 200 labeled rows or fewer: the papers' protocol, and the
 * quality benchmark's labeled protocol keeps its models) to 1,600 (from
 * 3,200 labeled rows on).
 *
 * Why √n_l: the model is T blocks of m random features, and random features
 * of the order of √n reach the exact kernel method's learning rate (Rudi and
 * Rosasco, 2017), so the blocks grow with the square root of the rows that
 * define the risk. Measured where n_l is 510 to 1,000 (docs/learners.md
 * § Budgets, bench/results/budget.json, 5 sets × 2 seeds): held-out AUC
 * +0.0011 (QSG-S2AUC) and +0.0034 (DSG) on average over T = 400, no split
 * worse by more than 0.005. The cap keeps a prediction within 4× the cost
 * of T = 400 (the model is T blocks) and training bounded (T² with history
 * evaluation, T with the row cache).
 */
export const GROWING_BUDGET: LoopBudget = { T0: 400, labeled0: 200, power: 0.5, max: 1600, round: 100 };

/**
 * TSGS3VM's, QS3ORAO's and SORAO's rule: T = 400 whatever n_l. On the same
 * splits the √n_l rule did not raise their held-out measure on average
 * (TSGS3VM −0.0001, QS3ORAO −0.0002, SORAO +0.0007) and lowered some splits
 * by more than 0.005, at twice the cost (docs/learners.md § Budgets).
 */
export const FIXED_BUDGET: LoopBudget = { T0: 400, labeled0: 200, power: 0, max: 400, round: 100 };

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
 * loopBudget(1000, GROWING_BUDGET);      // { T: 900, why: 'T = 900 from n_l = 1,000 labeled rows' }
 * loopBudget(200, GROWING_BUDGET).T;     // 400
 * loopBudget(undefined, GROWING_BUDGET).T; // 400
 * loopBudget(1000, FIXED_BUDGET).T;      // 400
 */
export function loopBudget(labeledRows: number | undefined, rule: LoopBudget): DerivedBudget {
  if (labeledRows === undefined) return { T: rule.T0, why: `T = ${thousands(rule.T0)} (the labeled rows are not known before a stream is read)` };
  if (isFixed(rule)) return { T: rule.T0, why: `T = ${thousands(rule.T0)} at n_l = ${thousands(labeledRows)} labeled rows (this learner's budget does not grow with n_l)` };
  const grown = rule.T0 * Math.max(1, labeledRows / rule.labeled0) ** rule.power;
  const T = Math.min(rule.max, Math.max(rule.T0, Math.round(grown / rule.round) * rule.round));
  return { T, why: `T = ${thousands(T)} from n_l = ${thousands(labeledRows)} labeled rows` };
}

/**
 * Whether the rule gives T0 whatever n_l.
 *
 * @example
 * isFixed(FIXED_BUDGET); // true
 */
export function isFixed(rule: LoopBudget): boolean {
  return rule.power === 0 || rule.max === rule.T0;
}

/**
 * The rule in words, for `--help` and docs.
 *
 * @example
 * budgetDoc(GROWING_BUDGET); // 'from the labeled rows n_l: 400·√(n_l/200) rounded to 100, 400 to 1,600; 400 on a stream'
 * budgetDoc(FIXED_BUDGET);   // '400, whatever the labeled rows n_l'
 */
export function budgetDoc(rule: LoopBudget): string {
  if (isFixed(rule)) return `${thousands(rule.T0)}, whatever the labeled rows n_l`;
  const growth = rule.power === 0.5 ? `√(n_l/${thousands(rule.labeled0)})` : `(n_l/${thousands(rule.labeled0)})^${rule.power}`;
  return `from the labeled rows n_l: ${thousands(rule.T0)}·${growth} rounded to ${thousands(rule.round)}, ${thousands(rule.T0)} to ${thousands(rule.max)}; ${thousands(rule.T0)} on a stream`;
}

/**
 * `params` with T filled by the budget rule from `labeledRows` (undefined:
 * not known before the data are read, the rule's T0) when T is not given,
 * placed where a given T would stand in the parameter table, so a header at
 * the rule's T is the bytes of one given that T; `budget` says how T was
 * derived. A given T comes back as it was, without `budget`. The one place
 * the rule is applied: train, tune's data defaults and a `fit(run)` without T.
 *
 * @example
 * withLoopBudget(qsgS2aucSpec.params, GROWING_BUDGET, params, 800).params.T; // 800
 */
export function withLoopBudget<V extends ParamValues>(table: ParamTable, rule: LoopBudget, params: V, labeledRows: number | undefined): { params: V; budget?: DerivedBudget } {
  if (params.T !== undefined) return { params };
  const budget = loopBudget(labeledRows, rule);
  return { params: withParamInPlace(table, params, 'T', budget.T), budget };
}
