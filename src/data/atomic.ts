/**
 * All-or-nothing output files: everything dsgkit writes goes to a temporary
 * file in the destination's own directory (so the final `rename` stays on one
 * file system and is atomic), and is renamed over the destination only once
 * it is complete. A failure part-way removes the temporary file and leaves any
 * earlier file at the destination untouched.
 */
import { randomBytes } from 'node:crypto';
import { rename, unlink, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/**
 * A fresh temporary path beside `path` (same directory, hidden, unique).
 *
 * @example
 * tempPathFor('out/train.arrow'); // 'out/.train.arrow.tmp-4242-1a2b3c4d'
 */
export function tempPathFor(path: string): string {
  return join(dirname(path), `.${basename(path)}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`);
}

/**
 * Runs `produce(tmp)` to write a temporary file, then renames it to `path`.
 * If `produce` throws, the temporary file is removed and the error rethrown.
 *
 * @example
 * await withAtomicFile('model.json', (tmp) => writeFile(tmp, json));
 */
export async function withAtomicFile<T>(path: string, produce: (tmpPath: string) => Promise<T>): Promise<T> {
  const tmp = tempPathFor(path);
  try {
    const result = await produce(tmp);
    await rename(tmp, path);
    return result;
  } catch (err) {
    await unlink(tmp).catch(() => undefined);
    throw err;
  }
}

/**
 * Several outputs that appear together or not at all: every file is written to
 * its temporary path first; only when all succeeded are they renamed in turn.
 *
 * @example
 * await withAtomicFiles(['train.arrow', 'test.arrow'], async ([a, b]) => { await write(a); await write(b); });
 */
export async function withAtomicFiles<T>(paths: readonly string[], produce: (tmpPaths: string[]) => Promise<T>): Promise<T> {
  const tmps = paths.map(tempPathFor);
  try {
    const result = await produce(tmps);
    for (let i = 0; i < paths.length; i++) await rename(tmps[i], paths[i]);
    return result;
  } catch (err) {
    await Promise.all(tmps.map((t) => unlink(t).catch(() => undefined)));
    throw err;
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
