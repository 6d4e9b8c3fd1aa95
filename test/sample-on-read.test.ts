import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tableFromIPC } from 'apache-arrow';
import { DEFAULT_CLIP_QUANTILE } from '../src/data/scaler.ts';
import { encodeArrow, MinMaxScaler, readDataset, splitDataset, writeBatchesStreaming, writeSynthetic } from '../src/data/index.ts';
import { PassThrough } from 'node:stream';
import { LEARNERS, learnerSpec, resolveParams, resolveStep } from '../src/api.ts';
// Learners chosen by name at run time: the untyped entry (the typed `train` checks literal options at compile time).
import { trainModel as train } from '../src/train/train.ts';
import { chooseSampleOnRead, readPlannedRows } from '../src/sample-plan.ts';
import type { LoopLearnerSpec } from '../src/learners/spec.ts';
import { UsageError } from '../src/errors.ts';

const dir = await mkdtemp(join(tmpdir(), 'dsgkit-sor-'));
afterAll(() => rm(dir, { recursive: true, force: true }));

/** `ds` written as an Arrow file of record batches of `rows` rows (sample on read must find rows across batches). */
async function writeInBatches(path: string, ds: Parameters<typeof encodeArrow>[0], rows: number): Promise<void> {
  const table = tableFromIPC(encodeArrow(ds));
  const slices = [];
  for (let at = 0; at < table.numRows; at += rows) slices.push(...table.slice(at, at + rows).batches);
  await writeBatchesStreaming(path, slices, 'file');
}

// Binary: the synthetic XOR (2,000 rows, 60 labeled, 7 batches); ordinal: diabetes with 120 labels kept.
const binaryFile = join(dir, 'xor.arrow');
await writeSynthetic(binaryFile, { rows: 2000, dim: 6, labeled: 60, seed: 3, batchRows: 300 });
const ordinalFile = join(dir, 'diabetes.arrow');
await writeInBatches(ordinalFile, splitDataset(await readDataset('data/diabetes.arrow'), { labeled: 120, seed: 1 }).train, 97);

const loopLearners = LEARNERS.filter((s) => s.kind === 'loop');
const small = { T: 12, m: 16, batchSize: 8, seed: 5, threads: 1 };

