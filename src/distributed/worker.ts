/**
 * `dsgkit worker`: a long-running process that takes dsgkit's jobs from the
 * queue and runs them on its own threads.
 *
 * It runs only {@link JOB_TYPES}, each payload checked field by field and
 * every path inside its allowed roots (payload.ts). A job's failure travels
 * back to the coordinator as JSON (coordinator.ts's `encodeFailure`), so a
 * bad value in the data is reported there with its file, column and row;
 * failures of the data, the model or the payload are not retried. Job types:
 * `predict-range` (predict.ts), `tune-unit` and `tune-refit` (tune.ts).
 *
 * Stopping: {@link WorkerHandle.stop} (SIGTERM or Ctrl-C in the CLI) hands
 * the jobs under way back to the queue at their next record batch (another
 * worker takes them from the start) and resolves once they are back; a
 * worker killed outright (SIGKILL, a lost host) stops renewing its jobs'
 * locks, and after `stallMs` another worker picks them up (BullMQ's stalled
 * jobs). A run cancelled by its coordinator is dropped at the next batch.
 */
import { hostname } from 'node:os';
import { UnrecoverableError, WaitingError, Worker, type Job } from 'bullmq';
import { Redis } from 'ioredis';
import { DataError, ModelError, UsageError } from '../errors.ts';
import { encodeFailure } from './coordinator.ts';
import { PayloadError, resolveRoots } from './payload.ts';
import { checkPredictRange, ModelCache, runPredictRange } from './predict.ts';
import { checkTuneRefit, checkTuneUnit, runTuneRefit, runTuneUnit } from './tune.ts';
import { cancelKey, JOB_TYPES, QUEUE_NAME, redisOptions, type JobType } from './queue.ts';
import type { QueueUrl } from './redis-url.ts';

/** How a worker runs. */
export interface WorkerOptions {
  readonly url: QueueUrl;
  /** Threads per job (default: all cores). */
  readonly threads?: number;
  /** Jobs at a time (default 1). */
  readonly concurrency?: number;
  /** Folders the job's paths must lie in (real paths compared). */
  readonly dataRoots: readonly string[];
  /** How long a dead worker's job waits before another takes it, in ms (default 30,000). */
  readonly stallMs?: number;
  /** One line per event (ready, job started, finished, failed). */
  readonly log: (line: string) => void;
}

/** A started worker. */
export interface WorkerHandle {
  /** Hands back the jobs under way and closes the connections. */
  stop(): Promise<void>;
  /** Resolves when the worker has stopped. */
  readonly stopped: Promise<void>;
}

/** Thrown between batches when the job must stop; `handBack` returns it to the queue. */
class StopJob extends Error {
  constructor(readonly handBack: boolean) {
    super(handBack ? 'handed back: the worker is stopping' : 'the coordinator cancelled the run');
  }
}

/**
 * Starts a worker; resolves once it is connected and waiting for jobs.
 *
 * @example
 * const w = await startWorker({ url: parseQueueUrl('redis://127.0.0.1:6379'), dataRoots: ['/shared'], log: console.log });
 * process.once('SIGTERM', () => void w.stop());
 */
