/**
 * The coordinator's side of the queue: put a run's jobs on it as one BullMQ
 * flow, follow the flow until every job has a result, and leave nothing behind.
 *
 * A run is a parent job (in the queue {@link RUNS_QUEUE}, which no worker
 * takes from) whose children are the run's jobs: the parent leaves
 * `waiting-children` once every child has completed, and then holds every
 * child's result, so following a run of any size is one state query and one
 * count per poll (every `pollMs`), and fetching its results one more. A child
 * that fails for good fails the parent (`failParentOnFailure`).
 *
 * Following is polling, not BullMQ's event stream, because a poll survives
 * what events do not: a Redis server restarted empty has lost the run, and
 * the coordinator simply adds the flow again (a job is idempotent: it writes
 * the same bytes to the same place). While Redis does not answer, the
 * coordinator waits up to `redisWaitMs` and then fails with a QueueError; it
 * never hangs. A failed job ends the run with the worker's error (a DataError
 * keeps its file, column and row). However the run ends, its jobs are removed
 * from Redis and a cancel mark makes workers drop any they are still running.
 */
import { FlowProducer, Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { CancelledError, DataError, ModelError, QueueError, UsageError, formatLocation } from '../errors.ts';
import { QUEUE_NAME, RUNS_QUEUE, cancelKey, redisOptions, type JobType } from './queue.ts';
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
  /** Time between polls (default 50 ms). */
  readonly pollMs?: number;
  /** Tries per job for failures that are not the data's, e.g. a worker's crash (default 3). */
  readonly attempts?: number;
  /** BullMQ priority of the run's jobs: a job with one is taken only when no job without one waits (lower numbers first). */
  readonly priority?: number;
  /** Called once the run's jobs are on the queue. */
  readonly onAdded?: () => void;
  /** Called after each poll that saw more of the run's jobs finished. */
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
  const pollMs = opts.pollMs ?? 50;
  // Finished jobs stay until the coordinator has read and removed them; a day at most if it never does (killed).
  const jobOpts = { attempts: opts.attempts ?? 3, backoff: { type: 'fixed', delay: 500 }, removeOnComplete: { age: 86_400 }, removeOnFail: { age: 86_400 }, failParentOnFailure: true, ...(opts.priority !== undefined ? { priority: opts.priority } : {}) };
  // One connection of our own, handed to BullMQ: disconnecting it stops every reconnect attempt, so a run that gave up on Redis lets the process exit.
  const client = new Redis(redisOptions(url));
  client.on('error', () => {}); // connection errors: the wait below decides
  const queue = new Queue(QUEUE_NAME, { connection: client });
  const parents = new Queue(RUNS_QUEUE, { connection: client });
  const flows = new FlowProducer({ connection: client });
  queue.on('error', () => {});
  parents.on('error', () => {});
  flows.on('error', () => {});
  const ids = specs.map((_, i) => `${run}-${i}`);
  const keyOf = new Map(ids.map((id, i) => [queue.toKey(id), i]));
  const addFlow = () =>
    flows.add({ name: 'run', queueName: RUNS_QUEUE, data: { jobs: specs.length }, opts: { jobId: run }, children: specs.map((s, i) => ({ name: s.name, queueName: QUEUE_NAME, data: s.data, opts: { ...jobOpts, jobId: ids[i] } })) });
  const unreachable = () =>
    new QueueError(`${url.shown}: Redis did not answer for ${Math.round(waitMs / 1000)} s (is redis-server running and reachable from here?); the run stopped and wrote nothing`);
  let finished = false;
  let unanswered = false;
  try {
    const added = specs.length === 0 ? { value: undefined } : await within(addFlow(), waitMs, signal);
    if (signal?.aborted) throw new CancelledError('cancelled: the run\'s jobs were removed from the queue');
    if (!added) {
      unanswered = true;
      throw unreachable();
    }
    opts.onAdded?.();
    let lastAnswer = Date.now();
    let seen = 0;
    let results: R[] | undefined = specs.length === 0 ? [] : undefined;
    while (!results) {
      const poll = await within(
        (async (): Promise<{ results?: R[]; done: number }> => {
          const state = await parents.getJobState(run);
          if (state === 'waiting-children') {
            const job = await parents.getJob(run);
            const counts = await job?.getDependenciesCount({ processed: true });
            return { done: counts?.processed ?? seen };
          }
          if (state === 'failed') {
            for (const [i, id] of ids.entries()) {
              if ((await queue.getJobState(id)) !== 'failed') continue;
              const child = await queue.getJob(id);
              throw decodeFailure(child?.failedReason ?? 'no reason recorded', ids[i]);
            }
            const parent = await parents.getJob(run);
            throw new QueueError(`run ${run} failed: ${parent?.failedReason ?? 'no reason recorded'}`);
          }
          if (state === 'unknown') {
            opts.onNote?.(`run ${run} is no longer in Redis (was the server restarted?); its ${specs.length} jobs added again`);
            await addFlow();
            return { done: 0 };
          }
          // The parent left waiting-children: every child completed (the parent holds their results), or one failed.
          const job = await parents.getJob(run);
          if (!job) return { done: seen }; // removed in between: seen as lost next poll
          const values = await job.getChildrenValues<R>();
          const out = new Array<R>(specs.length);
          let got = 0;
          for (const [key, value] of Object.entries(values)) {
            const i = keyOf.get(key);
            if (i !== undefined) (out[i] = value), got++;
          }
          for (const [i, id] of ids.entries()) {
            if (i in out) continue;
            const child = await queue.getJob(id);
            const childState = child ? await child.getState() : 'unknown';
            if (childState === 'failed') throw decodeFailure(child?.failedReason ?? 'no reason recorded', id);
            if (childState === 'completed' && child) (out[i] = child.returnvalue as R), got++;
          }
          if (got < specs.length) return { done: got };
          return { results: out, done: specs.length };
        })(),
        waitMs - (Date.now() - lastAnswer),
        signal,
      );
      if (signal?.aborted) throw new CancelledError('cancelled: the run\'s jobs were removed from the queue');
      if (!poll) {
        unanswered = true;
        throw unreachable();
      }
      lastAnswer = Date.now();
      if (poll.value.done !== seen) {
        seen = poll.value.done;
        opts.onProgress?.(seen, specs.length);
      }
      results = poll.value.results;
      if (!results) await within(sleep(pollMs), pollMs, signal);
    }
    finished = true;
    return results;
  } finally {
    // Remove the run's jobs (a locked one cannot be: the cancel mark makes its worker drop and remove it), then the parent.
    // Not when Redis stopped answering: its jobs are then either gone with it or stopped by nobody, and the wait would only delay the error.
    if (!unanswered) await within(
      (async () => {
        if (!finished) await client.set(cancelKey(run), '1', 'EX', 86_400);
        for (const id of ids) await queue.remove(id, { removeChildren: false }).catch(() => 0);
        await parents.remove(run, { removeChildren: false }).catch(() => 0);
      })(),
      3_000,
    );
    if (!unanswered) await within(Promise.all([queue.close(), parents.close(), flows.close()]), 2_000);
    client.disconnect();
  }
}
