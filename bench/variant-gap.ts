/**
 * A variant's cells (bench/quality.ts `--params 'learner:key=value' --cells
 * FILE`, methods named `tune L {key=value}` or `L {key=value}`) against the
 * quality benchmark's own cells of the same method: per learner, the mean over
 * the sets of the paired gap to the best peer (the benchmark's peer cells, the
 * seeds both ran), the worst set, and each set's gap, benchmark → variant.
 *
 * @example
 * // npx tsx bench/variant-gap.ts bench/results/clip-tune-0.02-cells.jsonl
 * // npx tsx bench/variant-gap.ts my-cells.jsonl --sets spam,pima
 */
import { parseArgs } from 'node:util';
import { mean } from '../src/metrics/index.ts';
import { gapToBestPeer, latestCells, measureOf, PEERS, QUALITY_CELLS, readCells } from './lib/quality.ts';

const { values: opt, positionals } = parseArgs({ allowPositionals: true, options: { sets: { type: 'string' } } });
if (positionals.length !== 1) throw new Error('usage: npx tsx bench/variant-gap.ts CELLS.jsonl [--sets a,b]');
const official = latestCells(readCells(QUALITY_CELLS));
const variant = latestCells(readCells(positionals[0]));
const sets = opt.sets?.split(',') ?? [...new Set(variant.map((c) => c.set))];
for (const name of [...new Set(variant.map((c) => c.method))]) {
  const method = name.split(' {')[0];
  const measure = measureOf(method.replace(/^tune /, '').split(' ')[0]);
  const gaps = sets.flatMap((set) => {
    const mine = variant.filter((c) => c.set === set && c.method === name).map((c) => ({ ...c, method: 'variant' }));
    if (mine.length === 0) return [];
    const seeds = new Set(mine.map((c) => c.seed));
    const theirs = official.filter((c) => c.set === set && c.protocol === mine[0].protocol && seeds.has(c.seed));
    const before = gapToBestPeer(theirs, method, measure, PEERS);
    const after = gapToBestPeer([...theirs, ...mine], 'variant', measure, PEERS);
    return before && after ? [{ set, before: before.gap, after: after.gap }] : [];
  });
  if (gaps.length === 0) continue;
  const worst = (k: 'before' | 'after') => gaps.reduce((a, b) => (b[k] < a[k] ? b : a));
  const f = (v: number) => `${v >= 0 ? '+' : '−'}${Math.abs(v).toFixed(4)}`;
  console.log(
    `${name}: ${gaps.length} sets, mean gap ${f(mean(gaps.map((g) => g.before)))} → ${f(mean(gaps.map((g) => g.after)))}, ` +
      `worst ${worst('before').set} ${f(worst('before').before)} → ${worst('after').set} ${f(worst('after').after)}\n  ` +
      gaps.map((g) => `${g.set} ${f(g.before)} → ${f(g.after)}`).join('; '),
  );
}
