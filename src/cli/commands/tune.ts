/** `dsgkit tune`: cross-validated hyperparameter search with successive halving, then the winner refit and saved. */
import cliProgress from 'cli-progress';
import { CancelledError, UsageError } from '../../errors.ts';
import { LEARNER_NAMES, LEARNERS } from '../../api.ts';
import { parseGrid, tuneModel, type MinorityShareChoice, type TuneProgress, type TuneResult, type TuneRow, type TuneSelection, type TuneGuard } from '../../tune.ts';
import { intOption, parseCommandArgs, requireString } from '../args.ts';
import { checkOutputs } from '../outputs.ts';
import { parseQueueUrl } from '../../distributed/redis-url.ts';
import { dirname } from 'node:path';
import type { CliIO } from '../io.ts';
import { interruptible } from '../interrupt.ts';
import { formatDuration } from '../progress.ts';
import { optionsFor, parseTrainingOptions, TRAINING_OPTION_SPECS, trainingOptionsHelp } from '../train-options.ts';
import { inputFile, stdinDataset } from '../stdin.ts';
import { cliLearnerSpec, learnersOnLine } from '../learner-help.ts';
import type { Command } from './command.ts';
import type { MetricName } from '../../model/task.ts';
import { writeFileAtomic } from '../../data/atomic.ts';
import { lineChartSvg } from '../../report/line-chart.ts';
import { minorityShareText, tuneChartSpec, tuneHtml, type TuneReportMeta } from '../../report/tune-report.ts';
import { thousands } from '../../data/numbers.ts';

/** A learner's `tune` ranking and guard where they are not the defaults (its own metric, each setting by its own score, guard cv), for the search-space list: e.g. " (ranked by auc, grid neighbourhood; guard one-se)"; empty otherwise. */
function rankedBy(l: (typeof LEARNERS)[number]): string {
  const how = [l.tuneMetric, l.tuneSelection && l.tuneSelection !== 'best' ? `grid ${l.tuneSelection}` : undefined].filter((x) => x !== undefined);
  const guard = l.tuneGuard && l.tuneGuard !== 'cv' ? `guard ${l.tuneGuard}` : undefined;
  const parts = [how.length > 0 ? `ranked by ${how.join(', ')}` : undefined, guard].filter((x) => x !== undefined);
  return parts.length > 0 ? ` (${parts.join('; ')})` : '';
}

/**
 * A learner's search space as the help lists it: σ in units of σ₀, and a
 * value that follows the labeled rows (GKM's C) in units of n_l.
 *
 * @example
 * searchSpaceText(learnerSpec('gkm')); // 'sigma ∈ {0.0625σ₀, …}, C ∈ {0.25·n_l, 1·n_l, 4·n_l, 16·n_l, 64·n_l}, Cprime ∈ {0, 1}'
 */
function searchSpaceText(l: (typeof LEARNERS)[number]): string {
  const one = l.searchSpace({ sigma0: 1, fixed: {}, labeledRows: 1 });
  const two = l.searchSpace({ sigma0: 1, fixed: {}, labeledRows: 2 });
  const text = (k: string, x: (typeof one)[string][number], i: number) =>
    k === 'sigma' ? `${String(x)}σ₀` : typeof x === 'number' && two[k]?.[i] === 2 * x && x !== 0 ? `${x}·n_l` : String(x);
  return Object.entries(one).map(([k, v]) => `${k} ∈ {${v.map((x, i) => text(k, x, i)).join(', ')}}`).join(', ');
}

