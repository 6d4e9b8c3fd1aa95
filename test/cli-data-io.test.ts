/**
 * Data in and out the way people have it: predictions as CSV / JSON Lines /
 * Arrow, to a file or stdout (and `| head` ends quietly), `-` for stdin in
 * every data-reading command, `convert` to CSV and back, `describe` of a
 * predictions file, `{ X, y }` arrays in train and tune.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { promisify } from 'node:util';
import { tableFromIPC, tableToIPC } from 'apache-arrow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../src/cli/main.ts';
import { makeDataset, readArrow, readCsv, writeArrow, type Dataset } from '../src/data/index.ts';
import { train, tune } from '../src/index.ts';
import { writeBreastCancerSplit } from './support/cli.ts';

const root = new URL('..', import.meta.url).pathname;
const TINY = ['--iterations', '30', '--batch-size', '16', '--random-features', '16', '--threads', '1', '--quiet'];

let dir: string;
let trainFile: string;
let testFile: string;
let modelFile: string;

/** Runs the CLI in-process; `stdin` is what `-` reads. */
async function run(argv: string[], stdin?: Uint8Array | string | NodeJS.ReadableStream): Promise<{ code: number; out: string; err: string; bytes: Buffer }> {
  let out = '';
  let err = '';
  const chunks: Buffer[] = [];
  const code = await main(argv, {
    stdout: { write: (c: string | Uint8Array) => (typeof c === 'string' ? (out += c) : chunks.push(Buffer.from(c)), true) },
    stderr: { write: (c: string | Uint8Array) => ((err += String(c)), true) },
    ...(stdin !== undefined ? { stdin: typeof stdin === 'string' || stdin instanceof Uint8Array ? Readable.from([Buffer.from(stdin)]) : stdin } : {}),
  });
  return { code, out, err, bytes: Buffer.concat(chunks) };
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'dsgkit-io-'));
  ({ trainFile, testFile } = await writeBreastCancerSplit(dir));
  modelFile = join(dir, 'bc.dsg');
  const r = await run(['train', '--learner', 'qsg-s2auc', '--data', trainFile, '--out', modelFile, ...TINY]);
  if (r.code !== 0) throw new Error(r.err);
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** CSV text → header and rows of cells (no quoting in these files). */
const csvRows = (text: string) => text.trimEnd().split('\n').map((l) => l.split(','));

