/**
 * The SVG line chart of the benchmarks: it lives in src/report/ (the CLI's
 * `dsgkit scaling` draws with it too); the benchmark helpers keep their names.
 */
export * from '../../src/report/line-chart.ts';
export { writeBenchOutputs, type BenchOutputPaths, type WriteBenchOutputsOptions } from './outputs.ts';
export { markdownTable, type MarkdownTableOptions } from './table.ts';
