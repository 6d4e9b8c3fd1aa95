/**
 * The HTML report of `dsgkit scaling --out r` (`r.html`): the speedup chart,
 * the table of timings, where and when it ran, and a plain-language note on
 * what limited the speedup.
 */
import type { ScalingResult } from '../scaling.ts';
import { htmlReport, thisMachine } from './html.ts';
import { thousands } from '../data/numbers.ts';

const x = (v: number) => `${Number(v.toPrecision(3))}×`;
const sec = (ms: number) => `${Number((ms / 1000).toPrecision(3))} s`;

/**
 * What limited the speedup, in words a person without the background reads:
 * how much faster the largest thread count was, against the ideal and against
 * what the machine itself allowed, and what to try when threads did not pay.
 *
 * @example
 * speedupNote(result);
 * // ['With 2 threads training took 0.15 s against 0.24 s with 1: 1.6× faster (the ideal is 2×).', …]
 */
export function speedupNote(result: ScalingResult): string[] {
  const { rows, machine } = result;
  const base = rows[0];
  const last = rows[rows.length - 1];
  if (rows.length < 2) return [`Only one thread count (${base.threads}) was measured, so there is no speedup to report: give --threads two or more counts, e.g. 1,2.`];
  const ideal = last.threads / base.threads;
  const notes = [
    `With ${last.threads} threads training took ${sec(last.wallMs)} against ${sec(base.wallMs)} with ${base.threads}: ${x(last.speedup)} ${last.speedup >= 1 ? 'faster' : 'as fast, that is slower'} (the ideal is ${x(ideal)}).`,
  ];
  if (last.ceiling !== undefined) {
    notes.push(
      `What the machine allows: on a long evaluation of the same kind of kernel, work where the threads never wait for each other, ${last.threads} threads ran ${x(last.ceiling)} faster than ${base.threads}. ` +
        'That is the most the cores, their shared caches and memory, and any other program running at the same time let any run reach here.',
    );
    if (last.ceiling < 0.8 * ideal) {
      notes.push(`The machine itself is a main limit: it allowed ${x(last.ceiling)} of the ideal ${x(ideal)}. Other programs were competing for the cores, or the cores share caches and memory bandwidth; no setting of dsgkit changes that.`);
    }
    notes.push(
      `Training reached ${Math.round((100 * last.speedup) / last.ceiling)}% of what the machine allows. The rest is what training costs on top: every iteration the threads wait for each other, and a few steps run on one thread (drawing the batch, adding the new coefficients).`,
    );
  }
  if (last.speedup < 1.1) {
    notes.push(
      `More threads did not pay here: each iteration's work on ${thousands(result.n)} rows × ${result.d} features is too small to share out, so the threads spend their time waiting rather than computing. ` +
        'Threads pay on larger data, larger batches (--batch-size) or more random features (--random-features); on data this small, one or two threads are the right choice.',
    );
  } else if (last.speedup < 0.7 * ideal) {
    notes.push('Larger data, larger batches (--batch-size) or more random features (--random-features) give each thread more work per wait and bring the speedup closer to the ideal.');
  }
  const load = machine.loadavg[0];
  if (load !== undefined && load > 0.5 * machine.cores) {
    notes.push(`The machine was busy when the run started (load average ${load.toFixed(2)} on ${machine.cores} cores): timings move with the other work, so rerun with --repeats 3 (the fastest of three is kept) or on a quieter machine before drawing conclusions.`);
  }
  notes.push(result.identical ? 'Every thread count produced the same model, byte for byte: the thread count never changes the result, only the time.' : 'The models DIFFER between thread counts; they should be identical (please report this).');
  return notes;
}

/**
 * `dsgkit scaling`'s HTML report: self-contained (inline SVG chart, no network).
 *
 * @example
 * await writeFile('r.html', scalingHtml(result, scalingChart(result), { data: 'train.arrow' }));
 */
export function scalingHtml(result: ScalingResult, svg: string, meta: { readonly data: string }): string {
  const settings = Object.entries(result.hyperparameters)
    .filter(([, v]) => typeof v === 'number' || typeof v === 'string' || typeof v === 'boolean')
    .map(([k, v]) => `${k} = ${typeof v === 'number' ? Number(v.toPrecision(4)) : String(v)}`)
    .join(', ');
  const hasCeiling = result.rows.every((r) => r.ceiling !== undefined);
  const repeats = result.rows[0].runsMs.length;
  return htmlReport({
    title: `How ${result.learner} training scales with threads`,
    summary: `The same model trained on ${thousands(result.n)} rows × ${result.d} features at ${result.rows.map((r) => r.threads).join(', ')} threads${repeats > 1 ? ` (${repeats} runs each, the fastest kept)` : ''}.`,
    machine: thisMachine({ cores: result.machine.cores, cpu: result.machine.cpu, loadavg: result.machine.loadavg, date: result.date }),
    facts: [
      ['data', meta.data],
      ['learner', result.learner],
      ['settings', settings],
      ...(result.evaluation ? [['evaluation', result.evaluation] as const] : []),
      ['model', `${result.identical ? 'identical bytes at every thread count' : 'DIFFERENT bytes between thread counts'} (sha256 ${result.rows[0].sha256.slice(0, 16)}…)`],
    ],
    sections: [
      {
        heading: 'Speedup by threads',
        svg,
        table: {
          caption: 'Wall time is the whole training call (reading excluded). Speedup is against the smallest thread count; efficiency is speedup over the ideal.',
          head: ['threads', 'wall time (s)', ...(repeats > 1 ? ['slowest run (s)'] : []), ...(result.rows[0].iterationsPerSecond !== undefined ? ['iterations per second'] : []), 'speedup', 'efficiency', ...(hasCeiling ? ['machine allows', 'share of what it allows'] : [])],
          rows: result.rows.map((r) => [
            r.threads,
            r.wallMs / 1000,
            ...(repeats > 1 ? [Math.max(...r.runsMs) / 1000] : []),
            ...(r.iterationsPerSecond !== undefined ? [r.iterationsPerSecond] : []),
            r.speedup,
            r.efficiency,
            ...(hasCeiling ? [r.ceiling!, r.speedup / r.ceiling!] : []),
          ]),
        },
      },
      { heading: 'What limits the speedup', paragraphs: speedupNote(result) },
    ],
  });
}