describe('predict --out: Arrow, CSV, JSON Lines, stdout', () => {
  it('writes the same scores, predictions and labels as CSV and JSON Lines as it does as Arrow (numbers read back bit for bit)', async () => {
    const arrow = join(dir, 's.arrow');
    expect((await run(['predict', '--model', modelFile, '--data', testFile, '--out', arrow, '--threads', '1'])).code).toBe(0);
    const t = tableFromIPC(await readFile(arrow));
    const score = Array.from(t.getChild('score')!.toArray() as Float64Array);
    const predicted = Array.from(t.getChild('predicted')!.toArray() as Float64Array);
    const label = Array.from(t.getChild('label')!.toArray() as Float64Array);

    const csv = join(dir, 's.csv');
    const c = await run(['predict', '--model', modelFile, '--data', testFile, '--out', csv, '--threads', '1']);
    expect(c.code).toBe(0);
    expect(c.out).toMatch(/wrote .*s\.csv: 114 rows \(score, predicted, label\)/);
    const [head, ...rows] = csvRows(await readFile(csv, 'utf8'));
    expect(head).toEqual(['score', 'predicted', 'label']);
    expect(rows.map((r) => Number(r[0]))).toEqual(score);
    expect(rows.map((r) => Number(r[1]))).toEqual(predicted);
    expect(rows.map((r) => Number(r[2]))).toEqual(label);

    const jsonl = join(dir, 's.jsonl');
    expect((await run(['predict', '--model', modelFile, '--data', testFile, '--out', jsonl, '--threads', '1'])).code).toBe(0);
    const objects = (await readFile(jsonl, 'utf8')).trimEnd().split('\n').map((l) => JSON.parse(l) as { score: number; predicted: number; label: number });
    expect(objects.map((o) => o.score)).toEqual(score);
    expect(objects.map((o) => o.predicted)).toEqual(predicted);
  });

  it("--out - writes CSV to stdout (--format chooses JSON Lines or an Arrow stream) and the summary to stderr", async () => {
    const c = await run(['predict', '--model', modelFile, '--data', testFile, '--out', '-', '--threads', '1']);
    expect(c.code).toBe(0);
    expect(c.out.split('\n')[0]).toBe('score,predicted,label');
    expect(csvRows(c.out)).toHaveLength(115);
    expect(c.err).toMatch(/wrote stdout: 114 rows/);
    const j = await run(['predict', '--model', modelFile, '--data', testFile, '--out', '-', '--format', 'jsonl', '--threads', '1']);
    expect(JSON.parse(j.out.split('\n')[0])).toHaveProperty('score');
    const a = await run(['predict', '--model', modelFile, '--data', testFile, '--out', '-', '--format', 'arrow', '--threads', '1']);
    expect(tableFromIPC(a.bytes).numRows).toBe(114);
  });

  it('`predict --out - | head` prints CSV, and the closed pipe ends the run quietly with exit code 0', async () => {
    // 200 copies of the test rows: far more output than a pipe holds, so head closes it mid-run.
    const test = await readArrow(testFile);
    const reps = 200;
    const X = new Float64Array(test.X.length * reps);
    const y = new Float64Array(test.n * reps);
    for (let r = 0; r < reps; r++) {
      X.set(test.X, r * test.X.length);
      y.set(test.y, r * test.n);
    }
    const big = join(dir, 'big.arrow');
    await writeArrow(big, makeDataset({ X, d: test.d, y, featureNames: test.featureNames, labelName: test.labelName }));
    const tsx = join(root, 'node_modules/.bin/tsx');
    const cli = join(root, 'src/cli/main.ts');
    const script = `set -o pipefail; '${tsx}' '${cli}' predict --model '${modelFile}' --data '${big}' --out - --threads 1 --quiet | head -n 3`;
    const { stdout, stderr } = await promisify(execFile)('bash', ['-c', script], { cwd: dir });
    expect(stdout.split('\n')[0]).toBe('score,predicted,label');
    expect(stdout.trimEnd().split('\n')).toHaveLength(3);
    expect(stderr).toBe('');
  });
});

