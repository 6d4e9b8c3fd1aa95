/**
 * Successive halving over training iterations, without restarts — the
 * scheduler `dsgkit tune` uses to spend its budget on promising settings.
 *
 * Every candidate (a hyperparameter setting) starts training; after round r
 * all live candidates have run to iteration t_r, are scored (higher is
 * better, e.g. validation AUC) and only the best ⌊n_r/η⌋ (at least one)
 * CONTINUE — from the model they already have, not from scratch — to
 * t_{r+1} = min(η·t_r, T). Once one candidate is left it goes straight to T.
 * The last round ends at T and its best candidate wins.
 *
 * Continuing matters because a stochastic functional gradient run is O(t²):
 * iteration t evaluates f on each batch over the t − 1 earlier blocks, so a
 * run continued from t_a to t_b costs Σ_{t=t_a+1}^{t_b} (t − 1) block
 * evaluations per batch ({@link continuationCost}), and the whole schedule
 * ({@link halvingCost}) is compared with a full grid at T ({@link gridCost}).
 *
 * Everything here is pure bookkeeping: no training, no clocks, no randomness.
 */

/** Options of the schedule. */
export interface HalvingOptions {
  /** Iterations every candidate runs before the first cut (t₀ ≥ 1). */
  t0: number;
  /** Growth factor η ≥ 2 (whole number): budgets grow, and the field shrinks, by η per round. */
  eta: number;
  /** Final iteration count T ≥ t₀ that the survivors reach. */
  T: number;
  /**
   * How much the field shrinks per round (whole number ≥ 2; default η): the
   * best ⌊n_r/cut⌋ continue. A cut above η reaches one candidate in fewer
   * rounds than the budget's growth alone would take (tune's budget halving:
   * budgets 1/27, 1/9, 1/3, 1 of the full one, whatever the grid's size).
   */
  cut?: number;
}

/** One round of the plan: how many candidates run, to which iteration. */
export interface HalvingRoundPlan {
  /** Round number, 0-based. */
  round: number;
  /** Iteration every live candidate has reached at the end of this round. */
  t: number;
  /** Candidates live in this round. */
  count: number;
}

/** One round as it happens: which candidates continue from which iteration to which. */
export interface HalvingStep {
  round: number;
  /** Iteration the candidates continue from (0 in round 0). */
  from: number;
  /** Iteration they run to. */
  t: number;
  /** Candidate ids (0 … n−1) that run this round, ascending. */
  run: number[];
}

/** What happens after a round is scored. */
export interface HalvingDecision {
  /** Candidates that stop here (worst first). */
  dropped: number[];
  /** The next round, or undefined when this was the last one. */
  next?: HalvingStep;
  /** The winner, once the last round (t = T) is scored. */
  winner?: number;
}

function checkOptions(nCandidates: number, opts: HalvingOptions): void {
  const { t0, eta, T } = opts;
  if (!Number.isInteger(nCandidates) || nCandidates < 1) throw new RangeError(`successive halving: the number of candidates must be a whole number ≥ 1, got ${nCandidates}`);
  if (!Number.isInteger(t0) || t0 < 1) throw new RangeError(`successive halving: t0 must be a whole number ≥ 1, got ${t0}`);
  if (!Number.isInteger(eta) || eta < 2) throw new RangeError(`successive halving: eta must be a whole number ≥ 2, got ${eta}`);
  if (!Number.isInteger(T) || T < t0) throw new RangeError(`successive halving: T must be a whole number ≥ t0 = ${t0}, got ${T}`);
  if (opts.cut !== undefined && (!Number.isInteger(opts.cut) || opts.cut < 2)) throw new RangeError(`successive halving: cut must be a whole number ≥ 2, got ${opts.cut}`);
}

/**
 * The shape of the schedule: per round, the iteration reached and the number of
 * live candidates. Round 0 runs all n to t₀; then count ← max(1, ⌊count/η⌋)
 * and t ← min(η·t, T), or t ← T as soon as count is 1; the last round has t = T.
 * With t₀ = T it is one round: the full grid. With `cut`, count ← ⌊count/cut⌋.
 *
 * @example
 * halvingPlan(27, { t0: 50, eta: 3, T: 450 });
 * // [{ round: 0, t: 50, count: 27 }, { round: 1, t: 150, count: 9 }, { round: 2, t: 450, count: 3 }]
 */
export function halvingPlan(nCandidates: number, opts: HalvingOptions): HalvingRoundPlan[] {
  checkOptions(nCandidates, opts);
  const { t0, eta, T } = opts;
  const cut = opts.cut ?? eta;
  const plan: HalvingRoundPlan[] = [{ round: 0, t: t0, count: nCandidates }];
  while (plan[plan.length - 1].t < T) {
    const last = plan[plan.length - 1];
    const count = Math.max(1, Math.floor(last.count / cut));
    const t = count === 1 ? T : Math.min(T, last.t * eta);
    plan.push({ round: last.round + 1, t, count });
  }
  return plan;
}

/**
 * Round 0: every candidate runs from scratch to t₀.
 *
 * @example
 * firstHalvingStep(4, { t0: 100, eta: 2, T: 400 }); // { round: 0, from: 0, t: 100, run: [0, 1, 2, 3] }
 */
export function firstHalvingStep(nCandidates: number, opts: HalvingOptions): HalvingStep {
  const plan = halvingPlan(nCandidates, opts);
  return { round: 0, from: 0, t: plan[0].t, run: Array.from({ length: nCandidates }, (_, i) => i) };
}

