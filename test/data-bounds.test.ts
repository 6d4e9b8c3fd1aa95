import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DataError } from '../src/errors.ts';
import { parseCsv, readCsv } from '../src/data/csv.ts';
import { parseLibsvm, readLibsvm } from '../src/data/libsvm.ts';
import { readArrow } from '../src/data/arrow.ts';
import { rowsPerBlock } from '../src/data/row-source.ts';
import { readDataset } from '../src/data/index.ts';
import { runCli } from './support/cli.ts';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'dsgkit-bounds-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Runs the CLI in-process, capturing what it writes. */
const run = (...argv: string[]) => runCli(argv);

describe('readers bound what the input can make them allocate', () => {
  it('a LIBSVM index of 1e9 (or 1e8) is a DataError on its line, raised at once with no large allocation', async () => {
    for (const index of ['1000000000', '100000000']) {
      const path = join(dir, `wide-${index}.libsvm`);
      await writeFile(path, `+1 1:0.5 2:1\n-1 3:1 ${index}:1\n`);
      const before = process.memoryUsage().rss;
      const err = await readLibsvm(path).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(DataError);
      expect((err as Error).message).toBe(`${path}: column '${index}', line 2: index ${index} is beyond 1000000 features, the most dsgkit reads (features are stored dense: select or hash them into fewer first)`);
      expect(process.memoryUsage().rss - before).toBeLessThan(200 * 2 ** 20);
      const cli = await run('convert', path, '--out', join(dir, 'wide.arrow'));
      expect(cli.code).toBe(1);
      expect(cli.err).toContain(`line 2: index ${index} is beyond 1000000 features`);
    }
  });

  it('--max-features / maxFeatures move the limit; --features still bounds the indices itself', async () => {
    const path = join(dir, 'seven.libsvm');
    await writeFile(path, '+1 1:1\n-1 7:1\n');
    expect(() => parseLibsvm('+1 1:1\n-1 7:1\n', 'seven.libsvm', { maxFeatures: 6 })).toThrow(/line 2: index 7 is beyond the limit of 6 features/);
    expect((await readDataset(path, { maxFeatures: 7 })).d).toBe(7);
    const low = await run('describe', path, '--max-features', '5');
    expect(low.code).toBe(1);
    expect(low.err).toMatch(/seven\.libsvm: column '7', line 2: index 7 is beyond the limit of 5 features/);
    expect((await run('describe', path, '--max-features', '7')).code).toBe(0);
    expect((await run('describe', path, '--features', '6')).err).toMatch(/index 7 exceeds the declared number of features 6/);
  });

  it('a dense matrix too large to allocate is a DataError naming the file, not a crash', () => {
    const rows = Array.from({ length: 5000 }, () => '1 1000000:1').join('\n'); // 5000 × 1e6 doubles: beyond any typed array
    expect(() => parseLibsvm(rows, 'huge.libsvm')).toThrow(DataError);
    expect(() => parseLibsvm(rows, 'huge.libsvm')).toThrow(/^huge\.libsvm: 5000 rows × 1000000 features need 37\.3 GiB of memory/);
  });
});

describe('streamed text readers', () => {
  it('reading a CSV file block by block gives exactly what parsing its text gives (many blocks, CRLF, quotes, blank lines)', async () => {
    const d = 40;
    const n = 3 * rowsPerBlock(d) + 17;
    const header = ['"label"', ...Array.from({ length: d }, (_, k) => `f${k}`)].join(',');
    const lines = [header];
    for (let i = 0; i < n; i++) {
      const label = i % 7 === 0 ? '' : i % 2 ? '1' : '-1';
      lines.push([label, ...Array.from({ length: d }, (_, k) => ((i * 31 + k * 7) % 101) / 10)].join(','));
      if (i % 1000 === 0) lines.push('');
    }
    const csvText = lines.map((l, i) => l + (i % 2 ? '\r\n' : '\n')).join('');
    const path = join(dir, 'blocks.csv');
    await writeFile(path, csvText);
    const streamed = await readCsv(path);
    const whole = parseCsv(csvText, path);
    expect(streamed.n).toBe(n);
    expect(streamed.d).toBe(d);
    expect(Buffer.from(streamed.X.buffer).equals(Buffer.from(whole.X.buffer))).toBe(true);
    expect(Array.from(streamed.y)).toEqual(Array.from(whole.y));
    // convert streams the same rows to Arrow, block by block
    const out = join(dir, 'blocks.arrow');
    const c = await run('convert', path, '--out', out);
    expect(c.code).toBe(0);
    expect(c.out).toContain(`${n} rows, ${d} features`);
    const back = await readArrow(out);
    expect(Buffer.from(back.X.buffer).equals(Buffer.from(whole.X.buffer))).toBe(true);
    expect(Array.from(back.y)).toEqual(Array.from(whole.y));
  });

  it('a bad cell deep in a streamed CSV is reported with its row, and convert writes nothing', async () => {
    const rows = ['label,a,b', ...Array.from({ length: 100_000 }, (_, i) => `1,${i},2`)];
    rows[77_778] = '1,3,x';
    const path = join(dir, 'late.csv');
    await writeFile(path, rows.join('\n'));
    const out = join(dir, 'late.arrow');
    const r = await run('convert', path, '--out', out);
    expect(r.code).toBe(1);
    expect(r.err).toBe(`dsgkit: ${path}: column 'b', row 77778: value 'x' is not a number\n`);
    await expect(readFile(out)).rejects.toThrow(/ENOENT/);
  });

  it('LIBSVM read from a stream equals LIBSVM parsed from text, with \\r\\n line ends', async () => {
    const text = '+1 1:0.5 3:2\r\n# c\r\n-1 2:1\r\n? 1:1\n';
    const path = join(dir, 'crlf.libsvm');
    await writeFile(path, text);
    const a = await readLibsvm(path);
    const b = parseLibsvm(text, path);
    expect(Array.from(a.X)).toEqual(Array.from(b.X));
    expect(Array.from(a.y)).toEqual(Array.from(b.y));
    expect(await readLibsvm(join(dir, 'none.libsvm')).catch((e: Error) => e.message)).toMatch(/none\.libsvm: cannot read file: ENOENT/);
  });
});
