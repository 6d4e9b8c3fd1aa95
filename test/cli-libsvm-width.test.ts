import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readArrow } from '../src/data/arrow.ts';
import { runCli } from './support/cli.ts';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'dsgkit-width-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Runs the CLI in-process, capturing what it writes. */
const run = (...argv: string[]) => runCli(argv);

/** LIBSVM rows whose class is decided by feature 1; feature `wide` appears only where asked. */
function rows(n: number, wide: number | undefined): string {
  const lines: string[] = [];
  for (let i = 0; i < n; i++) {
    const pos = i % 2 === 0;
    const x1 = pos ? 0.8 + (i % 5) / 50 : 0.2 - (i % 5) / 50;
    lines.push(`${pos ? '+1' : '-1'} 1:${x1} 2:${(i % 3) / 3}${wide !== undefined && i % 4 === 0 ? ` ${wide}:1` : ''}`);
  }
  return lines.join('\n') + '\n';
}

describe('evaluate and predict take the LIBSVM width from the model', () => {
  it('a test file whose largest index is smaller than the training file’s is read at the model’s width', async () => {
    const train = join(dir, 'train.libsvm');
    const test = join(dir, 'test.libsvm');
    await writeFile(train, rows(60, 5));
    await writeFile(test, rows(20, undefined)); // largest index 2
    const model = join(dir, 'm.dsg');
    const t = await run('train', '--learner', 'dsg', '--data', train, '--out', model, '--iterations', '20', '--quiet', '--threads', '1');
    expect(t.code, t.err).toBe(0);
    const e = await run('evaluate', '--model', model, '--data', test, '--json');
    expect(e.code, e.err).toBe(0);
    expect(JSON.parse(e.out)).toMatchObject({ labeled: 20 });
    expect(JSON.parse(e.out).auc).toBeGreaterThan(0.9);
    const out = join(dir, 'scores.arrow');
    const p = await run('predict', '--model', model, '--data', test, '--out', out);
    expect(p.code, p.err).toBe(0);
    expect((await readArrow(out, { labelColumn: 'label', featureColumns: ['score'] })).n).toBe(20);
    // an index beyond the model's width is a located data error
    await writeFile(test, '+1 1:0.5\n-1 6:1\n');
    const wide = await run('evaluate', '--model', model, '--data', test);
    expect(wide.code).toBe(1);
    expect(wide.err).toMatch(/test\.libsvm: column '6', line 2: index 6 exceeds the declared number of features 5/);
  });
});
