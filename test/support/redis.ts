/**
 * A real `redis-server` for the distributed tests, on a free loopback port,
 * without persistence, in a folder of its own. Tests never mock Redis: where
 * Debian's `redis-server` is missing (`apt-get install redis-server`; `.ci/run`
 * installs it), {@link redisMissing} says why they are skipped.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';

/** Why the distributed tests cannot run here, or undefined when they can. */
export function redisMissing(): string | undefined {
  const r = spawnSync('redis-server', ['--version'], { encoding: 'utf8' });
  if (r.error || r.status !== 0) return 'redis-server is not installed (Debian: apt-get install redis-server); the distributed tests are skipped';
  return undefined;
}

/** A free TCP port on 127.0.0.1. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

/** A running redis-server; `restart` stops it and starts an empty one on the same port. */
export interface TestRedis {
  readonly port: number;
  readonly url: string;
  stop(): Promise<void>;
  restart(downMs?: number): Promise<void>;
}

async function launch(port: number, extra: string[]): Promise<ChildProcess> {
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', ...extra], { stdio: ['ignore', 'pipe', 'pipe'] });
  await new Promise<void>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`redis-server did not start on port ${port}: ${out}`)), 10_000);
    child.stdout!.on('data', (b: Buffer) => {
      out += b.toString();
      if (out.includes('Ready to accept connections')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`redis-server exited with ${code}: ${out}`));
    });
  });
  return child;
}

async function kill(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const gone = new Promise<void>((r) => child.once('exit', () => r()));
  child.kill('SIGKILL');
  await gone;
}

/**
 * Starts redis-server on a free port; `requirePass` sets a password (the URL carries it).
 *
 * @example
 * const redis = await startRedis();
 * await main(['predict', …, '--queue', redis.url]);
 * await redis.stop();
 */
export async function startRedis(opts: { requirePass?: string } = {}): Promise<TestRedis> {
  const port = await freePort();
  const extra = opts.requirePass !== undefined ? ['--requirepass', opts.requirePass] : [];
  let child = await launch(port, extra);
  return {
    port,
    url: `redis://${opts.requirePass !== undefined ? `:${opts.requirePass}@` : ''}127.0.0.1:${port}`,
    stop: () => kill(child),
    async restart(downMs = 0) {
      await kill(child);
      if (downMs > 0) await new Promise((r) => setTimeout(r, downMs));
      child = await launch(port, extra);
    },
  };
}
