/**
 * Distributed predict on a real redis-server (started on a free loopback
 * port) with real `dsgkit worker` processes: the same output bytes as a local
 * run, after a worker's SIGKILL, a Redis restart, a bad value; Ctrl-C and a
 * lost Redis leave nothing behind. Skipped, saying why, without redis-server.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tableFromIPC } from 'apache-arrow';
import { Redis } from 'ioredis';
import { train } from '../src/api.ts';
import { tune, type TuneOptions } from '../src/tune.ts';
import { main } from '../src/cli/main.ts';
import { encodeArrow, makeDataset, readDataset, writeBatchesStreaming } from '../src/data/index.ts';
import { writeSynthetic } from '../src/data/synthetic.ts';
import { parseQueueUrl } from '../src/distributed/redis-url.ts';
import { batchRanges, checkPredictRange } from '../src/distributed/predict.ts';
import { checkTuneRefit } from '../src/distributed/tune.ts';
import { openArrowRows } from '../src/data/arrow.ts';
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { redisMissing, startRedis, type TestRedis } from './support/redis.ts';
import { rareWeakSplit } from './support/rare-class.ts';

const missing = redisMissing();
if (missing) console.warn(`distributed.test.ts: ${missing}`);

const entry = new URL('../src/cli/main.ts', import.meta.url).pathname;

async function run(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await main(argv, { stdout: { write: (s: string) => (out += s) }, stderr: { write: (s: string) => (err += s) } });
  return { code, out, err };
}

/** A `dsgkit worker` process; `log` is its stderr so far, `exited` its exit code. */
interface WorkerProcess {
  child: ChildProcess;
  log: () => string;
  exited: Promise<number | null>;
  waitFor: (text: string | RegExp, ms?: number) => Promise<void>;
}

const workers: WorkerProcess[] = [];

function startWorker(url: string, ...extra: string[]): WorkerProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', entry, 'worker', '--queue', url, '--threads', '1', '--stall-seconds', '1', ...extra], { stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  child.stderr!.on('data', (b: Buffer) => (log += b.toString()));
  const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  const w: WorkerProcess = {
    child,
    log: () => log,
    exited,
    async waitFor(text, ms = 30_000) {
      const end = Date.now() + ms;
      while (!(typeof text === 'string' ? log.includes(text) : text.test(log))) {
        if (Date.now() > end) throw new Error(`worker never logged ${String(text)}; its log:\n${log}`);
        if (child.exitCode !== null) throw new Error(`worker exited (${child.exitCode}); its log:\n${log}`);
        await new Promise((r) => setTimeout(r, 10));
      }
    },
  };
  workers.push(w);
  return w;
}

async function stopAll(): Promise<void> {
  for (const w of workers.splice(0)) {
    if (w.child.exitCode === null && w.child.signalCode === null) w.child.kill('SIGKILL');
    await w.exited;
  }
}

let dir: string;
let redis: TestRedis;
let modelFile: string;
let dataFile: string;
let local: Buffer;

beforeAll(async () => {
  if (missing) return;
  dir = await mkdtemp(join(tmpdir(), 'dsgkit-distributed-'));
  redis = await startRedis();
  dataFile = join(dir, 'rows.arrow');
  await writeSynthetic(dataFile, { rows: 12_000, dim: 5, labeled: 300, seed: 3, batchRows: 1000 });
  const model = await train({ learner: 'qsg-s2auc', data: dataFile, T: 200, seed: 1, threads: 1 });
  modelFile = join(dir, 'm.dsg');
  await model.save(modelFile);
  const r = await run('predict', '--model', modelFile, '--data', dataFile, '--out', join(dir, 'local.arrow'), '--threads', '1', '-q');
  expect(r.code, r.err).toBe(0);
  local = await readFile(join(dir, 'local.arrow'));
});

afterAll(async () => {
  if (missing) return;
  await stopAll();
  await redis.stop();
  await rm(dir, { recursive: true, force: true });
});

