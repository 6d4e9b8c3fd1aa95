/**
 * `predict --queue` and `tune --queue` against their local runs, on a local
 * redis-server with `dsgkit worker --threads 1` processes (docs/distributed.md):
 *
 * - predict: a generated 2M-row file (10 features, `generate --seed 1`), a
 *   QSG-S2AUC model of T = 30 trained on it; local `--threads 2` against two
 *   workers; the output's SHA-256 compared;
 * - tune: 15 candidates × 5 folds (σ × λ, γ = 0.5, m = 256, T = 81) on a
 *   generated 5,000-row file with 500 labels; local `--threads 1`, one worker,
 *   two workers; the refit model's SHA-256 compared.
 *
 * Rounds alternate the variants. Uses the built CLI (`npm run build` first)
 * and Debian's redis-server. Writes bench/results/distributed.json.
 *
 * @example
 * // npm run build && npx tsx bench/distributed.ts [rounds=2] [workdir]
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../test/support/redis.ts';
import { markdownTable, writeBenchOutputs } from './lib/index.ts';

const rounds = Number(process.argv[2] ?? 2);
const work = process.argv[3] ?? join(tmpdir(), 'dsgkit-bench-distributed');
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

async function withWorkers<T>(n: number, run: () => T): Promise<T> {
  const workers: ChildProcess[] = [];
  for (let i = 0; i < n; i++) workers.push(spawn(process.execPath, [cli, 'worker', '--queue', url, '--threads', '1', '--data-root', work], { stdio: 'ignore' }));
  await new Promise((r) => setTimeout(r, 2000));
  try {
    return run();
  } finally {
    await Promise.all(workers.map((w) => new Promise((r) => { w.once('exit', r); w.kill('SIGTERM'); })));
  }
}

const data = join(work, 'g2m.arrow');
const model = join(work, 'm30.dsg');
if (!existsSync(data)) dsgkit(['generate', '--out', data, '--rows', '2e6', '--dim', '10', '--labeled', '1000', '--seed', '1']);
if (!existsSync(model)) dsgkit(['train', '--learner', 'qsg-s2auc', '--data', data, '--out', model, '--iterations', '30', '--seed', '1', '-q']);
const tuneData = join(work, 'tune5k.arrow');
if (!existsSync(tuneData)) dsgkit(['generate', '--out', tuneData, '--rows', '5000', '--dim', '5', '--labeled', '500', '--seed', '4']);
const tuneArgs = ['tune', '--learner', 'qsg-s2auc', '--data', tuneData, '--iterations', '81', '--random-features', '256', '--gamma', '0.5', '--grid', 'sigma=0.25,0.5,1,2,4;lambda=0.0001,0.001,0.01', '--folds', '5', '--seed', '2', '--threads', '1', '-q'];

interface Run { task: string; variant: string; round: number; seconds: number; sha256: string; load: number }
const runs: Run[] = [];
const record = (task: string, variant: string, round: number, seconds: number, out: string) => {
  runs.push({ task, variant, round, seconds, sha256: sha(out), load: loadavg()[0] });
  console.log(`${task} ${variant} round ${round}: ${seconds.toFixed(1)} s (load ${loadavg()[0].toFixed(1)})`);
};
try {
  for (let round = 1; round <= rounds; round++) {
    const local = join(work, 'local.arrow');
    record('predict 2M rows, T = 30', 'local --threads 2', round, dsgkit(['predict', '--model', model, '--data', data, '--out', local, '--threads', '2', '-q']), local);
    const queued = join(work, 'queued.arrow');
    record('predict 2M rows, T = 30', 'queue, 2 workers --threads 1', round, await withWorkers(2, () => dsgkit(['predict', '--model', model, '--data', data, '--out', queued, '--queue', url, '-q'])), queued);
    const tl = join(work, 'tune-local.dsg');
    record('tune 15 × 5 folds', 'local --threads 1', round, dsgkit([...tuneArgs, '--out', tl]), tl);
    for (const n of [1, 2]) {
      const tq = join(work, `tune-q${n}.dsg`);
      record('tune 15 × 5 folds', `queue, ${n} worker${n > 1 ? 's' : ''} --threads 1`, round, await withWorkers(n, () => dsgkit([...tuneArgs, '--out', tq, '--queue', url])), tq);
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
  return { task, variant, seconds: mine.map((r) => Number(r.seconds.toFixed(2))).join(' / '), load: mine.map((r) => r.load.toFixed(1)).join(' / '), 'same bytes as local': hashes.size === 1 ? 'yes' : 'NO' };
});
console.log(markdownTable(summary));
writeBenchOutputs('distributed', { meta: { rounds, cpu: cpus()[0]?.model, cores: cpus().length, date: new Date().toISOString() }, runs, summary });
