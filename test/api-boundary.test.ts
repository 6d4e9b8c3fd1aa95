/**
 * What a user hands dsgkit at its boundary, from a script and from the command
 * line: every data form `train` takes is taken by `score` / `predict` /
 * `decisionFunction` too (the same scores whatever the form), anything else is
 * a UsageError naming the argument; more threads than cores are clamped with a
 * warning; option values that overflow the math are usage errors; string class
 * labels go in and come back out by name.
 */
import { availableParallelism } from 'node:os';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { tableFromIPC } from 'apache-arrow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { load, train, type Model } from '../src/api.ts';
import { datasetToTable, readArrow, writeArrow } from '../src/data/arrow.ts';
import { splitDataset } from '../src/data/split.ts';
import type { Dataset } from '../src/data/dataset.ts';
import { UsageError } from '../src/errors.ts';
import { runCli } from './support/cli.ts';

const bcPath = new URL('../data/breast_cancer.arrow', import.meta.url).pathname;
const TINY = { T: 20, batchSize: 16, m: 16, threads: 1 } as const;

let dir: string;
let tr: Dataset;
let test: Dataset;
let testFile: string;
let model: Model;

/** Runs the CLI in-process, capturing what it writes. */
const run = (argv: string[]) => runCli(argv);

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'dsgkit-boundary-'));
  const s = splitDataset(await readArrow(bcPath), { labeled: 100, test: 0.2, seed: 2 });
  tr = s.train;
  test = s.test!;
  testFile = join(dir, 'test.arrow');
  await writeArrow(testFile, test);
  model = await train({ learner: 'qsg-s2auc', data: tr, ...TINY });
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('score, predict and decisionFunction take what train takes', () => {
  it('a Dataset, a file path, an Arrow Table and rows as arrays give the same scores', async () => {
    const f = await model.decisionFunction(test, { threads: 1 });
    expect(Array.from(await model.decisionFunction(testFile, { threads: 1 }))).toEqual(Array.from(f));
    expect(Array.from(await model.decisionFunction(datasetToTable(test), { threads: 1 }))).toEqual(Array.from(f));
    const rows = Array.from({ length: test.n }, (_, i) => Array.from(test.X.subarray(i * test.d, (i + 1) * test.d)));
    expect(Array.from(await model.decisionFunction(rows, { threads: 1 }))).toEqual(Array.from(f));
    expect(await model.score(testFile, { threads: 1 })).toBe(await model.score(test, { threads: 1 }));
    expect(Array.from(await model.predict(rows.slice(0, 3), { threads: 1 }))).toEqual(Array.from(await model.predict(test, { threads: 1 })).slice(0, 3));
  });

  it('anything else is a UsageError naming the argument and what it takes', async () => {
    for (const bad of [42, null, { X: [1] }, new Float64Array(30)]) {
      const err = await model.predict(bad as never).then(() => undefined, (e: unknown) => e);
      expect(err, String(bad)).toBeInstanceOf(UsageError);
      expect((err as Error).message).toMatch(/^data must be a Dataset, a file path, an Arrow Table or an array of rows \(arrays of 30 numbers\), got /);
    }
    const short = await model.score([[1, 2, 3]]).then(() => undefined, (e: unknown) => e);
    expect(short).toBeInstanceOf(UsageError);
    expect((short as Error).message).toMatch(/row 1 must be an array of 30 numbers/);
  });
});

describe('threads and option values', () => {
  it('more threads than cores are clamped with a warning, from a script and from the command line, and the model is the same', async () => {
    const cores = availableParallelism();
    const warnings: string[] = [];
    const many = await train({ learner: 'qsg-s2auc', data: tr, ...TINY, threads: 1000, onWarning: (w) => warnings.push(w) });
    expect(warnings).toEqual([`threads = 1000 is more than the ${cores} cores available; using ${cores}`]);
    expect(Buffer.from(many.toBytes()).equals(Buffer.from(model.toBytes()))).toBe(true);
    const trainFile = join(dir, 'train.arrow');
    await writeArrow(trainFile, tr);
    const r = await run(['train', '--learner', 'qsg-s2auc', '--data', trainFile, '--out', join(dir, 'm.dsg'), '--iterations', '20', '--batch-size', '16', '--random-features', '16', '--threads', '1000', '--quiet']);
    expect(r.code).toBe(0);
    expect(r.err).toContain(`threads = 1000 is more than the ${cores} cores available; using ${cores}`);
  });

  it('σ = 1e308 (which overflows the frequencies) is a usage error naming the option, not an internal error', async () => {
    const err = await train({ learner: 'qsg-s2auc', data: tr, ...TINY, sigma: 1e308 }).then(() => undefined, (e: unknown) => e);
    expect(err).toBeInstanceOf(UsageError);
    expect((err as Error).message).toMatch(/^sigma must be a number in \(0, [0-9]+\], got 1e\+308/);
    const r = await run(['train', '--learner', 'qsg-s2auc', '--data', testFile, '--out', join(dir, 'x.dsg'), '--sigma', '1e308']);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/--sigma/);
    expect(r.err).not.toMatch(/internal error/);
  });
});

describe('string class labels', () => {
  it('CSV labels spam / ham train with --positive spam; the model keeps the names and predict writes them back', async () => {
    // breast cancer with its ±1 labels written as names.
    const lines = [[...tr.featureNames, 'label'].join(',')];
    for (let i = 0; i < tr.n; i++) {
      const y = tr.y[i];
      lines.push([...tr.X.subarray(i * tr.d, (i + 1) * tr.d), Number.isNaN(y) ? '' : y > 0 ? 'spam' : 'ham'].join(','));
    }
    const csv = join(dir, 'named.csv');
    await writeFile(csv, lines.join('\n') + '\n');
    const out = join(dir, 'named.dsg');
    const r = await run(['train', '--learner', 'qsg-s2auc', '--data', csv, '--out', out, '--positive', 'spam', '--iterations', '20', '--batch-size', '16', '--random-features', '16', '--threads', '1', '--quiet']);
    expect(r.code, r.err).toBe(0);
    const named = await load(out);
    expect(named.task.classNames).toEqual(['ham', 'spam']);
    // The same rows with numeric labels give the same scores: 'spam' is the positive class.
    expect(Array.from(await named.decisionFunction(test, { threads: 1 }))).toEqual(Array.from(await model.decisionFunction(test, { threads: 1 })));
    const scores = join(dir, 'named-scores.arrow');
    const p = await run(['predict', '--model', out, '--data', csv, '--out', scores, '--threads', '1']);
    expect(p.code, p.err).toBe(0);
    const table = tableFromIPC(await readFile(scores));
    const predicted = table.getChild('predicted')!.toArray() as string[];
    const score = table.getChild('score')!.toArray() as Float64Array;
    const task = named.header.task;
    if (task.kind !== 'binary') throw new Error('expected a binary model');
    for (let i = 0; i < table.numRows; i++) expect(predicted[i]).toBe(score[i] > task.threshold ? 'spam' : 'ham');
    expect(new Set(predicted)).toEqual(new Set(['spam', 'ham']));
    const wrong = await run(['train', '--learner', 'qsg-s2auc', '--data', csv, '--out', join(dir, 'w.dsg'), '--positive', 'eggs', '--iterations', '5', '--quiet']);
    expect(wrong.code).not.toBe(0);
    expect(wrong.err).toMatch(/eggs/);
  });
});
