/**
 * Margin losses `l(z)` at `z = y·f(x)`, labels `y ∈ {−1, +1}`: the losses of
 * the supervised baseline (DSG) and of the graph-based kernel machine.
 *
 * The two regression losses of the graph-based kernel machine paper, L1
 * `|y − o|` and ε-insensitive `max(0, |y − o| − ε)`, are margin losses too:
 * with `y = ±1`, `y − o = y(1 − y·o)`, so `|y − o| = |1 − z|`.
 */

/** Every margin loss dsgkit knows. */
export const ALL_MARGIN_LOSSES = ['hinge', 'smooth-hinge', 'logistic', 'square', 'l1', 'eps-insensitive'] as const;
export type MarginLoss = (typeof ALL_MARGIN_LOSSES)[number];

/** Shape parameters of the losses that have one: smooth hinge `τ`, ε-insensitive `ε`. */
export interface LossShape {
  readonly tau?: number;
  readonly epsilon?: number;
}

/** One line per loss, for `--help`. */
export const MARGIN_LOSS_DOCS: Readonly<Record<MarginLoss, string>> = {
  hinge: 'hinge max(0, 1 − z)',
  'smooth-hinge': 'smooth hinge (τ): 0 for z > 1, 1 − z − τ/2 for z < 1 − τ, (1 − z)²/(2τ) between',
  logistic: 'logistic log(1 + e^−z)',
  square: 'square (1 − z)²',
  l1: 'L1 |y − f| = |1 − z|',
  'eps-insensitive': 'ε-insensitive max(0, |y − f| − ε)',
};

/**
 * A margin loss `l(z)` at `z = y f(x)`.
 *
 * @example
 * marginLoss('hinge', 0.5);                      // 0.5
 * marginLoss('smooth-hinge', 0.5, { tau: 1 });   // 0.125
 */
export function marginLoss(loss: MarginLoss, z: number, shape: LossShape = {}): number {
  switch (loss) {
    case 'hinge':
      return Math.max(0, 1 - z);
    case 'smooth-hinge': {
      const tau = shape.tau ?? 1;
      if (z > 1) return 0;
      if (z < 1 - tau) return 1 - z - tau / 2;
      return (1 - z) ** 2 / (2 * tau);
    }
    case 'logistic':
      return z > 0 ? Math.log1p(Math.exp(-z)) : -z + Math.log1p(Math.exp(z));
    case 'square':
      return (1 - z) ** 2;
    case 'l1':
      return Math.abs(1 - z);
    case 'eps-insensitive':
      return Math.max(0, Math.abs(1 - z) - (shape.epsilon ?? 0));
  }
}

/**
 * `dl/dz` of a margin loss at `z = y f(x)` (a subgradient at a kink); the
 * gradient with respect to `f` is `y · dl/dz`.
 *
 * @example
 * marginLossDerivative('hinge', 0.5); // -1
 */
export function marginLossDerivative(loss: MarginLoss, z: number, shape: LossShape = {}): number {
  switch (loss) {
    case 'hinge':
      return z < 1 ? -1 : 0;
    case 'smooth-hinge': {
      const tau = shape.tau ?? 1;
      if (z > 1) return 0;
      if (z < 1 - tau) return -1;
      return (z - 1) / tau;
    }
    case 'logistic':
      return z > 0 ? -Math.exp(-z) / (1 + Math.exp(-z)) : -1 / (1 + Math.exp(z));
    case 'square':
      return -2 * (1 - z);
    case 'l1':
      return z < 1 ? -1 : z > 1 ? 1 : 0;
    case 'eps-insensitive': {
      const eps = shape.epsilon ?? 0;
      return z < 1 - eps ? -1 : z > 1 + eps ? 1 : 0;
    }
  }
}
