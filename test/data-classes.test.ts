import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Dictionary, Int32, Table, Type, Utf8, tableFromArrays, tableFromIPC, tableToIPC, vectorFromArray } from 'apache-arrow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DataError } from '../src/errors.ts';
import { parseCsv } from '../src/data/csv.ts';
import { parseLibsvm } from '../src/data/libsvm.ts';
import { arrowBytesToDataset, readArrow, tableToDataset, writeArrow } from '../src/data/arrow.ts';
import { labelText, selectRows } from '../src/data/dataset.ts';
import { splitDataset } from '../src/data/split.ts';
import { MinMaxScaler } from '../src/data/scaler.ts';
import { runCli } from './support/cli.ts';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'dsgkit-classes-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Runs the CLI in-process, capturing what it writes. */
const run = (...argv: string[]) => runCli(argv);

const MAIL = 'label,a,b\nspam,1,2\nham,3,4\n?,5,6\nspam,7,8\nham,9,10\n';

describe('labels that are class names', () => {
  it('CSV: spam/ham become classes in code-unit order; y is the class index; ? stays unlabeled', () => {
    const ds = parseCsv(MAIL, 'mail.csv');
    expect(ds.classNames).toEqual(['ham', 'spam']);
    expect(Array.from(ds.y)).toEqual([1, 0, NaN, 1, 0]);
    expect(Array.from(ds.labeled)).toEqual([1, 1, 0, 1, 1]);
    expect(labelText(ds, 0)).toBe('spam');
    // code-unit order, not the locale's: 'Zebra' < 'apple' < 'Ápple'
    expect(parseCsv('label,a\napple,1\nZebra,2\nÁpple,3\n', 'o.csv').classNames).toEqual(['Zebra', 'apple', 'Ápple']);
  });

  it('numeric labels stay exactly as before (no classNames)', () => {
    const ds = parseCsv('label,a\n-1,1\n1,2\n', 'n.csv');
    expect(ds.classNames).toBeUndefined();
    expect(Array.from(ds.y)).toEqual([-1, 1]);
  });

  it('classes given: their order; a label outside them is a located DataError; numbers may be names then', () => {
    const ds = parseCsv(MAIL, 'mail.csv', { classes: ['spam', 'ham'] });
    expect(ds.classNames).toEqual(['spam', 'ham']);
    expect(Array.from(ds.y)).toEqual([0, 1, NaN, 0, 1]);
    expect(() => parseCsv(MAIL, 'mail.csv', { classes: ['spam', 'eggs'] })).toThrow(
      /^mail\.csv: column 'label', row 2: label 'ham' is not one of the given classes \(spam, eggs\)$/,
    );
    expect(parseCsv('label,a\n1,1\n2,2\n', 'n.csv', { classes: ['2', '1'] }).y).toEqual(new Float64Array([1, 0]));
    const lib = parseLibsvm('spam 1:1\nham 2:1\n? 1:2\n', 'mail.libsvm', { classes: ['ham', 'spam'] });
    expect([lib.classNames, Array.from(lib.y)]).toEqual([['ham', 'spam'], [1, 0, NaN]]);
    expect(() => parseLibsvm('spam 1:1\nhma 2:1\n', 'mail.libsvm', { classes: ['ham', 'spam'] })).toThrow(/mail\.libsvm: column 'label', line 2: label 'hma' is not one/);
  });

  it('Arrow: a string (utf8) label column and a dictionary-encoded one are read as classes, nulls unlabeled', () => {
    const utf8 = new Table({ label: vectorFromArray(['spam', null, 'ham', 'spam'], new Utf8()), a: vectorFromArray(Float64Array.from([1, 2, 3, 4])) });
    const a = tableToDataset(utf8, 'u.arrow');
    expect([a.classNames, Array.from(a.y)]).toEqual([['ham', 'spam'], [1, NaN, 0, 1]]);
    const dict = new Table({ label: vectorFromArray(['b', 'a', null, 'b'], new Dictionary(new Utf8(), new Int32())), a: vectorFromArray(Float64Array.from([1, 2, 3, 4])) });
    expect(dict.schema.fields[0].type.typeId).toBe(Type.Dictionary);
    const b = arrowBytesToDataset(tableToIPC(dict, 'stream'), 'd.arrows');
    expect([b.classNames, Array.from(b.y)]).toEqual([['a', 'b'], [1, 0, NaN, 1]]);
    expect(() => tableToDataset(utf8, 'u.arrow', { classes: ['spam'] })).toThrow(/^u\.arrow: column 'label', row 3: label 'ham' is not one of the given classes \(spam\)/);
    const numeric = tableFromArrays({ label: Float64Array.from([1, 2]), a: Float64Array.from([1, 2]) });
    expect(() => tableToDataset(numeric, 'n.arrow', { classes: ['1', '2'] })).toThrow(DataError);
  });

  it('selectRows, splitDataset and scaling carry the class names; writers write the names back as strings', async () => {
    const ds = parseCsv(MAIL, 'mail.csv');
    expect(selectRows(ds, [1, 0]).classNames).toEqual(['ham', 'spam']);
    const { train, test } = splitDataset(ds, { labeled: 2, test: 2, seed: 1 });
    expect(train.classNames).toEqual(['ham', 'spam']);
    expect(test!.classNames).toEqual(['ham', 'spam']);
    expect(MinMaxScaler.fit(ds).transform(ds).classNames).toEqual(['ham', 'spam']);
    const out = join(dir, 'mail.arrow');
    await writeArrow(out, ds);
    const table = tableFromIPC(await readFile(out)) as Table;
    expect(table.schema.fields[0].type.typeId).toBe(Type.Utf8);
    expect(table.getChild('label')!.toArray()).toEqual(['spam', 'ham', null, 'spam', 'ham']);
    const back = await readArrow(out);
    expect([back.classNames, Array.from(back.y)]).toEqual([['ham', 'spam'], Array.from(ds.y)]);
  });
});

