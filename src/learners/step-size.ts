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

/**
 * A warning when `θ/t` steps sit outside the theorems' range `θλ ∈ (1, 2)` (integers allowed), else undefined.
 *
 * @example
 * inverseStepWarning({ kind: 'inverse', theta: 1 }, 0.5); // "θλ = 0.5 is outside (1, 2): …"
 */
export function inverseStepWarning(schedule: StepSize, lambda: number): string | undefined {
  if (schedule.kind !== 'inverse') return undefined;
  const tl = schedule.theta * lambda;
  if ((tl > 1 && tl < 2) || (Number.isInteger(tl) && tl > 0)) return undefined;
  return `θλ = ${tl} is outside (1, 2): the O(1/T) convergence guarantee of η_t = θ/t does not hold (set θ ≈ 1.5/λ)`;
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
