import { describe, expect, it } from 'vitest';
import {
  continuationCost,
  firstHalvingStep,
  gridCost,
  halvingCost,
  halvingPlan,
  nextHalvingStep,
  rankCandidates,
  type HalvingOptions,
} from '../src/coordinator/successive-halving.ts';

/** Σ_{t=from+1}^{to} (t − 1), by a loop: iteration t evaluates the t − 1 earlier blocks. */
function bruteCost(from: number, to: number): number {
  let s = 0;
  for (let t = from + 1; t <= to; t++) s += t - 1;
  return s;
}

/** Runs a whole schedule with a score function; returns per-candidate final t, block evaluations spent, winner, and the steps. */
function simulate(n: number, opts: HalvingOptions, score: (id: number, t: number) => number) {
  const reached = new Array<number>(n).fill(0);
  let spent = 0;
  let step = firstHalvingStep(n, opts);
  const steps = [step];
  const dropped: number[] = [];
  for (;;) {
    for (const id of step.run) {
      expect(reached[id]).toBe(step.from); // continued where it stopped: no restart
      spent += bruteCost(reached[id], step.t);
      reached[id] = step.t;
    }
    const d = nextHalvingStep(n, opts, step, step.run.map((id) => score(id, step.t)));
    dropped.push(...d.dropped);
    if (d.winner !== undefined) return { reached, spent, winner: d.winner, steps, dropped };
    step = d.next!;
    steps.push(step);
  }
}

describe('continuationCost / gridCost', () => {
  it('equal the per-iteration sum of (t − 1) block evaluations, and add up across continuations', () => {
    for (const [a, b] of [[0, 0], [0, 1], [0, 4], [4, 6], [50, 150], [0, 400], [399, 400]]) expect(continuationCost(a, b)).toBe(bruteCost(a, b));
    expect(continuationCost(0, 100) + continuationCost(100, 400)).toBe(continuationCost(0, 400));
    expect(gridCost(10, 400)).toBe(10 * bruteCost(0, 400));
    expect(() => continuationCost(5, 4)).toThrow(RangeError);
  });
});

describe('halvingPlan', () => {
  it('shrinks the field by η and grows the budget by η until T', () => {
    expect(halvingPlan(27, { t0: 50, eta: 3, T: 450 })).toEqual([
      { round: 0, t: 50, count: 27 },
      { round: 1, t: 150, count: 9 },
      { round: 2, t: 450, count: 3 },
    ]);
    // Budgets clamp at T; the last candidate goes straight to T.
    expect(halvingPlan(8, { t0: 25, eta: 2, T: 400 }).map((r) => [r.t, r.count])).toEqual([[25, 8], [50, 4], [100, 2], [400, 1]]);
    expect(halvingPlan(10, { t0: 100, eta: 3, T: 400 }).map((r) => [r.t, r.count])).toEqual([[100, 10], [300, 3], [400, 1]]);
    expect(halvingPlan(5, { t0: 400, eta: 2, T: 400 })).toEqual([{ round: 0, t: 400, count: 5 }]); // t0 = T: the grid
    expect(halvingPlan(1, { t0: 10, eta: 2, T: 400 }).map((r) => r.t)).toEqual([10, 400]);
  });

  it('with a cut, shrinks the field by the cut while the budget still grows by η (tune\'s budget halving: 72 settings over 1/27, 1/9, 1/3 of the budget)', () => {
    expect(halvingPlan(72, { t0: 1, eta: 3, T: 27, cut: 5 }).map((r) => [r.t, r.count])).toEqual([[1, 72], [3, 14], [9, 2], [27, 1]]);
    expect(halvingPlan(72, { t0: 1, eta: 3, T: 27, cut: 3 }).map((r) => [r.t, r.count])).toEqual([[1, 72], [3, 24], [9, 8], [27, 2]]);
    expect(() => halvingPlan(4, { t0: 1, eta: 3, T: 27, cut: 1 })).toThrow(/cut/);
  });

  it('always ends at T with at least one candidate, budgets non-decreasing, fields non-increasing', () => {
    for (const n of [1, 2, 3, 7, 16, 50]) for (const eta of [2, 3, 4]) for (const t0 of [1, 13, 100]) {
      const plan = halvingPlan(n, { t0, eta, T: 400 });
      expect(plan[plan.length - 1].t).toBe(400);
      for (let r = 1; r < plan.length; r++) {
        expect(plan[r].t).toBeGreaterThan(plan[r - 1].t);
        expect(plan[r].count).toBeLessThanOrEqual(plan[r - 1].count);
        expect(plan[r].count).toBeGreaterThanOrEqual(1);
      }
    }
  });

  it('rejects bad options', () => {
    expect(() => halvingPlan(0, { t0: 10, eta: 2, T: 100 })).toThrow(/candidates/);
    expect(() => halvingPlan(4, { t0: 0, eta: 2, T: 100 })).toThrow(/t0/);
    expect(() => halvingPlan(4, { t0: 10, eta: 1.5, T: 100 })).toThrow(/eta/);
    expect(() => halvingPlan(4, { t0: 200, eta: 2, T: 100 })).toThrow(/T must/);
  });
});

