/**
 * The queue's packages (bullmq, ioredis) are optional peer dependencies: a
 * user who never runs `--queue` or `dsgkit worker` installs neither (and gets
 * no warning about their native install scripts). The distributed modules are
 * loaded through {@link loadQueueModule}, which turns a missing package into
 * a UsageError that says what to install.
 *
 * @example
 * const { scoreOnQueue } = await loadQueueModule(() => import('./predict.ts'));
 */
import { UsageError } from '../errors.ts';

/** Imports a module of src/distributed/; a UsageError naming the packages to install when they are missing. */
export async function loadQueueModule<T>(load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    if ((e.code === 'ERR_MODULE_NOT_FOUND' || e.code === 'MODULE_NOT_FOUND') && /bullmq|ioredis/.test(e.message)) {
      throw new UsageError('--queue and dsgkit worker need the optional packages bullmq and ioredis: npm install bullmq ioredis');
    }
    throw err;
  }
}
