/**
 * How `tune`'s choice of the class-share cut (GKM, LapSVM: `minorityShare`
 * among 1, ½, 0 by the sign test on the relabeled rows) holds up beyond the
 * quality benchmark's sets: a simulation over class balance, ranking quality
 * and labeled rows, with the project's own cut and choice code.
 *
 * A model's scores are binormal — negatives N(0, 1), positives N(μ, 1), so its
 * AUC is Φ(μ/√2) — at a positive share π. Each trial draws n_l labeled rows
 * (⌊π·n_l⌉ of them positive, at least 2) and 4,096 unlabeled scores, splits the
 * labeled rows into 3 stratified folds, fits each fold's cuts on the other
 * folds' class shares (`fitTask`, rule `prior`, at each of `MINORITY_SHARES`),
 * counts each fold's validation rows labeled right and relabeled (`shareCounts`, as
 * `tune` does), and chooses
 * with `chooseMinorityShare` (and, for comparison, by the best CV accuracy
 * alone). The chosen cut, fitted on all labeled rows, is scored by its exact
 * accuracy on the population: (1 − π)·Φ(t) + π·(1 − Φ(t − μ)). The model is
 * the same in every fold (a real fold's model also varies), so the folds'
 * disagreement is only the labeled rows' draw.
 *
 * Writes bench/results/cut-share.json and .svg; prints a Markdown table of the
 * accuracy each choice gains over the labeled rows' class shares.
 *
 * @example
 * // npx tsx bench/cut-share.ts              (π 5–50%, AUC 0.6–0.97, n_l 60, 200, 1,000; 400 trials a cell)
 * // npx tsx bench/cut-share.ts --trials 100
 */
import { parseArgs } from 'node:util';
import seedrandom from 'seedrandom';
import { chooseMinorityShare, type ShareCounts } from '../src/coordinator/tune-rules.ts';
import { fitTask, MINORITY_SHARES, type BinaryTask } from '../src/model/task.ts';
import { shareCounts } from '../src/tune.ts';
import { lineChartSvg, markdownTable, writeBenchOutputs } from './lib/index.ts';

const POSITIVE_SHARES = [0.05, 0.12, 0.25, 0.4, 0.5];
const AUCS = [0.6, 0.7, 0.8, 0.9, 0.97];
const LABELED = [60, 200, 1000];
const UNLABELED = 4096;
const FOLDS = 3;
const CLASSES = { kind: 'binary', positive: 1, negative: -1 } as const;

/** Φ, the standard normal CDF (Abramowitz & Stegun 7.1.26, |error| < 1.5·10⁻⁷). */
function normalCdf(x: number): number {
  const z = Math.abs(x) / Math.SQRT2;
  const t = 1 / (1 + 0.3275911 * z);
  const erf = 1 - ((((1.061405429 * t - 1.453152027) * t + 1.421413741) * t - 0.284496736) * t + 0.254829592) * t * Math.exp(-z * z);
  return x >= 0 ? (1 + erf) / 2 : (1 - erf) / 2;
}

/** μ with Φ(μ/√2) = auc (bisection). */
function separation(auc: number): number {
  let lo = 0;
  let hi = 10;
  for (let i = 0; i < 100; i++) {
    const mid = (lo + hi) / 2;
    if (normalCdf(mid / Math.SQRT2) < auc) lo = mid;
    else hi = mid;
  }
  return (lo + hi) / 2;
}

/** A standard normal draw (Box–Muller). */
function gaussian(rng: () => number): number {
  return Math.sqrt(-2 * Math.log(1 - rng())) * Math.cos(2 * Math.PI * rng());
}

interface Cell {
  positiveShare: number;
  auc: number;
  labeled: number;
  /** Mean population accuracy of the cut at the labeled rows' class shares. */
  labeledShares: number;
  /** Mean gain over it of: the sign test (tune's rule), the best CV accuracy alone, the best of the three cuts on the population. */
  signTest: number;
  argmax: number;
  oracle: number;
  /** How often the sign test chose each share. */
  chosen: number[];
}

