import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../src/cli/main.ts';
import { startCli, tempFileAppears } from './support/child-cli.ts';
import { pendingTempFiles, writerTag } from '../src/data/atomic.ts';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'dsgkit-signals-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('interrupts leave nothing behind', () => {
  it('SIGINT during generate: exit 130, says what was cancelled, no temporary file left', async () => {
    const sub = join(dir, 'gen');
    await mkdir(sub);
    const out = join(sub, 'big.arrow');
    const { child, exited } = startCli(['generate', '--rows', '2e7', '--dim', '10', '--out', out]);
    await tempFileAppears(sub);
    child.kill('SIGINT');
    const r = await exited;
    expect(r.code).toBe(130);
    expect(r.stderr).toContain(`dsgkit: generate cancelled by SIGINT; nothing written to ${out} (its unfinished temporary file was removed)`);
    expect(await readdir(sub)).toEqual([]);
  });

  it('SIGTERM during a streamed convert: exit 143, no temporary file left, an earlier output untouched', async () => {
    const sub = join(dir, 'conv');
    await mkdir(sub);
    const csv = join(dir, 'rows.csv');
    const lines = ['label,a,b,c,d'];
    for (let i = 0; i < 400_000; i++) lines.push(`${i % 2},${i},${i % 7},${i % 3},0.5`);
    await writeFile(csv, lines.join('\n'));
    const out = join(sub, 'rows.arrow');
    await writeFile(out, 'an earlier output');
    const { child, exited } = startCli(['convert', csv, '--out', out]);
    await tempFileAppears(sub);
    child.kill('SIGTERM');
    const r = await exited;
    expect(r.code).toBe(143);
    expect(r.stderr).toContain('dsgkit: convert cancelled by SIGTERM; nothing written to');
    expect(await readdir(sub)).toEqual(['rows.arrow']);
    expect(await readFile(out, 'utf8')).toBe('an earlier output');
  });

  it("the next write into a folder removes temporary files of killed writers (SIGKILL), not those of live ones", async () => {
    const sub = join(dir, 'stale');
    await mkdir(sub);
    const { child, exited } = startCli(['--version']);
    await exited;
    const deadPid = child.pid!;
    const stale = `.old.arrow.tmp-${deadPid}-${writerTag()}-0badc0de`;
    const live = `.other.arrow.tmp-${process.pid}-${writerTag()}-0badc0de`;
    // The same dead process id, written from another PID namespace or host (another tag), or with the old untagged name: nothing tells whether it is still written.
    const foreign = `.far.arrow.tmp-${deadPid}-${writerTag() === '00000000' ? '11111111' : '00000000'}-0badc0de`;
    const untagged = `.older.arrow.tmp-${deadPid}-0badc0de`;
    await writeFile(join(sub, stale), 'left by SIGKILL');
    await writeFile(join(sub, live), 'being written');
    await writeFile(join(sub, foreign), 'being written elsewhere');
    await writeFile(join(sub, untagged), 'unknown writer');
    const src = join(dir, 'tiny.csv');
    await writeFile(src, 'label,a\n1,2\n-1,3\n');
    let err = '';
    const code = await main(['convert', src, '--out', join(sub, 'tiny.arrow')], { stdout: { write: () => true }, stderr: { write: (s: string) => (err += s) } });
    expect(code, err).toBe(0);
    expect((await readdir(sub)).sort()).toEqual([live, foreign, untagged, 'tiny.arrow'].sort());
    expect(pendingTempFiles()).toEqual([]);
  });
});
