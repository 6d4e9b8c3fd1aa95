/** `dsgkit worker`: run dsgkit's jobs from a Redis queue (distributed `predict` and `tune`). */
import type { startWorker } from '../../distributed/worker.ts';
import { loadQueueModule } from '../../distributed/optional.ts';
import { parseQueueUrl } from '../../distributed/redis-url.ts';
import { UsageError } from '../../errors.ts';
import { intOption, parseCommandArgs, positiveNumberOption, requireString } from '../args.ts';
import { takeOverSignals } from '../signals.ts';
import type { Command } from './command.ts';

const HELP = `dsgkit worker — run dsgkit jobs from a Redis queue, on this host's cores

Usage: dsgkit worker --queue redis://HOST:PORT[/DB] [options]

Waits for jobs that 'dsgkit predict --queue' (a range of an input's record
batches each) and 'dsgkit tune --queue' (one candidate on one fold for one
round's iterations each, and with --refit queue the winner's refit) put on
the queue, and runs them on its own threads,
printing one line per job. Start one per host (or several with --threads each); they share
nothing but the Redis server and a shared folder where the model, the input
and the output's folder have the same absolute paths on every host.

It runs only dsgkit's own job types, each payload checked field by field, and
reads or writes only files inside the --data-root folders (default: the
current folder). SIGTERM or Ctrl-C hands the job under way back to the queue
(another worker runs it) and exits 0; a second one exits at once. A worker
that dies (kill -9, a lost host) leaves its job to be picked up by another
after --stall-seconds.

Options:
  --queue <url>           redis://[[user]:password@]host[:port][/db]; rediss:// for TLS (required)
  --threads <n>           threads per job (default: all cores)
  --concurrency <k>       jobs at a time (default 1)
  --data-root <dir>       a folder whose files jobs may read and write; repeat for more (default: .)
  --stall-seconds <s>     how long a dead worker's job waits before another worker takes it (default 30)
  -h, --help              show this help

Example:
  redis-server --port 6379 &
  dsgkit worker --queue redis://127.0.0.1:6379 --data-root /shared --threads 8
  dsgkit predict --model /shared/m.dsg --data /shared/big.arrow --out /shared/scores.arrow --queue redis://127.0.0.1:6379
`;

export const workerCommand: Command = {
  name: 'worker',
  summary: 'run predict and tune jobs from a Redis queue (many hosts)',
  help: HELP,
  async run(argv, io) {
    const { values, positionals } = parseCommandArgs(argv, {
      queue: { type: 'string' },
      threads: { type: 'string' },
      concurrency: { type: 'string' },
      'data-root': { type: 'string', multiple: true },
      'stall-seconds': { type: 'string' },
    });
    if (positionals.length > 0) throw new UsageError(`unexpected argument '${positionals[0]}'`);
    const url = parseQueueUrl(requireString(values, 'queue'));
    const threads = intOption(values, 'threads', { min: 1 });
    const concurrency = intOption(values, 'concurrency', { min: 1 });
    const stall = positiveNumberOption(values, 'stall-seconds');
    const roots = (values['data-root'] as unknown as string[] | undefined) ?? ['.'];
    const release = takeOverSignals();
    try {
      const log = (line: string) => io.stderr.write(`dsgkit worker: ${line}\n`);
      let worker: Awaited<ReturnType<typeof startWorker>>;
      try {
        const { startWorker: start } = await loadQueueModule(() => import('../../distributed/worker.ts'));
        worker = await start({
          url,
          dataRoots: roots,
          log,
          ...(threads !== undefined ? { threads } : {}),
          ...(concurrency !== undefined ? { concurrency } : {}),
          ...(stall !== undefined ? { stallMs: Math.round(stall * 1000) } : {}),
        });
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        if (code === 'ENOENT') throw new UsageError(`--data-root: ${(err as NodeJS.ErrnoException).path ?? ''} does not exist`);
        throw err;
      }
      let signals = 0;
      const onSignal = (signal: string) => {
        if (++signals > 1) process.exit(signal === 'SIGINT' ? 130 : 143);
        log(`${signal}: handing back the job under way and stopping`);
        void worker.stop();
      };
      process.on('SIGINT', onSignal);
      process.on('SIGTERM', onSignal);
      try {
        await worker.stopped;
      } finally {
        process.removeListener('SIGINT', onSignal);
        process.removeListener('SIGTERM', onSignal);
      }
      return 0;
    } finally {
      release();
    }
  },
};
