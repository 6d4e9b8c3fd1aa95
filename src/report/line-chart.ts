/**
 * A dependency-free SVG line chart for benchmark results and `dsgkit
 * scaling` reports: axes with tick labels, linear or log scales, a legend,
 * distinct colours and marker shapes, and an optional dashed reference line
 * (e.g. "ideal linear speedup").
 *
 * The output is a standalone SVG 1.1 document (white background, system
 * sans-serif font) that browsers, GitHub and `rsvg-convert` render alike.
 */

/** One `[x, y]` point. */
export type Point = readonly [number, number];

/** A named line of points, drawn in the order given (not re-sorted). */
export interface Series {
  name: string;
  points: readonly Point[];
  /** Its colour (CSS colour); default: the palette's next. */
  colour?: string;
  /** Line width in px (default 2): e.g. 3.5 to pick the winner out of many grey lines. */
  strokeWidth?: number;
  /** Leave it out of the legend (e.g. the 2nd… of many lines that share one legend entry). */
  hideInLegend?: boolean;
}

/** Everything {@link lineChartSvg} draws. */
export interface LineChart {
  title: string;
  /** A smaller grey line under the title: where and when it was measured, the times behind the ratios… */
  subtitle?: string;
  xLabel: string;
  yLabel: string;
  series: readonly Series[];
  /** Logarithmic x axis (every x must be > 0). Default false. */
  logX?: boolean;
  /** Logarithmic y axis (every y must be > 0). Default false. */
  logY?: boolean;
  /**
   * A dashed grey line, listed last in the legend (e.g. ideal speedup). Its
   * points count towards the axis ranges, so it is drawn whole.
   */
  referenceLine?: Series;
  /** Force the x range `[min, max]` (data outside is clipped). Default: fitted as for `yDomain`. */
  xDomain?: readonly [number, number];
  /**
   * Force the y range `[min, max]` (data outside is clipped). Default: fitted
   * to the data with a 4% margin, stretched to include 0 when the data lie on
   * one side of it and come within 20% of their extreme (e.g. throughput).
   */
  yDomain?: readonly [number, number];
  /** Whole-number x ticks only (thread counts, sizes). Default false. */
  xIntegers?: boolean;
  /** Picture width in px. Default 760. */
  width?: number;
  /** Picture height in px. Default 460. */
  height?: number;
}

/** Colour-blind-safe (Okabe–Ito, yellow dropped) first, then Tableau 10 for more series. */
export const PALETTE = ['#0072B2', '#D55E00', '#009E73', '#CC79A7', '#E69F00', '#56B4E9', '#000000', '#8C564B', '#7F7F7F', '#BCBD22', '#17BECF'];
/** Marker shapes, cycled over series after the colours. */
export const MARKERS = ['circle', 'square', 'triangle', 'diamond', 'triangleDown'] as const;
/** The charts' font stack. */
export const FONT = "system-ui, -apple-system, 'Segoe UI', Helvetica, Arial, sans-serif";
/** Tick and legend font size, px. */
export const TICK_FONT = 12;
/** Average glyph width of a sans-serif font, in em (for layout). */
export const CHAR_W = 0.58; // average glyph width of a sans-serif font, in em
const REF_COLOUR = '#555555';

/** A numeric axis: data → pixel mapping plus its ticks. */
export interface Axis {
  log: boolean;
  min: number;
  max: number;
  ticks: number[];
  minorTicks: number[];
  format: (v: number) => string;
}

/**
 * Renders a line chart as an SVG string.
 *
 * Throws a RangeError when there is no data point at all, a coordinate is not
 * finite, or a log axis meets a value ≤ 0 (the message names the series and
 * the point). Series with no points still get a legend entry.
 *
 * @example
 * const svg = lineChartSvg({
 *   title: 'Evaluation throughput',
 *   xLabel: 'threads',
 *   yLabel: 'speedup',
 *   series: [{ name: 'dsgkit', points: [[1, 1], [2, 1.9]] }],
 *   referenceLine: { name: 'ideal linear speedup', points: [[1, 1], [2, 2]] },
 * });
 * svg.startsWith('<svg'); // true
 */
