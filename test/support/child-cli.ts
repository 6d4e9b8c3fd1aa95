/**
 * The real CLI as a child process (signals, pipes and exit codes are only
 * real in a process of its own), and a wait for the temporary file of a write
 * under way — what the signal and fault tests share.
 *
 * @example
 * const { child, exited } = startCli(['generate', '--rows', '2e7', '--dim', '10', '--out', out]);
 * await tempFileAppears(dirname(out));
 * child.kill('SIGINT');
 * expect((await exited).code).toBe(130);
 */
import { spawn } from 'node:child_process';
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';

const entry = new URL('../../src/cli/main.ts', import.meta.url).pathname;

/** Starts the real CLI as a child process; resolves its exit code (or signal) and output. */
export function startCli(args: string[], opts: { stdout?: 'pipe' | 'ignore' } = {}) {
  const child = spawn(process.execPath, ['--import', 'tsx', entry, ...args], { stdio: ['ignore', opts.stdout ?? 'pipe', 'pipe'] });
  let stderr = '';
  let stdout = '';
  child.stderr!.on('data', (b: Buffer) => (stderr += b.toString()));
  child.stdout?.on('data', (b: Buffer) => (stdout += b.toString()));
  const exited = new Promise<{ code: number | null; signal: string | null; stderr: string; stdout: string }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal, stderr, stdout })),
  );
  return { child, exited };
}

/** Waits until `sub` holds a temporary file with some bytes in it (the write is under way). */
export async function tempFileAppears(sub: string, timeoutMs = 60_000): Promise<string> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    for (const name of await readdir(sub)) {
      if (/\.tmp-\d+-[0-9a-f]{8}-[0-9a-f]{8}$/.test(name) && (await stat(join(sub, name)).catch(() => undefined))?.size) return name;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`no temporary file appeared in ${sub}`);
}