describe('rankCandidates', () => {
  it('ranks by score, ties to the smaller id, NaN last', () => {
    expect(rankCandidates([3, 5, 7], [0.9, NaN, 0.9])).toEqual([3, 7, 5]);
    expect(rankCandidates([9, 2, 4, 1], [0.5, 0.5, 0.7, NaN])).toEqual([4, 2, 9, 1]);
    expect(rankCandidates([2, 1], [NaN, NaN])).toEqual([1, 2]);
  });

  it('breaks ties of the score by the tie-break score (tune: equal neighbourhood means by the own score), then by id', () => {
    // Three survivors that are each other's neighbours share one neighbourhood mean: the own score decides.
    expect(rankCandidates([16, 17, 18], [0.913, 0.913, 0.913], [0.906, 0.906, 0.925])).toEqual([18, 16, 17]);
    expect(rankCandidates([3, 5, 7], [0.9, 0.95, 0.9], [0.1, 0.0, 0.2])).toEqual([5, 7, 3]);
    expect(rankCandidates([3, 5], [0.9, 0.9], [NaN, 0.5])).toEqual([5, 3]);
    expect(() => rankCandidates([3, 5], [0.9, 0.9], [0.5])).toThrow(/tie-break/);
    const step = firstHalvingStep(3, { t0: 1, eta: 3, T: 3 });
    expect(nextHalvingStep(3, { t0: 1, eta: 3, T: 3 }, step, [0.8, 0.8, 0.8], [0.1, 0.3, 0.2]).next!.run).toEqual([1]);
  });
});

describe('a whole halving run', () => {
  const opts = { t0: 50, eta: 3, T: 450 };
  // Candidate i's score grows with t and with i, except candidate 5 which is best early and fades.
  const score = (id: number, t: number) => (id === 5 ? 1 - t / 250 : 0.5 + id / 100 + t / 10000);

  it('keeps the best by the scores each round, continues them without restart, and names the best finisher', () => {
    const r = simulate(27, opts, score);
    expect(r.steps.map((s) => [s.from, s.t, s.run.length])).toEqual([[0, 50, 27], [50, 150, 9], [150, 450, 3]]);
    expect(r.steps[1].run).toEqual([5, 19, 20, 21, 22, 23, 24, 25, 26]); // 5 leads at t = 50 (0.8 > 0.765)
    expect(r.steps[2].run).toEqual([24, 25, 26]); // at t = 150 candidate 5 has faded to 0.4
    expect(r.winner).toBe(26);
    // Every candidate is dropped exactly once or wins.
    expect(new Set([...r.dropped, r.winner]).size).toBe(27);
    expect(r.dropped.length).toBe(26);
  });

  it('spends exactly halvingCost block evaluations, a fraction of the grid', () => {
    const r = simulate(27, opts, score);
    const cost = halvingCost(27, opts);
    expect(r.spent).toBe(cost.halving);
    expect(cost).toEqual({ halving: 392175, grid: 2727675, fraction: 392175 / 2727675 });
    for (const [n, o] of [[8, { t0: 25, eta: 2, T: 400 }], [10, { t0: 100, eta: 3, T: 400 }], [1, { t0: 10, eta: 2, T: 50 }]] as const) {
      expect(simulate(n, o, score).spent).toBe(halvingCost(n, o).halving);
    }
    // t0 = T is the grid itself.
    expect(halvingCost(6, { t0: 400, eta: 2, T: 400 }).fraction).toBe(1);
  });

  it('is deterministic: ties between equal scores always resolve the same way', () => {
    const flat = () => 0.5;
    const a = simulate(9, { t0: 10, eta: 3, T: 90 }, flat);
    expect(a.steps.map((s) => s.run)).toEqual([[0, 1, 2, 3, 4, 5, 6, 7, 8], [0, 1, 2], [0]]);
    expect(a.winner).toBe(0);
  });

  it('refuses a step that is not a round of the plan', () => {
    expect(() => nextHalvingStep(4, { t0: 100, eta: 2, T: 400 }, { round: 0, from: 0, t: 100, run: [0, 1] }, [1, 2])).toThrow(/not a round/);
  });
});