/**
 * Candidates ranked best first by score (higher is better). Ties go to the
 * higher `tiebreak` score when one is given (tune's neighbourhood selection:
 * the candidate's own score, so survivors that are all each other's
 * neighbours, and so share one neighbourhood mean, are still told apart),
 * then to the smaller candidate id; a NaN score (a diverged run) ranks below
 * every number.
 *
 * @example
 * rankCandidates([3, 5, 7], [0.9, NaN, 0.9]); // [3, 7, 5]
 * rankCandidates([3, 5, 7], [0.9, NaN, 0.9], [0.8, 0.7, 0.85]); // [7, 3, 5]
 */
export function rankCandidates(ids: readonly number[], scores: ArrayLike<number>, tiebreak?: ArrayLike<number>): number[] {
  if (scores.length !== ids.length) throw new RangeError(`rankCandidates: ${ids.length} candidates but ${scores.length} scores`);
  if (tiebreak !== undefined && tiebreak.length !== ids.length) throw new RangeError(`rankCandidates: ${ids.length} candidates but ${tiebreak.length} tie-break scores`);
  const order = ids.map((id, i) => ({ id, s: scores[i], b: tiebreak === undefined ? 0 : tiebreak[i] }));
  const byScore = (x: number, y: number): number => {
    const xn = Number.isNaN(x);
    const yn = Number.isNaN(y);
    if (xn !== yn) return xn ? 1 : -1;
    return !xn && x !== y ? y - x : 0;
  };
  order.sort((a, b) => byScore(a.s, b.s) || byScore(a.b, b.b) || a.id - b.id);
  return order.map((o) => o.id);
}

/**
 * Given the scores of the candidates that ran `step` (in `step.run` order),
 * says who continues, to which iteration, and who is dropped; after the last
 * round (t = T) it names the winner. Equal scores are told apart by
 * `tiebreak` (in the same order) when given ({@link rankCandidates}).
 *
 * @example
 * const opts = { t0: 100, eta: 2, T: 400 };
 * let step = firstHalvingStep(4, opts);                    // 0,1,2,3 run to t = 100
 * let d = nextHalvingStep(4, opts, step, [0.7, 0.9, 0.8, 0.6]);
 * // the best 2 continue: d.next = { round: 1, from: 100, t: 200, run: [1, 2] }, d.dropped = [3, 0]
 * d = nextHalvingStep(4, opts, d.next!, [0.91, 0.93]);     // d.next = { round: 2, from: 200, t: 400, run: [2] }, d.dropped = [1]
 * d = nextHalvingStep(4, opts, d.next!, [0.95]);           // d.winner = 2, d.dropped = []
 */
export function nextHalvingStep(nCandidates: number, opts: HalvingOptions, step: HalvingStep, scores: ArrayLike<number>, tiebreak?: ArrayLike<number>): HalvingDecision {
  const plan = halvingPlan(nCandidates, opts);
  const here = plan[step.round];
  if (!here || here.t !== step.t || here.count !== step.run.length) {
    throw new RangeError(`nextHalvingStep: round ${step.round} (t = ${step.t}, ${step.run.length} candidates) is not a round of this plan`);
  }
  const ranked = rankCandidates(step.run, scores, tiebreak);
  const following = plan[step.round + 1];
  if (!following) return { dropped: ranked.slice(1).reverse(), winner: ranked[0] };
  const keep = ranked.slice(0, following.count).sort((a, b) => a - b);
  return {
    dropped: ranked.slice(following.count).reverse(),
    next: { round: following.round, from: step.t, t: following.t, run: keep },
  };
}

/**
 * Block evaluations per batch spent continuing one run from iteration `from` to `to`:
 * Σ_{t=from+1}^{to} (t − 1) = (to(to−1) − from(from−1)) / 2.
 *
 * @example
 * continuationCost(0, 4);   // 0 + 1 + 2 + 3 = 6
 * continuationCost(4, 6);   // 4 + 5 = 9
 */
export function continuationCost(from: number, to: number): number {
  if (!Number.isInteger(from) || !Number.isInteger(to) || from < 0 || to < from) throw new RangeError(`continuationCost: need whole numbers 0 ≤ from ≤ to, got ${from} → ${to}`);
  return (to * (to - 1) - from * (from - 1)) / 2;
}

/**
 * Block evaluations per batch of the whole schedule (each round's live
 * candidates continue from the previous round's t), of a full grid (every
 * candidate to T from scratch), and their ratio.
 *
 * @example
 * halvingCost(27, { t0: 50, eta: 3, T: 450 });
 * // { halving: 27·1,225 + 9·9,950 + 3·89,850 = 392,175, grid: 27·101,025 = 2,727,675, fraction ≈ 0.144 }
 */
export function halvingCost(nCandidates: number, opts: HalvingOptions): { halving: number; grid: number; fraction: number } {
  const plan = halvingPlan(nCandidates, opts);
  let halving = 0;
  let from = 0;
  for (const r of plan) {
    halving += r.count * continuationCost(from, r.t);
    from = r.t;
  }
  const grid = gridCost(nCandidates, opts.T);
  return { halving, grid, fraction: halving / grid };
}

/**
 * Block evaluations per batch of training every one of `nCandidates` settings to T from scratch.
 *
 * @example
 * gridCost(10, 400); // 10 · 400·399/2 = 798,000
 */
export function gridCost(nCandidates: number, T: number): number {
  return nCandidates * continuationCost(0, T);
}
