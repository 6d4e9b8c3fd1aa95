/**
 * "Did you mean …?" for a mistyped command, option or name: the known words
 * closest to what was typed, by edit distance (insertions, deletions,
 * substitutions and swaps of neighbouring letters each count 1).
 */

/**
 * Optimal-string-alignment distance between `a` and `b`.
 *
 * @example
 * editDistance('trian', 'train'); // 1 (a swap)
 */
export function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...new Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0][j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.length][b.length];
}

/**
 * The known words nearest to `typed` (at most a third of its length away, at
 * least 1, at most 3 edits; a known word that starts with it counts too), best first.
 *
 * @example
 * nearest('iteratons', ['iterations', 'out', 'data']); // ['iterations']
 * nearest('xyz', ['train', 'tune']);                    // []
 */
export function nearest(typed: string, known: readonly string[]): string[] {
  const t = typed.toLowerCase();
  const limit = Math.min(3, Math.max(1, Math.floor(t.length / 3)));
  return known
    .map((k) => ({ k, d: k.toLowerCase().startsWith(t) && t.length >= 2 ? 0.5 : editDistance(t, k.toLowerCase()) }))
    .filter((e) => e.d <= limit)
    .sort((x, y) => x.d - y.d || x.k.localeCompare(y.k))
    .slice(0, 3)
    .map((e) => e.k);
}

/**
 * ` (did you mean 'a' or 'b'?)`, or '' when nothing is near.
 *
 * @example
 * `unknown command 'trian'${didYouMean('trian', ['train', 'tune'])}`; // "unknown command 'trian' (did you mean 'train'?)"
 */
export function didYouMean(typed: string, known: readonly string[], prefix = ''): string {
  const near = nearest(typed, known);
  if (near.length === 0) return '';
  const quoted = near.map((w) => `'${prefix}${w}'`);
  return ` (did you mean ${quoted.length === 1 ? quoted[0] : `${quoted.slice(0, -1).join(', ')} or ${quoted.at(-1)}`}?)`;
}
