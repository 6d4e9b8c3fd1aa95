/**
 * A run's continuation state ({@link LoopStart}: its history, the sampling
 * stream and the bias) as plain data — typed arrays and numbers, no class —
 * for what crosses a thread or a host: `tune`'s fold fits on worker threads
 * (tune-threads.ts) and `tune` on a queue (distributed/tune.ts, serialised).
 * The record and its restore keep every bit: a run continued from it is the
 * run continued in place.
 */
import { History } from '../engine/history.ts';
import type { LoopStart } from './loop.ts';

/** {@link LoopStart} as plain data (History.restore's fields, the sampling stream, the bias). */
export interface LoopStateRecord {
  readonly m: number;
  readonly t: number;
  readonly scale: number;
  readonly firstLive: number;
  /** The `t · 2m` stored coefficients (a copy: transferable). */
  readonly stored: Float64Array;
  readonly rng: LoopStart['rng'];
  readonly bias?: number;
}

/**
 * The record of a state (its coefficients copied, so the record can be transferred).
 *
 * @example
 * const record = loopStateRecord(fitted.state); // postMessage(record, [record.stored.buffer])
 */
export function loopStateRecord(state: LoopStart): LoopStateRecord {
  const h = state.history;
  return { m: h.m, t: h.t, scale: h.scale, firstLive: h.firstLive, stored: h.stored.slice(0, h.t * 2 * h.m), rng: state.rng, ...(state.bias !== undefined ? { bias: state.bias } : {}) };
}

/**
 * Whether `value` has a record's shape (for data from outside the process: a queue's payload, a state file).
 *
 * @example
 * if (!isLoopStateRecord(deserialize(bytes))) throw new PayloadError('not a continuation state');
 */
export function isLoopStateRecord(value: unknown): value is LoopStateRecord {
  const s = value as LoopStateRecord;
  return s !== null && typeof s === 'object' && [s.m, s.t, s.firstLive].every((v) => Number.isSafeInteger(v) && v >= 0) && typeof s.scale === 'number'
    && s.stored instanceof Float64Array && s.stored.length === s.t * 2 * s.m && (s.bias === undefined || typeof s.bias === 'number');
}

/**
 * The state a record holds, ready to continue from.
 *
 * @example
 * const start = restoreLoopState(record); // spec.fit({ …, start, to })
 */
export function restoreLoopState(record: LoopStateRecord): LoopStart {
  return { history: History.restore(record), rng: record.rng, ...(record.bias !== undefined ? { bias: record.bias } : {}) };
}
