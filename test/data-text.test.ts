import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DataError, UsageError } from '../src/errors.ts';
import { parseCsv, readCsv } from '../src/data/csv.ts';
import { parseLibsvm, readLibsvm } from '../src/data/libsvm.ts';
import { readArrow, writeArrow } from '../src/data/arrow.ts';
import { formatOf, readDataset } from '../src/data/index.ts';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'dsgkit-text-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

function dataError(fn: () => unknown): DataError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(DataError);
    return err as DataError;
  }
  throw new Error('expected a DataError');
}

const LIBSVM = `# a comment line
+1 1:0.5 3:2   # trailing comment

-1 2:1.5e-1
? 1:-3 4:7
2 4:1
`;

describe('LIBSVM', () => {
  it('parses sparse rows densely, with d = max index, ? = unlabeled, comments and blank lines skipped', () => {
    const ds = parseLibsvm(LIBSVM, 'toy.libsvm');
    expect(ds.n).toBe(4);
    expect(ds.d).toBe(4);
    expect(Array.from(ds.X)).toEqual([0.5, 0, 2, 0, 0, 0.15, 0, 0, -3, 0, 0, 7, 0, 0, 0, 1]);
    expect(Array.from(ds.y)).toEqual([1, -1, NaN, 2]);
    expect(Array.from(ds.labeled)).toEqual([1, 1, 0, 1]);
    expect(ds.featureNames).toEqual(['x1', 'x2', 'x3', 'x4']);
  });

  it('honours a given number of features and rejects an index beyond it', () => {
    expect(parseLibsvm('1 2:1\n', 'f.svm', { features: 5 }).d).toBe(5);
    const e = dataError(() => parseLibsvm('1 2:1\n-1 6:1\n', 'f.svm', { features: 5 }));
    expect(e.message).toMatch(/^f\.svm: column '6', line 2: .*exceeds/);
  });

  it.each([
    ['bad token', '1 1:1\n1 3\n', /^bad\.libsvm: line 2: bad token '3'/],
    ['index 0', '1 0:1\n', /line 1: .*index 0/],
    ['non-increasing index', '1 1:1\n1 3:1 2:1\n', /column '2', line 2: .*does not increase/],
    ['repeated index', '1 3:1 3:2\n', /line 1: .*index 3 does not increase/],
    ['non-numeric value', '1 1:abc\n', /column '1', line 1: value 'abc' is not a number/],
    ['NaN value', '1 1:1\n\n-1 2:nan\n', /column '2', line 3: value is nan \(not finite\)/],
    ['Infinity value', '1 1:inf\n', /column '1', line 1: value is inf/],
    ['overflowing value', '1 1:1e999\n', /column '1', line 1: value is 1e999 \(not finite\)/],
    ['non-numeric label', 'spam 1:1\n', /line 1: label: value 'spam' is not a number/],
    ['missing label', '1:1 2:2\n', /line 1: line starts with '1:1'/],
  ])('rejects a %s with the file and line', (_name, text, pattern) => {
    const e = dataError(() => parseLibsvm(text, 'bad.libsvm'));
    expect(e.message).toContain('bad.libsvm');
    expect(e.message).toMatch(pattern);
  });

  it('round-trips LIBSVM → Arrow → Dataset exactly', async () => {
    const src = join(dir, 'toy.libsvm');
    await writeFile(src, LIBSVM);
    const ds = await readLibsvm(src);
    const out = join(dir, 'toy.arrow');
    await writeArrow(out, ds);
    const back = await readArrow(out);
    expect(Array.from(back.X)).toEqual(Array.from(ds.X));
    expect(Array.from(back.y)).toEqual(Array.from(ds.y));
    expect(back.featureNames).toEqual(ds.featureNames);
  });
});

const CSV = 'label,a,"b, quoted"\r\n1,0.5,2\n?,1,"3"\n\n,2,-1e2\nNA,0,0\n-1,.25,4\n';