export function lineChartSvg(chart: LineChart): string {
  const width = chart.width ?? 760;
  const height = chart.height ?? 460;
  const all: Series[] = [...chart.series, ...(chart.referenceLine ? [chart.referenceLine] : [])];
  for (const s of all) {
    s.points.forEach(([x, y], i) => {
      if (!Number.isFinite(x) || !Number.isFinite(y)) {
        throw new RangeError(`lineChartSvg: series '${s.name}', point ${i}: [${x}, ${y}] is not finite`);
      }
      if (chart.logX && x <= 0) throw new RangeError(`lineChartSvg: series '${s.name}', point ${i}: x = ${x} on a log axis (must be > 0)`);
      if (chart.logY && y <= 0) throw new RangeError(`lineChartSvg: series '${s.name}', point ${i}: y = ${y} on a log axis (must be > 0)`);
    });
  }
  const xs = all.flatMap((s) => s.points.map((p) => p[0]));
  const ys = all.flatMap((s) => s.points.map((p) => p[1]));
  if (xs.length === 0) throw new RangeError(`lineChartSvg: '${chart.title}' has no data points`);

  const xAxis = makeAxis(chart.xDomain ?? extent(xs), chart.logX ?? false, chart.xDomain !== undefined, 'x', chart.xIntegers ?? false);
  const yAxis = makeAxis(chart.yDomain ?? extent(ys), chart.logY ?? false, chart.yDomain !== undefined, 'y');

  // Layout: y tick labels and y label on the left, legend on the right, outside the plot.
  const legendNames = all.filter((s) => !s.hideInLegend).map((s) => legendText(s));
  const legendW = Math.ceil(Math.max(...legendNames.map((n) => n.length)) * TICK_FONT * CHAR_W) + 52;
  const yTickW = Math.max(...yAxis.ticks.map((t) => yAxis.format(t).length)) * TICK_FONT * CHAR_W;
  const left = Math.ceil(yTickW) + 14 + 30;
  const right = legendW + 16;
  const top = chart.subtitle ? 64 : 48;
  const bottom = 58;
  const plotW = width - left - right;
  const plotH = height - top - bottom;
  if (plotW < 120 || plotH < 100) {
    throw new RangeError(`lineChartSvg: ${width}×${height} px leaves no room for the plot (series names too long or picture too small)`);
  }
  const px = (x: number) => left + frac(xAxis, x) * plotW;
  const py = (y: number) => top + (1 - frac(yAxis, y)) * plotH;

  const out: string[] = [];
  out.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" role="img" aria-label="${esc(chart.title)}" font-family="${esc(FONT)}">`,
    `<title>${esc(chart.title)}</title>`,
    `<rect width="${width}" height="${height}" fill="#ffffff"/>`,
    `<defs><clipPath id="plot-area"><rect x="${left}" y="${top}" width="${plotW}" height="${plotH}"/></clipPath></defs>`,
  );

  // Grid and ticks.
  out.push('<g class="grid" stroke-width="1">');
  for (const t of xAxis.minorTicks) out.push(`<line x1="${f(px(t))}" y1="${top}" x2="${f(px(t))}" y2="${top + plotH}" stroke="#f0f0f0"/>`);
  for (const t of yAxis.minorTicks) out.push(`<line x1="${left}" y1="${f(py(t))}" x2="${left + plotW}" y2="${f(py(t))}" stroke="#f0f0f0"/>`);
  for (const t of xAxis.ticks) out.push(`<line x1="${f(px(t))}" y1="${top}" x2="${f(px(t))}" y2="${top + plotH}" stroke="#dddddd"/>`);
  for (const t of yAxis.ticks) out.push(`<line x1="${left}" y1="${f(py(t))}" x2="${left + plotW}" y2="${f(py(t))}" stroke="#dddddd"/>`);
  out.push('</g>');
  out.push(`<rect x="${left}" y="${top}" width="${plotW}" height="${plotH}" fill="none" stroke="#333333" stroke-width="1"/>`);
  out.push(...xTicksSvg(xAxis, px, top + plotH));
  out.push(`<g class="y-ticks" font-size="${TICK_FONT}" fill="#333333" text-anchor="end">`);
  for (const t of yAxis.ticks) {
    out.push(`<line x1="${left - 5}" y1="${f(py(t))}" x2="${left}" y2="${f(py(t))}" stroke="#333333"/>`);
    out.push(`<text x="${left - 8}" y="${f(py(t) + 4)}">${esc(yAxis.format(t))}</text>`);
  }
  out.push('</g>');

  // Title and axis labels.
  out.push(titleSvg(chart.title, width));
  if (chart.subtitle) {
    const size = Math.max(10, Math.min(12, Math.floor((width - 20) / (chart.subtitle.length * CHAR_W))));
    out.push(`<text class="subtitle" x="${f(width / 2)}" y="47" font-size="${size}" text-anchor="middle" fill="#555555">${esc(chart.subtitle)}</text>`);
  }
  out.push(`<text x="${f(left + plotW / 2)}" y="${height - 14}" font-size="13" text-anchor="middle" fill="#111111">${esc(chart.xLabel)}${chart.logX ? ' (log scale)' : ''}</text>`);
  const yLabelX = 16;
  const yLabelY = top + plotH / 2;
  out.push(
    `<text x="${yLabelX}" y="${f(yLabelY)}" font-size="13" text-anchor="middle" fill="#111111" transform="rotate(-90 ${yLabelX} ${f(yLabelY)})">${esc(chart.yLabel)}${chart.logY ? ' (log scale)' : ''}</text>`,
  );

  // Reference line first (underneath), then the series.
  out.push('<g clip-path="url(#plot-area)">');
  if (chart.referenceLine && chart.referenceLine.points.length > 0) {
    out.push(
      `<polyline class="reference" fill="none" stroke="${REF_COLOUR}" stroke-width="1.5" stroke-dasharray="7 5" points="${chart.referenceLine.points.map(([x, y]) => `${f(px(x))},${f(py(y))}`).join(' ')}"/>`,
    );
  }
  chart.series.forEach((s, i) => {
    if (s.points.length === 0) return;
    const colour = s.colour ?? PALETTE[i % PALETTE.length];
    out.push(`<g class="series" data-name="${esc(s.name)}">`);
    out.push(
      `<polyline fill="none" stroke="${esc(colour)}" stroke-width="${s.strokeWidth ?? 2}" stroke-linejoin="round" points="${s.points.map(([x, y]) => `${f(px(x))},${f(py(y))}`).join(' ')}"/>`,
    );
    if (showMarkers(s)) {
      for (const [x, y] of s.points) out.push(marker(MARKERS[i % MARKERS.length], px(x), py(y), colour));
    }
    out.push('</g>');
  });
  out.push('</g>');

  // Legend, outside the plot on the right.
  const lx = left + plotW + 16;
  let ly = top + 6;
  const rowH = Math.max(13, Math.min(20, (height - top - 6) / Math.max(1, legendNames.length))); // many series: pack the legend tighter
  out.push(`<g class="legend" font-size="${TICK_FONT}" fill="#222222">`);
  chart.series.forEach((s, i) => {
    if (s.hideInLegend) return;
    const colour = s.colour ?? PALETTE[i % PALETTE.length];
    out.push(`<line x1="${lx}" y1="${ly}" x2="${lx + 26}" y2="${ly}" stroke="${esc(colour)}" stroke-width="${s.strokeWidth ?? 2}"/>`);
    if (showMarkers(s)) out.push(marker(MARKERS[i % MARKERS.length], lx + 13, ly, colour));
    out.push(`<text x="${lx + 34}" y="${ly + 4}">${esc(legendText(s))}</text>`);
    ly += rowH;
  });
  if (chart.referenceLine) {
    out.push(`<line x1="${lx}" y1="${ly}" x2="${lx + 26}" y2="${ly}" stroke="${REF_COLOUR}" stroke-width="1.5" stroke-dasharray="7 5"/>`);
    out.push(`<text x="${lx + 34}" y="${ly + 4}">${esc(chart.referenceLine.name)}</text>`);
  }
  out.push('</g>');
  out.push('</svg>');
  return out.join('\n') + '\n';
}

