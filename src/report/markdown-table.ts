/**
 * A small Markdown table printer for benchmark results and `dsgkit scaling` on stdout: aligned
 * columns (numbers right-aligned), readable number formatting, pipes escaped.
 */

/** Options of {@link markdownTable}. */
export interface MarkdownTableOptions {
  /** Significant digits for non-integer numbers. Default 4. */
  digits?: number;
  /** Column order; default: keys in order of first appearance across rows. */
  columns?: readonly string[];
}

/**
 * Formats rows of objects as a GitHub-flavoured Markdown table. Columns are
 * the union of the rows' keys; a missing, `null` or `undefined` cell is
 * empty. Integers print in full, other numbers to `digits` significant digits
 * (exponent form below 1e-4), and a column whose cells are all numbers is
 * right-aligned. Returns `''` when there are no rows.
 *
 * @example
 * markdownTable([{ threads: 1, 'ms/iter': 12.3456 }, { threads: 2, 'ms/iter': 6.5 }]);
 * // | threads | ms/iter |
 * // | ------: | ------: |
 * // |       1 |   12.35 |
 * // |       2 |     6.5 |
 */
export function markdownTable(rows: readonly Record<string, unknown>[], options: MarkdownTableOptions = {}): string {
  if (rows.length === 0) return '';
  const digits = options.digits ?? 4;
  const columns = options.columns ?? [...new Set(rows.flatMap((r) => Object.keys(r)))];
  const cells = rows.map((r) => columns.map((c) => formatCell(r[c], digits)));
  const numeric = columns.map((c) => rows.every((r) => r[c] === undefined || r[c] === null || typeof r[c] === 'number'));
  const header = columns.map(escapeCell);
  const widths = columns.map((_, j) => Math.max(3, header[j].length, ...cells.map((row) => row[j].length)));
  const pad = (s: string, j: number) => (numeric[j] ? s.padStart(widths[j]) : s.padEnd(widths[j]));
  const line = (row: string[]) => `| ${row.map(pad).join(' | ')} |`;
  const rule = `| ${widths.map((w, j) => (numeric[j] ? '-'.repeat(w - 1) + ':' : '-'.repeat(w))).join(' | ')} |`;
  return [line(header), rule, ...cells.map(line)].join('\n') + '\n';
}

function formatCell(v: unknown, digits: number): string {
  if (v === undefined || v === null) return '';
  if (typeof v === 'number') return formatNumber(v, digits);
  return escapeCell(String(v));
}

function formatNumber(v: number, digits: number): string {
  if (!Number.isFinite(v)) return String(v);
  if (Number.isInteger(v)) return String(v);
  const a = Math.abs(v);
  if (a >= 10 ** digits) return v.toFixed(0);
  if (a < 1e-4) return v.toExponential(digits - 1).replace(/\.?0+e/, 'e');
  return String(Number(v.toPrecision(digits)));
}

function escapeCell(s: string): string {
  return s.replace(/\|/g, '\\|').replace(/\r?\n/g, ' ');
}
