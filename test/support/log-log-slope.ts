/**
 * Least-squares slope of `log(y)` on `log(x)`: the rate at which an error
 * falls (−½ for Monte Carlo, −1 for the DSG convergence theorems).
 *
 * @example
 * logLogSlope([1, 10, 100], [1, 0.1, 0.01]); // -1
 */
export function logLogSlope(x: readonly number[], y: readonly number[]): number {
  const lx = x.map(Math.log);
  const ly = y.map(Math.log);
  const mx = lx.reduce((a, b) => a + b) / lx.length;
  const my = ly.reduce((a, b) => a + b) / ly.length;
  let num = 0;
  let den = 0;
  for (let i = 0; i < lx.length; i++) {
    num += (lx[i] - mx) * (ly[i] - my);
    den += (lx[i] - mx) ** 2;
  }
  return num / den;
}
