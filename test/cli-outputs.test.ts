import { copyFile, link, mkdir, mkdtemp, readFile, readdir, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './support/cli.ts';

let dir: string;
let data: string;
let original: Buffer;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'dsgkit-outputs-'));
  data = join(dir, 'bc.arrow');
  await copyFile(new URL('../data/breast_cancer.arrow', import.meta.url).pathname, data);
  original = await readFile(data);
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Runs the CLI in-process, capturing what it writes. */
const run = (...argv: string[]) => runCli(argv);

/** The input is byte for byte what it was, and nothing else appeared in the folder. */
async function expectUntouched(extra: string[] = []): Promise<void> {
  expect((await readFile(data)).equals(original)).toBe(true);
  expect((await readdir(dir)).filter((f) => !extra.includes(f)).sort()).toEqual(['bc.arrow']);
}

describe('outputs never overwrite inputs', () => {
  it('train --out equal to --data or to --validation is refused before any work, naming both options', async () => {
    const same = await run('train', '--learner', 'dsg', '--data', data, '--out', data);
    expect(same.code).toBe(2);
    expect(same.err).toMatch(/--out '.*bc\.arrow' is the same file as --data/);
    const spelled = join(dir, '.', 'sub-does-not-matter', '..', 'bc.arrow');
    await mkdir(join(dir, 'sub-does-not-matter'));
    const val = await run('train', '--learner', 'dsg', '--data', data, '--validation', relative(process.cwd(), data), '--out', spelled);
    await rm(join(dir, 'sub-does-not-matter'), { recursive: true });
    expect(val.code).toBe(2);
    expect(val.err).toMatch(/is the same file as --data/);
    await expectUntouched();
  });

  it('split --out-train equal to its input (also through a symbolic or hard link) is refused', async () => {
    const direct = await run('split', data, '--labeled', '10', '--out-train', data);
    expect(direct.code).toBe(2);
    expect(direct.err).toMatch(/--out-train '.*' is the same file as input file/);
    const sym = join(dir, 'sym.arrow');
    const hard = join(dir, 'hard.arrow');
    await symlink(data, sym);
    await link(data, hard);
    for (const alias of [sym, hard]) {
      const r = await run('split', data, '--labeled', '10', '--test', '0.2', '--out-train', join(dir, 'tr.arrow'), '--out-test', alias);
      expect(r.code).toBe(2);
      expect(r.err).toMatch(/--out-test '.*' is the same file as input file/);
    }
    await rm(sym);
    await rm(hard);
    const twice = await run('split', data, '--labeled', '10', '--test', '0.2', '--out-train', join(dir, 'x.arrow'), '--out-test', join(dir, 'x.arrow'));
    expect(twice.code).toBe(2);
    expect(twice.err).toMatch(/--out-train and --out-test name the same file/);
    await expectUntouched();
  });

  it('convert and predict refuse to write over their input', async () => {
    const c = await run('convert', data, '--out', data);
    expect(c.code).toBe(2);
    expect(c.err).toMatch(/--out '.*' is the same file as input file/);
    const p = await run('predict', '--model', join(dir, 'missing.dsg'), '--data', data, '--out', data);
    expect(p.code).toBe(2);
    expect(p.err).toMatch(/--out '.*' is the same file as --data/);
    await expectUntouched();
  });

  it('an --out that is an existing directory is a usage error (exit 2), not an internal error', async () => {
    const sub = join(dir, 'models');
    await mkdir(sub);
    const cases = [
      ['train', '--learner', 'dsg', '--data', data, '--out', sub],
      ['generate', '--rows', '10', '--out', join(dir, 'dir.arrow')],
      ['convert', data, '--out', join(dir, 'dir.arrow')],
      ['split', data, '--labeled', '10', '--out-train', join(dir, 'dir.arrow')],
      ['predict', '--model', 'm.dsg', '--data', data, '--out', join(dir, 'dir.arrow')],
    ];
    await mkdir(join(dir, 'dir.arrow'));
    for (const argv of cases) {
      const r = await run(...argv);
      expect(r.code, argv.join(' ')).toBe(2);
      expect(r.err).toMatch(/is a directory; give the path of a file to write/);
      expect(r.err).not.toMatch(/internal error/);
    }
    await rm(sub, { recursive: true });
    await rm(join(dir, 'dir.arrow'), { recursive: true });
    const missingDir = await run('generate', '--rows', '10', '--out', join(dir, 'nope', 'g.arrow'));
    expect(missingDir.code).toBe(2);
    expect(missingDir.err).toMatch(/directory '.*nope' does not exist/);
    await expectUntouched();
  });
});
