/**
 * A dependency-free SVG dot plot for comparing methods across datasets: one
 * horizontal band per group (dataset), one row per method inside it, a marker
 * at the mean and a horizontal bar over mean ± sd. Colours and markers follow
 * the method (the same method has the same look in every band), with a
 * legend on the right. Shares its look with {@link lineChartSvg}.
 */
import { CHAR_W, esc, f, FONT, frac, linearAxis, marker, MARKERS, PALETTE, TICK_FONT, titleSvg, xTicksSvg } from './svg.ts';

/** One method's result in one group. */
export interface DotRow {
  /** Method name (colour and marker are picked by it, consistently across groups). */
  series: string;
  mean: number;
  /** Half-length of the bar drawn around the mean; omitted or 0 draws no bar. */
  sd?: number;
}

/** One band of rows (e.g. a dataset). */
export interface DotGroup {
  name: string;
  rows: readonly DotRow[];
}

/** Everything {@link dotPlotSvg} draws. */
export interface DotPlot {
  title: string;
  xLabel: string;
  groups: readonly DotGroup[];
  /** Force the x range; default: fitted to mean ± sd with a 4% margin. */
  xDomain?: readonly [number, number];
  /** Picture width in px. Default 860. */
  width?: number;
}

const ROW_H = 16;
const GROUP_GAP = 14;

/**
 * Renders a dot plot as an SVG string (height grows with the number of rows).
 * Throws a RangeError when there are no rows or a mean or sd is not finite
 * (the message names group and series).
 *
 * @example
 * const svg = dotPlotSvg({
 *   title: 'Held-out AUC, mean ± sd over 3 seeds',
 *   xLabel: 'AUC',
 *   groups: [{ name: 'spam', rows: [{ series: 'svc', mean: 0.93, sd: 0.01 }, { series: 'dsgkit', mean: 0.94, sd: 0.005 }] }],
 * });
 */
export function dotPlotSvg(chart: DotPlot): string {
  const width = chart.width ?? 860;
  const series: string[] = [];
  let lo = Infinity;
  let hi = -Infinity;
  for (const g of chart.groups) {
    for (const r of g.rows) {
      const sd = r.sd ?? 0;
      if (!Number.isFinite(r.mean) || !Number.isFinite(sd)) throw new RangeError(`dotPlotSvg: group '${g.name}', series '${r.series}': mean ${r.mean} ± ${sd} is not finite`);
      if (!series.includes(r.series)) series.push(r.series);
      lo = Math.min(lo, r.mean - sd);
      hi = Math.max(hi, r.mean + sd);
    }
  }
  if (series.length === 0) throw new RangeError(`dotPlotSvg: '${chart.title}' has no rows`);
  const axis = chart.xDomain ? linearAxis(chart.xDomain[0], chart.xDomain[1], true) : linearAxis(lo, hi, false);

  const groupW = Math.ceil(Math.max(...chart.groups.map((g) => g.name.length)) * TICK_FONT * CHAR_W) + 16;
  const legendW = Math.ceil(Math.max(...series.map((s) => s.length)) * TICK_FONT * CHAR_W) + 52;
  const left = groupW + 10;
  const right = legendW + 16;
  const top = 48;
  const plotH = chart.groups.reduce((h, g) => h + g.rows.length * ROW_H + GROUP_GAP, GROUP_GAP);
  const height = Math.max(top + plotH + 58, top + series.length * 20 + 20);
  const plotW = width - left - right;
  if (plotW < 160) throw new RangeError(`dotPlotSvg: ${width} px leaves no room for the plot (names too long)`);
  const px = (x: number) => left + frac(axis, x) * plotW;
  const look = (s: string) => {
    const i = series.indexOf(s);
    return { colour: PALETTE[i % PALETTE.length], shape: MARKERS[i % MARKERS.length] };
  };

  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" role="img" aria-label="${esc(chart.title)}" font-family="${esc(FONT)}">`,
    `<title>${esc(chart.title)}</title>`,
    `<rect width="${width}" height="${height}" fill="#ffffff"/>`,
    `<defs><clipPath id="plot-area"><rect x="${left}" y="${top}" width="${plotW}" height="${plotH}"/></clipPath></defs>`,
  ];
  out.push('<g class="grid" stroke-width="1">');
  for (const t of axis.ticks) out.push(`<line x1="${f(px(t))}" y1="${top}" x2="${f(px(t))}" y2="${top + plotH}" stroke="#dddddd"/>`);
  out.push('</g>');
  out.push(...xTicksSvg(axis, px, top + plotH));
  out.push(titleSvg(chart.title, width));
  out.push(`<text x="${f(left + plotW / 2)}" y="${top + plotH + 44}" font-size="13" text-anchor="middle" fill="#111111">${esc(chart.xLabel)}</text>`);

  // Bands: a light background on every other group, its name on the left.
  let y = top + GROUP_GAP;
  const groupLabels: string[] = [];
  const rows: string[] = [];
  chart.groups.forEach((g, gi) => {
    const bandH = g.rows.length * ROW_H;
    if (gi % 2 === 1) out.push(`<rect x="${left}" y="${f(y - GROUP_GAP / 2)}" width="${plotW}" height="${f(bandH + GROUP_GAP)}" fill="#f5f5f5"/>`);
    groupLabels.push(`<text x="${left - 8}" y="${f(y + bandH / 2 + 4)}">${esc(g.name)}</text>`);
    g.rows.forEach((r, ri) => {
      const cy = y + ri * ROW_H + ROW_H / 2;
      const { colour, shape } = look(r.series);
      const sd = r.sd ?? 0;
      rows.push(`<g class="dot" data-group="${esc(g.name)}" data-series="${esc(r.series)}">`);
      if (sd > 0) rows.push(`<line x1="${f(px(r.mean - sd))}" y1="${f(cy)}" x2="${f(px(r.mean + sd))}" y2="${f(cy)}" stroke="${colour}" stroke-width="2"/>`);
      rows.push(marker(shape, px(r.mean), cy, colour), '</g>');
    });
    y += bandH + GROUP_GAP;
  });
  out.push(`<g class="groups" font-size="${TICK_FONT}" font-weight="bold" fill="#222222" text-anchor="end">`, ...groupLabels, '</g>');
  out.push('<g clip-path="url(#plot-area)">', ...rows, '</g>');
  out.push(`<rect x="${left}" y="${top}" width="${plotW}" height="${plotH}" fill="none" stroke="#333333" stroke-width="1"/>`);

  const lx = left + plotW + 16;
  out.push(`<g class="legend" font-size="${TICK_FONT}" fill="#222222">`);
  series.forEach((s, i) => {
    const ly = top + 6 + i * 20;
    const { colour, shape } = look(s);
    out.push(`<line x1="${lx}" y1="${ly}" x2="${lx + 26}" y2="${ly}" stroke="${colour}" stroke-width="2"/>`);
    out.push(marker(shape, lx + 13, ly, colour));
    out.push(`<text x="${lx + 34}" y="${ly + 4}">${esc(s)}</text>`);
  });
  out.push('</g>', '</svg>');
  return out.join('\n') + '\n';
}