/** `[min, max]` of a non-empty list (a loop: spreading 10⁵+ values into Math.min overflows the stack). */
function extent(values: readonly number[]): [number, number] {
  let lo = Infinity;
  let hi = -Infinity;
  for (const v of values) {
    if (v < lo) lo = v;
    if (v > hi) hi = v;
  }
  return [lo, hi];
}

/** Markers are drawn on series of up to 30 points (more would clutter the line). */
function showMarkers(s: Series): boolean {
  return s.points.length > 0 && s.points.length <= 30;
}

/** A series' legend entry: its name, flagged when it has no points. */
function legendText(s: Series): string {
  return s.points.length === 0 ? `${s.name} (no data)` : s.name;
}

/**
 * An x axis's tick marks and labels, below a plot whose bottom edge is at `y`
 * (`px` maps a value to its x in the picture): what every chart draws there.
 *
 * @example
 * out.push(...xTicksSvg(axis, (v) => left + frac(axis, v) * plotW, top + plotH));
 */
export function xTicksSvg(axis: Axis, px: (v: number) => number, y: number): string[] {
  const out = [`<g class="x-ticks" font-size="${TICK_FONT}" fill="#333333" text-anchor="middle">`];
  for (const t of axis.ticks) {
    out.push(`<line x1="${f(px(t))}" y1="${y}" x2="${f(px(t))}" y2="${y + 5}" stroke="#333333"/>`);
    out.push(`<text x="${f(px(t))}" y="${y + 19}">${esc(axis.format(t))}</text>`);
  }
  out.push('</g>');
  return out;
}