/** The help of `tune`, for every learner or (`--learner X --help`) for the ones given. */
function tuneHelp(learners: typeof LEARNERS = LEARNERS): string {
  return `dsgkit tune — choose a learner's hyperparameters by cross-validation, refit, save

Usage: dsgkit tune --learner <name> --data <train file> --out <best.dsg> [options]

Splits the LABELED rows into k stratified folds and scores every setting of
the learner's search space (its σ grid centred on the median heuristic σ₀ of
the data) by the learner's own metric over the out-of-fold scores of all
folds pooled; a fold's model trains on every row, the fold's own rows with
their labels hidden (transductive: they stay in as unlabeled rows). The best
setting is refit on all training rows. Learners on the stochastic loop are
searched by successive halving over iterations: all settings run a few
iterations, the best 1/η continue FROM WHERE THEY STOPPED for η times as
many, until one is left at T. The model file keeps the CV table (see \`dsgkit describe best.dsg\`).
Results are the same for any --threads. Ctrl-C stops cleanly: nothing is written.

Options:
  --learner <name>     ${LEARNER_NAMES.join(' | ')} (required)
  --data <file>        training data: Arrow, CSV or LIBSVM (required)
  --out <file>         the refit winner's model file (required)
  --folds <k>          folds over the labeled rows (default 3)
  --repeats <r>        draw the k folds r times, each with its own shuffle, and
                       rank by the mean score over the draws: steadier with few
                       labels, r times the cost (default 1)
  --metric <name>      rank candidates by this metric: the learner's own, or
                       auc (binary) or mean-auc (ordinal), which rank a
                       classifier by its scores alone, not by its labels
                       (default: ${[...learners.filter((l) => l.tuneMetric !== undefined).map((l) => `${l.tuneMetric} for ${l.name}`), 'else the learner\'s own'].join(', ')})
  --select <rule>      how candidates are ranked: best (each by its own CV
                       score) or neighbourhood (by the mean score of the
                       setting and its neighbours one grid step away in every
                       searched parameter: a region, not the luckiest single
                       setting; default for ${learners.filter((l) => l.tuneSelection === 'neighbourhood').map((l) => l.name).join(', ') || 'none'}, else best)
  --grid <spec>        values to search, replacing the learner's for the
                       parameters named: 'sigma=0.5,1,2;lambda=0.001,0.01'
  --eta <η>            halving factor (default 3)
  --t0 <t>             iterations of the first round (default T/η^rounds, ≥ 10)
  --guard <rule>       what the pick must do against the defaults: cv (score at
                       least as well in CV) or one-se (beat them by more than
                       one standard error of the fold differences); default
                       one-se for ${learners.filter((l) => l.tuneGuard === 'one-se').map((l) => l.name).join(', ') || 'none'}, else cv
  --full-grid          no halving: every setting runs its full budget on every
                       fold (GKM, LapSVM and FRS3VM are otherwise halved over
                       their budget: cheap early fits on 2 folds, restarted)
  --json               print the result (best, table, rounds, cost) as JSON
  --report <r>         also write <r>.html (a page to open in a browser: the
                       rounds drawn with the winner marked, the CV table, the
                       machine), <r>.svg (the chart) and <r>.chart.json (its data)
  --queue <url>        run every (candidate, fold, iterations) unit as a job for the
                       'dsgkit worker's of this Redis queue (redis://…, rediss:// for TLS);
                       the same table and model bytes (docs/distributed.md); the progress
                       line counts each round's jobs
  --state-dir <dir>    with --queue: a folder every worker sees at the same path, for the
                       units' data and the continuation states over 1 MiB (smaller ones
                       travel in Redis) (default: the folder of --out)
  --refit <where>      with --queue: 'local' (here, the default) or 'queue' (a job for a
                       worker, which then reads the training rows from the state folder)
  -h, --help           show this help
  A learner parameter given (e.g. --iterations, --lambda) is fixed, not searched.

${trainingOptionsHelp(learners)}

${learners.length === 1 ? 'Search space' : 'Learners and their search spaces'} (σ₀ = median heuristic):
${learners.map((l) => `  ${l.name}: ${searchSpaceText(l)}${rankedBy(l)}`).join('\n')}

Example:
  dsgkit tune --learner ${LEARNER_NAMES[0]} --data data/breast_cancer-train.arrow --out best.dsg --report tune-report \\
    --iterations 200
  dsgkit describe best.dsg      # the winner's settings and the CV table
`;
}
const HELP = tuneHelp();

