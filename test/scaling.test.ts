/**
 * `scaling` (script API) and `dsgkit scaling`: the same model trained at each
 * thread count, for every registered learner (nothing learner-specific in the
 * tool), with a table, a JSON report and an SVG chart.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LEARNERS, type LearnerSpec } from '../src/api.ts';
import { main } from '../src/cli/main.ts';
import { readDataset, selectRows, splitDataset, type Dataset } from '../src/data/index.ts';
import { poolTasksCompleted } from '../src/engine/pool.ts';
import { scaling, scalingChart, scalingTable } from '../src/scaling.ts';
import { checkWellFormed } from './support/svg-well-formed.ts';

const dir = mkdtempSync(join(tmpdir(), 'dsgkit-scaling-'));

/** Tiny runs: the parameters each learner declares. */
function tiny(spec: LearnerSpec): Record<string, number> {
  const wanted: Record<string, number> = { T: 12, m: 8, batchSize: 8, seed: 2 };
  return Object.fromEntries(Object.entries(wanted).filter(([k]) => k in spec.params));
}

const data = new Map<string, Dataset>();
async function dataFor(task: LearnerSpec['task']): Promise<Dataset> {
  const path = task === 'binary' ? 'data/breast_cancer.arrow' : 'data/diabetes.arrow';
  if (!data.has(path)) {
    const { train } = splitDataset(await readDataset(path), { labeled: 60, test: 0.2, seed: 1 });
    data.set(path, selectRows(train, Array.from({ length: 150 }, (_, i) => i)));
  }
  return data.get(path)!;
}

describe('scaling', () => {
  it.each(LEARNERS.map((l) => [l.name, l]))('%s: one row per thread count, the same model bytes at each', async (_, spec) => {
    const seen: number[] = [];
    const r = await scaling({ learner: spec.name, data: await dataFor(spec.task), threads: [2, 1], parallelMinWork: 0, ceiling: false, ...tiny(spec), onRow: (row) => seen.push(row.threads) });
    expect(r.identical).toBe(true);
    expect(r.rows.map((row) => row.threads)).toEqual([1, 2]);
    expect(seen).toEqual([1, 2]);
    expect(r.rows[0].sha256).toBe(r.rows[1].sha256);
    const [one, two] = r.rows;
    expect(one.speedup).toBe(1);
    expect(two.speedup).toBeCloseTo(one.wallMs / two.wallMs, 12);
    expect(two.efficiency).toBeCloseTo(two.speedup / 2, 12);
    if ('T' in spec.params) expect(two.iterationsPerSecond).toBeCloseTo(r.iterations! / (two.wallMs / 1000), 6);
    else expect(two.iterationsPerSecond).toBeUndefined();
    expect(r.evaluation !== undefined).toBe(spec.kind === 'loop');
  });

  it('repeats in rounds that alternate the counts (1, 2, 1, 2, …), keeping each count\'s fastest run', async () => {
    // Whether each training's loop used the pool (from its first iteration to its last): the order the counts ran in.
    const usedPool: boolean[] = [];
    let before = 0;
    const r = await scaling({
      // Evaluating the history, a pool's first call (each worker computes a unit of it) comes after iteration 1.
      learner: 'dsg', data: await dataFor('binary'), threads: [1, 2], repeats: 3, parallelMinWork: 0, ceiling: false, ...tiny(LEARNERS.find((l) => l.name === 'dsg')!), T: 30, evaluation: 'history',
      onProgress: (p) => {
        if (p.t === 1) before = poolTasksCompleted();
        if (p.t === p.T) usedPool.push(poolTasksCompleted() > before);
      },
    });
    expect(usedPool).toEqual([false, true, false, true, false, true]);
    expect(r.identical).toBe(true);
    expect(r.rows.map((row) => row.threads)).toEqual([1, 2]);
    for (const row of r.rows) {
      expect(row.runsMs).toHaveLength(3);
      expect(row.wallMs).toBe(Math.min(...row.runsMs));
    }
    // The table shows the spread: the slowest run beside the fastest.
    const table = scalingTable(r).trim().split('\n');
    expect(table[0]).toMatch(/threads \|\s+wall s \|\s+slowest s \|\s+it\/s/);
    expect(table[2]).toContain(String(Number((Math.max(...r.rows[0].runsMs) / 1000).toPrecision(3))));
  });

  it('draws speedup against threads with the ideal line and the machine ceiling, and tabulates each count', async () => {
    const r = await scaling({ learner: 'dsg', data: await dataFor('binary'), threads: [1, 2], ...tiny(LEARNERS.find((l) => l.name === 'dsg')!) });
    expect(r.rows[0].ceiling).toBe(1);
    expect(r.rows[1].ceiling).toBeGreaterThan(0);
    expect(Number.isFinite(r.rows[1].ceiling)).toBe(true);
    const svg = scalingChart(r);
    checkWellFormed(svg);
    expect(svg).toContain('ideal');
    expect(svg).toContain('what the machine allows');
    expect(svg).toContain('speedup over 1 thread');
    // The seconds behind the ratios, the machine, the versions and the date.
    expect(svg).toMatch(/1 thread [\d.]+ s, 2 threads [\d.]+ s · \d+ cores of .+ · Node v\d+[^·]*· dsgkit \d+\.\d+\.\d+ · \d{4}-\d\d-\d\d/);
    const table = scalingTable(r).trim().split('\n');
    expect(table[0]).toMatch(/threads \|\s+wall s \|\s+it\/s \|\s+speedup \|\s+efficiency \|\s+machine ceiling \|\s+of ceiling/);
    expect(table).toHaveLength(2 + 2);
  });

  it('refuses a bad thread list', async () => {
    await expect(scaling({ learner: 'dsg', data: await dataFor('binary'), threads: [] })).rejects.toThrow(/non-empty list/);
    await expect(scaling({ learner: 'dsg', data: await dataFor('binary'), threads: [1, 0] })).rejects.toThrow(/whole number ≥ 1/);
  });
});

