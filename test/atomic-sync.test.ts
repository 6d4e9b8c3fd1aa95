/**
 * Durable outputs: an output is synced to disk (fsync) before it is renamed
 * into place, and its directory after, so a power cut leaves the earlier
 * file or the complete new one, never an empty file under the new name.
 * Checked on the system calls themselves, traced with strace (the test says
 * why it is skipped where strace is missing).
 */
import { execFile, execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = new URL('..', import.meta.url).pathname;
const strace = (() => {
  try {
    execFileSync('strace', ['-V'], { stdio: 'ignore' });
    return true;
  } catch {
    console.log('atomic-sync.test.ts: skipped, strace is not installed (apt-get install strace)');
    return false;
  }
})();

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'dsgkit-sync-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe.skipIf(!strace)('fsync around the rename', () => {
  it('fsyncs the temporary file before renaming it over the destination, and the directory after', async () => {
    const script = join(dir, 'write.mts');
    await writeFile(script, `import { writeFileAtomic } from ${JSON.stringify(join(root, 'src/data/atomic.ts'))};\nawait writeFileAtomic(process.argv[2], 'hello\\n');\n`);
    const out = join(dir, 'out.txt');
    const log = join(dir, 'trace.log');
    await promisify(execFile)('strace', ['-f', '-qq', '-e', 'trace=openat,fsync,fdatasync,rename,renameat,renameat2', '-o', log, join(root, 'node_modules/.bin/tsx'), script, out]);
    expect(await readFile(out, 'utf8')).toBe('hello\n');
    // Each line: "PID call(args) = result". Follow the file descriptors by path.
    const lines = (await readFile(log, 'utf8')).split('\n');
    const events: string[] = [];
    const fds = new Map<string, string>();
    for (const line of lines) {
      const open = /openat\(AT_FDCWD, "([^"]+)", ([A-Z_|]+)[^)]*\) = (\d+)/.exec(line);
      if (open) {
        const [, path, flags, fd] = open;
        if (path.startsWith(join(dir, '.out.txt.tmp-'))) fds.set(fd, 'tmp');
        else if (path === dir && !flags.includes('O_DIRECTORY')) fds.set(fd, 'dir');
        else fds.delete(fd);
        continue;
      }
      const sync = /f(?:data)?sync\((\d+)\)\s+= 0/.exec(line);
      if (sync && fds.has(sync[1])) events.push(`fsync ${fds.get(sync[1])}`);
      if (/rename(at2?)?\(.*\.out\.txt\.tmp-.*out\.txt"/.test(line)) events.push('rename');
    }
    expect(events).toEqual(['fsync tmp', 'rename', 'fsync dir']);
  });
});
