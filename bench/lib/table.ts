/** The Markdown table printer of the benchmarks: it lives in src/report/ (shared with `dsgkit scaling`). */
export { markdownTable, type MarkdownTableOptions } from '../../src/report/markdown-table.ts';
