/**
 * Self-contained HTML reports: one file a person opens in any browser, with
 * no network access needed — the chart is inline SVG, the styles are inline,
 * there is no script. `dsgkit scaling --out r` and `dsgkit tune --report r`
 * write theirs with it (see `scaling-report.ts` and `tune-report.ts`).
 */
import { cpus, totalmem } from 'node:os';
import { availableCores } from '../engine/cores.ts';
import { dsgkitVersion } from '../version.ts';
import { esc } from './line-chart.ts';

/** Where and when a report was made: shown at the top of every report. */
export interface ReportMachine {
  /** Cores the process could use. */
  readonly cores: number;
  readonly cpu: string;
  /** `process.version`, e.g. 'v20.19.0'. */
  readonly node: string;
  readonly dsgkit: string;
  /** `os.platform()`-`os.arch()`, e.g. 'linux-x64'. */
  readonly platform: string;
  /** Physical memory, bytes. */
  readonly memoryBytes: number;
  /** ISO date and time the measurement started. */
  readonly date: string;
  /** Load averages (1, 5, 15 min) when it started, where known. */
  readonly loadavg?: readonly number[];
}

/**
 * This machine, now (or at `date`): what a report records of where it was made.
 *
 * @example
 * const m = thisMachine(); // { cores: 2, cpu: 'AMD EPYC …', node: 'v20.19.0', dsgkit: '0.1.0', … }
 */
export function thisMachine(overrides: Partial<ReportMachine> = {}): ReportMachine {
  return {
    cores: availableCores(),
    cpu: cpus()[0]?.model ?? 'unknown',
    node: process.version,
    dsgkit: dsgkitVersion(),
    platform: `${process.platform}-${process.arch}`,
    memoryBytes: totalmem(),
    date: new Date().toISOString(),
    ...overrides,
  };
}

/** A table: column headings and rows of cells (numbers are right-aligned). */
export interface HtmlTable {
  readonly caption?: string;
  readonly head: readonly string[];
  readonly rows: ReadonlyArray<ReadonlyArray<string | number>>;
  /** Index of a row to mark (bold, tinted), e.g. the winner. */
  readonly highlight?: number;
}

/** One section of a report: a heading, paragraphs, and optionally a chart and a table. */
export interface HtmlSection {
  readonly heading: string;
  readonly paragraphs?: readonly string[];
  /** An SVG document, inlined as it is. */
  readonly svg?: string;
  readonly table?: HtmlTable;
}

/** What {@link htmlReport} renders. */
export interface HtmlReport {
  readonly title: string;
  /** One plain sentence under the title: what was measured, on what. */
  readonly summary: string;
  readonly machine: ReportMachine;
  /** Extra facts for the "about this run" list (data, learner, settings…). */
  readonly facts?: ReadonlyArray<readonly [string, string]>;
  readonly sections: readonly HtmlSection[];
}

/** A number as a table shows it: at most 4 significant digits, thousands separated. */
function cell(v: string | number): string {
  if (typeof v === 'string') return esc(v);
  if (!Number.isFinite(v)) return String(v);
  const rounded = Math.abs(v) >= 1000 ? Math.round(v) : Number(v.toPrecision(4));
  return rounded.toLocaleString('en', { maximumFractionDigits: 6 });
}

function tableHtml(t: HtmlTable): string {
  const out = ['<table>'];
  if (t.caption) out.push(`<caption>${esc(t.caption)}</caption>`);
  out.push(`<thead><tr>${t.head.map((h) => `<th scope="col">${esc(h)}</th>`).join('')}</tr></thead>`, '<tbody>');
  t.rows.forEach((row, i) => {
    const cls = i === t.highlight ? ' class="highlight"' : '';
    out.push(`<tr${cls}>${row.map((v) => `<td${typeof v === 'number' ? ' class="num"' : ''}>${cell(v)}</td>`).join('')}</tr>`);
  });
  out.push('</tbody>', '</table>');
  return out.join('\n');
}

const STYLE = `
body { font-family: system-ui, -apple-system, 'Segoe UI', Helvetica, Arial, sans-serif; margin: 2rem auto; max-width: 62rem; padding: 0 1rem; color: #111; line-height: 1.45; }
h1 { font-size: 1.5rem; margin-bottom: 0.2rem; }
h2 { font-size: 1.15rem; margin-top: 2rem; border-bottom: 1px solid #ddd; padding-bottom: 0.2rem; }
p.summary { color: #333; margin-top: 0.2rem; }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: 0.15rem 1rem; font-size: 0.92rem; }
dl.facts dt { color: #555; }
dl.facts dd { margin: 0; }
figure { margin: 1rem 0; overflow-x: auto; }
figure svg { max-width: 100%; height: auto; }
table { border-collapse: collapse; font-size: 0.9rem; margin: 0.8rem 0; }
caption { text-align: left; color: #555; padding-bottom: 0.3rem; }
th, td { border-bottom: 1px solid #e3e3e3; padding: 0.25rem 0.7rem; text-align: left; }
th { background: #f5f5f5; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
tr.highlight td { font-weight: 600; background: #e8f1fa; }
footer { margin-top: 2.5rem; color: #666; font-size: 0.85rem; }
`;

/**
 * A report as one self-contained HTML document (inline SVG and styles, no
 * scripts, nothing fetched): title, summary, where and when it was made, then
 * each section's text, chart and table.
 *
 * @example
 * const html = htmlReport({ title: 'Scaling', summary: 'qsg-s2auc on 455 rows', machine: thisMachine(),
 *   sections: [{ heading: 'Speedup', svg, table: { head: ['threads', 's'], rows: [[1, 0.24], [2, 0.15]] } }] });
 * await writeFile('r.html', html);
 */
export function htmlReport(report: HtmlReport): string {
  const m = report.machine;
  const facts: Array<readonly [string, string]> = [
    ...(report.facts ?? []),
    ['machine', `${m.cores} core${m.cores === 1 ? '' : 's'} of ${m.cpu}, ${(m.memoryBytes / 2 ** 30).toFixed(1)} GiB, ${m.platform}`],
    ...(m.loadavg ? [['load average', `${m.loadavg.map((x) => x.toFixed(2)).join(', ')} (1, 5, 15 min) when it started`] as const] : []),
    ['Node.js', m.node],
    ['dsgkit', m.dsgkit],
    ['date', m.date],
  ];
  const out = [
    '<!DOCTYPE html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${esc(report.title)}</title>`,
    `<style>${STYLE}</style>`,
    '</head>',
    '<body>',
    `<h1>${esc(report.title)}</h1>`,
    `<p class="summary">${esc(report.summary)}</p>`,
    `<dl class="facts">${facts.map(([k, v]) => `<dt>${esc(k)}</dt><dd>${esc(v)}</dd>`).join('')}</dl>`,
  ];
  for (const s of report.sections) {
    out.push(`<section>`, `<h2>${esc(s.heading)}</h2>`);
    for (const p of s.paragraphs ?? []) out.push(`<p>${esc(p)}</p>`);
    if (s.svg) out.push(`<figure>${s.svg.replace(/^<\?xml[^>]*>\s*/, '')}</figure>`);
    if (s.table) out.push(tableHtml(s.table));
    out.push('</section>');
  }
  out.push(`<footer>Made by dsgkit ${esc(m.dsgkit)} on ${esc(m.date)}. This page is self-contained: it loads nothing from the network.</footer>`, '</body>', '</html>');
  return out.join('\n') + '\n';
}
