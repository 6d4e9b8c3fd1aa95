/**
 * `tune`'s neighbourhood selection: a candidate ranked by the mean CV score of
 * itself and its grid neighbours (one step in every searched parameter), so a
 * lone lucky setting loses to a good region.
 */
import { describe, expect, it } from 'vitest';
import { neighbourhoodScores } from '../src/coordinator/grid-neighbourhood.ts';
import { gridCandidates } from '../src/tune.ts';

describe('neighbourhoodScores', () => {
  it('averages each setting with its neighbours one grid step away, so a plateau beats a lone spike', () => {
    const space = { sigma: [1, 2, 4, 8, 16] };
    const s = neighbourhoodScores(space, gridCandidates(space), [0, 1, 2, 3, 4], [0.83, 0.86, 0.85, 0.7, 0.9]);
    expect(s.map((v) => Number(v.toFixed(4)))).toEqual([0.845, 0.8467, 0.8033, 0.8167, 0.8]);
    expect(s.indexOf(Math.max(...s))).toBe(1); // the argmax of the raw scores is 4
  });

  it('takes diagonals in two parameters, only the candidates that ran, and skips NaN scores', () => {
    const space = { sigma: [1, 2, 4], C: [1, 10, 100] };
    const candidates = gridCandidates(space); // C fastest: id = 3·σ index + C index
    const scores = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9];
    const all = neighbourhoodScores(space, candidates, [0, 1, 2, 3, 4, 5, 6, 7, 8], scores);
    expect(all[4]).toBeCloseTo(0.5, 12); // the centre: mean of all nine
    expect(all[0]).toBeCloseTo((0.1 + 0.2 + 0.4 + 0.5) / 4, 12); // a corner: 2 × 2
    // A later round runs only some candidates: neighbours that did not run are not counted.
    const some = neighbourhoodScores(space, candidates, [0, 4, 8], [0.1, NaN, 0.9]);
    expect(some).toEqual([0.1, 0.5, 0.9]);
  });

  it('orders numeric values by size (a grid given out of order has the same neighbours) and needs equal non-numeric values', () => {
    const sorted = { sigma: [1, 2, 4], loss: ['hinge', 'square'] };
    const shuffled = { sigma: [4, 1, 2], loss: ['hinge', 'square'] };
    const score = (c: Record<string, unknown>) => (c.sigma as number) / 10 + (c.loss === 'hinge' ? 0 : 0.5);
    const bySorted = new Map<string, number>();
    const a = gridCandidates(sorted);
    neighbourhoodScores(sorted, a, a.map((_, i) => i), a.map(score)).forEach((v, i) => bySorted.set(JSON.stringify(a[i]), v));
    const b = gridCandidates(shuffled);
    neighbourhoodScores(shuffled, b, b.map((_, i) => i), b.map(score)).forEach((v, i) => expect(v).toBeCloseTo(bySorted.get(JSON.stringify(b[i]))!, 12));
    // σ = 1 with hinge: neighbours σ ∈ {1, 2}, hinge only.
    expect(bySorted.get(JSON.stringify({ sigma: 1, loss: 'hinge' }))).toBeCloseTo(0.15, 12);
  });

  it('refuses scores that do not match the candidates', () => {
    const space = { sigma: [1, 2] };
    expect(() => neighbourhoodScores(space, gridCandidates(space), [0, 1], [0.5])).toThrow(RangeError);
  });
});
