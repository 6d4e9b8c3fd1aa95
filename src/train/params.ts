/**
 * A run's learner parameters from the options it was given: validated against
 * the learner's table (a UsageError naming the option), defaults filled, the
 * step schedule resolved, and for a continued run the saved model's settings.
 */
import { UsageError } from '../errors.ts';
import { checkStepSize, type StepSize } from '../coordinator/step-size.ts';
import { checkParams, withDefaults, type ParamValue } from '../learners/params.ts';
import type { LearnerSpec, Params, StepContext } from '../learners/spec.ts';
import type { Model } from '../model/model.ts';
import { RUN_KEYS, type RunOptions } from './options.ts';

/**
 * The learner parameters given in `options` (every key that is not a run
 * option), validated, without defaults. `iterations`, the command line's name
 * for T, is accepted for `T` (giving both, with different values, is an error).
 *
 * @example
 * givenParams(spec, { lambda: 0.1, iterations: 800, threads: 2 }); // { lambda: 0.1, T: 800 }
 */
export function givenParams(spec: LearnerSpec, options: Readonly<Record<string, unknown>>): Record<string, ParamValue> {
  const given: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(options)) if (!RUN_KEYS.has(key)) given[key] = value;
  if (given.iterations !== undefined && Object.hasOwn(spec.params, 'T') && !Object.hasOwn(spec.params, 'iterations')) {
    if (given.T !== undefined && given.T !== given.iterations) throw new UsageError(`iterations = ${String(given.iterations)} and T = ${String(given.T)} name the same parameter; give one`);
    given.T = given.iterations;
    delete given.iterations;
  }
  return checkParams(given, spec.params, { learner: spec.name });
}

/**
 * The learner's parameters from a set of options, validated (UsageError naming
 * the option), with every declared default filled in.
 *
 * @example
 * resolveParams(spec, { lambda: 0.1 }); // { kernel: 'rbf', sigma: undefined (σ₀ later), …, lambda: 0.1 }
 */
export function resolveParams(spec: LearnerSpec, options: Readonly<Record<string, unknown>>): Params {
  return withDefaults(givenParams(spec, options), spec.params);
}

/**
 * The parameters of a continued run: the model's, with the new `T`; a given
 * parameter that differs from the model's is a UsageError naming it.
 *
 * @example
 * continuedParams(spec, saved, { data, iterations: 800 }); // the saved model's parameters, T = 800
 */
export function continuedParams(spec: LearnerSpec, init: Model, opts: RunOptions & Readonly<Record<string, unknown>>): Params {
  const saved = init.header.hyperparameters;
  const t = init.header.resume!.t;
  const given = givenParams(spec, opts);
  for (const [key, value] of Object.entries(given)) {
    // A header without `features` is a Gaussian model (auto resolves before a header is written).
    const savedValue = key === 'features' ? (saved[key] ?? 'gaussian') : saved[key];
    if (key !== 'T' && savedValue !== value) throw new UsageError(`${key} = ${String(value)} differs from the model's ${key} = ${String(saved[key])}: a continued run keeps its settings (only T changes)`);
  }
  if (opts.step !== undefined || opts.theta !== undefined) throw new UsageError(`${opts.step !== undefined ? 'step' : 'theta'} cannot be given with init: a continued run keeps the model's step schedule`);
  if (given.T === undefined) throw new UsageError(`init: give T, the iteration count to continue to (the model is at t = ${t})`);
  if ((given.T as number) < t) throw new UsageError(`T = ${given.T} is below the ${t} iterations the model already has`);
  const base: Record<string, unknown> = {};
  for (const key of Object.keys(spec.params)) if (saved[key] !== undefined) base[key] = saved[key];
  const resolved: Params = { ...resolveParams(spec, base), T: given.T };
  // In the order the saved header lists them (a data-driven default such as σ₀ was added
  // last), so the continued model's header is the bytes of one trained at once.
  const order = Object.keys(saved).filter((k) => k in resolved);
  return Object.fromEntries([...order, ...Object.keys(resolved).filter((k) => !order.includes(k))].map((k) => [k, resolved[k]]));
}

/**
 * The step schedule of a run: `step` as given, else `θ/t` when `theta` is
 * given, else the learner's default (learners with a step schedule; others
 * have none), which may follow the data's kernel scale (`context`, e.g. the
 * pairwise learners' at σ < σ₀); checked, with a UsageError naming the bad number.
 *
 * @example
 * resolveStep(spec, params, { theta: 150 }); // { kind: 'inverse', theta: 150 }
 */
export function resolveStep(spec: LearnerSpec, params: Params, opts: Pick<RunOptions, 'step' | 'theta'>, context: StepContext = {}): StepSize | undefined {
  if (!spec.capabilities.steps || !('defaultStep' in spec)) {
    if (opts.step !== undefined || opts.theta !== undefined) throw new UsageError(`${opts.step !== undefined ? 'step' : 'theta'} does not apply to ${spec.name} (it has no step schedule)`);
    return undefined;
  }
  if (opts.theta !== undefined && (typeof opts.theta !== 'number' || !(opts.theta > 0) || !Number.isFinite(opts.theta))) {
    throw new UsageError(`theta must be a positive finite number, got ${String(opts.theta)}`);
  }
  const step = opts.step ?? (opts.theta !== undefined ? { kind: 'inverse' as const, theta: opts.theta } : spec.defaultStep(params, context));
  if (step === null || typeof step !== 'object' || !['inverse', 'constant', 'decay'].includes((step as StepSize).kind)) {
    throw new UsageError(`step must be { kind: 'inverse', theta } | { kind: 'constant', eta } | { kind: 'decay', eta0, eta1 }, got ${JSON.stringify(step)}`);
  }
  try {
    return checkStepSize(step);
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}