/** A progress display over the tune's work (block evaluations), with an ETA linear in it. */
function tuneDisplay(io: CliIO, quiet: boolean): { update(p: TuneProgress): void; stop(): void } {
  if (quiet) return { update() {}, stop() {} };
  const text = (p: TuneProgress) => {
    const eta = p.done > 0 && p.done < p.total ? formatDuration((p.elapsedMs * (p.total - p.done)) / p.done) : p.done >= p.total ? '0 s' : '…';
    const stage = (p.round < p.rounds ? `round ${p.round + 1}/${p.rounds}` : 'refit') + (p.jobs ? `, jobs ${p.jobs.done}/${p.jobs.total}` : '');
    return { eta, stage };
  };
  if ((io.stderr as { isTTY?: boolean }).isTTY === true) {
    const bar = new cliProgress.SingleBar({
      format: 'tune [{bar}] {percentage}% | {stage} | elapsed {elapsed} | ETA {eta}',
      stream: io.stderr as NodeJS.WritableStream, barsize: 24, fps: 10, hideCursor: null, gracefulExit: false, linewrap: null,
    });
    let started = false;
    let stopped = false;
    return {
      update(p) {
        if (stopped) return;
        const payload = { ...text(p), elapsed: formatDuration(p.elapsedMs) };
        if (!started) bar.start(p.total, p.done, payload);
        else bar.update(p.done, payload);
        started = true;
      },
      stop() {
        if (started && !stopped) bar.stop();
        stopped = true;
      },
    };
  }
  let lastTenth = -1;
  return {
    update(p) {
      const tenth = Math.floor((10 * p.done) / p.total);
      if (tenth <= lastTenth) return;
      lastTenth = tenth;
      const { eta, stage } = text(p);
      io.stderr.write(`tune: ${String(10 * tenth).padStart(3)}% (${stage}), elapsed ${formatDuration(p.elapsedMs)}, ETA ${eta}\n`);
    },
    stop() {},
  };
}

const fmt = (v: unknown) => (typeof v === 'number' ? String(Number(v.toPrecision(4))) : v === undefined ? 'default' : String(v));

/**
 * What the search says of the unlabeled rows and of the defaults, for the
 * summary under the table (and `describe`).
 *
 * @example
 * unlabeledLines(false, true); // ['unlabeled   not used: …', 'defaults    …']
 */
export function unlabeledLines(usesUnlabeled: boolean | undefined, reference: boolean): string[] {
  return [
    ...(usesUnlabeled === false ? ["unlabeled   not used: the chosen setting is the learner's supervised special case (CV judged the unlabeled rows not to help)"] : []),
    ...(reference ? ['defaults    run to T as the reference row: the winner is never below them in CV'] : []),
  ];
}

/**
 * What the search chose for the class-share cut (GKM, LapSVM), for the
 * summary under the table (and `describe`); none when it chose nothing.
 *
 * @example
 * minorityShareLines({ shares: [1, 0.5, 0], accuracies: [0.85, 0.87, 0.88], chosen: 0 });
 * // ['cut         every row the majority class: CV accuracy 0.88 (0.85 with the labeled rows\' class shares, 0.87 with the minority class on 0.5 × its labeled share)']
 */
export function minorityShareLines(choice: MinorityShareChoice | undefined): string[] {
  const text = minorityShareText(choice);
  return text === undefined ? [] : [`cut         ${text}`];
}

/**
 * The CV table as text: one line per candidate, best first (then by the round
 * it reached and what it was ranked by), with the pooled out-of-fold score
 * (and, under selection `neighbourhood`, its grid neighbourhood's mean, which
 * the rounds ranked by instead), mean ± sd of the fold metric, iterations reached and status.
 * (Tables saved before the pooled score existed show their fold mean there.)
 *
 * @example
 * io.stdout.write(formatTuneTable(result));
 */
export function formatTuneTable(r: Pick<TuneResult, 'table' | 'metric' | 'folds'> & { readonly repeats?: number }): string {
  const keys = Object.keys(r.table[0]?.params ?? {});
  const score = (row: TuneRow) => (row as { score?: number }).score ?? row.mean;
  const byNeighbourhood = r.table.some((row) => row.neighbourhood !== undefined);
  const ranked = (row: TuneRow) => (byNeighbourhood ? (row.neighbourhood ?? NaN) : score(row));
  const rows = [...r.table].sort((a, b) => (b.status === 'best' ? 1 : 0) - (a.status === 'best' ? 1 : 0) || (b.t ?? 0) - (a.t ?? 0) || ranked(b) - ranked(a) || a.id - b.id);
  const head = ['#', ...keys, `${r.metric} (out of fold)`, ...(byNeighbourhood ? ['neighbourhood mean'] : []), `${(r.repeats ?? 1) > 1 ? `${r.repeats}×` : ''}${r.folds}-fold mean ± sd`, 'iterations', 'status'];
  const body = rows.map((row) => [
    String(row.id),
    ...keys.map((k) => fmt(row.params[k])),
    score(row).toFixed(4),
    ...(byNeighbourhood ? [(row.neighbourhood ?? NaN).toFixed(4)] : []),
    `${row.mean.toFixed(4)} ± ${row.sd.toFixed(4)}`,
    row.t === undefined ? '—' : String(row.t),
    row.status === 'best' ? 'best (refit)' : row.status,
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i].length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i])).join('  ').trimEnd();
  return [line(head), line(widths.map((w) => '-'.repeat(w))), ...body.map(line)].join('\n') + '\n';
}

