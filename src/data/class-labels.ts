/**
 * Labels that are names (`spam`, `ham`) as well as numbers. Readers hand every
 * label cell to a {@link LabelCoder}, which decides, once, whether the column
 * holds numbers or names:
 * - with `classes` given, every label is a name and must be one of them, in
 *   that order;
 * - otherwise the first labeled cell decides: a number keeps the labels
 *   numeric exactly as before (a later name is a located error that points to
 *   `--classes`); a name makes every label a name ("1" too), and the class
 *   order is the names sorted by code unit (`Array.prototype.sort`), whatever
 *   the locale.
 * While reading, a name's value is a provisional index in order of first
 * appearance (stable, so streamed batches can be written before the end);
 * {@link LabelCoder.finish} renumbers them into the final order.
 */
import { DataError, type DataLocation } from '../errors.ts';
import { parseFiniteNumber, whyNotFinite } from './numbers.ts';

/** Label cells (text formats) that mean "this row has no label". */
export const UNLABELED_MARKERS: readonly string[] = ['', '?', 'NA'];

/** Whether a label column holds numbers or names. */
export type LabelKind = 'number' | 'name';

/** Options of the readers about labels. */
export interface ClassOptions {
  /** Read the labels as these class names, in this order; any other label is an error. */
  classes?: readonly string[];
}

/**
 * Turns label cells into the values of `Dataset.y`, numbers or class names
 * (see the module comment).
 *
 * @example
 * const coder = new LabelCoder({}, 'mail.csv', 'label');
 * coder.code('spam', { row: 1 }); // 0 (provisional)
 * coder.code('ham', { row: 2 });  // 1 (provisional)
 * const y = Float64Array.from([0, 1]);
 * coder.finish(y);                // ['ham', 'spam']; y is now [1, 0]
 */
export class LabelCoder {
  /** Decided by the first labeled cell (or by `classes`); undefined until then. */
  kind: LabelKind | undefined;
  /** Class names seen so far, in provisional order (index = provisional value). */
  readonly names: string[] = [];
  private readonly index = new Map<string, number>();
  private readonly given: boolean;
  private firstRow: DataLocation | undefined;

  constructor(
    opts: ClassOptions,
    private readonly file: string,
    private readonly column: string,
  ) {
    this.given = opts.classes !== undefined;
    if (opts.classes !== undefined) {
      this.kind = 'name';
      for (const name of opts.classes) {
        if (this.index.has(name)) throw new DataError(`class '${name}' is given twice in the list of classes`, { file, column });
        this.index.set(name, this.names.length);
        this.names.push(name);
      }
    }
  }

  /**
   * The value of a text cell: NaN for an unlabeled marker (empty, `?`, `NA`),
   * else the number or the class index. Throws a DataError located at `where`.
   *
   * @example
   * coder.code('?', { row: 3 }); // NaN
   */
  code(cell: string, where: DataLocation): number {
    if (UNLABELED_MARKERS.includes(cell)) return NaN;
    if (this.kind === undefined) {
      this.kind = parseFiniteNumber(cell) !== undefined ? 'number' : 'name';
      this.firstRow = where;
    }
    if (this.kind === 'number') {
      const v = parseFiniteNumber(cell);
      if (v === undefined) {
        const first = this.firstRow?.row !== undefined ? ` (the first label, ${this.firstRow.line ? 'line' : 'row'} ${this.firstRow.row}, is a number)` : '';
        throw new DataError(
          `label: ${whyNotFinite(cell, 'numeric labels')}${first}; leave it empty, '?' or 'NA' for an unlabeled row, or give the class names with --classes`,
          this.at(where),
        );
      }
      return v;
    }
    return this.name(cell, where);
  }

  /**
   * The class index of a label that is a name (Arrow string and dictionary
   * columns), or NaN for null.
   *
   * @example
   * coder.name('spam', { row: 1 }); // 0
   */
  name(cell: string | null, where: DataLocation): number {
    if (cell === null) return NaN;
    this.kind = 'name';
    const at = this.index.get(cell);
    if (at !== undefined) return at;
    if (this.given) {
      const shown = cell.length > 40 ? `${cell.slice(0, 40)}…` : cell;
      throw new DataError(`label '${shown}' is not one of the given classes (${this.names.join(', ')})`, this.at(where));
    }
    this.index.set(cell, this.names.length);
    this.names.push(cell);
    return this.names.length - 1;
  }

  /**
   * Ends reading: for names, renumbers `y` in place from provisional to final
   * indices and returns the class names in order; for numbers, `undefined`.
   *
   * @example
   * const classNames = coder.finish(y);
   */
  finish(y: Float64Array): string[] | undefined {
    if (this.kind !== 'name') return undefined;
    if (this.given) return [...this.names];
    const sorted = [...this.names].sort();
    const rank = new Map(sorted.map((name, k) => [name, k]));
    const final = this.names.map((name) => rank.get(name)!);
    for (let i = 0; i < y.length; i++) if (!Number.isNaN(y[i])) y[i] = final[y[i]];
    return sorted;
  }

  private at(where: DataLocation): DataLocation {
    return { file: this.file, column: this.column, ...where };
  }
}
