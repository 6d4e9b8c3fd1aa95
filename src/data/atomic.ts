/**
 * All-or-nothing output files: everything dsgkit writes goes to a temporary
 * file in the destination's own directory (so the final `rename` stays on one
 * file system and is atomic), and is renamed over the destination only once
 * it is complete and flushed to disk (`fsync` of the file before the rename,
 * of its directory after it). A failure part-way removes the temporary file
 * and leaves any earlier file at the destination untouched; a failure of the
 * file system itself (no space left, read-only, quota, permission, I/O error)
 * is a {@link DataError} naming the destination and the reason.
 *
 * Interrupts: every temporary file being written is in a registry
 * ({@link pendingTempFiles}); the CLI's signal handler (SIGINT, SIGTERM,
 * SIGHUP, SIGQUIT, SIGUSR2, SIGALRM…) removes them with
 * {@link removePendingTempFiles} before it exits. Only SIGKILL (or a power cut)
 * can leave one behind: it is hidden, named `.NAME.tmp-PID-WRITER-RANDOM`,
 * where WRITER is a fingerprint of the host, its boot and the PID namespace
 * the writer runs in. The next write into the same directory removes those
 * whose writer is this machine, this boot and this PID namespace and whose
 * process no longer runs ({@link removeStaleTempFiles}); a file written from
 * another container, another host (a network file system) or before a reboot
 * is never taken for a dead one, since its process id means nothing here.
 */
