/**
 * The report of `dsgkit tune --report r`: `r.html` (the halving rounds drawn
 * with the winner marked, the rounds and the CV table, where and when it
 * ran), `r.svg` (the chart alone) and `r.chart.json` (the chart's data).
 * Everything comes from `tune`'s result object.
 */
import type { MinorityShareChoice, TuneResult, TuneRow } from '../tune.ts';
import { htmlReport, thisMachine, type HtmlTable } from './html.ts';
import type { LineChart, Series } from './line-chart.ts';

/** The winner's colour; every other candidate is drawn thin and grey. */
const WINNER = '#0072B2';
const OTHERS = '#a8a8a8';

const num = (v: unknown) => (typeof v === 'number' ? String(Number(v.toPrecision(4))) : String(v));

/** A candidate's searched settings as one label, e.g. 'sigma=1.06 lambda=0.01'. */
export function candidateLabel(row: Pick<TuneRow, 'params'>): string {
  return Object.entries(row.params).map(([k, v]) => `${k}=${num(v)}`).join(' ');
}

/** The result's CV table, best first, then by the iterations reached and the score ranked by (as `dsgkit tune` prints it). */
export function rankedRows(result: Pick<TuneResult, 'table'>): TuneRow[] {
  const ranked = (row: TuneRow) => row.neighbourhood ?? row.score;
  return [...result.table].sort((a, b) => (b.status === 'best' ? 1 : 0) - (a.status === 'best' ? 1 : 0) || (b.t ?? 0) - (a.t ?? 0) || ranked(b) - ranked(a) || a.id - b.id);
}

/** Whether the search ran successive-halving rounds over iterations (loop learners) rather than one round of fits. */
function halving(result: Pick<TuneResult, 'rounds'>): boolean {
  return result.rounds.length > 1 && result.rounds.every((r) => Number.isFinite(r.t) && r.t > 0);
}

/**
 * The chart of a tune as data. With successive halving: every candidate's
 * pooled out-of-fold score against the iterations it had reached, round by
 * round (log x), the winner a thick coloured line and every other candidate
 * thin and grey. With one round (learners fitted directly): the candidates'
 * scores from best to worst, the winner marked.
 *
 * @example
 * const spec = tuneChartSpec(result, 'qsg-s2auc'); // { title, xLabel, yLabel, series: [winner, others…] }
 */
export function tuneChartSpec(result: Pick<TuneResult, 'table' | 'rounds' | 'metric' | 'folds'> & { readonly cost?: Pick<TuneResult['cost'], 'fullGrid'> }, learner: string): LineChart {
  const winner = result.table.find((r) => r.status === 'best');
  const yLabel = `${result.metric}, out-of-fold (${result.folds} folds pooled)`;
  if (halving(result)) {
    const path = (id: number): Series['points'] =>
      result.rounds.filter((round) => round.candidates.includes(id)).map((round) => [round.t, round.scores[round.candidates.indexOf(id)]] as const);
    const others = result.table.filter((r) => r !== winner);
    return {
      title: `tune ${learner}: each setting's score as the rounds give the best more iterations`,
      // Learners halved over their budget (no block evaluations counted): t is the share t/T of the budget, restarted each round.
      xLabel: result.cost?.fullGrid === 0 ? 'budget reached (t of T parts)' : 'iterations reached',
      yLabel,
      logX: true,
      width: 900,
      // The winner last, so that it is drawn over the grey lines.
      series: [
        ...others.map((r, i) => ({ name: i === 0 ? `the other ${others.length} settings` : candidateLabel(r), points: path(r.id), colour: OTHERS, strokeWidth: 1, hideInLegend: i > 0 })),
        ...(winner ? [{ name: `winner: ${candidateLabel(winner)}`, points: path(winner.id), colour: WINNER, strokeWidth: 3.5 }] : []),
      ],
    };
  }
  const ranked = [...result.table].sort((a, b) => b.score - a.score || a.id - b.id);
  const at = winner ? ranked.indexOf(winner) + 1 : 0;
  return {
    title: `tune ${learner}: every setting's score, best first`,
    xLabel: 'setting, ranked by its score',
    yLabel,
    xIntegers: true,
    width: 900,
    series: [
      { name: 'all settings', points: ranked.map((r, i) => [i + 1, r.score] as const), colour: OTHERS, strokeWidth: 1 },
      ...(winner ? [{ name: `winner: ${candidateLabel(winner)}`, points: [[at, winner.score] as const], colour: WINNER }] : []),
    ],
  };
}

/** The halving rounds as a table: iterations, settings run, the best score and who led. */
function roundsTable(result: Pick<TuneResult, 'rounds' | 'table'>): HtmlTable {
  const rows = result.rounds.map((round) => {
    let best = 0;
    round.scores.forEach((s, i) => {
      if (s > round.scores[best]) best = i;
    });
    return [round.round, round.t, round.candidates.length, round.scores[best], candidateLabel(result.table.find((r) => r.id === round.candidates[best]) ?? { params: {} })];
  });
  return { caption: 'Each round runs the settings still in; the best 1/η of them (η = 3 unless --eta says otherwise) go on to η times the iterations, continuing from where they stopped.', head: ['round', 'iterations', 'settings run', 'best score', 'best setting'], rows };
}