describe('class names on the command line', () => {
  it('convert (streamed CSV) writes the names as strings; describe prints them; split keeps them', async () => {
    const src = join(dir, 'mail.csv');
    await writeFile(src, MAIL + 'spam,11,12\nham,13,14\nspam,15,16\nham,17,18\n');
    const arrow = join(dir, 'mail-cli.arrow');
    const c = await run('convert', src, '--out', arrow);
    expect(c.err).toBe('');
    expect(c.out).toContain('8 labeled (classes: ham, spam), 1 unlabeled');
    expect((tableFromIPC(await readFile(arrow)) as Table).getChild('label')!.get(0)).toBe('spam');
    const d = await run('describe', arrow);
    expect(d.out).toMatch(/classes:\s+2 \(labeled rows\)\n\s+ham: 4\s+50\.0%\n\s+spam: 4\s+50\.0%/);
    expect(JSON.parse((await run('describe', arrow, '--json')).out).classes).toEqual([
      { label: 'ham', count: 4, fraction: 0.5 },
      { label: 'spam', count: 4, fraction: 0.5 },
    ]);
    const tr = join(dir, 'tr.arrow');
    const te = join(dir, 'te.arrow');
    const s = await run('split', src, '--classes', 'spam,ham', '--labeled', '2', '--test', '2', '--out-train', tr, '--out-test', te);
    expect(s.code, s.err).toBe(0);
    expect(s.out).toMatch(/2 labeled \(spam: 1, ham: 1\)/);
    expect((await readArrow(te)).classNames).toEqual(['ham', 'spam']);
    const bad = await run('describe', src, '--classes', 'spam,eggs');
    expect(bad.code).toBe(1);
    expect(bad.err).toMatch(/mail\.csv: column 'label', row 2: label 'ham' is not one of the given classes \(spam, eggs\)/);
    expect((await run('describe', src, '--classes', 'spam')).code).toBe(2);
  });
});
