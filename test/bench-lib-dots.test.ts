import { describe, expect, it } from 'vitest';
import { dotPlotSvg, type DotPlot } from '../bench/lib/index.ts';
import { checkWellFormed } from './support/svg-well-formed.ts';

const chart: DotPlot = {
  title: 'AUC <mean ± sd> & more',
  xLabel: 'held-out AUC',
  groups: [
    { name: 'spam', rows: [{ series: 'svc', mean: 0.94, sd: 0.01 }, { series: 'dsgkit', mean: 0.93, sd: 0.005 }] },
    { name: 'pima', rows: [{ series: 'dsgkit', mean: 0.8 }, { series: 'svc', mean: 0.82, sd: 0.02 }] },
  ],
};

/** The marker centre x and the error bar ends of each dot, by "group/series". */
function dots(svg: string): Map<string, { cx: number; bar?: [number, number] }> {
  const out = new Map<string, { cx: number; bar?: [number, number] }>();
  for (const m of svg.matchAll(/<g class="dot" data-group="([^"]*)" data-series="([^"]*)">\n([\s\S]*?)<\/g>/g)) {
    const bar = m[3].match(/<line x1="([^"]+)" y1="[^"]+" x2="([^"]+)"/);
    const cx = Number(m[3].match(/<circle cx="([^"]+)"|<rect x="([^"]+)"/)!.slice(1).find((v) => v !== undefined));
    out.set(`${m[1]}/${m[2]}`, { cx, ...(bar ? { bar: [Number(bar[1]), Number(bar[2])] as [number, number] } : {}) });
  }
  return out;
}

describe('dotPlotSvg', () => {
  it('is well-formed SVG with escaped text, one dot per row and one legend entry per method', () => {
    const svg = dotPlotSvg(chart);
    checkWellFormed(svg);
    expect(svg).toContain('AUC &lt;mean ± sd&gt; &amp; more');
    expect(dots(svg).size).toBe(4);
    expect([...svg.matchAll(/<g class="legend"[\s\S]*?<\/g>/g)][0][0].match(/<text/g)!.length).toBe(2);
  });

  it('places a higher mean further right, with the bar spanning mean ± sd symmetrically', () => {
    const d = dots(dotPlotSvg(chart));
    expect(d.get('spam/svc')!.cx).toBeGreaterThan(d.get('spam/dsgkit')!.cx);
    expect(d.get('pima/svc')!.cx).toBeGreaterThan(d.get('pima/dsgkit')!.cx);
    const s = d.get('spam/svc')!;
    expect(s.bar![0]).toBeLessThan(s.cx);
    expect(s.cx - s.bar![0]).toBeCloseTo(s.bar![1] - s.cx, 1);
    // sd 0.02 draws a bar twice as long as sd 0.01.
    const p = d.get('pima/svc')!;
    expect(p.bar![1] - p.bar![0]).toBeCloseTo(2 * (s.bar![1] - s.bar![0]), 0);
    expect(d.get('pima/dsgkit')!.bar).toBeUndefined();
  });

  it('draws a method the same way in every group', () => {
    const svg = dotPlotSvg(chart);
    const look = (series: string) => [...svg.matchAll(new RegExp(`data-series="${series}">\\n[\\s\\S]*?fill="(#[0-9A-Fa-f]{6})"`, 'g'))].map((m) => m[1]);
    expect(new Set(look('svc')).size).toBe(1);
    expect(look('svc')[0]).not.toBe(look('dsgkit')[0]);
  });

  it('refuses non-finite values and empty charts, naming the row', () => {
    expect(() => dotPlotSvg({ ...chart, groups: [{ name: 'x', rows: [{ series: 'svc', mean: NaN }] }] })).toThrow(/group 'x', series 'svc'/);
    expect(() => dotPlotSvg({ ...chart, groups: [] })).toThrow(/no rows/);
  });
});
