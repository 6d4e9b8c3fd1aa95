/**
 * The unlabeled-term table: per learner and set, the learner at its defaults
 * against its own supervised special case, before and after a change, from
 * the quality benchmark's cells (bench/results/quality-cells.jsonl) of two
 * committed src trees. A learner with no cells of the second tree (its code
 * unchanged, so its models are the same bytes) shows the first tree's cells
 * in both columns, and the table says so.
 *
 *   npx tsx bench/unlabeled-table.ts <src tree before> <src tree after> > bench/results/unlabeled-terms.md
 */
import { QUALITY_CELLS, readCells, type QualityCell as Cell } from './lib/quality.ts';

const [before, after] = process.argv.slice(2);
const cells = readCells(QUALITY_CELLS);
const SPECIAL: Record<string, { label: string; measure: 'accuracy' | 'metric' }> = {
  tsgs3vm: { label: 'C*=0', measure: 'accuracy' },
  gkm: { label: "C'=0", measure: 'accuracy' },
  lapsvm: { label: "C'=0", measure: 'accuracy' },
  'qsg-s2auc': { label: 'γ=1', measure: 'metric' },
  qs3orao: { label: 'γ=1', measure: 'metric' },
};
/** Mean of the measure over the seeds a tree has for (method, set), and the seeds. */
function value(tree: string, method: string, set: string, measure: 'accuracy' | 'metric'): { v: number; seeds: number[] } | undefined {
  const last = new Map<number, Cell>();
  for (const c of cells) if (c.srcTree === tree && c.method === method && c.set === set) last.set(c.seed, c);
  if (last.size === 0) return undefined;
  const vs = [...last.values()].map((c) => c[measure]);
  return { v: vs.reduce((a, b) => a + b, 0) / vs.length, seeds: [...last.keys()].sort() };
}
const f4 = (x: number) => x.toFixed(4);
const d4 = (x: number) => (x >= 0 ? '+' : '−') + Math.abs(x).toFixed(4);
const out: string[] = [];
out.push(`src tree before: ${before}, after: ${after}`, '');
for (const [learner, { label, measure }] of Object.entries(SPECIAL)) {
  const sets = [...new Set(cells.filter((c) => c.method === learner && (c.srcTree === before || c.srcTree === after)).map((c) => c.set))];
  if (sets.length === 0) continue;
  const unchanged = !cells.some((c) => c.srcTree === after && c.method === learner);
  out.push(`### ${learner} (${measure === 'metric' ? 'AUC' : 'accuracy'}) against ${learner} [${label}]`, '');
  if (unchanged) out.push(`No cells of the second tree: ${learner} is unchanged between the trees, and "after" repeats "before".`, '');
  out.push(`| set | seeds | before: defaults | before: [${label}] | before: difference | after: defaults | after: [${label}] | after: difference |`, '| --- | --- | --- | --- | --- | --- | --- | --- |');
  const sums = [0, 0, 0, 0];
  let n = 0;
  for (const set of sets) {
    const b = value(before, learner, set, measure);
    const bs = value(before, `${learner} [${label}]`, set, measure);
    const a = value(unchanged ? before : after, learner, set, measure);
    const as = value(unchanged ? before : after, `${learner} [${label}]`, set, measure);
    if (!b || !bs || !a || !as) continue;
    n++;
    sums[0] += b.v; sums[1] += bs.v; sums[2] += a.v; sums[3] += as.v;
    out.push(`| ${set} | ${a.seeds.join(',')} | ${f4(b.v)} | ${f4(bs.v)} | ${d4(b.v - bs.v)} | ${f4(a.v)} | ${f4(as.v)} | ${d4(a.v - as.v)} |`);
  }
  const m = sums.map((s) => s / n);
  out.push(`| **mean (${n} sets)** | | ${f4(m[0])} | ${f4(m[1])} | ${d4(m[0] - m[1])} | ${f4(m[2])} | ${f4(m[3])} | ${d4(m[2] - m[3])} |`, '');
}
console.log(out.join('\n'));
