/**
 * Step-size schedules `η_t` (t = 1, 2, …) of ALGORITHMS.md.
 *
 * - `inverse`: `η_t = θ/t`, the schedule of the AUC papers' convergence
 *   theorems, which need `θλ ∈ (1, 2)` (or a positive integer);
 * - `constant`: `η_t = η` (TSGS3VM uses `θ/T^{3/4}`);
 * - `decay`: `η_t = η_0 / (1 + η_1 t)`.
 */
export type StepSize =
  | { readonly kind: 'inverse'; readonly theta: number }
  | { readonly kind: 'constant'; readonly eta: number }
  | { readonly kind: 'decay'; readonly eta0: number; readonly eta1: number };

/**
 * `η_t` for iteration `t ≥ 1`.
 *
 * @example
 * stepAt({ kind: 'inverse', theta: 12 }, 4); // 3
 */
export function stepAt(schedule: StepSize, t: number): number {
  switch (schedule.kind) {
    case 'inverse':
      return schedule.theta / t;
    case 'constant':
      return schedule.eta;
    case 'decay':
      return schedule.eta0 / (1 + schedule.eta1 * t);
  }
}

/** Largest first step of the default schedule (see {@link defaultStepSize}). */
export const DEFAULT_MAX_STEP = 0.5;

/**
 * The default schedule: the papers' `η_t = θ/t` with `θ = θλ/λ`, shifted to
 * `η_t = θ/(t + t₀)` so the first step is at most {@link DEFAULT_MAX_STEP}:
 * written as `η_0/(1 + η_1 t)` with `η_0 = min(0.5, θ)` and `η_1 = η_0/θ`.
 * Asymptotically it is `θ/t` with the same `θλ` (the theorems' O(1/T) rate);
 * early on it avoids the overshoot of the unshifted schedule, whose first step
 * `θ = 1.5/λ` is 12 at λ = 2⁻³ against a pairwise square loss of curvature
 * ≈ 4 (held-out AUC 0.69 against the exact solution's 0.98 on breast cancer).
 * The literal papers' schedule is `{ kind: 'inverse', theta }`. `maxStep`
 * raises the cap where the loss's curvature along a step is smaller (the
 * pairwise learners at a wide kernel: learners/kernel-scale.ts).
 *
 * @example
 * defaultStepSize(0.01, 1.5); // { kind: 'decay', eta0: 0.5, eta1: 0.00333… }  (θ = 150, t₀ = 300)
 */
export function defaultStepSize(lambda: number, thetaLambda: number, maxStep: number = DEFAULT_MAX_STEP): StepSize {
  const theta = thetaLambda / lambda;
  const eta0 = Math.min(maxStep, theta);
  return { kind: 'decay', eta0, eta1: eta0 / theta };
}

/**
 * A warning when a `1/t`-type schedule (`θ/t`, or `η_0/(1+η_1 t)` whose
 * asymptotic `θ` is `η_0/η_1`) has `θλ` outside the theorems' range `(1, 2)`
 * (integers allowed), else undefined. Constant steps get no warning.
 *
 * @example
 * inverseStepWarning({ kind: 'inverse', theta: 1 }, 0.5); // "θλ = 0.5 is outside (1, 2): …"
 */
export function inverseStepWarning(schedule: StepSize, lambda: number): string | undefined {
  if (schedule.kind === 'constant' || (schedule.kind === 'decay' && schedule.eta1 === 0)) return undefined;
  const theta = schedule.kind === 'inverse' ? schedule.theta : schedule.eta0 / schedule.eta1;
  const tl = theta * lambda;
  if ((tl > 1 && tl < 2) || (Number.isInteger(tl) && tl > 0) || Math.abs(tl - Math.round(tl)) < 1e-9) return undefined;
  return `θλ = ${Number(tl.toPrecision(6))} is outside (1, 2): the O(1/T) convergence guarantee of a θ/t step does not hold (use θ ≈ 1.5/λ)`;
}

/**
 * Checks a schedule's numbers, throwing a RangeError that names the bad one.
 *
 * @example
 * checkStepSize({ kind: 'constant', eta: 0.1 });
 */
export function checkStepSize(schedule: StepSize): StepSize {
  const bad = (name: string, v: number) => new RangeError(`step size: ${name} must be a positive finite number, got ${v}`);
  switch (schedule.kind) {
    case 'inverse':
      if (!(schedule.theta > 0) || !Number.isFinite(schedule.theta)) throw bad('theta', schedule.theta);
      break;
    case 'constant':
      if (!(schedule.eta > 0) || !Number.isFinite(schedule.eta)) throw bad('eta', schedule.eta);
      break;
    case 'decay':
      if (!(schedule.eta0 > 0) || !Number.isFinite(schedule.eta0)) throw bad('eta0', schedule.eta0);
      if (!(schedule.eta1 >= 0) || !Number.isFinite(schedule.eta1)) throw bad('eta1', schedule.eta1);
      break;
  }
  return schedule;
}
