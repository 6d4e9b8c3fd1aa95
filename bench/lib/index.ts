/**
 * Shared helpers for the benchmarks: an SVG line chart, an SVG dot plot, atomic writing of
 * `bench/results/<name>.{json,svg}`, and a Markdown table for stdout.
 */
export { lineChartSvg, type LineChart, type Point, type Series } from './svg.ts';
export { dotPlotSvg, type DotGroup, type DotPlot, type DotRow } from './dots.ts';
export { writeBenchOutputs, type BenchOutputPaths, type WriteBenchOutputsOptions } from './outputs.ts';
export { markdownTable, type MarkdownTableOptions } from './table.ts';
