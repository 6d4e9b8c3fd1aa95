/**
 * The coordinator's side of the queue: put a run's jobs on it, follow them
 * until every one has a result, and leave nothing behind.
 *
 * Following is polling (every `pollMs`, one state query per unfinished job),
 * not BullMQ's event stream, because a poll survives what events do not: a
 * Redis server restarted empty has lost the run's jobs, and the coordinator
 * simply adds the missing ones again (a job is idempotent: it writes the same
 * bytes to the same place). While Redis does not answer, the coordinator
 * waits up to `redisWaitMs` and then fails with a QueueError; it never hangs.
 * A failed job ends the run with the worker's error (a DataError keeps its
 * file, column and row). However the run ends, its jobs are removed from
 * Redis and a cancel mark makes workers drop any they are still running.
 */
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { CancelledError, DataError, ModelError, QueueError, UsageError, formatLocation } from '../errors.ts';
import { QUEUE_NAME, cancelKey, redisOptions, type JobType } from './queue.ts';
import type { QueueUrl } from './redis-url.ts';

/** One job to run: its type and payload. */
export interface JobSpec {
  readonly name: JobType;
  readonly data: object;
}

/** How {@link runJobs} runs. */
export interface RunJobsOptions {
  readonly url: QueueUrl;
  /** The run id ({@link newRunId}); job `i` is `<run>-<i>`. */
  readonly run: string;
  /** Aborting removes the run's jobs and rejects with a CancelledError. */
  readonly signal?: AbortSignal;
  /** How long Redis may be unreachable before the run fails (default 60 s). */
  readonly redisWaitMs?: number;
  /** Time between polls (default 100 ms). */
  readonly pollMs?: number;
  /** Tries per job for failures that are not the data's, e.g. a worker's crash (default 3). */
  readonly attempts?: number;
  /** Called after each poll that saw a job finish. */
  readonly onProgress?: (done: number, total: number) => void;
  /** Things worth telling the user (a job added again after Redis lost it). */
  readonly onNote?: (message: string) => void;
}

/** A worker's failure as it travels in a failed job's reason (see {@link encodeFailure}). */
interface Failure {
  readonly dsgkit: 1;
  readonly kind: string;
  readonly message: string;
  readonly problem?: string;
  readonly file?: string;
  readonly column?: string;
  readonly row?: number;
  readonly worker?: string;
}

/**
 * A worker's error as a job's failure reason: JSON with its class and, for a
 * DataError, file, column and row, so {@link decodeFailure} rebuilds it at
 * the coordinator.
 *
 * @example
 * throw new UnrecoverableError(encodeFailure(err, 'host-a:4242'));
 */
export function encodeFailure(err: unknown, worker: string): string {
  const e = err instanceof Error ? err : new Error(String(err));
  const f: Failure = { dsgkit: 1, kind: e.name, message: e.message, worker };
  if (e instanceof DataError) {
    const where = { ...(e.file !== undefined ? { file: e.file } : {}), ...(e.column !== undefined ? { column: e.column } : {}), ...(e.row !== undefined ? { row: e.row } : {}) };
    const prefix = formatLocation(where);
    return JSON.stringify({ ...f, ...where, problem: e.message.startsWith(prefix) ? e.message.slice(prefix.length) : e.message });
  }
  return JSON.stringify(f);
}

/**
 * The error a failed job's reason stands for: a DataError with its location,
 * a ModelError, or a QueueError saying which worker failed how.
 *
 * @example
 * throw decodeFailure(job.failedReason, 'r1a2b3c4d5e6-3');
 */
export function decodeFailure(reason: string, jobId: string): Error {
  let f: Failure | undefined;
  try {
    const parsed = JSON.parse(reason) as Failure;
    if (parsed && parsed.dsgkit === 1) f = parsed;
  } catch {
    // not one of ours: a BullMQ reason such as a stalled job's
  }
  if (!f) return new QueueError(`job ${jobId} failed: ${reason}`);
  if (f.kind === 'DataError') {
    return new DataError(f.problem ?? f.message, { ...(f.file !== undefined ? { file: f.file } : {}), ...(f.column !== undefined ? { column: f.column } : {}), ...(f.row !== undefined ? { row: f.row } : {}) });
  }
  if (f.kind === 'ModelError') return new ModelError(`${f.message} (on worker ${f.worker})`);
  if (f.kind === 'PayloadError' || f.kind === 'UsageError') return new UsageError(`worker ${f.worker} refused job ${jobId}: ${f.message}`);
  return new QueueError(`job ${jobId} failed on worker ${f.worker}: ${f.message}`);
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Settles with `work`'s value, or with `undefined` after `ms` or once `signal` aborts. */
async function within<T>(work: Promise<T>, ms: number, signal?: AbortSignal): Promise<{ value: T } | undefined> {
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  const stop = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), Math.max(0, ms));
    onAbort = () => resolve(undefined);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
  try {
    return await Promise.race([work.then((value) => ({ value })), stop]);
  } finally {
    clearTimeout(timer);
    if (onAbort) signal?.removeEventListener('abort', onAbort);
  }
}

