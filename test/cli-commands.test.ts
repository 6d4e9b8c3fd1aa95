import { execFile } from 'node:child_process';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMMANDS } from '../src/cli/commands/index.ts';
import { readArrow } from '../src/data/arrow.ts';
import { classCounts } from '../src/data/validate.ts';
import { runCli } from './support/cli.ts';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'dsgkit-cli-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Runs the CLI in-process, capturing what it writes. */
const run = (...argv: string[]) => runCli(argv);

const spam = new URL('../data/spam.arrow', import.meta.url).pathname;

async function filesIn(d: string): Promise<string[]> {
  return (await readdir(d)).sort();
}

describe('dsgkit convert + describe', () => {
  it('converts a LIBSVM file, and describe reports its rows, features, labeled/unlabeled counts and class balance', async () => {
    const src = join(dir, 'small.libsvm');
    await writeFile(src, '+1 1:0.5 3:2\n-1 2:1\n? 1:1\n+1 3:4\n? 2:2\n+1 1:9\n');
    const out = join(dir, 'small.arrow');
    const c = await run('convert', src, '--out', out);
    expect(c).toMatchObject({ code: 0, err: '' });
    expect(c.out).toContain('6 rows, 3 features, 4 labeled, 2 unlabeled');
    const d = await run('describe', out);
    expect(d.code).toBe(0);
    expect(d.out).toMatch(/rows:\s+6\n/);
    expect(d.out).toMatch(/features:\s+3\n/);
    expect(d.out).toMatch(/labeled:\s+4 \(66\.7%\)/);
    expect(d.out).toMatch(/unlabeled:\s+2 \(33\.3%\)/);
    expect(d.out).toMatch(/-1: 1\s+25\.0%/);
    expect(d.out).toMatch(/1: 3\s+75\.0%/);
    expect(d.out).toMatch(/x3\s+0\s+1\s+4/); // min, mean, max of x3
    const j = JSON.parse((await run('describe', out, '--json')).out);
    expect(j).toMatchObject({ rows: 6, features: 3, labeled: 4, unlabeled: 2, classes: [{ label: -1, count: 1 }, { label: 1, count: 3 }] });
  });

  it('converts CSV with a named label column', async () => {
    const src = join(dir, 'named.csv');
    await writeFile(src, 'a,cls,b\n1,2,3\n4,,6\n');
    const out = join(dir, 'named.arrow');
    expect((await run('convert', src, '--out', out, '--label', 'cls')).code).toBe(0);
    const ds = await readArrow(out, { labelColumn: 'cls' });
    expect(ds.featureNames).toEqual(['a', 'b']);
    expect(Array.from(ds.labeled)).toEqual([1, 0]);
  });
});