/** Keys of dsgkit's queue that hold jobs (BullMQ's own bookkeeping keys aside). */
async function jobKeys(): Promise<string[]> {
  const client = new Redis({ port: redis.port, host: '127.0.0.1', lazyConnect: true });
  try {
    // A run's jobs (`<run>-<i>`) and its parent (`<run>`) in the runs queue; run ids are p… (predict) and t… (tune).
    const keys = (await client.keys('bull:dsgkit*')).filter((k) => /^bull:dsgkit(-runs)?:[pt][0-9a-f]{12}/.test(k));
    const lists = await Promise.all(['dsgkit', 'dsgkit-runs'].flatMap((q) => ['wait', 'active', 'completed', 'failed', 'delayed', 'prioritized', 'waiting-children'].map(async (k) => {
      const type = await client.type(`bull:${q}:${k}`);
      return type === 'list' ? client.llen(`bull:${q}:${k}`) : type === 'zset' ? client.zcard(`bull:${q}:${k}`) : 0;
    })));
    return lists.some((n) => n > 0) ? [...keys, `queue lists: ${lists.join(',')}`] : keys;
  } finally {
    client.disconnect();
  }
}

/** Everything in `dir` but the fixtures: no parts folder, no temporary file may remain. */
async function leftovers(): Promise<string[]> {
  return (await readdir(dir)).filter((n) => !['rows.arrow', 'm.dsg', 'local.arrow', 'bad.arrow'].includes(n) && !n.endsWith('-out.arrow'));
}

