/**
 * A loop learner's T when the user gives none: its budget rule
 * (learners/budget.ts) on the labeled rows of the run, filled into the
 * parameters where a given T would be, so a header at the rule's T is the
 * bytes of one given that T.
 */
import { withLoopBudget, type DerivedBudget } from '../learners/budget.ts';
import type { LearnerSpec, Params } from '../learners/spec.ts';

/**
 * `params` with T filled by the learner's budget rule from `labeledRows`
 * (undefined: not known before the data are read, the rule's T0) when the
 * learner has a rule and T is not given; `budget` says how T was derived.
 * Anything else comes back as it was, without `budget`.
 *
 * @example
 * withBudget(qsgS2aucSpec, resolveParams(qsgS2aucSpec, {}), 200); // { params: { …, T: 400, … }, budget: { T: 400, why: 'T = 400 from n_l = 200 labeled rows' } }
 * withBudget(qsgS2aucSpec, resolveParams(qsgS2aucSpec, { T: 50 }), 200).budget; // undefined
 */
export function withBudget(spec: LearnerSpec, params: Params, labeledRows: number | undefined): { params: Params; budget?: DerivedBudget } {
  return spec.kind === 'loop' ? withLoopBudget(spec.params, spec.budget, params, labeledRows) : { params };
}