/** What {@link tuneHtml} needs besides the result. */
export interface TuneReportMeta {
  readonly learner: string;
  readonly data: string;
  /** The model file the winner was saved to. */
  readonly model: string;
  readonly wallMs: number;
  /** When the tune started (ISO). */
  readonly date: string;
}

const shareNumber = (v: number) => String(Number(v.toPrecision(4)));

/**
 * The class-share cut `tune` chose (GKM, LapSVM) in words, with the winner's
 * CV accuracy at each cut tried; undefined when it chose nothing (or the
 * record cannot be read). What `tune` prints, `describe` shows and the report says.
 *
 * @example
 * minorityShareText({ shares: [1, 0.5, 0], accuracies: [0.85, 0.87, 0.88], chosen: 0 });
 * // "every row the majority class: CV accuracy 0.88 (0.85 with the labeled rows' class shares, 0.87 with the minority class on 0.5 × its labeled share)"
 */
export function minorityShareText(choice: MinorityShareChoice | undefined): string | undefined {
  if (!choice || !Array.isArray(choice.shares) || !Array.isArray(choice.accuracies)) return undefined;
  const name = (s: number) => (s === 1 ? "the labeled rows' class shares" : s === 0 ? 'every row the majority class' : `the minority class on ${shareNumber(s)} × its labeled share`);
  const at = choice.shares.indexOf(choice.chosen);
  const others = choice.shares.map((s, i) => [s, choice.accuracies[i]] as const).filter(([s]) => s !== choice.chosen);
  return `${name(choice.chosen)}: CV accuracy ${shareNumber(choice.accuracies[at])} (${others.map(([s, a]) => `${shareNumber(a)} with ${name(s)}`).join(', ')})`;
}

/**
 * `dsgkit tune`'s HTML report: self-contained (inline SVG chart, no network).
 *
 * @example
 * const spec = tuneChartSpec(result, 'qsg-s2auc');
 * await writeFile('r.html', tuneHtml(result, lineChartSvg(spec), { learner: 'qsg-s2auc', data: 'train.arrow', model: 'best.dsg', wallMs, date }));
 */
export function tuneHtml(result: Omit<TuneResult, 'model'>, svg: string, meta: TuneReportMeta): string {
  const winner = result.table.find((r) => r.status === 'best');
  const keys = Object.keys(result.table[0]?.params ?? {});
  const byNeighbourhood = result.table.some((r) => r.neighbourhood !== undefined);
  const rows = rankedRows(result);
  const cv: HtmlTable = {
    caption: `Every setting tried, the winner first (marked). Score: ${result.metric} over the out-of-fold scores of all folds pooled${byNeighbourhood ? '; the rounds ranked by the neighbourhood mean (the setting and its grid neighbours)' : ''}.`,
    head: ['#', ...keys, `${result.metric} (out of fold)`, ...(byNeighbourhood ? ['neighbourhood mean'] : []), 'fold mean', 'fold sd', 'iterations', 'status'],
    rows: rows.map((r) => [
      r.id,
      ...keys.map((k) => (typeof r.params[k] === 'number' ? (r.params[k] as number) : String(r.params[k]))),
      r.score,
      ...(byNeighbourhood ? [r.neighbourhood ?? NaN] : []),
      r.mean,
      r.sd,
      r.t ?? '—',
      r.status === 'best' ? 'winner (refit on all rows)' : r.status,
    ]),
    highlight: 0,
  };
  const { cost } = result;
  const paragraphs = [
    winner
      ? `The winner is ${candidateLabel(winner)}, with ${result.metric} ${winner.score.toFixed(4)} over the labeled rows' out-of-fold scores. It was refit on all training rows and saved to ${meta.model}.`
      : `No winner was recorded.`,
    `Each labeled row was scored by a model that did not see its label (${result.folds}-fold cross-validation${result.repeats > 1 ? `, the folds drawn ${result.repeats} times` : ''}; the held-out rows stay in as unlabeled rows).` +
      (halving(result) && cost.fullGrid > 0 ? ` Successive halving spent ${(100 * cost.fraction).toFixed(1)}% of what running every setting to the end would have cost.` : ''),
    ...(result.minorityShare ? [`The model labels a row by where its score falls against a cut; the one kept labels ${minorityShareText(result.minorityShare)}.`] : []),
  ];
  return htmlReport({
    title: `Tuning ${meta.learner}`,
    summary: `${result.table.length} settings of ${meta.learner} compared by cross-validation on ${meta.data}; the winner is marked.`,
    machine: thisMachine({ date: meta.date }),
    facts: [
      ['data', meta.data],
      ['learner', meta.learner],
      ['ranked by', `${result.metric}${result.select === 'neighbourhood' ? ', grid neighbourhood mean' : ''}`],
      ['median heuristic σ₀', num(result.sigma0)],
      ['wall time', `${(meta.wallMs / 1000).toFixed(1)} s`],
      ['model', meta.model],
    ],
    sections: [
      { heading: 'Result', paragraphs, svg },
      ...(halving(result) ? [{ heading: 'Halving rounds', table: roundsTable(result) }] : []),
      { heading: 'Cross-validation table', table: cv },
    ],
  });
}
