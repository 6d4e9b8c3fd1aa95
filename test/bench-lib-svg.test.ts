import { describe, expect, it } from 'vitest';
import { lineChartSvg, type LineChart } from '../bench/lib/index.ts';
import { checkWellFormed } from './support/svg-well-formed.ts';

/** Text contents of <text> elements inside the group with the given class. */
function groupTexts(svg: string, cls: string): string[] {
  const g = svg.match(new RegExp(`<g class="${cls}"[^>]*>([\\s\\S]*?)</g>`));
  if (!g) throw new Error(`no group ${cls}`);
  return [...g[1].matchAll(/<text[^>]*>([^<]*)<\/text>/g)].map((m) => m[1]);
}

/** x (or y) coordinates of the tick labels of a group. */
function groupTextPositions(svg: string, cls: string, attr: 'x' | 'y'): number[] {
  const g = svg.match(new RegExp(`<g class="${cls}"[^>]*>([\\s\\S]*?)</g>`))!;
  return [...g[1].matchAll(new RegExp(`<text ${attr === 'x' ? 'x="([^"]+)"' : 'x="[^"]+" y="([^"]+)"'}`, 'g'))].map((m) => Number(m[1]));
}

function polylinePoints(svg: string): Array<Array<[number, number]>> {
  return [...svg.matchAll(/<polyline[^>]*points="([^"]*)"/g)].map((m) => m[1].split(' ').map((p) => p.split(',').map(Number) as [number, number]));
}

const speedup: LineChart = {
  title: 'Speedup',
  xLabel: 'threads',
  yLabel: 'speedup',
  series: [
    { name: 'dsgkit', points: [[1, 1], [2, 1.9], [4, 3.5], [8, 6.2]] },
    { name: 'serial', points: [[1, 1], [2, 1], [4, 1], [8, 1]] },
  ],
  referenceLine: { name: 'ideal linear speedup', points: [[1, 1], [8, 8]] },
};

describe('lineChartSvg: structure', () => {
  it('is one well-formed <svg> document with title, labels, legend and series', () => {
    const svg = lineChartSvg(speedup);
    const elements = checkWellFormed(svg);
    expect(elements[0]).toBe('svg');
    expect(elements.filter((e) => e === 'svg')).toHaveLength(1);
    expect(svg.trimEnd().endsWith('</svg>')).toBe(true);
    expect(svg).toContain('xmlns="http://www.w3.org/2000/svg"');
    expect(groupTexts(svg, 'legend')).toEqual(['dsgkit', 'serial', 'ideal linear speedup']);
    for (const label of ['Speedup', 'threads', 'speedup']) expect(svg).toContain(`>${label}</text>`);
    // two series lines + one reference polyline
    expect(polylinePoints(svg)).toHaveLength(3);
  });

  it('draws the reference line dashed, and only when asked', () => {
    const withRef = lineChartSvg(speedup);
    expect(withRef).toMatch(/<polyline class="reference"[^>]*stroke-dasharray/);
    const { referenceLine: _, ...noRef } = speedup;
    const without = lineChartSvg(noRef);
    expect(without).not.toContain('stroke-dasharray');
    expect(groupTexts(without, 'legend')).toEqual(['dsgkit', 'serial']);
  });

  it('gives every series its own colour', () => {
    const series = Array.from({ length: 10 }, (_, s) => ({ name: `s${s}`, points: [[0, s], [1, s + 1]] as [number, number][] }));
    const svg = lineChartSvg({ title: 't', xLabel: 'x', yLabel: 'y', series });
    const strokes = [...svg.matchAll(/<g class="series"[^>]*>\n<polyline[^>]*stroke="([^"]+)"/g)].map((m) => m[1]);
    expect(strokes).toHaveLength(10);
    expect(new Set(strokes).size).toBe(10);
  });

  it('escapes markup in names and titles', () => {
    const svg = lineChartSvg({ title: 'a < b & "c"', xLabel: "x's", yLabel: 'y', series: [{ name: '<script>', points: [[0, 0], [1, 1]] }] });
    checkWellFormed(svg);
    expect(svg).not.toContain('<script>');
    expect(svg).toContain('&lt;script&gt;');
    expect(svg).toContain('a &lt; b &amp; &quot;c&quot;');
  });

  it('keeps every point inside the plot frame and off its edges, larger y higher up', () => {
    const svg = lineChartSvg(speedup);
    const frame = svg.match(/<rect x="([\d.]+)" y="([\d.]+)" width="([\d.]+)" height="([\d.]+)" fill="none"/)!.slice(1).map(Number);
    const [fx, fy, fw, fh] = frame;
    const lines = polylinePoints(svg);
    for (const line of lines) {
      for (const [x, y] of line) {
        // a margin of at least 2% keeps lines and markers from merging with the frame
        expect(x).toBeGreaterThan(fx + 0.02 * fw);
        expect(x).toBeLessThan(fx + 0.98 * fw);
        expect(y).toBeGreaterThan(fy + 0.02 * fh);
        expect(y).toBeLessThan(fy + 0.98 * fh);
      }
    }
    // reference line is drawn first; dsgkit's y rises 1 → 6.2, so pixel y falls
    const dsg = lines[1].map((p) => p[1]);
    for (let i = 1; i < dsg.length; i++) expect(dsg[i]).toBeLessThan(dsg[i - 1]);
  });

  it('flags an empty series in the legend and draws nothing for it', () => {
    const svg = lineChartSvg({ title: 't', xLabel: 'x', yLabel: 'y', series: [{ name: 'a', points: [[0, 1], [1, 2]] }, { name: 'b', points: [] }] });
    expect(groupTexts(svg, 'legend')).toEqual(['a', 'b (no data)']);
    expect(polylinePoints(svg)).toHaveLength(1);
  });
});

