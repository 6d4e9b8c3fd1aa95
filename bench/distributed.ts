/**
 * `predict --queue` and `tune --queue` against their local runs, on a local
 * redis-server with `dsgkit worker --threads 1` processes (docs/distributed.md):
 *
 * - predict: a generated 2M-row file (10 features, `generate --seed 1`), a
 *   QSG-S2AUC model of T = 30 trained on it; local `--threads 2` against two
 *   workers; the output's SHA-256 compared;
 * - tune: 15 candidates × 5 folds (σ × λ, γ = 0.5, m = 256, T = 81) on a
 *   generated 5,000-row file with 500 labels; local `--threads 1`, one worker,
 *   two workers (`--refit queue` and the default `--refit local`); the refit
 *   model's SHA-256 compared. `--tune spam`: a user's tune instead, QSG-S2AUC
 *   at its defaults (the default grid and T) on the bundled spam set, whose
 *   units are long enough that the run's fixed cost (≈ 2.5 s: the
 *   coordinator's setup, the workers reading it) weighs less.
 *
 * Rounds alternate the variants; the last line is the ratio that issue 32
 * asks for: the median wall time of `tune --queue` with two workers over the
 * median with one (both `--refit queue`), with the load average beside it.
 * Each worker's log, every line timed from the run's start, is kept in the
 * work folder (`tune-q<n>-<refit>-r<round>.log`) to see where a run's time went.
 * Uses the built CLI (`npm run build` first) and Debian's redis-server. Writes
 * bench/results/distributed.json (with `--tune-only`: distributed-tune.json).
 *
 * @example
 * // npm run build && npm run bench:distributed -- [--rounds 3] [--tune-only] [--tune small|spam] [--work /tmp/dir]
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { median } from '../src/metrics/summary.ts';
import { freePort } from '../test/support/redis.ts';
import { markdownTable, writeBenchOutputs } from './lib/index.ts';

const { values: args } = parseArgs({ options: { rounds: { type: 'string', default: '2' }, 'tune-only': { type: 'boolean', default: false }, tune: { type: 'string', default: 'small' }, work: { type: 'string' } } });
if (args.tune !== 'small' && args.tune !== 'spam') throw new Error(`--tune: small or spam, got '${args.tune}'`);
const rounds = Number(args.rounds);
const work = args.work ?? join(tmpdir(), 'dsgkit-bench-distributed');
mkdirSync(work, { recursive: true });
const cli = new URL('../bin/dsgkit.js', import.meta.url).pathname;

function dsgkit(args: string[]): number {
  const t0 = performance.now();
  const r = spawnSync(process.execPath, [cli, ...args], { stdio: ['ignore', 'ignore', 'inherit'] });
  if (r.status !== 0) throw new Error(`dsgkit ${args.join(' ')} exited ${r.status}`);
  return (performance.now() - t0) / 1000;
}
const sha = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex');
const port = await freePort();
const redis = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
await new Promise((r) => setTimeout(r, 500));
const url = `redis://127.0.0.1:${port}`;

/** Runs the coordinator `argv` with `n` workers started and waiting; its seconds. The workers' lines, timed from the coordinator's start, go to `logFile`. */
async function queued(n: number, logFile: string | undefined, argv: string[]): Promise<number> {
  const workers: ChildProcess[] = [];
  const lines: string[] = [];
  let t0 = performance.now();
  const ready: Promise<void>[] = [];
  for (let i = 0; i < n; i++) {
    const w = spawn(process.execPath, [cli, 'worker', '--queue', url, '--threads', '1', '--data-root', work], { stdio: ['ignore', 'ignore', 'pipe'] });
    workers.push(w);
    ready.push(new Promise((resolve) => {
      let buf = '';
      w.stderr!.on('data', (b: Buffer) => {
        buf += b.toString();
        for (let nl = buf.indexOf('\n'); nl >= 0; nl = buf.indexOf('\n')) {
          const line = buf.slice(0, nl);
          buf = buf.slice(nl + 1);
          lines.push(`${((performance.now() - t0) / 1000).toFixed(3)} w${i} ${line}`);
          if (line.includes('waiting for jobs')) resolve();
        }
      });
    }));
  }
  await Promise.all(ready);
  try {
    t0 = performance.now();
    return await new Promise<number>((resolve, reject) => {
      const child = spawn(process.execPath, [cli, ...argv], { stdio: ['ignore', 'ignore', 'inherit'] });
      child.once('exit', (code) => (code === 0 ? resolve((performance.now() - t0) / 1000) : reject(new Error(`dsgkit ${argv.join(' ')} exited ${code}`))));
    });
  } finally {
    await Promise.all(workers.map((w) => new Promise((r) => { w.once('exit', r); w.kill('SIGTERM'); })));
    if (logFile) writeFileSync(logFile, lines.join('\n') + '\n');
  }
}

const tuneData = join(work, 'tune5k.arrow');
if (!existsSync(tuneData)) dsgkit(['generate', '--out', tuneData, '--rows', '5000', '--dim', '5', '--labeled', '500', '--seed', '4']);
const spamData = join(work, 'spam.arrow');
// The README's main job's split: 200 labeled training rows, 20% held out.
if (args.tune === 'spam' && !existsSync(spamData)) dsgkit(['split', new URL('../data/spam.arrow', import.meta.url).pathname, '--labeled', '200', '--test', '0.2', '--seed', '1', '--out-train', spamData, '--out-test', join(work, 'spam-test.arrow')]);
const tuneArgs = args.tune === 'spam' ? ['tune', '--learner', 'qsg-s2auc', '--data', spamData, '--seed', '2', '--threads', '1', '-q'] : ['tune', '--learner', 'qsg-s2auc', '--data', tuneData, '--iterations', '81', '--random-features', '256', '--gamma', '0.5', '--grid', 'sigma=0.25,0.5,1,2,4;lambda=0.0001,0.001,0.01', '--folds', '5', '--seed', '2', '--threads', '1', '-q'];
const data = join(work, 'g2m.arrow');
const model = join(work, 'm30.dsg');
if (!args['tune-only']) {
  if (!existsSync(data)) dsgkit(['generate', '--out', data, '--rows', '2e6', '--dim', '10', '--labeled', '1000', '--seed', '1']);
  if (!existsSync(model)) dsgkit(['train', '--learner', 'qsg-s2auc', '--data', data, '--out', model, '--iterations', '30', '--seed', '1', '-q']);
}