describe("'-' reads stdin", () => {
  it('describe, convert, evaluate and predict read data piped in (Arrow file, Arrow stream, CSV), naming it stdin', async () => {
    const arrowBytes = await readFile(testFile);
    const d = await run(['describe', '-'], arrowBytes);
    expect(d.code).toBe(0);
    expect(d.out).toMatch(/^file:\s+stdin\n/);
    expect(d.out).toMatch(/rows:\s+114\n/);

    const streamBytes = tableToIPC(tableFromIPC(arrowBytes), 'stream');
    const csv = join(dir, 'from-stdin.csv');
    const c = await run(['convert', '-', '--out', csv], streamBytes);
    expect(c.code).toBe(0);
    const back = await readCsv(csv);
    const orig = await readArrow(testFile);
    expect(Array.from(back.X)).toEqual(Array.from(orig.X));

    const e = await run(['evaluate', '--model', modelFile, '--data', '-', '--threads', '1', '--quiet'], await readFile(csv));
    expect(e.code).toBe(0);
    expect(e.out).toMatch(/AUC/);
    const direct = await run(['evaluate', '--model', modelFile, '--data', testFile, '--threads', '1', '--quiet']);
    expect(e.out.replace(/\S*(bc-test\.arrow|stdin)\S*/g, 'F')).toBe(direct.out.replace(/\S*(bc-test\.arrow|stdin)\S*/g, 'F'));

    const bad = await run(['describe', '-'], 'label,x1\n1,abc\n');
    expect(bad.code).toBe(1);
    expect(bad.err).toMatch(/^dsgkit: stdin: /);
    expect(bad.err).not.toMatch(/dsgkit-stdin-/);
  });

  it('train --data - reads CSV piped in; the model records stdin and is the same bytes on every run', async () => {
    const csv = join(dir, 'train.csv');
    expect((await run(['convert', trainFile, '--out', csv])).code).toBe(0);
    const text = await readFile(csv);
    const models = [];
    for (const name of ['a.dsg', 'b.dsg']) {
      const r = await run(['train', '--learner', 'qsg-s2auc', '--data', '-', '--out', join(dir, name), ...TINY], text);
      expect(r.code).toBe(0);
      models.push(await readFile(join(dir, name)));
    }
    expect(models[0].equals(models[1])).toBe(true);
    const d = await run(['describe', join(dir, 'a.dsg')]);
    expect(d.out).toMatch(/training:\s+\d+ rows \(\d+ labeled\) from stdin\n/);
  });

  it('refuses a terminal, an empty input, and two inputs reading stdin, with a clear message', async () => {
    const tty = Object.assign(Readable.from([]), { isTTY: true });
    const t = await run(['describe', '-'], tty);
    expect(t.code).toBe(2);
    expect(t.err).toMatch(/stdin is a terminal/);
    const empty = await run(['describe', '-'], '');
    expect(empty.code).toBe(1);
    expect(empty.err).toMatch(/^dsgkit: stdin: empty input/);
    const two = await run(['train', '--learner', 'dsg', '--data', trainFile, '--validation', '-', '--out', join(dir, 'v.dsg'), ...TINY], await readFile(testFile));
    expect(two.code).toBe(0); // one '-' is fine
    const both = await run(['train', '--learner', 'dsg', '--data', '-', '--validation', '-', '--out', join(dir, 'v.dsg'), ...TINY], await readFile(testFile));
    expect(both.code).toBe(2);
    expect(both.err).toMatch(/stdin is read once/);
  });
});

describe('convert writes CSV; describe reads predictions', () => {
  it('CSV → Arrow → CSV → Arrow keeps every value, the class names and the unlabeled rows', async () => {
    const src = join(dir, 'named.csv');
    await writeFile(src, 'a,cls,b\n1.5,spam,3\n4,,6e-7\n-0.1,ham,2\n7,spam,"8"\n');
    const a1 = join(dir, 'n1.arrow');
    const c1 = join(dir, 'n1.csv');
    const a2 = join(dir, 'n2.arrow');
    expect((await run(['convert', src, '--out', a1, '--label', 'cls'])).code).toBe(0);
    const w = await run(['convert', a1, '--out', c1, '--label', 'cls']);
    expect(w.code).toBe(0);
    expect(w.out).toMatch(/wrote .*n1\.csv: 4 rows, 2 features, 3 labeled/);
    expect(await readFile(c1, 'utf8')).toBe('cls,a,b\nspam,1.5,3\n,4,6e-7\nham,-0.1,2\nspam,7,8\n');
    expect((await run(['convert', c1, '--out', a2, '--label', 'cls'])).code).toBe(0);
    const [x, y] = [await readArrow(a1, { labelColumn: 'cls' }), await readArrow(a2, { labelColumn: 'cls' })];
    expect(Array.from(y.X)).toEqual(Array.from(x.X));
    expect(Array.from(y.y)).toEqual(Array.from(x.y));
    expect(y.classNames).toEqual(x.classNames);
  });

  it('describe sums up a predictions file alike from Arrow, CSV and JSON Lines: score range, predicted classes, agreement with the label', async () => {
    const summaries = [];
    for (const ext of ['arrow', 'csv', 'jsonl']) {
      const out = join(dir, `p.${ext}`);
      expect((await run(['predict', '--model', modelFile, '--data', testFile, '--out', out, '--threads', '1'])).code).toBe(0);
      const d = await run(['describe', out, '--json']);
      expect(d.code).toBe(0);
      summaries.push({ ...JSON.parse(d.out), file: undefined });
      const text = await run(['describe', out]);
      expect(text.out).toMatch(/rows:\s+114 predictions/);
      expect(text.out).toMatch(/agreement:\s+predicted = label on \d+ of 114 labeled rows/);
    }
    expect(summaries[1]).toEqual(summaries[0]);
    expect(summaries[2]).toEqual(summaries[0]);
    const t = tableFromIPC(await readFile(join(dir, 'p.arrow')));
    const p = t.getChild('predicted')!.toArray() as Float64Array;
    const l = t.getChild('label')!.toArray() as Float64Array;
    let agree = 0;
    for (let i = 0; i < p.length; i++) agree += p[i] === l[i] ? 1 : 0;
    expect(summaries[0]).toMatchObject({ kind: 'predictions', rows: 114, labeled: 114, agreement: { count: agree } });
  });
});

