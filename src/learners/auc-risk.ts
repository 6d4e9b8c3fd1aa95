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
 * The closed-form weights `w = ∂R̂/∂f` at every point of three sets for the
 * all-pairs empirical risk over those sets:
 *
 *   w_p = −2γ/|P| (1 − f_p + f̄_N) − 2(1−γ)/|P| (1 − f_p + f̄_U)
 *   w_n =  2γ/|N| (1 − f̄_P + f_n) + 2(1−γ)/|N| (1 − f̄_U + f_n)
 *   w_u =  2(1−γ)/|U| ((1 − f̄_P + f_u) − (1 − f_u + f̄_N))
 *
 * (the per-triplet weights of ALGORITHMS.md summed over all pairs, divided by
 * the number of pairs). Used on mini-batches by the learner and on the whole
 * training set by the exact solver. `fU`/`wU` may be empty when γ = 1.
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
): void {
  const nP = fP.length;
  const nN = fN.length;
  const nU = fU.length;
  const meanP = mean(fP);
  const meanN = mean(fN);
  const meanU = nU > 0 ? mean(fU) : 0;
  const g1 = 1 - gamma;
  for (let i = 0; i < nP; i++) {
    const fp = fP[i];
    wP[i] = (-2 * gamma * (1 - fp + meanN) - (nU > 0 ? 2 * g1 * (1 - fp + meanU) : 0)) / nP;
  }
  for (let i = 0; i < nN; i++) {
    const fn = fN[i];
    wN[i] = (2 * gamma * (1 - meanP + fn) + (nU > 0 ? 2 * g1 * (1 - meanU + fn) : 0)) / nN;
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
 * `l(u, v) = (1 − u + v)²`. O(|P|·|N| + …): for tests and the conformance suite.
 *
 * @example
 * aucRisk(0.5, fP, fN, fU); // ≥ 0 up to the −½ offset
 */
export function aucRisk(gamma: number, fP: Float64Array, fN: Float64Array, fU: Float64Array): number {
  const pairMean = (A: Float64Array, Bv: Float64Array) => {
    let s = 0;
    for (const a of A) for (const b of Bv) s += (1 - a + b) ** 2;
    return s / (A.length * Bv.length);
  };
  const pn = pairMean(fP, fN);
  if (fU.length === 0) return gamma * pn;
  return gamma * pn + (1 - gamma) * (pairMean(fP, fU) + pairMean(fU, fN) - 0.5);
}

function mean(a: Float64Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i];
  return s / a.length;
}

/** The trade-off γ between the PN risk and the PU + NU risks. */
export const GAMMA_PARAM = {
  gamma: { kind: 'number', default: 0.5, min: 0, max: 1, symbol: 'γ', doc: 'γ in [0, 1] of the risk γ·R_PN + (1 − γ)(R_PU + R_NU − ½); 1 = labeled pairs only' },
} as const;