describe('sample on read', () => {
  it('covers every loop learner (the test below runs each)', () => {
    expect(loopLearners.map((s) => s.name)).toEqual(expect.arrayContaining(['qsg-s2auc', 'dsg', 'qs3orao', 'tsgs3vm']));
  });

  for (const spec of loopLearners) {
    it(`${spec.name}: the model is the same bytes as training in memory (σ₀ from the data, several record batches)`, async () => {
      const data = spec.task === 'binary' ? binaryFile : ordinalFile;
      const inMemory = await train({ learner: spec.name, data, ...small, sampleOnRead: false });
      const sampled = await train({ learner: spec.name, data, ...small, sampleOnRead: true });
      expect(sampled.header.hyperparameters.sigma).toBe(inMemory.header.hyperparameters.sigma);
      expect(Buffer.from(sampled.toBytes()).equals(Buffer.from(inMemory.toBytes()))).toBe(true);
    });
  }

  it('keeps f at the rows it read when the row cache evaluates f: the same bytes as in memory with either strategy', async () => {
    for (const learner of ['qsg-s2auc', 'qs3orao']) {
      const data = learner === 'qsg-s2auc' ? binaryFile : ordinalFile;
      const rows = await train({ learner, data, ...small, evaluation: 'rows', sampleOnRead: true });
      expect(rows.header.training.evaluation).toBe('rows');
      const inMemory = await train({ learner, data, ...small, evaluation: 'rows', sampleOnRead: false });
      expect(Buffer.from(rows.toBytes()).equals(Buffer.from(inMemory.toBytes())), learner).toBe(true);
      const history = await train({ learner, data, ...small, evaluation: 'history', sampleOnRead: true });
      expect(history.header.training.evaluation).toBe('history');
      expect(Array.from(await history.decisionFunction(data, { threads: 1 }))).toEqual(Array.from(await rows.decisionFunction(data, { threads: 1 })));
    }
  });

  it('keeps the labeled rows, the σ₀ sample and the drawn rows only, not the file', async () => {
    const spec = learnerSpec('qsg-s2auc') as LoopLearnerSpec;
    const params = { ...resolveParams(spec, { T: 3, batchSize: 4, sigma: 0.5 }) };
    const { rows } = await readPlannedRows(binaryFile, {}, { spec, params, step: resolveStep(spec, params, {})! });
    // 60 labeled rows + at most T·B = 12 unlabeled draws (σ given: no σ₀ sample).
    expect(rows.keep.length).toBeGreaterThan(60);
    expect(rows.keep.length).toBeLessThanOrEqual(60 + 12);
    expect(rows.X.length).toBe(rows.keep.length * 6);
  });

  it('continues a run read by sample on read to the bytes of a run trained at once in memory', async () => {
    const first = await train({ learner: 'qsg-s2auc', data: binaryFile, ...small, T: 6, sampleOnRead: true });
    const continued = await train({ init: first, data: binaryFile, T: 12, threads: 1, sampleOnRead: true });
    const atOnce = await train({ learner: 'qsg-s2auc', data: binaryFile, ...small, sampleOnRead: false });
    expect(Buffer.from(continued.toBytes()).equals(Buffer.from(atOnce.toBytes()))).toBe(true);
  });

  it('an Arrow stream of unknown length: labeled rows + a seeded reservoir of T·B unlabeled rows, scaler over every row, deterministic', async () => {
    const ds = await readDataset(binaryFile);
    const bytes = encodeArrow(ds, 'stream');
    // Delivered in uneven chunks through a byte stream, as a pipe would.
    const pipe = () => {
      const stream = new PassThrough();
      for (let at = 0; at < bytes.length; at += 7777) stream.write(bytes.subarray(at, at + 7777));
      stream.end();
      return stream;
    };
    const options = { learner: 'qsg-s2auc', T: 10, m: 16, batchSize: 8, seed: 5, threads: 1 };
    const a = await train({ ...options, data: pipe() });
    const b = await train({ ...options, data: pipe() });
    expect(Buffer.from(a.toBytes()).equals(Buffer.from(b.toBytes()))).toBe(true);
    expect(a.header.training).toMatchObject({ rows: 2000, labeledRows: 60, reservoir: 80 });
    expect(a.scaler.toJSON()).toEqual(MinMaxScaler.fit(ds, undefined, { clipQuantile: DEFAULT_CLIP_QUANTILE }).toJSON());
    // Another seed keeps another reservoir (and draws otherwise): another model.
    const c = await train({ ...options, seed: 6, data: pipe() });
    expect(Buffer.from(c.toBytes()).equals(Buffer.from(a.toBytes()))).toBe(false);
    await expect(train({ ...options, data: pipe(), sampleOnRead: false })).rejects.toThrow(UsageError);
  });

  it('is chosen automatically when the file would not fit, and refused where it cannot apply', async () => {
    const qsg = learnerSpec('qsg-s2auc');
    expect(await chooseSampleOnRead(qsg, binaryFile, {}, undefined, 1e12)).toBe(false);
    expect(await chooseSampleOnRead(qsg, binaryFile, {}, undefined, 1e5)).toBe(true);
    expect(await chooseSampleOnRead(learnerSpec('exact-s2auc'), binaryFile, {}, undefined, 1e5)).toBe(false);
    await expect(chooseSampleOnRead(learnerSpec('exact-s2auc'), binaryFile, {}, true)).rejects.toThrow(UsageError);
    await expect(chooseSampleOnRead(qsg, 'data/spam.csv', {}, true)).rejects.toThrow(/Arrow IPC file/);
  });
});
