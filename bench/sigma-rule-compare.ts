/**
 * Defaults before → after a change of the default σ, from the cells of
 * bench/results/quality-cells.jsonl and bench/results/sigma-rule-cells.jsonl
 * made by two src trees: per learner, the
 * mean paired gap to the best peer over the sets both trees ran (seeds both
 * ran), wins / ties / losses (tie: 0.005), the worst set, and per set the
 * learner's measure before → after.
 *
 * With a minimum gain g (a fourth argument), it simulates the rule "keep σ₀
 * unless the best rung's alignment exceeds σ₀'s by the factor 1 + g": per
 * split it takes the after cell where that rule moves and the before cell
 * where it keeps σ₀ (exact: both rules pick the same rungs or σ₀), reading
 * the alignments per rung from bench/results/sigma-rule.json.
 *
 * @example
 * // npx tsx bench/sigma-rule-compare.ts <before src tree> <after src tree> [seeds, default 1,2] [min gain]
 */
import { existsSync, readFileSync } from 'node:fs';
import { learnerSpec } from '../src/api.ts';
import { gapToBestPeer, PEERS, tally, type QualityCell } from './lib/quality.ts';
import { markdownTable } from './lib/index.ts';

const [before, after, seedList = '1,2', minGain] = process.argv.slice(2);
const seeds = seedList.split(',').map(Number);
interface Pick { set: string; protocol: string; seed: number; exponents: number[]; scores: number[]; exponent: number }
const picks = new Map((JSON.parse(readFileSync('bench/results/sigma-rule.json', 'utf8')) as { picks: Pick[] }).picks.map((p) => [`${p.set}|${p.protocol}|${p.seed}`, p]));
/** Whether the simulated rule keeps σ₀ on this split (the after rule moved, but by less than the gain). */
const keeps = (c: QualityCell): boolean => {
  if (minGain === undefined) return false;
  const p = picks.get(`${c.set}|${c.protocol}|${c.seed}`)!;
  return p.scores[p.exponents.indexOf(p.exponent)] < (1 + Number(minGain)) * p.scores[p.exponents.indexOf(0)];
};
// The benchmark's cells, then this study's own (bench/results/sigma-rule-cells.jsonl: the default-σ candidates' cells, kept apart).
const files = ['bench/results/quality-cells.jsonl', 'bench/results/sigma-rule-cells.jsonl'].filter((f) => existsSync(f));
const all = files.flatMap((f) => readFileSync(f, 'utf8').split('\n')).filter(Boolean).map((l) => JSON.parse(l) as QualityCell).filter((c) => c.timedOut === undefined && seeds.includes(c.seed));
const latest = (pred: (c: QualityCell) => boolean) => new Map(all.filter(pred).map((c) => [`${c.set}|${c.protocol}|${c.seed}|${c.method}`, c]));
const peers = [...latest((c) => c.kind === 'peer').values()];
const mine = (tree: string) => [...latest((c) => c.kind === 'dsgkit' && c.srcTree.startsWith(tree) && !c.method.startsWith('tune') && !c.method.includes('[')).values()];
const B = mine(before);
const beforeOf = new Map(B.map((c) => [`${c.set}|${c.protocol}|${c.seed}|${c.method}`, c]));
const A = mine(after).map((c) => (keeps(c) ? beforeOf.get(`${c.set}|${c.protocol}|${c.seed}|${c.method}`) ?? c : c));
const learners = [...new Set(A.map((c) => c.method))];
const summary: Record<string, string | number>[] = [];
const detail: Record<string, string | number>[] = [];
const sgn = (v: number) => `${v >= 0 ? '+' : '−'}${Math.abs(v).toFixed(3)}`;
for (const learner of learners) {
  const measure = learnerSpec(learner).metric === 'accuracy' ? 'accuracy' : 'metric';
  const gaps: { b: { set: string; gap: number }[]; a: { set: string; gap: number }[] } = { b: [], a: [] };
  for (const key of [...new Set(A.filter((c) => c.method === learner).map((c) => `${c.set}|${c.protocol}`))]) {
    const [set, protocol] = key.split('|');
    const on = (list: QualityCell[]) => list.filter((c) => c.set === set && c.protocol === protocol);
    const common = seeds.filter((s) => on(A).some((c) => c.method === learner && c.seed === s) && on(B).some((c) => c.method === learner && c.seed === s));
    if (common.length === 0) continue;
    const pick = (list: QualityCell[]) => [...on(peers), ...on(list).filter((c) => c.method === learner)].filter((c) => common.includes(c.seed));
    const gb = gapToBestPeer(pick(B), learner, measure, PEERS);
    const ga = gapToBestPeer(pick(A), learner, measure, PEERS);
    if (!gb || !ga) continue;
    gaps.b.push({ set, gap: gb.gap });
    gaps.a.push({ set, gap: ga.gap });
    const ratio = on(A).filter((c) => c.method === learner && common.includes(c.seed)).map((c) => c.seconds);
    detail.push({ learner, set, seeds: common.join(','), 'best peer': `${gb.peerMean.toFixed(3)} ${gb.peer}`, before: `${gb.value.toFixed(4)} (${sgn(gb.gap)})`, after: `${ga.value.toFixed(4)} (${sgn(ga.gap)})`, change: sgn(ga.value - gb.value), 's after': ratio.map((s) => s.toFixed(1)).join('/') });
  }
  if (gaps.a.length === 0) continue;
  const tb = tally(gaps.b, 0.005);
  const ta = tally(gaps.a, 0.005);
  summary.push({
    learner, sets: gaps.a.length,
    'mean gap before → after': `${sgn(tb.meanGap)} → ${sgn(ta.meanGap)}`,
    'W/T/L before → after': `${tb.wins}/${tb.ties}/${tb.losses} → ${ta.wins}/${ta.ties}/${ta.losses}`,
    'worst before → after': `${tb.worst.set} ${sgn(tb.worst.gap)} → ${ta.worst.set} ${sgn(ta.worst.gap)}`,
  });
}
console.log(markdownTable(summary));
console.log();
console.log(markdownTable(detail));