/** `--report r` (or r.html): the paths written. */
function tuneReportPaths(stem: string): { html: string; svg: string; chart: string } {
  const s = stem.replace(/\.(html|svg)$/i, '');
  return { html: `${s}.html`, svg: `${s}.svg`, chart: `${s}.chart.json` };
}

/** Writes the tune's report: the HTML page, the chart as SVG and the chart's data as JSON. */
async function writeTuneReport(paths: ReturnType<typeof tuneReportPaths>, result: TuneResult, meta: TuneReportMeta): Promise<void> {
  const chart = tuneChartSpec(result, meta.learner);
  const svg = lineChartSvg(chart);
  await writeFileAtomic(paths.svg, svg);
  await writeFileAtomic(paths.chart, JSON.stringify(chart, null, 2) + '\n');
  await writeFileAtomic(paths.html, tuneHtml(result, svg, meta));
}

export const tuneCommand: Command = {
  name: 'tune',
  summary: 'choose hyperparameters by k-fold CV with successive halving, refit the best, save it',
  help: HELP,
  helpFor: (argv) => tuneHelp(learnersOnLine(argv)),
  async run(argv, io) {
    const { values } = parseCommandArgs(argv, {
      learner: { type: 'string' },
      data: { type: 'string' },
      out: { type: 'string' },
      folds: { type: 'string' },
      repeats: { type: 'string' },
      metric: { type: 'string' },
      select: { type: 'string' },
      grid: { type: 'string' },
      eta: { type: 'string' },
      t0: { type: 'string' },
      'full-grid': { type: 'boolean' },
      guard: { type: 'string' },
      json: { type: 'boolean' },
      report: { type: 'string' },
      queue: { type: 'string' },
      'state-dir': { type: 'string' },
      refit: { type: 'string' },
      ...TRAINING_OPTION_SPECS,
    });
    const spec = cliLearnerSpec(requireString(values, 'learner'), '--learner');
    const out = requireString(values, 'out');
    const report = typeof values.report === 'string' ? tuneReportPaths(values.report) : undefined;
    await checkOutputs({ out, ...(report ? { 'report (.html)': report.html, 'report (.svg)': report.svg, 'report (.chart.json)': report.chart } : {}) }, { data: requireString(values, 'data') });
    const dataPath = await inputFile(requireString(values, 'data'), io, 'data');
    const settings = parseTrainingOptions(values, [spec]);
    if (settings.run.step !== undefined || settings.run.theta !== undefined) throw new UsageError('--step/--theta: tune uses each candidate\'s default step schedule (it depends on λ)');
    if (settings.run.validateEvery !== undefined) throw new UsageError('--validate-every does not apply to tune (the folds are the validation)');
    const grid = typeof values.grid === 'string' ? parseGrid(values.grid, spec) : undefined;
    const folds = intOption(values, 'folds', { min: 2 });
    const repeats = intOption(values, 'repeats', { min: 1 });
    const eta = intOption(values, 'eta', { min: 2 });
    const t0 = intOption(values, 't0', { min: 1 });
    // tune() checks it against the learner (its own metric or the task's ranking metric).
    const metric = values.metric as MetricName | undefined;
    // tune() checks it (one of TUNE_SELECTIONS).
    const select = values.select as TuneSelection | undefined;
    const { positive, cacheBytes, clipQuantile } = settings.run;
    const queue = typeof values.queue === 'string' ? values.queue : undefined;
    if (queue !== undefined) parseQueueUrl(queue); // a bad URL is a usage error before any work
    for (const name of ['state-dir', 'refit'] as const) if (!queue && values[name] !== undefined) throw new UsageError(`--${name} needs --queue`);
    const refit = values.refit as string | undefined;
    if (refit !== undefined && refit !== 'local' && refit !== 'queue') throw new UsageError(`--refit must be 'local' or 'queue', got '${refit}'`);
    const stateDir = typeof values['state-dir'] === 'string' ? values['state-dir'] : dirname(out);

    const display = tuneDisplay(io, settings.quiet || values.json === true && (io.stderr as { isTTY?: boolean }).isTTY !== true);
    const started = performance.now();
    const date = new Date().toISOString();
    let result: TuneResult;
    try {
      result = await interruptible(async ({ signal }) => {
        const r = await tuneModel({
          learner: spec.name,
          data: await stdinDataset(dataPath, settings.labelColumn !== undefined ? { labelColumn: settings.labelColumn } : {}),
          ...(settings.labelColumn !== undefined ? { read: { labelColumn: settings.labelColumn } } : {}),
          ...optionsFor(spec, settings),
          ...(positive !== undefined ? { positive } : {}),
          ...(clipQuantile !== undefined ? { clipQuantile } : {}),
          ...(cacheBytes !== undefined ? { cacheBytes } : {}),
          ...(grid ? { grid } : {}),
          ...(folds !== undefined ? { folds } : {}),
          ...(repeats !== undefined ? { repeats } : {}),
          ...(metric !== undefined ? { metric } : {}),
          ...(select !== undefined ? { select } : {}),
          ...(eta !== undefined ? { eta } : {}),
          ...(t0 !== undefined ? { t0 } : {}),
          ...(values['full-grid'] === true ? { fullGrid: true } : {}),
          // tune() checks it (one of TUNE_GUARDS).
          ...(typeof values.guard === 'string' ? { guard: values.guard as TuneGuard } : {}),
          ...(queue !== undefined ? { queue, stateDir, ...(refit !== undefined ? { refit: refit as 'local' | 'queue' } : {}) } : {}),
          threads: settings.threads,
          signal,
          onProgress: (p) => display.update(p),
          onWarning: (m) => io.stderr.write(`dsgkit: warning: ${m}\n`),
        });
        if (signal.aborted) throw new CancelledError('tuning cancelled before the model was kept');
        return r;
      });
    } finally {
      display.stop();
    }
    await result.model.save(out);
    const wallMs = performance.now() - started;
    if (report) await writeTuneReport(report, result, { learner: spec.name, data: requireString(values, 'data'), model: out, wallMs, date });
    if (values.json === true) {
      const { model: _model, ...rest } = result;
      io.stdout.write(JSON.stringify({ ...rest, model: out, wallMs }, null, 2) + '\n');
      return 0;
    }
    const searched = Object.keys(result.table[0]?.params ?? {});
    io.stdout.write(formatTuneTable(result));
    const { cost } = result;
    io.stdout.write(
      [
        '',
        `best        ${searched.map((k) => `${k} = ${fmt(result.best[k])}`).join(', ')}`,
        `σ₀          ${fmt(result.sigma0)} (median heuristic)${result.sigmaRatio !== undefined ? `; chosen σ = ${fmt(result.sigmaRatio)}σ₀` : ''}`,
        ...(result.select === 'neighbourhood' ? ['selection   neighbourhood: ranked by the mean out-of-fold score of each setting and its grid neighbours'] : []),
        ...unlabeledLines(result.usesUnlabeled, result.table.some((row) => row.status === 'reference')),
        ...minorityShareLines(result.minorityShare),
        `defaults    the search's pick gains ${result.overDefaults.gain >= 0 ? '+' : '−'}${fmt(Math.abs(result.overDefaults.gain))} ± ${fmt(result.overDefaults.se)} (one se) over them in CV${result.guard === 'one-se' ? ' (guard one-se: kept only above one se)' : ''}`,
        ...(cost.fullGrid > 0 ? [`cost        ${thousands(cost.halving)} block evaluations per batch point over ${result.repeats > 1 ? `${result.repeats} × ` : ''}${result.folds} folds, ${(100 * cost.fraction).toFixed(1)}% of a full grid at T (${thousands(cost.fullGrid)}); refit ${thousands(cost.refit)}`] : []),
        `wall time   ${formatDuration(wallMs)}`,
        `model       ${out}`,
        ...(report ? [`report      ${report.html} (open it in a browser), ${report.svg}, ${report.chart}`] : []),
      ].join('\n') + '\n',
    );
    return 0;
  },
};