describe('dsgkit bad data: exit 1, message on stderr, no output file', () => {
  const cases: [string, string, string, RegExp][] = [
    ['LIBSVM bad token', 'b1.libsvm', '1 1:1\n-1 2\n', /b1\.libsvm: line 2: bad token '2'/],
    ['LIBSVM index 0', 'b2.libsvm', '1 0:1\n', /b2\.libsvm: line 1: .*index 0/],
    ['LIBSVM non-increasing index', 'b3.libsvm', '1 2:1 1:1\n', /b3\.libsvm: column '1', line 1: .*does not increase/],
    ['LIBSVM non-numeric value', 'b4.libsvm', '1 1:x\n', /b4\.libsvm: column '1', line 1: value 'x' is not a number/],
    ['LIBSVM NaN', 'b5.libsvm', '1 1:NaN\n', /b5\.libsvm: column '1', line 1: value is NaN/],
    ['LIBSVM Infinity', 'b6.libsvm', '1 1:Infinity\n', /b6\.libsvm: column '1', line 1: value is Infinity/],
    ['CSV ragged row', 'c1.csv', 'label,a\n1,2\n1,2,3\n', /c1\.csv: row 2: row has 3 fields but the header has 2/],
    ['CSV non-numeric cell', 'c2.csv', 'label,a\n1,two\n', /c2\.csv: column 'a', row 1: value 'two' is not a number/],
    ['CSV NaN', 'c3.csv', 'label,a\n1,NaN\n', /c3\.csv: column 'a', row 1: value is NaN/],
    ['CSV Infinity', 'c4.csv', 'label,a\n1,1\n1,Infinity\n', /c4\.csv: column 'a', row 2: value is Infinity/],
    ['CSV missing label column', 'c5.csv', 'y,a\n1,1\n', /c5\.csv: column 'label': label column not found/],
    ['Arrow truncated', 't1.arrow', '', /t1\.arrow: .*(empty|truncated)/],
  ];
  it.each(cases)('%s', async (_name, file, content, pattern) => {
    const sub = await mkdtemp(join(dir, 'bad-'));
    const src = join(sub, file);
    await writeFile(src, content);
    const out = join(sub, 'out.arrow');
    const r = await run('convert', src, '--out', out);
    expect(r.code).toBe(1);
    expect(r.out).toBe('');
    expect(r.err).toMatch(/^dsgkit: /);
    expect(r.err).toMatch(pattern);
    expect(await filesIn(sub)).toEqual([file]); // no output, no temp file
  });

  it('a truncated real Arrow file is refused by describe and split', async () => {
    const { readFile } = await import('node:fs/promises');
    const bytes = await readFile(spam);
    const sub = await mkdtemp(join(dir, 'trunc-'));
    const cut = join(sub, 'spam-cut.arrow');
    await writeFile(cut, bytes.subarray(0, Math.floor(bytes.length * 0.7)));
    const d = await run('describe', cut);
    expect(d.code).toBe(1);
    expect(d.err).toMatch(/spam-cut\.arrow: Arrow file is truncated/);
    const s = await run('split', cut, '--labeled', '10', '--out-train', join(sub, 'tr.arrow'));
    expect(s.code).toBe(1);
    expect(await filesIn(sub)).toEqual(['spam-cut.arrow']);
  });

  it('split asking for more labels than exist exits 1 and writes neither output', async () => {
    const sub = await mkdtemp(join(dir, 'split-'));
    const r = await run('split', spam, '--labeled', '99999', '--test', '0.1', '--out-train', join(sub, 'a.arrow'), '--out-test', join(sub, 'b.arrow'));
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/spam\.arrow: asked for 99999 labeled training rows/);
    expect(await filesIn(sub)).toEqual([]);
  });
});

describe('dsgkit usage errors exit 2', () => {
  it.each([
    [['convert', spam, '--out', 'x.arrow', '--bogus'], /Unknown option '--bogus'/],
    [['convert', spam], /missing required option --out/],
    [['convert', '--out', 'x.arrow'], /missing input file/],
    [['convert', spam, '--out', 'x.txt'], /--out 'x\.txt': unknown output type '\.txt'/],
    [['frobnicate'], /unknown command 'frobnicate'/],
    [['trian'], /unknown command 'trian' \(did you mean 'train'\?\)/],
    [['train', '--learner', 'qsg-s2uac', '--data', spam, '--out', 'm.dsg'], /unknown learner 'qsg-s2uac' \(did you mean 'qsg-s2auc'\?\)/],
    [['predict', '--model', 'm.dsg', '--data', spam, '--out', '-', '--format', 'jsnl'], /got 'jsnl' \(did you mean 'jsonl'\?\)/],
    [['convert', spam, '--out', 'x.arrow', '--fromat', 'csv'], /Unknown option '--fromat' \(did you mean '--format'\?\)/],
    [['predict', '--model', 'm.dsg', '--data', spam, '--out', '-', '--format', 'parquet'], /--format must be one of arrow, csv, jsonl, got 'parquet'/],
    [['convert', 'x.parquet', '--out', 'x.arrow'], /unknown file type '\.parquet'/],
    [['split', spam, '--out-train', 'a.arrow'], /missing required option --labeled/],
    [['split', spam, '--labeled', 'ten', '--out-train', 'a.arrow'], /--labeled must be a whole number ≥ 0, got 'ten'/],
    [['split', spam, '--labeled', '10', '--test', '0.2', '--out-train', 'a.arrow'], /--test needs --out-test/],
    [['generate', '--out', 'g.arrow'], /missing required option --rows/],
    [['generate', '--out', 'g.arrow', '--rows', '10', '--positive', '1.5'], /--positive must be a number in \(0, 1\)/],
    [['generate', '--out', 'g.arrow', '--rows', '10', '--dim', '1'], /--dim must be a whole number ≥ 2/],
    [['generate', '--out', 'g.arrow', '--rows', '10', '--labeled', '5', '--labeled-within', '4'], /--labeled-within \(4\) must lie between --labeled \(5\) and --rows \(10\)/],
    [[], /Usage: dsgkit <command>/],
  ])('%j', async (argv, pattern) => {
    const r = await run(...(argv as string[]));
    expect(r.code).toBe(2);
    expect(r.err).toMatch(pattern);
    expect(r.out).toBe('');
  });
});

