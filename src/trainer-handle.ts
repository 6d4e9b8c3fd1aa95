/**
 * Training off the caller's thread: `startTraining` runs `train()` — the
 * coordinator and its evaluation pool — in a worker thread driven through
 * Comlink, and hands back a {@link TrainingHandle} with the result, the latest
 * progress, and cancellation. The caller's event loop stays free, which is what
 * a server (keep answering requests) or a notebook (keep the kernel live) needs.
 *
 * The model is bit-identical to one trained in-process with the same options:
 * it crosses the thread boundary as its model-file bytes.
 *
 * @example
 * import { startTraining } from 'dsgkit';
 * const job = startTraining({ learner: LEARNER_NAMES[0], data: 'data/spam.arrow', T: 2000 }, {
 *   onProgress: (p) => console.log(`${p.t}/${p.T}`),
 * });
 * const model = await job.result;
 */
import { isByteStream } from './data/arrow.ts';
import type { MessagePort, Worker } from 'node:worker_threads';
import * as Comlink from 'comlink';
import type { Dataset } from './data/dataset.ts';
import { CancelledError, UsageError } from './errors.ts';
import { startWorker } from './engine/worker-location.ts';
import { reviveError, type SerializedError } from './thread-errors.ts';
import { Model } from './model/model.ts';
import type { Progress, TrainRequest } from './api.ts';
import { tableToDataset } from './data/index.ts';
import { Table } from 'apache-arrow';
// Comlink's Node adapter ships without types for its ESM build (GoogleChromeLabs/comlink#508, PR #675).
// @ts-expect-error TS7016: no declaration file for comlink/dist/esm/node-adapter.mjs
import untypedNodeEndpoint from 'comlink/dist/esm/node-adapter.mjs';
/**
 * Comlink's Node adapter, typed: wraps a worker or its `parentPort` as a Comlink endpoint
 * (used here and by workers/trainer.ts).
 *
 * @example
 * const remote = Comlink.wrap<TrainerApi>(nodeEndpoint(worker));
 */
export const nodeEndpoint = untypedNodeEndpoint as (port: Worker | MessagePort) => Comlink.Endpoint;

/** What `startTraining` sends to the trainer thread: everything `train` takes but its callbacks and signal. */
export type WorkerTrainOptions = TrainRequest;

/** Callbacks and cancellation, which stay on the caller's thread. */
export interface TrainingHooks {
  /** Progress, on the caller's thread, at most ~10 times a second and always once more at t = T. */
  onProgress?: (p: Progress) => void;
  /** Warnings from option checks (default: `process.emitWarning`, on the caller's thread). */
  onWarning?: (message: string) => void;
  /** Aborting it is the same as calling {@link TrainingHandle.cancel}. */
  signal?: AbortSignal;
}

/** A training run in its own thread. */
export interface TrainingHandle {
  /**
   * The trained model, once the thread has exited; rejects with the run's error (DataError, UsageError, …
   * rebuilt with their fields), with CancelledError after a cancel, or with the
   * error an `onProgress` callback threw. A rejection caused by cancelling never
   * counts as unhandled, so a handle may be cancelled and forgotten.
   */
  readonly result: Promise<Model>;
  /** The latest progress received (undefined before the first iteration is reported). */
  readonly progress: Progress | undefined;
  /**
   * Asks the run to stop; the loop notices within ~25 ms and `result` rejects
   * with CancelledError (even if the last iteration had already finished).
   * Resolves once the thread has exited; a thread that does not stop within
   * {@link CANCEL_GRACE_MS} (e.g. deep inside a large synchronous file read) is
   * terminated. Does nothing more once `result` has settled.
   */
  cancel(): Promise<void>;
  /**
   * Terminates the thread at once (no grace); an unsettled `result` rejects
   * with CancelledError. Safe to call at any time, and twice.
   */
  close(): Promise<void>;
}