describe('lineChartSvg: ticks', () => {
  it('labels a linear axis with round steps covering the data', () => {
    const svg = lineChartSvg({ title: 't', xLabel: 'x', yLabel: 'AUC', series: [{ name: 'a', points: [[0, 0], [10, 1]] }] });
    expect(groupTexts(svg, 'y-ticks')).toEqual(['0.0', '0.2', '0.4', '0.6', '0.8', '1.0']);
    expect(groupTexts(svg, 'x-ticks')).toEqual(['0', '2', '4', '6', '8', '10']);
    // evenly spaced
    const xs = groupTextPositions(svg, 'x-ticks', 'x');
    const gaps = xs.slice(1).map((x, i) => x - xs[i]);
    for (const g of gaps) expect(g).toBeCloseTo(gaps[0], 1);
  });

  it('shows zero when positive data come close to it, not when they sit far above', () => {
    const near = lineChartSvg({ title: 't', xLabel: 'n', yLabel: 'GFLOP/s', series: [{ name: 'a', points: [[1, 0.4], [2, 8.2]] }] });
    expect(groupTexts(near, 'y-ticks')[0]).toBe('0');
    const far = lineChartSvg({ title: 't', xLabel: 'n', yLabel: 'AUC', series: [{ name: 'a', points: [[1, 0.5], [2, 0.9]] }] });
    expect(Number(groupTexts(far, 'y-ticks')[0])).toBeGreaterThanOrEqual(0.4);
  });

  it('labels large values compactly', () => {
    const svg = lineChartSvg({ title: 't', xLabel: 'rows', yLabel: 'rows/s', series: [{ name: 'a', points: [[0, 0], [1e7, 6e7]] }] });
    expect(groupTexts(svg, 'x-ticks')).toEqual(['0', '2M', '4M', '6M', '8M', '10M']);
    expect(groupTexts(svg, 'y-ticks')).toContain('60M');
  });

  it('puts one label per decade on a log axis, equally spaced', () => {
    const svg = lineChartSvg({
      title: 't', xLabel: 'n', yLabel: 'time', logX: true, logY: true,
      series: [{ name: 'a', points: [[1, 1e-3], [1e3, 1], [1e6, 1e3]] }],
    });
    expect(groupTexts(svg, 'x-ticks')).toEqual(['1', '10', '100', '1000', '10k', '100k', '1M']);
    expect(groupTexts(svg, 'y-ticks')).toEqual(['0.001', '0.01', '0.1', '1', '10', '100', '1000']);
    const xs = groupTextPositions(svg, 'x-ticks', 'x');
    const gaps = xs.slice(1).map((x, i) => x - xs[i]);
    for (const g of gaps) expect(g).toBeCloseTo(gaps[0], 1);
    expect(svg).toContain('n (log scale)');
  });

  it('thins decade labels over many decades but keeps them powers of ten', () => {
    const svg = lineChartSvg({ title: 't', xLabel: 'x', yLabel: 'loss', logY: true, series: [{ name: 'a', points: [[0, 1e3], [1, 1e-12]] }] });
    const labels = groupTexts(svg, 'y-ticks');
    expect(labels.length).toBeGreaterThanOrEqual(4);
    expect(labels.length).toBeLessThanOrEqual(9);
    for (const l of labels) expect(Math.log10(Number(l.replace('k', 'e3')))).toBeCloseTo(Math.round(Math.log10(Number(l.replace('k', 'e3')))), 9);
  });

  it('uses 1-2-5 or finer ticks when a log axis spans less than two decades', () => {
    const svg = lineChartSvg({ title: 't', xLabel: 'threads', yLabel: 's', logX: true, series: [{ name: 'a', points: [[1, 3], [2, 2], [4, 1.2]] }] });
    expect(groupTexts(svg, 'x-ticks')).toEqual(['1', '2', '3', '4']);
    const wider = lineChartSvg({ title: 't', xLabel: 'threads', yLabel: 's', logX: true, series: [{ name: 'a', points: [[1, 3], [56, 1]] }] });
    expect(groupTexts(wider, 'x-ticks')).toEqual(['1', '2', '5', '10', '20', '50']);
  });
});