/**
 * Runs `specs` as jobs on the queue at `opts.url` and resolves to their
 * results in order (each job's return value). See the module comment for
 * what happens when Redis or a worker fails.
 *
 * @example
 * const results = await runJobs<PartResult>(ranges.map((r) => ({ name: 'predict-range', data: r })), { url, run });
 */
export async function runJobs<R>(specs: readonly JobSpec[], opts: RunJobsOptions): Promise<R[]> {
  const { url, run, signal } = opts;
  const waitMs = opts.redisWaitMs ?? 60_000;
  const pollMs = opts.pollMs ?? 100;
  // Finished jobs stay until the coordinator has read and removed them; a day at most if it never does (killed).
  const jobOpts = { attempts: opts.attempts ?? 3, backoff: { type: 'fixed', delay: 500 }, removeOnComplete: { age: 86_400 }, removeOnFail: { age: 86_400 } };
  // One connection of our own, handed to BullMQ: disconnecting it stops every reconnect attempt, so a run that gave up on Redis lets the process exit.
  const client = new Redis(redisOptions(url));
  client.on('error', () => {}); // connection errors: the wait below decides
  const queue = new Queue(QUEUE_NAME, { connection: client });
  queue.on('error', () => {});
  const ids = specs.map((_, i) => `${run}-${i}`);
  const results = new Array<R>(specs.length);
  const pending = new Set(ids.keys());
  const unreachable = () =>
    new QueueError(`${url.shown}: Redis did not answer for ${Math.round(waitMs / 1000)} s (is redis-server running and reachable from here?); the run stopped and wrote nothing`);
  let finished = false;
  let unanswered = false;
  try {
    const added = await within(queue.addBulk(specs.map((s, i) => ({ name: s.name, data: s.data, opts: { ...jobOpts, jobId: ids[i] } }))), waitMs, signal);
    if (signal?.aborted) throw new CancelledError('cancelled: the run\'s jobs were removed from the queue');
    if (!added) {
      unanswered = true;
      throw unreachable();
    }
    let lastAnswer = Date.now();
    while (pending.size > 0) {
      const round = within(
        (async () => {
          let done = 0;
          for (const i of [...pending]) {
            const state = await queue.getJobState(ids[i]);
            if (state === 'completed') {
              const job = await queue.getJob(ids[i]);
              if (!job) continue; // removed in between: seen as lost next round
              results[i] = job.returnvalue as R;
              pending.delete(i);
              done++;
            } else if (state === 'failed') {
              const job = await queue.getJob(ids[i]);
              throw decodeFailure(job?.failedReason ?? 'no reason recorded', ids[i]);
            } else if (state === 'unknown') {
              opts.onNote?.(`job ${ids[i]} is no longer in Redis (was the server restarted?); added again`);
              await queue.add(specs[i].name, specs[i].data, { ...jobOpts, jobId: ids[i] });
            }
          }
          return done;
        })(),
        waitMs - (Date.now() - lastAnswer),
        signal,
      );
      const got = await round;
      if (signal?.aborted) throw new CancelledError('cancelled: the run\'s jobs were removed from the queue');
      if (!got) {
        unanswered = true;
        throw unreachable();
      }
      lastAnswer = Date.now();
      if (got.value > 0) opts.onProgress?.(specs.length - pending.size, specs.length);
      if (pending.size > 0) await within(sleep(pollMs), pollMs, signal);
    }
    finished = true;
    return results;
  } finally {
    // Remove the run's jobs (a locked one cannot be: the cancel mark makes its worker drop and remove it).
    // Not when Redis stopped answering: its jobs are then either gone with it or stopped by nobody, and the wait would only delay the error.
    if (!unanswered) await within(
      (async () => {
        if (!finished) await client.set(cancelKey(run), '1', 'EX', 86_400);
        for (const id of ids) await queue.remove(id).catch(() => 0);
      })(),
      3_000,
    );
    if (!unanswered) await within(queue.close(), 2_000);
    client.disconnect();
  }
}