describe('dsgkit scaling', () => {
  async function run(argv: string[]): Promise<{ code: number; out: string; err: string }> {
    let out = '';
    let err = '';
    const code = await main(argv, { stdout: { write: (s: string) => (out += s) }, stderr: { write: (s: string) => (err += s) } });
    return { code, out, err };
  }

  it('prints the table and writes the JSON report and the SVG chart', async () => {
    const report = join(dir, 'report');
    const r = await run(['scaling', '--data', 'data/breast_cancer.arrow', '--learner', 'qsg-s2auc', '--gamma', '1', '--threads', '1,2', '--iterations', '15', '--random-features', '8', '--batch-size', '8', '--out', report]);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toMatch(/\| threads \|\s+wall s \|\s+it\/s \|\s+speedup \|\s+efficiency \|/);
    expect(r.out).toMatch(/^\|\s+2 \|/m);
    expect(r.out).toMatch(/models: identical bytes at every thread count/);
    const json = JSON.parse(readFileSync(`${report}.json`, 'utf8'));
    expect(json).toMatchObject({ learner: 'qsg-s2auc', iterations: 15, identical: true, data: 'data/breast_cancer.arrow' });
    expect(json.rows.map((row: { threads: number }) => row.threads)).toEqual([1, 2]);
    checkWellFormed(readFileSync(`${report}.svg`, 'utf8'));
    expect(r.out).toMatch(/\| machine ceiling \|\s+of ceiling \|/);
    const bare = await run(['scaling', '--data', 'data/breast_cancer.arrow', '--learner', 'dsg', '--threads', '1,2', '--iterations', '15', '--random-features', '8', '--batch-size', '8', '--no-ceiling']);
    expect(bare.code, bare.err).toBe(0);
    expect(bare.out).not.toMatch(/ceiling/);
  });

  it('refuses a malformed --threads and a missing one (exit 2)', async () => {
    const bad = await run(['scaling', '--data', 'data/breast_cancer.arrow', '--learner', 'dsg', '--threads', '1,two']);
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(/--threads: expected comma-separated whole numbers/);
    const missing = await run(['scaling', '--data', 'data/breast_cancer.arrow', '--learner', 'dsg']);
    expect(missing.code).toBe(2);
    expect(missing.err).toMatch(/--threads/);
  });
});