/** How long `cancel()` lets a run stop by itself before terminating its thread (ms). */
export const CANCEL_GRACE_MS = 2000;

/** How a run ended, as the trainer thread reports it: model-file bytes, or an error record. */
export type TrainOutcome = { readonly ok: true; readonly bytes: Uint8Array } | { readonly ok: false; readonly error: SerializedError };

/** The object workers/trainer.ts exposes through Comlink. */
export interface TrainerApi {
  train(options: WorkerTrainOptions, onProgress: (p: Progress) => void | Promise<void>, onWarning: (message: string) => void | Promise<void>): Promise<TrainOutcome>;
  cancel(): void;
}

/**
 * Starts training in a new worker thread and returns at once. The thread is
 * always terminated before `result` settles, and by {@link TrainingHandle.cancel}
 * and {@link TrainingHandle.close}; a thread that dies (out of memory, a
 * crash) rejects `result` instead of leaving it pending. Data given as a
 * {@link Dataset} is copied to the thread (structured clone); a path is read there.
 *
 * @example
 * // A server route: start a run, report progress, cancel when the client goes away.
 * import { createServer } from 'node:http';
 * import { startTraining } from 'dsgkit';
 *
 * createServer((req, res) => {
 *   res.writeHead(200, { 'content-type': 'application/x-ndjson' });
 *   const job = startTraining(
 *     { learner: LEARNER_NAMES[0], data: 'data/spam.arrow', T: 2000, threads: 4 },
 *     { onProgress: (p) => res.write(JSON.stringify({ t: p.t, T: p.T }) + '\n') },
 *   );
 *   res.on('close', () => void job.cancel()); // client disconnected: stop, free the threads
 *   job.result.then(
 *     async (model) => {
 *       await model.save('spam.dsg');
 *       res.end(JSON.stringify({ done: true }) + '\n');
 *     },
 *     (err) => res.end(JSON.stringify({ error: err.name, message: err.message }) + '\n'),
 *   );
 * }).listen(8080);
 *
 * @example
 * // With an AbortSignal: give up after a minute.
 * const job = startTraining({ learner, data: trainSet, T: 5000 }, { signal: AbortSignal.timeout(60_000) });
 * try {
 *   const model = await job.result;
 * } catch (err) {
 *   if ((err as Error).name === 'CancelledError') console.log('gave up at', job.progress?.t);
 * }
 */
