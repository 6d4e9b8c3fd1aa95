/**
 * Errors across a thread boundary: a worker (the trainer thread behind
 * `startTraining`, a fold fit of `tune` on a thread) sends an error as a
 * plain record, and the caller rebuilds it as its own class — a DataError
 * still names its file, column and row, a CancelledError still ends a run
 * with exit 130 — instead of a bare Error that says "internal error".
 */
import { CancelledError, DataError, ModelError, UsageError } from './errors.ts';

/** An error as it crosses a thread boundary: a structured-cloneable record. */
export interface SerializedError {
  readonly name: string;
  readonly message: string;
  readonly stack?: string;
  readonly file?: string;
  readonly column?: string;
  readonly row?: number;
}

/**
 * An error as a structured-cloneable record: name, message, stack and, for a
 * DataError, where in the data it sits.
 *
 * @example
 * serializeError(new DataError('not found', { file: 'a.arrow' }));
 * // { name: 'DataError', message: 'a.arrow: not found', stack: '…', file: 'a.arrow' }
 */
export function serializeError(err: unknown): SerializedError {
  if (!(err instanceof Error)) return { name: 'Error', message: String(err) };
  const out: { -readonly [K in keyof SerializedError]: SerializedError[K] } = { name: err.name, message: err.message };
  if (err.stack !== undefined) out.stack = err.stack;
  const located = err as Error & { file?: unknown; column?: unknown; row?: unknown };
  if (typeof located.file === 'string') out.file = located.file;
  if (typeof located.column === 'string') out.column = located.column;
  if (typeof located.row === 'number') out.row = located.row;
  return out;
}

const ERROR_CLASSES: Record<string, new (message: string) => Error> = {
  UsageError,
  ModelError,
  CancelledError,
  RangeError,
  TypeError,
};

/**
 * Rebuilds an error from the trainer thread as its own class (DataError with
 * file/column/row, UsageError, ModelError, CancelledError, RangeError,
 * TypeError; any other as an Error with the same name), keeping message and stack.
 *
 * @example
 * const err = reviveError({ name: 'DataError', message: 'a.arrow: not found', file: 'a.arrow' });
 * err instanceof DataError; // true
 * err.message;              // 'a.arrow: not found'
 */
export function reviveError(e: SerializedError): Error {
  let err: Error;
  if (e.name === 'DataError') {
    err = new DataError('', {});
    Object.assign(err, { file: e.file, column: e.column, row: e.row });
  } else {
    const Class = ERROR_CLASSES[e.name];
    err = Class ? new Class(e.message) : new Error(e.message);
  }
  err.message = e.message;
  if (err.name !== e.name) err.name = e.name;
  if (e.stack !== undefined) err.stack = e.stack;
  return err;
}