function runCell(positiveShare: number, auc: number, labeled: number, trials: number): Cell {
  const mu = separation(auc);
  const rng = seedrandom(`cut-share-${positiveShare}-${auc}-${labeled}`);
  const score = (positive: boolean) => gaussian(rng) + (positive ? mu : 0);
  const accuracyAt = (t: number) => (1 - positiveShare) * normalCdf(t) + positiveShare * (1 - normalCdf(t - mu));
  const sums = { labeledShares: 0, signTest: 0, argmax: 0, oracle: 0 };
  const chosen = MINORITY_SHARES.map(() => 0);
  for (let trial = 0; trial < trials; trial++) {
    const positives = Math.max(2, Math.round(positiveShare * labeled));
    const y = Float64Array.from({ length: labeled }, (_, i) => (i < positives ? 1 : -1));
    const f = Float64Array.from(y, (v) => score(v === 1));
    const fU = Float64Array.from({ length: UNLABELED }, () => score(rng() < positiveShare));
    // Stratified folds: the positives, then the negatives, dealt round-robin (rows are exchangeable).
    const fold = Int32Array.from({ length: labeled }, (_, i) => (i < positives ? i : i - positives) % FOLDS);
    const counts: ShareCounts[] = [];
    for (let j = 0; j < FOLDS; j++) {
      const train = [...y.keys()].filter((i) => fold[i] !== j);
      const valid = [...y.keys()].filter((i) => fold[i] === j);
      const fTrain = Float64Array.from(train, (i) => f[i]);
      const yTrain = Float64Array.from(train, (i) => y[i]);
      const fValid = Float64Array.from(valid, (i) => f[i]);
      const yValid = Float64Array.from(valid, (i) => y[i]);
      counts.push(shareCounts(MINORITY_SHARES.map((s) => fitTask(CLASSES, fTrain, yTrain, 'prior', fU, s)), yValid, fValid));
    }
    const rule = chooseMinorityShare(counts, labeled);
    let best = 0;
    for (let s = 1; s < MINORITY_SHARES.length; s++) if (rule.accuracies[s] > rule.accuracies[best]) best = s;
    const population = MINORITY_SHARES.map((s) => accuracyAt((fitTask(CLASSES, f, y, 'prior', fU, s) as BinaryTask).threshold));
    sums.labeledShares += population[0];
    sums.signTest += population[rule.index] - population[0];
    sums.argmax += population[best] - population[0];
    sums.oracle += Math.max(...population) - population[0];
    chosen[rule.index]++;
  }
  return {
    positiveShare, auc, labeled,
    labeledShares: sums.labeledShares / trials, signTest: sums.signTest / trials, argmax: sums.argmax / trials, oracle: sums.oracle / trials,
    chosen: chosen.map((c) => c / trials),
  };
}

function main(): void {
  const { values } = parseArgs({ options: { trials: { type: 'string', default: '400' } } });
  const trials = Number(values.trials);
  if (!Number.isInteger(trials) || trials < 1) throw new Error(`bench/cut-share: --trials must be a whole number ≥ 1, got ${values.trials}`);
  const cells: Cell[] = [];
  for (const labeled of LABELED) for (const positiveShare of POSITIVE_SHARES) for (const auc of AUCS) cells.push(runCell(positiveShare, auc, labeled, trials));
  const worst = cells.reduce((w, c) => (c.signTest < w.signTest ? c : w));
  const worstArgmax = cells.reduce((w, c) => (c.argmax < w.argmax ? c : w));
  const mean = (key: 'signTest' | 'argmax' | 'oracle') => cells.reduce((a, c) => a + c[key], 0) / cells.length;
  const json = {
    method: `binormal scores at positive share π and AUC Φ(μ/√2); per trial n_l labeled rows, ${UNLABELED} unlabeled, ${FOLDS} stratified folds; the cut of each minority share in ${MINORITY_SHARES.join(', ')} fitted by the project's fitTask, the choice by chooseMinorityShare; exact population accuracy of the chosen cut; ${trials} trials a cell`,
    summary: {
      meanGain: { signTest: mean('signTest'), argmax: mean('argmax'), oracle: mean('oracle') },
      worstSignTest: { positiveShare: worst.positiveShare, auc: worst.auc, labeled: worst.labeled, gain: worst.signTest },
      worstArgmax: { positiveShare: worstArgmax.positiveShare, auc: worstArgmax.auc, labeled: worstArgmax.labeled, gain: worstArgmax.argmax },
    },
    cells,
  };
  const svg = lineChartSvg({
    title: `Accuracy gained over the labeled class shares' cut, n_l = 200 (${trials} trials a point)`,
    xLabel: 'AUC of the scores',
    yLabel: 'population accuracy − at the labeled shares',
    series: POSITIVE_SHARES.flatMap((p) => [
      { name: `π = ${p}, sign test (tune)`, points: cells.filter((c) => c.labeled === 200 && c.positiveShare === p).map((c) => [c.auc, c.signTest] as const) },
      { name: `π = ${p}, CV argmax`, points: cells.filter((c) => c.labeled === 200 && c.positiveShare === p).map((c) => [c.auc, c.argmax] as const) },
    ]),
  });
  const paths = writeBenchOutputs('cut-share', json, svg);
  process.stdout.write(
    markdownTable(
      cells.map((c) => ({
        'n_l': c.labeled, 'π': c.positiveShare, AUC: c.auc, 'accuracy at the labeled shares': c.labeledShares,
        'sign test (tune)': c.signTest, 'CV argmax': c.argmax, 'best of the three': c.oracle, 'chose 1 / ½ / 0': c.chosen.map((x) => x.toFixed(2)).join(' / '),
      })),
      { digits: 4 },
    ),
  );
  process.stdout.write(`\nmean gain over ${cells.length} cells: sign test ${mean('signTest').toFixed(4)}, CV argmax ${mean('argmax').toFixed(4)}, best of the three ${mean('oracle').toFixed(4)}\n`);
  process.stdout.write(`worst cell: sign test ${worst.signTest.toFixed(4)} (π ${worst.positiveShare}, AUC ${worst.auc}, n_l ${worst.labeled}); CV argmax ${worstArgmax.argmax.toFixed(4)} (π ${worstArgmax.positiveShare}, AUC ${worstArgmax.auc}, n_l ${worstArgmax.labeled})\n`);
  process.stdout.write(`wrote ${paths.json}${paths.svg ? ` and ${paths.svg}` : ''}\n`);
}

main();
