/**
 * The semi-supervised pairwise AUC risk of ALGORITHMS.md § QSG-S2AUC, shared
 * by every learner built on it (the stochastic learner, the exact solver, and
 * each threshold subproblem of the ordinal learner):
 *
 *   R = γ R_PN + (1 − γ)(R_PU + R_NU − ½),   l(u, v) = (1 − u + v)²,
 *
 * with `R_PU` treating unlabeled rows as negatives and `R_NU` as positives.
 * With the square loss the all-pairs sums have closed forms, so the weights
 * (the gradient with respect to every f value) cost O(|P| + |N| + |U|).
 */

/**
 * Probability masses of the points of P and N in an empirical risk (each sums
 * to 1): the pair `(p, n)` counts `mass.P[p] · mass.N[n]`. Absent, every point
 * of a set has mass `1/|set|`. QS3ORAO uses them to weight class mini-batches
 * by the classes' shares of the labeled rows.
 */
export interface PairMasses {
  readonly P: Float64Array;
  readonly N: Float64Array;
}

/**
 * The closed-form weights `w = ∂R̂/∂f` at every point of three sets for the
 * all-pairs empirical risk over those sets:
 *
 *   w_p = −2γ a_p (1 − f_p + f̄_N) − 2(1−γ) a_p (1 − f_p + f̄_U)
 *   w_n =  2γ b_n (1 − f̄_P + f_n) + 2(1−γ) b_n (1 − f̄_U + f_n)
 *   w_u =  2(1−γ)/|U| ((1 − f̄_P + f_u) − (1 − f_u + f̄_N))
 *
 * with masses `a_p = 1/|P|`, `b_n = 1/|N|` unless `mass` gives them, and
 * `f̄` the mass-weighted means (the per-triplet weights of ALGORITHMS.md
 * summed over all pairs, each pair weighted by its mass). Used on mini-batches
 * by the learners and on the whole training set by the exact solver.
 * `fU`/`wU` may be empty when γ = 1.
 *
 * @example
 * aucWeights(0.5, fP, fN, fU, wP, wN, wU);
 */
export function aucWeights(
  gamma: number,
  fP: Float64Array,
  fN: Float64Array,
  fU: Float64Array,
  wP: Float64Array,
  wN: Float64Array,
  wU: Float64Array,
  mass?: PairMasses,
): void {
  const nP = fP.length;
  const nN = fN.length;
  const nU = fU.length;
  const meanP = mass ? dot(mass.P, fP) : mean(fP);
  const meanN = mass ? dot(mass.N, fN) : mean(fN);
  const meanU = nU > 0 ? mean(fU) : 0;
  const g1 = 1 - gamma;
  for (let i = 0; i < nP; i++) {
    const fp = fP[i];
    const v = -2 * gamma * (1 - fp + meanN) - (nU > 0 ? 2 * g1 * (1 - fp + meanU) : 0);
    wP[i] = mass ? v * mass.P[i] : v / nP;
  }
  for (let i = 0; i < nN; i++) {
    const fn = fN[i];
    const v = 2 * gamma * (1 - meanP + fn) + (nU > 0 ? 2 * g1 * (1 - meanU + fn) : 0);
    wN[i] = mass ? v * mass.N[i] : v / nN;
  }
  for (let i = 0; i < nU; i++) {
    const fu = fU[i];
    wU[i] = (2 * g1 * (1 - meanP + fu - (1 - fu + meanN))) / nU;
  }
}

/**
 * The all-pairs empirical risk over three sets whose gradient with respect to
 * each `f` value is {@link aucWeights}:
 * `γ·mean_{P×N} l(f_p, f_n) + (1−γ)(mean_{P×U} l(f_p, f_u) + mean_{U×N} l(f_u, f_n) − ½)`,
 * `l(u, v) = (1 − u + v)²`, the means weighted by `mass` when given.
 * O(|P|·|N| + …): for tests and the conformance suite.
 *
 * @example
 * aucRisk(0.5, fP, fN, fU); // ≥ 0 up to the −½ offset
 */
export function aucRisk(gamma: number, fP: Float64Array, fN: Float64Array, fU: Float64Array, mass?: PairMasses): number {
  const uniform = (n: number) => new Float64Array(n).fill(1 / n);
  const a = mass?.P ?? uniform(fP.length);
  const b = mass?.N ?? uniform(fN.length);
  const c = uniform(fU.length);
  const pairMean = (A: Float64Array, wA: Float64Array, Bv: Float64Array, wB: Float64Array) => {
    let s = 0;
    for (let i = 0; i < A.length; i++) for (let j = 0; j < Bv.length; j++) s += wA[i] * wB[j] * (1 - A[i] + Bv[j]) ** 2;
    return s;
  };
  const pn = pairMean(fP, a, fN, b);
  if (fU.length === 0) return gamma * pn;
  return gamma * pn + (1 - gamma) * (pairMean(fP, a, fU, c) + pairMean(fU, c, fN, b) - 0.5);
}

function mean(a: Float64Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i];
  return s / a.length;
}

function dot(a: Float64Array, b: Float64Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * b[i];
  return s;
}

/**
 * The trade-off γ between the PN risk and the PU + NU risks, 0.9 by default:
 * the labeled pairs weigh nine times the unlabeled ones. Chosen on the public
 * quality benchmark (docs/learners.md § What the unlabeled rows buy at the
 * defaults): held-out AUC rises monotonically from γ = 0.5 to 1 on average over
 * the binary sets, and 0.9 keeps the unlabeled risk acting (it moves held-out
 * scores and labels) at a tenth of 0.5's cost against γ = 1.
 *
 * @example
 * GAMMA_PARAM.gamma.default; // 0.9
 */
export const GAMMA_PARAM = {
  gamma: { kind: 'number', default: 0.9, min: 0, max: 1, symbol: 'γ', doc: 'γ in [0, 1] of the risk γ·R_PN + (1 − γ)(R_PU + R_NU − ½); 1 = labeled pairs only' },
} as const;