describe('dsgkit help', () => {
  it('lists every command and every command help teaches usage, options with defaults, and an example', async () => {
    const top = await run('--help');
    expect(top.code).toBe(0);
    for (const c of COMMANDS) expect(top.out).toContain(c.name);
    for (const c of COMMANDS) {
      const h = await run(c.name, '--help');
      expect(h.code).toBe(0);
      expect(h.out).toContain(`Usage: dsgkit ${c.name}`);
      expect(h.out).toContain('Options:');
      expect(h.out).toContain('Example:');
      expect(h.out).toMatch(/default/);
    }
  });
});

describe('dsgkit split and generate', () => {
  it('split writes a train set with exactly N stratified labels and a labeled test set', async () => {
    const tr = join(dir, 'spam-train.arrow');
    const te = join(dir, 'spam-test.arrows');
    const r = await run('split', spam, '--labeled', '100', '--test', '0.2', '--seed', '1', '--out-train', tr, '--out-test', te);
    expect(r.code).toBe(0);
    const train = await readArrow(tr);
    const test = await readArrow(te);
    expect(train.n + test.n).toBe(4601);
    expect([...classCounts(train)]).toEqual([[-1, 61], [1, 39]]);
    expect(test.labeled.every((v) => v === 1)).toBe(true);
  });

  it('generate writes the requested rows, balance and labeled count', async () => {
    const out = join(dir, 'gen.arrow');
    const r = await run('generate', '--out', out, '--rows', '3e4', '--dim', '4', '--positive', '0.25', '--labeled', '40', '--seed', '3');
    expect(r.code).toBe(0);
    const ds = await readArrow(out);
    expect(ds.n).toBe(30_000);
    expect(ds.d).toBe(4);
    expect([...classCounts(ds)]).toEqual([[-1, 30], [1, 10]]);
  });

  it('generate --labeled-within writes a prefix-stable file: the small file is the first rows of the big one', async () => {
    const small = join(dir, 'gen-small.arrow');
    const big = join(dir, 'gen-big.arrow');
    expect((await run('generate', '--out', small, '--rows', '5000', '--dim', '3', '--labeled', '30', '--labeled-within', '5000', '--seed', '2')).code).toBe(0);
    expect((await run('generate', '--out', big, '--rows', '12000', '--dim', '3', '--labeled', '30', '--labeled-within', '5000', '--seed', '2', '--batch-rows', '999')).code).toBe(0);
    const [s, b] = [await readArrow(small), await readArrow(big)];
    expect(Array.from(b.X.subarray(0, s.X.length))).toEqual(Array.from(s.X));
    expect(Array.from(b.y.subarray(0, s.n))).toEqual(Array.from(s.y));
    expect(b.labeled.reduce((a, v) => a + v, 0)).toBe(30);
  });
});

describe('the real entry point', () => {
  it('runs as a child process with exit codes and stderr', async () => {
    const exec = promisify(execFile);
    const entry = new URL('../src/cli/main.ts', import.meta.url).pathname;
    const ok = await exec(process.execPath, ['--import', 'tsx', entry, 'describe', spam, '--json']);
    expect(JSON.parse(ok.stdout)).toMatchObject({ rows: 4601, features: 57, labeled: 4601 });
    const bad = await exec(process.execPath, ['--import', 'tsx', entry, 'nope']).catch((e: { code: number; stderr: string }) => e);
    expect((bad as { code: number }).code).toBe(2);
    expect((bad as { stderr: string }).stderr).toMatch(/^dsgkit: unknown command 'nope'/);
  });
});
