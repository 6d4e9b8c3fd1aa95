/** `dsgkit scaling`: train the same model at several thread counts and report how it scales. */
import { UsageError } from '../../errors.ts';
import { LEARNER_NAMES } from '../../api.ts';
import { labeledCount, readDataset } from '../../data/index.ts';
import { writeFileAtomic } from '../../data/atomic.ts';
import { scaling, scalingChartSpec, scalingTable } from '../../scaling.ts';
import { lineChartSvg } from '../../report/line-chart.ts';
import { scalingHtml } from '../../report/scaling-report.ts';
import { intOption, parseCommandArgs, requireString } from '../args.ts';
import { checkOutputs } from '../outputs.ts';
import { describeRun, optionsFor, parseTrainingOptions, TRAINING_OPTION_SPECS, trainingOptionsHelp } from '../train-options.ts';
import { inputFile } from '../stdin.ts';
import { cliLearnerSpec } from '../learner-help.ts';
import type { Command } from './command.ts';
import { formatProfile } from '../profile-report.ts';
import { thousands } from '../../data/numbers.ts';

const HELP = `dsgkit scaling — how training scales across thread counts, on your data

Usage: dsgkit scaling --data <file> --learner <name> --threads <list> [options]

Trains the same model once per thread count (with the same data, settings
and seed), checks that every count produced the same model bytes, and prints
a table: threads, wall time of the whole training call, iterations per
second, speedup over the smallest count, and efficiency (speedup over the
ideal). Beside them, the machine ceiling: the speedup one long evaluation of
the random-feature kernel (the run's d and m, no waiting between threads)
reaches at that count, measured just before the run — what the cores, shared
caches and neighbours allow — and the run's speedup as a share of it. A
training run pays, on top, each iteration's synchronisation and serial steps.
With --out it also writes <report>.html (a page to open in a browser: the
chart, the table, the machine, and a note on what limited the speedup),
<report>.json (every figure, the machine, the settings), <report>.svg
(speedup against threads, with the ideal line and the ceiling) and
<report>.chart.json (the chart's data, to plot it another way). Counts above the machine's cores are measured at the core count.

Options:
  --data <file>         training data: Arrow, CSV or LIBSVM (required)
  --learner <name>      ${LEARNER_NAMES.join(' | ')} (required)
  --threads <list>      comma-separated thread counts, e.g. 1,2,4,8 (required)
  --out <report>        write <report>.html, .json, .svg and .chart.json
  --repeats <k>         runs per thread count, the fastest kept and the slowest
                        shown beside it (default: 1),
                        in rounds that alternate the counts (1, 2, 1, 2, …)
                        so a machine whose speed drifts slows each alike;
                        on a machine shared with other jobs, 3 keeps a run
                        that no other job slowed (on the 2-core development
                        VM, single runs of the same build differ by ±0.15×)
  --profile             learners on the loop: where each count's loop time went
                        (as train --profile shows it), in the table's order
  --no-ceiling          skip the machine-ceiling measurement (a few seconds
                        per count)
  -h, --help            show this help

${trainingOptionsHelp()}

Exit code 1 when the models differ between thread counts.

Example:
  dsgkit scaling --data data/breast_cancer-train.arrow --learner qsg-s2auc --threads 1,2 --out scaling-report
`;

/** `--threads 1,2,4` as counts. */
function threadList(text: string): number[] {
  const counts = text.split(',').map((s) => s.trim());
  const bad = counts.find((s) => !/^[1-9]\d*$/.test(s));
  if (bad !== undefined) throw new UsageError(`--threads: expected comma-separated whole numbers ≥ 1 (e.g. 1,2,4), got '${bad}' in '${text}'`);
  return counts.map(Number);
}

/** `--out report` (or report.html, .json, .svg): the paths written. */
function reportPaths(out: string): { html: string; json: string; svg: string; chart: string } {
  const stem = out.replace(/\.(html|json|svg)$/i, '');
  return { html: `${stem}.html`, json: `${stem}.json`, svg: `${stem}.svg`, chart: `${stem}.chart.json` };
}

export const scalingCommand: Command = {
  name: 'scaling',
  summary: 'train at several thread counts: wall time, speedup, efficiency (and identical models)',
  help: HELP,
  async run(argv, io) {
    const { values } = parseCommandArgs(argv, {
      data: { type: 'string' },
      learner: { type: 'string' },
      out: { type: 'string' },
      repeats: { type: 'string' },
      profile: { type: 'boolean' },
      'no-ceiling': { type: 'boolean' },
      ...TRAINING_OPTION_SPECS,
    });
    const spec = cliLearnerSpec(requireString(values, 'learner'), '--learner');
    const dataGiven = requireString(values, 'data');
    const threads = threadList(requireString(values, 'threads'));
    const repeats = intOption(values, 'repeats', { min: 1 }) ?? 1;
    // --threads is a list here; the shared options parse everything else.
    const settings = parseTrainingOptions({ ...values, threads: undefined }, [spec]);
    const out = typeof values.out === 'string' ? reportPaths(values.out) : undefined;
    if (out) await checkOutputs({ 'out (.html)': out.html, 'out (.json)': out.json, 'out (.svg)': out.svg, 'out (.chart.json)': out.chart }, { data: dataGiven });
    const dataPath = await inputFile(dataGiven, io, 'data');

    const read = settings.labelColumn !== undefined ? { labelColumn: settings.labelColumn } : {};
    const data = await readDataset(dataPath, read);
    io.stderr.write(`${spec.name} on ${dataPath} (${thousands(data.n)} rows × ${data.d}): ${describeRun([spec], settings, undefined, labeledCount(data))}\n`);
    const result = await scaling({
      learner: spec.name,
      data,
      read,
      ...optionsFor(spec, settings),
      threads,
      repeats,
      ...(values.profile === true ? { profile: true } : {}),
      ...(values['no-ceiling'] === true ? { ceiling: false } : {}),
      onWarning: (message) => io.stderr.write(`dsgkit: warning: ${message}\n`),
      onRow: (row) => {
        if (!settings.quiet) io.stderr.write(`  ${row.threads} thread${row.threads === 1 ? '' : 's'}: ${(row.wallMs / 1000).toFixed(2)} s\n`);
      },
    });
    io.stdout.write(scalingTable(result));
    for (const row of result.rows) if (row.profile) io.stdout.write(formatProfile(row.profile));
    io.stdout.write(`models: ${result.identical ? 'identical bytes at every thread count' : 'DIFFERENT bytes between thread counts'} (sha256 ${result.rows[0].sha256.slice(0, 16)}…)${result.evaluation ? `; evaluation ${result.evaluation}` : ''}\n`);
    if (out) {
      const chart = scalingChartSpec(result);
      const svg = lineChartSvg(chart);
      await writeFileAtomic(out.json, JSON.stringify({ data: dataPath, ...result }, null, 2) + '\n');
      await writeFileAtomic(out.svg, svg);
      await writeFileAtomic(out.chart, JSON.stringify(chart, null, 2) + '\n');
      await writeFileAtomic(out.html, scalingHtml(result, svg, { data: dataGiven }));
      io.stdout.write(`wrote ${out.html} (open it in a browser), ${out.json}, ${out.svg} and ${out.chart}\n`);
    }
    if (!result.identical) {
      io.stderr.write(`dsgkit: the model differs between thread counts (${result.rows.map((r) => `${r.threads}: ${r.sha256.slice(0, 12)}`).join(', ')}); it should be the same bits (please report)\n`);
      return 1;
    }
    return 0;
  },
};