describe('train and tune take { X, y } arrays', () => {
  const arraysOf = (ds: Dataset) => {
    const X: number[][] = [];
    for (let i = 0; i < ds.n; i++) X.push(Array.from(ds.X.subarray(i * ds.d, (i + 1) * ds.d)));
    return { X, y: Array.from(ds.y, (v, i) => (i % 4 === 0 ? v : i % 8 === 1 ? NaN : null)) };
  };

  it('number[][] with null/NaN as unlabeled trains the same model bytes as the equivalent Dataset; Float64Array rows tune', async () => {
    const ds = await readArrow(trainFile);
    const { X, y } = arraysOf(ds);
    const opts = { learner: 'qsg-s2auc', T: 20, m: 16, batchSize: 16, threads: 1 } as const;
    const fromArrays = await train({ ...opts, data: { X, y } });
    const same = makeDataset({ X: Float64Array.from(X.flat()), d: ds.d, y: Float64Array.from(y, (v) => v ?? NaN), source: 'data' });
    const fromDataset = await train({ ...opts, data: same });
    expect(Buffer.from(fromArrays.toBytes()).equals(Buffer.from(fromDataset.toBytes()))).toBe(true);
    const r = await tune({ learner: 'dsg', data: { X: X.map((row) => Float64Array.from(row)), y }, folds: 2, T: 20, threads: 1, grid: { sigma: [1], lambda: [0.01] } } as never);
    expect(r.best).toBeDefined();
  });

  it('names the row and column of a bad shape or value', async () => {
    await expect(train({ learner: 'dsg', data: { X: [[1, 2], [3]], y: [1, -1] } })).rejects.toThrow(/data\.X\[1\] has 1 values, data\.X\[0\] has 2/);
    await expect(train({ learner: 'dsg', data: { X: [[1, 2], [3, 4]], y: [1] } })).rejects.toThrow(/data\.y has 1 labels for 2 rows/);
    await expect(train({ learner: 'dsg', data: { X: [[1, 2], [3, NaN]], y: [1, -1] } })).rejects.toThrow(/data: column 'x2', row 2: value is NaN/);
    await expect(train({ learner: 'dsg', data: { X: [[1, 2], [3, 4]], y: [1, 'a'] } })).rejects.toThrow(/data\.y mixes numbers and class names/);
  });
});

describe('help for one learner', () => {
  it('`train --learner gkm --help` lists gkm\u2019s options and none of the other learners\u2019', async () => {
    const one = await run(['train', '--learner', 'gkm', '--help']);
    const all = await run(['train', '--help']);
    expect(one.code).toBe(0);
    expect(one.out).toMatch(/--graph-sigma/);
    expect(all.out).toMatch(/--gamma/);
    expect(one.out).not.toMatch(/--gamma/);
    expect(one.out).not.toMatch(/qs3orao\s+semi-supervised/);
    expect(one.out.length).toBeLessThan(all.out.length);
    const t = await run(['tune', '--learner', 'dsg', '--help']);
    expect(t.out).toMatch(/Search space[^]*dsg: sigma/);
    expect(t.out).not.toMatch(/gkm:/);
  });
});
