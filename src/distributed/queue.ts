/**
 * The one BullMQ queue dsgkit's coordinators and workers share, and how they
 * connect to its Redis server.
 *
 * Every dsgkit job lives in the queue named {@link QUEUE_NAME}; its name is
 * one of {@link JOB_TYPES} and its data a JSON payload that the worker checks
 * field by field before it touches a file. A coordinator's jobs carry its run
 * id (`<run>-<index>`), so it can find, re-add and remove exactly its own;
 * they are the children of one parent job `<run>` in {@link RUNS_QUEUE}.
 */
import type { RedisOptions } from 'bullmq';
import type { QueueUrl } from './redis-url.ts';

/** The queue every dsgkit job goes through. */
export const QUEUE_NAME = 'dsgkit';

/**
 * The queue of the runs' parent jobs (one per run, its children the run's
 * jobs in {@link QUEUE_NAME}); no worker takes from it.
 */
export const RUNS_QUEUE = 'dsgkit-runs';

/** The job types a worker runs; anything else is refused. */
export const JOB_TYPES = ['predict-range', 'tune-unit', 'tune-refit'] as const;
export type JobType = (typeof JOB_TYPES)[number];

/**
 * ioredis options for `url`: commands wait while the server is away (ioredis
 * reconnects every 0.2–2 s), which is what BullMQ's workers require; the
 * coordinator bounds that wait itself ({@link runJobs}'s `redisWaitMs`).
 *
 * @example
 * new Queue(QUEUE_NAME, { connection: redisOptions(parseQueueUrl('redis://127.0.0.1:6379')) });
 */
export function redisOptions(url: QueueUrl): RedisOptions {
  return {
    host: url.host,
    port: url.port,
    db: url.db,
    ...(url.username !== undefined ? { username: url.username } : {}),
    ...(url.password !== undefined ? { password: url.password } : {}),
    ...(url.tls ? { tls: url.tls } : {}),
    maxRetriesPerRequest: null,
    enableOfflineQueue: true,
    retryStrategy: (times: number) => Math.min(200 * times, 2000),
  };
}

/** The Redis key that marks a coordinator's run as cancelled (workers stop its jobs). */
export function cancelKey(run: string): string {
  return `dsgkit:run:${run}:cancelled`;
}

/** A fresh run id: 12 hex digits, so job ids are `<run>-<index>`. */
export function newRunId(prefix: string): string {
  const bytes = new Uint8Array(6);
  crypto.getRandomValues(bytes);
  return prefix + Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}