describe('lineChartSvg: bad input', () => {
  const base = { title: 't', xLabel: 'x', yLabel: 'y' };
  it('rejects non-positive values on a log axis, naming series and point', () => {
    expect(() => lineChartSvg({ ...base, logY: true, series: [{ name: 'run 2', points: [[1, 1], [2, 0]] }] })).toThrow(
      /series 'run 2', point 1: y = 0 on a log axis/,
    );
    expect(() => lineChartSvg({ ...base, logX: true, series: [{ name: 'a', points: [[-1, 1]] }] })).toThrow(/x = -1 on a log axis/);
  });

  it('rejects non-finite coordinates and charts without data', () => {
    expect(() => lineChartSvg({ ...base, series: [{ name: 'a', points: [[1, NaN]] }] })).toThrow(/series 'a', point 0: \[1, NaN\] is not finite/);
    expect(() => lineChartSvg({ ...base, series: [] })).toThrow(/no data points/);
    expect(() => lineChartSvg({ ...base, series: [{ name: 'a', points: [] }] })).toThrow(RangeError);
  });

  it('handles a single point and a flat line without dividing by zero', () => {
    for (const points of [[[3, 5]], [[0, 2], [1, 2]]] as Array<Array<[number, number]>>) {
      for (const logY of [false, true]) {
        const svg = lineChartSvg({ ...base, logY, series: [{ name: 'a', points }] });
        checkWellFormed(svg);
        expect(svg).not.toMatch(/NaN|Infinity/);
        expect(groupTexts(svg, 'y-ticks').length).toBeGreaterThanOrEqual(2);
      }
    }
  });
});

describe('lineChartSvg layout', () => {
  it('keeps a long title inside the picture and gives whole-number ticks when asked', () => {
    const title = 'A rather long benchmark title that would not fit at sixteen pixels in seven hundred';
    const svg = lineChartSvg({ title, xLabel: 'threads', yLabel: 'speedup', xIntegers: true, series: [{ name: 's', points: [[1, 1], [2, 1.9], [3, 2]] }] });
    const size = Number(/font-size="(\d+)" font-weight="bold"/.exec(svg)?.[1]);
    expect(size * 0.58 * title.length).toBeLessThanOrEqual(760);
    expect(svg).not.toMatch(/>1\.5</);
    expect(svg).toMatch(/>2</);
  });
});
