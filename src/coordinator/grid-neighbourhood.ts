/**
 * How `tune` picks among a round's candidates on a grid: by their own
 * cross-validated score (`best`), or by the mean score of their neighbourhood
 * on the grid (`neighbourhood`).
 *
 * With a few dozen labeled rows the CV score of one setting is noisy (pooled
 * accuracy over 56 rows moves in steps of 0.018), and the argmax over 25
 * settings picks the luckiest, often a lone spike at the grid's edge. The
 * held-out accuracy of a kernel machine varies smoothly with log σ and log C,
 * so averaging each setting's score with its grid neighbours (one step in
 * every searched parameter, diagonals included) scores a region instead: the
 * noise of the mean falls with the number of neighbours, and a setting wins
 * when the settings around it are good too.
 */

/**
 * Each candidate's position on the grid: per searched parameter, the rank of
 * its value among that parameter's values (numbers in ascending order, so a
 * grid given out of order has the same neighbours), or for a non-numeric
 * value its index and `exact` (neighbours must share it).
 */
function gridPositions(space: Readonly<Record<string, readonly unknown[]>>, candidates: readonly Readonly<Record<string, unknown>>[]): { pos: number[][]; exact: boolean[] } {
  const keys = Object.keys(space);
  const exact = keys.map((k) => space[k].some((v) => typeof v !== 'number'));
  const order = keys.map((k, i) => (exact[i] ? [...space[k]] : [...new Set(space[k] as number[])].sort((a, b) => a - b)));
  const pos = candidates.map((c) => keys.map((k, i) => order[i].indexOf(c[k])));
  return { pos, exact };
}

/**
 * The neighbourhood score of each candidate that ran a round: the mean of the
 * scores of the candidates of that round within one grid step of it in every
 * searched parameter (itself included; NaN scores left out; NaN if all are).
 * `run` are candidate ids (indices into `candidates`), `scores` in `run` order.
 *
 * @example
 * const space = { sigma: [1, 2, 4, 8, 16] };
 * // the lone spike at σ = 16 loses to the plateau around σ = 2:
 * neighbourhoodScores(space, gridCandidates(space), [0, 1, 2, 3, 4], [0.83, 0.86, 0.85, 0.70, 0.90]);
 * // [0.845, 0.8467, 0.8033, 0.8167, 0.80]
 */
export function neighbourhoodScores(
  space: Readonly<Record<string, readonly unknown[]>>,
  candidates: readonly Readonly<Record<string, unknown>>[],
  run: readonly number[],
  scores: ArrayLike<number>,
): number[] {
  if (scores.length !== run.length) throw new RangeError(`neighbourhoodScores: ${run.length} candidates but ${scores.length} scores`);
  const { pos, exact } = gridPositions(space, candidates);
  const near = (a: number, b: number) => pos[a].every((p, k) => (exact[k] ? p === pos[b][k] : Math.abs(p - pos[b][k]) <= 1));
  return run.map((a) => {
    let sum = 0;
    let count = 0;
    run.forEach((b, j) => {
      if (!Number.isNaN(scores[j]) && near(a, b)) {
        sum += scores[j];
        count++;
      }
    });
    return count > 0 ? sum / count : NaN;
  });
}
