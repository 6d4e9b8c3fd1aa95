import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tableFromIPC } from 'apache-arrow';
import { encodeArrow, makeDataset, readDataset, splitDataset, writeBatchesStreaming, type Dataset } from '../src/data/index.ts';
import { train } from '../src/api.ts';
import { main } from '../src/cli/main.ts';

const dir = await mkdtemp(join(tmpdir(), 'dsgkit-stream-'));
afterAll(() => rm(dir, { recursive: true, force: true }));

async function run(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await main(argv, { stdout: { write: (s: string) => (out += s) }, stderr: { write: (s: string) => (err += s) } });
  return { code, out, err };
}

/** `ds` as an Arrow file of record batches of `rows` rows. */
async function writeInBatches(path: string, ds: Dataset, rows: number): Promise<void> {
  const table = tableFromIPC(encodeArrow(ds));
  const slices = [];
  for (let at = 0; at < table.numRows; at += rows) slices.push(...table.slice(at, at + rows).batches);
  await writeBatchesStreaming(path, slices, 'file');
}

const bc = await readDataset('data/breast_cancer.arrow');
const { train: trainSet, test } = splitDataset(bc, { labeled: 80, test: 0.3, seed: 4 });
const model = await train({ learner: 'qsg-s2auc', data: trainSet, T: 20, m: 16, seed: 2, threads: 1 });
const modelFile = join(dir, 'bc.dsg');
await model.save(modelFile);
// The test rows in 9 record batches of 19 rows.
const testFile = join(dir, 'test.arrow');
await writeInBatches(testFile, test!, 19);

describe('streaming predict and evaluate (Arrow input, batch by batch)', () => {
  it('predict writes, batch by batch, the scores and labels of the in-memory path', async () => {
    const out = join(dir, 'scores.arrow');
    const r = await run('predict', '--model', modelFile, '--data', testFile, '--out', out, '--threads', '2');
    expect(r.code).toBe(0);
    const table = tableFromIPC(await readFile(out));
    expect(table.numRows).toBe(test!.n);
    expect(Array.from(table.getChild('score')!.toArray() as Float64Array)).toEqual(Array.from(await model.decisionFunction(test!, { threads: 1 })));
    expect(Array.from(table.getChild('label')!.toArray() as Float64Array)).toEqual(Array.from(test!.y));
  });

  it('evaluate and model.evaluate on the file stream to the metrics of the in-memory Dataset', async () => {
    const inMemory = await model.evaluate(test!, { threads: 1 });
    expect(await model.evaluate(testFile, { threads: 2 })).toEqual(inMemory);
    const r = await run('evaluate', '--model', modelFile, '--data', testFile, '--json');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out).auc).toBe(inMemory.kind === 'binary' ? inMemory.auc : NaN);
  });

  it('a bad value in a later record batch is an error naming file, column and row, and nothing is written', async () => {
    const X = Float64Array.from(test!.X);
    const row = 19 * 6 + 4; // 0-based: the 5th row of the 7th batch
    X[row * test!.d + 2] = NaN;
    const bad = join(dir, 'bad.arrow');
    await writeInBatches(bad, makeDataset({ X, d: test!.d, y: test!.y, featureNames: test!.featureNames }), 19);
    const out = join(dir, 'bad-scores.arrow');
    const p = await run('predict', '--model', modelFile, '--data', bad, '--out', out);
    expect(p.code).toBe(1);
    expect(p.err).toContain(`bad.arrow: column '${test!.featureNames[2]}', row ${row + 1}: value is NaN`);
    expect(existsSync(out)).toBe(false);
    expect((await readdir(dir)).filter((f) => f.includes('.tmp-'))).toEqual([]);
    const e = await run('evaluate', '--model', modelFile, '--data', bad);
    expect(e.code).toBe(1);
    expect(e.err).toContain(`row ${row + 1}`);
  });
});