describe.skipIf(missing !== undefined)('predict --queue on a real redis-server', () => {
  it('two workers: the same bytes as a local predict; no job, part or temporary file left', async () => {
    const a = startWorker(redis.url, '--data-root', dir);
    const b = startWorker(redis.url, '--data-root', dir);
    await Promise.all([a.waitFor('waiting for jobs'), b.waitFor('waiting for jobs')]);
    const out = join(dir, 'two-out.arrow');
    const r = await run('predict', '--model', modelFile, '--data', dataFile, '--out', out, '--queue', redis.url, '--job-rows', '2000', '-q');
    expect(r.code, r.err).toBe(0);
    expect(r.out).toContain('12000 rows');
    expect(Buffer.compare(await readFile(out), local)).toBe(0);
    expect(await leftovers()).toEqual([]);
    expect(await jobKeys()).toEqual([]);
    // SIGTERM: the worker says so and exits 0.
    a.child.kill('SIGTERM');
    b.child.kill('SIGTERM');
    expect(await a.exited).toBe(0);
    expect(await b.exited).toBe(0);
    expect(a.log()).toContain('stopped');
    await stopAll();
  });

  it('a worker killed with SIGKILL mid-job: another picks the job up, the same bytes', async () => {
    const a = startWorker(redis.url, '--data-root', dir);
    await a.waitFor('waiting for jobs');
    const out = join(dir, 'kill-out.arrow');
    const predicting = run('predict', '--model', modelFile, '--data', dataFile, '--out', out, '--queue', redis.url, '--job-rows', '6000', '-q');
    await a.waitFor(/job (p[0-9a-f]+-0): predict/);
    const jobId = /job (p[0-9a-f]+-0): predict/.exec(a.log())![1];
    a.child.kill('SIGKILL');
    await a.exited;
    expect(a.log()).not.toContain(`job ${jobId}: done`);
    const b = startWorker(redis.url, '--data-root', dir);
    const r = await predicting;
    expect(r.code, r.err).toBe(0);
    await b.waitFor(`job ${jobId}: done`, 5_000); // its stderr may reach us after the coordinator saw the job complete
    expect(Buffer.compare(await readFile(out), local)).toBe(0);
    expect(await leftovers()).toEqual([]);
    await stopAll();
  });

  it('SIGTERM mid-job: the worker hands the job back and exits 0; another finishes it, the same bytes', async () => {
    const a = startWorker(redis.url, '--data-root', dir);
    await a.waitFor('waiting for jobs');
    const out = join(dir, 'term-out.arrow');
    const predicting = run('predict', '--model', modelFile, '--data', dataFile, '--out', out, '--queue', redis.url, '--job-rows', '12000', '-q');
    await a.waitFor(/job (p[0-9a-f]+-0): predict/);
    const jobId = /job (p[0-9a-f]+-0): predict/.exec(a.log())![1];
    a.child.kill('SIGTERM');
    expect(await a.exited).toBe(0);
    expect(a.log()).toContain(`job ${jobId}: handed back: the worker is stopping`);
    const b = startWorker(redis.url, '--data-root', dir);
    const r = await predicting;
    expect(r.code, r.err).toBe(0);
    await b.waitFor(`job ${jobId}: done`, 5_000); // its stderr may reach us after the coordinator saw the job complete
    expect(Buffer.compare(await readFile(out), local)).toBe(0);
    await stopAll();
  });

  it('a bad value: the coordinator fails with file, column and row; nothing written', async () => {
    const ds = await readDataset(dataFile);
    const X = Float64Array.from(ds.X);
    const row = 9_876;
    X[row * ds.d + 3] = NaN;
    const bad = join(dir, 'bad.arrow');
    const table = tableFromIPC(encodeArrow(makeDataset({ X, d: ds.d, y: ds.y, featureNames: ds.featureNames })));
    const slices = [];
    for (let at = 0; at < table.numRows; at += 1000) slices.push(...table.slice(at, at + 1000).batches);
    await writeBatchesStreaming(bad, slices, 'file');
    const w = startWorker(redis.url, '--data-root', dir);
    const out = join(dir, 'never.arrow');
    const r = await run('predict', '--model', modelFile, '--data', bad, '--out', out, '--queue', redis.url, '--job-rows', '4000', '-q');
    expect(r.code).toBe(1);
    expect(r.err).toContain(`${bad}: column '${ds.featureNames[3]}', row ${row + 1}: value is NaN`);
    expect(await leftovers()).toEqual([]);
    expect(await jobKeys()).toEqual([]);
    await w.waitFor('failed');
    await stopAll();
  });

  it('a worker refuses paths outside its --data-root, and the coordinator says which', async () => {
    const elsewhere = await mkdtemp(join(tmpdir(), 'dsgkit-elsewhere-'));
    startWorker(redis.url, '--data-root', elsewhere);
    const r = await run('predict', '--model', modelFile, '--data', dataFile, '--out', join(dir, 'refused-out.arrow'), '--queue', redis.url, '-q');
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/refused job p[0-9a-f]+-0: model '.*m\.dsg' is outside this worker's allowed roots/);
    expect(await leftovers()).toEqual([]);
    await stopAll();
    await rm(elsewhere, { recursive: true });
  });

  it('Ctrl-C on the coordinator removes its jobs, its parts folder and writes nothing', async () => {
    const out = join(dir, 'cancel-out.arrow');
    const predicting = run('predict', '--model', modelFile, '--data', dataFile, '--out', out, '--queue', redis.url, '--job-rows', '2000', '-q');
    const end = Date.now() + 20_000;
    while ((await jobKeys()).length === 0 && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
    expect((await jobKeys()).length).toBeGreaterThan(0);
    process.emit('SIGINT');
    const r = await predicting;
    expect(r.code).toBe(130);
    expect(r.err).toContain('cancelled');
    expect(await leftovers()).toEqual([]);
    expect(await jobKeys()).toEqual([]);
  });

  it('Redis restarted empty mid-run: the coordinator adds its lost jobs again, the same bytes', async () => {
    const out = join(dir, 'restart-out.arrow');
    const predicting = run('predict', '--model', modelFile, '--data', dataFile, '--out', out, '--queue', redis.url, '--job-rows', '3000', '-q');
    const end = Date.now() + 20_000;
    while ((await jobKeys()).length === 0 && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
    await redis.restart(500);
    startWorker(redis.url, '--data-root', dir);
    const r = await predicting;
    expect(r.code, r.err).toBe(0);
    expect(r.err).toContain('no longer in Redis');
    expect(Buffer.compare(await readFile(out), local)).toBe(0);
    expect(await leftovers()).toEqual([]);
    await stopAll();
  });

  it('Redis gone for longer than --redis-wait: a clean failure naming the server (no password), nothing written', async () => {
    const guarded = await startRedis({ requirePass: 's3cret' });
    const out = join(dir, 'lost-out.arrow');
    const started = Date.now();
    const predicting = run('predict', '--model', modelFile, '--data', dataFile, '--out', out, '--queue', guarded.url, '--redis-wait', '1', '-q');
    await new Promise((r) => setTimeout(r, 300));
    await guarded.stop();
    const r = await predicting;
    expect(r.code).toBe(1);
    expect(r.err).toContain(`redis://:***@127.0.0.1:${guarded.port}: Redis did not answer for 1 s`);
    expect(r.err).not.toContain('s3cret');
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(await leftovers()).toEqual([]);
  });
});

describe.skipIf(missing !== undefined)('tune --queue on a real redis-server', () => {
  const options = (): TuneOptions => ({ learner: 'qsg-s2auc', data: join(dir, 'tune.arrow'), T: 27, gamma: 0.5, grid: { lambda: [0.001, 0.01, 0.1], sigma: [0.5, 1] }, folds: 3, seed: 2, threads: 1 });
  let localTable: string;
  let localModel: Uint8Array;

  beforeAll(async () => {
    await writeSynthetic(join(dir, 'tune.arrow'), { rows: 3000, dim: 5, labeled: 300, seed: 4 });
    const r = await tune(options());
    localTable = JSON.stringify({ best: r.best, table: r.table, rounds: r.rounds, cost: r.cost });
    localModel = r.model.toBytes();
  });

  it('two workers: the same chosen settings, CV table and refit model bytes as tune on one machine, with states in Redis or in the state folder, the refit here or on a worker; nothing left behind', async () => {
    const a = startWorker(redis.url, '--data-root', dir);
    const b = startWorker(redis.url, '--data-root', dir);
    await Promise.all([a.waitFor('waiting for jobs'), b.waitFor('waiting for jobs')]);
    const jobs: string[] = [];
    const r = await tune({ ...options(), queue: redis.url, stateDir: dir, onProgress: (p) => p.jobs && jobs.push(`${p.round}:${p.jobs.done}/${p.jobs.total}`) });
    expect(JSON.stringify({ best: r.best, table: r.table, rounds: r.rounds, cost: r.cost })).toBe(localTable);
    expect(Buffer.compare(Buffer.from(r.model.toBytes()), Buffer.from(localModel))).toBe(0);
    const log = a.log() + b.log();
    expect(log).toMatch(/tune candidate \d+, fold \d, iterations 10…27/);
    // The defaults (not a grid point) ran from 0 to T beside the halving's rounds.
    expect(log).toMatch(/job t[0-9a-f]+d-\d: tune candidate 6, fold \d, iterations 0…27/);
    // Progress counts every round's jobs: 6 candidates × 3 folds first, and each round ends with all of its jobs done.
    expect(jobs[0]).toBe('0:0/18');
    for (const round of new Set(jobs.map((j) => j.split(':')[0]))) expect(jobs.filter((j) => j.startsWith(`${round}:`)).at(-1)).toMatch(/^\d+:(\d+)\/\1$/);

    // Every state through the shared folder, and the refit as a job: the same bytes again.
    const files = await tune({ ...options(), queue: redis.url, stateDir: dir, stateInlineBytes: 0, refit: 'queue' });
    expect(JSON.stringify({ best: files.best, table: files.table, rounds: files.rounds, cost: files.cost })).toBe(localTable);
    expect(Buffer.compare(Buffer.from(files.model.toBytes()), Buffer.from(localModel))).toBe(0);
    // The refit of the last round's candidate or of the defaults started on a worker before the winner was known; the loser's was cancelled.
    expect(a.log() + b.log()).toMatch(/job t[0-9a-f]+f\d+-0: refit candidate \d+ on all training rows/);
    expect((await readdir(dir)).filter((n) => n.startsWith('.dsgkit-tune-'))).toEqual([]);
    // A cancelled refit's job is removed by its worker as it stops (within a moment).
    for (let i = 0; i < 50 && (await jobKeys()).length > 0; i++) await new Promise((r) => setTimeout(r, 100));
    expect(await jobKeys()).toEqual([]);
    await stopAll();
  });

  it('GKM (halved over its budget, every unit from scratch) with its class-share cut chosen below 1: the same choice and model bytes with the refit on a worker as here', async () => {
    const rare = { learner: 'gkm', data: rareWeakSplit().train, T: 200, folds: 3, seed: 2, threads: 1, grid: { C: [16, 256], Cprime: [0, 1] }, onWarning: () => {} } as const;
    const local = await tune(rare);
    expect(local.minorityShare!.chosen).toBeLessThan(1);
    const w = startWorker(redis.url, '--data-root', dir);
    await w.waitFor('waiting for jobs');
    const remote = await tune({ ...rare, queue: redis.url, stateDir: dir, refit: 'queue' });
    expect(remote.minorityShare).toEqual(local.minorityShare);
    expect(remote.best).toEqual(local.best);
    expect(Buffer.compare(Buffer.from(remote.model.toBytes()), Buffer.from(local.model.toBytes()))).toBe(0);
    expect(w.log()).toMatch(/refit candidate \d+ on all training rows/);
    await stopAll();
  });

  it('a tune-refit payload may name only one of the minority shares', async () => {
    const run = 'tabc';
    const folder = join(dir, `.dsgkit-tune-${run}`);
    await mkdir(folder, { recursive: true });
    await writeFile(join(folder, 'setup.bin'), 'x');
    const ok = { run, dir: folder, c: 0, inline: 0 };
    await expect(checkTuneRefit({ ...ok, share: 2 }, [dir])).resolves.toEqual({ ...ok, share: 2 });
    await expect(checkTuneRefit({ ...ok, share: 3 }, [dir])).rejects.toThrow('tune-refit: no minority share 3 (there are 3)');
    await expect(checkTuneRefit({ ...ok, share: 0.5 }, [dir])).rejects.toThrow("field 'share' is not a non-negative integer");
    await rm(folder, { recursive: true });
  });

  it('--refit and stateInlineBytes need a queue; a bad --refit is a usage error', async () => {
    await expect(tune({ ...options(), refit: 'queue' })).rejects.toThrow('refit needs queue');
    await expect(tune({ ...options(), queue: redis.url, stateDir: dir, stateInlineBytes: 2 ** 21 })).rejects.toThrow('stateInlineBytes must be a whole number from 0 to 1048576');
    const bad = await run('tune', '--learner', 'qsg-s2auc', '--data', join(dir, 'tune.arrow'), '--out', join(dir, 'x.dsg'), '--queue', redis.url, '--refit', 'there');
    expect(bad.code).toBe(2);
    expect(bad.err).toContain("--refit must be 'local' or 'queue', got 'there'");
  });

  it('a worker killed with SIGKILL mid-unit: another continues the unit from the stored state, the same bytes', async () => {
    // Fewer, longer units (m = 256), so the kill lands inside one.
    const heavy: TuneOptions = { learner: 'qsg-s2auc', data: join(dir, 'tune.arrow'), T: 27, gamma: 0.5, m: 256, sigma: 1, grid: { lambda: [0.001, 0.01] }, folds: 3, seed: 2, threads: 1 };
    const here = await tune(heavy);
    const a = startWorker(redis.url, '--data-root', dir);
    await a.waitFor('waiting for jobs');
    const tuning = tune({ ...heavy, queue: redis.url, stateDir: dir });
    const started = /job (t[0-9a-f]+r1-\d+): tune candidate \d+, fold \d, iterations 10…27/;
    await a.waitFor(started);
    const jobId = started.exec(a.log())![1];
    a.child.kill('SIGKILL');
    await a.exited;
    expect(a.log()).not.toContain(`job ${jobId}: done`);
    const b = startWorker(redis.url, '--data-root', dir);
    const r = await tuning;
    await b.waitFor(`job ${jobId}: done`, 5_000);
    expect(JSON.stringify(r.table)).toBe(JSON.stringify(here.table));
    expect(Buffer.compare(Buffer.from(r.model.toBytes()), Buffer.from(here.model.toBytes()))).toBe(0);
    await stopAll();
  });

  it('Redis restarted empty mid-round: the coordinator adds the round again with the states it holds, the same bytes', async () => {
    const a = startWorker(redis.url, '--data-root', dir);
    await a.waitFor('waiting for jobs');
    const tuning = tune({ ...options(), queue: redis.url, stateDir: dir });
    // Round 1's units continue from states that travelled in Redis (and are lost with it).
    await a.waitFor(/job t[0-9a-f]+r1-\d+: tune candidate/);
    await redis.restart(300);
    const r = await tuning;
    expect(JSON.stringify({ best: r.best, table: r.table, rounds: r.rounds, cost: r.cost })).toBe(localTable);
    expect(Buffer.compare(Buffer.from(r.model.toBytes()), Buffer.from(localModel))).toBe(0);
    expect((await readdir(dir)).filter((n) => n.startsWith('.dsgkit-tune-'))).toEqual([]);
    await stopAll();
  });
});

describe('--queue URLs', () => {
  it('password, database and TLS are read from the URL; the password is never shown', () => {
    const u = parseQueueUrl('rediss://dsg:p%40ss@queue.example.org:6380/3');
    expect(u).toMatchObject({ host: 'queue.example.org', port: 6380, db: 3, username: 'dsg', password: 'p@ss', tls: { servername: 'queue.example.org' } });
    expect(u.shown).toBe('rediss://dsg:***@queue.example.org:6380/3');
    expect(parseQueueUrl('redis://10.0.0.5')).toMatchObject({ port: 6379, db: 0, shown: 'redis://10.0.0.5' });
    expect(() => parseQueueUrl('http://x:1')).toThrow(/must start with redis:\/\/ or rediss:\/\//);
    expect(() => parseQueueUrl('redis://h/abc')).toThrow(/database number/);
  });
});

describe('the pieces a job is made of (no Redis needed)', () => {
  it('batchRanges covers every batch once, in order, each range at least jobRows rows but the last', () => {
    expect(batchRanges([100, 100, 100, 50], 200)).toEqual([[0, 2], [2, 4]]);
    expect(batchRanges([5], 1000)).toEqual([[0, 1]]);
    expect(batchRanges([], 10)).toEqual([]);
    const rows = [7, 0, 3, 12, 1, 1, 9];
    const ranges = batchRanges(rows, 8);
    expect(ranges.flatMap(([a, b]) => Array.from({ length: b - a }, (_, i) => a + i))).toEqual(rows.map((_, i) => i));
    for (const [a, b] of ranges.slice(0, -1)) expect(rows.slice(a, b).reduce((x, y) => x + y, 0)).toBeGreaterThanOrEqual(8);
  });

  it('batches({ first, end }) hands out exactly those record batches, file and stream format, errors naming the dataset row', async () => {
    const tmp = await mkdtemp(join(tmpdir(), 'dsgkit-range-'));
    try {
      const X = Float64Array.from({ length: 50 * 3 }, (_, i) => (i * 7919) % 13);
      X[37 * 3 + 1] = NaN; // row 38 (1-based), in batch 3 of batches of 10
      const ds = makeDataset({ X, d: 3, y: Float64Array.from({ length: 50 }, (_, i) => (i % 2 ? 1 : -1)) });
      const table = tableFromIPC(encodeArrow(ds));
      const slices = [];
      for (let at = 0; at < 50; at += 10) slices.push(...table.slice(at, at + 10).batches);
      for (const name of ['r.arrow', 'r.arrows']) {
        const path = join(tmp, name);
        await writeBatchesStreaming(path, slices, name.endsWith('s') ? 'stream' : 'file');
        const rows = await openArrowRows(path);
        const got = [];
        for await (const b of rows.batches({ first: 1, end: 3 })) got.push(Array.from(b.X));
        expect(got).toEqual([Array.from(X.subarray(30, 60)), Array.from(X.subarray(60, 90))]);
        await expect(async () => {
          for await (const _ of rows.batches({ first: 3, end: 4 })) void _;
        }).rejects.toThrow(`${path}: column 'x2', row 38: value is NaN`);
        await expect(async () => {
          for await (const _ of rows.batches({ first: 4, end: 6 })) void _;
        }).rejects.toThrow(/record batches 4 … 5 asked for; the file has 5/);
      }
    } finally {
      await rm(tmp, { recursive: true, force: true });
    }
  });

  it('a worker accepts only well-formed payloads whose paths resolve inside its roots', async () => {
    const tmp = await mkdtemp(join(tmpdir(), 'dsgkit-payload-'));
    try {
      const root = join(tmp, 'shared');
      await mkdir(join(root, '.out.arrow.parts-p1'), { recursive: true });
      await writeFile(join(root, 'm.dsg'), 'x');
      await writeFile(join(root, 'in.arrow'), 'x');
      await writeFile(join(tmp, 'secret'), 'x');
      await symlink(join(tmp, 'secret'), join(root, 'link.arrow'));
      const ok = { run: 'p1', model: join(root, 'm.dsg'), modelSha256: 'a'.repeat(64), data: join(root, 'in.arrow'), first: 0, end: 2, rows: 20, part: join(root, '.out.arrow.parts-p1', 'part-000000.arrow') };
      await expect(checkPredictRange(ok, [root])).resolves.toEqual(ok);
      await expect(checkPredictRange({ ...ok, code: 'process.exit()' }, [root])).rejects.toThrow("predict-range: unknown field 'code'");
      await expect(checkPredictRange({ ...ok, data: 'in.arrow' }, [root])).rejects.toThrow("field 'data' is not an absolute, normalised path");
      await expect(checkPredictRange({ ...ok, data: `${root}/../secret` }, [root])).rejects.toThrow("field 'data' is not an absolute, normalised path");
      await expect(checkPredictRange({ ...ok, data: join(root, 'link.arrow') }, [root])).rejects.toThrow(/data '.*link\.arrow' is outside this worker's allowed roots/);
      await expect(checkPredictRange({ ...ok, data: join(root, 'nope.arrow') }, [root])).rejects.toThrow(/cannot be read on this worker \(ENOENT\); every worker must see the same files/);
      await expect(checkPredictRange({ ...ok, part: join(root, 'elsewhere.arrow') }, [root])).rejects.toThrow('is not a part file of run p1');
      await expect(checkPredictRange({ ...ok, end: 0 }, [root])).rejects.toThrow('empty batch range');
    } finally {
      await rm(tmp, { recursive: true, force: true });
    }
  });
});