import { createHash, randomBytes } from 'node:crypto';
import { readFileSync, readlinkSync, unlinkSync } from 'node:fs';
import { open, readdir, rename, statfs, unlink, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { DataError } from '../errors.ts';

/** `.NAME.tmp-PID-WRITER-RANDOM`, as {@link tempPathFor} makes them. */
const TEMP_NAME = /^\..+\.tmp-(\d+)-([0-9a-f]{8})-[0-9a-f]{8}$/;

let writer: string | undefined;

/**
 * Eight hex digits that tell this process's PID space apart from any other
 * that may write into the same folder: a hash of the host name, the kernel's
 * boot id and the PID namespace. Two processes share it exactly when one's
 * process id can be checked with `kill(pid, 0)` by the other.
 *
 * @example
 * writerTag(); // '3fa09c1e'
 */
export function writerTag(): string {
  if (writer === undefined) {
    const read = (f: () => string) => {
      try {
        return f();
      } catch {
        return '?';
      }
    };
    const boot = read(() => readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim());
    const pidns = read(() => readlinkSync('/proc/self/ns/pid'));
    writer = createHash('sha256').update(`${hostname()}\0${boot}\0${pidns}`).digest('hex').slice(0, 8);
  }
  return writer;
}

/** Temporary path → the destination it will be renamed to, for every write in progress. */
const pending = new Map<string, string>();

/**
 * A fresh temporary path beside `path` (same directory, hidden, unique; the
 * process id and {@link writerTag} in the name tell later runs whether its
 * writer still runs).
 *
 * @example
 * tempPathFor('out/train.arrow'); // 'out/.train.arrow.tmp-4242-3fa09c1e-1a2b3c4d'
 */
export function tempPathFor(path: string): string {
  return join(dirname(path), `.${basename(path)}.tmp-${process.pid}-${writerTag()}-${randomBytes(4).toString('hex')}`);
}

/**
 * The writes in progress: each temporary file and its destination.
 *
 * @example
 * pendingTempFiles(); // [{ tmp: 'out/.big.arrow.tmp-4242-1a2b3c4d', path: 'out/big.arrow' }]
 */
export function pendingTempFiles(): Array<{ tmp: string; path: string }> {
  return [...pending].map(([tmp, path]) => ({ tmp, path }));
}

/**
 * Removes every pending temporary file now (synchronously: safe in a signal
 * handler right before `process.exit`) and returns the destinations that will
 * not be written.
 *
 * @example
 * process.on('SIGTERM', () => { removePendingTempFiles(); process.exit(143); });
 */
export function removePendingTempFiles(): string[] {
  const cancelled: string[] = [];
  for (const [tmp, path] of pending) {
    try {
      unlinkSync(tmp);
    } catch {
      // not created yet, or already renamed
    }
    cancelled.push(path);
  }
  pending.clear();
  return cancelled;
}

function processIsGone(pid: number): boolean {
  if (pid === process.pid) return false;
  try {
    process.kill(pid, 0);
    return false;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ESRCH'; // EPERM: it runs, as another user
  }
}

/**
 * Removes the temporary files in `dir` left by writers that were killed
 * (SIGKILL): those named like {@link tempPathFor}'s with this process's
 * {@link writerTag} (same host, boot and PID namespace) whose process id no
 * longer runs. Files of other writers — another container or host, an earlier
 * boot, or the older `.NAME.tmp-PID-RANDOM` names that carry no tag — are left
 * alone: nothing here can tell whether they are still being written. Returns
 * the names removed.
 *
 * @example
 * await removeStaleTempFiles('out'); // ['.big.arrow.tmp-977-3fa09c1e-0e1f2a3b']
 */
export async function removeStaleTempFiles(dir: string): Promise<string[]> {
  const names = await readdir(dir).catch(() => [] as string[]);
  const removed: string[] = [];
  for (const name of names) {
    const m = TEMP_NAME.exec(name);
    if (m && m[2] === writerTag() && processIsGone(Number(m[1]))) {
      await unlink(join(dir, name)).then(
        () => removed.push(name),
        () => undefined,
      );
    }
  }
  return removed;
}

async function begin(paths: readonly string[]): Promise<string[]> {
  for (const dir of new Set(paths.map((p) => dirname(p)))) await removeStaleTempFiles(dir);
  const tmps = paths.map(tempPathFor);
  tmps.forEach((t, i) => pending.set(t, paths[i]));
  return tmps;
}

/**
 * Runs `produce(tmp)` to write a temporary file, then renames it to `path`.
 * If `produce` throws, the temporary file is removed and the error rethrown.
 *
 * @example
 * await withAtomicFile('model.json', (tmp) => writeFile(tmp, json));
 */
export async function withAtomicFile<T>(path: string, produce: (tmpPath: string) => Promise<T>): Promise<T> {
  return withAtomicFiles([path], ([tmp]) => produce(tmp));
}

/**
 * Several outputs that appear together or not at all: every file is written to
 * its temporary path first; only when all succeeded are they renamed in turn.
 *
 * @example
 * await withAtomicFiles(['train.arrow', 'test.arrow'], async ([a, b]) => { await write(a); await write(b); });
 */
export async function withAtomicFiles<T>(paths: readonly string[], produce: (tmpPaths: string[]) => Promise<T>): Promise<T> {
  const tmps = await begin(paths);
  try {
    const result = await produce(tmps);
    for (const t of tmps) await syncFile(t);
    for (let i = 0; i < paths.length; i++) {
      await rename(tmps[i], paths[i]);
      pending.delete(tmps[i]);
    }
    for (const dir of new Set(paths.map((p) => dirname(p)))) await syncDirectory(dir);
    return result;
  } catch (err) {
    await Promise.all(tmps.map((t) => unlink(t).catch(() => undefined)));
    throw writeError(err, paths, tmps);
  } finally {
    for (const t of tmps) pending.delete(t);
  }
}

/**
 * Writes `bytes` to `path` atomically (temporary file + rename).
 *
 * @example
 * await writeFileAtomic('out.txt', 'hello\n');
 */
export async function writeFileAtomic(path: string, bytes: Uint8Array | string): Promise<void> {
  await withAtomicFile(path, (tmp) => writeFile(tmp, bytes));
}

/** Flushes a written file to the disk (so a crash after the rename cannot leave an empty or partial file under the final name). */
async function syncFile(path: string): Promise<void> {
  const fh = await open(path, 'r');
  try {
    await fh.sync();
  } finally {
    await fh.close();
  }
}

/** Flushes a directory's entries (the rename); file systems that cannot sync a directory are let be. */
async function syncDirectory(dir: string): Promise<void> {
  try {
    const fh = await open(dir, 'r');
    try {
      await fh.sync();
    } finally {
      await fh.close();
    }
  } catch {
    // EINVAL/EISDIR on file systems without directory fsync: the rename itself has happened
  }
}

/** What a file system error code means, in words. */
const WRITE_FAILURES: Readonly<Record<string, string>> = {
  ENOSPC: 'no space left on the device',
  EDQUOT: 'disk quota exceeded',
  EROFS: 'the file system is read-only',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EIO: 'input/output error',
  EFBIG: 'the file is too large for the file system',
  ENOENT: 'the directory does not exist or cannot hold new files',
  ENOTDIR: 'a part of the path is not a directory',
  EISDIR: 'the destination is a directory',
  EXDEV: 'the temporary file and the destination are on different file systems',
};

/**
 * A file system failure while writing `paths` as a located {@link DataError}
 * (`out/model.dsg: cannot write: no space left on the device (ENOSPC); nothing
 * was written there`); any other error is returned as it is.
 */
function writeError(err: unknown, paths: readonly string[], tmps: readonly string[]): unknown {
  const e = err as NodeJS.ErrnoException | null;
  if (e === null || typeof e !== 'object' || typeof e.code !== 'string' || !(e.code in WRITE_FAILURES)) return err;
  // A read of an input can fail with the same codes: only failures on the outputs are re-worded here.
  const ours = e.path === undefined ? ['ENOSPC', 'EDQUOT', 'EFBIG', 'EROFS'].includes(e.code) : [...paths, ...tmps].includes(e.path) || paths.some((p) => dirname(p) === e.path);
  if (!ours) return err;
  const at = e.path !== undefined ? Math.max(tmps.indexOf(e.path), paths.indexOf(e.path)) : -1;
  const file = at >= 0 ? paths[at] : paths.join(', ');
  return new DataError(`cannot write: ${WRITE_FAILURES[e.code]} (${e.code}); nothing was written there${paths.length > 1 ? ' nor to the other outputs' : ''}`, { file }, { cause: err });
}

/**
 * Checks, before any work, that files can be created in the directory of
 * `path` (by creating and removing a temporary file there) and, when `bytes`
 * is given, that the file system has that much room. Throws a
 * {@link DataError} naming the directory and the reason: a read-only or full
 * file system, a missing permission, a directory such as `/proc` that holds
 * no files.
 *
 * @example
 * await checkWritable('out/model.dsg');              // resolves, or throws "out: cannot write here: …"
 * await checkWritable('out/big.arrow', 8 * 1e6 * 10); // also needs 80 MB free
 */
export async function checkWritable(path: string, bytes?: number): Promise<void> {
  const dir = dirname(path);
  const probe = tempPathFor(path);
  try {
    const fh = await open(probe, 'wx');
    await fh.close();
    await unlink(probe).catch(() => undefined);
  } catch (err) {
    await unlink(probe).catch(() => undefined);
    const code = (err as NodeJS.ErrnoException).code ?? '';
    const why = WRITE_FAILURES[code] ?? (err as Error).message;
    throw new DataError(`cannot write to '${path}': ${why}${code ? ` (${code})` : ''}`, { file: dir });
  }
  if (bytes !== undefined && bytes > 0) {
    const fs = await statfs(dir).catch(() => undefined);
    if (fs !== undefined && fs.bsize > 0) {
      const free = fs.bavail * fs.bsize;
      if (free < bytes) throw new DataError(`cannot write to '${path}': it needs about ${formatBytes(bytes)} and the file system has ${formatBytes(free)} free`, { file: dir });
    }
  }
}

function formatBytes(n: number): string {
  if (n >= 2 ** 30) return `${(n / 2 ** 30).toFixed(1)} GiB`;
  if (n >= 2 ** 20) return `${(n / 2 ** 20).toFixed(1)} MiB`;
  if (n >= 2 ** 10) return `${(n / 2 ** 10).toFixed(1)} KiB`;
  return `${n} bytes`;
}
