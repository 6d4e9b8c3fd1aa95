/**
 * All-or-nothing output files: everything dsgkit writes goes to a temporary
 * file in the destination's own directory (so the final `rename` stays on one
 * file system and is atomic), and is renamed over the destination only once
 * it is complete. A failure part-way removes the temporary file and leaves any
 * earlier file at the destination untouched. The file is synced to disk
 * (fsync) before the rename and its directory after, so a power cut leaves
 * either the earlier file or the complete new one, never an empty one.
 *
 * Interrupts: every temporary file being written is in a registry
 * ({@link pendingTempFiles}); the CLI's SIGINT/SIGTERM handler removes them
 * with {@link removePendingTempFiles} before it exits. Only SIGKILL (or a
 * power cut) can leave one behind: it is hidden, named
 * `.NAME.tmp-PID-RANDOM` with the writer's process id, and the next write
 * into the same directory removes those whose process no longer runs
 * ({@link removeStaleTempFiles}).
 */
import { randomBytes } from 'node:crypto';
import { unlinkSync } from 'node:fs';
import { open, readdir, rename, unlink, writeFile, type FileHandle } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/** `.NAME.tmp-PID-RANDOM`, as {@link tempPathFor} makes them. */
const TEMP_NAME = /^\..+\.tmp-(\d+)-[0-9a-f]{8}$/;

/** Temporary path → the destination it will be renamed to, for every write in progress. */
const pending = new Map<string, string>();

/**
 * A fresh temporary path beside `path` (same directory, hidden, unique; the
 * process id in the name tells later runs whether its writer still runs).
 *
 * @example
 * tempPathFor('out/train.arrow'); // 'out/.train.arrow.tmp-4242-1a2b3c4d'
 */
export function tempPathFor(path: string): string {
  return join(dirname(path), `.${basename(path)}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`);
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
 * (SIGKILL, power cut): those named like {@link tempPathFor}'s whose process
 * id no longer runs. Returns the names removed.
 *
 * @example
 * await removeStaleTempFiles('out'); // ['.big.arrow.tmp-977-0e1f2a3b']
 */
export async function removeStaleTempFiles(dir: string): Promise<string[]> {
  const names = await readdir(dir).catch(() => [] as string[]);
  const removed: string[] = [];
  for (const name of names) {
    const m = TEMP_NAME.exec(name);
    if (m && processIsGone(Number(m[1]))) {
      await unlink(join(dir, name)).then(
        () => removed.push(name),
        () => undefined,
      );
    }
  }
  return removed;
}

/**
 * fsync of a file (opened `r+`) or a directory (`r`). A file system or
 * platform that cannot sync a directory (EISDIR, EINVAL, EPERM on some) is
 * not an error: there the rename is as durable as it gets.
 */
async function syncPath(path: string, flags: 'r' | 'r+'): Promise<void> {
  let fh: FileHandle;
  try {
    fh = await open(path, flags);
  } catch (err) {
    if (flags === 'r') return; // a directory that cannot be opened (Windows)
    throw err;
  }
  try {
    await fh.sync();
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (!(flags === 'r' && (code === 'EISDIR' || code === 'EINVAL' || code === 'EPERM' || code === 'EBADF'))) throw err;
  } finally {
    await fh.close();
  }
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
    // On disk before the rename (else a power cut can leave the new name on an empty file) …
    for (const t of tmps) await syncPath(t, 'r+');
    for (let i = 0; i < paths.length; i++) {
      await rename(tmps[i], paths[i]);
      pending.delete(tmps[i]);
    }
    // … and the renames themselves on disk: the directories' entries.
    for (const dir of new Set(paths.map((p) => dirname(p)))) await syncPath(dir, 'r');
    return result;
  } catch (err) {
    await Promise.all(tmps.map((t) => unlink(t).catch(() => undefined)));
    throw err;
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
