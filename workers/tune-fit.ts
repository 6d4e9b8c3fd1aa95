/**
 * The Piscina worker behind `tune`'s fold fits on threads (src/tune-threads.ts):
 * runs one (candidate, fold) fit — tune's own `runFold`, its engine on this
 * thread alone — from the continuation state it is given, and returns the
 * fold's score, its out-of-fold scores and the state reached, or the error
 * it ended with as a record (src/thread-errors.ts).
 * The search's folds, candidates and schedules come once, as workerData.
 */
import { workerData } from 'piscina';
import { FrequencyStores } from '../src/engine/frequency-store.ts';
import { loopStateRecord, restoreLoopState } from '../src/coordinator/loop-state-record.ts';
import type { FitState } from '../src/learners/spec.ts';
import { fitPlanOf, runFold } from '../src/tune.ts';
import { serializeError, type SerializedError } from '../src/thread-errors.ts';
import type { FitThreadsSetup, FitUnit, FitUnitResult } from '../src/tune-threads.ts';

const setup = workerData as FitThreadsSetup;
const plan = fitPlanOf(setup);
// This thread's stores, one per feature map, within its share of the run's budget (the fits of settings that share σ share them).
const stores = new FrequencyStores(setup.engine.cacheBytes ?? 0, setup.T);

/**
 * Piscina entry point: one fold fit.
 *
 * @example
 * await piscina.run({ c: 4, j: 1, to: 30, start }); // { score, f, state }
 */
export default async function fitUnit(unit: FitUnit): Promise<FitUnitResult | { error: SerializedError }> {
  try {
    const states = new Array<FitState | undefined>(setup.folds.length).fill(undefined);
    if (unit.start) states[unit.j] = restoreLoopState(unit.start);
    const { score, f, shares } = await runFold(plan, unit.c, unit.j, unit.to, { threads: 1, ...setup.engine, frequencyStores: stores }, states, { done: 0, report: () => {} });
    const state = states[unit.j];
    const record = state ? loopStateRecord(state) : undefined;
    return { score, f, ...(shares ? { shares } : {}), ...(record ? { state: record } : {}) };
  } catch (err) {
    // As a record, so the caller throws it as its own class (a DataError keeps its file, column and row).
    return { error: serializeError(err) };
  }
}