/**
 * A chart's bold title, centred on a picture `width` px wide and shrunk (never
 * below 11 px) so a long title stays inside it.
 *
 * @example
 * out.push(titleSvg('speedup by threads', 720));
 */
export function titleSvg(title: string, width: number): string {
  const size = Math.max(11, Math.min(16, Math.floor((width - 20) / (title.length * CHAR_W))));
  return `<text x="${f(width / 2)}" y="28" font-size="${size}" font-weight="bold" text-anchor="middle" fill="#111111">${esc(title)}</text>`;
}

/**
 * Position of `v` along the axis, 0 at min and 1 at max.
 *
 * @example
 * frac(linearAxis(0, 1, true), 0.25); // 0.25
 */
export function frac(axis: Axis, v: number): number {
  if (axis.log) return (Math.log10(v) - Math.log10(axis.min)) / (Math.log10(axis.max) - Math.log10(axis.min));
  return (v - axis.min) / (axis.max - axis.min);
}

/** Builds an axis: a padded or "nice" range and readable ticks. */
function makeAxis([lo, hi]: readonly [number, number], log: boolean, fixed: boolean, which: string, integers = false): Axis {
  if (!(Number.isFinite(lo) && Number.isFinite(hi) && lo <= hi)) throw new RangeError(`lineChartSvg: ${which} range [${lo}, ${hi}] is not a finite interval`);
  if (log && lo <= 0) throw new RangeError(`lineChartSvg: ${which} range starts at ${lo}, not allowed on a log axis`);
  return log ? logAxis(lo, hi, fixed) : linearAxis(lo, hi, fixed, integers);
}

/**
 * A linear axis over `[lo, hi]` with readable ticks; unless `fixed`, padded by 4%
 * (and stretched to 0 when the data come within 20% of it).
 *
 * @example
 * linearAxis(0.5, 1, true).ticks; // [0.5, 0.6, 0.7, 0.8, 0.9, 1]
 */
export function linearAxis(lo: number, hi: number, fixed: boolean, integers = false): Axis {
  if (lo === hi) {
    const pad = lo === 0 ? 1 : Math.abs(lo) * 0.1;
    lo -= pad;
    hi += pad;
  }
  if (!fixed) {
    // Data close to zero on one side: show zero, so bars of throughput read as proportions.
    if (lo > 0 && lo < 0.2 * hi) lo = 0;
    else if (hi < 0 && hi > 0.2 * lo) hi = 0;
    // A 4% margin keeps lines and markers off the frame; ticks need not sit on the ends.
    const pad = (hi - lo) * 0.04;
    lo -= pad;
    hi += pad;
  }
  const step = integers ? Math.max(1, niceStep((hi - lo) / 7)) : niceStep((hi - lo) / 7);
  const ticks: number[] = [];
  for (let k = Math.ceil(lo / step - 1e-9); k * step <= hi + step * 1e-9; k++) ticks.push(clean(k * step));
  const decimals = Math.max(0, -Math.floor(Math.log10(step) + 1e-9));
  const big = Math.max(Math.abs(lo), Math.abs(hi)) >= 1e4;
  return { log: false, min: lo, max: hi, ticks, minorTicks: [], format: (v) => (big ? compact(v) : v.toFixed(decimals)) };
}

/** 1, 2 or 5 times a power of ten, at least `raw`. */
function niceStep(raw: number): number {
  const e = Math.floor(Math.log10(raw));
  const base = 10 ** e;
  for (const m of [1, 2, 5, 10]) if (m * base >= raw * (1 - 1e-9)) return clean(m * base);
  return 10 * base;
}

