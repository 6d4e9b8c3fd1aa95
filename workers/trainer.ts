/**
 * The trainer thread behind `startTraining` (src/trainer-handle.ts): runs the
 * whole coordinator — `train()` with its own evaluation pool — off the
 * caller's thread, and talks to the caller through Comlink. Progress goes back
 * through a proxied callback, at most ~10 calls a second plus the last one; the
 * model comes back as its file bytes (transferred, not copied); errors come
 * back as plain records so the caller can rebuild DataError, UsageError, … with
 * their fields.
 */
import { parentPort } from 'node:worker_threads';
import * as Comlink from 'comlink';
import type { Progress } from '../src/api.ts';
import { trainModel } from '../src/train/train.ts';
import { CancelledError, UsageError } from '../src/errors.ts';
import { nodeEndpoint, type TrainerApi, type TrainOutcome, type WorkerTrainOptions } from '../src/trainer-handle.ts';
import { serializeError } from '../src/thread-errors.ts';

/** Least time between two progress messages (ms): ≤ 10 a second reach the caller. */
export const PROGRESS_INTERVAL_MS = 100;

/** The only copy of `bytes` that may be handed over: a view of a whole, non-shared buffer. */
function transferable(bytes: Uint8Array): Uint8Array {
  const whole = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength && bytes.buffer instanceof ArrayBuffer;
  return whole ? bytes : bytes.slice();
}

let running = false;
const controller = new AbortController();

const api: TrainerApi = {
  async train(options: WorkerTrainOptions, onProgress, onWarning): Promise<TrainOutcome> {
    try {
      if (running) throw new UsageError('this trainer thread is already running a training job (start one handle per run)');
      running = true;
      let lastSent = -Infinity;
      // Calls to the caller are fire-and-forget, except that the last one is awaited before
      // the outcome is returned: the caller then always sees t = T before `result` resolves.
      let lastCall: Promise<void> = Promise.resolve();
      const send = (p: Progress): void => {
        const now = performance.now();
        if (p.t !== p.T && now - lastSent < PROGRESS_INTERVAL_MS) return;
        lastSent = now;
        lastCall = Promise.resolve(onProgress(p)).catch(() => {});
      };
      const model = await trainModel({
        ...options,
        onProgress: send,
        onWarning: (message) => void Promise.resolve(onWarning(message)).catch(() => {}),
        signal: controller.signal,
      });
      // The request may land after the loop's last check (threshold fitting); honour it anyway.
      if (controller.signal.aborted) throw new CancelledError('training cancelled after all iterations, before the model was returned');
      await lastCall;
      const bytes = transferable(model.toBytes());
      return Comlink.transfer({ ok: true, bytes }, [bytes.buffer]);
    } catch (err) {
      return { ok: false, error: serializeError(err) };
    }
  },

  cancel(): void {
    controller.abort();
  },
};

if (!parentPort) throw new Error('workers/trainer is a worker_threads entry point; start it with startTraining()');
Comlink.expose(api, nodeEndpoint(parentPort));