export async function startWorker(opts: WorkerOptions): Promise<WorkerHandle> {
  const roots = await resolveRoots(opts.dataRoots);
  const me = `${hostname()}:${process.pid}`;
  const models = new ModelCache();
  const marks = new Redis(redisOptions(opts.url));
  marks.on('error', () => {});
  let stopping = false;
  const stallMs = opts.stallMs ?? 30_000;

  const processor = async (job: Job, token?: string): Promise<unknown> => {
    const type = job.name as JobType;
    const started = performance.now();
    const checkpoint = async () => {
      if (stopping) throw new StopJob(true);
      if ((await marks.exists(cancelKey(runOf(job)))) === 1) throw new StopJob(false);
    };
    try {
      if (!(JOB_TYPES as readonly string[]).includes(type)) throw new PayloadError(`unknown job type '${job.name}' (this worker runs ${JOB_TYPES.join(', ')})`);
      await checkpoint();
      let result: unknown;
      if (type === 'predict-range') {
        const p = await checkPredictRange(job.data, roots);
        opts.log(`job ${job.id}: predict ${p.data} batches ${p.first}…${p.end - 1} (${p.rows} rows)`);
        result = await runPredictRange(p, { models, checkpoint, ...(opts.threads !== undefined ? { threads: opts.threads } : {}) });
      } else {
        const unit = type === 'tune-unit' ? await checkTuneUnit(job.data, roots) : undefined;
        const refit = type === 'tune-refit' ? await checkTuneRefit(job.data, roots) : undefined;
        opts.log(unit ? `job ${job.id}: tune candidate ${unit.c}, fold ${unit.j}, iterations ${unit.from}…${unit.to}` : `job ${job.id}: refit candidate ${refit!.c} on all training rows`);
        // The training checks its signal every iteration; the checks against Redis run beside it.
        const stop = new AbortController();
        let stopWhy: StopJob | undefined;
        const watch = setInterval(() => {
          checkpoint().catch((err) => {
            if (err instanceof StopJob && !stop.signal.aborted) {
              stopWhy = err;
              stop.abort();
            }
          });
        }, 250);
        try {
          const ctx = { roots, checkpoint, signal: stop.signal, ...(opts.threads !== undefined ? { threads: opts.threads } : {}) };
          result = unit ? await runTuneUnit(unit, ctx) : await runTuneRefit(refit!, ctx);
        } catch (err) {
          throw stopWhy ?? err;
        } finally {
          clearInterval(watch);
        }
      }
      opts.log(`job ${job.id}: done in ${((performance.now() - started) / 1000).toFixed(2)} s`);
      return result;
    } catch (err) {
      if (err instanceof StopJob) {
        opts.log(`job ${job.id}: ${err.message}`);
        if (err.handBack && token !== undefined) {
          await job.moveToWait(token);
          throw new WaitingError();
        }
        throw new UnrecoverableError(encodeFailure(err, me));
      }
      opts.log(`job ${job.id}: failed: ${(err as Error).message}`);
      const final = err instanceof DataError || err instanceof ModelError || err instanceof UsageError || err instanceof PayloadError;
      if (final) throw new UnrecoverableError(encodeFailure(err, me));
      throw new Error(encodeFailure(err, me));
    }
  };

  const worker = new Worker(QUEUE_NAME, processor, {
    connection: redisOptions(opts.url),
    concurrency: opts.concurrency ?? 1,
    lockDuration: stallMs,
    stalledInterval: stallMs,
    maxStalledCount: 2,
    // An idle worker's long poll; a new job's marker wakes only one of the blocked workers, so the others
    // would join a round up to this late (BullMQ's default, 5 s, made two workers slower than one on short rounds).
    drainDelay: 0.5,
  });
  let lastError = '';
  worker.on('error', (err) => {
    const msg = err.message;
    if (msg !== lastError) opts.log(`queue: ${msg}`);
    lastError = msg;
  });
  worker.on('failed', (job, err) => {
    // A job of a cancelled run is removed here, where its lock is released.
    if (job && err instanceof UnrecoverableError && err.message.includes('the coordinator cancelled the run')) void job.remove().catch(() => {});
  });
  await worker.waitUntilReady();
  opts.log(`worker ${me} waiting for jobs on ${opts.url.shown} (queue '${QUEUE_NAME}'; threads ${opts.threads ?? 'all cores'}, ${opts.concurrency ?? 1} at a time; files under ${roots.join(', ')})`);
  let resolveStopped!: () => void;
  const stopped = new Promise<void>((r) => (resolveStopped = r));
  let stopping$: Promise<void> | undefined;
  return {
    stopped,
    stop() {
      stopping$ ??= (async () => {
        stopping = true;
        await worker.close();
        marks.disconnect();
        opts.log(`worker ${me} stopped`);
        resolveStopped();
      })();
      return stopping$;
    },
  };
}

/** The run id a job belongs to (its id is `<run>-<index>`). */
function runOf(job: Job): string {
  return String(job.id).replace(/-\d+$/, '');
}
