/**
 * Every error dsgkit raises on purpose, in one place (the Piscina way).
 *
 * The CLI maps them to exit codes: {@link UsageError} → 2, {@link DataError}
 * → 1, anything else → 1 with a stack trace (a bug). Messages are written for
 * the person at the terminal: they name the file, the column and the row.
 */

/** Where in an input a problem sits. Every field is optional; give what is known. */
export interface DataLocation {
  /** Path of the file being read or written. */
  file?: string;
  /** Column name (Arrow/CSV) or 1-based feature index (LIBSVM). */
  column?: string;
  /** 1-based row (data row, not counting a CSV header) or line number. */
  row?: number;
  /** Set when `row` is a text line number rather than a data row. */
  line?: boolean;
}

/**
 * A problem with the user's data: unreadable file, bad value, missing column.
 *
 * @example
 * throw new DataError('value is NaN', { file: 'train.arrow', column: 'x3', row: 17 });
 * // message: "train.arrow: column 'x3', row 17: value is NaN"
 */
export class DataError extends Error {
  readonly file: string | undefined;
  readonly column: string | undefined;
  readonly row: number | undefined;

  constructor(problem: string, where: DataLocation = {}, options?: { cause?: unknown }) {
    super(formatLocation(where) + problem, options);
    this.name = 'DataError';
    this.file = where.file;
    this.column = where.column;
    this.row = where.row;
  }
}

/**
 * A problem with how dsgkit was called: unknown option, bad hyperparameter value.
 *
 * @example
 * throw new UsageError("--threads must be a positive integer, got 'many'");
 */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/**
 * A model file that cannot be used: wrong format, corrupt, or made for other features.
 *
 * @example
 * throw new ModelError('model.dsg: expects 30 features, data has 28');
 */
export class ModelError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ModelError';
  }
}

/**
 * The job queue (`--queue`, a Redis server) could not be used: unreachable
 * past the wait allowed, or a job a worker could not run for a reason that is
 * not the data's. The run wrote nothing.
 *
 * @example
 * throw new QueueError('redis://10.0.0.5:6379: no answer for 60 s; nothing written to scores.arrow');
 */
export class QueueError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'QueueError';
  }
}

/**
 * Training or evaluation stopped because the caller cancelled it.
 *
 * @example
 * if (signal.aborted) throw new CancelledError();
 */
export class CancelledError extends Error {
  constructor(message = 'cancelled') {
    super(message);
    this.name = 'CancelledError';
  }
}

/**
 * "file: column 'c', row r: " prefix for a message; empty when nothing is known.
 *
 * @example
 * formatLocation({ file: 'a.csv', row: 3, line: true }); // "a.csv: line 3: "
 */
export function formatLocation(where: DataLocation): string {
  const parts: string[] = [];
  // A column name is shown whole up to 80 characters (a 5 MB name is not echoed to the terminal).
  if (where.column !== undefined) parts.push(where.column.length > 80 ? `column '${where.column.slice(0, 77)}…' (${where.column.length} characters)` : `column '${where.column}'`);
  if (where.row !== undefined) parts.push(`${where.line ? 'line' : 'row'} ${where.row}`);
  const tail = parts.join(', ');
  if (where.file !== undefined) return tail ? `${where.file}: ${tail}: ` : `${where.file}: `;
  return tail ? `${tail}: ` : '';
}