function logAxis(lo: number, hi: number, fixed: boolean): Axis {
  let a = Math.log10(lo);
  let b = Math.log10(hi);
  if (!fixed) {
    const pad = b - a === 0 ? 0.15 : (b - a) * 0.04;
    a -= pad;
    b += pad;
  }
  const min = 10 ** a;
  const max = 10 ** b;
  const inRange = (v: number) => v >= min * (1 - 1e-12) && v <= max * (1 + 1e-12);
  const candidates = (mantissas: number[]) => {
    const out: number[] = [];
    for (let e = Math.floor(a) - 1; e <= Math.ceil(b); e++) for (const m of mantissas) {
      const v = clean(m * 10 ** e);
      if (inRange(v)) out.push(v);
    }
    return out;
  };
  let ticks = candidates([1]);
  let minorTicks: number[] = [];
  if (ticks.length >= 3) {
    // Whole decades: thin the labels when there are too many, keep minor lines at 2..9.
    const every = Math.ceil(ticks.length / 9);
    if (every > 1) ticks = ticks.filter((t) => (((Math.round(Math.log10(t)) % every) + every) % every) === 0);
    if (b - a <= 12) minorTicks = candidates([2, 3, 4, 5, 6, 7, 8, 9]);
  } else {
    ticks = candidates([1, 2, 5]);
    if (ticks.length < 3) ticks = candidates([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    if (ticks.length < 4) {
      // About a decade or less: evenly stepped ticks (1.5, 2, 2.5, …) read better, placed on the log axis.
      const linear = linearAxis(min, max, true).ticks.filter((t) => t > 0);
      if (linear.length > ticks.length) ticks = linear;
    }
  }
  return { log: true, min, max, ticks, minorTicks, format: formatLogTick };
}

function formatLogTick(v: number): string {
  if (v >= 1e4) return compact(v);
  if (v < 1e-3) return trimExp(v.toExponential());
  return String(clean(v));
}

/** 25000 → "25k", 1500000 → "1.5M", 3e9 → "3G"; smaller values unchanged. */
function compact(v: number): string {
  const a = Math.abs(v);
  if (a >= 1e12) return trimExp(v.toExponential(3));
  if (a >= 1e9) return `${clean(v / 1e9)}G`;
  if (a >= 1e6) return `${clean(v / 1e6)}M`;
  if (a >= 1e3) return `${clean(v / 1e3)}k`;
  return String(clean(v));
}

/** "1.000e-7" → "1e-7", "2.500e+12" → "2.5e12". */
function trimExp(s: string): string {
  return s.replace(/\.?0+e/, 'e').replace('e+', 'e');
}

/** Removes float noise such as 0.30000000000000004. */
function clean(v: number): number {
  return Number(v.toPrecision(12));
}

/**
 * Pixel coordinate with two decimals.
 *
 * @example
 * f(12.3456); // '12.35'
 */
export function f(v: number): string {
  return String(Math.round(v * 100) / 100);
}

/**
 * Escapes text for SVG content and attribute values.
 *
 * @example
 * esc('a < b'); // 'a &lt; b'
 */
export function esc(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}

/**
 * One marker of the given shape centred at (x, y).
 *
 * @example
 * marker('circle', 10, 20, '#0072B2'); // '<circle cx="10" cy="20" r="4" …/>'
 */
export function marker(shape: (typeof MARKERS)[number], x: number, y: number, colour: string): string {
  const r = 4;
  const common = `fill="${colour}" stroke="#ffffff" stroke-width="1"`;
  switch (shape) {
    case 'circle':
      return `<circle cx="${f(x)}" cy="${f(y)}" r="${r}" ${common}/>`;
    case 'square':
      return `<rect x="${f(x - r)}" y="${f(y - r)}" width="${2 * r}" height="${2 * r}" ${common}/>`;
    case 'triangle':
      return `<polygon points="${f(x)},${f(y - r - 1)} ${f(x + r + 1)},${f(y + r)} ${f(x - r - 1)},${f(y + r)}" ${common}/>`;
    case 'triangleDown':
      return `<polygon points="${f(x)},${f(y + r + 1)} ${f(x + r + 1)},${f(y - r)} ${f(x - r - 1)},${f(y - r)}" ${common}/>`;
    case 'diamond':
      return `<polygon points="${f(x)},${f(y - r - 1)} ${f(x + r + 1)},${f(y)} ${f(x)},${f(y + r + 1)} ${f(x - r - 1)},${f(y)}" ${common}/>`;
  }
}