/**
 * From a run's timed worker log: the seconds the workers spent in jobs, and
 * their busy share between the first job's start and the last job's end
 * (1 = never idle). On a machine shared with other work the wall times say
 * how much CPU the workers got; the busy share says how well the run kept
 * them fed, which is what dsgkit's scheduling decides.
 */
function busy(logFile: string, workers: number): { jobSeconds: number; busyShare: number } {
  let first = Infinity;
  let last = 0;
  let jobSeconds = 0;
  for (const line of readFileSync(logFile, 'utf8').split('\n')) {
    const m = /^(\d+\.\d+) w\d+ .*: done in (\d+\.\d+) s$/.exec(line);
    if (!m) continue;
    const end = Number(m[1]);
    jobSeconds += Number(m[2]);
    first = Math.min(first, end - Number(m[2]));
    last = Math.max(last, end);
  }
  return { jobSeconds, busyShare: last > first ? jobSeconds / (workers * (last - first)) : 0 };
}

interface Run { task: string; variant: string; round: number; seconds: number; sha256: string; load: number; jobSeconds?: number; busyShare?: number }
const runs: Run[] = [];
const record = (task: string, variant: string, round: number, seconds: number, out: string, use?: { jobSeconds: number; busyShare: number }) => {
  runs.push({ task, variant, round, seconds, sha256: sha(out), load: loadavg()[0], ...use });
  console.log(`${task} ${variant} round ${round}: ${seconds.toFixed(1)} s (load ${loadavg()[0].toFixed(1)}${use ? `; jobs ${use.jobSeconds.toFixed(1)} s, workers busy ${(100 * use.busyShare).toFixed(0)}%` : ''})`);
};
const TUNE = args.tune === 'spam' ? 'tune qsg-s2auc defaults, spam' : 'tune 15 × 5 folds';
try {
  for (let round = 1; round <= rounds; round++) {
    if (!args['tune-only']) {
      const local = join(work, 'local.arrow');
      record('predict 2M rows, T = 30', 'local --threads 2', round, dsgkit(['predict', '--model', model, '--data', data, '--out', local, '--threads', '2', '-q']), local);
      const out = join(work, 'queued.arrow');
      record('predict 2M rows, T = 30', 'queue, 2 workers --threads 1', round, await queued(2, undefined, ['predict', '--model', model, '--data', data, '--out', out, '--queue', url, '-q']), out);
    }
    const tl = join(work, 'tune-local.dsg');
    record(TUNE, 'local --threads 1', round, dsgkit([...tuneArgs, '--out', tl]), tl);
    for (const [n, refit] of [[1, 'queue'], [2, 'queue'], [2, 'local']] as const) {
      const tq = join(work, `tune-q${n}-${refit}.dsg`);
      const log = join(work, `tune-q${n}-${refit}-r${round}.log`);
      const seconds = await queued(n, log, [...tuneArgs, '--out', tq, '--queue', url, '--refit', refit]);
      record(TUNE, `queue, ${n} worker${n > 1 ? 's' : ''} --threads 1, --refit ${refit}`, round, seconds, tq, busy(log, n));
    }
  }
} finally {
  redis.kill('SIGKILL');
}

const variants = [...new Set(runs.map((r) => `${r.task}\t${r.variant}`))];
const summary = variants.map((key) => {
  const [task, variant] = key.split('\t');
  const mine = runs.filter((r) => r.task === task && r.variant === variant);
  const hashes = new Set(runs.filter((r) => r.task === task).map((r) => r.sha256));
  const use = mine.every((r) => r.busyShare !== undefined) ? mine.map((r) => `${r.jobSeconds!.toFixed(1)} s, ${(100 * r.busyShare!).toFixed(0)}%`).join(' / ') : '';
  return { task, variant, seconds: mine.map((r) => Number(r.seconds.toFixed(2))).join(' / '), median: Number(median(mine.map((r) => r.seconds)).toFixed(2)), load: mine.map((r) => r.load.toFixed(1)).join(' / '), 'jobs, workers busy': use, 'same bytes as local': hashes.size === 1 ? 'yes' : 'NO' };
});
console.log(markdownTable(summary));
const of = (variant: string) => median(runs.filter((r) => r.task === TUNE && r.variant === variant).map((r) => r.seconds));
const ratio = of('queue, 2 workers --threads 1, --refit queue') / of('queue, 1 worker --threads 1, --refit queue');
const loads = runs.map((r) => r.load);
console.log(`tune --queue, 2 workers / 1 worker (--refit queue, medians of ${rounds}): ${ratio.toFixed(2)}× (load average ${Math.min(...loads).toFixed(1)}–${Math.max(...loads).toFixed(1)} on ${cpus().length} cores)`);
writeBenchOutputs(args['tune-only'] ? `distributed-tune${args.tune === 'spam' ? '-spam' : ''}` : 'distributed', { meta: { rounds, tuneOnly: args['tune-only'], tune: args.tune, cpu: cpus()[0]?.model, cores: cpus().length, date: new Date().toISOString() }, runs, summary, ratio });
