/**
 * Candidate defaults against today's, from quality cells: for every learner
 * row of the cells files given (today's defaults `dsg`, a candidate
 * `dsg {loss=square,lambda=0.001}` made by `bench/quality.ts --params`), the
 * mean gap to the best peer over the sets and seeds every row of that
 * learner ran, wins / ties / losses (tie: 0.005), the worst set, and per set
 * the value of each row. Peers come from the same files.
 *
 * @example
 * // npx tsx bench/quality.ts --no-tune --no-special --no-peers --seeds 1,2 --learners dsg --params 'dsg:loss=square' --cells /tmp/study.jsonl
 * // npx tsx bench/defaults-study.ts --learner dsg bench/results/quality-cells.jsonl /tmp/study.jsonl
 */
import { existsSync, readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { learnerSpec } from '../src/api.ts';
import { mean } from '../src/metrics/index.ts';
import { gapToBestPeer, latestCells, PEERS, tally, type QualityCell } from './lib/quality.ts';
import { markdownTable } from './lib/index.ts';

const { values: opt, positionals: files } = parseArgs({
  allowPositionals: true,
  options: { learner: { type: 'string' }, seeds: { type: 'string', default: '1,2' }, tree: { type: 'string' }, mode: { type: 'string', default: 'default' } },
});
if (!opt.learner || files.length === 0) throw new Error('usage: defaults-study.ts --learner NAME [--seeds 1,2] [--tree SRC_TREE_PREFIX] [--mode default|tune] cells.jsonl …');
const learner = opt.learner;
const seeds = opt.seeds!.split(',').map(Number);
const measure = learnerSpec(learner).metric === 'accuracy' ? 'accuracy' : 'metric';
const prefix = opt.mode === 'tune' ? `tune ${learner}` : learner;
const all = latestCells(
  files
    .filter((f) => existsSync(f))
    .flatMap((f) => readFileSync(f, 'utf8').split('\n'))
    .filter(Boolean)
    .map((l) => JSON.parse(l) as QualityCell)
    .filter((c) => c.timedOut === undefined && seeds.includes(c.seed))
    // Today's rows of one src tree when asked (candidates are named apart, so any tree).
    .filter((c) => c.kind === 'peer' || opt.tree === undefined || c.method.includes('{') || c.srcTree.startsWith(opt.tree)),
);
const isRow = (m: string) => (m === prefix || m.startsWith(`${prefix} {`)) && !m.includes('[');
const rows = [...new Set(all.filter((c) => c.kind === 'dsgkit' && isRow(c.method)).map((c) => c.method))].sort();
const bySet = new Map<string, QualityCell[]>();
for (const c of all) bySet.set(`${c.set}|${c.protocol}`, [...(bySet.get(`${c.set}|${c.protocol}`) ?? []), c]);
// Only the (set, seed) pairs every row ran, so each row is judged on the same splits.
const common = new Map<string, QualityCell[]>();
for (const [key, list] of bySet) {
  const seedsOf = (m: string) => new Set(list.filter((c) => c.method === m).map((c) => c.seed));
  const shared = seeds.filter((s) => rows.every((r) => seedsOf(r).has(s)));
  if (shared.length > 0) common.set(key, list.filter((c) => shared.includes(c.seed)));
}
const perSet: Record<string, string>[] = [];
const summary: Record<string, unknown>[] = [];
for (const row of rows) {
  const gaps: { set: string; gap: number }[] = [];
  for (const [key, list] of common) {
    const g = gapToBestPeer(list, row, measure, PEERS);
    if (g) gaps.push({ set: key.split('|')[0], gap: g.gap });
  }
  if (gaps.length === 0) continue;
  const t = tally(gaps, 0.005);
  summary.push({ row, sets: gaps.length, wins: t.wins, ties: t.ties, losses: t.losses, 'mean gap': t.meanGap.toFixed(4), worst: `${t.worst.set} ${t.worst.gap.toFixed(3)}` });
}
for (const [key, list] of common) {
  const line: Record<string, string> = { set: key };
  for (const row of rows) {
    const v = list.filter((c) => c.method === row).map((c) => c[measure]);
    line[row] = v.length ? mean(v).toFixed(4) : '—';
  }
  perSet.push(line);
}
console.log(markdownTable(summary));
console.log();
console.log(markdownTable(perSet));