describe('CSV', () => {
  it('parses a header, quoted names and fields, CRLF, blank lines; empty/?/NA labels = unlabeled', () => {
    const ds = parseCsv(CSV, 'toy.csv');
    expect(ds.featureNames).toEqual(['a', 'b, quoted']);
    expect(ds.n).toBe(5);
    expect(Array.from(ds.X)).toEqual([0.5, 2, 1, 3, 2, -100, 0, 0, 0.25, 4]);
    expect(Array.from(ds.labeled)).toEqual([1, 0, 0, 0, 1]);
    expect(ds.y[4]).toBe(-1);
  });

  it('picks the label column by name, wherever it is', () => {
    const ds = parseCsv('a,y,b\n1,5,2\n', 'y.csv', { labelColumn: 'y' });
    expect(ds.featureNames).toEqual(['a', 'b']);
    expect(Array.from(ds.X)).toEqual([1, 2]);
    expect(ds.y[0]).toBe(5);
  });

  it.each([
    ['missing label column', 'y,a\n1,2\n', {}, /^bad\.csv: column 'label': label column not found \(columns: y, a\)/],
    ['ragged row', 'label,a,b\n1,2,3\n1,2\n', {}, /^bad\.csv: row 2: row has 2 fields but the header has 3/],
    ['non-numeric cell', 'label,a,b\n1,2,3\n1,x7,3\n', {}, /^bad\.csv: column 'a', row 2: value 'x7' is not a number/],
    ['empty feature cell', 'label,a,b\n1,2,\n', {}, /^bad\.csv: column 'b', row 1: value is missing/],
    ['NaN cell', 'label,a,b\n1,NaN,3\n', {}, /^bad\.csv: column 'a', row 1: value is NaN \(not finite\)/],
    ['Infinity cell', 'label,a,b\n1,2,3\n\n1,2,-Infinity\n', {}, /^bad\.csv: column 'b', row 2: value is -Infinity/],
    ['name after numeric labels', 'label,a\n1,1\n\nspam,1\n', {}, /^bad\.csv: column 'label', row 2: label: value 'spam' is not a number \(the first label, row 1, is a number\).*--classes/],
    ['label not among --classes', 'label,a\nspam,1\nhma,2\n', { classes: ['ham', 'spam'] }, /^bad\.csv: column 'label', row 2: label 'hma' is not one of the given classes \(ham, spam\)/],
    ['hex number', 'label,a\n1,0x10\n', {}, /column 'a', row 1: value '0x10' is not a number/],
    ['unclosed quote', 'label,a\n1,"2\n', {}, /^bad\.csv: line 2: a quoted field is never closed/],
    ['duplicate column', 'label,a,a\n1,2,3\n', {}, /^bad\.csv: column 'a': column name appears twice/],
    ['empty file', '', {}, /^bad\.csv: file is empty/],
  ])('rejects a %s, naming file, column and row', (_name, text, opts, pattern) => {
    const e = dataError(() => parseCsv(text, 'bad.csv', opts));
    expect(e.message).toMatch(pattern);
  });

  it('round-trips CSV → Arrow → Dataset exactly (file and stream format)', async () => {
    const src = join(dir, 'toy.csv');
    await writeFile(src, CSV);
    const ds = await readCsv(src);
    for (const name of ['csv.arrow', 'csv.arrows']) {
      const out = join(dir, name);
      await writeArrow(out, ds);
      const back = await readArrow(out);
      expect(Array.from(back.X)).toEqual(Array.from(ds.X));
      expect(Array.from(back.y)).toEqual(Array.from(ds.y));
      expect(back.featureNames).toEqual(ds.featureNames);
    }
  });
});

describe('readDataset', () => {
  it('chooses the reader by extension', async () => {
    const p = join(dir, 'pick.t');
    await writeFile(p, '1 2:3\n');
    expect((await readDataset(p)).d).toBe(2);
    expect(formatOf('x.FEATHER')).toBe('arrow');
    expect(formatOf('x.arrows')).toBe('arrow');
    expect(formatOf('x.csv')).toBe('csv');
  });

  it('rejects an unknown extension with a UsageError listing the known ones', async () => {
    await expect(readDataset('data.parquet')).rejects.toThrow(UsageError);
    await expect(readDataset('data.parquet')).rejects.toThrow(/unknown file type '\.parquet'.*\.arrow.*\.csv.*\.libsvm/);
  });
});