export function startTraining(options: WorkerTrainOptions, hooks: TrainingHooks = {}): TrainingHandle {
  for (const key of ['onProgress', 'onWarning', 'signal'] as const) {
    if (key in (options as object)) throw new UsageError(`startTraining: pass '${key}' in the second argument (hooks), not in the training options`);
  }
  if (isByteStream(options.data) || isByteStream(options.validation)) throw new UsageError('startTraining: a stream cannot cross to the trainer thread; give a file path (or use train)');
  const { onProgress, signal } = hooks;
  const onWarning = hooks.onWarning ?? ((message: string) => process.emitWarning(message));

  let latest: Progress | undefined;
  let settled = false;
  let cancelRequested = false;
  let callbackError: { error: unknown } | undefined;
  let resolveResult!: (model: Model) => void;
  let rejectResult!: (err: unknown) => void;
  const result = new Promise<Model>((resolve, reject) => {
    resolveResult = resolve;
    rejectResult = reject;
  });
  const markCancelling = (): void => {
    cancelRequested = true;
    result.catch(() => {}); // a cancelled run's rejection is expected: never "unhandled"
  };

  if (signal?.aborted) {
    markCancelling();
    rejectResult(new CancelledError('training cancelled before it started'));
    return { result, progress: undefined, cancel: async () => {}, close: async () => {} };
  }

  const worker = startWorker('trainer', { name: 'dsgkit-trainer' });
  const remote = Comlink.wrap<TrainerApi>(nodeEndpoint(worker));
  let workerError: unknown;
  worker.on('error', (err) => {
    workerError = err;
  });
  const exited = new Promise<number>((resolve) => worker.once('exit', resolve));
  let terminating: Promise<void> | undefined;
  const terminate = (): Promise<void> => {
    terminating ??= (async () => {
      remote[Comlink.releaseProxy]();
      await worker.terminate();
      await exited;
    })();
    return terminating;
  };

  const onAbort = (): void => void handle.cancel();
  signal?.addEventListener('abort', onAbort, { once: true });
  const settle = (ok: boolean, value: unknown): void => {
    if (settled) return;
    settled = true;
    signal?.removeEventListener('abort', onAbort);
    // `result` settles only once the thread is gone: after `await job.result` nothing is left running.
    void terminate().then(() => {
      if (callbackError) rejectResult(callbackError.error);
      else if (ok) resolveResult(value as Model);
      else rejectResult(value);
    });
  };

  const progressProxy = Comlink.proxy((p: Progress): void => {
    if (settled) return;
    latest = p;
    if (!onProgress || callbackError) return;
    try {
      onProgress(p);
    } catch (error) {
      // As in-process: a throwing callback stops the run and becomes its error (left
      // unhandled if nobody awaits `result`, unlike a cancel).
      callbackError = { error };
      cancelRequested = true;
      if (!terminating) remote.cancel().catch(noop);
    }
  });
  const warningProxy = Comlink.proxy((message: string): void => {
    if (!settled) onWarning(message);
  });

  const sent: WorkerTrainOptions = {
    ...options,
    ...(typeof options.data === 'object' ? { data: compact(options.data as Dataset | Table, options.read) } : {}),
    ...(options.validation !== undefined && typeof options.validation === 'object' ? { validation: compact(options.validation as Dataset | Table, options.read) } : {}),
  };
  remote.train(sent, progressProxy, warningProxy).then(
    (outcome) => {
      if (!outcome.ok) settle(false, reviveError(outcome.error));
      else if (cancelRequested) settle(false, new CancelledError(`training cancelled after all iterations, before the model was returned`));
      else {
        try {
          settle(true, Model.fromBytes(outcome.bytes, 'model from the trainer thread'));
        } catch (err) {
          settle(false, err);
        }
      }
    },
    (err: unknown) => settle(false, err), // e.g. options that cannot be cloned (DataCloneError)
  );
  void exited.then((code) => {
    if (settled) return;
    if (cancelRequested) settle(false, new CancelledError('training cancelled (trainer thread stopped)'));
    else settle(false, new Error(`the trainer thread exited (code ${code}) before training finished${workerError instanceof Error ? `: ${workerError.message}` : ''}`, { cause: workerError }));
  });

  const handle: TrainingHandle = {
    result,
    get progress() {
      return latest;
    },
    async cancel() {
      if (settled || terminating) return terminate();
      markCancelling();
      remote.cancel().catch(noop);
      let timer: NodeJS.Timeout | undefined;
      const graceOver = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, CANCEL_GRACE_MS);
      });
      await Promise.race([result.then(noop, noop), graceOver]);
      clearTimeout(timer);
      await terminate(); // settles `result` through the exit path if the run did not stop in time
    },
    async close() {
      if (!settled) markCancelling();
      await terminate();
    },
  };
  return handle;
}

function noop(): void {}

/** A dataset whose arrays own their whole buffers: a view into a larger buffer would clone all of it. */
function compact(data: Dataset | Table, read: TrainRequest['read']): Dataset {
  if (data === null) return data;
  const ds = data instanceof Table ? tableToDataset(data, 'table', read) : data;
  const tight = <A extends Float64Array | Uint8Array>(a: A): A => (a.buffer instanceof ArrayBuffer && a.byteLength !== a.buffer.byteLength ? (a.slice() as A) : a);
  return { ...ds, X: tight(ds.X), y: tight(ds.y), labeled: tight(ds.labeled) };
}
